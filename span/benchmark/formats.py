"""Written date formats for reference dates (the ``--date-formats`` option).

The families follow the DateAugBench paper (date-fragments-paper.txt): ISO, year-first with slashes or
dots, D/M/Y and M/D/Y with slashes or dashes, compact digit strings (YYYYMMDD, DDMMYYYY, MMDDYYYY) and
month-name forms ("1st July 1960", "July 1st, 1960"). "paper" is the SPAN paper's own form
(``CalendarDate.display()``: "1960-7-1", "1 Tammuz 5725", "2023-leap2-15").

Which families a calendar gets:
* Gregorian: every family.
* a calendar written numerically (Chinese lunar, ...; Calendar.numeric_display): the numeric families. A leap month is written "leap" before the
  month number ("2023-leap02-15", "15/leap02/2023"); compact digit forms cannot mark it and are skipped.
* a calendar written with month names (Hebrew, Islamic, Persian, Shaka, ...; their month numbers are not
  common knowledge, e.g. Hebrew Nisan = 1 but Tishri starts the year): the month-name families.

A family whose day/month order a reader cannot tell from the string alone carries its pattern in the
question, after the quoted date: ``"01/07/1960" (DD/MM/YYYY)``. Without that a question about July 1
would have two right answers. ISO and the other year-first delimited forms are read Y-M-D by convention
and carry no note.

``render(date, family)`` returns the text or None when the family does not apply to that date;
``parse(text, note, calendar)`` reads any rendering back and returns (date, family), exactly: a parse is
accepted only if rendering the date in that family gives the same text back.
"""

from __future__ import annotations

import re

from ..calendars import ALL_CALENDAR_NAMES, get_calendar
from ..dates import CalendarDate
from ..errors import CalendarError
from ..textforms import month_number

PAPER = "paper"

# family -> (kind, note or None)
FAMILIES: dict[str, tuple[str, str | None]] = {
    "paper": ("paper", None),
    "iso": ("numeric", None),
    "ymd_slash": ("numeric", None),
    "ymd_dot": ("numeric", None),
    "dmy_slash": ("numeric", "DD/MM/YYYY"),
    "mdy_slash": ("numeric", "MM/DD/YYYY"),
    "dmy_dash": ("numeric", "DD-MM-YYYY"),
    "compact_ymd": ("compact", "YYYYMMDD"),
    "compact_dmy": ("compact", "DDMMYYYY"),
    "compact_mdy": ("compact", "MMDDYYYY"),
    "day_month_name": ("name", None),            # 1 July 1960 (the paper form of month-name calendars)
    "ordinal_day_month_name": ("name", None),    # 1st July 1960
    "month_name_day": ("name", None),            # July 1, 1960
    "month_name_ordinal_day": ("name", None),    # July 1st, 1960
}
NOTE_TO_FAMILY = {note: fam for fam, (_, note) in FAMILIES.items() if note}

_NUMERIC = ("iso", "ymd_slash", "ymd_dot", "dmy_slash", "mdy_slash", "dmy_dash",
            "compact_ymd", "compact_dmy", "compact_mdy")
_NAMES = ("ordinal_day_month_name", "month_name_day", "month_name_ordinal_day")

# The order is the order variants are emitted in, and the order parse() tries unannotated families:
# when two families render a date identically (e.g. "paper" and "iso" for 1975-12-15) only the first
# is emitted, and parse() finds that same first one.
def _calendar_families(name: str) -> tuple[str, ...]:
    """Gregorian: every family; a calendar written numerically (Chinese lunar, …): the numeric ones; a
    calendar written with month names (Hebrew, Islamic, Persian, Shaka, …): the month-name ones."""
    if name == "gregorian":
        return ("paper", *_NUMERIC, "day_month_name", *_NAMES)
    return ("paper", *(_NUMERIC if get_calendar(name).numeric_display else _NAMES))


CALENDAR_FAMILIES: dict[str, tuple[str, ...]] = {name: _calendar_families(name) for name in ALL_CALENDAR_NAMES}
ALL_FAMILIES = tuple(FAMILIES)


def note_of(family: str) -> str | None:
    return FAMILIES[family][1]


def ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def render(d: CalendarDate, family: str) -> str | None:
    """The reference-date text in `family`, or None if the family does not apply to this date."""
    if family == PAPER:
        return d.display()
    if family not in FAMILIES:
        raise ValueError(f"unknown date format family {family!r}; valid: {', '.join(FAMILIES)}")
    if family not in CALENDAR_FAMILIES[d.calendar]:
        return None
    kind = FAMILIES[family][0]
    y, m, dd = f"{d.year:04d}", f"{d.month:02d}", f"{d.day:02d}"
    if kind == "compact":
        if d.is_leap_month:
            return None
        return {"compact_ymd": y + m + dd, "compact_dmy": dd + m + y, "compact_mdy": m + dd + y}[family]
    if kind == "numeric":
        if d.is_leap_month:
            m = "leap" + m
        return {"iso": f"{y}-{m}-{dd}", "ymd_slash": f"{y}/{m}/{dd}", "ymd_dot": f"{y}.{m}.{dd}",
                "dmy_slash": f"{dd}/{m}/{y}", "mdy_slash": f"{m}/{dd}/{y}",
                "dmy_dash": f"{dd}-{m}-{y}"}[family]
    name = d.month_name()
    return {"day_month_name": f"{d.day} {name} {d.year}",
            "ordinal_day_month_name": f"{d.day}{ordinal_suffix(d.day)} {name} {d.year}",
            "month_name_day": f"{name} {d.day}, {d.year}",
            "month_name_ordinal_day": f"{name} {d.day}{ordinal_suffix(d.day)}, {d.year}"}[family]


def variants(d: CalendarDate) -> list[tuple[str, str]]:
    """Every distinct (family, text) for a date, paper form first; a text equal to an earlier one is dropped."""
    out, seen = [], set()
    for fam in CALENDAR_FAMILIES[d.calendar]:
        text = render(d, fam)
        if text is None:
            continue
        key = (text, note_of(fam))
        if key in seen:
            continue
        seen.add(key)
        out.append((fam, text))
    return out


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

_DELIM = re.compile(r"^(?P<a>(?:leap)?\d{1,4})(?P<sep>[-/.])(?P<b>(?:leap)?\d{1,4})(?P=sep)(?P<c>(?:leap)?\d{1,4})$")
_COMPACT = re.compile(r"^\d{8}$")
_DAY_FIRST = re.compile(r"^(?P<d>\d{1,2})(?P<suf>st|nd|rd|th)? (?P<mon>.+?) (?P<y>\d{1,4})$")
_MONTH_FIRST = re.compile(r"^(?P<mon>.+?) (?P<d>\d{1,2})(?P<suf>st|nd|rd|th)?, (?P<y>\d{1,4})$")

_ORDER = {"iso": "ymd", "ymd_slash": "ymd", "ymd_dot": "ymd", "dmy_slash": "dmy", "mdy_slash": "mdy",
          "dmy_dash": "dmy", "compact_ymd": "ymd", "compact_dmy": "dmy", "compact_mdy": "mdy"}


def _candidate(text: str, calendar: str, family: str) -> CalendarDate | None:
    """Read `text` as `family` (None if it does not have that shape or is not a valid date)."""
    try:
        if family == PAPER:
            return _candidate_paper(text, calendar)
        kind = FAMILIES[family][0]
        if kind == "compact":
            if not _COMPACT.match(text):
                return None
            parts = {"ymd": (text[:4], text[4:6], text[6:]), "dmy": (text[4:], text[2:4], text[:2]),
                     "mdy": (text[4:], text[:2], text[2:4])}[_ORDER[family]]
            return CalendarDate.create(calendar, int(parts[0]), int(parts[1]), int(parts[2]))
        if kind == "numeric":
            m = _DELIM.match(text)
            if not m:
                return None
            a, b, c = m.group("a"), m.group("b"), m.group("c")
            y, mo, d = {"ymd": (a, b, c), "dmy": (c, b, a), "mdy": (c, a, b)}[_ORDER[family]]
            if y.startswith("leap") or d.startswith("leap"):
                return None
            leap = mo.startswith("leap")
            return CalendarDate.create(calendar, int(y), int(mo.removeprefix("leap")), int(d), leap)
        m = (_DAY_FIRST if family in ("day_month_name", "ordinal_day_month_name") else _MONTH_FIRST).match(text)
        if not m:
            return None
        number = month_number(m.group("mon"), calendar)
        if number is None:
            return None
        return CalendarDate.create(calendar, int(m.group("y")), number, int(m.group("d")))
    except CalendarError:
        return None


def _candidate_paper(text: str, calendar: str) -> CalendarDate | None:
    cal = get_calendar(calendar)
    if cal.numeric_display:
        m = re.match(r"^(\d{1,4})-(leap)?(\d{1,2})-(\d{1,2})$", text)
        if not m:
            return None
        return CalendarDate.create(cal.name, int(m.group(1)), int(m.group(3)), int(m.group(4)), bool(m.group(2)))
    m = _DAY_FIRST.match(text)
    if not m or m.group("suf"):
        return None
    number = month_number(m.group("mon"), cal.name)
    if number is None:
        return None
    return CalendarDate.create(cal.name, int(m.group("y")), number, int(m.group("d")))


def parse(text: str, note: str | None, calendar: str) -> tuple[CalendarDate, str]:
    """Read a reference date as the generator writes it; return (date, family).

    `note` is the pattern given after the quoted date ("DD/MM/YYYY") or None.
    Raises CalendarError when the text is no rendering of any family for that calendar.
    """
    cal = get_calendar(calendar).name
    if note is not None:
        fam = NOTE_TO_FAMILY.get(note)
        if fam is None or fam not in CALENDAR_FAMILIES[cal]:
            raise CalendarError(f"unknown date format note ({note}) for the {get_calendar(cal).title} calendar")
        candidates = (fam,)
    else:
        candidates = tuple(f for f in CALENDAR_FAMILIES[cal] if note_of(f) is None)
    for fam in candidates:
        d = _candidate(text, cal, fam)
        if d is not None and render(d, fam) == text:
            return d, fam
    raise CalendarError(f"cannot read {text!r} as a {get_calendar(cal).title} date in any generated format")
