"""Evaluation dates: the supported window, reading one date, and date lists and ranges
("2025-07-01", "a,b,c", "1960-07-01..2060-07-01/5y", "paper").

Every calendar is defined on Gregorian 1900-01-01 .. 2100-12-31; the bounds below are the first and last
evaluation dates whose whole instance set (offsets up to 10 weeks and festivals up to 5 years away, in any
of the source calendars) stays inside that window.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from ..calendars import CALENDAR_NAMES, get_calendar
from .errors import GeneratorError
from .protocol import check_convention

PAPER_EVAL_DATES: tuple[date, ...] = tuple(date(y, 7, 1) for y in range(1960, 2061, 5))
# First and last evaluation dates whose 1,780 instances all stay within 1900-01-01 .. 2100-12-31
# (tests/test_generator_counts.py checks both are tight: the day outside each bound fails).
# Low end: Persian New Year 5 Persian years back (1 Farvardin 1279 = 1900-03-21) for a reference in 1284;
# high end: Eid al-Adha 5 Islamic years ahead (10 Dhu al-Hijjah 1524 must be <= 2100-12-31).
MIN_EVAL_DATE = date(1905, 3, 21)
MAX_EVAL_DATE = date(2095, 5, 5)
# The same bounds with islamic_convention="umm_al_qura", inside Umm al-Qura's 1924-08-01 .. 2077-11-16
# (tests/test_generator_umm_al_qura.py checks both are tight). Low end: New Year's Day 5 Gregorian years
# back (1925-01-01) must have an Umm al-Qura date; high end: Christmas Day 5 years ahead (2076-12-25;
# 2077-12-25 is past the table).
UQ_MIN_EVAL_DATE = date(1930, 1, 1)
UQ_MAX_EVAL_DATE = date(2071, 12, 31)
EVAL_DATE_RANGES = {"tabular": (MIN_EVAL_DATE, MAX_EVAL_DATE), "umm_al_qura": (UQ_MIN_EVAL_DATE, UQ_MAX_EVAL_DATE)}

_DATE_RX = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_STEP_RX = re.compile(r"^([1-9]\d{0,4})([dwmy])$")


def check_eval_date(d: date, islamic_convention: str = "tabular") -> date:
    if not isinstance(d, date):
        raise GeneratorError(f"evaluation date must be a datetime.date, got {d!r}")
    if check_convention(islamic_convention) == "umm_al_qura" and not UQ_MIN_EVAL_DATE <= d <= UQ_MAX_EVAL_DATE:
        raise GeneratorError(f"evaluation date {d.isoformat()} is out of range for islamic_convention=umm_al_qura; "
                             f"supported evaluation dates: {UQ_MIN_EVAL_DATE.isoformat()} .. "
                             f"{UQ_MAX_EVAL_DATE.isoformat()} (every instance's dates, 5 years and 10 weeks "
                             f"either side, must have an Umm al-Qura date: 1343-1500 AH = 1924-08-01 .. 2077-11-16)")
    if not MIN_EVAL_DATE <= d <= MAX_EVAL_DATE:
        raise GeneratorError(f"evaluation date {d.isoformat()} is out of range; supported evaluation dates: "
                             f"{MIN_EVAL_DATE.isoformat()} .. {MAX_EVAL_DATE.isoformat()} (every instance's "
                             f"dates must stay within 1900-01-01 .. 2100-12-31)")
    return d


# How far an instance's dates reach from its evaluation date: festivals 5 years on in their own calendar's
# years (under 6 Gregorian years) and offsets up to 10 weeks. A calendar beyond the paper's six that a
# request chooses (GenerationRequest.calendars) must cover the evaluation date this far either side.
REACH_DAYS = 6 * 366 + 70


def check_request_date(d: date, request) -> date:
    """An evaluation date checked for a GenerationRequest: its Islamic convention's window, and the data
    range of every calendar it chooses beyond the paper's six."""
    check_eval_date(d, request.islamic_convention)
    for name in request.calendars:
        if name in CALENDAR_NAMES:
            continue
        cal = get_calendar(name)
        lo, hi = date.fromordinal(cal.min_ordinal + REACH_DAYS), date.fromordinal(cal.max_ordinal - REACH_DAYS)
        if not lo <= d <= hi:
            raise GeneratorError(f"evaluation date {d.isoformat()} is out of range with the {name} calendar; "
                                 f"supported evaluation dates with it: {lo.isoformat()} .. {hi.isoformat()} (every "
                                 f"instance's dates, 6 years either side, must have a {cal.title} date; {cal.range_text()})")
    return d


def parse_eval_date(text: str, islamic_convention: str = "tabular") -> date:
    """'2025-07-01' (or '2025-7-1') -> date, range-checked (for that Islamic convention)."""
    if not isinstance(text, str):
        raise GeneratorError(f"expected a date as text (YYYY-MM-DD), got {text!r:.40}")
    m = _DATE_RX.match(text.strip())
    if not m:
        raise GeneratorError(f"cannot read {text!r} as a date; write YYYY-MM-DD, e.g. 2025-07-01")
    try:
        d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError as exc:
        raise GeneratorError(f"{text!r} is not a valid date ({exc})") from None
    return check_eval_date(d, islamic_convention)


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    y += d.year
    m += 1
    last = (date(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1)).day if y < 9999 else 31
    return date(y, m, min(d.day, last))


def date_range(start: date, end: date, step: str = "1d") -> list[date]:
    """Dates from start to end inclusive; step "Nd", "Nw", "Nm" or "Ny" (months and years are counted
    from the start, so 01-31/1m gives 02-28, 03-31, ...)."""
    m = _STEP_RX.match(step.strip()) if isinstance(step, str) else None
    if not m:
        raise GeneratorError(f"bad range step {step!r}; write a positive count and a unit d, w, m or y "
                             f"(e.g. 5y, 1m, 2w, 10d)")
    n, unit = int(m.group(1)), m.group(2)
    if end < start:
        raise GeneratorError(f"empty date range: {start.isoformat()}..{end.isoformat()} (the end is before the start)")
    out, k = [], 0
    while True:
        try:
            if unit in "dw":
                cur = start + timedelta(days=k * n * (7 if unit == "w" else 1))
            else:
                cur = _add_months(start, k * n * (12 if unit == "y" else 1))
        except (ValueError, OverflowError):  # a step past year 9999 is past any end date
            break
        if cur > end:
            break
        out.append(cur)
        k += 1
    return out


def parse_dates_spec(text: str, islamic_convention: str = "tabular") -> list[date]:
    """'2025-07-01', 'a,b,c', 'START..END[/STEP]' (step Nd/Nw/Nm/Ny, default 1d), or 'paper' (the 21
    paper dates); items of a comma list may be ranges. Duplicates are dropped (first kept). Every date
    is range-checked for the Islamic convention. (A whole range of the supported window is at most
    ~66,000 dates, so the list itself is small; what a caller builds from it is capped by the caller.)"""
    check_convention(islamic_convention)
    if not isinstance(text, str) or not text.strip():
        raise GeneratorError("no dates given; write a date (2025-07-01), a comma list, or a range "
                             "(1960-07-01..2060-07-01/5y)")
    out: list[date] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise GeneratorError(f"empty item in the date list {text!r}")
        if item.lower() == "paper":
            for d in PAPER_EVAL_DATES:
                out.append(check_eval_date(d, islamic_convention))
        elif ".." in item:
            rng, _, step = item.partition("/")
            a, _, b = rng.partition("..")
            if not a.strip() or not b.strip():
                raise GeneratorError(f"bad date range {item!r}; write START..END[/STEP], e.g. 1960-07-01..2060-07-01/5y")
            out.extend(date_range(parse_eval_date(a, islamic_convention), parse_eval_date(b, islamic_convention),
                                  step or "1d"))
        else:
            out.append(parse_eval_date(item, islamic_convention))
    seen, uniq = set(), []
    for d in out:
        if d not in seen:
            seen.add(d)
            uniq.append(d)
    return uniq
