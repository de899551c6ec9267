"""Thai solar calendar, Buddhist era (พุทธศักราช, BE): Gregorian months and days, BE = CE + 543.

Since 1941 the Thai year begins on 1 January and BE = CE + 543. Before, it began on 1 April: BE 2483
was shortened to April–December 1940 so that BE 2484 could begin on 1 January 1941. So January–March
of 1900–1940 belong to the BE year that began the April before: 15 January 1930 is 15 January 2472
(CE + 542), not 2473. **span follows that historical reckoning** (what Thai documents of the time
wrote, and what the 1940 act defines); the proleptic reading (CE + 543 for every day, as ICU's
`buddhist` calendar and most software compute it) is the calendar `thai_buddhist_proleptic`. The
two differ only on 1 January – 31 March of 1900–1940. (Before 1912 Thailand counted years in the
Rattanakosin era, RS = CE - 1781, with the same April new year; span gives those days in BE as the
later convention would.) BE 2483 has months 4–12 only.

Month numbers are the Gregorian ones (1 = January = Mokarakhom); the year's months run 4…12, 1…3
before 1941. Checked day by day against ICU's `buddhist` calendar and the thaidate package
(tests/test_calendars_official_oracles.py).
"""

from datetime import date

from . import gregorian
from .base import Calendar, YearLayout, build_layout

OFFSET = 543
LAST_APRIL_YEAR = 2483   # BE 2483 = 1 April … 31 December 1940
THAI_MONTHS = {1: "Mokarakhom", 2: "Kumphaphan", 3: "Minakhom", 4: "Mesayon", 5: "Phruetsaphakhom",
               6: "Mithunayon", 7: "Karakadakhom", 8: "Singhakhom", 9: "Kanyayon", 10: "Tulakhom",
               11: "Phruetsachikayon", 12: "Thanwakhom"}
THAI_SCRIPT = {1: "มกราคม", 2: "กุมภาพันธ์", 3: "มีนาคม", 4: "เมษายน", 5: "พฤษภาคม", 6: "มิถุนายน",
               7: "กรกฎาคม", 8: "สิงหาคม", 9: "กันยายน", 10: "ตุลาคม", 11: "พฤศจิกายน", 12: "ธันวาคม"}


def _gregorian_months(g: int) -> list[tuple[int, bool, int]]:
    return gregorian.months(gregorian.is_leap(g))


class ThaiBuddhist(Calendar):
    name = "thai_buddhist"
    title = "Thai Buddhist era"
    aliases = ("thai_buddhist", "thai", "thailand", "buddhist", "buddhist era", "thai solar",
               "thai buddhist era", "thai calendar", "phutthasakkarat", "suriyakati")
    numeric_display = True
    month_names = gregorian.Gregorian.month_names
    month_name_variants = {**gregorian.Gregorian.month_name_variants,
                           **{v: k for k, v in THAI_MONTHS.items()}, **{v: k for k, v in THAI_SCRIPT.items()}}
    month_note = ("Gregorian months (1 = January = Mokarakhom). Before 1941 the year began on 1 April, so "
                  "January–March 1900–1940 are CE + 542 and BE 2483 has months 4–12 only "
                  "(thai_buddhist_proleptic: CE + 543 throughout, as ICU).")
    description = ("Thai solar calendar, Buddhist era: Gregorian months and days, BE = CE + 543 (2025 = "
                   "BE 2568). Historical reckoning: before 1941 the year began on 1 April, so January–March "
                   "1900–1940 are CE + 542 (15 January 1930 = 2472-1-15). Written '2568-5-1'.")

    def _layout(self, year: int) -> YearLayout:
        g = year - OFFSET
        if year > LAST_APRIL_YEAR:
            return build_layout(year, date(g, 1, 1).toordinal(), _gregorian_months(g))
        months = _gregorian_months(g)[3:]
        if year < LAST_APRIL_YEAR:
            months += _gregorian_months(g + 1)[:3]
        return build_layout(year, date(g, 4, 1).toordinal(), months)

    def _approx_year(self, ordinal: int) -> int:
        return date.fromordinal(ordinal).year + OFFSET

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        if lay.year == LAST_APRIL_YEAR and 1 <= month <= 3:
            return (f"Thai BE {LAST_APRIL_YEAR} ran from 1 April to 31 December 1940 (months 4–12): month "
                    f"{month} does not exist; January–March 1940 are BE 2482, January–March 1941 BE 2484")
        return f"the Thai calendar has months 1–12 (the Gregorian months); got month {month}"


class ThaiBuddhistProleptic(ThaiBuddhist):
    name = "thai_buddhist_proleptic"
    title = "Thai Buddhist era (proleptic)"
    aliases = ("thai_buddhist_proleptic", "buddhist proleptic", "icu buddhist", "thai proleptic")
    month_note = "Gregorian months (1 = January = Mokarakhom); BE = CE + 543 on every day."
    description = ("Thai Buddhist era counted proleptically, BE = CE + 543 on every day (as ICU's buddhist "
                   "calendar); differs from thai_buddhist only in January–March 1900–1940.")

    def _layout(self, year: int) -> YearLayout:
        g = year - OFFSET
        return build_layout(year, date(g, 1, 1).toordinal(), _gregorian_months(g))

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return f"the Thai calendar has months 1–12 (the Gregorian months); got month {month}"


CALENDAR = ThaiBuddhist()
PROLEPTIC = ThaiBuddhistProleptic()
