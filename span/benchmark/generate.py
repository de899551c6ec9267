"""Generating instances: the families a GenerationRequest names, for one evaluation date or many,
streamed, or a stratified sample drawn without building (or holding) what is not chosen.

The SPAN evaluation protocol (paper Figure 1), stage by stage: 1. the evaluation date in every calendar
the families ask for (protocol.EvalDay: each conversion once per date, shared by the families);
2. template matching and 3. instantiation (each family's plan); 4. code execution (each family's build:
gold = what the instance's own code computes, checked against the core). Per evaluation date the paper's
protocol gives 1,780 instances (800 date-based + 980 festival-based); each further family named in the
request appends its own after them (``extended``: 344 ordering and duration instances).

    generate(dates, GenerationRequest(families=("paper", "extended"), polar_negatives=True))

The other entry points take a request, or its fields as keywords (``generate_instances(d, seed=5)``).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable, Iterator

from .evaldates import check_request_date
from .execute import CachedSearch
from .families import FAMILIES, instance_strata, strata_key
from .family import TaskFamily
from .protocol import EvalDay
from .request import GenerationRequest
from .sampling import StratifiedChooser, stratified_indices


def _request(request: GenerationRequest | None, fields: dict[str, Any]) -> GenerationRequest:
    if request is not None and not isinstance(request, GenerationRequest):
        raise TypeError(f"request must be a GenerationRequest, got {type(request).__name__}")
    return GenerationRequest.of(request, **fields) if fields or request is None else request


def _families(request: GenerationRequest) -> list[TaskFamily]:
    return [FAMILIES[name] for name in request.families]


def generate(dates: Iterable[date], request: GenerationRequest | None = None) -> Iterator[dict]:
    """The request's instances for `dates`: all of them, streamed (memory flat in the number of dates),
    or, with ``request.sample``, a stratified sample of that many."""
    request = _request(request, {})
    if request.sample is not None:
        return generate_sample(dates, request.sample, request)
    return generate_many(dates, request)


def generate_instances(eval_date: date, request: GenerationRequest | None = None, **fields) -> Iterator[dict]:
    """Every instance for one evaluation date, in a fixed order (1,780 with the paper's protocol; each
    further family's after them, the paper's staying exactly as without it). An instance whose gold
    depends on a day the calendar's sources dispute carries ``disputed`` (span.disputes: the other
    reading and why); ``exclude_disputed`` leaves those out."""
    request = _request(request, fields)
    check_request_date(eval_date, request)
    return _generate(EvalDay(eval_date), request)


def _generate(day: EvalDay, request: GenerationRequest) -> Iterator[dict]:
    search = CachedSearch()  # one cache per date, shared by the families (many snippets ask alike)
    for fam in _families(request):
        yield from _kept(fam.build(day, request, fam.plan(day, request), search), request)


def _kept(instances: Iterator[dict], request: GenerationRequest) -> Iterator[dict]:
    if not request.exclude_disputed:
        return instances
    return (i for i in instances if "disputed" not in i)


def generate_many(dates: Iterable[date], request: GenerationRequest | None = None, **fields) -> Iterator[dict]:
    """Stream the instances of several evaluation dates; memory stays flat in the number of dates."""
    request = _request(request, fields)
    for d in dates:
        yield from generate_instances(d, request)


def count_instances(dates: list[date], request: GenerationRequest | None = None, **fields) -> int:
    """How many instances `dates` make (a family whose count depends on the date, as the paper's with
    date_formats, is counted on the first date: the number of written forms of a reference date does not
    depend on the date). With exclude_disputed it is an upper bound."""
    request = _request(request, fields)
    dates = list(dates)
    per_date = 0
    for fam in _families(request):
        n = fam.per_date(request)
        if n is None:
            n = sum(1 for _ in fam.plan(EvalDay(dates[0]), request)) if dates else 0
        per_date += n
    return per_date * len(dates)


def sample_instances(instances: Iterable[dict], n: int, seed=0) -> list[dict]:
    """A stratified sample of generated instances (kept in their original order)."""
    items = list(instances)
    idx = stratified_indices([instance_strata(i) for i in items], n, seed)
    return [items[i] for i in idx]


def generate_sample(dates: Iterable[date], n: int, request: GenerationRequest | None = None,
                    **fields) -> Iterator[dict]:
    """Stratified sample of n instances of `dates` (seeded by ``request.seed``), the same as
    sample_instances(generate_many(dates, request), n, request.seed), without holding them: every
    instance is planned (cheap) and counted by its strata, the sample is drawn, then the plan is walked
    again and only the chosen instances are built. Each date's conversions (its EvalDay) serve both walks.
    (With exclude_disputed the sample is drawn first, so it may come out a few short where it touches a
    disputed day: whether a gold depends on one is known only once the instance is built.)"""
    request = _request(request, fields)
    days = [EvalDay(check_request_date(d, request)) for d in dates]
    chooser = StratifiedChooser(n, request.seed)
    for day in days:
        for fam in _families(request):
            for planned in fam.plan(day, request):
                chooser.count(strata_key(planned.strata, fam.name))
    chooser.draw()
    return _chosen(days, request, chooser)


def _chosen(days: list[EvalDay], request: GenerationRequest, chooser: StratifiedChooser) -> Iterator[dict]:
    for day in days:
        search = None
        for fam in _families(request):
            picked = [p for p in fam.plan(day, request) if chooser.select(strata_key(p.strata, fam.name))]
            if picked:
                search = search or CachedSearch()
                yield from _kept(fam.build(day, request, picked, search), request)
