"""The instances to ask: a JSONL file from ``span-client generate`` (or a user's own), or generated on the
fly for evaluation dates; optionally a stratified sample. Bad input raises :class:`DatasetError` with one
line that says what is wrong and what is valid."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from span_toolkit.span import benchmark


class DatasetError(Exception):
    """Unusable instances (message: what is wrong, what is valid)."""


def _file_lines(p: Path) -> Iterator[tuple[int, dict]]:
    try:
        f = p.open(encoding="utf-8")
    except OSError as e:
        raise DatasetError(f"--instances {p}: cannot read it ({e.strerror or e})") from None
    with f:
        try:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise DatasetError(f"--instances {p}: line {n} is not JSON ({e})") from None
                except RecursionError:
                    raise DatasetError(f"--instances {p}: line {n} nests arrays or objects too deeply to read; "
                                       f"a SPAN instance is a flat JSON object") from None
                if not isinstance(obj, dict) or "id" not in obj or "question" not in obj:
                    raise DatasetError(f"--instances {p}: line {n} is not a SPAN instance "
                                       f"(needs at least 'id' and 'question')")
                yield n, obj
        except UnicodeDecodeError as e:
            raise DatasetError(f"--instances {p}: not UTF-8 text (byte {e.start} of a line); expected JSON Lines "
                               f"from `span-client generate`") from None


def _check_path(p: Path) -> None:
    if p.is_dir():
        raise DatasetError(f"--instances {p} is a folder; give the JSONL file written by `span-client generate`")
    if not p.is_file():
        raise DatasetError(f"--instances: no such file: {p}")


def count_file(path: str | Path) -> int:
    """Validate every line of an instances file (so a bad file fails before any model is asked) and count.
    Instances without a gold answer are refused: they could never be scored."""
    p = Path(path)
    _check_path(p)
    n = 0
    for lineno, obj in _file_lines(p):
        if "gold" not in obj and "answer" not in obj:
            raise DatasetError(f"--instances {p}: line {lineno} (id {str(obj['id'])[:40]!r}) has no gold answer "
                               f"('gold' or 'answer'), so it could not be scored")
        n += 1
    if not n:
        raise DatasetError(f"--instances {p}: no instances in the file")
    return n


def iter_file(path: str | Path) -> Iterator[dict]:
    """Stream the instances of a file (memory stays flat in the number of instances)."""
    for _, obj in _file_lines(Path(path)):
        yield obj


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def _check_sample(n: int | None, total: int, what: str) -> None:
    if n is not None and n > total:
        raise DatasetError(f"--sample {n} is larger than the {total} instances of {what}; "
                           f"use --sample {total} or less (or leave it out for all)")


def _stratifiable(instance: dict) -> bool:
    return "direction" in instance and "reasoning_type" in instance


def sample_file(path: str | Path, n: int, seed: int) -> list[dict]:
    """A sample of N instances kept in file order, without holding the file: the generator's stratified
    sampler when every instance carries its fields, else a seeded uniform sample. One pass counts the
    instances (and their strata), a second keeps the chosen ones."""
    total = count_file(path)
    _check_sample(n, total, str(path))
    if n == total:
        return list(iter_file(path))
    chooser = benchmark.StratifiedChooser(n, seed)
    stratified = True
    for inst in iter_file(path):
        if not _stratifiable(inst):
            stratified = False
            break
        chooser.count(benchmark.instance_strata(inst))
    if stratified:
        chooser.draw()
        return [inst for inst in iter_file(path) if chooser.select(benchmark.instance_strata(inst))]
    keep = set(random.Random(seed).sample(range(total), n))
    return [inst for i, inst in enumerate(iter_file(path)) if i in keep]


def generated(dates: list, request: "benchmark.GenerationRequest | None" = None) -> tuple[Iterator[dict], int]:
    """(instances as a stream, how many) for evaluation dates (ISO strings or dates) and a GenerationRequest
    (its ``sample``: a stratified sample); built lazily so memory stays flat. (With exclude_disputed the
    count is an upper bound: the few instances left out are known only when built.)"""
    try:
        request = request if request is not None else benchmark.GenerationRequest()
        days = [benchmark.parse_eval_date(d, request.islamic_convention) if isinstance(d, str) else d for d in dates]
        for d in days:
            benchmark.check_request_date(d, request)
        total = benchmark.count_instances(days[:1], request) * len(days)
        if request.sample is not None:
            _check_sample(request.sample, total, f"{len(days)} evaluation date(s)")
            chosen = [dict(i) for i in benchmark.generate(days, request)]
            return iter(chosen), len(chosen)
    except ValueError as e:  # GeneratorError / CalendarError: the message says what is valid
        raise DatasetError(f"cannot generate instances: {e}") from None

    def items() -> Iterator[dict]:
        try:
            for inst in benchmark.generate(days, request):
                yield dict(inst)
        except ValueError as e:
            raise DatasetError(f"cannot generate instances: {e}") from None

    return items(), total


def generate_list(dates: list, request: "benchmark.GenerationRequest | None" = None) -> list[dict]:
    items, _ = generated(dates, request)
    return list(items)


@dataclass
class Instances:
    """What a run asks: the instances (streamed unless sampled), how many, and what they are (``source``,
    recorded in run.json: a resume must match it)."""

    items: Iterable[dict]
    total: int
    source: dict | None = None


def load(spec) -> Instances:
    """The instances a RunSpec names: its file (sampled in two passes) or its dates (generated)."""
    sampling = {"sample": spec.sample, "seed": spec.seed if spec.sample else None}
    if spec.instances_file is not None:
        if spec.sample:
            items = sample_file(spec.instances_file, spec.sample, spec.seed)
            total = len(items)
        else:
            total = count_file(spec.instances_file)
            items = iter_file(spec.instances_file)
        return Instances(items, total, {"kind": "file", "sha256": file_sha256(spec.instances_file), **sampling})
    request = spec.generation_request()
    items, total = generated(list(spec.dates), request)
    options = request.recorded()
    for key in ("seed", "sample"):  # recorded beside, as for a file
        options.pop(key, None)
    return Instances(items, total, {"kind": "dates", "dates": list(spec.dates), **sampling, **options})
