"""The SPAN instances as inspect samples: generated for evaluation dates by the project's generator (every
generate option that matters is a task argument) or read from a JSONL file of ``span-client generate``.

A sample's input is the question, its target the gold answer's display form, its metadata the breakdowns
``inspect view`` filters on plus the instance itself under ``instance`` (the scorer's input). Models never
see metadata or targets."""

from __future__ import annotations

from datetime import date as _date
from typing import Any, Iterable

from inspect_ai.dataset import MemoryDataset, Sample

from span_toolkit.client.dataset import DatasetError, count_file, iter_file, sample_file
from span_toolkit.client.inspect_export import sample_metadata
from span_toolkit.span import benchmark


def date_spec(value: Any) -> str:
    """A task argument's dates as the generator's spec text (`inspect eval -T date=2025-07-01` arrives as a
    date object, a comma list as a list)."""
    if isinstance(value, (_date, str)):
        return str(value)
    if isinstance(value, Iterable):
        return ",".join(str(v) for v in value)
    raise ValueError(f"date: expected YYYY-MM-DD, a comma list, a range START..END[/STEP] or 'paper', got {value!r:.60}")


def instances(date: Any = None, request: "benchmark.GenerationRequest | None" = None, *,
              instances_file: str | None = None, sample: int | None = None, seed: int = 0) -> list[dict]:
    """The instances to ask: generated for `date` by `request` (a GenerationRequest, its sample included),
    or read from `instances_file` (sampled with `sample`, `seed`). Raises ValueError with one line saying
    what is valid."""
    if instances_file:
        if date is not None:
            raise ValueError("give either date or instances (a JSONL file), not both")
        try:
            if sample is None:
                count_file(instances_file)  # every line checked before any model is asked
                return list(iter_file(instances_file))
            return sample_file(instances_file, sample, seed)
        except DatasetError as e:
            raise ValueError(str(e)) from None
    if date is None:
        raise ValueError("no evaluation date: pass -T date=2025-07-01 (or a list, a range, 'paper'), "
                         "or -T instances=FILE.jsonl")
    request = request if request is not None else benchmark.GenerationRequest()
    days = benchmark.parse_dates_spec(date_spec(date), islamic_convention=request.islamic_convention)
    if not days:
        raise ValueError("the date range contains no dates")
    items = [dict(i) for i in benchmark.generate(days, request)]
    if request.sample is not None and len(items) < request.sample:
        raise ValueError(f"sample {request.sample} is larger than the {len(items)} instances of "
                         f"{len(days)} evaluation date(s); use sample={len(items)} or less (or leave it out)")
    return items


def to_sample(instance: dict) -> Sample:
    return Sample(id=str(instance["id"]), input=str(instance["question"]),
                  target=str(instance.get("answer") if instance.get("answer") is not None else ""),
                  metadata={**sample_metadata(instance), "instance": instance})


def span_dataset(items: list[dict], name: str) -> MemoryDataset:
    return MemoryDataset([to_sample(i) for i in items], name=name)
