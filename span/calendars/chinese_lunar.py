"""Chinese lunar (lunisolar) calendar, from LunarCalendar's tables, corrected where the majority of
the independent sources says otherwise.

LunarCalendar encodes each lunar year as the Gregorian date of its New Year plus one bit per month
(30 or 29 days) and the number of the leap month, if any. Reading those tables directly gives the
whole year layout at once. Two years of that table (2089, 2097: a month starting a day late) are
outvoted by the other sources (lunar-python, sxtwl, lunardate); consensus.py holds their rows, and
sources.py says how they were voted. Every day 1900–2100 is checked against all of them in the tests.
A leap month follows the regular month of the same number.
"""

from datetime import date

from lunarcalendar.converter import Converter, GetBitInt

from .base import Calendar, YearLayout, build_layout, lunisolar_layout, lunisolar_month_error
from .consensus import CHINESE_LUNAR_YEARS
from ..errors import CalendarError

_FIRST = Converter.lunar_month_days[0]
_LAST = _FIRST + len(Converter.lunar_month_days) - 2


class ChineseLunar(Calendar):
    name = "chinese_lunar"
    title = "Chinese lunar"
    aliases = ("chinese_lunar", "chinese lunar", "lunar", "chinese", "nongli", "nong li", "yinli",
               "chinese lunisolar", "lunisolar", "china", "chinese calendar", "lunar calendar")
    has_leap_months = True
    numeric_display = True
    month_note = ("In some years a leap month follows month N and repeats its number (named 'Leap Month N', "
                  "written 'Y-leapN-D'): pass month=N with is_lunar_leap_month=true.")
    description = ("Chinese lunar (lunisolar) calendar, the reading of the majority of independent sources "
                   "(LunarCalendar/borax, lunardate, lunar-python, sxtwl); dates written Y-M-D "
                   "with the lunar year number equal to the Gregorian year in which its New Year falls. "
                   "A leap month repeats the number of the month before it: pass is_lunar_leap_month=true "
                   "for it; written '2023-leap2-15'.")

    def month_name(self, year: int, month: int, is_leap: bool = False) -> str:
        return f"{'Leap ' if is_leap else ''}Month {month}"

    def _layout(self, year: int) -> YearLayout:
        row = CHINESE_LUNAR_YEARS.get(year)
        if row is None:
            return self.raw_layout(year)
        start, leap, bits = row
        return lunisolar_layout(year, start, leap, bits)

    def raw_layout(self, year: int) -> YearLayout:
        """The year as LunarCalendar's table has it (before the majority's corrections)."""
        if not _FIRST <= year <= _LAST:
            raise CalendarError(f"Chinese lunar year {year} is outside LunarCalendar's tables "
                                f"({_FIRST}–{_LAST})")
        bits = Converter.lunar_month_days[year - _FIRST]
        leap = GetBitInt(bits, 4, 13)
        s11 = Converter.solar_1_1[year - Converter.solar_1_1[0]]
        start = date(GetBitInt(s11, 12, 9), GetBitInt(s11, 4, 5), GetBitInt(s11, 5, 0)).toordinal()
        months = []
        for i in range(13 if leap else 12):
            length = 30 if GetBitInt(bits, 1, 12 - i) == 1 else 29
            if leap and i == leap:
                months.append((leap, True, length))
            else:
                months.append((i + 1 if (not leap or i < leap) else i, False, length))
        return build_layout(year, start, months)

    def _approx_year(self, ordinal: int) -> int:
        return date.fromordinal(ordinal).year

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return lunisolar_month_error(self.title, lay, month, is_leap)


CALENDAR = ChineseLunar()
