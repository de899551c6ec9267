"""Typed results (pydantic): what the MCP tools return and publish as their output schema."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .calendars import CALENDAR_NAMES
from .dates import CalendarDate


class DateInfo(BaseModel):
    calendar: str = Field(description=f"canonical calendar name, one of {', '.join(CALENDAR_NAMES)}")
    year: int
    month: int = Field(description="month number in that calendar (Hebrew: Nisan=1 … Tishri=7 … Adar II=13)")
    day: int
    is_leap_month: bool = Field(description="true only for a Chinese lunar leap month")
    month_name: str
    display: str = Field(description='how the date is written, e.g. "1 Tammuz 5725", "2025-7-1", "2023-leap2-15"')
    numeric: str = Field(description='"Y-M-D" with integer fields, as the paper\'s search_calendar returns')

    @classmethod
    def of(cls, d: CalendarDate) -> "DateInfo":
        return cls(calendar=d.calendar, year=d.year, month=d.month, day=d.day,
                   is_leap_month=d.is_leap_month, month_name=d.month_name(), display=d.display(),
                   numeric=d.numeric())


class FestivalInfo(BaseModel):
    name: str
    calendar: str
    rule: str


class CrossCalendarEntry(BaseModel):
    gregorian: DateInfo
    chinese_lunar: DateInfo
    islamic: DateInfo = Field(description="arithmetic (tabular) Islamic calendar, not Umm al-Qura")
    hebrew: DateInfo
    shaka: DateInfo
    persian: DateInfo
    weekday: str
    festival: FestivalInfo | None = None

    @classmethod
    def of(cls, d: CalendarDate, festival=None) -> "CrossCalendarEntry":
        fields = {name: DateInfo.of(d.to(name)) for name in CALENDAR_NAMES}
        fest = (FestivalInfo(name=festival.name, calendar=festival.calendar, rule=festival.rule)
                if festival is not None else None)
        return cls(**fields, weekday=d.weekday(), festival=fest)


class Shift(BaseModel):
    days: int = 0
    weeks: int = 0
    months: int = 0
    years: int = 0


class ShiftResult(BaseModel):
    start: DateInfo
    shift: Shift
    result: CrossCalendarEntry
    clamped: bool = Field(description="true when the day did not exist in the target month and was reduced")
    note: str | None = None


class DifferenceResult(BaseModel):
    start: DateInfo
    end: DateInfo
    days: int = Field(description="end minus start, in days (negative when end is earlier)")
    weeks: int = Field(description="whole weeks in |days|, signed like days")
    remainder_days: int = Field(description="days left after the whole weeks, signed like days")
