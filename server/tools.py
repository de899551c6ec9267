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

import re
from contextlib import contextmanager
from typing import Annotated, Any, Iterator

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from span_toolkit import span
from span_toolkit.span import festivals as _festivals
from span_toolkit.span.calendars import MAX_ORDINAL, MIN_ORDINAL
from span_toolkit.span.models import CrossCalendarEntry, DateInfo, DifferenceResult, Shift, ShiftResult

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
    "Calendars: the SPAN paper's six (gregorian, chinese_lunar, islamic, hebrew, shaka, persian) and julian, "
    "coptic, ethiopian, islamic_umm_al_qura, korean_lunar (aliases such as 'lunar', 'Chinese Lunar', 'hijri', "
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
    "calendar; Persian = Solar Hijri (astronomical). Targets: search_calendar and date_arithmetic answer in "
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
CALENDAR_PATTERN = r"^[ _'-]*[A-Za-z][A-Za-z _'-]*$"
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
        raise ValueError(f"{short(value)} is not a calendar name (letters, spaces, '_', '-' only); "
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
          description="gregorian, chinese_lunar, islamic (tabular), hebrew, shaka, persian, julian, coptic, "
                      "ethiopian, islamic_umm_al_qura (Saudi), korean_lunar, or an alias (lunar, hijri, jalali…)"),
    BeforeValidator(_calendar_name),
]
# Every supported year of every calendar lies in 1..9999; the bound also keeps a 4,000-digit year out of
# the core (and out of any message that would echo it).
MIN_YEAR, MAX_YEAR = 1, 9999
Year = Annotated[
    int,
    Field(ge=MIN_YEAR, le=MAX_YEAR, description="Year in that calendar, e.g. 5785 (hebrew); Gregorian 1900-2100 "
                                                "(Umm al-Qura 1924-08-01 to 2077-11-16)"),
    NO_BOOL,
]
MONTH_TEXT = "1-12; hebrew from Nisan=1: Tishri=7, Adar=12, Adar II=13; coptic/ethiopian 13: epagomenal days"
Month = Annotated[int, Field(ge=1, le=13, description=MONTH_TEXT), NO_BOOL]
Day = Annotated[int, Field(ge=1, le=31, description="Day of the month"), NO_BOOL]
LeapFlag = Annotated[
    bool,
    Field(description="true for a leap month (chinese_lunar, korean_lunar)"),
]

# Offsets: any shift larger than the supported range (73,414 days) can never succeed; the bounds
# keep absurd numbers out before any work is done.
MAX_DAYS, MAX_WEEKS, MAX_MONTHS, MAX_YEARS = 80_000, 12_000, 2_700, 220
Days = Annotated[int, Field(ge=-MAX_DAYS, le=MAX_DAYS, description="Days to add, negative = earlier"), NO_BOOL]
Weeks = Annotated[int, Field(ge=-MAX_WEEKS, le=MAX_WEEKS, description="Weeks to add (7 days)"), NO_BOOL]
Months = Annotated[int, Field(ge=-MAX_MONTHS, le=MAX_MONTHS,
                              description="Months to add in that calendar (leap months count)"), NO_BOOL]
Years = Annotated[int, Field(ge=-MAX_YEARS, le=MAX_YEARS, description="Years to add in that calendar"), NO_BOOL]
FestivalName = Annotated[
    str | None,
    Field(max_length=200,
          description="A festival of that calendar instead of month/day, e.g. Chinese New Year (chinese_lunar), "
                      "Eid al-Fitr (islamic), Passover (hebrew)"),
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
    Field(min_length=1, description='Calendars to answer in, e.g. ["julian"]; default: the six + the source'),
    BeforeValidator(_target_list),
]
OptMonth = Annotated[int | None, Field(ge=1, le=13, description=MONTH_TEXT), NO_BOOL]
OptDay = Annotated[int | None, Field(ge=1, le=31, description="Day of the month"), NO_BOOL]


class DateInput(BaseModel):
    """A date in any calendar: the same fields and rules as search_calendar's, described in fewer words
    (date_difference carries two of them)."""

    model_config = ConfigDict(extra="forbid", title="DateInput")

    calendar: Annotated[str, Field(pattern=CALENDAR_PATTERN, description="a calendar name or alias (list_calendars)"),
                        BeforeValidator(_calendar_name)]
    year: Annotated[int, Field(ge=MIN_YEAR, le=MAX_YEAR, description="Year in that calendar"), NO_BOOL]
    month: Annotated[int, Field(ge=1, le=13, description="Month number (hebrew: Nisan=1)"), NO_BOOL]
    day: Day
    is_lunar_leap_month: Annotated[bool, Field(description="a lunar leap month")] = False


# ---------------------------------------------------------------------------------------------
# list_calendars output
# ---------------------------------------------------------------------------------------------

class MonthEntry(BaseModel):
    number: int = Field(description="the month number the tools take")
    name: str
    note: str | None = None


class CalendarEntry(BaseModel):
    name: str = Field(description="canonical name")
    title: str
    description: str
    aliases: list[str]
    has_leap_months: bool
    months: list[MonthEntry]
    month_note: str | None = None
    first_year: int
    last_year: int
    supported_range: str
    festivals: list[str]


class FestivalEntry(BaseModel):
    name: str
    calendar: str
    month: int | None = Field(default=None, description="absent: movable, see rule")
    day: int | None = None
    rule: str
    aliases: list[str]
    in_span_paper: bool = Field(description="one of the 21 festivals of the SPAN paper")


class CalendarCatalog(BaseModel):
    calendars: list[CalendarEntry]
    festivals: list[FestivalEntry]
    conventions: str

    def text(self) -> str:
        """The catalog as lines a model reads: one per calendar, one per festival."""
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


def _date(calendar: str, year: int, month: int, day: int, leap: bool) -> span.CalendarDate:
    return span.CalendarDate.create(calendar, year, month, day, leap)


async def search_calendar(
    calendar: Calendar,
    year: Year,
    month: OptMonth = None,
    day: OptDay = None,
    is_lunar_leap_month: LeapFlag = False,
    festival_name: FestivalName = None,
    targets: Targets = None,
) -> CrossCalendarEntry:
    with calendar_errors():
        if festival_name is not None and is_lunar_leap_month:
            raise span.CalendarError("is_lunar_leap_month applies to a date, not to a festival (festivals "
                                     "fall in the regular month); drop it or give month and day instead")
        d, fest = span.search.resolve_query(calendar, year, month, day, festival_name, is_lunar_leap_month)
        return CrossCalendarEntry.of(d, fest, targets=span.resolve_targets(targets, d.calendar))


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
) -> ShiftResult:
    with calendar_errors():
        start = _date(calendar, year, month, day, is_lunar_leap_month)
        shifted = span.shift_date(start, days=days, weeks=weeks, months=months, years=years)
        return ShiftResult(
            start=DateInfo.of(start),
            shift=Shift(days=days, weeks=weeks, months=months, years=years),
            result=CrossCalendarEntry.of(shifted.date, targets=span.resolve_targets(targets, start.calendar)),
            clamped=shifted.clamped,
            note=shifted.note,
        )


async def date_difference(
    start: Annotated[DateInput, Field(description="The first date")],
    end: Annotated[DateInput, Field(description="The second date, in any calendar")],
) -> DifferenceResult:
    with calendar_errors():
        a = _date(start.calendar, start.year, start.month, start.day, start.is_lunar_leap_month)
        b = _date(end.calendar, end.year, end.month, end.day, end.is_lunar_leap_month)
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


async def list_calendars() -> CalendarCatalog:
    global _CATALOG
    if _CATALOG is None:  # static data: built once
        _CATALOG = _catalog()
    return _CATALOG


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
        "Convert a date, or a festival in a given year, to other calendars plus the weekday. Give calendar, "
        "year, month and day; or calendar, year and festival_name (a festival of that calendar, a year in that "
        "calendar). Default targets: gregorian, chinese_lunar, islamic, hebrew, shaka, persian and the source. "
        'Example: {"calendar":"hebrew","year":5785,"festival_name":"Passover"}'
    ),
    "date_arithmetic": (
        "Add or subtract days, weeks, months or years within the date's own calendar; result in the "
        "targets (as search_calendar) plus the weekday. Years apply first, then months, then weeks and days; "
        "a missing day is clamped to the month's last day. "
        'Example, 10 days before 1 Tammuz 5785: {"calendar":"hebrew","year":5785,"month":4,"day":1,"days":-10}'
    ),
    "date_difference": (
        "Days from start to end (negative when end is earlier), also as weeks plus days; each date in any "
        'calendar. Example: {"start":{"calendar":"gregorian","year":2025,"month":1,"day":1},'
        '"end":{"calendar":"lunar","year":2025,"month":1,"day":1}}'
    ),
    "list_calendars": (
        "Reference: calendars (aliases, months, ranges) and every festival with its rule. "
        "Call it when unsure how to name a calendar, month or festival."
    ),
}

TITLES = {
    "search_calendar": "Convert a date or festival to other calendars",
    "date_arithmetic": "Add days, weeks, months or years to a date",
    "date_difference": "Days between two dates",
    "list_calendars": "Calendars, months and festivals",
}

TOOLS = {
    "search_calendar": search_calendar,
    "date_arithmetic": date_arithmetic,
    "date_difference": date_difference,
    "list_calendars": list_calendars,
}

# The tools a with-tools evaluation offers a model by default. Every SPAN instance is a date shifted by
# days or weeks (date_arithmetic) or a festival N years on (search_calendar with festival_name), which
# is exactly what the reference agent calls; list_calendars is the reference a model may need for
# names. date_difference answers none of the questions and would add ~1.8k characters to every request.
EVAL_TOOLS = ("search_calendar", "date_arithmetic", "list_calendars")
