"""What a strong sandbox's file system holds: the Python runtime and ``span``, read-only, and nothing else.

One plan for both strong modes: bubblewrap's command line (bwrap.py) and the zygote's own root
(``_child._enter_minimal_root``) are built from it, and the probe at start-up (pool.py) checks the
snippet sees nothing outside it. Only the ``span`` package folder is bound, never the project folder that
holds it (a run folder or an instances file may live there), and only the site-packages folders, never
a home folder that holds one.
"""

from __future__ import annotations

import os
import site
import sys
from dataclasses import dataclass

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # libc and the loader
SANDBOX_DIRS = ("/dev", "/proc", "/tmp")  # made by the sandbox itself, never the host's
NO_BINDS_UNDER = ("/dev", "/proc")  # (under /tmp is fine: each snippet's fresh /tmp gets those binds again)


@dataclass(frozen=True)
class RootPlan:
    binds: tuple[str, ...]                  # host folders bound read-only at the same path, parents first
    symlinks: tuple[tuple[str, str], ...]   # (target, link) as on the host (/lib -> usr/lib)
    python_paths: tuple[str, ...]           # sys.path entries for span and its dependencies

    def as_dict(self, mountpoint: str | None = None) -> dict:
        return {"binds": list(self.binds), "symlinks": [list(s) for s in self.symlinks], "mountpoint": mountpoint}

    def ancestors(self) -> list[str]:
        """The folders on the way to the binds (made empty and 0755 inside), parents first."""
        out: list[str] = []
        for b in self.binds:
            parts = b.strip("/").split("/")
            for i in range(1, len(parts)):
                a = "/" + "/".join(parts[:i])
                if a not in out and not _under(a, self.binds):
                    out.append(a)
        return sorted(out, key=lambda a: (a.count("/"), a))

    def allows(self, path: str) -> bool:
        """Whether ``path`` may be visible inside: under a bind, a sandbox dir, a symlink, or a parent of
        one of them (an empty folder on the way to a bind)."""
        path = path.rstrip("/") or "/"
        visible = (*self.binds, *SANDBOX_DIRS, *(link for _, link in self.symlinks))
        return any(path == v or path.startswith(v.rstrip("/") + "/") or v.startswith(path.rstrip("/") + "/")
                   for v in visible)


def python_paths() -> list[str]:
    """sys.path entries the zygote needs for ``span`` and its dependencies (it runs with -I -S)."""
    from span_toolkit import span
    out = [os.path.dirname(os.path.dirname(os.path.abspath(span.__file__)))]
    for p in [*site.getsitepackages(), site.getusersitepackages()]:
        if os.path.isdir(p) and p not in out:
            out.append(p)
    return out


def _under(path: str, parents) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in parents)


def runtime_plan(script: str) -> RootPlan:
    """The binds for this interpreter: system library folders, the Python installation(s), the ``span``
    package folder, site-packages, and the folder of the zygote's own script."""
    from span_toolkit import span
    binds: list[str] = []
    symlinks: list[tuple[str, str]] = []
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            symlinks.append((os.readlink(top), top))
        elif os.path.isdir(top):
            binds.append(top)
    paths = python_paths()
    span_dir = os.path.dirname(os.path.abspath(span.__file__))
    wanted = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, span_dir, os.path.dirname(script),
                                             *paths[1:])}
    for p in sorted(wanted, key=len):  # parents first, so a later bind never hides an earlier one
        if _under(p, NO_BINDS_UNDER):
            raise ValueError(f"cannot bind {p} into the sandbox: it is under {' or '.join(NO_BINDS_UNDER)}")
        if os.path.isdir(p) and not _under(p, binds):
            binds.append(p)
    # span's own parent is on sys.path but not bound: inside, it holds nothing but span/
    return RootPlan(tuple(binds), tuple(symlinks), tuple(os.path.realpath(p) for p in paths))
