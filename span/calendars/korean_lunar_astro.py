"""How the Korean lunar years after KASI's table (2051–2100) were computed, and which months of the
Chinese and Korean calendars depend on the future ΔT. Development only.

The Korean calendar's rule, as for the modern Chinese calendar, evaluated at Korean time (the
Chinese calendar at UTC+8):
* a month starts on the local day of a new moon;
* the month containing the winter solstice (sun's apparent longitude 270°) is month 11;
* when 13 months separate two such months, the first of them that contains no principal solar
  term (longitude a multiple of 30°) is a leap month and repeats the number of the month before.
New moons and solar longitudes come from PyEphem (`ephem`, a test-only dependency: VSOP87 and
ELP-based theories, ΔT extrapolated). Evaluated at UTC+9 this reproduces KASI's table exactly for
every lunar year 1912–2050 (and at UTC+8 for 1899–1911, as KASI's table does);
tests/test_calendars_extra_oracles.py checks both. Nothing in the calendar imports this module;
korean_lunar_table.py holds its output.
"""

from __future__ import annotations

import math
from datetime import date, timedelta

_DEGREES_PER_DAY = 0.98564736  # mean motion of the sun


def _ephem():
    import ephem  # a development dependency, only needed to regenerate the table
    return ephem


def sun_longitude(t) -> float:
    """Apparent geocentric ecliptic longitude of the sun (degrees, equinox of date) at ephem date t."""
    ephem = _ephem()
    sun = ephem.Sun(t)
    ecl = ephem.Ecliptic(ephem.Equatorial(sun.g_ra, sun.g_dec, epoch=t), epoch=t)
    return math.degrees(ecl.lon) % 360


def solar_term(longitude: float, guess: float) -> float:
    """The ephem date near `guess` at which the sun reaches `longitude` (to about 10 ms)."""
    t = float(guess)
    for _ in range(50):
        step = (((longitude - sun_longitude(t)) + 180) % 360 - 180) / _DEGREES_PER_DAY
        t += step
        if abs(step) < 1e-7:
            break
    return t


def new_moons(start: float, end: float) -> list[float]:
    ephem = _ephem()
    out, t = [], float(ephem.next_new_moon(start))
    while t < end:
        out.append(t)
        t = float(ephem.next_new_moon(t + 1))
    return out


def principal_terms(start: float, end: float) -> list[tuple[int, float]]:
    """(longitude, ephem date) of every principal term (multiple of 30°) in [start, end)."""
    out, t = [], float(start)
    k = int(sun_longitude(t) // 30) + 1
    while True:
        target = (k * 30) % 360
        t = solar_term(target, t + ((target - sun_longitude(t)) % 360) / _DEGREES_PER_DAY)
        if t >= end:
            return out
        out.append((target, t))
        t += 1
        k += 1


# ΔT (TT - UT) is measured up to now and only predicted after; PyEphem extrapolates it along a
# parabola (74 s in 2026, 219 s in 2097) while the measured value has stayed at 69-70 s since 2017.
# `lunar_years(..., delta_t=DELTA_T_NOW)` holds it at today's value from PREDICTED_FROM on: the two
# computations bracket the plausible future, and a month whose first day differs between them
# depends on the unknown future rotation of the Earth (span/disputes.py marks it).
DELTA_T_NOW = 69.2  # seconds, IERS, 2024-2025
PREDICTED_FROM = "2025/1/1"


def local_ordinal(t: float, utc_offset_hours: float, delta_t: float | None = None) -> int:
    """The local calendar day of the instant t (an ephem date in PyEphem's UT). With `delta_t`
    (seconds), an instant after PREDICTED_FROM is moved to the UT that this ΔT would give."""
    ephem = _ephem()
    if delta_t is not None and t >= float(ephem.Date(PREDICTED_FROM)):
        t += (ephem.delta_t(ephem.Date(t)) - delta_t) / 86400
    return (ephem.Date(t).datetime() + timedelta(hours=utc_offset_hours)).date().toordinal()


def lunar_years(first: int, last: int, utc_offset_hours: float = 9,
                delta_t: float | None = None) -> dict[int, tuple[int, int, str]]:
    """{lunar year: (ordinal of its New Year, leap month or 0, month lengths '1'=30 '0'=29)}, in the
    format of korean_lunar_table.YEARS, for lunar years first..last. The same rule gives the Chinese
    calendar at utc_offset_hours=8. `delta_t`: see local_ordinal (None = PyEphem's own ΔT)."""
    ephem = _ephem()
    # from the solstice month before the first New Year to the one after the last year ends
    start, end = float(ephem.Date(f"{first - 1}/9/1")), float(ephem.Date(f"{last + 2}/2/1"))
    starts = [local_ordinal(t, utc_offset_hours, delta_t) for t in new_moons(start, end)]
    terms = [(lon, local_ordinal(t, utc_offset_hours, delta_t)) for lon, t in principal_terms(start, end)]

    def has_term(i: int, lon: int | None = None) -> bool:
        return any(starts[i] <= day < starts[i + 1] for x, day in terms if lon is None or x == lon)

    solstice_months = [i for i in range(len(starts) - 1) if has_term(i, 270)]
    labels: dict[int, tuple[int, bool]] = {}
    for a, b in zip(solstice_months, solstice_months[1:]):
        leap_pending = b - a == 13
        labels[a] = (11, False)
        for i in range(a + 1, b):
            if leap_pending and not has_term(i):
                labels[i], leap_pending = (labels[i - 1][0], True), False
            else:
                labels[i] = (labels[i - 1][0] % 12 + 1, False)
    firsts = sorted(i for i, label in labels.items() if label == (1, False))
    years = {}
    for i, j in zip(firsts, firsts[1:]):
        year = date.fromordinal(starts[i]).year
        if first <= year <= last:
            months = [(labels[k], starts[k + 1] - starts[k]) for k in range(i, j)]
            leap = next((number for (number, is_leap), _ in months if is_leap), 0)
            years[year] = (starts[i], leap, "".join("1" if n == 30 else "0" for _, n in months))
    missing = set(range(first, last + 1)) - set(years)
    if missing:
        raise ValueError(f"could not label lunar years {sorted(missing)}")
    return years


def near_midnight(first: int, last: int, minutes: float, utc_offset_hours: float = 9) -> list[tuple[str, str]]:
    """New moons and principal terms within `minutes` of local midnight: the days a small error in
    the ephemeris or in ΔT could move. (kind, local time) pairs."""
    ephem = _ephem()
    start, end = float(ephem.Date(f"{first}/1/1")), float(ephem.Date(f"{last + 1}/1/1"))
    events = [("new moon", t) for t in new_moons(start, end)]
    events += [(f"solar longitude {lon}°", t) for lon, t in principal_terms(start, end)]
    out = []
    for kind, t in sorted(events, key=lambda e: e[1]):
        local = ephem.Date(t).datetime() + timedelta(hours=utc_offset_hours)
        seconds = local.hour * 3600 + local.minute * 60 + local.second
        if min(seconds, 86400 - seconds) <= minutes * 60:
            out.append((kind, local.strftime("%Y-%m-%d %H:%M:%S")))
    return out
