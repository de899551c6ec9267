"""Run untrusted snippets outside the client's process (client side of the sandbox).

``Sandbox(kind)`` keeps ``concurrency`` warm zygotes: clean interpreters (empty environment, ``-I -S -B``)
that imported ``span`` once and fork one fresh child per snippet, so a snippet costs a fork instead of an
interpreter start plus ``import span`` (0.2-0.7 s), while no two snippets ever share a process.

Modes (limits.KINDS): ``bwrap`` (the zygote inside bubblewrap) and ``namespaces`` (as root, the zygote
builds the same minimal root itself) hide everything of the host but the Python runtime and ``span``, give
each snippet its own pid namespace and ``/proc``, and no network; ``auto`` is the first of them that works
here, and refuses to run when none does. ``unsafe-process`` keeps the zygote in the host's file system and
pid namespace. Every zygote is checked at start by a probe snippet (what it sees: processes, mounts,
interfaces, folders, uid, capabilities); a strong mode whose probe sees more than it should is refused.

When the client runs as root, each slot's snippets run as a dedicated uid that nothing else on the machine
uses (``procs.slot_uids``); only then does RLIMIT_NPROC bind, since the kernel never applies it to uid 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from contextlib import suppress

from . import _seccomp
from . import bwrap as _bwrap
from .limits import DEFAULT_LIMITS, KINDS, MAX_CODE_BYTES, STRONG_KINDS, ExecResult, Limits, SandboxError
from .procs import SHARED_WD, slot_uids, sweep_uid
from .rootfs import RootPlan, runtime_plan
from .zygote import CHILD_SCRIPT, Zygote, ZygoteGone

UNSAFE_HINT = "--sandbox unsafe-process (the model's code can then read what this user can read)"

# What a snippet sees, reported by the probe every zygote runs before its first real snippet.
PROBE = r"""
import json, os, socket
def walk(top, stop):
    out = []
    try:
        names = os.listdir(top)
    except OSError:
        return out
    for n in names:
        p = os.path.join(top, n)
        out.append(p)
        if os.path.isdir(p) and not os.path.islink(p) and p not in stop:
            out += walk(p, stop)
    return out
mounts = {}
for line in open("/proc/self/mountinfo"):  # a later mount on the same point hides the earlier one
    f = line.split()
    mounts[f[4]] = "ro" in f[5].split(",")
stop = set(json.loads(STOP))
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def refused(fn, *args):
    r = fn(*args)
    return r == -1 and ctypes.get_errno() in (1, 38)  # EPERM (the filter), ENOSYS
kernel = {}
if NRS:  # each call as the snippet would make it; True when the kernel refuses it
    kernel = {"userns": refused(libc.syscall, NRS["unshare"], 0x10000000),
              "clone_newuser": refused(libc.syscall, NRS["clone"], 0x10000000 | 17, 0, 0, 0, 0),
              "shm": refused(libc.syscall, NRS["shmget"], 0, 1 << 20, 0o1600),
              "msg": refused(libc.syscall, NRS["msgget"], 0, 0o1600),
              "sem": refused(libc.syscall, NRS["semget"], 0, 1, 0o1600),
              "mq": refused(libc.syscall, NRS["mq_open"], b"span-probe", 0o100 | 2, 0o600, None),
              "memfd": refused(libc.syscall, NRS["memfd_create"], b"probe", 0),
              "keyring": refused(libc.syscall, NRS["add_key"], b"user", b"span-probe", b"x", 1, -4)
              and refused(libc.syscall, NRS["keyctl"], 0, -3, 0)}
print(json.dumps({"pid": os.getpid(), "kernel": kernel, "ipc_ns": os.readlink("/proc/self/ns/ipc"),
                  "dev": sorted(os.listdir("/dev")) if os.path.isdir("/dev") else [], "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
                  "interfaces": [n for _, n in socket.if_nameindex()], "mounts": sorted(mounts.items()),
                  "uid": os.getuid(), "cap_eff": int(status["CapEff"].strip(), 16), "cwd": os.getcwd(),
                  "cwd_entries": os.listdir("."), "paths": walk("/", stop) if STRONG else []}))
"""

# What a strong mode's /dev holds: five devices and the links to a process's own descriptors.
DEV_ENTRIES = frozenset({"null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "fd"})


def _nrs() -> dict:
    table = _seccomp.TABLES.get(os.uname().machine)
    names = ("unshare", "clone", "shmget", "msgget", "semget", "mq_open", "memfd_create", "add_key", "keyctl")
    return {n: table[2][n] for n in names} if table else {}


def _own_ipc_ns() -> str | None:
    try:
        return os.readlink("/proc/self/ns/ipc")
    except OSError:
        return None


_LIVE: set["Sandbox"] = set()  # started and not closed: what emergency_cleanup() must undo


def emergency_cleanup() -> None:
    """Kill every zygote and remove every sandbox folder of this process, synchronously: for a process
    about to exit without unwinding (a second Ctrl-C or SIGTERM)."""
    for sb in list(_LIVE):
        for z in sb._zygotes:
            z.abandon()
        if sb._uids:
            for uid in set(sb._uids):
                with suppress(SandboxError):
                    sweep_uid(uid)
        if sb._root:
            shutil.rmtree(sb._root, ignore_errors=True)
            sb._root = None
    _LIVE.clear()


class Sandbox:
    """A pool of sandbox slots; ``await sb.run(code)`` runs one snippet in a fresh confined process.

        async with Sandbox(concurrency=2) as sb:      # kind="auto"
            result = await sb.run('print(search_calendar("gregorian", 2025, 7, 1)["hebrew_date"])')
    """

    def __init__(self, kind: str = "auto", *, limits: Limits | None = None, concurrency: int = 1,
                 audit_hook: bool = True, seccomp: bool = True) -> None:
        """audit_hook=False leaves only the OS-enforced layers, seccomp=False every layer but the seccomp
        filter: for testing those, never for a real run."""
        if kind not in KINDS:
            raise SandboxError(f"unknown sandbox kind {kind!r}; valid: {', '.join(KINDS)}")
        if not isinstance(concurrency, int) or isinstance(concurrency, bool) or not 1 <= concurrency <= 64:
            raise SandboxError(f"sandbox concurrency must be an integer from 1 to 64, got {concurrency!r}")
        if sys.platform != "linux":
            raise SandboxError(f"the sandbox needs Linux (rlimits, /proc, namespaces, fd passing); this is "
                               f"{sys.platform}")
        self.requested = kind
        self.kind = kind if kind != "auto" else None  # the mode in force once started
        self.limits, self.concurrency = limits or DEFAULT_LIMITS, concurrency
        self.audit_hook = bool(audit_hook)
        self.seccomp = bool(seccomp)
        self._uids = slot_uids(concurrency)
        self._root: str | None = None
        self._plan: RootPlan | None = None
        self._slots: asyncio.Queue | None = None
        self._zygotes: list[Zygote] = []
        self._seen: dict | None = None  # what the probe saw (the first zygote's)

    # ------------------------------------------------------------------------------------------ state
    @property
    def isolation(self) -> dict:
        """What confines this sandbox's snippets here, as its probe saw it (recorded with every result)."""
        seen = self._seen or {}
        rw = [m for m, ro in seen.get("mounts", []) if not ro and m not in ("/proc", seen.get("cwd"))]
        strong = self.kind in STRONG_KINDS
        return {"kind": self.kind, "requested": self.requested, "warm": True, "uid_drop": self._uids is not None,
                "network_namespace": seen.get("interfaces") == ["lo"],
                "pid_namespace": seen.get("pids") == [1],
                "private_root": strong and bool(seen),  # checked by _verify: nothing but the runtime
                "read_only_system": bool(seen) and not rw,
                # the kernel refuses keyrings, SysV/POSIX IPC, memfd and new namespaces (_seccomp.py)
                "seccomp": bool(seen.get("kernel")) and all(seen["kernel"].values()),
                "ipc_namespace": bool(seen) and seen.get("ipc_ns") != _own_ipc_ns(),
                "audit_hook": self.audit_hook}

    # ------------------------------------------------------------------------------------------ start
    async def start(self) -> "Sandbox":
        if self._slots is not None:
            return self
        candidates = list(STRONG_KINDS) if self.requested == "auto" else [self.requested]
        reasons = []
        for kind in candidates:
            try:
                await self._start_as(kind)
                return self
            except SandboxError as e:
                reasons.append(f"{kind}: {e}")
                await self.close()
            except BaseException:
                await self.close()
                raise
        if self.requested == "auto":
            err = SandboxError(f"no sandbox that hides this machine's files from the model's code works here "
                               f"({'; '.join(reasons)}); {_bwrap.INSTALL_HINT}, or run as root, or accept "
                               f"{UNSAFE_HINT}")
            err.reasons = reasons  # type: ignore[attr-defined] - each strong mode's own reason
            raise err
        raise SandboxError(f"--sandbox {reasons[0]}")

    def _unavailable(self, kind: str) -> str | None:
        if kind == "bwrap" and shutil.which("bwrap") is None:
            return f"bwrap is not installed ({_bwrap.INSTALL_HINT})"
        if kind == "namespaces" and not os.path.isdir("/tmp"):
            return "needs a /tmp folder to build its root on"
        return None

    async def _start_as(self, kind: str) -> None:
        why = self._unavailable(kind)
        if why:
            raise SandboxError(why)
        if kind in STRONG_KINDS:
            try:
                self._plan = runtime_plan(CHILD_SCRIPT)
            except ValueError as e:
                raise SandboxError(str(e)) from None
        else:
            self._plan = RootPlan((), (), tuple(runtime_plan(CHILD_SCRIPT).python_paths))
        self.kind = kind
        _LIVE.add(self)
        if kind == "unsafe-process":
            # a host folder for the work dirs; named with our pid so a test or a person can tell whose it is
            self._root = tempfile.mkdtemp(prefix=f"span-sandbox-{os.getpid()}-")
            os.chmod(self._root, 0o711)  # slot uids may enter their own work dirs, not list others'
            os.mkdir(os.path.join(self._root, SHARED_WD), 0o755)
        self._slots = asyncio.Queue()
        zygotes = await asyncio.gather(*(self._new_zygote(i) for i in range(self.concurrency)),
                                       return_exceptions=True)
        for z in zygotes:
            if isinstance(z, Zygote):
                self._zygotes.append(z)
        for z in zygotes:
            if isinstance(z, BaseException):
                raise z
        for i, z in enumerate(self._zygotes):
            self._slots.put_nowait((i, z))

    async def _new_zygote(self, slot: int) -> Zygote:
        uid = self._uids[slot] if self._uids else None
        z = Zygote(self.kind, self._plan, uid, os.path.join(self._root, SHARED_WD) if self._root else None)
        z.seccomp = self.seccomp
        await z.start()
        try:
            probe = (f"STOP = {json.dumps(self._stop_dirs())!r}\nSTRONG = {self.kind in STRONG_KINDS}\n"
                     f"NRS = {_nrs() if self.seccomp else {}!r}\n" + PROBE)  # unfiltered, they would succeed
            res = await z.run(probe, DEFAULT_LIMITS, self._workdir(), audit_hook=False)
            if not res.ok:
                last = (res.stderr.strip().splitlines() or [res.exit_reason])[-1]
                raise SandboxError(f"its check run failed: {last}")
            seen = json.loads(res.stdout)
            self._verify(seen, uid)
        except ZygoteGone as e:
            await z.close()
            raise SandboxError(f"the sandbox died during its check run ({z._log_tail() or e})") from None
        except BaseException:
            await z.close()
            raise
        if self._seen is None:
            self._seen = seen
        return z

    def _stop_dirs(self) -> list[str]:
        """Folders the probe does not walk into: the binds (their content is the runtime) and /proc."""
        return [*(self._plan.binds if self._plan else ()), "/proc", "/dev"]

    def _verify(self, seen: dict, uid: int | None) -> None:
        """A strong mode's snippet must see nothing of the host but the plan's binds: raise if it does.
        In every mode (on an architecture with a filter table), the kernel must refuse what _seccomp.py
        lists: a keyring, System V or POSIX IPC, a memfd, a new user namespace."""
        problems = []
        allowed = [k for k, ok in seen.get("kernel", {}).items() if not ok]
        if self.seccomp and _seccomp.supported(os.uname().machine) and allowed:
            problems.append(f"the kernel lets it use {', '.join(sorted(allowed))}")
        if self.kind not in STRONG_KINDS:
            if problems:
                raise SandboxError("its check run found " + "; ".join(problems))
            return
        if set(seen["dev"]) - DEV_ENTRIES:
            problems.append(f"its /dev holds {sorted(set(seen['dev']) - DEV_ENTRIES)}")
        if seen["ipc_ns"] == _own_ipc_ns():
            problems.append("it shares the client's IPC namespace")
        if seen["pids"] != [1] or seen["pid"] != 1:
            problems.append(f"it sees other processes ({seen['pids'][:5]})")
        if seen["interfaces"] != ["lo"]:
            problems.append(f"it has network interfaces {seen['interfaces']}")
        rw = sorted({m for m, ro in seen["mounts"] if not ro and m != "/proc" and m != "/tmp"})
        if rw:
            problems.append(f"writable mounts {rw}")
        extra = [p for p in seen["paths"] if not self._plan.allows(p)]
        if extra:
            problems.append(f"it sees {extra[:3]}")
        runtime_in_tmp = {b.split("/")[2] for b in self._plan.binds if b.startswith("/tmp/")}
        if seen["cwd"] != "/tmp" or set(seen["cwd_entries"]) - runtime_in_tmp:
            problems.append("its work dir is not a fresh, empty /tmp")
        if uid is not None and seen["uid"] != uid:
            problems.append(f"it runs as uid {seen['uid']}, not {uid}")
        if seen["cap_eff"]:
            problems.append(f"it keeps capabilities {seen['cap_eff']:#x}")
        if problems:
            raise SandboxError("its check run found " + "; ".join(problems))

    def _workdir(self) -> str:
        if self.kind in STRONG_KINDS:
            return "/tmp"
        return os.path.join(self._root, SHARED_WD)

    async def __aenter__(self) -> "Sandbox":
        return await self.start()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        try:
            for z in self._zygotes:
                await z.close()
            self._zygotes.clear()
            if self._uids:
                for uid in set(self._uids):
                    sweep_uid(uid)
        finally:  # the directory goes even if a sweep failed
            if self._root:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None
            self._slots = None
            self._seen = None
            _LIVE.discard(self)

    # ------------------------------------------------------------------------------------------ run
    def _own_workdir(self, uid: int | None) -> str:
        wd = tempfile.mkdtemp(prefix="run-", dir=self._root)
        if uid is not None:
            os.chown(wd, uid, uid)
        return wd

    async def run(self, code: str, limits: Limits | None = None) -> ExecResult:
        if not isinstance(code, str):
            raise SandboxError(f"code must be a string, got {type(code).__name__}")
        limits = limits or self.limits
        if len(code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES:
            return ExecResult("", f"code is longer than {MAX_CODE_BYTES} bytes; not run", "error", None, 0.0,
                              kind=self.kind or self.requested, isolation=self.isolation)
        await self.start()
        slot, zygote = await self._slots.get()
        uid = self._uids[slot] if self._uids else None
        own_wd = None
        try:
            if self.kind in STRONG_KINDS or zygote.private_fs:
                wd = self._workdir()  # each snippet mounts its own tmpfs there
            else:
                wd = own_wd = self._own_workdir(uid)
            for attempt in (1, 2):
                if not zygote.alive:
                    await zygote.close()
                    zygote = await self._new_zygote(slot)
                    self._zygotes[slot] = zygote
                try:
                    res = await zygote.run(code, limits, wd, self.audit_hook)
                    break
                except ZygoteGone as e:
                    if attempt == 2:
                        raise SandboxError(f"the sandbox zygote keeps dying: {e}") from None
        finally:
            if own_wd is not None:
                shutil.rmtree(own_wd, ignore_errors=True)
            self._slots.put_nowait((slot, zygote))
        res.isolation = self.isolation
        return res


async def run_code(code: str, *, limits: Limits | None = None, kind: str = "auto",
                   sandbox: Sandbox | None = None) -> ExecResult:
    """Run one snippet. Pass a started ``Sandbox`` to reuse its warm slots; without one, a one-off
    sandbox is started and closed around this call (slower: ~0.3-0.5 s of interpreter start-up)."""
    if sandbox is not None:
        return await sandbox.run(code, limits)
    async with Sandbox(kind, limits=limits) as sb:
        return await sb.run(code, limits)

