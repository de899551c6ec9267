"""The bubblewrap command line that hosts a warm zygote (``--sandbox bwrap``, and ``auto`` where it works)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from .rootfs import RootPlan, runtime_plan

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


def bwrap_argv(plan: RootPlan, *, as_root: bool) -> list[str]:
    """bwrap arguments up to and including ``--``; the zygote's interpreter command follows.

    Its root holds the plan's read-only binds, a minimal /dev, a /proc of its own pid namespace and an
    empty /tmp, then is made read-only. As root no user namespace is made: the zygote keeps the
    capabilities it needs to give each snippet its own pid and mount namespaces, and each snippet drops to
    a dedicated uid (the kernel never applies RLIMIT_NPROC to uid 0, not even inside a user namespace
    whose uid 0 is host root). As a normal user: ``--unshare-all`` with uid 0 inside, and every capability
    kept for the zygote, which each snippet gives up before it runs."""
    argv = ["bwrap", "--die-with-parent", "--new-session"]
    if as_root:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        argv += ["--unshare-all", "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    for target, link in plan.symlinks:
        argv += ["--symlink", target, link]
    for d in plan.ancestors():  # as the zygote's own root makes them: traversable, so the snippet's uid
        argv += ["--perms", "0755", "--dir", d]  # can still import lazily from the runtime
    for p in plan.binds:
        argv += ["--ro-bind", p, p]
    # /dev: a tmpfs with the five devices and the fd links, not bwrap's --dev (which adds tty, ptmx, pts, shm)
    argv += ["--tmpfs", "/dev"]
    for name in ("null", "zero", "full", "random", "urandom"):
        argv += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        argv += ["--symlink", f"/proc/self/fd/{i}", f"/dev/{name}"]
    argv += ["--symlink", "/proc/self/fd", "/dev/fd", "--proc", "/proc", "--dir", "/tmp", "--remount-ro", "/", "--chdir", "/",
             "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8", "--"]
    return argv


@functools.lru_cache(maxsize=1)
def bwrap_status() -> tuple[bool, str]:
    """(usable, reason): whether bwrap is installed and can create its namespaces here."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False, f"bwrap is not installed ({INSTALL_HINT})"
    argv = bwrap_argv(runtime_plan(__file__), as_root=os.geteuid() == 0)
    try:
        r = subprocess.run([*argv, sys.executable, "-I", "-S", "-c", "pass"], capture_output=True,
                           timeout=20, env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"bwrap could not run: {e}"
    if r.returncode != 0:
        msg = (r.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        return False, f"bwrap cannot create its sandbox here ({msg}); unprivileged user namespaces may be off"
    return True, exe
