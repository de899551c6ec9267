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
from ..evaldates import check_eval_date
from ..protocol import DIRECTIONS, FESTIVAL_BY_NAME, FESTIVAL_PAIRS, directions_for, festival_pairs_for, reference_dates
from .templates import DATE_OFFSETS, DATE_TEMPLATES, FESTIVAL_TEMPLATES, TEMPLATES, YEAR_OFFSETS, QuestionTemplate

INSTANCES_PER_DATE = len(DATE_TEMPLATES) * len(DIRECTIONS) * len(DATE_OFFSETS) + \
    len(FESTIVAL_TEMPLATES) * len(FESTIVAL_PAIRS) * len(YEAR_OFFSETS)
assert INSTANCES_PER_DATE == 1780


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


def _base_plan(eval_date: date, convention: str = "tabular") -> list[tuple]:
    """(template_id, source, target, offset, festival) in output order."""
    out = []
    for source, target in directions_for(convention):
        for t in DATE_TEMPLATES:
            for n in DATE_OFFSETS:
                out.append((t.template_id, source, target, n, None))
    for fest_name, target in festival_pairs_for(convention):
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


def plan_instances(eval_date: date, *, polar_negatives: bool = False, date_formats: bool = False,
                   seed=0, islamic_convention: str = "tabular") -> Iterator[Spec]:
    check_eval_date(eval_date, islamic_convention)
    refs = reference_dates(eval_date, islamic_convention)
    plan = _base_plan(eval_date, islamic_convention)
    negatives = _negatives(eval_date, plan, seed) if polar_negatives else set()
    renderings = {c: (_formats.variants(d) if date_formats else [("paper", d.display())])
                  for c, d in refs.items()}
    for key in plan:
        tid, source, target, n, fest = key
        neg = key in negatives
        for fam, text in renderings[source]:
            yield Spec(eval_date, tid, source, target, n, fest, neg, fam, text, islamic_convention)

