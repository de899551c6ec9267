"""Hebrew calendar, as convertdate.hebrew computes it.

Month numbers are convertdate's: Nisan = 1 … Elul = 6, Tishri = 7 … Adar = 12, and in leap years
Adar I = 12 and Adar II = 13. The year number changes on 1 Tishri, so a year's months run
7, 8, …, 12, (13,) 1, …, 6.
"""

import warnings

from convertdate import hebrew

from .base import Calendar, YearLayout, build_layout, jd_to_ordinal


def _start(year: int, month: int) -> int:
    # convertdate's own to_jd calls its deprecated month_days; the warning is its business, not ours.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return jd_to_ordinal(hebrew.to_jd(year, month, 1))


def is_leap(year: int) -> bool:
    return (7 * year + 1) % 19 < 7


class Hebrew(Calendar):
    name = "hebrew"
    title = "Hebrew"
    aliases = ("hebrew", "jewish", "hebrew calendar", "jewish calendar", "am", "hebraic")
    description = ("Hebrew (Jewish) calendar. Month numbers: Nisan=1, Iyyar=2, Sivan=3, Tammuz=4, Av=5, "
                   "Elul=6, Tishri=7, Heshvan=8, Kislev=9, Teveth=10, Shevat=11, Adar=12 (Adar I in "
                   "leap years), Adar II=13 (leap years only). The year number changes on 1 Tishri.")
    month_names = {1: "Nisan", 2: "Iyyar", 3: "Sivan", 4: "Tammuz", 5: "Av", 6: "Elul", 7: "Tishri",
                   8: "Heshvan", 9: "Kislev", 10: "Teveth", 11: "Shevat", 12: "Adar", 13: "Adar II"}
    month_note = ("Numbered from Nisan (1) although the year number changes on 1 Tishri (7); in leap years "
                  "month 12 is Adar I and month 13 is Adar II.")
    notes_by_month = {12: "called Adar I in leap years", 13: "leap years only (7 of every 19 years)"}
    month_name_variants = {
        "nisan": 1, "nissan": 1, "abib": 1, "aviv": 1,
        "iyyar": 2, "iyar": 2, "ijar": 2, "iyer": 2,
        "sivan": 3, "siwan": 3,
        "tammuz": 4, "tamuz": 4, "tamooz": 4, "tammouz": 4,
        "av": 5, "ab": 5, "menachem av": 5,
        "elul": 6,
        "tishri": 7, "tishrei": 7, "tisri": 7, "tishre": 7, "tishrey": 7,
        "heshvan": 8, "cheshvan": 8, "marcheshvan": 8, "marheshvan": 8, "hesvan": 8, "chesvan": 8,
        "mar cheshvan": 8, "heshwan": 8, "bul": 8,
        "kislev": 9, "kislew": 9, "chislev": 9, "kisleu": 9,
        "teveth": 10, "tevet": 10, "tebeth": 10, "tebet": 10,
        "shevat": 11, "shvat": 11, "sh'vat": 11, "shebat": 11, "sebat": 11,
        "adar": 12, "adar i": 12, "adar 1": 12, "adar rishon": 12, "adar aleph": 12, "adar alef": 12,
        "first adar": 12,
        "adar ii": 13, "adar 2": 13, "veadar": 13, "ve-adar": 13, "adar sheni": 13, "adar bet": 13,
        "adar beth": 13, "second adar": 13, "we-adar": 13,
    }

    def month_name(self, year: int, month: int, is_leap: bool = False) -> str:
        if month == 12 and is_leap_year_safe(year):
            return "Adar I"
        return self.month_names.get(month, str(month))

    def _layout(self, year: int) -> YearLayout:
        order = [7, 8, 9, 10, 11, 12] + ([13] if is_leap(year) else []) + [1, 2, 3, 4, 5, 6]
        starts = [_start(year, m) for m in order] + [_start(year + 1, 7)]
        return build_layout(year, starts[0],
                            [(m, False, starts[i + 1] - starts[i]) for i, m in enumerate(order)])

    def _approx_year(self, ordinal: int) -> int:
        from datetime import date
        return date.fromordinal(ordinal).year + 3760

    def _month_error(self, lay: YearLayout, month: int, leap_flag: bool) -> str:
        if leap_flag:
            return ("the Hebrew calendar has no repeated leap months: in a leap year Adar I is "
                    "month 12 and Adar II is month 13; pass is_leap_month false")
        if month == 13 and len(lay.months) == 12:
            return (f"Hebrew year {lay.year} is not a leap year; months are 1–12 "
                    f"(Adar = 12; Adar II = 13 exists only in leap years)")
        top = len(lay.months)
        kind = "a leap year" if top == 13 else "not a leap year"
        return f"Hebrew year {lay.year} is {kind}; months are 1–{top}, got {month}"


def is_leap_year_safe(year: int) -> bool:
    return isinstance(year, int) and is_leap(year)


CALENDAR = Hebrew()
