"""A Hijri date adjusted for local sighting: the tabular (or Umm al-Qura) date of the next or previous
day or two.

Local calendars that follow a moon sighting often run a day or two ahead of or behind a computed
Islamic calendar. With an adjustment `a` (−2 … +2), the adjusted Islamic date of a day is the
table's date of the day `a` days later: `a = 1` on Gregorian 2025-03-29 gives the table's date of
2025-03-30. A date written in the adjusted calendar therefore names the day `a` days before the one
the table gives it. Only the Islamic calendars (tabular and Umm al-Qura) are adjusted.
"""

from __future__ import annotations

from datetime import date

from .calendars import MAX_ORDINAL, MIN_ORDINAL, get_calendar
from .dates import CalendarDate
from .errors import CalendarError

MAX_ADJUSTMENT = 2


def is_islamic(calendar: str) -> bool:
    return get_calendar(calendar).name.startswith("islamic")


def check_adjustment(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not -MAX_ADJUSTMENT <= value <= MAX_ADJUSTMENT:
        raise CalendarError(f"islamic_adjustment must be an integer from -{MAX_ADJUSTMENT} to {MAX_ADJUSTMENT} "
                            f"(days the local Hijri date runs ahead of the table), got {value!r:.40}")
    return value


def real_ordinal(d: CalendarDate, adjustment: int) -> int:
    """The day a date names: an Islamic date written in the adjusted calendar names the day `adjustment`
    days before the table's; any other calendar's date is unaffected."""
    n = d.ordinal
    if adjustment and is_islamic(d.calendar):
        n -= adjustment
        if not MIN_ORDINAL <= n <= MAX_ORDINAL:
            raise CalendarError(f"with islamic_adjustment {adjustment:+d}, {d.display()} falls outside the "
                                f"supported range (Gregorian 1900-01-01 … 2100-12-31)")
    return n


def view(calendar: str, ordinal: int, adjustment: int) -> CalendarDate:
    """The day `ordinal` in `calendar`, adjusted when the calendar is an Islamic one."""
    if adjustment and is_islamic(calendar):
        shifted = ordinal + adjustment
        cal = get_calendar(calendar)
        if not max(MIN_ORDINAL, cal.min_ordinal) <= shifted <= min(MAX_ORDINAL, cal.max_ordinal):
            raise CalendarError(f"with islamic_adjustment {adjustment:+d}, the {cal.title} date of Gregorian "
                                f"{date.fromordinal(ordinal).isoformat()} falls outside the supported range; "
                                f"{cal.range_text()}")
        return CalendarDate.from_ordinal(calendar, shifted)
    return CalendarDate.from_ordinal(calendar, ordinal)


__all__ = ["MAX_ADJUSTMENT", "check_adjustment", "is_islamic", "real_ordinal", "view"]
