"""Shared test helpers (fixtures live in the test modules)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from span_toolkit.span.benchmark.jsonl import encode


def read_results(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path: Path, items) -> Path:
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    return path


def jsonl_sha256(instances) -> str:
    """sha256 of instances as `span-client generate` writes them (one encoded line each): pins an output."""
    h = hashlib.sha256()
    for inst in instances:
        h.update((encode(inst) + "\n").encode())
    return h.hexdigest()


def reexpose_for_another_user(paths, tmp_path: Path) -> list[str]:
    """Shell lines for a private mount namespace in which each of ``paths`` (the Python installation, the
    checkout) stays reachable for another uid even when a folder above it is closed to others (/root, 0700;
    a `mktemp -d` folder): every path is set aside first, then each closed folder is covered with an open
    tmpfs, then the paths are put back. Setting all aside before covering matters: two paths may share one
    closed folder, and covering it first would hide the other."""
    import os

    hold, cover, put_back = [], [], []
    for i, p in enumerate(sorted({os.path.realpath(str(x)) for x in paths})):
        closed = next((a for a in list(reversed(Path(p).parents))[1:] + [Path(p)]
                       if not os.stat(a).st_mode & 0o001), None)
        if closed is not None:
            held = tmp_path / f"hold{i}"
            held.mkdir()
            hold.append(f"mount --bind {p} {held}")
            if f"mount -t tmpfs -o mode=755 tmpfs {closed}" not in cover:
                cover.append(f"mount -t tmpfs -o mode=755 tmpfs {closed}")
            put_back += [f"mkdir -p {p}", f"mount --bind {held} {p}"]
    return hold + cover + put_back
