"""Umm al-Qura calendar: Saudi Arabia's official (civil) Hijri calendar, from hijridate's table
(corrected in the one month where ICU and the `ummalqura` package outvote it).

Months do not follow a rule that can be computed exactly here: each month's first day is read
from the table that hijridate ships (1 Muharram 1343 … 30 Dhu al-Hijjah 1500 AH = Gregorian
1924-08-01 … 2077-11-16, the years published by the Umm al-Qura calendar authority). Outside that
range there is no Umm al-Qura date, and asking for one is a CalendarError naming the range.
See ORACLES.md for how this table compares with ICU's and the `ummalqura` package's.
Month numbers and names are the Islamic calendar's (Muharram = 1 … Dhu al-Hijjah = 12).
"""

import bisect

from hijridate import ummalqura

from .base import Calendar, YearLayout, build_layout
from .consensus import UMM_AL_QURA_MONTH_STARTS
from .islamic import Islamic
from ..errors import CalendarError

# hijridate counts days as Julian Day Numbers minus 2,400,000.
_ORDINAL_OFFSET = 2_400_000 - 1_721_425
_RAW_STARTS = tuple(n + _ORDINAL_OFFSET for n in ummalqura.MONTH_STARTS)
FIRST_YEAR = ummalqura.HIJRI_RANGE[0][0]
LAST_YEAR = ummalqura.HIJRI_RANGE[1][0]
assert len(_RAW_STARTS) == (LAST_YEAR - FIRST_YEAR + 1) * 12 + 1
# Where the other two sources (ICU, the `ummalqura` package) agree against hijridate, the majority
# wins (consensus.py; ORACLES.md): one month, Shawwal 1485 AH.
_STARTS = tuple(UMM_AL_QURA_MONTH_STARTS.get((FIRST_YEAR + i // 12, i % 12 + 1), n)
                for i, n in enumerate(_RAW_STARTS))


class IslamicUmmAlQura(Calendar):
    name = "islamic_umm_al_qura"
    title = "Umm al-Qura"
    aliases = ("islamic_umm_al_qura", "umm al-qura", "umm al qura", "ummalqura", "umm alqura", "umalqura",
               "um al-qura", "um al qura", "hijri_umalqura", "hijri umm al-qura", "islamic umalqura",
               "islamic-umalqura", "islamic umm al-qura", "saudi", "saudi hijri", "hijri saudi",
               "umm al-qura hijri")
    min_ordinal = _STARTS[0]
    max_ordinal = _STARTS[-1] - 1
    description = ("Umm al-Qura calendar, Saudi Arabia's civil Hijri calendar, from the published table "
                   "(as shipped by hijridate): 1 Muharram 1343 … 30 Dhu al-Hijjah 1500 AH = Gregorian "
                   "1924-08-01 … 2077-11-16. Month numbers as in the Islamic calendar (Muharram=1 … "
                   "Dhu al-Hijjah=12). Usually one day ahead of the tabular Islamic calendar, sometimes "
                   "two, sometimes one behind.")
    month_names = Islamic.month_names
    month_name_variants = Islamic.month_name_variants

    def _layout(self, year: int, starts: tuple[int, ...] = _STARTS) -> YearLayout:
        if not FIRST_YEAR <= year <= LAST_YEAR:
            raise CalendarError(f"Umm al-Qura year {year} is outside the published table "
                                f"({FIRST_YEAR}–{LAST_YEAR} AH)")
        i = (year - FIRST_YEAR) * 12
        s = starts[i:i + 13]
        return build_layout(year, s[0], [(m, False, s[m] - s[m - 1]) for m in range(1, 13)])

    def raw_layout(self, year: int) -> YearLayout:
        """The year as hijridate's table has it (before the majority's correction)."""
        return self._layout(year, _RAW_STARTS)

    def _approx_year(self, ordinal: int) -> int:
        i = bisect.bisect_right(_STARTS, ordinal) - 1
        return min(max(FIRST_YEAR + i // 12, FIRST_YEAR), LAST_YEAR)


CALENDAR = IslamicUmmAlQura()
