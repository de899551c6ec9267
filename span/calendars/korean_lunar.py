"""Korean lunar (lunisolar) calendar, as the Korea Astronomy and Space Science Institute (KASI)
publishes it, continued to 2100 by the same rule.

The Korean calendar has the Chinese calendar's rules but reckons new moons and solar terms at
Korean standard time (UTC+9) instead of Beijing's UTC+8, so a new moon between midnight and
1 a.m. in Korea starts the month one day later than in China (Chinese New Year 1997 and 2028 fell
on 7 and 26 January, Seollal on 8 and 27 January), and leap months can differ (2012, 2017).
Each lunar year is read from korean_lunar_table.py: lunar years 1899–2050 are KASI's data (as
packaged on PyPI, `korean-lunar-calendar`); KASI publishes nothing later, so 2051–2100 were
computed with that rule at UTC+9 (korean_lunar_astro.py), which reproduces KASI's own table for
every year 1912–2050. Two of those computed months hang on a new moon within two minutes of
midnight and so on the unknown future ΔT (ORACLES.md).
A leap month follows the regular month of the same number (written '2023-leap2-15').
"""

import sys
from datetime import date
from .table_lunisolar import TableLunisolar
from .korean_lunar_table import FIRST_YEAR, YEARS


class KoreanLunar(TableLunisolar):
    name = "korean_lunar"
    title = "Korean lunar"
    aliases = ("korean_lunar", "korean lunar", "korean", "korea", "dangi", "eumnyeok", "eumryeok",
               "korean lunisolar", "korean calendar", "korean lunar calendar")
    first_year, years = FIRST_YEAR, YEARS
    month_note = ("In some years a leap month follows month N and repeats its number (named 'Leap Month N', "
                  "written 'Y-leapN-D'): pass month=N with is_lunar_leap_month=true. Reckoned at Korean time "
                  "(KASI): a month can start a day later than the Chinese one, and a leap month can differ.")
    description = ("Korean lunar (lunisolar) calendar as published by KASI (Korea Astronomy and Space "
                   "Science Institute) to 2050, computed by the same rule for 2051–2100; dates written "
                   "Y-M-D with the lunar year number equal to the Gregorian year of its New Year "
                   "(Seollal). Same rules as the Chinese lunar calendar but reckoned at Korean time, so "
                   "some months start a day later and leap months can differ. A leap month repeats the "
                   "number of the month before it: pass is_lunar_leap_month=true; written '2023-leap2-15'.")


def _regenerate(path: str, first: int = 1899, last_kasi: int = 2050, last: int = 2100) -> None:
    """Rewrite korean_lunar_table.py: KASI's years from korean-lunar-calendar, the later ones computed
    by korean_lunar_astro (needs the development-only packages korean-lunar-calendar and ephem)."""
    from korean_lunar_calendar import KoreanLunarCalendar

    from .korean_lunar_astro import lunar_years

    k = KoreanLunarCalendar()
    # The package validates public calls against its published window (to lunar 2050-11-18), so
    # the lengths of the last two months of 2050 are read from its data words directly.
    days = k._KoreanLunarCalendar__getLunarDays
    leap_of = k._KoreanLunarCalendar__getLunarIntercalationMonth
    data = k._KoreanLunarCalendar__getLunarData
    rows = []
    for y in range(first, last_kasi + 1):
        assert k.setLunarDate(y, 1, 1, False)
        start = date(k.solarYear, k.solarMonth, k.solarDay).toordinal()
        leap = leap_of(data(y))
        bits = ""
        for m in range(1, 13):
            bits += "1" if days(y, m, False) == 30 else "0"
            if m == leap:
                bits += "1" if days(y, m, True) == 30 else "0"
        rows.append((start, leap, bits))
    computed = lunar_years(last_kasi + 1, last)
    rows += [computed[y] for y in range(last_kasi + 1, last + 1)]
    with open(path, "w") as f:
        f.write(f'"""Korean lunar years {first}–{last}: {first}–{last_kasi} from KASI\'s data (PyPI '
                f'korean-lunar-calendar 0.4.0),\n{last_kasi + 1}–{last} computed by korean_lunar_astro.py '
                "(PyEphem 4.2.1, Korean time UTC+9).\n\n"
                "Each row: (ordinal of 1st day of month 1, leap month number or 0, month lengths in order\n"
                "with the leap month after its regular month, '1' = 30 days, '0' = 29). Checked day by day\n"
                "against korean-lunar-calendar, ICU's dangi calendar and a recomputation in\n"
                "tests/test_calendars_extra_oracles.py. "
                'Regenerate: python -m span.calendars.korean_lunar --regenerate\n"""\n\n')
        f.write(f"FIRST_YEAR = {first}\nLAST_KASI_YEAR = {last_kasi}\n\nYEARS = (\n")
        for row in rows:
            f.write(f"    {row!r},\n")
        f.write(")\n")


CALENDAR = KoreanLunar()

if __name__ == "__main__" and "--regenerate" in sys.argv:
    import os
    _regenerate(os.path.join(os.path.dirname(__file__), "korean_lunar_table.py"))
