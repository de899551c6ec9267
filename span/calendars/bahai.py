"""Bahá'í (Badí') calendar: 19 months of 19 days and the intercalary days Ayyám-i-Há.

The year begins at Naw-Rúz. Since Badí' 172 (2015) Naw-Rúz is the day on which the March equinox
falls, days running from sunset to sunset in Tehran (the Universal House of Justice, 2014); the
Bahá'í World Centre publishes the resulting dates for 2015–2064 (Naw-Rúz on 20 or 21 March), which
this module reads. 2065–2101 were computed by the same rule (PyEphem 4.2.1: the equinox against the
standard sunset at Tehran, 35.6944 N 51.4215 E; the nearest call is 2092, 13 minutes) and agree with
convertdate and badidatetime. Before 2015 the Bahá'ís of the West kept Naw-Rúz on 21 March
(Gregorian-fixed): Ayyám-i-Há then ran 26 February – 1 March (4 days, 5 in Gregorian leap years).
span reads that rule for Badí' 56–171 (convertdate and badidatetime apply the astronomical rule to
those years too; ORACLES.md says where that differs). Note 2026: the equinox falls seconds before
sunset in Tehran by PyEphem's sunset, but the World Centre's table (and convertdate, badidatetime)
say 21 March; span reads the table.

Months are numbered 1 (Bahá) … 18 (Mulk), 0 = Ayyám-i-Há (4 or 5 days), 19 (ʻAlá, the month of
fasting), in that order; a date is written "1 Bahá 182". The year number is the Badí' era (BE):
Naw-Rúz 2025 began Badí' 182. Every day of the range is checked against convertdate, badidatetime
and the published rule (tests/test_calendars_official_oracles.py).
"""

from datetime import date

from .base import Calendar, YearLayout, build_layout

EPOCH_YEAR = 1843          # Badí' year 1 began on Naw-Rúz 1844: Gregorian year of Naw-Rúz = year + 1843
FIRST_ASTRONOMICAL = 2015  # the first Naw-Rúz fixed by the Tehran equinox rule
AYYAM_I_HA = 0

# Naw-Rúz (day of March) by Gregorian year. The Bahá'í World Centre's table, 2015–2064:
BWC_NAW_RUZ = {
    2015: 21, 2016: 20, 2017: 20, 2018: 21, 2019: 21, 2020: 20, 2021: 20, 2022: 21, 2023: 21, 2024: 20,
    2025: 20, 2026: 21, 2027: 21, 2028: 20, 2029: 20, 2030: 20, 2031: 21, 2032: 20, 2033: 20, 2034: 20,
    2035: 21, 2036: 20, 2037: 20, 2038: 20, 2039: 21, 2040: 20, 2041: 20, 2042: 20, 2043: 21, 2044: 20,
    2045: 20, 2046: 20, 2047: 21, 2048: 20, 2049: 20, 2050: 20, 2051: 21, 2052: 20, 2053: 20, 2054: 20,
    2055: 21, 2056: 20, 2057: 20, 2058: 20, 2059: 20, 2060: 20, 2061: 20, 2062: 20, 2063: 20, 2064: 20,
}
# The same rule computed (PyEphem), 2065–2101:
COMPUTED_NAW_RUZ = {
    2065: 20, 2066: 20, 2067: 20, 2068: 20, 2069: 20, 2070: 20, 2071: 20, 2072: 20, 2073: 20, 2074: 20,
    2075: 20, 2076: 20, 2077: 20, 2078: 20, 2079: 20, 2080: 20, 2081: 20, 2082: 20, 2083: 20, 2084: 20,
    2085: 20, 2086: 20, 2087: 20, 2088: 20, 2089: 20, 2090: 20, 2091: 20, 2092: 19, 2093: 20, 2094: 20,
    2095: 20, 2096: 19, 2097: 20, 2098: 20, 2099: 20, 2100: 20, 2101: 21,
}
NAW_RUZ = {**BWC_NAW_RUZ, **COMPUTED_NAW_RUZ}

MONTH_NAMES = {1: "Bahá", 2: "Jalál", 3: "Jamál", 4: "ʻAẓamat", 5: "Núr", 6: "Raḥmat", 7: "Kalimát",
               8: "Kamál", 9: "Asmáʼ", 10: "ʻIzzat", 11: "Mashíyyat", 12: "ʻIlm", 13: "Qudrat", 14: "Qawl",
               15: "Masáʼil", 16: "Sharaf", 17: "Sulṭán", 18: "Mulk", 0: "Ayyám-i-Há", 19: "ʻAlá"}
_ENGLISH = {1: ("Splendour", "Splendor"), 2: ("Glory",), 3: ("Beauty",), 4: ("Grandeur",), 5: ("Light",),
            6: ("Mercy",), 7: ("Words",), 8: ("Perfection",), 9: ("Names",), 10: ("Might",), 11: ("Will",),
            12: ("Knowledge",), 13: ("Power",), 14: ("Speech",), 15: ("Questions",), 16: ("Honour", "Honor"),
            17: ("Sovereignty",), 18: ("Dominion",), 19: ("Loftiness",),
            0: ("Ayyam-i-Ha", "Ayyam i Ha", "Ayyamiha", "Days of Ha", "Intercalary Days")}
_ASCII = {1: "Baha", 2: "Jalal", 3: "Jamal", 4: "Azamat", 5: "Nur", 6: "Rahmat", 7: "Kalimat", 8: "Kamal",
          9: "Asma", 10: "Izzat", 11: "Mashiyyat", 12: "Ilm", 13: "Qudrat", 14: "Qawl", 15: "Masail",
          16: "Sharaf", 17: "Sultan", 18: "Mulk", 19: "Ala"}


def naw_ruz(gregorian_year: int) -> int:
    """Ordinal of Naw-Rúz in a Gregorian year."""
    return date(gregorian_year, 3, NAW_RUZ.get(gregorian_year, 21) if gregorian_year >= FIRST_ASTRONOMICAL
                else 21).toordinal()


class Bahai(Calendar):
    name = "bahai"
    title = "Bahá'í"
    day_starts_at_sunset = True  # days run sunset to sunset: `today` with day_starts "sunset" rolls it (span.today)
    aliases = ("bahai", "baha'i", "badi", "badi calendar", "bahai calendar", "baha'i calendar", "badi era")
    month_names = MONTH_NAMES
    month_name_variants = {**{n: m for m, names in _ENGLISH.items() for n in names},
                           **{n: m for m, n in _ASCII.items()}}
    month_note = ("19 months of 19 days: 1 Bahá … 18 Mulk, then month 0 = Ayyám-i-Há (4 or 5 intercalary days), "
                  "then 19 ʻAlá (the fast). The year begins at Naw-Rúz: 21 March before 2015, since then the day "
                  "of the March equinox in Tehran (20 or 21 March).")
    notes_by_month = {0: "intercalary days, 4 or 5", 19: "the month of fasting"}
    description = ("Bahá'í (Badí') calendar: 19 months of 19 days plus Ayyám-i-Há (month 0, 4–5 days, before "
                   "the 19th month); year 1 began at Naw-Rúz 1844 (Naw-Rúz 2025 = 1 Bahá 182). Naw-Rúz is 21 "
                   "March before 2015, the day of the March equinox in Tehran since (Bahá'í World Centre "
                   "table). Dates written '1 Bahá 182'.")

    def _layout(self, year: int) -> YearLayout:
        g = year + EPOCH_YEAR
        start, end = naw_ruz(g), naw_ruz(g + 1)
        months = [(m, False, 19) for m in range(1, 19)]
        months += [(AYYAM_I_HA, False, end - start - 19 * 19), (19, False, 19)]
        return build_layout(year, start, months)

    def _approx_year(self, ordinal: int) -> int:
        return date.fromordinal(ordinal).year - EPOCH_YEAR

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        return (f"Bahá'í months are 1–19 (1 Bahá … 18 Mulk, 19 ʻAlá) and 0 = Ayyám-i-Há; got month {month}")


CALENDAR = Bahai()
