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
