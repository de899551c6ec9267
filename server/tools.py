"""The SPAN tools: typed inputs, typed outputs, and CalendarError -> ToolError.

Every tool is a plain function of validated arguments that returns a pydantic model, so the SDK
publishes an inputSchema (with a description on every field) and an outputSchema. `render` turns a
result into the wire form: the model's compact text (what a model reads) plus the full object as
structuredContent. Registration (titles, annotations, argument checks, the call path) is in `server.app`.

Why this module is long: what a model reads is the product here — every parameter's description, the
conventions said once in the field they concern, and the catalog of calendars and festivals — and the
tools' text must stay next to the models it describes so the size budgets can be kept in one place.
"""

from __future__ import annotations

import difflib
import re
import zoneinfo
from contextlib import contextmanager
from datetime import datetime, timezone as dt_timezone
from typing import Annotated, Any, Iterator, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from span_toolkit import span
from span_toolkit.span import festivals as _festivals
from span_toolkit.span.calendars import MAX_ORDINAL, MIN_ORDINAL
from span_toolkit.span.calendars import prose as _prose
from span_toolkit.span.models import CrossCalendarEntry, DateInfo, DifferenceResult, Shift, ShiftResult
from span_toolkit.span.models import Occurrence, TodayResult
from span_toolkit.span import adjustment as _adjustment
from span_toolkit.span.search import festival_in_gregorian_year, gregorian_year_hint, month_of
from span_toolkit.span.today import today as span_today

# ---------------------------------------------------------------------------------------------
# Conventions, said once and reused in descriptions
# ---------------------------------------------------------------------------------------------

def _range_text() -> str:
    """The supported range, with every calendar whose data cover less of it named (Umm al-Qura)."""
    narrower = [span.get_calendar(n) for n in span.ALL_CALENDAR_NAMES]
    narrower = [c for c in narrower if c.min_ordinal > MIN_ORDINAL or c.max_ordinal < MAX_ORDINAL]
    text = "Supported range: Gregorian 1900-01-01 … 2100-12-31 in every calendar"
    if narrower:
        text += ", except " + "; ".join(f"{c.name}: {c.range_text().removeprefix('supported ')}" for c in narrower)
    return text + "."


RANGE_TEXT = _range_text()

CONVENTIONS = (
    # the calendars named and counted from the registry (span.calendars.prose), never by hand
    f"Calendars: {_prose.paper_and_more(canonical=True)} (aliases such as 'lunar', 'Chinese Lunar', 'hijri', "
    "'jewish', 'saka', 'jalali', 'umm al-qura', 'ethiopic', 'korean' are accepted). "
    "Islamic = the arithmetic (tabular) Islamic calendar, not a sighting-based one; islamic_umm_al_qura = "
    "Saudi Arabia's civil calendar from its published table (same month numbers). "
    "Hebrew months are numbered from Nisan: Nisan=1 … Elul=6, Tishri=7 … Adar=12 (Adar I in leap "
    "years), Adar II=13 (leap years only); the Hebrew year number changes on 1 Tishri. "
    "Chinese and Korean lunar: months 1–12, a leap month repeats the number of the month before it and is "
    "given with is_lunar_leap_month=true (written '2023-leap2-15'); the lunar year number is the Gregorian "
    "year of its New Year; korean_lunar is reckoned at Korean time (KASI), so a month can start a day later "
    "and a leap month can differ. Coptic and Ethiopian (Amete Mihret): months 1–12 of 30 days and month 13 "
    "of 5 days (6 when year % 4 == 3). Julian = Old Style, Gregorian month names. Shaka = Indian national "
    "calendar; Persian = Solar Hijri (astronomical). "
    "vietnamese_lunar = the Chinese rule at Vietnam's UTC+7 (a month can start a day earlier than the Chinese "
    "one; Tết 1985 = 1985-01-21). japanese_era and roc: Gregorian months and days, the year counted in an "
    "era given as `era` (Meiji, Taishō, Shōwa, Heisei, Reiwa; roc: Minguo (default), Before Minguo) and "
    "returned beside year; without era a four-digit year is the Gregorian year. thai_buddhist: BE = CE + 543, "
    "but January–March 1900–1940 are CE + 542 (the year began on 1 April; thai_buddhist_proleptic: CE + 543 "
    "throughout). bahai: months 1 Bahá … 18 Mulk, 0 = Ayyám-i-Há, 19 ʻAlá. "
    "Targets: search_calendar and date_arithmetic answer in "
    "the paper's six and the source calendar unless `targets` names others. "
    + RANGE_TEXT
)


# ---------------------------------------------------------------------------------------------
# Input types. Their descriptions are what a model reads on every request: units, ranges, one
# convention each, nothing a model can look up in list_calendars.
# ---------------------------------------------------------------------------------------------

# The spellings the server takes for a calendar: letters, spaces, '_', '-' and apostrophes (it then
# ignores case, separators and a trailing "calendar"). The published schema carries the same pattern
# and the server enforces it before resolving the name, so a schema-validating client and the server
# accept exactly the same strings; an unknown name then gets the list of valid ones.
# À-ỿ: accented Latin (Bahá'í, Âm lịch; other scripts in that block pass the pattern, then are unknown names)
CALENDAR_PATTERN = r"^[ _'’-]*[A-Za-zÀ-ỿ][A-Za-zÀ-ỿ _'’-]*$"
_CALENDAR_RE = re.compile(CALENDAR_PATTERN)  # used with fullmatch: Python's `$` would also allow a final "\n"


ECHO_LIMIT = 80


def short(value: Any, limit: int = ECHO_LIMIT) -> str:
    """A caller's value as it may appear in an error message or a log line: repr, at most `limit` chars."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _calendar_name(value: Any) -> Any:
    """Map an alias ("lunar", "Chinese Lunar", "hijri" …) to its canonical name."""
    if not isinstance(value, str):
        raise ValueError(f"must be a calendar name (a string): {CALENDAR_WORDS}")
    if len(value) > 60:  # longer than any calendar name; also keeps a 1 MB name out of the message
        raise ValueError(f"unknown calendar {short(value)}; {CALENDAR_WORDS}")
    if not _CALENDAR_RE.fullmatch(value):
        raise ValueError(f"{short(value)} is not a calendar name (letters, spaces, '_', '-', apostrophes only); "
                         f"{CALENDAR_WORDS}")
    try:
        return span.canonical_name(value)
    except span.CalendarError as exc:
        raise ValueError(str(exc)) from None


def _not_bool(value: Any) -> Any:
    # pydantic's lax mode turns true/false into 1/0 for int fields; a boolean year is a caller bug.
    if isinstance(value, bool):
        raise ValueError(f"expected an integer, got the boolean {str(value).lower()}")
    return value


CALENDAR_WORDS = (f"valid: {', '.join(span.ALL_CALENDAR_NAMES)} (aliases such as lunar, hijri, jewish, saka, "
                  f"jalali, umm al-qura, ethiopic, korean accepted)")
TARGET_WORDS = f"valid targets: {', '.join(span.ALL_CALENDAR_NAMES)} (or their aliases)"


def _target_name(value: Any) -> Any:
    """One entry of `targets`: the same spellings as `calendar`, and an error that names the valid targets.
    The schema publishes no pattern here (it would cost every request ~90 characters): it accepts more
    strings than the server, never fewer."""
    if not isinstance(value, str) or len(value) > 60 or not _CALENDAR_RE.fullmatch(value):
        raise ValueError(f"{short(value)} is not a calendar name; {TARGET_WORDS}")
    try:
        return span.canonical_name(value)
    except span.CalendarError:
        raise ValueError(f"unknown target calendar {short(value)}; {TARGET_WORDS}") from None

# Field(...) comes before BeforeValidator(...) in each Annotated: in the other order pydantic
# publishes "ge"/"le" instead of JSON Schema's "minimum"/"maximum".
NO_BOOL = BeforeValidator(_not_bool)

Calendar = Annotated[
    str,
    Field(pattern=CALENDAR_PATTERN,
          description="Name or alias: gregorian, lunar, islamic (tabular), hebrew, shaka, persian… (list_calendars)"),
    BeforeValidator(_calendar_name),
]
# Every supported year of every calendar lies in 1..9999; the bound also keeps a 4,000-digit year out of
# the core (and out of any message that would echo it).
MIN_YEAR, MAX_YEAR = 1, 9999
Year = Annotated[
    int,
    Field(ge=MIN_YEAR, le=MAX_YEAR, description="Year in that calendar, e.g. 5785 (hebrew)"),
    NO_BOOL,
]
MONTH_TEXT = "Number or name; hebrew Nisan=1, Tishri=7, Adar=12, Adar II=13"
MAX_MONTH_TEXT = 40


def _month_value(value: Any) -> Any:
    # a name is read once the calendar and year are known (span.monthnames); here only its shape
    if isinstance(value, bool):
        raise ValueError(f"expected a month number or name, got the boolean {str(value).lower()}")
    if isinstance(value, str) and (not value.strip() or len(value) > MAX_MONTH_TEXT):
        raise ValueError(f"a month is a number (1-13) or a month name of at most {MAX_MONTH_TEXT} characters, "
                         f"e.g. 'Shevat', 'Ramadan'; got {short(value)}")
    if isinstance(value, int) and not MIN_MONTH <= value <= MAX_MONTH:
        raise ValueError(f"a month number is 1-13 (13: hebrew Adar II, coptic/ethiopian epagomenal; bahai 0-19: "
                         f"0 = Ayyam-i-Ha), got {value}")
    return value


# One schema for both forms: numbers 1-13 or a name (JSON Schema applies minimum/maximum to numbers and
# maxLength to strings only).
MIN_MONTH, MAX_MONTH = 0, 19  # bahai: 1-19 and 0 = Ayyám-i-Há; every other calendar 1-13 (the core says which)
# anyOf, not a type list: strict JSON Schema validators (Ajv strictTypes, as the TypeScript SDK may run it)
# refuse a union of two non-null types. No minimum/maximum: the valid months depend on the calendar and the
# year, and the error names them (_month_value and the core check every value).
_MONTH_SCHEMA = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
Month = Annotated[int | str, Field(description=MONTH_TEXT), BeforeValidator(_month_value),
                  WithJsonSchema({**_MONTH_SCHEMA, "description": MONTH_TEXT})]
Day = Annotated[int, Field(ge=1, le=31, description="Day of month"), NO_BOOL]
LeapFlag = Annotated[
    bool,
    Field(description="lunar leap month"),
]

# Offsets: any shift larger than the supported range (73,414 days) can never succeed; the bounds
# keep absurd numbers out before any work is done.
MAX_DAYS, MAX_WEEKS, MAX_MONTHS, MAX_YEARS = 80_000, 12_000, 2_700, 220
Days = Annotated[int, Field(ge=-MAX_DAYS, le=MAX_DAYS, description="negative: earlier"), NO_BOOL]
Weeks = Annotated[int, Field(ge=-MAX_WEEKS, le=MAX_WEEKS, description="to add"), NO_BOOL]
Months = Annotated[int, Field(ge=-MAX_MONTHS, le=MAX_MONTHS,
                              description="Months to add (leap months count)"), NO_BOOL]
Years = Annotated[int, Field(ge=-MAX_YEARS, le=MAX_YEARS, description="to add"), NO_BOOL]
FestivalName = Annotated[
    str | None,
    Field(max_length=200,
          description="Instead of month/day: a festival of that calendar, e.g. Passover"),
]
MAX_TARGETS = 40


def _target_list(value: Any) -> Any:
    # Checked before any entry is resolved, so a 100,000-entry list costs nothing. Not published as
    # maxItems (every request would pay for it): more entries than calendars can only be repeats.
    if isinstance(value, list) and len(value) > MAX_TARGETS:
        raise ValueError(f"at most {MAX_TARGETS} target calendars, got {len(value)}; {TARGET_WORDS}")
    if value == []:
        raise ValueError(f"empty list: name at least one calendar, or leave targets out for the six "
                         f"and the source; {TARGET_WORDS}")
    return value


# Repeats (two aliases of one calendar) are dropped, not refused.
Targets = Annotated[
    list[Annotated[str, BeforeValidator(_target_name)]] | None,
    Field(min_length=1, description="Calendars to answer in; default the six + the source"),
    BeforeValidator(_target_list),
]
OptMonth = Annotated[int | str | None, Field(description=MONTH_TEXT), BeforeValidator(_month_value),
                     WithJsonSchema({"anyOf": [*_MONTH_SCHEMA["anyOf"], {"type": "null"}],
                                     "description": MONTH_TEXT})]
OptYear = Annotated[int | None, Field(ge=MIN_YEAR, le=MAX_YEAR, description="Year in that calendar, e.g. 5785 (hebrew)"),
                    NO_BOOL]


# The arguments added for #32 check their own values, so that a bad one gets a message naming what is valid
# (server.app's VALID table names only the older arguments).
def _number_in(lo: float, hi: float, what: str, integer: bool = True):
    def check(value: Any) -> Any:
        if value is None:
            return value
        if isinstance(value, str):
            try:
                value = int(value) if integer else float(value)
            except ValueError:
                raise ValueError(f"expected {what}; got {short(value)}") from None
        ok = (isinstance(value, int) or (not integer and isinstance(value, float))) and not isinstance(value, bool)
        if not ok or not lo <= value <= hi:  # (NaN fails the comparison too)
            raise ValueError(f"expected {what}; got {short(value)}")
        return value
    return BeforeValidator(check)


def _one_of(values: tuple[str, ...], what: str):
    def check(value: Any) -> Any:
        if value is not None and value not in values:
            raise ValueError(f"expected {what}; got {short(value)}")
        return value
    return BeforeValidator(check)


def _text_of(limit: int, what: str):
    def check(value: Any) -> Any:
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            raise ValueError(f"expected {what} (at most {limit} characters); got {short(value)}")
        return value
    return BeforeValidator(check)


GregorianYear = Annotated[
    int | None,
    Field(ge=1900, le=2100, description="Instead of year, with festival_name: all its dates that Gregorian year"),
    _number_in(1900, 2100, "a Gregorian year from 1900 to 2100 (with festival_name, instead of year)"),
]
IslamicAdjustment = Annotated[
    int, Field(ge=-2, le=2, description="Local Hijri minus table, days"),
    _number_in(-2, 2, "an integer from -2 to 2: the days local Hijri dates run ahead of the tabular/Umm al-Qura "
                      "table")]
Anniversary = Annotated[
    Literal["birthday", "yahrzeit"] | None,
    Field(description="With years: Hebrew/lunar customs for days a year lacks"),
    _one_of(("birthday", "yahrzeit"), "'birthday' or 'yahrzeit' (with years >= 1)"),
]
OptDay = Annotated[int | None, Field(ge=1, le=31, description="Day of month"), NO_BOOL]
# japanese_era and roc count years in eras: the era of `year` (Reiwa, Heisei, Shōwa …; Minguo by default)
EraName = Annotated[str, Field(description="e.g. Reiwa")]  # "" = none; list_calendars names the eras


class DateInput(BaseModel):
    """A date in any calendar: the same fields and rules as search_calendar's, described in fewer words
    (date_difference carries two of them)."""

    model_config = ConfigDict(extra="forbid", title="DateInput")

    # the pattern is enforced by _calendar_name (a schema without it accepts more strings, never fewer)
    calendar: Annotated[str, Field(description="name or alias"), BeforeValidator(_calendar_name)]
    year: Annotated[int, Field(ge=MIN_YEAR, le=MAX_YEAR, description="in that calendar"), NO_BOOL]
    month: Annotated[int | str, Field(description="number or name (hebrew: Nisan=1)"),
                     BeforeValidator(_month_value),
                     WithJsonSchema({**_MONTH_SCHEMA, "description": "number or name (hebrew: Nisan=1)"})]
    day: Day
    is_lunar_leap_month: Annotated[bool, Field(description="lunar leap month")] = False
    era: EraName = ""


# ---------------------------------------------------------------------------------------------
# list_calendars output
# ---------------------------------------------------------------------------------------------

class MonthEntry(BaseModel):
    number: int  # the month number the tools take
    name: str
    note: SkipJsonSchema[str | None] = None


# Fields marked SkipJsonSchema are in structuredContent but not in the published output schema (tools/list
# has a byte budget; output schemas allow properties they do not list). docs/tools.md lists them all.
class CalendarEntry(BaseModel):
    name: str  # canonical name
    title: SkipJsonSchema[str] = ""
    description: SkipJsonSchema[str] = ""
    aliases: list[str]
    has_leap_months: SkipJsonSchema[bool] = False
    months: list[MonthEntry]
    month_note: SkipJsonSchema[str | None] = None
    first_year: SkipJsonSchema[int] = 0
    last_year: SkipJsonSchema[int] = 0
    supported_range: SkipJsonSchema[str] = ""
    festivals: list[str]


class FestivalEntry(BaseModel):
    name: str
    calendar: str
    month: SkipJsonSchema[int | None] = None  # absent: movable, see rule
    day: SkipJsonSchema[int | None] = None
    rule: str
    aliases: SkipJsonSchema[list[str]] = []
    in_span_paper: SkipJsonSchema[bool] = False  # one of the 21 festivals of the SPAN paper


class CalendarCatalog(BaseModel):
    calendars: list[CalendarEntry]
    festivals: list[FestivalEntry]
    conventions: str
    names_only: SkipJsonSchema[bool | None] = None

    def text(self) -> str:
        """The catalog as lines a model reads: one per calendar, one per festival."""
        if self.names_only:
            lines = ["calendars (name; aliases; festivals) — list_calendars with calendar=<name> for its months:"]
            for c in self.calendars:
                lines.append(f"{c.name}; {', '.join(c.aliases)}; {', '.join(c.festivals) or 'no festivals'}")
            return "\n".join(lines)
        lines = [f"conventions: {self.conventions}", "calendars:"]
        for c in self.calendars:
            months = ", ".join(f"{m.number} {m.name}" + (f" ({m.note})" if m.note else "") for m in c.months)
            lines.append(f"{c.name} ({c.title}; aliases: {', '.join(c.aliases)}; {c.supported_range}): "
                         f"months {months}" + (f". {c.month_note}" if c.month_note else ""))
        lines.append("festivals (name; calendar; month-day, or movable; rule; aliases):")
        for f in self.festivals:
            aliases = f"; aliases: {', '.join(f.aliases)}" if f.aliases else ""
            when = "movable" if f.month is None else f"{f.month}-{f.day}"
            lines.append(f"{f.name}; {f.calendar}; {when}; {f.rule}{aliases}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Tools. They are `async def` although they never await: each call is tens of microseconds of pure
# computation, so running it on the event loop is cheaper than the SDK's worker-thread hop for
# sync tools.
# ---------------------------------------------------------------------------------------------

@contextmanager
def calendar_errors() -> Iterator[None]:
    """A CalendarError is the caller's mistake: hand its message to the model as a ToolError."""
    try:
        yield
    except span.CalendarError as exc:
        raise ToolError(str(exc)) from exc


def _date(calendar: str, year: int, month: int | str, day: int, leap: bool, era: str | None = None) -> span.CalendarDate:
    month, named_leap = month_of(calendar, year, month)  # a month name ("Shevat", "leap 4") → its number
    return span.CalendarDate.create(calendar, year, month, day, leap or bool(named_leap), era=era)


def _real_day(d: span.CalendarDate, adjustment: int) -> span.CalendarDate:
    """The day a date names, as a Gregorian date: an Islamic date under islamic_adjustment names the day
    `adjustment` days before the table's (span.adjustment)."""
    return span.CalendarDate.from_ordinal("gregorian", _adjustment.real_ordinal(d, adjustment))


_GREGORIAN_HINT = "; if you meant the Gregorian year"


async def search_calendar(
    calendar: Calendar,
    year: OptYear = None,
    month: OptMonth = None,
    day: OptDay = None,
    is_lunar_leap_month: LeapFlag = False,
    festival_name: FestivalName = None,
    targets: Targets = None,
    gregorian_year: GregorianYear = None,
    islamic_adjustment: IslamicAdjustment = 0,
    era: EraName = "",
) -> CrossCalendarEntry:
    with calendar_errors():
        if festival_name is not None and is_lunar_leap_month:
            raise span.CalendarError("is_lunar_leap_month applies to a date, not to a festival (festivals "
                                     "fall in the regular month); drop it or give month and day instead")
        if gregorian_year is not None:
            return _festival_by_gregorian_year(calendar, year, month, day, festival_name, targets, gregorian_year,
                                               islamic_adjustment)
        if year is None:
            raise span.CalendarError("year is required (the year in that calendar); or, with festival_name, "
                                     "gregorian_year for every date of the festival in a Gregorian year")
        try:
            d, fest = span.search.resolve_query(calendar, year, month, day, festival_name, is_lunar_leap_month,
                                                era=era)
        except span.CalendarError as exc:
            hint = gregorian_year_hint(calendar, year, festival_name) if festival_name is not None else None
            if hint is None:
                raise
            raise span.CalendarError(f"{str(exc).split(_GREGORIAN_HINT)[0]}; {hint}") from None
        shown = span.resolve_targets(targets, d.calendar)
        return CrossCalendarEntry.of(_real_day(d, islamic_adjustment), fest, targets=shown,
                                     islamic_adjustment=islamic_adjustment)


def _festival_by_gregorian_year(calendar, year, month, day, festival_name, targets, gregorian_year,
                                adjustment) -> CrossCalendarEntry:
    if festival_name is None:
        raise span.CalendarError("gregorian_year goes with festival_name (every date of that festival in the "
                                 "Gregorian year); for a date give year, month and day in its own calendar")
    if year is not None or month is not None or day is not None:
        raise span.CalendarError("give gregorian_year instead of year (and no month or day): the festival's "
                                 "dates in that Gregorian year")
    fest, found = festival_in_gregorian_year(festival_name, gregorian_year, calendar, adjustment)
    shown = span.resolve_targets(targets, fest.calendar)
    first_day = span.CalendarDate.from_ordinal("gregorian", found[0][1])
    entry = CrossCalendarEntry.of(first_day, fest, targets=shown, islamic_adjustment=adjustment)
    entry.occurrences = [
        Occurrence(gregorian=DateInfo.of(span.CalendarDate.from_ordinal("gregorian", n)), date=DateInfo.of(own),
                   weekday=span.WEEKDAYS[(n - 1) % 7]) for own, n in found]
    return entry


async def date_arithmetic(
    calendar: Calendar,
    year: Year,
    month: Month,
    day: Day,
    is_lunar_leap_month: LeapFlag = False,
    days: Days = 0,
    weeks: Weeks = 0,
    months: Months = 0,
    years: Years = 0,
    targets: Targets = None,
    anniversary: Anniversary = None,
    islamic_adjustment: IslamicAdjustment = 0,
    era: EraName = "",
) -> ShiftResult:
    with calendar_errors():
        start = _date(calendar, year, month, day, is_lunar_leap_month, era)
        shifted = span.shift_date(start, days=days, weeks=weeks, months=months, years=years, anniversary=anniversary)
        return ShiftResult(
            start=DateInfo.of(start),
            shift=Shift(days=days, weeks=weeks, months=months, years=years, anniversary=anniversary),
            result=CrossCalendarEntry.of(_real_day(shifted.date, islamic_adjustment),
                                         targets=span.resolve_targets(targets, start.calendar),
                                         islamic_adjustment=islamic_adjustment),
            clamped=shifted.clamped,
            note=shifted.note,
            rule=shifted.rule,
        )


async def date_difference(
    start: Annotated[DateInput, Field(description="The first date")],
    end: Annotated[DateInput, Field(description="The second date, in any calendar")],
) -> DifferenceResult:
    with calendar_errors():
        a = _date(start.calendar, start.year, start.month, start.day, start.is_lunar_leap_month, start.era)
        b = _date(end.calendar, end.year, end.month, end.day, end.is_lunar_leap_month, end.era)
        n = span.date_difference(a, b)
        sign = -1 if n < 0 else 1
        weeks, rest = divmod(abs(n), 7)
        return DifferenceResult(start=DateInfo.of(a), end=DateInfo.of(b), days=n,
                                weeks=sign * weeks, remainder_days=sign * rest)


def _months(cal) -> list[MonthEntry]:
    """The calendar's months as it names and annotates them; a calendar whose months have no names
    (the lunar ones: a leap month repeats a number) has twelve, named by its month_name()."""
    numbers = sorted(cal.month_names) or range(1, 13)
    return [MonthEntry(number=n, name=cal.month_names.get(n) or cal.month_name(cal.min_year, n),
                       note=cal.notes_by_month.get(n)) for n in numbers]


def _catalog() -> CalendarCatalog:
    calendars = []
    for name in span.ALL_CALENDAR_NAMES:
        cal = span.get_calendar(name)
        calendars.append(CalendarEntry(
            name=cal.name, title=cal.title, description=cal.description,
            aliases=[a for a in cal.aliases if a != cal.name], has_leap_months=cal.has_leap_months,
            months=_months(cal), month_note=cal.month_note, first_year=cal.min_year, last_year=cal.max_year,
            supported_range=cal.range_text(), festivals=_festivals.names(cal.name)))
    fests = [FestivalEntry(name=f.name, calendar=f.calendar, month=None if f.movable else f.month,
                           day=None if f.movable else f.day, rule=f.rule,
                           aliases=list(f.aliases), in_span_paper=f.paper)
             for f in _festivals.FESTIVALS]
    return CalendarCatalog(calendars=calendars, festivals=fests, conventions=CONVENTIONS)


_CATALOG: CalendarCatalog | None = None
_NAMES: CalendarCatalog | None = None
OptCalendar = Annotated[  # the pattern is enforced by _calendar_name, left out of the schema (budget)
    str | None, Field(description="Only this calendar"), BeforeValidator(lambda v: v if v is None else _calendar_name(v)),
]


def _full_catalog() -> CalendarCatalog:
    global _CATALOG
    if _CATALOG is None:  # static data: built once
        _CATALOG = _catalog()
    return _CATALOG


async def list_calendars(calendar: OptCalendar = None, names_only: Annotated[
        bool, Field(description="Names only")] = False) -> CalendarCatalog:
    global _NAMES
    full = _full_catalog()
    if calendar is not None:
        # one calendar: its entry, its festivals and the conventions (a few KB instead of the whole catalog)
        cals = [c for c in full.calendars if c.name == calendar]
        fests = [f for f in full.festivals if f.calendar == calendar]
        if names_only:
            cals = [c.model_copy(update={"months": [], "description": "", "month_note": None}) for c in cals]
            fests = [f.model_copy(update={"rule": "", "aliases": []}) for f in fests]
        return CalendarCatalog(calendars=cals, festivals=fests, conventions="" if names_only else CONVENTIONS,
                               names_only=names_only or None)
    if names_only:
        if _NAMES is None:
            _NAMES = CalendarCatalog(
                calendars=[c.model_copy(update={"months": [], "description": "", "month_note": None})
                           for c in full.calendars],
                festivals=[], conventions="", names_only=True)
        return _NAMES
    return full


# ---------------------------------------------------------------------------------------------
# today: the clock and the time zone database are read here; span.today is pure
# ---------------------------------------------------------------------------------------------

_ZONE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")
_ZONES: dict[str, str] | None = None
ZONE_EXAMPLES = "e.g. 'UTC', 'Europe/London', 'America/New_York', 'Asia/Jerusalem', 'Asia/Tokyo'"


def _zone_names() -> dict[str, str]:
    """Every IANA zone this machine knows (the system database, else the `tzdata` package), by lower case."""
    global _ZONES
    if _ZONES is None:
        # "localtime" is this machine's own zone (a file of the system database), not an IANA name
        _ZONES = {z.lower(): z for z in zoneinfo.available_timezones() if z not in ("localtime", "posixrules")}
        _ZONES.setdefault("utc", "UTC")
    return _ZONES


def resolve_zone(name: str) -> zoneinfo.ZoneInfo:
    """An IANA time zone by name (any case); an unknown name is a CalendarError naming close ones."""
    if not isinstance(name, str) or len(name) > 64 or not _ZONE_RE.fullmatch(name.strip()):
        raise span.CalendarError(f"unknown time zone {short(name)}: give an IANA name, {ZONE_EXAMPLES}")
    zones = _zone_names()
    key = zones.get(name.strip().lower())
    if key is None:
        close = difflib.get_close_matches(name.strip().lower(), list(zones), n=3, cutoff=0.75)
        hint = f" (did you mean {', '.join(zones[c] for c in close)}?)" if close else ""
        raise span.CalendarError(f"unknown time zone {short(name)}{hint}: give an IANA name, {ZONE_EXAMPLES}; "
                                 f"abbreviations such as EST or CEST are not zones")
    return zoneinfo.ZoneInfo(key)


def parse_instant(text: str, zone: zoneinfo.ZoneInfo) -> tuple[datetime, str | None]:
    """An ISO 8601 instant; without a UTC offset it is a local time in `zone`. Returns (aware datetime in
    `zone`, a note or None)."""
    if not isinstance(text, str) or len(text) > 40:
        raise span.CalendarError(f"instant must be an ISO 8601 date-time such as '2025-03-13T23:30:00Z' or "
                                 f"'2025-03-13T16:30' (local time in timezone); got {short(text)}")
    try:
        if any(not ch.isprintable() for ch in text.strip()):  # fromisoformat lets one trailing NUL through
            raise ValueError(text)
        t = datetime.fromisoformat(text.strip())
    except ValueError:
        raise span.CalendarError(f"instant {short(text)} is not ISO 8601; write it like '2025-03-13T23:30:00Z' "
                                 f"(UTC), '2025-03-13T16:30:00+02:00', or '2025-03-13T16:30' (local time in "
                                 f"timezone)") from None
    if not 1899 <= t.year <= 2101:  # (year 1 or 9999 would overflow when moved to another UTC offset)
        raise span.CalendarError(f"instant {short(text)} is outside the supported range; give a date-time from "
                                 f"1900-01-01 to 2100-12-31 (local date in timezone)")
    note = None
    if t.tzinfo is None:
        local = t.replace(tzinfo=zone)
        back = local.astimezone(dt_timezone.utc).astimezone(zone)
        if back.replace(tzinfo=None) != t:
            note = f"local time {t.isoformat()} does not exist in {zone.key} (clocks moved forward); read as {back.isoformat()}"
            local = back
        return local, note
    return t.astimezone(zone), note


async def today(
    targets: Targets = None,
    timezone: Annotated[str | None, Field(max_length=64, description="IANA zone; default UTC"),
                        _text_of(64, f"an IANA time zone name, {ZONE_EXAMPLES}")] = None,
    instant: Annotated[str | None, Field(max_length=40, description="ISO 8601 instead of now; no offset: local"),
                       _text_of(40, "an ISO 8601 date-time, e.g. '2025-03-13T23:30:00Z' or '2025-03-13T16:30' "
                                    "(local time in timezone)")] = None,
    latitude: Annotated[float | None, Field(ge=-90, le=90, allow_inf_nan=False, description="north positive"),
                        _number_in(-90, 90, "degrees of latitude from -90 to 90 (north positive)", False)] = None,
    longitude: Annotated[float | None, Field(ge=-180, le=180, allow_inf_nan=False, description="east positive"),
                         _number_in(-180, 180, "degrees of longitude from -180 to 180 (east positive)", False)] = None,
    day_starts: Annotated[Literal["midnight", "sunset"], Field(description="sunset needs latitude"),
                          _one_of(("midnight", "sunset"), "'midnight' or 'sunset' (sunset needs latitude and "
                                                          "longitude)")] = "midnight",
    islamic_adjustment: IslamicAdjustment = 0,
) -> TodayResult:
    with calendar_errors():
        zone = resolve_zone("UTC" if timezone is None else timezone)
        if instant is None:
            local, note = datetime.now(dt_timezone.utc).astimezone(zone), None
        else:
            local, note = parse_instant(instant, zone)
        if timezone is None:
            note = "; ".join(x for x in (note, "timezone UTC (the default; give timezone for local time)") if x)
        names = span.resolve_targets(targets) if targets is not None else span.CALENDAR_NAMES
        return span_today(local, names, zone.key, latitude, longitude, day_starts, islamic_adjustment, note)


_RENDERED: dict[int, tuple[BaseModel, str, dict]] = {}


def render(result: BaseModel) -> CallToolResult:
    """A tool's result on the wire: the compact text a model reads, and the full typed object as
    structuredContent (fields that are None are left out)."""
    cached = _RENDERED.get(id(result))
    if cached is not None and cached[0] is result:  # the static catalog: rendered once
        _, text, data = cached
    else:
        text, data = result.text(), result.model_dump(mode="json", exclude_none=True)
        if result is _CATALOG:
            _RENDERED[id(result)] = (result, text, data)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# ---------------------------------------------------------------------------------------------
# Descriptions (what the model reads to choose a tool)
# ---------------------------------------------------------------------------------------------

DESCRIPTIONS = {
    "search_calendar": (
        "Convert a date, or a festival in a year, to other calendars plus the weekday: calendar, year, month, "
        "day; or calendar, year (of that calendar) and festival_name, or gregorian_year for a Gregorian one. "
        'Example: {"calendar":"hebrew","year":5785,"festival_name":"Passover"}'
    ),
    "date_arithmetic": (
        "Add or subtract days, weeks, months or years in the date's own calendar; result as search_calendar. "
        "Years first, then months, weeks, days; a missing day is clamped to the month's end. "
        'Example, 10 days before 1 Tammuz 5785: {"calendar":"hebrew","year":5785,"month":4,"day":1,"days":-10}'
    ),
    "date_difference": (
        "Days from start to end (negative when end is earlier), also as weeks plus days; each date in any "
        'calendar. Example: {"start":{"calendar":"gregorian","year":2025,"month":1,"day":1},'
        '"end":{"calendar":"lunar","year":2025,"month":1,"day":1}}'
    ),
    "list_calendars": (
        "Calendars (aliases, months, ranges) and festivals with rules: all, one calendar, or names only. "
        'Example: {"calendar":"hebrew"}'
    ),
    "today": (
        "The date now (or at instant) in the six calendars or targets, in an IANA timezone; with latitude, "
        "longitude and day_starts sunset, hebrew/islamic dates roll at local sunset. "
        'Example: {"timezone":"Asia/Jerusalem","latitude":31.78,"longitude":35.23,"day_starts":"sunset"}'
    ),
}

TITLES = {
    "search_calendar": "Convert a date or festival to other calendars",
    "date_arithmetic": "Add days, weeks, months or years to a date",
    "date_difference": "Days between two dates",
    "list_calendars": "Calendars, months and festivals",
    "today": "Today's date in any calendar",
}

TOOLS = {
    "search_calendar": search_calendar,
    "date_arithmetic": date_arithmetic,
    "date_difference": date_difference,
    "list_calendars": list_calendars,
    "today": today,
}

# The tools a with-tools evaluation offers a model by default. Every SPAN instance is a date shifted by
# days or weeks (date_arithmetic) or a festival N years on (search_calendar with festival_name), which
# is exactly what the reference agent calls; list_calendars is the reference a model may need for
# names. date_difference answers none of the questions and would add ~1.8k characters to every request.
EVAL_TOOLS = ("search_calendar", "date_arithmetic", "list_calendars")
