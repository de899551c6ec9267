"""Arithmetic (tabular) Islamic calendar, as convertdate.islamic computes it (the SPAN paper's choice).

This is not Saudi Arabia's Umm al-Qura calendar, which differs by a day on most days.
"""

from convertdate import islamic

from .base import Calendar, YearLayout, build_layout, jd_to_ordinal

_EPOCH = jd_to_ordinal(islamic.to_jd(1, 1, 1))


def _start(year: int, month: int) -> int:
    return jd_to_ordinal(islamic.to_jd(year, month, 1))


class Islamic(Calendar):
    name = "islamic"
    title = "Islamic"
    aliases = ("islamic", "hijri", "muslim", "arabic", "ah", "islamic tabular", "tabular islamic",
               "arithmetic islamic", "lunar hijri")
    description = ("Arithmetic (tabular) Islamic calendar as in convertdate: months alternate 30/29 "
                   "days, Dhu al-Hijjah has 30 days in the 11 leap years of each 30-year cycle. "
                   "Not the Umm al-Qura calendar.")
    month_names = {1: "Muharram", 2: "Safar", 3: "Rabi al-Awwal", 4: "Rabi al-Thani",
                   5: "Jumada al-Awwal", 6: "Jumada al-Thani", 7: "Rajab", 8: "Shaban",
                   9: "Ramadan", 10: "Shawwal", 11: "Dhu al-Qidah", 12: "Dhu al-Hijjah"}
    month_name_variants = {
        "muharram": 1, "moharram": 1, "muharam": 1,
        "safar": 2, "safar al-muzaffar": 2,
        "rabi al-awwal": 3, "rabi' al-awwal": 3, "rabi i": 3, "rabi' i": 3, "rabi ul awwal": 3,
        "rabi al-awal": 3, "rabi al-ula": 3, "rabi ul-awwal": 3, "rabia al-awwal": 3,
        "rabi al-thani": 4, "rabi al-akhir": 4, "rabi' al-thani": 4, "rabi' al-akhir": 4,
        "rabi ii": 4, "rabi' ii": 4, "rabi ul akhir": 4, "rabi ul-akhir": 4, "rabi al-sani": 4,
        "rabi ath-thani": 4, "rabi us-sani": 4,
        "jumada al-awwal": 5, "jumada al-ula": 5, "jumada i": 5, "jumada al-oola": 5,
        "jumada ul-awwal": 5, "jumada al-awal": 5, "jumadil awal": 5,
        "jumada al-thani": 6, "jumada al-akhir": 6, "jumada al-akhirah": 6, "jumada ii": 6,
        "jumada al-ukhra": 6, "jumada ul-akhir": 6, "jumada al-sani": 6, "jumadil akhir": 6,
        "rajab": 7, "shaban": 8, "sha'ban": 8, "shaaban": 8, "sha'aban": 8,
        "ramadan": 9, "ramazan": 9, "ramadhan": 9,
        "shawwal": 10, "shawal": 10,
        "dhu al-qidah": 11, "dhu al-qi'dah": 11, "dhu al-qa'dah": 11, "dhu al-qadah": 11,
        "dhul qadah": 11, "dhul-qadah": 11, "dhu'l-qa'da": 11, "zul qadah": 11, "dhu al-qa'da": 11,
        "dhu al-qiddah": 11, "dhul qida": 11, "dhul-qi'dah": 11,
        "dhu al-hijjah": 12, "dhu al-hijja": 12, "dhul hijjah": 12, "dhul-hijjah": 12,
        "dhu'l-hijja": 12, "zul hijjah": 12, "zulhijjah": 12, "dhu al hijjah": 12,
    }

    def _layout(self, year: int) -> YearLayout:
        starts = [_start(year, m) for m in range(1, 13)] + [_start(year + 1, 1)]
        return build_layout(year, starts[0],
                            [(m, False, starts[m] - starts[m - 1]) for m in range(1, 13)])

    def _approx_year(self, ordinal: int) -> int:
        return int((ordinal - _EPOCH) / 354.36667) + 1


CALENDAR = Islamic()
