"""Persian (Solar Hijri) calendar, astronomical, as convertdate.persian computes it.

convertdate finds the vernal equinox at Tehran on every call (milliseconds each), so the start of
each year (1 Farvardin) comes from a table computed once with convertdate (persian_nowruz.py);
years outside the table fall back to convertdate itself. Months 1–6 have 31 days, 7–11 have 30,
Esfand has 29 or 30 (whatever is left until the next Nowruz).
"""

import sys

from convertdate import persian

from .base import Calendar, YearLayout, build_layout, jd_to_ordinal
from .persian_nowruz import FIRST_YEAR, NOWRUZ_ORDINALS


def compute_nowruz(year: int) -> int:
    return jd_to_ordinal(persian.to_jd(year, 1, 1))


def nowruz(year: int) -> int:
    i = year - FIRST_YEAR
    if 0 <= i < len(NOWRUZ_ORDINALS):
        return NOWRUZ_ORDINALS[i]
    return compute_nowruz(year)


class Persian(Calendar):
    name = "persian"
    title = "Persian"
    aliases = ("persian", "solar hijri", "jalali", "shamsi", "iranian", "solar hijri calendar",
               "hijri shamsi", "afghan", "sh", "ap", "farsi")
    description = ("Persian Solar Hijri calendar (astronomical, as convertdate): the year starts on the "
                   "day of the March equinox at Tehran (Nowruz); months 1–6 have 31 days, 7–11 have 30, "
                   "Esfand 29 or 30.")
    month_names = {1: "Farvardin", 2: "Ordibehesht", 3: "Khordad", 4: "Tir", 5: "Mordad",
                   6: "Shahrivar", 7: "Mehr", 8: "Aban", 9: "Azar", 10: "Dey", 11: "Bahman",
                   12: "Esfand"}
    month_name_variants = {
        "farvardin": 1, "farwardin": 1, "farvadin": 1,
        "ordibehesht": 2, "ordibehest": 2, "ardibehesht": 2, "urdibihisht": 2,
        "khordad": 3, "khordaad": 3, "xordad": 3, "khurdad": 3,
        "tir": 4, "teer": 4,
        "mordad": 5, "amordad": 5, "murdad": 5, "mordaad": 5,
        "shahrivar": 6, "shahriwar": 6, "shahrewar": 6,
        "mehr": 7, "mihr": 7, "mehre": 7,
        "aban": 8, "aabaan": 8, "abaan": 8,
        "azar": 9, "adhar": 9, "azer": 9, "aazar": 9,
        "dey": 10, "dei": 10, "day": 10,
        "bahman": 11,
        "esfand": 12, "esfând": 12, "isfand": 12, "esfandarmaz": 12, "espand": 12,
    }

    def _layout(self, year: int) -> YearLayout:
        start, end = nowruz(year), nowruz(year + 1)
        lengths = [31] * 6 + [30] * 5
        lengths.append(end - start - sum(lengths))
        return build_layout(year, start, [(m, False, n) for m, n in enumerate(lengths, 1)])

    def _approx_year(self, ordinal: int) -> int:
        from datetime import date
        return date.fromordinal(ordinal).year - 621


def _regenerate(path: str, first: int = 1270, last: int = 1490) -> None:
    rows = [compute_nowruz(y) for y in range(first, last + 1)]
    with open(path, "w") as f:
        f.write('"""Day numbers (proleptic Gregorian ordinals) of 1 Farvardin, Solar Hijri years '
                f'{first}-{last}.\n\nComputed once with convertdate.persian.to_jd (astronomical vernal '
                'equinox at Tehran), because\nconvertdate recomputes the equinox on every call (~18 ms). '
                'tests/test_calendar_oracles.py checks\nevery entry against convertdate again. '
                'Regenerate: python -m span.calendars.persian --regenerate\n"""\n\n')
        f.write(f"FIRST_YEAR = {first}\n\nNOWRUZ_ORDINALS = (\n")
        for i in range(0, len(rows), 8):
            f.write("    " + ", ".join(map(str, rows[i:i + 8])) + ",\n")
        f.write(")\n")


CALENDAR = Persian()

if __name__ == "__main__" and "--regenerate" in sys.argv:
    import os
    _regenerate(os.path.join(os.path.dirname(__file__), "persian_nowruz.py"))
