"""What the date is now (or at a given instant) in any calendars, for a time zone and, where the day
starts at sunset (Hebrew, Islamic), for a place.

Pure: the caller resolves the time zone and the clock (`server.tools.today` reads them) and hands in an
aware datetime. With `day_starts="sunset"` and a place, the calendars whose day begins at sunset show
the next day from the local sunset on (computed by span.sunset, NOAA's algorithm); `near_boundary` is
true within NEAR_MINUTES of it, where independent computations (ephem; hdate's shkia) differ by
1.5–3 minutes and the answer may be either day.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from .adjustment import check_adjustment, is_islamic, view
from .calendars import MAX_ORDINAL, MIN_ORDINAL, get_calendar
from .dates import WEEKDAYS
from .errors import CalendarError
from .models import DateInfo, TodayResult
from .sunset import sunset_on_local_date

NEAR_MINUTES = 5
DAY_STARTS = ("midnight", "sunset")


def starts_at_sunset(calendar: str) -> bool:
    """Calendars whose day begins at sunset: Hebrew, the Islamic ones, and any calendar that says so
    (`day_starts_at_sunset = True` on its class, e.g. Bahá'í)."""
    cal = get_calendar(calendar)
    return cal.name == "hebrew" or is_islamic(cal.name) or bool(getattr(cal, "day_starts_at_sunset", False))


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def today(local: datetime, targets, zone_name: str, latitude: float | None = None,
          longitude: float | None = None, day_starts: str = "midnight", islamic_adjustment: int = 0,
          note: str | None = None) -> TodayResult:
    """The date at the aware datetime `local` (in the zone named `zone_name`) in each target calendar."""
    if local.tzinfo is None or local.utcoffset() is None:
        raise CalendarError("today needs an aware datetime (a time zone)")
    if day_starts not in DAY_STARTS:
        raise CalendarError(f"day_starts must be 'midnight' or 'sunset', got {day_starts!r:.40}")
    if (latitude is None) != (longitude is None):
        raise CalendarError("give both latitude and longitude (degrees, north and east positive), or neither")
    if day_starts == "sunset" and latitude is None:
        raise CalendarError("day_starts 'sunset' needs the place: give latitude and longitude (degrees, north and "
                            "east positive), e.g. Jerusalem 31.78, 35.23")
    adj = check_adjustment(islamic_adjustment)
    day = local.date()
    n = day.toordinal()
    if not MIN_ORDINAL <= n <= MAX_ORDINAL:
        raise CalendarError(f"local date {day.isoformat()} is outside the supported range "
                            f"(Gregorian 1900-01-01 … 2100-12-31)")
    sunset = None
    after = False
    near = False
    notes = [note] if note else []
    if latitude is not None:
        sunset = sunset_on_local_date(day, latitude, longitude, local.tzinfo)
        if sunset is None:
            notes.append("no sunset at this place on this date (polar day or night): the day does not roll")
        else:
            after = local >= sunset
            near = abs((local - sunset).total_seconds()) <= NEAR_MINUTES * 60
    roll = day_starts == "sunset" and after
    dates: dict[str, DateInfo] = {}
    rolled = []
    for name in targets:
        m = n
        if roll and starts_at_sunset(name):
            m = n + 1
            rolled.append(name)
            if m > MAX_ORDINAL:
                raise CalendarError("after sunset on 2100-12-31 the next day is outside the supported range")
        dates[name] = DateInfo.of(view(name, m, adj))
    if day_starts == "sunset" and not rolled and sunset is not None and not after:
        notes.append(f"before sunset: the sunset-based dates roll at {sunset.strftime('%H:%M')}")
    return TodayResult(
        timezone=zone_name, local_time=_iso(local), utc=_iso(local.astimezone(timezone.utc)).replace("+00:00", "Z"),
        dates=dates, weekday=WEEKDAYS[day.weekday()], day_starts=day_starts,
        sunset=None if sunset is None else _iso(sunset), rolled=rolled or None,
        near_boundary=near and (day_starts == "sunset" or latitude is not None),
        islamic_adjustment=adj or None, note="; ".join(notes) or None)


__all__ = ["DAY_STARTS", "NEAR_MINUTES", "starts_at_sunset", "today"]
