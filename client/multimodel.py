"""Several models in one ``span-client eval``: ``--model`` repeated or a comma list, one run folder per model
under ``--out``, run one after another. A model is never dropped silently: a name given twice, an empty
item or two names that would share a folder is an error before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

from .models import ModelSpecError, parse_model

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def split_models(values: list[str] | str | None) -> list[str]:
    """Every model named, in order (``--model a --model b,c`` -> [a, b, c])."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        items = [x.strip() for x in str(value).split(",")]
        if any(not x for x in items):
            raise ModelSpecError(f"--model {value!r} has an empty name in its comma list")
        for x in items:
            parse_model(x)  # a bad name is refused here, with the usual message
            if x in out:
                raise ModelSpecError(f"--model {x} is given twice")
            out.append(x)
    return out


def folder_name(label: str) -> str:
    """A run folder name for a model: ``anthropic/claude-sonnet-4-5`` -> ``anthropic--claude-sonnet-4-5``."""
    name = _UNSAFE.sub("_", label.replace("/", "--")).strip("._") or "model"
    return name[:120]


def model_folders(out: Path, models: list[str]) -> dict[str, Path]:
    """One folder per model: ``--out`` itself for one model (as before), ``--out/<name>`` for several."""
    if len(models) <= 1:
        return {m: Path(out) for m in models}
    folders: dict[str, Path] = {}
    taken: dict[str, str] = {}
    for m in models:
        name = folder_name(m)
        if name.lower() in taken:  # case-insensitive file systems would merge them
            raise ModelSpecError(f"--model {m} and {taken[name.lower()]} would share the run folder {name}; "
                                 f"run them with separate --out")
        taken[name.lower()] = m
        folders[m] = Path(out) / name
    return folders
