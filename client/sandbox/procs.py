"""Process plumbing of the sandbox: slot uids, killing, output, exit reasons, the request format."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import suppress

from .limits import Limits, SandboxError

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child.py")
INTERP_FLAGS = ["-I", "-S", "-B", "-X", "frozen_modules=on", "-X", "utf8"]
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
UID_BASE = 1_600_000_000  # far above login and system uids; + (client pid % 100000) * 64 + slot
STARTUP_TIMEOUT = 60.0
KILL_TIMEOUT = 10.0  # how long the zygote may take to report a snippet it was told to kill
SHARED_WD = "w"  # unsafe-process as root: every snippet mounts its own tmpfs on <root>/w
GRACE = 0.5  # after the process ends, how long a pipe may stay open (something inherited it)


def uid_mapped(uid: int) -> bool:
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                if inside <= uid < inside + count:
                    return True
    except (OSError, ValueError):
        return False
    return False


def slot_uids(n: int) -> list[int] | None:
    """Dedicated uids for n slots when running as root, else None (no privilege drop possible)."""
    if os.geteuid() != 0:
        return None
    base = UID_BASE + (os.getpid() % 100_000) * 64
    uids = [base + i % 64 for i in range(n)]
    return uids if all(uid_mapped(u) for u in uids) else None


def uid_pids(uid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                zombie = False
                for line in f:
                    if line.startswith("State:"):
                        zombie = line.split()[1] in ("Z", "X")  # dead, waiting to be reaped
                    elif line.startswith("Uid:"):
                        if int(line.split()[1]) == uid and not zombie:
                            out.append(int(entry))
                        break
        except (OSError, ValueError):
            continue
    return out


def sweep_uid(uid: int, rounds: int = 200) -> int:
    """Kill every process whose real uid is `uid` (a slot uid owns nothing but snippets).

    Stop them all first, then kill: a process forked between the scan and the kill is caught by the
    next round, and the loop ends only when a scan finds none."""
    killed = 0
    for _ in range(rounds):
        pids = uid_pids(uid)
        if not pids:
            return killed
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for p in pids:
                with suppress(ProcessLookupError, PermissionError):
                    os.kill(p, sig)
        killed += len(pids)
    raise SandboxError(f"could not kill the processes of sandbox uid {uid} after {rounds} rounds")


def kill_group(pid: int | None) -> None:
    if pid is None or pid <= 0:
        return
    for fn in (os.killpg, os.kill):
        with suppress(ProcessLookupError, PermissionError):
            fn(pid, signal.SIGKILL)


class Output:
    """Reads a snippet's stdout and stderr pipes incrementally; stops at the byte cap."""

    def __init__(self, fds: tuple[int, int], cap: int, on_cap) -> None:
        self._loop = asyncio.get_running_loop()
        self.cap, self.total, self.truncated = cap, 0, False
        self._on_cap = on_cap
        self.bufs = {fd: bytearray() for fd in fds}
        self._order = fds
        self._open = set(fds)
        self.done = self._loop.create_future()
        for fd in fds:
            os.set_blocking(fd, False)
            self._loop.add_reader(fd, self._read, fd)

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(fd)
            return
        room = self.cap - self.total
        if len(data) > room:
            self.bufs[fd] += data[:room]
            self.total, self.truncated = self.cap, True
            self.close()
            self._on_cap()
            return
        self.bufs[fd] += data
        self.total += len(data)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            self._loop.remove_reader(fd)
            os.close(fd)
        if not self._open and not self.done.done():
            self.done.set_result(None)

    def close(self) -> None:
        for fd in list(self._open):
            self._close(fd)

    def text(self) -> tuple[str, str]:
        out, err = (bytes(self.bufs[fd]).decode("utf-8", "replace") for fd in self._order)
        return out, err


def classify(*, returncode: int | None, sig: int | None, killed_for: str | None, cpu: float | None,
             stderr: str, limits: Limits, setup_error: str | None = None) -> str:
    """The exit reason of a finished snippet (see limits.EXIT_REASONS). ``setup_error`` comes from the
    zygote's set-up channel, which the snippet cannot write (never from its stderr or exit status)."""
    if killed_for:
        return killed_for
    if setup_error is not None:
        return "sandbox_error"
    if sig is not None:
        # RLIMIT_CPU kills with SIGKILL (soft = hard limit). rusage is sampled and reads up to ~15 % under
        # the limit here; a SIGKILL the sandbox did not send, after half the CPU budget, is that limit.
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu is not None and cpu >= 0.5 * limits.cpu_seconds):
            return "cpu"
        if sig in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS) and "memory" in stderr.lower():
            return "memory"
        return "killed"
    if returncode == 0:
        return "ok"
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if last.startswith("MemoryError"):
        return "memory"
    return "error"


def request(code: str, limits: Limits, workdir: str, uid: int | None, audit_hook: bool,
            private_fs: bool, seccomp: bool = True) -> dict:
    """What the zygote gets for one snippet (the zygote adds its own mode)."""
    return {"code": code, "limits": limits.as_dict(), "workdir": workdir, "uid": uid, "gid": uid,
            "audit_hook": audit_hook, "private_fs": private_fs, "seccomp": seccomp}
