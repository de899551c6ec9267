"""Building the paper's instances (stage 4): each instance's code, its gold by executing that code, and
an independent check of every gold against the core (shift_date, festivals.date_in_year,
CalendarDate.to) — any difference raises GoldMismatchError.

Polar questions get the answer date as their expected date (gold "Yes", the paper's protocol) or, for
the negatives, a realistic near miss (gold "No"). Content and polar twins share one answer date, and
the parts that do not depend on the reference date's written form are built once per date.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Iterable, Iterator

from ... import festivals as _festivals
from ...arithmetic import shift_date
from ...calendars import get_calendar
from ...dates import CalendarDate
from ...disputes import dispute_of
from ...errors import CalendarError
from .. import formats as _formats
from ..errors import GoldMismatchError
from ..execute import CachedSearch, ExecutionError, answer_date, run_code
from ..protocol import FESTIVAL_BY_NAME, EvalDay
from ..request import GenerationRequest
from .plan import Spec
from .templates import TEMPLATES, QuestionTemplate, date_code, festival_code, render_question


@lru_cache(maxsize=None)
def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def instance_id(spec: Spec, expected: CalendarDate | None) -> str:
    """Readable prefix + a hash of everything that defines the instance (same inputs, same id)."""
    exp = "" if expected is None else \
        f"{expected.calendar}:{expected.year}:{expected.month}:{expected.day}:{int(expected.is_leap_month)}"
    iso = spec.eval_date.isoformat()
    defining = "|".join((iso, spec.template_id, spec.source, spec.target, str(spec.offset),
                         spec.festival or "", exp, spec.date_format))
    if spec.convention != "tabular":  # the paper's ids stay as they were
        defining += f"|islamic_convention={spec.convention}"
    digest = hashlib.sha1(defining.encode()).hexdigest()[:10]
    fest = f"-{_slug(spec.festival)}" if spec.festival else ""
    return f"{iso.replace('-', '')}-{spec.template_id}-{spec.source}-{spec.target}{fest}-{spec.offset}-{digest}"


def _umm_al_qura(d: CalendarDate) -> CalendarDate | None:
    """The same day's Umm al-Qura numbers read as a tabular date (the other convention's answer)."""
    try:
        return _same_numbers(d.to("islamic_umm_al_qura"), "islamic")
    except CalendarError:  # outside Umm al-Qura's table (1343-1500 AH), or no such tabular day
        return None

def _same_numbers(d: CalendarDate, calendar: str) -> CalendarDate:
    return CalendarDate.create(calendar, d.year, d.month, d.day)


@dataclass
class _DateContext:
    eval_date: date
    refs: dict[str, CalendarDate]
    seed: object
    polar_negatives: bool
    convention: str = "tabular"
    search: CachedSearch = field(default_factory=CachedSearch)
    answers: dict = field(default_factory=dict)   # twin_key -> answer date from content code
    direct: dict = field(default_factory=dict)    # twin_key -> answer date computed with the core
    shifted: dict = field(default_factory=dict)   # (source, unit, signed offset) -> shifted reference
    bases: dict = field(default_factory=dict)     # base_key + negative -> built parts
    disputes: dict = field(default_factory=dict)  # twin_key -> the disputed days its gold depends on


def _direct_answer(ctx: _DateContext, spec: Spec) -> CalendarDate:
    """The answer computed straight with the core, not through the code."""
    key = spec.twin_key
    hit = ctx.direct.get(key)
    if hit is not None:
        return hit
    t = spec.template
    ref = ctx.refs[spec.source]
    if t.reasoning_type == "date":
        skey = (spec.source, t.unit, t.sign * spec.offset)
        moved = ctx.shifted.get(skey)
        if moved is None:
            moved = ctx.shifted[skey] = shift_date(ref, **{t.unit: t.sign * spec.offset}).date
    else:
        moved = _festivals.date_in_year(FESTIVAL_BY_NAME[spec.festival], ref.year + t.sign * spec.offset)
    out = ctx.direct[key] = moved.to(spec.target)
    # the dates converted between calendars, whose reading decides the gold: the reference date (a
    # festival question uses only its year) or the festival's date, and the answer
    crossed = (moved, out) if t.reasoning_type == "festival" else (ref, out)
    ctx.disputes[key] = [_disputed(d) for d in crossed if dispute_of(d) is not None]
    return out


def _disputed(d: CalendarDate) -> dict:
    return {"calendar": d.calendar, "date": d.display(), **dispute_of(d).as_dict()}


def _code(spec: Spec, ref: CalendarDate, template: QuestionTemplate, expected: CalendarDate | None) -> str:
    if template.reasoning_type == "date":
        return date_code(template, ref, spec.target, spec.offset, expected)
    return festival_code(template, spec.source, ref.year, spec.festival, spec.target, spec.offset, expected)


def _matches(raw, d: CalendarDate) -> bool:
    """Is a content snippet's answer ("Y-M-D", "Y-leapM-D", zero padding allowed) the date d?"""
    if not isinstance(raw, str):
        return False
    parts = raw.split("-")
    if len(parts) != 3:
        return False
    y, m, dd = parts
    leap = m.startswith("leap")
    try:
        return (int(y), int(m[4:] if leap else m), int(dd), leap) == (d.year, d.month, d.day, d.is_leap_month)
    except ValueError:
        return False


def _checked_content(ctx: _DateContext, spec: Spec, template: QuestionTemplate) -> tuple[str, CalendarDate]:
    """Run the content code; return (code, answer date), the latter checked against the core."""
    code = _code(spec, ctx.refs[spec.source], template, None)
    raw = run_code(code, ctx.search)
    direct = _direct_answer(ctx, spec)
    if not _matches(raw, direct):
        try:
            got = answer_date(raw, spec.target)
        except ExecutionError as exc:
            got = exc
        raise GoldMismatchError(f"{spec.eval_date} {template.template_id} {spec.source}->{spec.target} "
                                f"n={spec.offset} festival={spec.festival}: code gives {got}, core gives {direct}")
    ctx.answers.setdefault(spec.twin_key, direct)
    return code, direct


def _content_answer(ctx: _DateContext, spec: Spec) -> CalendarDate:
    """The answer date as the content template's code computes it (checked against the core)."""
    hit = ctx.answers.get(spec.twin_key)
    if hit is not None:
        return hit
    t = spec.template
    return _checked_content(ctx, spec, TEMPLATES[f"{t.reasoning_type}_content_{t.unit}_{t.sense}"])[1]


def _near_miss(ctx: _DateContext, spec: Spec, answer: CalendarDate) -> tuple[str, CalendarDate]:
    """A realistic wrong expected date for a negative polar question (seeded per instance)."""
    t = spec.template
    ref = ctx.refs[spec.source]
    cands: list[tuple[str, callable]] = [
        ("day_before", lambda: CalendarDate.from_ordinal(answer.calendar, answer.ordinal - 1)),
        ("day_after", lambda: CalendarDate.from_ordinal(answer.calendar, answer.ordinal + 1)),
        ("previous_month", lambda: shift_date(answer, months=-1).date),
        ("next_month", lambda: shift_date(answer, months=1).date),
        ("previous_year", lambda: shift_date(answer, years=-1).date),
        ("next_year", lambda: shift_date(answer, years=1).date),
    ]
    if t.reasoning_type == "date":
        cands.append(("wrong_direction",
                      lambda: shift_date(ref, **{t.unit: -t.sign * spec.offset}).date.to(spec.target)))
    else:
        fest = FESTIVAL_BY_NAME[spec.festival]
        # counting the years in the target calendar instead of the festival's own calendar
        cands.append(("years_in_target_calendar",
                      lambda: shift_date(_festivals.date_in_year(fest, ref.year).to(spec.target),
                                         years=t.sign * spec.offset).date))
    if spec.target == "islamic":
        cands.append(("umm_al_qura", lambda: _umm_al_qura(answer)))
    if spec.target == "islamic_umm_al_qura":
        # the other convention's mistake: the tabular Islamic date's numbers, read as Umm al-Qura
        cands.append(("tabular_islamic", lambda: _same_numbers(answer.to("islamic"), "islamic_umm_al_qura")))
    if get_calendar(spec.target).has_leap_months:
        cands.append(("leap_month_confusion",
                      lambda: CalendarDate.create(spec.target, answer.year, answer.month, answer.day,
                                                  not answer.is_leap_month)))
    if spec.target == "hebrew" and answer.month in (12, 13):
        cands.append(("adar_confusion",
                      lambda: CalendarDate.create("hebrew", answer.year, 25 - answer.month, answer.day)))
    options = []
    for kind, make in cands:
        try:
            d = make()
        except CalendarError:
            continue
        if d is not None and d != answer:
            options.append((kind, d))
    rng = random.Random(f"span/near-miss/{ctx.seed}/{spec.eval_date.isoformat()}/{spec.template_id}/"
                        f"{spec.source}/{spec.target}/{spec.festival}/{spec.offset}")
    return rng.choice(options)


def _build_base(ctx: _DateContext, spec: Spec) -> dict:
    """Everything that does not depend on the reference date's written form."""
    t = spec.template
    ref = ctx.refs[spec.source]
    if t.question_format == "content":
        code, got = _checked_content(ctx, spec, t)
        return {"code": code, "answer": got.display(), "gold": got.as_dict(), "expected": None, "near_miss": None}
    answer = _content_answer(ctx, spec)
    near = None
    expected = answer
    if spec.negative:
        near, expected = _near_miss(ctx, spec, answer)
    code = _code(spec, ref, t, expected)
    got = run_code(code, ctx.search)
    direct = _direct_answer(ctx, spec) == expected
    if not isinstance(got, bool) or got != direct:
        raise GoldMismatchError(f"{spec.eval_date} {spec.template_id} {spec.source}->{spec.target} "
                                f"n={spec.offset} festival={spec.festival}: code gives {got!r}, core gives {direct}")
    return {"code": code, "answer": "Yes" if got else "No", "gold": got, "expected": expected, "near_miss": near}


def build_instance(ctx: _DateContext, spec: Spec) -> dict:
    bkey = (spec.base_key, spec.negative)
    base = ctx.bases.get(bkey)
    if base is None:
        base = ctx.bases[bkey] = _build_base(ctx, spec)
    t = spec.template
    expected: CalendarDate | None = base["expected"]
    note = _formats.note_of(spec.date_format)
    variables = {
        "unit": t.unit, "offset": spec.offset, "sense": t.sense,
        "reference_date": ctx.refs[spec.source].as_dict(), "reference_text": spec.reference_text,
        "festival": spec.festival,
        "expected_date": expected.as_dict() if expected is not None else None,
        "expected_text": expected.display() if expected is not None else None,
        "date_format": spec.date_format,
    }
    if ctx.polar_negatives:
        variables["near_miss"] = base["near_miss"]
    if ctx.convention != "tabular":  # the paper's instances stay byte-identical
        variables["islamic_convention"] = ctx.convention
    question = render_question(t, source=spec.source, target=spec.target, reference_text=spec.reference_text,
                               offset=spec.offset, festival=spec.festival,
                               expected_text=variables["expected_text"], note=f" ({note})" if note else "")
    return {
        "id": instance_id(spec, expected),
        "eval_date": spec.eval_date.isoformat(),
        "reasoning_type": t.reasoning_type,
        "question_format": t.question_format,
        "direction": "gregorian_to_other" if spec.source == "gregorian" else "other_to_gregorian",
        "source_calendar": spec.source,
        "target_calendar": spec.target,
        "template_id": spec.template_id,
        "variables": variables,
        "question": question,
        "code": base["code"],
        "answer": base["answer"],
        "gold": base["gold"],
        **({"disputed": disputed} if (disputed := _disputes(ctx, spec)) else {}),
    }


def _disputes(ctx: _DateContext, spec: Spec) -> list[dict]:
    """The disputed days (span.disputes) this instance's gold depends on: where the independent sources of
    a calendar split, the other reading would give another answer."""
    if spec.twin_key not in ctx.disputes:
        _direct_answer(ctx, spec)
    return ctx.disputes[spec.twin_key]


def build_instances(day: EvalDay, specs: Iterable[Spec], request: GenerationRequest, *,
                    search: CachedSearch | None = None) -> Iterator[dict]:
    """The instances of `specs` (all of one evaluation date), built in order with one shared context."""
    ctx = _DateContext(day.date, day.refs(("gregorian", *request.non_gregorian)), request.seed,
                       request.polar_negatives, request.islamic_convention)
    if search is not None:
        ctx.search = search
    for spec in specs:
        yield build_instance(ctx, spec)
