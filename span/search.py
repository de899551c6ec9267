"""search_calendar: the SPAN paper's cross-calendar interface (Appendix D and F)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date as _date

from .calendars import ALL_CALENDAR_NAMES, CALENDAR_NAMES, get_calendar
from .dates import CalendarDate, _as_int
from .errors import CalendarError
from . import disputes as _disputes
from . import festivals as _festivals
from .models import CrossCalendarEntry
from .adjustment import check_adjustment, real_ordinal
from .calendars import MAX_ORDINAL, MIN_ORDINAL
from .monthnames import resolve_month

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
                  is_lunar_leap_month=False, *, calendar=None, event=None, festival=None, era=None):
    """Validate the paper's two parameter schemas; return (CalendarDate, Festival | None). `era`: the era
    of an era calendar's year (japanese_era: Reiwa, Heisei …; roc: Minguo (default), Before Minguo)."""
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
        if era is not None and era != "":  # a festival's year in an era calendar: its continuous year
            year = cal.find_era(era).to_calendar_year(year)
        return _festivals.date_in_year(fest, year), fest
    if month is None or day is None:
        missing = "day" if month is not None else "month" if day is not None else "month and day"
        raise CalendarError(f"{missing} missing; {_SCHEMAS}")
    month, leap = month_of(cal.name, year, month)
    return CalendarDate.create(cal.name, year, month, day, is_lunar_leap_month or bool(leap), era=era), None


def month_of(calendar: str, year: int, month) -> tuple[int, bool | None]:
    """A month given as a number or a name ("Shevat", "Ramazan", "leap 4") → (number, leap flag or None);
    numeric strings ("11", "+11") pass through as before."""
    if isinstance(month, str) and not month.strip().lstrip("+-").isdigit():
        return resolve_month(calendar, year, month)
    return month, None


# ---------------------------------------------------------------------------------------------
# A festival in a Gregorian year
# ---------------------------------------------------------------------------------------------

def festival_in_gregorian_year(festival_name: str, gregorian_year: int, calendar: str | None = None,
                               islamic_adjustment: int = 0):
    """Every day of Gregorian `gregorian_year` on which the festival falls: (Festival, [(date in the
    festival's calendar, day number)]) in order. An Islamic festival can fall twice in one Gregorian year
    (Eid al-Fitr 2033: 2033-01-03 and 2033-12-23, tabular).

    `calendar` is the festival's calendar, or "gregorian" (or None) to look the name up in every calendar.
    With `islamic_adjustment` an Islamic festival's days move with the adjusted calendar (span.adjustment)."""
    adj = check_adjustment(islamic_adjustment)
    gy = _as_int(gregorian_year, "gregorian_year")
    if not 1900 <= gy <= 2100:
        raise CalendarError(f"gregorian_year {gy} is out of range; supported Gregorian years: 1900–2100")
    cal = get_calendar(calendar).name if calendar is not None else "gregorian"
    if cal == "gregorian":
        try:
            fest = _festivals.find(festival_name, "gregorian")
        except CalendarError:
            fest = _festivals.find(festival_name)
    else:
        fest = _festivals.find(festival_name, cal)
    own = get_calendar(fest.calendar)
    lo = max(_date(gy, 1, 1).toordinal(), MIN_ORDINAL, own.min_ordinal)
    hi = min(_date(gy, 12, 31).toordinal(), MAX_ORDINAL, own.max_ordinal)
    if lo > hi:
        raise CalendarError(f"Gregorian year {gy} is outside the {own.title} calendar's range; {own.range_text()}")
    found = []
    first = own.year_of(max(lo - 3, own.min_ordinal, MIN_ORDINAL))
    last = own.year_of(min(hi + 3, own.max_ordinal, MAX_ORDINAL))
    for y in range(first, last + 1):
        try:
            d = _festivals.date_in_year(fest, y)
            n = real_ordinal(d, adj)
        except CalendarError:  # the festival's year lies partly outside the supported window
            continue
        if lo <= n <= hi:
            found.append((d, n))
    if not found:
        raise CalendarError(f"{fest.name} ({own.title} calendar) does not fall in Gregorian year {gy} within the "
                            f"supported range; {own.range_text()}")
    return fest, sorted(found, key=lambda x: x[1])


def gregorian_year_hint(calendar: str, year: int, festival_name: str) -> str | None:
    """For a festival query that failed: when the year reads as a Gregorian one or the festival belongs to
    another calendar, the words that point to `gregorian_year` (the MCP tool's argument)."""
    try:
        cal = get_calendar(calendar).name
        fest = _festivals.find(festival_name)
        try:
            fest = _festivals.find(festival_name, cal)
        except CalendarError:
            pass
    except CalendarError:
        return None
    own = get_calendar(fest.calendar)
    if isinstance(year, int) and 1900 <= year <= 2100 and (fest.calendar != cal or not own.min_year <= year <= own.max_year):
        return (f"for {fest.name} in Gregorian year {year}, give gregorian_year={year} instead of year "
                f"(with calendar {fest.calendar!r}); it returns every date in that year")
    if fest.calendar != cal:
        return (f"or, for {fest.name} in a Gregorian year, give gregorian_year instead of year (with calendar "
                f"{fest.calendar!r})")
    return None


def search_calendar(calendar_name=None, year=None, month=None, day=None, festival_name=None,
                    is_lunar_leap_month=False, *, calendar=None, event=None, festival=None,
                    targets=None, era=None) -> dict:
    """Convert a date or a festival of one calendar to all six.

    Returns {"gregorian_date": "2025-1-29", "lunar_date": "2025-1-1", "islamic_date": ...,
    "hebrew_date": ..., "shaka_date": ..., "persian_date": ..., "lunar_is_leap_month": False}.
    `targets` (calendar names beyond the six, e.g. ["julian", "korean_lunar"]) adds a
    "<name>_date" key for each, and "korean_lunar_is_leap_month" for the Korean lunar calendar;
    the six keys are always there, as the paper's code expects. Where the sources split on a date
    (span.disputes), a "disputed" key maps its result key to the other reading and the reason, e.g.
    {"lunar_date": {"other": "2057-9-10", "reason": "sources split 2-2; ..."}}; it is absent otherwise.
    An era calendar (japanese_era, roc) takes `era` on input and adds "<name>_era" beside its date.
    """
    d, _ = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                         calendar=calendar, event=event, festival=festival, era=era)
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
        if other.era is not None:
            out[f"{name}_era"] = other.era
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
                          festival=None, era=None) -> CrossCalendarEntry:
    """Same query as search_calendar; the typed result the MCP tool returns."""
    d, fest = resolve_query(calendar_name, year, month, day, festival_name, is_lunar_leap_month,
                            calendar=calendar, event=event, festival=festival, era=era)
    return CrossCalendarEntry.of(d, fest)
