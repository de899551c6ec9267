"""Indian national (Shaka / Saka) calendar, as convertdate.indian_civil computes it.

Month lengths are derived from day-number differences, not from convertdate's `month_length`,
which tests the wrong year for Chaitra's leap day.
"""

from convertdate import indian_civil

from .base import Calendar, YearLayout, build_layout, jd_to_ordinal


def _start(year: int, month: int) -> int:
    return jd_to_ordinal(indian_civil.to_jd(year, month, 1))


class Shaka(Calendar):
    name = "shaka"
    title = "Shaka"
    aliases = ("shaka", "saka", "indian", "indian civil", "indian national", "indian national calendar",
               "shaka samvat", "saka era", "indian_civil")
    description = ("Indian national (Shaka) calendar: year starts on 22 March (21 in Gregorian leap "
                   "years); Chaitra has 30 days (31 in leap years), months 2–6 have 31, 7–12 have 30.")
    month_names = {1: "Chaitra", 2: "Vaishakha", 3: "Jyeshtha", 4: "Ashadha", 5: "Shravana",
                   6: "Bhadrapada", 7: "Ashwin", 8: "Kartika", 9: "Margashirsha", 10: "Pausha",
                   11: "Magha", 12: "Phalguna"}
    month_name_variants = {
        "chaitra": 1, "caitra": 1, "chaitr": 1,
        "vaishakha": 2, "vaisakha": 2, "vaishakh": 2, "baisakh": 2, "vaishaka": 2, "vaisakh": 2,
        "jyeshtha": 3, "jyaistha": 3, "jyaishtha": 3, "jyeshta": 3, "jyestha": 3, "jeth": 3,
        "ashadha": 4, "asadha": 4, "ashadh": 4, "aashaadha": 4, "asharh": 4,
        "shravana": 5, "sravana": 5, "shravan": 5, "sawan": 5, "sravan": 5,
        "bhadrapada": 6, "bhadra": 6, "bhadrapad": 6, "bhadon": 6, "bhaadrapada": 6,
        "ashwin": 7, "asvina": 7, "ashvin": 7, "ashwina": 7, "asvin": 7, "ashvina": 7,
        "kartika": 8, "kartik": 8, "karttika": 8,
        "margashirsha": 9, "agrahayana": 9, "margasirsa": 9, "margashirsh": 9, "aghan": 9,
        "margashirsa": 9,
        "pausha": 10, "pausa": 10, "paush": 10, "pous": 10, "pausa masa": 10,
        "magha": 11, "magh": 11,
        "phalguna": 12, "phalgun": 12, "falgun": 12,
    }

    def _layout(self, year: int) -> YearLayout:
        starts = [_start(year, m) for m in range(1, 13)] + [_start(year + 1, 1)]
        return build_layout(year, starts[0],
                            [(m, False, starts[m] - starts[m - 1]) for m in range(1, 13)])

    def _approx_year(self, ordinal: int) -> int:
        from datetime import date
        return date.fromordinal(ordinal).year - 78


CALENDAR = Shaka()
