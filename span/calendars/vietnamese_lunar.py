"""Vietnamese lunar (lunisolar) calendar, âm lịch: the Chinese rule reckoned at Vietnam's time, UTC+7.

The rule is the modern Chinese calendar's: a month starts on the local day of a new moon, the month
holding the winter solstice is month 11, and in a 13-month year the first month without a principal
solar term is the leap month, repeating the number of the month before it. Vietnam has reckoned it
at UTC+7 since 1968; China reckons at UTC+8, so a new moon between 23:00 and midnight Vietnam time
starts the Vietnamese month a day *earlier* than the Chinese one (Tết 1985 was 1985-01-21 in Vietnam,
Chinese New Year 1985-02-20: the leap month differs), and the calendars differ on 2,844 days in
1901–2099.

**Convention before 1968.** North Vietnam adopted UTC+7 for the calendar in 1968 (its Tết 1968 was
29 January; the South kept the Chinese UTC+8 reckoning, Tết on 30 January, until 1975). span applies
UTC+7 to the whole range 1900–2100, as Hồ Ngọc Đức's tables and the lunar-vn package do; for the
UTC+8 reading of an earlier date use `chinese_lunar`. ORACLES.md lists where the two differ.

Lunar years 1899–2100 are in vietnamese_lunar_table.py, computed by korean_lunar_astro.py (PyEphem)
at UTC+7. Checked day by day against lunar-vn and vnlunar (Hồ Ngọc Đức's algorithm; one voice: the two
agree on every day); three months whose new moon falls within two minutes of Vietnam midnight
split the two (1944-06-20, 2072-12-09, 2077-11-15) and are marked disputed (consensus.py).
"""

import sys
from .table_lunisolar import TableLunisolar
from .vietnamese_lunar_table import FIRST_YEAR, YEARS
UTC_OFFSET = 7


class VietnameseLunar(TableLunisolar):
    name = "vietnamese_lunar"
    title = "Vietnamese lunar"
    aliases = ("vietnamese_lunar", "vietnamese lunar", "vietnamese", "vietnam", "am lich", "amlich",
               "vietnamese lunisolar", "vietnamese calendar", "vietnamese lunar calendar", "lich am")
    first_year, years = FIRST_YEAR, YEARS
    month_note = ("In some years a leap month follows month N and repeats its number (named 'Leap Month N', "
                  "written 'Y-leapN-D'): pass month=N with is_lunar_leap_month=true. Reckoned at UTC+7: a month "
                  "can start a day earlier than the Chinese one, and a leap month can differ (Tết 1985 = "
                  "1985-01-21, Chinese New Year 1985-02-20).")
    description = ("Vietnamese lunar (lunisolar) calendar, âm lịch: the Chinese rule reckoned at UTC+7 (Vietnam "
                   "since 1968; span applies it to 1900–2100), dates written Y-M-D with the lunar year number "
                   "equal to the Gregorian year of its Tết. Some months start a day earlier than the Chinese "
                   "ones and leap months can differ. A leap month repeats the number of the month before it: "
                   "pass is_lunar_leap_month=true; written '2023-leap2-15'.")


def _regenerate(path: str, first: int = 1899, last: int = 2100) -> None:
    """Rewrite vietnamese_lunar_table.py with korean_lunar_astro's rule at UTC+7 (needs `ephem`)."""
    from .korean_lunar_astro import lunar_years

    rows = lunar_years(first, last, utc_offset_hours=UTC_OFFSET)
    with open(path, "w") as f:
        f.write(f'"""Vietnamese lunar years {first}–{last}, computed by korean_lunar_astro.py (PyEphem 4.2.1) '
                f'at UTC+{UTC_OFFSET}.\n\n'
                "Each row: (ordinal of 1st day of month 1, leap month number or 0, month lengths in order\n"
                "with the leap month after its regular month, '1' = 30 days, '0' = 29). Checked day by day\n"
                "against lunar-vn and vnlunar in tests/test_calendars_official_oracles.py.\n"
                'Regenerate: python -m span_toolkit.span.calendars.vietnamese_lunar --regenerate\n"""\n\n')
        f.write(f"FIRST_YEAR = {first}\n\nYEARS = (\n")
        for y in range(first, last + 1):
            f.write(f"    {rows[y]!r},\n")
        f.write(")\n")


CALENDAR = VietnameseLunar()

if __name__ == "__main__" and "--regenerate" in sys.argv:
    import os
    _regenerate(os.path.join(os.path.dirname(__file__), "vietnamese_lunar_table.py"))
