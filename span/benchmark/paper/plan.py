"""Planning the paper's instances (stages 2-3 without execution): cheap, deterministic, one Spec each.

Per evaluation date: 8 date templates x 10 directions x 10 offsets (n_d, n_w in 1..10) = 800, and
4 festival templates x 49 festival/target pairs x 5 offsets (n_y in 1..5) = 980; 1,780 in all. With
polar_negatives, half of every group of polar questions that differ only in the offset (seeded) get a
near-miss expected date; with date_formats, every instance is planned once per written form of its
reference date.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Iterator

from .. import formats as _formats
from ..evaldates import check_request_date
from ..protocol import (DIRECTIONS, FESTIVAL_BY_NAME, FESTIVAL_PAIRS, EvalDay, directions_among,
                        festival_pairs_among)
from ..request import GenerationRequest
from .templates import DATE_OFFSETS, DATE_TEMPLATES, FESTIVAL_TEMPLATES, TEMPLATES, YEAR_OFFSETS, QuestionTemplate

INSTANCES_PER_DATE = len(DATE_TEMPLATES) * len(DIRECTIONS) * len(DATE_OFFSETS) + \
    len(FESTIVAL_TEMPLATES) * len(FESTIVAL_PAIRS) * len(YEAR_OFFSETS)
assert INSTANCES_PER_DATE == 1780


def per_date(request: GenerationRequest) -> int:
    """Instances per evaluation date with the paper's date format (1,780 for the paper's calendars)."""
    ng = request.non_gregorian
    return len(DATE_TEMPLATES) * len(directions_among(ng)) * len(DATE_OFFSETS) + \
        len(FESTIVAL_TEMPLATES) * len(festival_pairs_among(ng, request.islamic_convention)) * len(YEAR_OFFSETS)


def strata(source: str, target: str, reasoning_type: str, question_format: str, negative: bool,
           date_format: str, eval_date: str, template_id: str) -> tuple:
    """A paper instance's sampling strata, most important first (the one layout Spec and instance share)."""
    return (f"{source}->{target}", reasoning_type, question_format, "no" if negative else "yes", date_format,
            eval_date, template_id)


def instance_strata(inst: dict) -> tuple:
    polar_no = inst["question_format"] == "polar" and inst["gold"] is False
    return strata(inst["source_calendar"], inst["target_calendar"], inst["reasoning_type"], inst["question_format"],
                  polar_no, inst["variables"].get("date_format", "paper"), inst["eval_date"], inst["template_id"])


@dataclass(frozen=True)
class Spec:
    eval_date: date
    template_id: str
    source: str
    target: str
    offset: int
    festival: str | None
    negative: bool
    date_format: str
    reference_text: str
    convention: str = "tabular"   # islamic_convention

    @property
    def template(self) -> QuestionTemplate:
        return TEMPLATES[self.template_id]

    @property
    def base_key(self) -> tuple:
        return (self.template_id, self.source, self.target, self.offset, self.festival)

    @property
    def twin_key(self) -> tuple:
        """What determines the answer date (content and polar twins share it)."""
        t = self.template
        return (t.reasoning_type, t.unit, t.sense, self.source, self.target, self.offset, self.festival)

    @property
    def strata(self) -> tuple:
        t = self.template
        return strata(self.source, self.target, t.reasoning_type, t.question_format, self.negative,
                      self.date_format, self.eval_date.isoformat(), self.template_id)


def _base_plan(request: GenerationRequest) -> list[tuple]:
    """(template_id, source, target, offset, festival) in output order."""
    ng = request.non_gregorian
    out = []
    for source, target in directions_among(ng):
        for t in DATE_TEMPLATES:
            for n in DATE_OFFSETS:
                out.append((t.template_id, source, target, n, None))
    for fest_name, target in festival_pairs_among(ng, request.islamic_convention):
        source = FESTIVAL_BY_NAME[fest_name].calendar
        for t in FESTIVAL_TEMPLATES:
            for n in YEAR_OFFSETS:
                out.append((t.template_id, source, target, n, fest_name))
    return out


def _negatives(eval_date: date, plan: list[tuple], seed) -> set[tuple]:
    """Half of the polar questions, balanced inside every group that differs only in the offset."""
    rng = random.Random(f"span/polar-negatives/{seed}/{eval_date.isoformat()}")
    groups: dict[tuple, list[tuple]] = {}
    for key in plan:
        if TEMPLATES[key[0]].question_format == "polar":
            groups.setdefault((key[0], key[1], key[2], key[4]), []).append(key)
    chosen: set[tuple] = set()
    odd_extra = 0
    for members in groups.values():
        members = list(members)
        rng.shuffle(members)
        k = len(members) // 2
        if len(members) % 2:
            k += odd_extra
            odd_extra ^= 1
        chosen.update(members[:k])
    return chosen


def plan_day(day: EvalDay, request: GenerationRequest) -> Iterator[Spec]:
    """Every instance of the date, planned (stage 3 without execution), in output order."""
    eval_date = day.date
    check_request_date(eval_date, request)
    refs = day.refs(("gregorian", *request.non_gregorian))
    plan = _base_plan(request)
    negatives = _negatives(eval_date, plan, request.seed) if request.polar_negatives else set()
    renderings = {c: (_formats.variants(d) if request.date_formats else [("paper", d.display())])
                  for c, d in refs.items()}
    convention = request.islamic_convention
    for key in plan:
        tid, source, target, n, fest = key
        neg = key in negatives
        for fam, text in renderings[source]:
            yield Spec(eval_date, tid, source, target, n, fest, neg, fam, text, convention)


def plan_instances(eval_date: date, request: GenerationRequest | None = None, **fields) -> Iterator[Spec]:
    """plan_day for a date and a request (or GenerationRequest fields: polar_negatives=True, ...)."""
    return plan_day(EvalDay(eval_date), GenerationRequest.of(request, **fields))
