"""The sandbox's child side: the warm zygote, run as a *script* by a fresh interpreter (``python -I -S -B``).

It never imports the ``client`` package (nothing of the client, and no API key, is in this process). It
imports ``span`` and ``datetime`` once, then loops: receive one request (a snippet, its limits, its uid, and
over SCM_RIGHTS the write ends of its stdout/stderr pipes and the read end of its kill pipe), ``fork()``,
report the child's pid, wait for it (killing it when the kill pipe says so) and report its status and CPU
time. The zygote never runs model code: every snippet runs in its own freshly forked process, so nothing one
snippet does survives into the next.

Where the zygote lives (``cfg["mode"]``):

* ``bwrap``: bubblewrap made its root (read-only binds of the Python runtime and ``span``, nothing else of
  the host) and its namespaces; it starts inside.
* ``namespaces`` (root): it unshares its own mount, network, IPC and UTS namespaces, imports ``span``,
  builds the same root itself (a tmpfs with read-only binds) and ``pivot_root``s into it, detaching the
  host's file system for good.
* ``unsafe-process``: it stays in the host's file system and pid namespace (when root: its own network
  namespace, and each snippet a read-only view of the host with a private tmpfs work dir).

In ``bwrap`` and ``namespaces`` every snippet also gets a fresh pid namespace (it is pid 1 there and its own
``/proc`` shows nothing else) and a fresh mount namespace: every mount read-only, a new empty tmpfs on
``/tmp`` as its work dir and home. Then (``_confine``): the dedicated uid (root) or no capabilities (a user
namespace's root), parent-death signal, no-new-privileges, rlimits, the audit hook, the snippet.

Why this module is long: it is run as a script with ``-I`` (its own folder is not on ``sys.path``, and
importing ``client`` here would bring the client into the sandbox), so the zygote, the root it builds and
each snippet's confinement live in this one file.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import signal
import struct
import sys

# What a snippet may import (besides what is loaded anyway): imported before the uid drop, since the
# dropped uid may not be able to read the Python installation (e.g. under /root).
SNIPPET_MODULES = ("datetime", "calendar", "time", "math", "decimal", "fractions", "re", "json", "string",
                   "textwrap", "itertools", "functools", "operator", "collections")
PRELOADED = SNIPPET_MODULES + ("_strptime", "traceback", "linecache", "tokenize")  # used lazily at run time
STRONG = ("bwrap", "namespaces")
WORKDIR = "/tmp"  # a snippet's work dir and home in the strong modes: a fresh tmpfs per snippet
_SELF = os.path.abspath(__file__)
_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS = {"ro": 1, "nosuid": 2, "nodev": 4, "noexec": 8, "noatime": 1024, "nodiratime": 2048,
       "relatime": 1 << 21, "strictatime": 1 << 24}
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PIVOT_ROOT = {"x86_64": 155, "amd64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "loongarch64": 41,
               "ppc64le": 203, "ppc64": 203, "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218}
_DEVICES = ("null", "zero", "full", "random", "urandom")
# Audit events refused outright (prefix match). The audit hook is a speed bump against ordinary
# code doing these things, not a security boundary: see docs/sandbox.md.
_BLOCKED_PREFIXES = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                     "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.startfile", "pty.", "ctypes.",
                     "resource.setrlimit", "resource.prlimit", "os.chroot", "os.setns", "os.unshare",
                     "sys.remote_exec", "signal.pthread_kill", "mmap.", "webbrowser.", "urllib.",
                     "http.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.",
                     "sqlite3.", "os.add_dll_directory", "winreg.", "msvcrt.", "_winapi.")
# Events whose string arguments are paths the snippet wants to change: allowed only inside the work dir.
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.link", "os.symlink", "os.chmod",
                "os.chown", "os.lchown", "os.truncate", "os.utime", "os.chflags", "os.lchflags",
                "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod", "os.chdir", "shutil.rmtree",
                "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.copytree", "shutil.move",
                "shutil.chown", "shutil.make_archive", "shutil.unpack_archive"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _load_seccomp():
    """The filter module beside this script, loaded by path (``-I``: this folder is not on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_span_seccomp", os.path.join(os.path.dirname(_SELF),
                                                                                "_seccomp.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SECCOMP = None  # set by the zygote at start


def _libc():
    import ctypes  # only the trusted bootstrap uses it, before the audit hook refuses ctypes.*

    return ctypes.CDLL(None, use_errno=True)


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


def _check(result: int, what: str) -> None:
    if result != 0:
        err = _errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _preload(paths: list[str]):
    sys.path[:0] = paths
    import datetime

    for name in PRELOADED:
        __import__(name)
    # datetime.strptime imports _strptime lazily and caches locale data: warm both now.
    datetime.datetime.strptime("2020-1-2", "%Y-%m-%d")
    from span import search_calendar  # the core alone, by its folder name: the sandbox puts its parent on sys.path
    search_calendar("gregorian", 2020, 1, 2)  # first call fills lazy tables (convertdate, lunar data)
    return search_calendar


def _mount(libc, source, target: str, fstype, flags: int, data=None) -> None:
    enc = (lambda v: v.encode() if isinstance(v, str) else v)
    _check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _mountinfo() -> list[tuple[str, set[str]]]:
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), parts[4])
            out.append((point, set(parts[5].split(","))))
    return out


def _remount_ro(libc, point: str, opts: set[str], extra: int = 0) -> None:
    keep = sum(_MS[o] for o in opts if o in _MS and o != "ro")  # atime flags may be locked: keep them
    _mount(libc, None, point, None, _MS_BIND | _MS_REMOUNT | _MS["ro"] | keep | extra)


def _all_read_only(libc, skip) -> None:
    """Every mount of this (private) mount namespace read-only, except those ``skip(point)`` names."""
    for point, opts in _mountinfo():
        if "ro" not in opts and not skip(point):
            _remount_ro(libc, point, opts)


# ------------------------------------------------------------------------------ namespaces: the root

def _bind_ro(libc, fd: int, dst: str, extra: int, rec: bool = False) -> None:
    """Bind what ``fd`` (O_PATH) names onto ``dst``, read-only. The bind keeps its source mount's flags
    (inside a user namespace nosuid/nodev/noexec/atime are locked and may only be added to), so the
    read-only remount repeats them. ``rec``: with the mounts below it (inside a user namespace the kernel
    refuses to bind a folder without the mounts it holds; each snippet makes every mount read-only)."""
    _mount(libc, f"/proc/self/fd/{fd}", dst, None, _MS_BIND | (_MS_REC if rec else 0))
    opts = next((o for point, o in reversed(_mountinfo()) if point == dst), set())
    _remount_ro(libc, dst, opts, extra)


def _enter_user_namespace(libc, ctl_fd: int) -> None:
    """namespaces mode as a normal user: a user namespace (uid and gid 0 inside, mapped to ours) with new
    mount, network, IPC, UTS and pid namespaces. The calling process stays outside, waits for its child
    (pid 1 of the new pid namespace, which carries on as the zygote) and exits with it."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS
                    | _CLONE_NEWPID) != 0:
        err = _errno()
        raise OSError(err, f"unshare(CLONE_NEWUSER ...): {os.strerror(err)} (unprivileged user namespaces "
                           f"are off here)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    try:  # no user namespace below this one (the limit is this namespace's own; the host's is untouched)
        with open("/proc/sys/user/max_user_namespaces", "w") as f:
            f.write("0")
    except OSError:
        pass  # a kernel without per-namespace limits: the seccomp filter still refuses them
    pid = os.fork()
    if pid:
        os.close(ctl_fd)  # the client must see the zygote's death as its socket closing
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)



def _enter_minimal_root(libc, plan: dict, own_proc: bool = False) -> None:
    """The zygote's own root: a tmpfs holding read-only binds of ``plan["binds"]`` (the Python runtime and
    ``span``), its symlinks, a few device nodes, empty ``/proc`` and ``/tmp``; then ``pivot_root`` into it
    and detach the host's file system. Called as root (of the host, or of a user namespace: ``own_proc``,
    a /proc of the zygote's own pid namespace, which a snippet's /proc may then be mounted over), after
    unshare(CLONE_NEWNS), before any snippet."""
    nr = _PIVOT_ROOT.get(os.uname().machine)
    if nr is None:
        raise OSError(f"pivot_root: no system call number known for {os.uname().machine}")
    new = plan["mountpoint"]
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing done here propagates to the host
    # Held open first: a bind source may lie under the mount point (a virtualenv in /tmp), hidden below.
    sources = {src: os.open(src, os.O_PATH | os.O_DIRECTORY) for src in plan["binds"]}
    devices = {name: os.open(f"/dev/{name}", os.O_PATH) for name in _DEVICES}
    _mount(libc, "tmpfs", new, "tmpfs", _MS["nosuid"] | _MS["nodev"], "mode=0755,size=1m")
    for src, fd in sources.items():
        dst = new + src
        os.makedirs(dst, 0o755, exist_ok=True)
        _bind_ro(libc, fd, dst, _MS["nosuid"] | _MS["nodev"], rec=own_proc)
        os.close(fd)
    for target, link in plan["symlinks"]:
        os.makedirs(os.path.dirname(new + link), 0o755, exist_ok=True)
        os.symlink(target, new + link)
    dev = new + "/dev"
    os.mkdir(dev, 0o755)
    _mount(libc, "tmpfs", dev, "tmpfs", _MS["nosuid"] | _MS["noexec"], "mode=0755,size=64k")
    for name, fd in devices.items():
        node = f"{dev}/{name}"
        os.close(os.open(node, os.O_CREAT | os.O_WRONLY, 0o666))
        _bind_ro(libc, fd, node, _MS["nosuid"] | _MS["noexec"])  # the device still reads and writes
        os.close(fd)
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{dev}/{name}")
    os.symlink("/proc/self/fd", f"{dev}/fd")
    _remount_ro(libc, dev, set(), _MS["nosuid"] | _MS["noexec"])
    os.mkdir(new + "/proc", 0o555)
    if own_proc:
        _mount(libc, "proc", new + "/proc", "proc", _MS["nosuid"] | _MS["nodev"] | _MS["noexec"])
    os.makedirs(new + WORKDIR, 0o755, exist_ok=True)  # already there when a bind lives under /tmp
    os.chdir(new)
    # pivot_root(".", "."): the old root ends up stacked on the new one; detaching it leaves only the new.
    _check(libc.syscall(nr, b".", b"."), "pivot_root")
    _check(libc.umount2(b".", _MNT_DETACH), "umount the host's root")
    os.chdir("/")
    _mount(libc, None, "/", None, _MS_BIND | _MS_REMOUNT | _MS["ro"] | _MS["nosuid"] | _MS["nodev"])


# ------------------------------------------------------------------------------ per snippet

def _private_view(libc, uid: int, size: int, tmp_binds: list[str]) -> None:
    """Strong modes, in the snippet's process (pid 1 of its fresh pid namespace, still privileged): its own
    mount namespace, its own /proc (no other process in it), every other mount read-only, and a fresh
    tmpfs on /tmp (with the runtime's folders that live under /tmp bound again on it, read-only). Any
    failure is fatal: a snippet never runs with a half-built view."""
    _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC), "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    # Over the zygote's /proc, not after unmounting it: inside a user namespace the kernel lets a new proc
    # be mounted only where a fully visible one already is.
    _mount(libc, "proc", "/proc", "proc", _MS["nosuid"] | _MS["nodev"] | _MS["noexec"])
    _all_read_only(libc, lambda p: p == "/proc" or p.startswith("/proc/"))
    kept = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in tmp_binds}
    _mount(libc, "tmpfs", WORKDIR, "tmpfs", _MS["nosuid"] | _MS["nodev"],
           f"size={int(size)},mode=0700,uid={int(uid)},gid={int(uid)}")
    for p, fd in kept.items():
        os.makedirs(p, 0o755, exist_ok=True)
        _mount(libc, f"/proc/self/fd/{fd}", p, None, _MS_BIND)
        _remount_ro(libc, p, set(), _MS["nosuid"] | _MS["nodev"])
        os.close(fd)


def _private_fs(libc, workdir: str, uid: int, size: int) -> None:
    """unsafe-process as root: its own mount namespace, every mount read-only, the work dir a fresh tmpfs.

    Nothing it writes reaches the host's disk, but it still sees (reads) the host's files."""
    _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC), "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    wd = os.path.realpath(workdir)
    _all_read_only(libc, lambda p: p == wd or p.startswith(wd + "/"))
    _mount(libc, "tmpfs", wd, "tmpfs", _MS["nosuid"] | _MS["nodev"],
           f"size={int(size)},mode=0700,uid={int(uid)},gid={int(uid)}")


def _drop_capabilities(libc) -> None:
    """uid 0 of a user namespace (no dedicated uid to drop to): give up every capability for good."""
    import ctypes

    last = 63
    while last > 0 and libc.prctl(_PR_CAPBSET_DROP, last, 0, 0, 0) != 0:
        last -= 1  # capabilities the kernel does not have: EINVAL
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()                   # effective, permitted, inheritable: all empty
    _check(libc.capset(header, data), "capset")


def _install_hook(workdir: str, allowed_modules: frozenset[str]) -> None:
    wd = os.path.realpath(workdir)
    wd_prefix = wd + os.sep
    realpath, join, fspath = os.path.realpath, os.path.join, os.fspath

    def inside(p) -> bool:
        try:
            p = fspath(p)
        except TypeError:
            return True  # an fd number: it names something already open
        if isinstance(p, bytes):
            p = p.decode("utf-8", "surrogateescape")
        full = realpath(join(wd, p))
        return full == wd or full.startswith(wd_prefix) or full == "/dev/null"

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                (isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writing and path is not None and not isinstance(path, int) and not inside(path):
                raise PermissionError(f"sandbox: writing outside the work dir is not allowed ({path!r:.80})")
            return
        if event == "import":
            name = args[0]
            if name not in allowed_modules:
                raise ImportError(f"sandbox: module {name!r} is not available; importable modules: "
                                  f"{', '.join(SNIPPET_MODULES)}; search_calendar, datetime, date and "
                                  f"timedelta are already defined")
            return
        if event.startswith(_BLOCKED_PREFIXES):
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event in _PATH_EVENTS:
            for a in args:
                if isinstance(a, (str, bytes, os.PathLike)) and not inside(a):
                    raise PermissionError(f"sandbox: {event} outside the work dir is not allowed")

    sys.addaudithook(hook)


def _setrlimit(which: int, value: int, hard: int | None = None) -> None:
    hard = value if hard is None else hard
    _, cur_hard = resource.getrlimit(which)
    if cur_hard != resource.RLIM_INFINITY:  # an unprivileged process cannot raise its hard limit
        value, hard = min(value, cur_hard), min(hard, cur_hard)
    resource.setrlimit(which, (value, hard))


def _confine(req: dict, libc, parent_pid: int | None) -> None:
    """``parent_pid`` None: the parent is outside this process's pid namespace (getppid() is 0)."""
    lim = req["limits"]
    uid = req.get("uid")
    tmpfs_size = max(4 * int(lim["file_size_bytes"]), 4 * 2**20)
    if req.get("mode") in STRONG:
        _private_view(libc, uid if uid is not None else os.getuid(), tmpfs_size, req.get("tmp_binds") or [])
    elif req.get("private_fs"):
        _private_fs(libc, req["workdir"], uid if uid is not None else os.getuid(), tmpfs_size)
    os.chdir(req["workdir"])
    if uid is not None:
        os.setgroups([])
        os.setgid(req["gid"])
        os.setuid(uid)  # as root: real, effective and saved uid; every capability is dropped
    elif os.geteuid() == 0 and req.get("mode") in STRONG:
        _drop_capabilities(libc)
    if libc is not None:
        # Cleared by setuid, so set after it: die with the zygote (or the bwrap init) that forked us.
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if parent_pid is not None and os.getppid() != parent_pid:
            raise OSError("the zygote died before the snippet started")
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no setuid binary can give privileges back
    # Soft = hard: SIGKILL at the limit. A strong mode's snippet is pid 1 of its namespace, and the kernel
    # does not deliver SIGXCPU (or any signal it has no handler for) to a namespace's init.
    _setrlimit(resource.RLIMIT_CPU, int(lim["cpu_seconds"]))
    _setrlimit(resource.RLIMIT_AS, int(lim["memory_bytes"]))
    _setrlimit(resource.RLIMIT_FSIZE, int(lim["file_size_bytes"]))
    _setrlimit(resource.RLIMIT_NPROC, int(lim["max_processes"]))
    _setrlimit(resource.RLIMIT_NOFILE, int(lim["max_open_files"]))
    _setrlimit(resource.RLIMIT_CORE, 0)
    if libc is not None and _SECCOMP is not None and req.get("seccomp", True):
        _SECCOMP.install(libc, os.uname().machine)  # keyrings, IPC, namespaces, mounts: refused (_seccomp.py)
    env = {"HOME": req["workdir"], "TMPDIR": req["workdir"], "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    os.environ.clear()
    os.environ.update(env)


class _Counting:
    """sys.stdout wrapper that notes whether the snippet printed anything."""

    def __init__(self, stream):
        self._s = stream
        self.used = False

    def write(self, text):
        if text:
            self.used = True
        return self._s.write(text)

    def __getattr__(self, name):
        return getattr(self._s, name)


def _run_snippet(code: str, search_calendar) -> int:
    import builtins
    import datetime as _dt
    import traceback
    import types

    out = _Counting(sys.stdout)
    sys.stdout = out
    main = types.ModuleType("__main__")
    ns = main.__dict__
    ns.update({"__builtins__": builtins, "search_calendar": search_calendar, "datetime": _dt.datetime,
               "date": _dt.date, "timedelta": _dt.timedelta})
    # The bootstrap's own module (with its helpers) must not be reachable as __main__.
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - this process is the sandbox
        if "answer" in ns and not out.used:
            # Appendix F's code leaves its result in `answer` instead of printing it.
            print(f"answer = {ns['answer']!r}")
    except SystemExit as e:
        c = e.code
        if c is None:
            status = 0
        elif isinstance(c, int):
            status = c & 0xFF
        else:
            print(c, file=sys.stderr)
            status = 1
    except BaseException as e:  # noqa: BLE001 - report every failure of the snippet as its error
        # The snippet's frames only: the bootstrap's own (exec, the audit hook) are noise to the model.
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != _SELF]
        text = "".join(traceback.format_exception_only(type(e), e))
        if frames and not isinstance(e, SyntaxError):
            text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + text
        sys.stderr.write(text)
        status = 1
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:  # noqa: BLE001 - a closed pipe must not change the status
            pass
    return status


SETUP_FD = 3  # the set-up channel: "R" once confined (then closed, before any snippet code), or "F<why>"


def _become_snippet(req: dict, search_calendar, libc, parent_pid: int | None) -> None:
    """In the snippet's own process: confine it, run it, and exit (never returns).

    Whether the sandbox's own set-up failed is told to the zygote on SETUP_FD, which is closed before the
    snippet's first line runs: a snippet cannot write there, so it cannot pass its own failure off as the
    sandbox's (its stderr and exit status are its own)."""
    status = 120
    try:
        _confine(req, libc, parent_pid)
        allowed = frozenset(sys.modules)
        sys.stdout.reconfigure(line_buffering=True)  # what it printed before a kill is kept
        sys.stderr.reconfigure(line_buffering=True)
        if req.get("audit_hook", True):
            _install_hook(req["workdir"], allowed)
        os.write(SETUP_FD, b"R")
        os.close(SETUP_FD)
    except BaseException as e:  # noqa: BLE001 - a sandbox set-up failure, reported, never run unconfined
        try:
            os.write(SETUP_FD, f"F{type(e).__name__}: {e}"[:2000].encode())
            os.write(2, f"sandbox set-up failed: {type(e).__name__}: {e}\n".encode())
        except OSError:
            pass
        os._exit(status)
    os._exit(_run_snippet(req["code"], search_calendar))


# ------------------------------------------------------------------------------------------ zygote

def _recv_exact(sock, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def _read_all(fd: int) -> bytes:
    out = b""
    os.set_blocking(fd, False)
    while len(out) < 4096:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def _reap() -> None:
    """Collect zombies: orphaned descendants of earlier snippets (killed by the client's sweep)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _probe_private_fs(libc, workdir: str | None, uid: int | None) -> bool:
    """unsafe-process: whether _private_fs works here (tried in a throw-away child)."""
    if not workdir or os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        try:
            _private_fs(libc, workdir, uid or 0, 2**20)
            os._exit(0)
        except BaseException:  # noqa: BLE001
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _wait(pid: int, kill_fd: int):
    """Wait for the snippet; SIGKILL it (and so its whole pid namespace, or its session) as soon as the
    client writes to or closes the kill pipe. Returns wait4's (status, rusage)."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None  # a kernel before 5.3: poll
    watch = [kill_fd]
    try:
        while True:
            r, _, _ = select.select(watch + ([pidfd] if pidfd is not None else []), [], [],
                                    None if pidfd is not None else 0.005)
            if kill_fd in r:
                watch = []
                for fn in (os.kill, os.killpg):
                    try:
                        fn(pid, signal.SIGKILL)
                    except OSError:
                        pass
            done, status, ru = os.wait4(pid, os.WNOHANG)
            if done == pid:
                return status, ru
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _zygote(cfg: dict) -> None:
    import socket

    libc = _libc()
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the client died: so does the zygote
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of a snippet come back here to be reaped
    mode, uid = cfg["mode"], cfg.get("uid")
    tmp_binds = [b for b in (cfg.get("root") or {}).get("binds", []) if b.startswith(WORKDIR + "/")]
    sock = socket.socket(fileno=int(cfg["ctl_fd"]))
    global _SECCOMP
    in_userns = False
    try:
        _SECCOMP = _load_seccomp()
        if _SECCOMP.supported(os.uname().machine):
            _SECCOMP._built(os.uname().machine)  # once, before any fork
        if mode == "namespaces" and os.geteuid() != 0:
            _enter_user_namespace(libc, sock.fileno())
            in_userns = True
        elif mode == "namespaces":
            _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS), "unshare")
        elif mode == "unsafe-process" and os.geteuid() == 0:
            libc.unshare(_CLONE_NEWNET | _CLONE_NEWIPC)  # best effort; the client's probe says what it got
        own_pidns = os.open("/proc/self/ns/pid", os.O_RDONLY) if mode in STRONG else None
        search_calendar = _preload(cfg["python_paths"])
        if mode == "namespaces":
            _enter_minimal_root(libc, cfg["root"], own_proc=in_userns)
        private_fs = mode == "unsafe-process" and _probe_private_fs(libc, cfg.get("probe_dir"), uid)
    except BaseException as e:  # noqa: BLE001 - told to the client, which says why the mode is unavailable
        sock.sendall((json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n").encode())
        os._exit(1)
    sock.sendall((json.dumps({"hello": os.getpid(), "private_fs": private_fs}) + "\n").encode())
    while True:
        _reap()
        try:
            head, fds, _, _ = socket.recv_fds(sock, 8, 3)
            if not head:
                os._exit(0)
            if len(head) < 8:
                head += _recv_exact(sock, 8 - len(head))
            (size,) = struct.unpack("!Q", head)
            req = json.loads(_recv_exact(sock, size))
        except (EOFError, OSError, ValueError):
            os._exit(0)
        if len(fds) != 3:
            os._exit(1)  # a protocol error: the client starts another zygote
        req["mode"], req["tmp_binds"] = mode, tmp_binds
        if own_pidns is not None and libc.unshare(_CLONE_NEWPID) != 0:
            for fd in fds:
                os.close(fd)
            sock.sendall((json.dumps({"pid": None, "error": f"unshare(CLONE_NEWPID): {os.strerror(_errno())}"})
                          + "\n").encode())
            continue
        me = os.getpid()
        setup_r, setup_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.dup2(fds[0], 1)
                os.dup2(fds[1], 2)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(setup_w, SETUP_FD)
                os.closerange(SETUP_FD + 1, 65536)  # the control socket and the kill pipe above all
            except BaseException:  # noqa: BLE001
                os._exit(121)
            _become_snippet(req, search_calendar, libc, None if own_pidns is not None else me)
        if own_pidns is not None and libc.setns(own_pidns, _CLONE_NEWPID) != 0:
            os.kill(pid, signal.SIGKILL)
            os._exit(1)  # the next fork would land in the dead namespace: the client starts a new zygote
        os.close(fds[0])
        os.close(fds[1])
        os.close(setup_w)
        sock.sendall((json.dumps({"pid": pid}) + "\n").encode())
        status, ru = _wait(pid, fds[2])
        os.close(fds[2])
        setup = _read_all(setup_r)  # the child is gone: nothing holds the write end any more
        os.close(setup_r)
        setup_error = None if setup.startswith(b"R") else \
            (setup[1:].decode(errors="replace") or "the snippet's process ended before its set-up finished")
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        rc = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sock.sendall((json.dumps({"exit": pid, "returncode": rc, "signal": sig, "setup_error": setup_error,
                                  "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss}) + "\n").encode())


def main(argv: list[str]) -> None:
    mode, config = argv[1], json.loads(argv[2])
    if mode != "zygote":
        sys.exit(f"unknown sandbox entry {mode!r}; valid: zygote")
    _zygote(config)


if __name__ == "__main__":
    main(sys.argv)
