"""Republic of China (Minguo, 民國) calendar, Taiwan's official calendar: Gregorian months and days,
year = Gregorian year - 1911 (民國114年 = 2025).

Before 1912 the year is counted backwards in the era "Before Minguo" (民國前): 1911 = Before Minguo 1,
1900 = Before Minguo 12 — ICU's `roc` calendar (era B.R.O.C.) and twdate do the same; there is no
year 0. A date without era is a Minguo date (year 114 = Minguo 114), except that a four-digit year is
the Gregorian year (2025 = Minguo 114): no Minguo year in range has four digits. The calendar's
continuous year (its layouts) is the Gregorian year; dates carry `era` and the year counted in it.
Checked day by day against ICU's `roc` calendar and twdate (tests/test_calendars_official_oracles.py).
"""

from datetime import date

from . import gregorian
from .base import MAX_ORDINAL, MIN_ORDINAL, Era, YearLayout

OFFSET = 1911
_MINGUO_FIRST = date(1912, 1, 1).toordinal()

ERAS = (
    Era("Before Minguo", MIN_ORDINAL, _MINGUO_FIRST - 1, OFFSET,
        ("民國前", "民国前", "before roc", "broc", "b.r.o.c.", "before republic of china", "qian minguo",
         "before minguo"), counts_down=True),
    Era("Minguo", _MINGUO_FIRST, MAX_ORDINAL, OFFSET + 1,
        ("民國", "民国", "roc", "republic of china", "minguo", "min guo", "mingguo", "taiwan")),
)


class ROC(gregorian.Gregorian):  # the Gregorian year's layout; eras on top
    name = "roc"
    title = "ROC (Minguo)"
    aliases = ("roc", "minguo", "min guo", "republic of china", "taiwan", "taiwanese",
               "roc calendar", "minguo calendar", "taiwan calendar")
    numeric_display = True
    eras = ERAS
    default_era = "Minguo"
    month_note = ("Gregorian months and days; year = Gregorian year - 1911 (era Minguo, the default). "
                  "Before 1912 give era 'Before Minguo' (民國前): 1911 = Before Minguo 1. Without era a "
                  "four-digit year is the Gregorian year.")
    description = ("Republic of China (Minguo, Taiwan) calendar: Gregorian months and days, year = Gregorian "
                   "year - 1911 (Minguo 114 = 2025); before 1912 the era Before Minguo counts back "
                   "(1911 = Before Minguo 1). Written 'Minguo 114-5-1'.")

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return f"the ROC calendar has months 1–12 (the Gregorian months); got month {month}"


CALENDAR = ROC()
