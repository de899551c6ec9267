"""The DateAugBench written forms of a Gregorian date, for any year 1..9999 (proleptic Gregorian,
``datetime.date``): rendering, the pattern note a reader needs, and reading a form back.

The calendar core works inside 1900-2100 (the window every calendar shares); this family's dates run
from 1600 to 2600, so its forms are rendered from ``datetime.date`` directly, with the same spellings as
``span.benchmark.formats`` where a form exists there.

A form whose day/month/year order a reader cannot tell from the string carries its pattern after the
quoted date ('"03/14/2025" (MM/DD/YYYY)'); ISO and the other year-first delimited forms and the
month-name forms need none. The ambiguous option drops the note from the slash forms ("5/4/2025"): both
readings are then valid and the gold lists each reading's answer.
"""

from __future__ import annotations

import re
from datetime import date

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
MONTH_ABBR = {m[:3].lower(): i for i, m in enumerate(MONTHS, 1)} | {"sept": 9}
MONTH_NUMBER = {m.lower(): i for i, m in enumerate(MONTHS, 1)} | MONTH_ABBR

# name -> (pattern note or None, example for 2025-03-04)
FORMATS: dict[str, tuple[str | None, str]] = {
    "iso": (None, "2025-03-04"),
    "ymd_slash": (None, "2025/03/04"),
    "ymd_dot": (None, "2025.03.04"),
    "dmy_slash": ("DD/MM/YYYY", "04/03/2025"),
    "mdy_slash": ("MM/DD/YYYY", "03/04/2025"),
    "dmy_dash": ("DD-MM-YYYY", "04-03-2025"),
    "dmy_dot": ("DD.MM.YYYY", "04.03.2025"),
    "mdy_minimal": ("M/D/YYYY", "3/4/2025"),
    "dmy_minimal": ("D/M/YYYY", "4/3/2025"),
    "compact_ymd": ("YYYYMMDD", "20250304"),
    "compact_dmy": ("DDMMYYYY", "04032025"),
    "compact_mdy": ("MMDDYYYY", "03042025"),
    "day_month_name": (None, "4 March 2025"),
    "month_name_day": (None, "March 4, 2025"),
    "month_name_ordinal_day": (None, "March 4th, 2025"),
    "ordinal_day_month_name": (None, "4th March 2025"),
}
NOTE_TO_FORMAT = {note: name for name, (note, _) in FORMATS.items() if note}
# day/month/year order of the numeric forms
ORDER = {"iso": "ymd", "ymd_slash": "ymd", "ymd_dot": "ymd", "dmy_slash": "dmy", "mdy_slash": "mdy",
         "dmy_dash": "dmy", "dmy_dot": "dmy", "mdy_minimal": "mdy", "dmy_minimal": "dmy",
         "compact_ymd": "ymd", "compact_dmy": "dmy", "compact_mdy": "mdy"}
# the forms that can be written without their note as an ambiguous string (the other order is the
# form in the same tuple)
AMBIGUOUS_TWIN = {"dmy_slash": "mdy_slash", "mdy_slash": "dmy_slash", "mdy_minimal": "dmy_minimal",
                  "dmy_minimal": "mdy_minimal"}


def ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def render(d: date, fmt: str) -> str:
    """`d` written in form `fmt` (years are written with four digits: 1600 -> "1600")."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown date form {fmt!r}; valid: {', '.join(FORMATS)}")
    y, m, dd = f"{d.year:04d}", f"{d.month:02d}", f"{d.day:02d}"
    name = MONTHS[d.month - 1]
    return {
        "iso": f"{y}-{m}-{dd}", "ymd_slash": f"{y}/{m}/{dd}", "ymd_dot": f"{y}.{m}.{dd}",
        "dmy_slash": f"{dd}/{m}/{y}", "mdy_slash": f"{m}/{dd}/{y}", "dmy_dash": f"{dd}-{m}-{y}",
        "dmy_dot": f"{dd}.{m}.{y}", "mdy_minimal": f"{d.month}/{d.day}/{y}", "dmy_minimal": f"{d.day}/{d.month}/{y}",
        "compact_ymd": y + m + dd, "compact_dmy": dd + m + y, "compact_mdy": m + dd + y,
        "day_month_name": f"{d.day} {name} {y}", "month_name_day": f"{name} {d.day}, {y}",
        "month_name_ordinal_day": f"{name} {d.day}{ordinal_suffix(d.day)}, {y}",
        "ordinal_day_month_name": f"{d.day}{ordinal_suffix(d.day)} {name} {y}",
    }[fmt]


def add_months(d: date, months: int) -> date:
    """`d` moved by whole months, keeping the day (ValueError if that day does not exist there)."""
    y, m = divmod(d.month - 1 + months, 12)
    return date(d.year + y, m + 1, d.day)


def note_of(fmt: str) -> str | None:
    return FORMATS[fmt][0]


def quoted(d: date, fmt: str, ambiguous: bool = False) -> str:
    """How a question writes the date: '"03/04/2025" (MM/DD/YYYY)', or without the note when
    `ambiguous` and the form has an ambiguous twin."""
    note = note_of(fmt)
    if note is None or (ambiguous and fmt in AMBIGUOUS_TWIN):
        return f'"{render(d, fmt)}"'
    return f'"{render(d, fmt)}" ({note})'


def components(text: str, fmt: str) -> list[tuple[str, int, int]]:
    """The semantic components of a rendered form as (kind, start, end) character spans, kind one of
    year / month / day (a month name is the month; an ordinal suffix is not part of the day)."""
    out: list[tuple[str, int, int]] = []
    if fmt.startswith("compact_"):
        order = ORDER[fmt]
        widths = {"y": 4, "m": 2, "d": 2}
        pos = 0
        for k in order:
            out.append(({"y": "year", "m": "month", "d": "day"}[k], pos, pos + widths[k]))
            pos += widths[k]
        return out
    if fmt in ORDER:
        kinds = [{"y": "year", "m": "month", "d": "day"}[k] for k in ORDER[fmt]]
        for kind, m in zip(kinds, re.finditer(r"\d+", text)):
            out.append((kind, m.start(), m.end()))
        return out
    for m in re.finditer(r"[A-Za-z]+|\d+", text):
        tok = m.group(0)
        if tok.isalpha():
            if tok.lower() in MONTH_NUMBER:
                out.append(("month", m.start(), m.end()))
            continue   # an ordinal suffix
        out.append(("year" if len(tok) == 4 else "day", m.start(), m.end()))
    return out


_NUMERIC = re.compile(r"^(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})$")


def parse(text: str, note: str | None = None) -> list[tuple[date, str]]:
    """Every (date, form) reading of a date as a question writes it (the quoted text and its note).
    A note pins the form; without one, a slash form with both fields <= 12 has two readings."""
    text = text.strip()
    if note is not None:
        fmt = NOTE_TO_FORMAT.get(note)
        if fmt is None:
            raise ValueError(f"unknown pattern note ({note}); valid: {', '.join(NOTE_TO_FORMAT)}")
        cands = [fmt]
    else:
        cands = [f for f, (n, _) in FORMATS.items() if n is None] + list(AMBIGUOUS_TWIN)
    out = []
    for fmt in cands:
        d = _read(text, fmt)
        if d is not None and render(d, fmt) == text and all(d != o for o, _ in out):
            out.append((d, fmt))
    if not out:
        raise ValueError(f"cannot read {text!r} as a date" + (f" in the form {note}" if note else ""))
    return out


def _read(text: str, fmt: str) -> date | None:
    try:
        if fmt.startswith("compact_"):
            if not re.fullmatch(r"\d{8}", text):
                return None
            o = ORDER[fmt]
            parts = {"ymd": (text[:4], text[4:6], text[6:]), "dmy": (text[4:], text[2:4], text[:2]),
                     "mdy": (text[4:], text[:2], text[2:4])}[o]
            return date(int(parts[0]), int(parts[1]), int(parts[2]))
        if fmt in ORDER:
            m = _NUMERIC.match(text)
            if not m:
                return None
            a, b, c = m.group(1), m.group(3), m.group(4)
            y, mo, d = {"ymd": (a, b, c), "dmy": (c, b, a), "mdy": (c, a, b)}[ORDER[fmt]]
            return date(int(y), int(mo), int(d))
        m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]+) (\d{4})", text) or \
            re.fullmatch(r"([A-Za-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})", text)
        if not m:
            return None
        g = m.groups()
        day, name = (g[0], g[1]) if g[0].isdigit() else (g[1], g[0])
        month = MONTH_NUMBER.get(name.lower())
        if month is None or name.lower() in MONTH_ABBR and len(name) <= 4 and name not in MONTHS:
            return None
        return date(int(g[2]), month, int(day))
    except ValueError:
        return None
