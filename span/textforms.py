"""Reading dates written the way questions and answers write them.

Forms: "2025-7-1" (also / and . separators), "1 Tammuz 5725", "Tammuz 1, 5725", "1st of Tammuz, 5725",
and for the Chinese lunar calendar a leap month marked "2023-leap2-15" (also "L2", "闰2",
"leap month 2", "leap 2"). `CalendarDate.display()` writes the canonical form.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .calendars import get_calendar
from .calendars.hebrew import is_leap as hebrew_leap_year
from .dates import CalendarDate
from .errors import CalendarError


# Every apostrophe-like mark people type in transliterations (Sh'vat, ʻAlá, Masáʼil, Rabīʿ, ‘Ala, Sha´ban)
_APOSTROPHES = str.maketrans({c: "'" for c in "’‘‛ʻʼʽʾʿ`´′"})


def normalize_name(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().translate(_APOSTROPHES)
    text = re.sub(r"[\-_.]", " ", text)
    text = text.replace("'", "")
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=None)
def month_lookup(calendar: str) -> dict[str, int]:
    """Every accepted spelling of a month name (normalised) → month number."""
    cal = get_calendar(calendar)
    out: dict[str, int] = {}
    for number, name in cal.month_names.items():
        out[normalize_name(name)] = number
    for name, number in cal.month_name_variants.items():
        out[normalize_name(name)] = number
    for key, number in list(out.items()):
        out.setdefault(key.replace(" ", ""), number)
    return out


def month_number(name: str, calendar: str) -> int | None:
    key = normalize_name(name)
    table = month_lookup(get_calendar(calendar).name)
    return table.get(key) if key in table else table.get(key.replace(" ", ""))


def _names_first_adar(calendar: str, name: str, number: int) -> bool:
    """Whether a Hebrew month name says "the first Adar" (Adar I, Adar Aleph, …), not plain "Adar"."""
    return calendar == "hebrew" and number == 12 and normalize_name(name).replace(" ", "") != "adar"


_NUMERIC = re.compile(
    r"^\s*(?P<y>-?\d{1,4})\s*[-/.]\s*(?P<leap>leap\s*|l|闰|leap month\s*)?(?P<m>\d{1,2})\s*[-/.]\s*(?P<d>\d{1,2})\s*$",
    re.IGNORECASE)
# The month group can neither start nor end with a space, so the surrounding optional spaces have
# exactly one way to match (an ambiguous split made these patterns backtrack polynomially).
_MON = r"(?P<mon>[^\d,\s](?:[^\d,]*[^\d,\s])?)"
_DAY_FIRST = re.compile(
    r"^(?:the )?(?P<d>\d{1,2})(?:st|nd|rd|th)? (?:day )?(?:of )?" + _MON + r" ?,? (?P<y>\d{1,4})$",
    re.IGNORECASE)
_MONTH_FIRST = re.compile(_MON.join(["^", r" (?P<d>\d{1,2})(?:st|nd|rd|th)? ?,? (?P<y>\d{1,4})$"]),
                          re.IGNORECASE)
MAX_DATE_TEXT = 80
# An era calendar's date: "Reiwa 1-5-1", "Heisei 31/4/30", "R1.5.1", "令和元年5月1日" (元 = year 1).
_ERA_DATE = re.compile(
    r"^(?P<era>[^\d\s元][^\d元]*?)\s*(?P<y>\d{1,4}|元)\s*(?:年|[-/.])\s*(?P<m>\d{1,2})\s*(?:月|[-/.])\s*"
    r"(?P<d>\d{1,2})\s*日?$")


def parse_date(text: str, calendar: str) -> CalendarDate:
    """Parse one date written in `calendar`; raise CalendarError saying which forms are accepted."""
    cal = get_calendar(calendar)
    if not isinstance(text, str):
        raise CalendarError(f"expected a date string, got {text!r:.60}")
    if len(text) > MAX_DATE_TEXT:
        raise CalendarError(f"a date is at most {MAX_DATE_TEXT} characters; got {len(text)}")
    text = re.sub(r"\s+", " ", text).strip()
    m = _ERA_DATE.match(text) if cal.eras else None
    if m:
        year = 1 if m.group("y") == "元" else int(m.group("y"))
        return CalendarDate.create(cal.name, year, int(m.group("m")), int(m.group("d")), era=m.group("era").strip())
    m = _NUMERIC.match(text)
    if m:
        leap = bool(m.group("leap"))
        if leap and not cal.has_leap_months:
            raise CalendarError(f"the {cal.title} calendar has no marked leap months: {text!r}")
        return CalendarDate.create(cal.name, int(m.group("y")), int(m.group("m")), int(m.group("d")), leap)
    for rx in (_DAY_FIRST, _MONTH_FIRST):
        m = rx.match(text)
        if m:
            number = month_number(m.group("mon"), cal.name)
            if number is None:
                raise CalendarError(f"unknown {cal.title} month name {m.group('mon').strip()!r}; valid: "
                                    f"{', '.join(cal.month_names.values()) or 'numeric months'}")
            year = int(m.group("y"))
            if _names_first_adar(cal.name, m.group("mon"), number) and not hebrew_leap_year(year):
                # "Adar I" names the first of two Adars: a common year has one Adar, so no Adar I either
                raise CalendarError(f"Hebrew year {year} is not a leap year: it has one Adar (month 12), no "
                                    f"{m.group('mon').strip()!r}; write 'Adar'")
            return CalendarDate.create(cal.name, year, number, int(m.group("d")))
    example = cal.format(*cal.max_date) if cal.eras else "2025-7-1" if cal.numeric_display \
        else cal.format(*cal.min_date[:3])
    raise CalendarError(f"cannot read {text!r} as a {cal.title} date; write it like {example!r}"
                        + (f" (a {cal.title} leap month as '2023-leap2-15')" if cal.has_leap_months else ""))
