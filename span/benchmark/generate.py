"""Generating instances: every task family's instances for an evaluation date, many dates streamed, and
a stratified sample drawn without building (or holding) what is not chosen.

The SPAN evaluation protocol (paper Figure 1), stage by stage: 1. the evaluation date in all six
calendars (protocol.reference_dates); 2. template matching (protocol: 10 directions, 49 festival pairs);
3. instantiation (each family's plan); 4. code execution (each family's build: gold = what the
instance's own code computes, checked against the core). Per evaluation date the paper's protocol gives
1,780 instances (800 date-based + 980 festival-based); ``extended=True`` appends 344 ordering and
duration instances after them.

Options beyond the paper (off by default): polar_negatives, date_formats, islamic_convention
(family.Options; the paper family's docstrings say what each does).
"""

from __future__ import annotations

from datetime import date
from typing import Iterable, Iterator

from .evaldates import check_eval_date
from .execute import CachedSearch
from .families import FAMILIES, instance_strata
from .family import Options, TaskFamily
from .sampling import StratifiedChooser, stratified_indices


def _families(extended: bool) -> list[TaskFamily]:
    return [FAMILIES["paper"], *([FAMILIES["extended"]] if extended else [])]


def generate_instances(eval_date: date, *, polar_negatives: bool = False, date_formats: bool = False,
                       seed=0, extended: bool = False, islamic_convention: str = "tabular",
                       exclude_disputed: bool = False) -> Iterator[dict]:
    """Every instance for one evaluation date, in a fixed order (1,780 with the paper's protocol).

    extended=True appends the 344 ordering and duration instances after them; the paper's instances stay
    exactly as without it. islamic_convention="umm_al_qura" puts the 1,780 on the Umm al-Qura calendar
    instead of the tabular Islamic one; the extended tasks are not affected by it. An instance whose gold
    depends on a day the calendar's sources dispute carries ``disputed`` (span.disputes: the other
    reading and why); exclude_disputed=True leaves those out."""
    check_eval_date(eval_date, islamic_convention)
    options = Options(polar_negatives, date_formats, seed, islamic_convention, exclude_disputed)
    return _generate(eval_date, options, extended)


def _generate(eval_date: date, options: Options, extended: bool) -> Iterator[dict]:
    search = CachedSearch()  # one cache per date, shared by the families (many snippets ask alike)
    for fam in _families(extended):
        yield from _kept(fam.build(eval_date, options, fam.plan(eval_date, options), search), options)


def _kept(instances: Iterator[dict], options: Options) -> Iterator[dict]:
    if not options.exclude_disputed:
        return instances
    return (i for i in instances if "disputed" not in i)


def generate_many(dates: Iterable[date], **options) -> Iterator[dict]:
    """Stream the instances of several evaluation dates; memory stays flat in the number of dates."""
    for d in dates:
        yield from generate_instances(d, **options)


def count_instances(dates: list[date], *, date_formats: bool = False, extended: bool = False, **_ignored) -> int:
    """How many instances `dates` make (the formats option is counted on the first date: the number of
    written forms of a reference date does not depend on the date)."""
    per_date = FAMILIES["paper"].per_date(Options()) + (FAMILIES["extended"].per_date(Options()) if extended else 0)
    if date_formats and dates:
        paper = FAMILIES["paper"]
        per_date += sum(1 for _ in paper.plan(dates[0], Options(date_formats=True))) - paper.per_date(Options())
    return per_date * len(dates)


def sample_instances(instances: Iterable[dict], n: int, seed=0) -> list[dict]:
    """A stratified sample of generated instances (kept in their original order)."""
    items = list(instances)
    idx = stratified_indices([instance_strata(i) for i in items], n, seed)
    return [items[i] for i in idx]


def generate_sample(dates: Iterable[date], n: int, *, seed=0, polar_negatives: bool = False,
                    date_formats: bool = False, extended: bool = False,
                    islamic_convention: str = "tabular", exclude_disputed: bool = False) -> Iterator[dict]:
    """Stratified sample of the instances of `dates`, the same as
    sample_instances(generate_many(dates, ...), n, seed), without holding them: every instance is
    planned (cheap) and counted by its strata, the sample is drawn, then the plan is walked again and
    only the chosen instances are built. (With exclude_disputed the sample is drawn first, so it may
    come out a few short where it touches a disputed day: whether a gold depends on one is known only
    once the instance is built.)"""
    dates = list(dates)
    options = Options(polar_negatives, date_formats, seed, islamic_convention, exclude_disputed)
    for d in dates:
        check_eval_date(d, islamic_convention)
    chooser = StratifiedChooser(n, seed)
    for d in dates:
        for fam in _families(extended):
            for planned in fam.plan(d, options):
                chooser.count(planned.strata)
    chooser.draw()
    return _chosen(dates, options, extended, chooser)


def _chosen(dates: list[date], options: Options, extended: bool, chooser: StratifiedChooser) -> Iterator[dict]:
    for d in dates:
        search = None
        for fam in _families(extended):
            picked = [p for p in fam.plan(d, options) if chooser.select(p.strata)]
            if picked:
                search = search or CachedSearch()
                yield from _kept(fam.build(d, options, picked, search), options)
