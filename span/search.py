"""search_calendar: the SPAN paper's cross-calendar interface (Appendix D and F)."""

from __future__ import annotations

from .calendars import CALENDAR_NAMES, get_calendar
from .dates import CalendarDate, _as_int
from .errors import CalendarError
from . import festivals as _festivals
from .models import CrossCalendarEntry

# The paper's result keys ("lunar_date" is the Chinese lunar calendar).
RESULT_KEYS = {"gregorian": "gregorian_date", "chinese_lunar": "lunar_date", "islamic": "islamic_date",
               "hebrew": "hebrew_date", "shaka": "shaka_date", "persian": "persian_date"}

_SCHEMAS = ("use either {calendar, year, month, day[, is_lunar_leap_month]} for a date, "
            "or {calendar, year, festival_name} for a festival")


def resolve_query(calendar_name=None, year=None, month=None, day=None, festival_name=None,
                  is_lunar_leap_month=False, *, calendar=None, event=None, festival=None):
    """Validate the paper's two parameter schemas; return (CalendarDate, Festival | None)."""
    if calendar_name is not None and calendar is not None and \
            get_calendar(calendar_name).name != get_calendar(calendar).name:
        raise CalendarError(f"calendar given twice ({calendar_name!r} and {calendar!r}); give it once")
    cal = get_calendar(calendar_name if calendar_name is not None else calendar)
    names = [n for n in (festival_name, event, festival) if n is not None]
    if len({_festivals.find(n, cal.name).name for n in names}) > 1:
        raise CalendarError(f"two different festivals given ({', '.join(map(repr, names))}); "
                            f"give one festival_name")
    fest_name = names[0] if names else None
    if year is None:
        raise CalendarError(f"year is required; {_SCHEMAS}")
    year = _as_int(year, "year")
    if fest_name is not None:
        if month is not None or day is not None:
            raise CalendarError(f"give either a date or a festival, not both; {_SCHEMAS}")
        fest = _festivals.find(fest_name, cal.name)
        return _festivals.date_in_year(fest, year), fest
    if month is None or day is None:
        missing = "day" if month is not None else "month" if day is not None else "month and day"
        raise CalendarError(f"{missing} missing; {_SCHEMAS}")
    return CalendarDate.create(cal.name, year, month, day, is_lunar_leap_month), None


def search_calendar(calendar_name=None, year=None, month=None, day=None, festival_name=None,
                    is_lunar_leap_month=False, *, calendar=None, event=None, festival=None) -> dict:
    """Convert a date or a festival of one calendar to all six.

    Returns {"gregorian_date": "2025-1-29", "lunar_date": "2025-1-1", "islamic_date": ...,
    "hebrew_date": ..., "shaka_date": ..., "persian_date": ..., "lunar_is_leap_month": False}.
    """
    d, _ = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                         calendar=calendar, event=event, festival=festival)
    n = d.ordinal
    out: dict = {}
    leap = False
    for name in CALENDAR_NAMES:
        y, m, dd, is_leap = get_calendar(name).from_ordinal(n)
        out[RESULT_KEYS[name]] = f"{y}-{m}-{dd}"
        if name == "chinese_lunar":
            leap = is_leap
    out["lunar_is_leap_month"] = leap
    return out


def search_calendar_entry(calendar_name=None, year=None, month=None, day=None, festival_name=None,
                          is_lunar_leap_month=False, *, calendar=None, event=None,
                          festival=None) -> CrossCalendarEntry:
    """Same query as search_calendar; the typed result the MCP tool returns."""
    d, fest = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                            calendar=calendar, event=event, festival=festival)
    return CrossCalendarEntry.of(d, fest)
