"""Anniversaries of a date N years on, by the customs for days that a year lacks.

* Hebrew **birthday** (and any anniversary other than a death): someone born in Adar of a common year,
  or in Adar II of a leap year, keeps the birthday in Adar II in leap years (Adar in common years);
  30 Heshvan or 30 Kislev in a year whose month has 29 days becomes 1 Kislev / 1 Tevet; 30 Adar I in
  a common year becomes 1 Nisan.
* Hebrew **yahrzeit** (the anniversary of a death), as Reingold & Dershowitz, *Calendrical
  Calculations* state it (and hebcal computes it): 30 Heshvan or 30 Kislev depends on the first
  anniversary — if that year had no such day, the day before 1 Kislev / 1 Tevet (the month's last
  day, 29th or 30th) in every year, else the 30th, moving to 1 Kislev / 1 Tevet in years without it; a death in Adar II is kept in
  the last month of the year (Adar or Adar II); 30 Adar I in a common year becomes 30 Shevat; a death
  in Adar of a common year is kept in Adar I of a leap year (the Ashkenazi custom; some keep both).
* **Lunisolar leap months** (Chinese, Korean lunar …): born in leap month N, the anniversary is in leap
  month N in a year that has one, else in the regular month N; a 30th in a 29-day month becomes the
  29th (the month's last day).
* Any other calendar: the same month and day; a day the month lacks that year becomes its last day
  (29 February → 28 February, 30 Esfand → 29 Esfand).

`anniversary(d, year, kind)` returns (date in `year`, the rule applied, in words, or None).
"""

from __future__ import annotations

from .calendars import get_calendar
from .calendars.hebrew import is_leap as hebrew_leap
from .dates import CalendarDate
from .errors import CalendarError

KINDS = ("birthday", "yahrzeit")
HESHVAN, KISLEV, TEVET, SHEVAT, ADAR, ADAR_II, NISAN = 8, 9, 10, 11, 12, 13, 1


def _length(calendar: str, year: int, month: int) -> int:
    m = get_calendar(calendar).check_year(year).find(month, False)
    return 0 if m is None else m.length


def _hebrew_birthday(d: CalendarDate, year: int) -> tuple[tuple[int, int], str | None]:
    month, day = d.month, d.day
    born_leap = hebrew_leap(d.year)
    if (month == ADAR and not born_leap) or (month == ADAR_II and born_leap):
        month = ADAR_II if hebrew_leap(year) else ADAR
        where = "Adar of a common year" if d.month == ADAR else "Adar II"
        return (month, day), (f"birthday rule: born in {where}, the birthday is in Adar II in leap years and "
                              f"in Adar in common years")
    if month == HESHVAN and day == 30 and _length("hebrew", year, HESHVAN) == 29:
        return (KISLEV, 1), f"birthday rule: Heshvan {year} has 29 days, so 30 Heshvan → 1 Kislev"
    if month == KISLEV and day == 30 and _length("hebrew", year, KISLEV) == 29:
        return (TEVET, 1), f"birthday rule: Kislev {year} has 29 days, so 30 Kislev → 1 Tevet"
    if month == ADAR and day == 30 and born_leap and not hebrew_leap(year):
        return (NISAN, 1), f"birthday rule: {year} is a common year (Adar has 29 days), so 30 Adar I → 1 Nisan"
    if month == ADAR and born_leap:
        return (month, day), ("birthday rule: born in Adar I, the birthday is in Adar I in leap years and in "
                              "Adar in common years")
    return (month, day), None


def _hebrew_yahrzeit(d: CalendarDate, year: int) -> tuple[tuple[int, int], str | None]:
    month, day = d.month, d.day
    rule = None
    if month == HESHVAN and day == 30 and _length("hebrew", d.year + 1, HESHVAN) == 29:
        # the first anniversary had no 30 Heshvan: the day before 1 Kislev (Heshvan's last day), every year
        month, day = HESHVAN, _length("hebrew", year, HESHVAN)
        rule = (f"yahrzeit rule: died 30 Heshvan and the first anniversary ({d.year + 1}) had no 30 Heshvan, "
                f"so the day before 1 Kislev")
    elif month == KISLEV and day == 30 and _length("hebrew", d.year + 1, KISLEV) == 29:
        month, day = KISLEV, _length("hebrew", year, KISLEV)
        rule = (f"yahrzeit rule: died 30 Kislev and the first anniversary ({d.year + 1}) had no 30 Kislev, "
                f"so the day before 1 Tevet")
    elif month == ADAR_II:
        month = ADAR_II if hebrew_leap(year) else ADAR
        rule = "yahrzeit rule: died in Adar II, kept in the year's last month (Adar II in leap years, Adar otherwise)"
    elif month == ADAR and day == 30 and not hebrew_leap(year):
        month, day = SHEVAT, 30
        rule = f"yahrzeit rule: died 30 Adar I; {year} is a common year (Adar has 29 days), so 30 Shevat"
    elif month == ADAR and not hebrew_leap(d.year) and hebrew_leap(year):
        rule = ("yahrzeit rule: died in Adar of a common year, kept in Adar I of a leap year (Ashkenazi custom; "
                "some also keep Adar II)")
    elif month == ADAR and hebrew_leap(d.year):
        rule = "yahrzeit rule: died in Adar I, kept in Adar I in leap years and in Adar otherwise"
    if month == HESHVAN and day == 30 and _length("hebrew", year, HESHVAN) == 29:
        month, day = KISLEV, 1
        rule = f"yahrzeit rule: Heshvan {year} has 29 days, so 30 Heshvan → 1 Kislev"
    elif month == KISLEV and day == 30 and _length("hebrew", year, KISLEV) == 29:
        month, day = TEVET, 1
        rule = f"yahrzeit rule: Kislev {year} has 29 days, so 30 Kislev → 1 Tevet"
    return (month, day), rule


def _generic(d: CalendarDate, year: int) -> tuple[CalendarDate, str | None]:
    cal = get_calendar(d.calendar)
    lay = cal.check_year(year)
    rule = None
    month = lay.find(d.month, d.is_leap_month)
    if month is None and d.is_leap_month:
        month = lay.find(d.month, False)
        rule = (f"leap-month rule: born in leap month {d.month}; {cal.title} year {year} has no leap month "
                f"{d.month}, so the regular month {d.month}")
    elif month is not None and d.is_leap_month:
        rule = f"leap-month rule: born in leap month {d.month}, and {cal.title} year {year} has one"
    if month is None:
        raise CalendarError(f"{cal.title} year {year} has no month {cal.month_label(d.year, d.month)}")
    day = d.day
    if day > month.length:
        what = "leap-month rule: " if cal.has_leap_months else "rule: "
        clamp = (f"{what}day {day} does not exist in month {cal.month_label(year, month.number, month.is_leap)} "
                 f"of {year} ({month.length} days), so its last day, {month.length}")
        if cal.name in ("gregorian", "julian") and d.month == 2:
            clamp += " (some reckon 1 March)"
        rule = f"{rule}; {clamp}" if rule else clamp
        day = month.length
    return CalendarDate(cal.name, year, month.number, day, month.is_leap), rule


def anniversary(d: CalendarDate, year: int, kind: str = "birthday") -> tuple[CalendarDate, str | None]:
    """The anniversary of `d` in `year` of its own calendar; (date, rule applied or None)."""
    if kind not in KINDS:
        raise CalendarError(f"anniversary must be one of {', '.join(KINDS)}, got {kind!r:.40}")
    d.ordinal  # validates
    cal = get_calendar(d.calendar)
    if year <= d.linear_year:  # (an era calendar's year: its continuous year)
        raise CalendarError(f"an anniversary falls after the original date: give years of 1 or more")
    if not cal.min_year <= year <= cal.max_year:
        raise CalendarError(f"{cal.title} year {year} is outside the supported range; {cal.range_text()}")
    if cal.name == "hebrew":
        (month, day), rule = (_hebrew_yahrzeit if kind == "yahrzeit" else _hebrew_birthday)(d, year)
        return CalendarDate.create("hebrew", year, month, day), rule
    if kind == "yahrzeit":
        raise CalendarError("a yahrzeit is reckoned in the Hebrew calendar: give the Hebrew date of death "
                            "(convert it with search_calendar; a death after sunset belongs to the next Hebrew "
                            "day), or use anniversary 'birthday' for the plain anniversary in this calendar")
    return _generic(d, year)


__all__ = ["KINDS", "anniversary"]
