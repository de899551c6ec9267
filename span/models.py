"""Typed results (pydantic): what the MCP tools return and publish as their output schema.

Each result also has a compact text form (`text()`), the tool result a model reads: one line per
calendar, e.g. ``hebrew: 5 Tammuz 5785 (5785-4-5)``. `parse_dates` reads those lines back.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, PrivateAttr
from pydantic.json_schema import SkipJsonSchema
from pydantic.json_schema import SkipJsonSchema

# Optional fields that only some queries fill are left out of the published output schemas
# (SkipJsonSchema): tools/list has a byte budget (tests/test_server_budget.py) and output schemas allow
# properties they do not list. docs/tools.md documents them.

from .adjustment import view as _adjusted_view
from .dates import CalendarDate
from .disputes import dispute_of

# The six calendars every cross-calendar result carries as fixed fields. Further calendars (julian,
# korean_lunar …) go into CrossCalendarEntry.more, so these fields and their order never change.
SIX_CALENDARS = ("gregorian", "chinese_lunar", "islamic", "hebrew", "shaka", "persian")


class DateInfo(BaseModel):
    calendar: str
    year: int
    month: int  # Hebrew: Nisan=1
    day: int
    is_leap_month: bool  # a lunar leap month
    month_name: str
    display: str  # e.g. "1 Tammuz 5785", "2023-leap2-15"
    numeric: str  # "Y-M-D", the paper's search_calendar string
    # Present only where the sources split on this day's date (span.disputes): "other reading
    # 2057-9-10: <why>". One string, not an object: every tool's output schema carries DateInfo, and
    # tools/list has a byte budget (tests/test_server_budget.py).
    disputed: SkipJsonSchema[str | None] = None
    # Era calendars (japanese_era, roc): the era, and `year` is counted in it ("Reiwa", year 1 = 2019).
    # Left out of the published schema (tools/list's byte budget; DateInfo admits extra keys): `display`
    # says it too ("Reiwa 1-5-1").
    era: SkipJsonSchema[str | None] = None

    @classmethod
    def of(cls, d: CalendarDate) -> "DateInfo":
        split = dispute_of(d)
        return cls(calendar=d.calendar, year=d.year, month=d.month, day=d.day,
                   is_leap_month=d.is_leap_month, month_name=d.month_name(), display=d.display(),
                   numeric=d.numeric(), era=d.era,
                   disputed=None if split is None else f"other reading {split.display()}: {split.reason}")

    def text(self) -> str:
        """`5 Tammuz 5785 (5785-4-5)`, `2025-7-1`, `2023-leap2-15 (leap month)`: the written form, then
        the numeric one when they differ; the leap flag in words. A disputed day ends with
        `[disputed, other reading 2057-9-10: <reason>]`."""
        out = self.display
        if self.is_leap_month:
            out += " (leap month)"
        elif self.display != self.numeric:
            out += f" ({self.numeric})"
        if self.disputed is not None:
            out += f" [disputed, {self.disputed}]"
        return out


RULE_TEXT_LIMIT = 100


class FestivalInfo(BaseModel):
    name: str
    calendar: str
    rule: str

    def text(self) -> str:
        """`Passover (hebrew, 15 Nisan (first day))`. A rule longer than RULE_TEXT_LIMIT is cut at a word
        (the date is the answer; the whole rule is in structuredContent and list_calendars), so that the
        result text of a festival stays within a date result's size."""
        rule = self.rule
        if len(rule) > RULE_TEXT_LIMIT:
            rule = rule[: RULE_TEXT_LIMIT].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return f"{self.name} ({self.calendar}, {rule})"


class Occurrence(BaseModel):
    gregorian: DateInfo
    date: DateInfo  # in the festival's calendar
    weekday: str

    def text(self) -> str:
        return f"{self.gregorian.display} ({self.date.display}, {self.weekday})"


class CrossCalendarEntry(BaseModel):
    gregorian: DateInfo
    chinese_lunar: DateInfo
    islamic: DateInfo  # the arithmetic (tabular) Islamic calendar, not Umm al-Qura
    hebrew: DateInfo
    shaka: DateInfo
    persian: DateInfo
    weekday: str
    festival: SkipJsonSchema[FestivalInfo | None] = None  # a festival query: which festival, its rule
    more: dict[str, DateInfo] | None = None  # further calendars, when asked for
    # days the Islamic dates run ahead of the table (islamic_adjustment), when not 0
    islamic_adjustment: SkipJsonSchema[int | None] = None
    # a festival asked for by gregorian_year: every date it falls on that year (the fields above: the first)
    occurrences: SkipJsonSchema[list[Occurrence] | None] = None
    # The calendars the text shows, in order, when the caller named them (`targets`); None = the six and
    # `more`. Not part of the data: structuredContent always has the six fixed fields.
    _shown: tuple[str, ...] | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, d: CalendarDate, festival=None, more: tuple[str, ...] = (),
           targets: tuple[str, ...] | None = None, islamic_adjustment: int = 0) -> "CrossCalendarEntry":
        """The day `d` in the six calendars, plus the calendars named in `more` (canonical names).

        With `targets` (canonical names, e.g. from span.resolve_targets) the ones beyond the six go into
        `more` and the text lists exactly the targets, in their order."""
        if targets is not None:
            more = tuple(targets)
        if islamic_adjustment:  # the Islamic dates are the table's for a day or two later (span.adjustment)
            n = d.ordinal

            def at(name: str) -> DateInfo:
                return DateInfo.of(_adjusted_view(name, n, islamic_adjustment))
        else:
            def at(name: str) -> DateInfo:
                return DateInfo.of(d.to(name))
        fields = {name: at(name) for name in SIX_CALENDARS}
        fest = (FestivalInfo(name=festival.name, calendar=festival.calendar, rule=festival.rule)
                if festival is not None else None)
        extra = {name: at(name) for name in more if name not in fields} or None
        entry = cls(**fields, weekday=d.weekday(), festival=fest, more=extra,
                    islamic_adjustment=islamic_adjustment or None)
        if targets is not None:
            entry._shown = tuple(targets)
        return entry

    def dates(self) -> dict[str, DateInfo]:
        """Every calendar in the result: the six, then `more`."""
        out = {name: getattr(self, name) for name in SIX_CALENDARS}
        out.update(self.more or {})
        return out

    def text(self) -> str:
        lines = []
        if self.festival is not None:
            lines.append(f"festival: {self.festival.text()}")
        if self.occurrences is not None:
            year = self.occurrences[0].gregorian.year
            each = "; ".join(o.text() for o in self.occurrences)
            lines.append(f"in Gregorian {year}: {len(self.occurrences)} date{'s' if len(self.occurrences) > 1 else ''}: "
                         f"{each}" + ("; the lines below are the first" if len(self.occurrences) > 1 else ""))
        if self.islamic_adjustment:
            lines.append(f"islamic adjustment: {self.islamic_adjustment:+d} day(s) (Islamic dates are the "
                         f"table's for {abs(self.islamic_adjustment)} day(s) "
                         f"{'later' if self.islamic_adjustment > 0 else 'earlier'})")
        dates = self.dates()
        shown = self._shown if self._shown is not None else tuple(dates)
        lines += [f"{name}: {dates[name].text()}" for name in shown]
        lines.append(f"weekday: {self.weekday}")
        return "\n".join(lines)


class Shift(BaseModel):
    days: int = 0
    weeks: int = 0
    months: int = 0
    years: int = 0
    anniversary: SkipJsonSchema[str | None] = None  # "birthday" | "yahrzeit": the year step follows that custom

    def text(self) -> str:
        parts = [f"{v:+d} {k}" for k, v in (("years", self.years), ("months", self.months),
                                            ("weeks", self.weeks), ("days", self.days)) if v]
        if self.anniversary and parts and parts[0].endswith("years"):
            parts[0] += f" ({self.anniversary})"
        return ", ".join(parts) or "0 days"


class ShiftResult(BaseModel):
    start: DateInfo
    shift: Shift
    result: CrossCalendarEntry
    clamped: bool  # the day was reduced to the target month's last day
    note: SkipJsonSchema[str | None] = None
    rule: SkipJsonSchema[str | None] = None  # the anniversary custom applied, in words

    def text(self) -> str:
        head = f"start: {self.start.calendar} {self.start.text()}; shift: {self.shift.text()}"
        if self.clamped:
            head += f"; clamped: {self.note}" if self.note else "; clamped to the month's last day"
        elif self.note:
            head += f"; note: {self.note}"
        if self.rule:
            head += f"; {self.rule}"
        return f"{head}\nresult:\n{self.result.text()}"


class DifferenceResult(BaseModel):
    start: DateInfo
    end: DateInfo
    days: int  # end minus start, in days (negative when end is earlier)
    weeks: int  # whole weeks in |days|, signed like days
    remainder_days: int  # days left after the whole weeks, signed like days

    def text(self) -> str:
        return (f"start: {self.start.calendar} {self.start.text()}\nend: {self.end.calendar} {self.end.text()}\n"
                f"days: {self.days} (end minus start) = {self.weeks} weeks {self.remainder_days} days")


_LINE = re.compile(r"^(?P<cal>[a-z_]+): (?P<display>.+?)(?: \((?P<extra>leap month|-?\d+-\d+-\d+)\))?"
                   r"(?: \[disputed, [^\]]*\])?$")
_NUMERIC = re.compile(r"^(-?\d+)-(leap)?(\d+)-(\d+)$")


def parse_dates(text: str, calendars=None) -> dict[str, dict]:
    """The calendar lines of a result's text (`CrossCalendarEntry.text()`, also inside a ShiftResult's)
    as {calendar: {"year", "month", "day", "is_leap_month", "display"}}. Lines of other kinds (start,
    weekday, festival …) are skipped; `calendars` (default: the six) names the lines to read, e.g.
    span.ALL_CALENDAR_NAMES for a result with targets."""
    wanted = set(calendars or SIX_CALENDARS)
    out: dict[str, dict] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m or m["cal"] not in wanted:
            continue
        extra = m["extra"]
        numeric = extra if extra and extra != "leap month" else m["display"]
        n = _NUMERIC.match(numeric)
        if n is None:
            raise ValueError(f"unreadable date line {line[:80]!r}")
        out[m["cal"]] = {"year": int(n[1]), "month": int(n[3]), "day": int(n[4]),
                         "is_leap_month": bool(n[2]) or extra == "leap month", "display": m["display"]}
    return out


class TodayResult(BaseModel):
    # The `today` tool's answer: the date now (or at `instant`) in the calendars asked for. (A comment, not a
    # docstring: a docstring would be published as the output schema's description.)

    timezone: str
    local_time: str  # ISO 8601 with the UTC offset
    utc: SkipJsonSchema[str] = ""
    dates: dict[str, DateInfo]
    weekday: str  # of the civil (Gregorian) day
    day_starts: str  # midnight, or sunset (hebrew and islamic roll at the local sunset)
    sunset: str | None = None  # local sunset today (NOAA), when a place is given
    rolled: SkipJsonSchema[list[str] | None] = None  # calendars showing the next day (after sunset)
    near_boundary: bool = False
    islamic_adjustment: SkipJsonSchema[int | None] = None
    note: SkipJsonSchema[str | None] = None

    def text(self) -> str:
        lines = [f"now: {self.local_time} ({self.timezone}; UTC {self.utc})"]
        # date lines as in every other result (span.models.parse_dates reads them)
        lines += [f"{name}: {info.text()}" for name, info in self.dates.items()]
        lines.append(f"weekday: {self.weekday}")
        if self.sunset is not None:
            lines.append(f"sunset: {self.sunset}; day_starts: {self.day_starts}")
        if self.rolled:
            lines.append(f"after sunset, the next day in: {', '.join(self.rolled)}")
        if self.near_boundary:
            lines.append("near_boundary: true (within minutes of sunset: sources differ by 1-3 minutes, the "
                         "sunset-based dates may be either day)")
        if self.islamic_adjustment:
            lines.append(f"islamic adjustment: {self.islamic_adjustment:+d} day(s)")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)
