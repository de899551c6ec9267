"""Planning and building the dateaug instances of one evaluation date; gold by executing each
instance's code, checked against an independent computation on day numbers.

Per evaluation date (fixed counts; the evaluation date seeds every draw, so each date gets fresh dates):

  format_switch    4 periods x 40 = 160: per period 20 "Yes" (the same day in two forms) and 20 "No",
                   five of each near miss: day and month swapped (read in the other order), one day off,
                   a neighbouring month (same day), the year a century off (a two-digit year read in the
                   other century). The two forms of a question are an ordered pair of the ten
                   SWITCH_FORMATS, cycled through all 90 pairs.
  date_arithmetic  4 periods x 5 forms x 8 = 160: per (period, form) days after / before (1-99), days
                   after / before (100-10,000, the paper's largest offset), weeks after / before (1-520),
                   months after / before (1-120, base day 1-28 so no day is clamped).

Periods (the Date Fragments paper's Table 2, its probing sets' bounds): past 1600-1999, near_past
2000-2009, present 2010-2025, future 2026-2599 (the paper's DATES_FUTURE runs to 2599). Base dates are
drawn uniformly over the period's days; an answer may leave the period (1600 - 10,000 days is 1572).
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta
from itertools import permutations
from typing import Iterable, Iterator, NamedTuple

from ..errors import GoldMismatchError
from .. import formats as SF
from ..execute import CachedSearch, run_code
from . import cross, formats as F
from .questions import (DIRECTION, QUESTION_FORMATS, add_months, parse_dateaug, render_arith, render_switch,
                        shifted)

PERIODS: dict[str, tuple[int, int]] = {"past": (1600, 1999), "near_past": (2000, 2009),
                                       "present": (2010, 2025), "future": (2026, 2599)}
SWITCH_FORMATS = ("iso", "ymd_slash", "dmy_slash", "mdy_slash", "dmy_dash", "dmy_dot", "mdy_minimal",
                  "compact_ymd", "compact_mdy", "month_name_ordinal_day")
ARITH_FORMATS = ("mdy_minimal", "mdy_slash", "dmy_dash", "iso", "compact_ymd")
NEAR_MISSES = ("swap", "off_by_one", "neighbour_month", "century")
SWITCH_PER_PERIOD = 40
ARITH_SLOTS = (("days", 1, 1, 99), ("days", -1, 1, 99), ("days", 1, 100, 10_000), ("days", -1, 100, 10_000),
               ("weeks", 1, 1, 520), ("weeks", -1, 1, 520), ("months", 1, 1, 120), ("months", -1, 1, 120))
SWITCH_PER_DATE = len(PERIODS) * SWITCH_PER_PERIOD
ARITH_PER_DATE = len(PERIODS) * len(ARITH_FORMATS) * len(ARITH_SLOTS)
DATEAUG_PER_DATE = SWITCH_PER_DATE + ARITH_PER_DATE
assert SWITCH_PER_DATE == 160 and ARITH_PER_DATE == 160


def period_of(year: int) -> str | None:
    for name, (lo, hi) in PERIODS.items():
        if lo <= year <= hi:
            return name
    return None


class PlannedDateaug(NamedTuple):
    reasoning_type: str
    template_id: str
    period: str
    formats: tuple[str, ...]
    dates: tuple[date, ...]      # format_switch: (A, B); date_arithmetic: (base,)
    near_miss: str | None        # format_switch "No" questions: which near miss
    n: int
    unit: str
    sign: int
    ambiguous: bool
    eval_date: date
    other: object = None           # cross-calendar option: the other calendar's date (CalendarDate)

    @property
    def strata(self) -> tuple:
        return (f"dateaug:{self.reasoning_type}", self.template_id, self.period, QUESTION_FORMATS[self.reasoning_type],
                "yes" if self.near_miss is None else "no", "+".join(self.formats), self.eval_date.isoformat())


def _rng(eval_date: date, seed, what: str) -> random.Random:
    return random.Random(f"span/dateaug/{seed}/{eval_date.isoformat()}/{what}")


def _draw_date(rng: random.Random, period: str, max_day: int = 31) -> date:
    lo, hi = PERIODS[period]
    first, last = date(lo, 1, 1).toordinal(), date(hi, 12, 31).toordinal()
    while True:
        d = date.fromordinal(rng.randint(first, last))
        if d.day <= max_day:
            return d


def _near_miss(rng: random.Random, period: str, kind: str) -> tuple[date, date]:
    """(A, B): B is A changed the way a misreading changes it; both valid, different days."""
    while True:
        a = _draw_date(rng, period, 28)
        try:
            if kind == "swap":
                if a.day > 12 or a.day == a.month:
                    continue
                b = date(a.year, a.day, a.month)
            elif kind == "off_by_one":
                b = a + timedelta(days=rng.choice((-1, 1)))
            elif kind == "neighbour_month":
                b = add_months(a, rng.choice((-1, 1)))
            else:   # century
                b = date(a.year + rng.choice((-100, 100)), a.month, a.day)
        except ValueError:
            continue
        if b != a:
            return a, b


def plan_dateaug(eval_date: date, seed=0, ambiguous: bool = False, cross_calendar: bool = False
                 ) -> list[PlannedDateaug]:
    """Every question of the date, planned (no code run); `cross_calendar` appends the 60 cross-calendar
    format-switching questions (dateaug/cross.py)."""
    out: list[PlannedDateaug] = []
    pairs = list(permutations(SWITCH_FORMATS, 2))
    _rng(eval_date, seed, "pairs").shuffle(pairs)
    k = 0
    for period in PERIODS:
        rng = _rng(eval_date, seed, f"format_switch/{period}")
        kinds = [None] * (SWITCH_PER_PERIOD // 2) + [NEAR_MISSES[i % 4] for i in range(SWITCH_PER_PERIOD // 2)]
        rng.shuffle(kinds)
        for kind in kinds:
            fa, fb = pairs[k % len(pairs)]
            k += 1
            if kind is None:
                a = _draw_date(rng, period)
                dates = (a, a)
            else:
                dates = _near_miss(rng, period, kind)
            tid = "format_switch_same" if kind is None else f"format_switch_{kind}"
            out.append(PlannedDateaug("format_switch", tid, period, (fa, fb), dates, kind, 0, "", 0, False,
                                      eval_date))
    for period in PERIODS:
        rng = _rng(eval_date, seed, f"date_arithmetic/{period}")
        for fmt in ARITH_FORMATS:
            for unit, sign, lo, hi in ARITH_SLOTS:
                base = _draw_date(rng, period, 28 if unit == "months" else 31)
                n = rng.randint(lo, hi)
                out.append(PlannedDateaug("date_arithmetic", f"date_arithmetic_{unit}", period, (fmt,), (base,),
                                          None, n, unit, sign, ambiguous and fmt in F.AMBIGUOUS_TWIN, eval_date))
    if cross_calendar:
        for period, cal, other, fam, greg, gfmt, kind in cross.plan(eval_date, seed):
            g = other.to("gregorian")
            out.append(PlannedDateaug("format_switch", "format_switch_cross_calendar", period, (f"{cal}:{fam}", gfmt),
                                      (date(g.year, g.month, g.day), greg), kind, 0, "", 0, False, eval_date, other))
    return out


# ---------------------------------------------------------------------------------------------
# Code (run for the gold) and the independent check
# ---------------------------------------------------------------------------------------------

def _date_code(d: date) -> str:
    return f"date({d.year}, {d.month}, {d.day})"


def switch_code(a: date, b: date) -> str:
    return ("from datetime import date\n\n"
            f"date_a = {_date_code(a)}\n"
            f"date_b = {_date_code(b)}\n"
            'answer = "Yes" if date_a == date_b else "No"\n')


def arith_code(bases: Iterable[date], n: int, unit: str, sign: int) -> str:
    """Python leaving in `answer` the answer date(s) as "YYYY-MM-DD", one per reading of the base date
    joined by "; " (one reading unless the question is ambiguous)."""
    bases = list(bases)
    out = "from datetime import date, timedelta\n\n"
    out += "bases = [" + ", ".join(_date_code(b) for b in bases) + "]\n"
    if unit == "months":
        out += (f"months = {sign * n}\n"
                "results = []\n"
                "for base in bases:\n"
                "    years, month0 = divmod(base.month - 1 + months, 12)\n"
                "    results.append(date(base.year + years, month0 + 1, base.day))\n")
    else:
        out += f"offset = timedelta({unit}={sign * n})\n"
        out += "results = [base + offset for base in bases]\n"
    out += 'answer = "; ".join(r.isoformat() for r in results)\n'
    return out


def _iso(d: date) -> str:
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def gold_of(reasoning_type: str, raw) -> tuple[str, object]:
    if reasoning_type == "format_switch":
        if raw not in ("Yes", "No"):
            raise GoldMismatchError(f"format_switch code must leave 'Yes' or 'No', got {raw!r}")
        return raw, raw == "Yes"
    if not isinstance(raw, str) or not raw:
        raise GoldMismatchError(f"date_arithmetic code must leave 'YYYY-MM-DD[; ...]', got {raw!r}")
    variants = raw.split("; ")
    for v in variants:
        date.fromisoformat(v)
    return raw, {"date": variants[0], "variants": variants}


def execute_dateaug(instance: dict, search=None):
    """Run a dateaug instance's code; return (raw answer, gold as the instance stores it)."""
    kwargs = {} if search is None else {"search": search}
    raw = run_code(instance["code"], filename=f"<{instance.get('id', 'instance')}>", **kwargs)
    return raw, gold_of(instance["reasoning_type"], raw)[1]


def _instance_id(p: PlannedDateaug) -> str:
    iso = p.eval_date.isoformat()
    key = "|".join([iso, p.template_id, p.period, *p.formats, *(d.isoformat() for d in p.dates),
                    repr(p.other.as_dict()) if p.other is not None else "",
                    str(p.n), p.unit, str(p.sign), str(p.ambiguous)])
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    return f"{iso.replace('-', '')}-{p.template_id}-{p.period}-{digest}"


def build_dateaug(eval_date: date, planned: Iterable[PlannedDateaug], search=None) -> Iterator[dict]:
    """The instances of planned questions; `search` (a search_calendar, e.g. a CachedSearch) runs the
    cross-calendar questions' code."""
    search = search if search is not None else CachedSearch()
    seen: set[str] = set()
    for p in planned:
        if p.other is not None:
            a, b = p.dates
            fam, gfmt = p.formats
            other = p.other
            question = cross.render(other, fam.split(":", 1)[1], b, gfmt)
            code = cross.code(other, b)
            expected = "Yes" if a == b else "No"
            strings = [SF.render(other, fam.split(":", 1)[1]), F.render(b, gfmt)]
            variables = {"period": p.period, "formats": list(p.formats), "format": fam, "calendar": other.calendar,
                         "other_date": other.as_dict(), "dates": [_iso(a), _iso(b)], "date_strings": strings,
                         "near_miss": p.near_miss, "date_format": fam}
        elif p.reasoning_type == "format_switch":
            a, b = p.dates
            fa, fb = p.formats
            question = render_switch(a, fa, b, fb)
            code = switch_code(a, b)
            expected = "Yes" if a == b else "No"
            strings = [F.render(a, fa), F.render(b, fb)]
            variables = {"period": p.period, "formats": list(p.formats), "format": fa,
                         "dates": [_iso(a), _iso(b)], "date_strings": strings, "near_miss": p.near_miss,
                         "date_format": fa}
        else:
            (base,) = p.dates
            (fmt,) = p.formats
            question = render_arith(base, fmt, p.n, p.unit, p.sign, p.ambiguous)
            readings = [d for d, _ in F.parse(F.render(base, fmt), None if p.ambiguous else F.note_of(fmt))]
            if base not in readings:
                raise GoldMismatchError(f"{eval_date} {question}: the base date {base} is no reading of its text")
            readings.sort(key=lambda d: d != base)        # the planned reading first
            code = arith_code(readings, p.n, p.unit, p.sign)
            expected = "; ".join(_iso(shifted(d, p.n, p.unit, p.sign)) for d in readings)
            strings = [F.render(base, fmt)]
            variables = {"period": p.period, "format": fmt, "formats": [fmt], "dates": [_iso(base)],
                         "date_strings": strings, "n": p.n, "unit": p.unit,
                         "direction": "after" if p.sign > 0 else "before", "ambiguous": p.ambiguous,
                         "readings": [_iso(d) for d in readings], "date_format": fmt}
        raw = run_code(code, search) if p.other is not None else run_code(code)
        answer, gold = gold_of(p.reasoning_type, raw)
        if answer != expected:
            raise GoldMismatchError(f"{eval_date} {question}: code gives {raw!r}, day numbers give {expected!r}")
        parsed = parse_dateaug(question)            # the question must read back as planned
        if p.other is not None:
            if parsed.other != p.other or parsed.readings[1][0][0] != p.dates[1]:
                raise GoldMismatchError(f"{eval_date}: {question!r} reads back as {parsed}")
        elif parsed.reasoning_type != p.reasoning_type or p.dates[0] not in [d for d, _ in parsed.readings[0]]:
            raise GoldMismatchError(f"{eval_date}: {question!r} reads back as {parsed}")
        iid = _instance_id(p)
        if iid in seen:
            raise GoldMismatchError(f"{eval_date} {p.template_id}: duplicate question {iid}")
        seen.add(iid)
        yield {
            "id": iid,
            "eval_date": eval_date.isoformat(),
            "reasoning_type": p.reasoning_type,
            "question_format": QUESTION_FORMATS[p.reasoning_type],
            "direction": DIRECTION if p.other is None else cross.DIRECTION,
            "source_calendar": "gregorian" if p.other is None else p.other.calendar,
            "target_calendar": "gregorian",
            "template_id": p.template_id,
            "variables": variables,
            "question": question,
            "code": code,
            "answer": answer,
            "gold": gold,
        }


def generate_dateaug(eval_date: date, *, seed=0, ambiguous: bool = False, cross_calendar: bool = False
                     ) -> Iterator[dict]:
    return build_dateaug(eval_date, plan_dateaug(eval_date, seed, ambiguous, cross_calendar))
