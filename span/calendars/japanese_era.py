"""Japanese era calendar (wareki, 和暦): Gregorian months and days, years counted in eras.

Japan has used the Gregorian calendar since 1873 (Meiji 6); the year is written as the era name and
the year in it, year 1 (元年, gannen) running from the era's first day to 31 December. An era
changes on the day the new one begins, mid-year: Meiji → Taishō 1912-07-30, → Shōwa 1926-12-25,
→ Heisei 1989-01-08 (Shōwa 64 lasted seven days, 1–7 January), → Reiwa 2019-05-01. So Heisei 31
is 1 January … 30 April 2019 and Reiwa 1 is 1 May … 31 December 2019, and one Gregorian year can
hold two era years. Reiwa continues to the end of span's window (2100 = Reiwa 82), as in ICU.

The calendar's continuous year (its layouts, `from_ordinal`) is the Gregorian year; dates carry
`era` and the year in the era (span.dates.CalendarDate). Checked day by day against ICU's `japanese`
calendar and japanera (tests/test_calendars_official_oracles.py).
"""

from datetime import date

from . import gregorian
from .base import MAX_ORDINAL, MIN_ORDINAL, Era, YearLayout


def _era(name, first, year_one, aliases, began=""):
    return Era(name, max(date.fromisoformat(first).toordinal(), MIN_ORDINAL), 0, year_one, tuple(aliases), False,
               began)


_STARTS = (
    _era("Meiji", "1868-10-23", 1868, ("明治", "meiji", "M"), "1868-10-23 (Gregorian; the lunisolar calendar "
         "was used until Meiji 5)"),
    _era("Taishō", "1912-07-30", 1912, ("大正", "taisho", "taishou", "taisyo", "T")),
    _era("Shōwa", "1926-12-25", 1926, ("昭和", "showa", "shouwa", "syowa", "S")),
    _era("Heisei", "1989-01-08", 1989, ("平成", "heisei", "H")),
    _era("Reiwa", "2019-05-01", 2019, ("令和", "reiwa", "R")),
)
# each era ends the day before the next begins; Reiwa at the end of span's window
ERAS = tuple(Era(e.name, e.first, (_STARTS[i + 1].first - 1) if i + 1 < len(_STARTS) else MAX_ORDINAL,
                 e.year_one, e.aliases, e.counts_down, e.began) for i, e in enumerate(_STARTS))


class JapaneseEra(gregorian.Gregorian):  # the Gregorian year's layout; eras on top
    name = "japanese_era"
    title = "Japanese era"
    aliases = ("japanese_era", "japanese", "japan", "wareki", "nengo", "japanese imperial",
               "japanese era calendar", "japanese calendar")
    numeric_display = True
    eras = ERAS
    default_era = None
    month_name_variants = {**gregorian.Gregorian.month_name_variants,
                           **{f"{m}月": m for m in range(1, 13)}}
    month_note = ("Gregorian months and days; give era (Meiji, Taishō, Shōwa, Heisei, Reiwa; 明治 大正 昭和 平成 令和) "
                  "and the year in it (元年 = 1), or no era and the Gregorian year. Eras begin 1912-07-30 "
                  "(Taishō), 1926-12-25 (Shōwa), 1989-01-08 (Heisei), 2019-05-01 (Reiwa).")
    description = ("Japanese era calendar (wareki): Gregorian months and days, years counted in the eras "
                   "Meiji, Taishō, Shōwa, Heisei and Reiwa; year 1 (元年) runs from the era's first day. "
                   "Dates are written 'Reiwa 7-5-1' and carry era beside year.")

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return f"the Japanese era calendar has months 1–12 (the Gregorian months); got month {month}"


CALENDAR = JapaneseEra()
