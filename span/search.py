"""search_calendar: the SPAN paper's cross-calendar interface (Appendix D and F)."""

from __future__ import annotations

from collections.abc import Iterable

from .calendars import ALL_CALENDAR_NAMES, CALENDAR_NAMES, get_calendar
from .dates import CalendarDate, _as_int
from .errors import CalendarError
from . import disputes as _disputes
from . import festivals as _festivals
from .models import CrossCalendarEntry

# The paper's result keys ("lunar_date" is the Chinese lunar calendar).
RESULT_KEYS = {"gregorian": "gregorian_date", "chinese_lunar": "lunar_date", "islamic": "islamic_date",
               "hebrew": "hebrew_date", "shaka": "shaka_date", "persian": "persian_date"}



def result_key(calendar: str) -> str:
    """The search_calendar key of a calendar's date: the paper's six keys, else "<name>_date"."""
    name = get_calendar(calendar).name
    return RESULT_KEYS.get(name, f"{name}_date")


def resolve_targets(targets: Iterable[str] | str | None, source: str | None = None) -> tuple[str, ...]:
    """Canonical target calendar names, in the order given, without repeats.

    None means the paper's six plus the source calendar when it is not one of them.
    """
    if targets is None:
        own = get_calendar(source).name if source is not None else None
        return CALENDAR_NAMES + ((own,) if own is not None and own not in CALENDAR_NAMES else ())
    if isinstance(targets, str):
        targets = [targets]
    try:
        items = list(targets)
    except TypeError:
        raise CalendarError(f"targets must be a list of calendar names, got {targets!r:.60}; "
                            f"valid calendars: {', '.join(ALL_CALENDAR_NAMES)}") from None
    out: list[str] = []
    for t in items:
        try:
            name = get_calendar(t).name
        except CalendarError:
            raise CalendarError(f"unknown target calendar {t!r:.60}; valid targets: "
                                f"{', '.join(ALL_CALENDAR_NAMES)}") from None
        if name not in out:
            out.append(name)
    return tuple(out)


def convert(d: CalendarDate, targets: Iterable[str] | str | None = None) -> dict[str, CalendarDate]:
    """The same day in each target calendar: {canonical name: CalendarDate}, in target order.

    Default targets: the paper's six plus `d`'s own calendar. A target whose data do not cover the
    day (Umm al-Qura outside 1924-08-01 … 2077-11-16) raises a CalendarError naming its range.
    """
    if not isinstance(d, CalendarDate):
        raise CalendarError(f"expected a CalendarDate (CalendarDate.create or parse_date), got {d!r:.60}")
    names = resolve_targets(targets, d.calendar)
    n = d.ordinal
    return {name: (d if name == d.calendar else CalendarDate.from_ordinal(name, n)) for name in names}


_DISPUTED_SIX = tuple(c for c in CALENDAR_NAMES if c in _disputes.DISPUTED_CALENDARS)

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
                    is_lunar_leap_month=False, *, calendar=None, event=None, festival=None,
                    targets=None) -> dict:
    """Convert a date or a festival of one calendar to all six.

    Returns {"gregorian_date": "2025-1-29", "lunar_date": "2025-1-1", "islamic_date": ...,
    "hebrew_date": ..., "shaka_date": ..., "persian_date": ..., "lunar_is_leap_month": False}.
    `targets` (calendar names beyond the six, e.g. ["julian", "korean_lunar"]) adds a
    "<name>_date" key for each, and "korean_lunar_is_leap_month" for the Korean lunar calendar;
    the six keys are always there, as the paper's code expects. Where the sources split on a date
    (span.disputes), a "disputed" key maps its result key to the other reading and the reason, e.g.
    {"lunar_date": {"other": "2057-9-10", "reason": "sources split 2-2; ..."}}; it is absent otherwise.
    """
    d, _ = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                         calendar=calendar, event=event, festival=festival)
    extra = [t for t in resolve_targets(targets) if t not in CALENDAR_NAMES] if targets is not None else []
    n = d.ordinal
    out: dict = {}
    leap = False
    for name in CALENDAR_NAMES:
        y, m, dd, is_leap = get_calendar(name).from_ordinal(n)
        out[RESULT_KEYS[name]] = f"{y}-{m}-{dd}"
        if name == "chinese_lunar":
            leap = is_leap
    out["lunar_is_leap_month"] = leap
    for name, other in convert(d, extra).items():
        out[result_key(name)] = other.numeric()
        if get_calendar(name).has_leap_months:
            out[f"{name}_is_leap_month"] = other.is_leap_month
    disputed = {}
    for name in _DISPUTED_SIX + tuple(extra):
        split = _disputes._lookup(name, n)
        if split is not None:
            disputed[result_key(name)] = split.as_dict()
    if disputed:
        out["disputed"] = disputed
    return out


def search_calendar_entry(calendar_name=None, year=None, month=None, day=None, festival_name=None,
                          is_lunar_leap_month=False, *, calendar=None, event=None,
                          festival=None) -> CrossCalendarEntry:
    """Same query as search_calendar; the typed result the MCP tool returns."""
    d, fest = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                            calendar=calendar, event=event, festival=festival)
    return CrossCalendarEntry.of(d, fest)
