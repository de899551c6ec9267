"""A lunisolar calendar of the Chinese kind read from a table of lunar years (each year's first day, its
leap month, its month lengths): the Korean and Vietnamese calendars, whose tables were computed by the same
new-moon/solar-term rule at their own time zones. A subclass names its table and its words."""

from datetime import date

from .base import Calendar, YearLayout, lunisolar_layout, lunisolar_month_error
from ..errors import CalendarError


class TableLunisolar(Calendar):
    has_leap_months = True
    numeric_display = True
    first_year: int              # the table's first lunar year
    years: tuple                 # per year: (first day's ordinal, leap month or 0, month lengths)

    @property
    def last_year(self) -> int:
        return self.first_year + len(self.years) - 1

    def month_name(self, year: int, month: int, is_leap: bool = False) -> str:
        return f"{'Leap ' if is_leap else ''}Month {month}"

    def _layout(self, year: int) -> YearLayout:
        if not self.first_year <= year <= self.last_year:
            raise CalendarError(f"{self.title} year {year} is outside the table ({self.first_year}–{self.last_year})")
        start, leap, lengths = self.years[year - self.first_year]
        return lunisolar_layout(year, start, leap, lengths)

    def _approx_year(self, ordinal: int) -> int:
        return min(max(date.fromordinal(ordinal).year, self.first_year), self.last_year)

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return lunisolar_month_error(self.title, lay, month, is_leap)
