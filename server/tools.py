"""The SPAN tools: typed inputs, typed outputs, and CalendarError -> ToolError.

Every tool is a plain function of validated arguments that returns a pydantic model, so the SDK
publishes an inputSchema (with a description on every field) and an outputSchema, and returns
structuredContent. Registration (titles, annotations, argument checks) is in `server.app`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Annotated, Any, Iterator, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

import span
from span import festivals as _festivals
from span.models import CrossCalendarEntry, DateInfo, DifferenceResult, Shift, ShiftResult

# ---------------------------------------------------------------------------------------------
# Conventions, said once and reused in descriptions
# ---------------------------------------------------------------------------------------------

RANGE_TEXT = "Supported range: Gregorian 1900-01-01 … 2100-12-31 (the same days in every calendar)."

YEAR_RANGES = ", ".join(
    f"{name} {span.get_calendar(name).min_year}–{span.get_calendar(name).max_year}"
    for name in span.CALENDAR_NAMES
)

CONVENTIONS = (
    "Calendars: gregorian, chinese_lunar, islamic, hebrew, shaka, persian (aliases such as 'lunar', "
    "'Chinese Lunar', 'hijri', 'jewish', 'saka', 'jalali' are accepted). "
    "Islamic = the arithmetic (tabular) Islamic calendar, not Umm al-Qura or a sighting-based one. "
    "Hebrew months are numbered from Nisan: Nisan=1 … Elul=6, Tishri=7 … Adar=12 (Adar I in leap "
    "years), Adar II=13 (leap years only); the Hebrew year number changes on 1 Tishri. "
    "Chinese lunar: months 1–12, a leap month repeats the number of the month before it and is given "
    "with is_lunar_leap_month=true (written '2023-leap2-15'); the lunar year number is the Gregorian "
    "year of its New Year. Shaka = Indian national calendar; Persian = Solar Hijri (astronomical). "
    + RANGE_TEXT
)


# ---------------------------------------------------------------------------------------------
# Input types
# ---------------------------------------------------------------------------------------------

def _calendar_name(value: Any) -> Any:
    """Map an alias ("lunar", "Chinese Lunar", "hijri" …) to its canonical name before the enum check."""
    if isinstance(value, str):
        try:
            return span.canonical_name(value)
        except span.CalendarError as exc:
            raise ValueError(str(exc)) from None
    return value  # not a string: let the enum check reject it with the list of valid names


def _not_bool(value: Any) -> Any:
    # pydantic's lax mode turns true/false into 1/0 for int fields; a boolean year is a caller bug.
    if isinstance(value, bool):
        raise ValueError(f"expected an integer, got the boolean {str(value).lower()}")
    return value


CalendarName = Literal[span.CALENDAR_NAMES]  # type: ignore[valid-type]

# Field(...) comes before BeforeValidator(...) in each Annotated: in the other order pydantic
# publishes "ge"/"le" instead of JSON Schema's "minimum"/"maximum".
NO_BOOL = BeforeValidator(_not_bool)

Calendar = Annotated[
    CalendarName,
    Field(description="Calendar of the given date (canonical name; common aliases such as 'lunar', "
                      "'Chinese Lunar', 'hijri', 'jewish', 'saka', 'jalali' are also accepted)."),
    BeforeValidator(_calendar_name),
]
Year = Annotated[
    int,
    Field(description=f"Year in that calendar's own numbering. Supported years: {YEAR_RANGES} "
                      f"(limited by the Gregorian range 1900-01-01 … 2100-12-31).",
          examples=[2025, 5785, 1446]),
    NO_BOOL,
]
Month = Annotated[
    int,
    Field(ge=1, le=13, description="Month number in that calendar, 1–12 (Hebrew: Nisan=1 … Tishri=7 … "
                                   "Adar=12, Adar II=13 in leap years)."),
    NO_BOOL,
]
Day = Annotated[int, Field(ge=1, le=31, description="Day of the month, 1–31."), NO_BOOL]
LeapFlag = Annotated[
    bool,
    Field(description="Chinese lunar calendar only: true when the month is the leap (intercalary) month "
                      "that repeats the month number, e.g. the second month 2 of lunar 2023. Ignored by "
                      "the other calendars."),
]

# Offsets: any shift larger than the supported range (73,414 days) can never succeed; the bounds
# keep absurd numbers out before any work is done.
MAX_DAYS, MAX_WEEKS, MAX_MONTHS, MAX_YEARS = 80_000, 12_000, 2_700, 220
Days = Annotated[int, Field(ge=-MAX_DAYS, le=MAX_DAYS, description="Days to add; negative = earlier."), NO_BOOL]
Weeks = Annotated[int, Field(ge=-MAX_WEEKS, le=MAX_WEEKS,
                             description="Weeks to add (7 days each); negative = earlier."), NO_BOOL]
Months = Annotated[int, Field(ge=-MAX_MONTHS, le=MAX_MONTHS,
                              description="Calendar months to add along that calendar's real month sequence "
                                          "(Chinese leap months and Hebrew Adar II count as months); negative "
                                          "= earlier. A day that does not exist in the target month is "
                                          "clamped."), NO_BOOL]
Years = Annotated[int, Field(ge=-MAX_YEARS, le=MAX_YEARS,
                             description="Years to add in that calendar (same month and day); negative = "
                                         "earlier. A missing leap month falls back to the regular month; a "
                                         "missing day is clamped."), NO_BOOL]
FestivalName = Annotated[
    str | None,
    Field(max_length=200,
          description="Name of a festival of the given calendar (case, spacing and apostrophes are "
                      "ignored), e.g. 'Chinese New Year', 'Eid al-Fitr', 'Nowruz', 'Passover', "
                      "'Christmas Day'. Give it with year and WITHOUT month/day. list_calendars lists them."),
]
OptMonth = Annotated[
    int | None,
    Field(ge=1, le=13, description="Month number (with day) for a date query; omit for a festival query. "
                                   "Hebrew: Nisan=1 … Tishri=7 … Adar=12, Adar II=13."),
    NO_BOOL,
]
OptDay = Annotated[int | None, Field(ge=1, le=31, description="Day of the month (with month) for a date query; "
                                                              "omit for a festival query."), NO_BOOL]


class DateInput(BaseModel):
    """A date in one of the six calendars."""

    model_config = ConfigDict(extra="forbid", title="DateInput")

    calendar: Calendar
    year: Year
    month: Month
    day: Day
    is_lunar_leap_month: LeapFlag = False


# ---------------------------------------------------------------------------------------------
# list_calendars output
# ---------------------------------------------------------------------------------------------

class MonthEntry(BaseModel):
    number: int = Field(description="the month number the tools take")
    name: str = Field(description="the month's name in this toolkit's spelling")
    note: str | None = Field(default=None, description="when the month exists only in some years")


class CalendarEntry(BaseModel):
    name: str = Field(description="canonical name to pass as `calendar`")
    title: str
    description: str
    aliases: list[str] = Field(description="other names accepted for this calendar")
    has_leap_months: bool = Field(description="true when a leap month repeats a month number "
                                              "(Chinese lunar: pass is_lunar_leap_month=true)")
    months: list[MonthEntry]
    month_note: str | None = Field(default=None, description="how leap months are numbered")
    first_year: int = Field(description="first year with supported days")
    last_year: int = Field(description="last year with supported days")
    supported_range: str
    festivals: list[str] = Field(description="festival names of this calendar")


class FestivalEntry(BaseModel):
    name: str
    calendar: str = Field(description="the calendar the festival belongs to (pass it as `calendar`)")
    month: int
    day: int
    rule: str = Field(description="the festival's rule in its own calendar")
    aliases: list[str]
    in_span_paper: bool = Field(description="one of the 21 festivals of the SPAN paper")


class CalendarCatalog(BaseModel):
    calendars: list[CalendarEntry]
    festivals: list[FestivalEntry]
    conventions: str


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
) -> CrossCalendarEntry:
    with calendar_errors():
        if festival_name is not None and is_lunar_leap_month:
            raise span.CalendarError("is_lunar_leap_month applies to a date, not to a festival (festivals "
                                     "fall in the regular month); drop it or give month and day instead")
        return span.search_calendar_entry(calendar, year, month, day, festival_name, is_lunar_leap_month)


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
) -> ShiftResult:
    with calendar_errors():
        start = _date(calendar, year, month, day, is_lunar_leap_month)
        shifted = span.shift_date(start, days=days, weeks=weeks, months=months, years=years)
        return ShiftResult(
            start=DateInfo.of(start),
            shift=Shift(days=days, weeks=weeks, months=months, years=years),
            result=CrossCalendarEntry.of(shifted.date),
            clamped=shifted.clamped,
            note=shifted.note,
        )


async def date_difference(
    start: Annotated[DateInput, Field(description="The earlier (or reference) date, in any calendar.")],
    end: Annotated[DateInput, Field(description="The other date, in any calendar (may differ from start's).")],
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
    if cal.name == "chinese_lunar":
        return [MonthEntry(number=n, name=f"Month {n}") for n in range(1, 13)]
    out = []
    for n, name in sorted(cal.month_names.items()):
        note = None
        if cal.name == "hebrew" and n == 12:
            name, note = "Adar", "called Adar I in leap years"
        elif cal.name == "hebrew" and n == 13:
            note = "leap years only (7 of every 19 years)"
        out.append(MonthEntry(number=n, name=name, note=note))
    return out


_MONTH_NOTES = {
    "chinese_lunar": "In some years a leap month follows month N and repeats its number (named 'Leap "
                     "Month N', written 'Y-leapN-D'): pass month=N with is_lunar_leap_month=true.",
    "hebrew": "Numbered from Nisan (1) although the year number changes on 1 Tishri (7); in leap years "
              "month 12 is Adar I and month 13 is Adar II.",
}


def _catalog() -> CalendarCatalog:
    calendars = []
    for name in span.CALENDAR_NAMES:
        cal = span.get_calendar(name)
        calendars.append(CalendarEntry(
            name=cal.name, title=cal.title, description=cal.description,
            aliases=[a for a in cal.aliases if a != cal.name], has_leap_months=cal.has_leap_months,
            months=_months(cal), month_note=_MONTH_NOTES.get(cal.name), first_year=cal.min_year, last_year=cal.max_year,
            supported_range=cal.range_text(), festivals=_festivals.names(cal.name)))
    fests = [FestivalEntry(name=f.name, calendar=f.calendar, month=f.month, day=f.day, rule=f.rule,
                           aliases=list(f.aliases), in_span_paper=f.paper)
             for f in _festivals.FESTIVALS]
    return CalendarCatalog(calendars=calendars, festivals=fests, conventions=CONVENTIONS)


_CATALOG: CalendarCatalog | None = None


async def list_calendars() -> CalendarCatalog:
    global _CATALOG
    if _CATALOG is None:  # static data: built once
        _CATALOG = _catalog()
    return _CATALOG


# ---------------------------------------------------------------------------------------------
# Descriptions (what the model reads to choose a tool)
# ---------------------------------------------------------------------------------------------

DESCRIPTIONS = {
    "search_calendar": (
        "Convert a date, or a festival in a given year, from one calendar to all six calendars "
        "(Gregorian, Chinese lunar, Islamic, Hebrew, Shaka, Persian), with month names and the weekday. "
        "Use it whenever a question needs the same day in another calendar, or the date of a named "
        "festival (e.g. Chinese New Year 2025, Eid al-Fitr 1446, Nowruz 1404, Passover 5785). "
        "Give EITHER calendar + year + month + day (+ is_lunar_leap_month for a Chinese leap month) "
        "OR calendar + year + festival_name (the festival's own calendar and a year of that calendar). "
        + CONVENTIONS
    ),
    "date_arithmetic": (
        "Shift a date by days, weeks, months and/or years inside its own calendar (negative values go "
        "back in time) and return the result in all six calendars. Use it for 'N days/weeks/months/years "
        "before/after' questions in any calendar; convert the result with the returned fields instead of "
        "calling search_calendar again. Years are applied first, then months, then weeks and days. Month "
        "and year steps follow the calendar's real month sequence (Chinese leap months, Hebrew Adar II); "
        "when the day does not exist in the target month it is clamped to the last day and the result "
        "says so (clamped=true, note). " + CONVENTIONS
    ),
    "date_difference": (
        "Count the days between two dates, each in any of the six calendars (end minus start: negative "
        "when end is earlier), also as whole weeks plus remaining days. Use it for 'how many days/weeks "
        "between' questions and to check an offset. " + CONVENTIONS
    ),
    "list_calendars": (
        "List the supported calendars (canonical names, aliases, descriptions, supported years), the "
        "month numbers and names of each calendar (Hebrew numbering from Nisan=1, Chinese leap months), "
        "and every known festival with its calendar and rule. Call it when unsure how to name a calendar, "
        "month or festival before calling search_calendar, date_arithmetic or date_difference."
    ),
}

TITLES = {
    "search_calendar": "Convert a date or festival across six calendars",
    "date_arithmetic": "Add or subtract days, weeks, months, years in any calendar",
    "date_difference": "Days between two dates in any calendars",
    "list_calendars": "List calendars, month names and festivals",
}

TOOLS = {
    "search_calendar": search_calendar,
    "date_arithmetic": date_arithmetic,
    "date_difference": date_difference,
    "list_calendars": list_calendars,
}
