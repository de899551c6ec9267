"""Coptic (Alexandrian) calendar, era of the Martyrs (Anno Martyrum, AM).

Twelve months of 30 days and a 13th of 5 days (6 in a leap year). A year is a leap year when
year % 4 == 3, so the leap day (6 Pi Kogi Enavot) falls just before a Julian leap year begins
and 1 Thout stays on Julian 29 August, or 30 August after a leap year: Gregorian 11 September,
or 12 September in the year before a Julian leap year (1900–2099). 1 Thout 1 AM = Julian 29 August 284.
The Ethiopian calendar is the same arithmetic with another epoch (see ethiopian.py).
"""

from . import julian
from .base import Calendar, YearLayout, build_layout
from ..errors import CalendarError


class Alexandrian(Calendar):
    """Twelve 30-day months and a short 13th; what the Coptic and Ethiopian calendars share."""

    epoch: int = 0  # ordinal of 1st day of month 1 of year 1
    notes_by_month = {13: "5 days, 6 in a leap year (year % 4 == 3)"}

    def is_leap(self, year: int) -> bool:
        return year % 4 == 3

    def new_year(self, year: int) -> int:
        return self.epoch + 365 * (year - 1) + year // 4

    def _layout(self, year: int) -> YearLayout:
        months = [(m, False, 30) for m in range(1, 13)]
        months.append((13, False, 6 if self.is_leap(year) else 5))
        return build_layout(year, self.new_year(year), months)

    def _approx_year(self, ordinal: int) -> int:
        return int((ordinal - self.epoch) / 365.25) + 1

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return (f"the {self.title} calendar has months 1–13 ({self.month_names[1]}–{self.month_names[13]}; "
                f"month 13 has 5 days, 6 in a leap year); got month {month}")

    def validate(self, year: int, month: int, day: int, is_leap: bool = False) -> int:
        # Say why the 6th day of the short month is missing, rather than only its length.
        if month == 13 and day == 6 and isinstance(year, int) and not isinstance(year, bool) \
                and self.min_year <= year <= self.max_year and not self.is_leap(year):
            raise CalendarError(
                f"{self.title} year {year} is not a leap year: {self.month_names[13]} (month 13) has 5 days "
                f"(6 only in leap years, year % 4 == 3, e.g. {year + (3 - year % 4)}); day 6 does not exist")
        return super().validate(year, month, day, is_leap)


class Coptic(Alexandrian):
    name = "coptic"
    title = "Coptic"
    aliases = ("coptic", "alexandrian", "coptic orthodox", "anno martyrum", "era of martyrs",
               "egyptian coptic", "coptic calendar")
    epoch = julian.new_year(284) + 241  # Julian 29 August 284 (284 is a Julian leap year)
    month_note = "12 months of 30 days, then month 13 (5 days, 6 in a leap year (year % 4 == 3))."
    description = ("Coptic calendar (era of the Martyrs, AM): 12 months of 30 days (Thout=1 … Mesori=12) "
                   "and Pi Kogi Enavot (Nasie) = 13 with 5 days, 6 in leap years (year % 4 == 3). "
                   "1 Thout = Gregorian 11 September (12 September before a Gregorian leap year, "
                   "1900–2098, and in 2099).")
    month_names = {1: "Thout", 2: "Paopi", 3: "Hathor", 4: "Koiak", 5: "Tobi", 6: "Meshir",
                   7: "Paremhat", 8: "Parmouti", 9: "Pashons", 10: "Paoni", 11: "Epip", 12: "Mesori",
                   13: "Pi Kogi Enavot"}
    month_name_variants = {
        "thout": 1, "tout": 1, "thoout": 1, "tut": 1, "thoth": 1, "toot": 1,
        "paopi": 2, "baba": 2, "paope": 2, "phaophi": 2, "babah": 2, "paophi": 2,
        "hathor": 3, "hator": 3, "hatour": 3, "hatur": 3, "athyr": 3, "hathour": 3, "hatoor": 3,
        "koiak": 4, "kiahk": 4, "kiyahk": 4, "khoiak": 4, "choiak": 4, "kiahak": 4, "koiahk": 4,
        "kiyak": 4, "khoiakh": 4,
        "tobi": 5, "toba": 5, "tubah": 5, "tybi": 5, "tooba": 5, "touba": 5,
        "meshir": 6, "amshir": 6, "mechir": 6, "emshir": 6, "mekhir": 6, "amsheer": 6,
        "paremhat": 7, "baramhat": 7, "phamenoth": 7, "parmhotep": 7, "baramhaat": 7,
        "parmouti": 8, "baramouda": 8, "pharmuthi": 8, "barmouda": 8, "paremoude": 8, "parmoute": 8,
        "pashons": 9, "bashans": 9, "pachons": 9, "pashans": 9, "bashens": 9,
        "paoni": 10, "paona": 10, "baouna": 10, "payni": 10, "ba'una": 10, "baoona": 10,
        "epip": 11, "epep": 11, "abib": 11, "epiphi": 11, "apip": 11, "ebib": 11,
        "mesori": 12, "mesra": 12, "misra": 12, "mesore": 12, "mesre": 12,
        "pi kogi enavot": 13, "nasie": 13, "nasi": 13, "nesi": 13, "el nasi": 13, "nasii": 13,
        "kouji nabot": 13, "pikogi enavot": 13, "epagomenae": 13, "epagomene": 13, "little month": 13,
    }


CALENDAR = Coptic()
