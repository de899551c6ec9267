"""Days whose date in a calendar is disputed: the independent sources genuinely split on it.

span answers every day with one reading: the majority of the calendar's independent sources, or,
where they tie, the reading of the table the calendar module reads. A day is **disputed** when

* the sources tie (as many voices for one reading as for another), or
* (Chinese and Korean lunar) the month it lies in starts on a new moon so close to local midnight
  that the day depends on the future ΔT (the Earth's rotation), which no source can know.

Disputed days exist in three calendars: chinese_lunar (2057, 2097), korean_lunar (2051, 2074, 2096)
and islamic_umm_al_qura (1343–1355 AH, where only two sources exist). span/calendars/sources.py
says how the sources vote and regenerates the table (span/calendars/consensus.py);
span/calendars/ORACLES.md lists every case.

The API is pure and cheap (a bisect): `dispute(calendar, ordinal)` gives the other reading and a
one-line reason, `is_disputed`, `disputed_ranges` and `disputed_days` are for callers (the benchmark
generator) that need to know whether an answer depends on a disputed day.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from .calendars import get_calendar
from .calendars.consensus import DISPUTES
from .dates import CalendarDate

# {canonical calendar: (sorted first ordinals, runs)}: only calendars that have disputed days
_RUNS = {name: (tuple(r[0] for r in runs), runs) for name, runs in DISPUTES.items() if runs}
DISPUTED_CALENDARS: tuple[str, ...] = tuple(_RUNS)


@dataclass(frozen=True)
class Dispute:
    calendar: str
    ordinal: int                       # the day (proleptic Gregorian ordinal)
    other: tuple[int, int, int, bool]  # the other reading of that day: year, month, day, leap
    reason: str                        # one line: why the sources split

    def display(self) -> str:
        """The other reading, written as span writes dates: "2057-9-10", "29 Dhu al-Hijjah 1355"."""
        return get_calendar(self.calendar).format(*self.other)

    def numeric(self) -> str:
        """The other reading as "Y-M-D", a leap month marked ("2074-leap6-30"); span.parse_date reads it."""
        y, m, d, leap = self.other
        return f"{y}-{'leap' if leap else ''}{m}-{d}"

    def as_dict(self) -> dict:
        return {"other": self.numeric(), "reason": self.reason}


def _lookup(calendar: str, ordinal: int) -> Dispute | None:
    """`calendar` must be a canonical name: the hot path of every result."""
    entry = _RUNS.get(calendar)
    if entry is None:
        return None
    firsts, runs = entry
    i = bisect.bisect_right(firsts, ordinal) - 1
    if i < 0:
        return None
    first, last, segments, reason = runs[i]
    if ordinal > last:
        return None
    seg = segments[bisect.bisect_right([s[0] for s in segments], ordinal) - 1]
    start, y, m, d, leap = seg
    return Dispute(calendar, ordinal, (y, m, d + ordinal - start, leap), reason)


def dispute(calendar: str, ordinal: int) -> Dispute | None:
    """The dispute over this day's date in `calendar` (a name or alias), or None."""
    return _lookup(get_calendar(calendar).name, ordinal)


def dispute_of(d: CalendarDate) -> Dispute | None:
    """The dispute over the day `d` names, in `d`'s own calendar, or None."""
    return _lookup(d.calendar, d.ordinal) if d.calendar in _RUNS else None


def other_ordinal(d: CalendarDate) -> int | None:
    """The day the other reading gives the calendar date `d`, where that differs from span's day: e.g.
    Chinese 2057-9-9 is 2057-10-07 in span's reading and 2057-10-06 in the other. None where the
    readings agree on `d`'s day or the other reading has no such date (2057-8-30 has no day there:
    its month 8 is a day shorter); `is_disputed(d.calendar, d.ordinal)` is true in both of those
    last cases too, and is the test of whether an answer depends on a dispute."""
    entry = _RUNS.get(d.calendar)
    if entry is None:
        return None
    want = (d.year, d.month, d.is_leap_month)
    for first, last, segments, _ in entry[1]:
        ends = [s[0] for s in segments[1:]] + [last + 1]
        for (start, y, m, day, leap), end in zip(segments, ends):
            n = start + d.day - day
            if (y, m, leap) == want and start <= n < end:
                return None if n == d.ordinal else n
    return None


def is_disputed(calendar: str, ordinal: int) -> bool:
    return dispute(calendar, ordinal) is not None


def disputed_ranges(calendar: str) -> tuple[tuple[int, int], ...]:
    """(first ordinal, last ordinal) of every run of disputed days in `calendar`, in order."""
    entry = _RUNS.get(get_calendar(calendar).name)
    return tuple((r[0], r[1]) for r in entry[1]) if entry else ()


def disputed_days(calendar: str) -> frozenset[int]:
    """Every disputed day (ordinal) of `calendar`."""
    return frozenset(n for a, b in disputed_ranges(calendar) for n in range(a, b + 1))


__all__ = ["DISPUTED_CALENDARS", "Dispute", "dispute", "dispute_of", "disputed_days", "disputed_ranges",
           "is_disputed", "other_ordinal"]
