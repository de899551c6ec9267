"""Every prompt text of the project, as files next to this module; loaded only through here.

``load(name)`` returns a prompt's text; ``sha256(name)`` and ``hashes()`` identify the exact texts a run
used (run.json records them, and a resume with other prompt texts is refused).

``SPAN_PROMPTS_DIR``, when set, names a folder whose files replace the same-named prompts (a prompt variant
measured without editing the package: benchmarks/bench_local_model.py --prompts). A file there that names no
prompt is an error, so a typo cannot silently measure the original text; the hashes say which texts ran.
"""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path

SUFFIXES = (".md", ".txt")
OVERRIDE_ENV = "SPAN_PROMPTS_DIR"


def _override(name: str) -> Path | None:
    folder = os.environ.get(OVERRIDE_ENV)
    if not folder:
        return None
    root = Path(folder)
    unknown = sorted(p.name for p in root.iterdir() if p.is_file() and p.name not in names())
    if unknown:
        raise FileNotFoundError(f"{OVERRIDE_ENV}={folder}: no prompt named {', '.join(unknown)}; "
                                f"prompts: {', '.join(names())}")
    candidate = root / name
    return candidate if candidate.is_file() else None


def _file(name: str):
    entry = resources.files(__name__).joinpath(name)
    if not name.endswith(SUFFIXES) or not entry.is_file():
        raise FileNotFoundError(f"no prompt named {name!r}; prompts: {', '.join(names())}")
    return _override(name) or entry


def names() -> list[str]:
    return sorted(e.name for e in resources.files(__name__).iterdir() if e.name.endswith(SUFFIXES))


def load(name: str) -> str:
    return _file(name).read_text(encoding="utf-8")


def load_bytes(name: str) -> bytes:
    return _file(name).read_bytes()


def sha256(name: str) -> str:
    return "sha256:" + hashlib.sha256(load_bytes(name)).hexdigest()


def hashes() -> dict[str, str]:
    return {name: sha256(name) for name in names()}
