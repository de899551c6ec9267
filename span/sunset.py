"""Sunset (and sunrise) by the NOAA solar calculator's algorithm: pure arithmetic, no data, no I/O.

The formulas are those of the NOAA Global Monitoring Laboratory's solar calculator (after Jean Meeus,
Astronomical Algorithms): the Sun's apparent longitude, declination and the equation of time at the
moment of the event, the hour angle for a zenith of 90.833° (the Sun's upper limb on a sea-level
horizon with standard refraction), and one refinement step that recomputes the Sun's position at the
first estimate. NOAA quotes about one minute of accuracy between ±72° latitude; ephem and hdate's
shkia differ from each other by more than that (1.5–3 minutes), so a caller near the moment should
treat the boundary as uncertain (`today` says `near_boundary`).

Longitude is positive east, latitude positive north.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone

ZENITH = 90.833  # degrees: 34' refraction + 16' solar semi-diameter


def _julian_day(d: date) -> float:
    """Julian Day at 0h UT of a Gregorian date."""
    return d.toordinal() + 1721424.5


def _sun(t: float) -> tuple[float, float]:
    """(declination in degrees, equation of time in minutes) at t Julian centuries from J2000.0."""
    l0 = (280.46646 + t * (36000.76983 + t * 0.0003032)) % 360.0
    m = 357.52911 + t * (35999.05029 - 0.0001537 * t)
    e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
    mr = math.radians(m)
    c = (math.sin(mr) * (1.914602 - t * (0.004817 + 0.000014 * t))
         + math.sin(2 * mr) * (0.019993 - 0.000101 * t) + math.sin(3 * mr) * 0.000289)
    omega = math.radians(125.04 - 1934.136 * t)
    apparent = math.radians(l0 + c - 0.00569 - 0.00478 * math.sin(omega))
    seconds = 21.448 - t * (46.8150 + t * (0.00059 - t * 0.001813))
    obliquity = math.radians(23.0 + (26.0 + seconds / 60.0) / 60.0 + 0.00256 * math.cos(omega))
    declination = math.asin(math.sin(obliquity) * math.sin(apparent))
    y = math.tan(obliquity / 2.0) ** 2
    l0r = math.radians(l0)
    eq = (y * math.sin(2 * l0r) - 2 * e * math.sin(mr) + 4 * e * y * math.sin(mr) * math.cos(2 * l0r)
          - 0.5 * y * y * math.sin(4 * l0r) - 1.25 * e * e * math.sin(2 * mr))
    return math.degrees(declination), math.degrees(eq) * 4.0


def _event_minutes(jd: float, latitude: float, longitude: float, rising: bool) -> float | None:
    """Minutes after 0h UT of the day `jd` at which the event happens; None when the Sun does not
    cross the horizon that day (polar day or night)."""
    t = (jd - 2451545.0) / 36525.0
    declination, eq = _sun(t)
    lat, dec = math.radians(latitude), math.radians(declination)
    cos_ha = (math.cos(math.radians(ZENITH)) / (math.cos(lat) * math.cos(dec)) - math.tan(lat) * math.tan(dec))
    if not -1.0 <= cos_ha <= 1.0:
        return None
    ha = math.degrees(math.acos(cos_ha))
    if not rising:
        ha = -ha
    return 720.0 - 4.0 * (longitude + ha) - eq


def solar_event_utc(day: date, latitude: float, longitude: float, rising: bool = False) -> datetime | None:
    """Sunset (or sunrise) for the solar day of `day` at the place, as an aware UTC datetime, or None.

    `day` is the date whose local solar noon the event belongs to (the event can fall on the UTC
    date before or after it far from Greenwich)."""
    if not -90.0 <= latitude <= 90.0 or not -180.0 <= longitude <= 180.0:
        raise ValueError("latitude must be in -90..90 and longitude in -180..180")
    jd = _julian_day(day)
    first = _event_minutes(jd, latitude, longitude, rising)
    if first is None:
        return None
    refined = _event_minutes(jd + first / 1440.0, latitude, longitude, rising)
    if refined is None:
        refined = first
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(minutes=refined)


def sunset_on_local_date(local_day: date, latitude: float, longitude: float, tz) -> datetime | None:
    """The sunset that falls on `local_day` in the time zone `tz` (a tzinfo), as an aware datetime in
    `tz`; None when there is none that day (polar day or night).

    The solar day and the civil day can differ by one far from a zone's meridian (Kiribati's UTC+14 at
    157° W), so the solar days around it are tried and the one whose sunset lies on `local_day` wins."""
    for offset in (0, -1, 1):
        event = solar_event_utc(local_day + timedelta(days=offset), latitude, longitude)
        if event is not None:
            local = event.astimezone(tz)
            if local.date() == local_day:
                return local
    return None


__all__ = ["ZENITH", "solar_event_utc", "sunset_on_local_date"]
