"""Date arithmetic inside any calendar: integer steps on the day number, month and year steps
along the calendar's real month sequence (Chinese leap months, Hebrew Adar I/II)."""

from __future__ import annotations

from dataclasses import dataclass

from .anniversary import anniversary as _anniversary
from .calendars import MAX_ORDINAL, MIN_ORDINAL, get_calendar
from .dates import CalendarDate, _as_int
from .disputes import Dispute, dispute_of
from .errors import CalendarError


@dataclass(frozen=True)
class Shifted:
    date: CalendarDate
    clamped: bool
    note: str | None
    # where the sources split on the result's date in its own calendar (span.disputes)
    disputed: Dispute | None = None
    # the anniversary custom applied (span.anniversary), in words, when one was asked for and applied
    rule: str | None = None


def _check_date(d) -> None:
    if not isinstance(d, CalendarDate):
        raise CalendarError(f"expected a CalendarDate (CalendarDate.create or parse_date), got {d!r:.60}")
    d.ordinal  # validates a directly constructed date


def _clamp(cal, year: int, month, day: int, notes: list[str]) -> tuple[int, bool]:
    if day > month.length:
        notes.append(f"day {day} does not exist in {cal.title} month "
                     f"{cal.month_label(year, month.number, month.is_leap)} of {year} "
                     f"({month.length} days); clamped to day {month.length}")
        return month.length, True
    return day, False


def _year(cal, year: int, step: str):
    if not cal.min_year <= year <= cal.max_year:
        raise CalendarError(f"after the {step} step the date falls in {cal.title} year {year}, outside the "
                            f"supported range; {cal.range_text()}")
    return cal.layout(year)


def _add_years(d: CalendarDate, n: int, notes: list[str]) -> tuple[CalendarDate, bool]:
    cal = get_calendar(d.calendar)
    y = d.linear_year + n  # an era calendar steps its continuous year (Heisei 30 + 1 = Reiwa 1)
    lay = _year(cal, y, "year")
    month = lay.find(d.month, d.is_leap_month)
    if month is None and d.is_leap_month:
        month = lay.find(d.month, False)
        notes.append(f"{cal.title} year {y} has no leap month {d.month}; used the regular month {d.month}")
    elif month is None:
        # A month that only leap years have (Hebrew Adar II = 13): the nearest month before it.
        month = max((m for m in lay.months if m.number < d.month and not m.is_leap), key=lambda m: m.number,
                    default=None)
        if month is None:  # a short year (Thai BE 2483: April-December 1940) without the month
            raise CalendarError(f"after the year step: {cal._month_error(lay, d.month, False)}")
        notes.append(f"{cal.title} year {y} has no month {cal.month_label(d.linear_year, d.month)}; used month "
                     f"{cal.month_label(y, month.number)}")
    day, clamped = _clamp(cal, y, month, d.day, notes)
    return CalendarDate(cal.name, y, month.number, day, month.is_leap), clamped


def _add_months(d: CalendarDate, n: int, notes: list[str]) -> tuple[CalendarDate, bool]:
    cal = get_calendar(d.calendar)
    y = d.linear_year
    months = cal.check_year(y).months
    i = next(k for k, m in enumerate(months) if m.number == d.month and m.is_leap == d.is_leap_month)
    i += n
    while i < 0:
        y -= 1
        months = _year(cal, y, "month").months
        i += len(months)
    while i >= len(months):
        i -= len(months)
        y += 1
        months = _year(cal, y, "month").months
    month = months[i]
    day, clamped = _clamp(cal, y, month, d.day, notes)
    return CalendarDate(cal.name, y, month.number, day, month.is_leap), clamped


def shift_date(d: CalendarDate, days=0, weeks=0, months=0, years=0, anniversary: str | None = None) -> Shifted:
    """Years first, then months (clamping the day to the month's length), then weeks and days.

    With `anniversary` ("birthday" or "yahrzeit") the year step follows that custom for days the target
    year lacks (span.anniversary: Hebrew Adar and 30 Heshvan/Kislev, lunar leap months) and names the
    rule in `Shifted.rule`; it needs years >= 1 and no months."""
    _check_date(d)
    days, weeks = _as_int(days, "days"), _as_int(weeks, "weeks")
    months, years = _as_int(months, "months"), _as_int(years, "years")
    notes: list[str] = []
    clamped = False
    cur = d
    rule = None
    if anniversary is not None:
        if years < 1 or months:
            raise CalendarError(f"anniversary {anniversary!r:.20} needs years of 1 or more (the anniversary that "
                                f"many years on) and no months; got years={years}, months={months}")
        cal = get_calendar(d.calendar)
        _year(cal, d.linear_year + years, "year")  # an era calendar counts its continuous year
        cur, rule = _anniversary(d, d.linear_year + years, anniversary)
        years = 0
    if years:
        cur, c = _add_years(cur, years, notes)
        clamped |= c
    if months:
        cur, c = _add_months(cur, months, notes)
        clamped |= c
    start = get_calendar(cur.calendar).layout(cur.linear_year).find(cur.month, cur.is_leap_month).start + cur.day - 1
    n = start + days + 7 * weeks
    if not MIN_ORDINAL <= n <= MAX_ORDINAL or not MIN_ORDINAL <= start <= MAX_ORDINAL:
        cal = get_calendar(d.calendar)
        raise CalendarError(f"the result falls outside the supported range; {cal.range_text()}")
    cur = CalendarDate.from_ordinal(d.calendar, n)
    return Shifted(cur, clamped, "; ".join(notes) or None, dispute_of(cur), rule)


def date_difference(a: CalendarDate, b: CalendarDate) -> int:
    """b minus a, in days; the two dates may be in different calendars."""
    _check_date(a)
    _check_date(b)
    return b.ordinal - a.ordinal
