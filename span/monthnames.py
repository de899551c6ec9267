"""Month names wherever a month number is accepted.

`resolve_month(calendar, year, value)` reads a month given as a number (11, "11") or as a name in the
calendar's own names and their common transliterations ("Shevat", "Shvat", "Sh'vat"; "Ramadan",
"Ramazan"; "Farvardin", "Hamal"), Hebrew "Adar I"/"Adar II" included, and lunar leap months
("leap 4", "Leap Month 4", "闰四月"). It returns (month number, leap flag or None when the value
says nothing about leap). The spellings come from each calendar's `month_names` and
`month_name_variants` (textforms.month_lookup), plus the few extra ones below; a calendar added to
the registry gets its names read here with no change.
"""

from __future__ import annotations

import re

from .calendars import get_calendar
from .calendars.hebrew import is_leap as hebrew_leap_year
from .errors import CalendarError
from .textforms import month_lookup, normalize_name

MAX_MONTH_TEXT = 40

# Spellings beyond the calendar modules' own lists (normalised like textforms.normalize_name).
EXTRA_VARIANTS: dict[str, dict[str, int]] = {
    "hebrew": {"adar beit": 13, "adar b": 13, "adar a": 12, "tebeth": 10, "teves": 10, "shevet": 11,
               "shvat": 11, "sivan": 3, "tamuz": 4, "menachem av": 5, "tishrei": 7, "cheshvan": 8,
               "kislev": 9, "nissan": 1, "iyar": 2},
    "islamic": {
        # Turkish, Urdu/Persian and Malay/Indonesian spellings
        "muharrem": 1, "sefer": 2, "rebiulevvel": 3, "rebiyulevvel": 3, "rebiulahir": 4, "rebiyulahir": 4,
        "cemaziyelevvel": 5, "cemaziyelahir": 6, "recep": 7, "saban": 8, "ramazan": 9, "sevval": 10,
        "zilkade": 11, "zilhicce": 12, "rabiulawal": 3, "rabiul awal": 3, "rabiulakhir": 4,
        "rabiul akhir": 4, "jamadilawal": 5, "jamadil awal": 5, "jamadilakhir": 6, "jamadil akhir": 6,
        "syaaban": 8, "syaban": 8, "ramadhan": 9, "syawal": 10, "zulkaedah": 11, "zulkaidah": 11,
        "zulhijah": 12, "dhul hijja": 12, "dhul qadah": 11, "dhul qada": 11, "zil hajj": 12, "zilhaj": 12,
        "zil qad": 11, "al muharram": 1, "jumada ath thaniyah": 6, "jumada al thaniyah": 6, "zu al qadah": 11,
        "zu al qidah": 11, "zu al hijjah": 12, "dhu al qaadah": 11, "rabi ul sani": 4, "jumada ul ula": 5, "jumada ul ukhra": 6, "jamadi ul awal": 5,
        "jamadi ul sani": 6, "safar ul muzaffar": 2, "rabi al akhar": 4, "rabi ul aakhir": 4,
    },
    "persian": {
        # Dari / Pashto (Afghan) names of the same months
        "hamal": 1, "sawr": 2, "sowr": 2, "saur": 2, "jawza": 3, "jauza": 3, "saratan": 4, "asad": 5,
        "sonbola": 6, "sunbula": 6, "sonbula": 6, "mizan": 7, "aqrab": 8, "qaws": 9, "qaus": 9,
        "jadi": 10, "dalw": 11, "dalv": 11, "hut": 12, "hoot": 12, "ordibehesht": 2, "tir": 4,
    },
}
EXTRA_VARIANTS["islamic_umm_al_qura"] = EXTRA_VARIANTS["islamic"]
# Vietnamese names of the lunar year's first and last months (tháng Giêng, tháng Chạp); the others are numbered
EXTRA_VARIANTS["vietnamese_lunar"] = {"gieng": 1, "thang gieng": 1, "chap": 12, "thang chap": 12}

_CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
               "十一": 11, "十二": 12, "正": 1, "冬": 11, "腊": 12, "臘": 12}
_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
          "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}
_NUMBER = re.compile(r"^(?:month |thang )?(\d{1,2})(?:st|nd|rd|th)?(?: month)?$")  # thang: Vietnamese tháng
# leap: run (Chinese 闰 rùn), yun (Korean 윤), nhuan (Vietnamese nhuận: "tháng 2 nhuận")
_LEAP = re.compile(r"^(?:leap|intercalary|run|yun|nhuan|l)(?: month)? ?(.+)$|^(.+?) \(?(?:leap|nhuan)\)?$")
_CJK = re.compile(r"^(闰|閏)?(正|冬|腊|臘|十[一二]?|[一二三四五六七八九])月$")
_ORDINAL_WORD = re.compile(r"^(?:the )?(\w+) (?:lunar )?month$")


def _lunar_number(key: str) -> int | None:
    """'4', '4th', 'month 4', 'fourth month' → 4 (the lunar calendars number their months)."""
    m = _NUMBER.match(key)
    if m:
        return int(m.group(1))
    m = _ORDINAL_WORD.match(key)
    if m and m.group(1) in _WORDS:
        return _WORDS[m.group(1)]
    return None


def _table(calendar: str) -> dict[str, int]:
    table = dict(month_lookup(calendar))
    for name, number in EXTRA_VARIANTS.get(calendar, {}).items():
        key = normalize_name(name)
        table.setdefault(key, number)
        table.setdefault(key.replace(" ", ""), number)
    return table


def valid_names(calendar: str) -> str:
    cal = get_calendar(calendar)
    if cal.month_names:
        return ", ".join(f"{n} {name}" for n, name in sorted(cal.month_names.items()))
    return "numbers 1–12" + (" (a leap month: 'leap 4' or is_lunar_leap_month)" if cal.has_leap_months else "")


def resolve_month(calendar: str, year: int | None, value) -> tuple[int, bool | None]:
    """A month given as a number or a name → (number, leap flag or None).

    Raises CalendarError naming the valid names. "Adar I" in a common Hebrew year (which has one Adar)
    is refused, as parse_date refuses it; plain "Adar" is month 12 (Adar I in a leap year)."""
    cal = get_calendar(calendar)
    if isinstance(value, bool):
        raise CalendarError(f"month must be a number or a month name, got {str(value).lower()}")
    if isinstance(value, int):
        return value, None
    if isinstance(value, float) and value.is_integer():
        return int(value), None
    if not isinstance(value, str):
        raise CalendarError(f"month must be a number or a month name, got {value!r:.40}")
    text = value.strip()
    if not text or len(text) > MAX_MONTH_TEXT:
        raise CalendarError(f"month must be a number or a {cal.title} month name (at most {MAX_MONTH_TEXT} "
                            f"characters); valid: {valid_names(cal.name)}")
    if text.isascii() and text.isdigit():
        return int(text), None
    if cal.has_leap_months:
        m = _CJK.match(text.replace(" ", ""))
        if m:
            return _CJK_DIGITS[m.group(2)], bool(m.group(1))
    key = normalize_name(text)
    table = _table(cal.name)
    number = table.get(key, table.get(key.replace(" ", "")))
    if number is not None:
        if cal.name == "hebrew" and number == 12 and key.replace(" ", "") != "adar" and year is not None \
                and not hebrew_leap_year(year):
            raise CalendarError(f"Hebrew year {year} is not a leap year: it has one Adar (month 12), no "
                                f"{text!r}; give 'Adar' or 12")
        return number, None
    if cal.has_leap_months:
        n = _lunar_number(key)
        if n is not None:
            return n, None
        m = _LEAP.match(key)
        if m:
            n = _lunar_number(m.group(1) or m.group(2))
            if n is not None:
                return n, True
    raise CalendarError(f"unknown {cal.title} month {text!r}; give a number or a name: {valid_names(cal.name)}")


__all__ = ["EXTRA_VARIANTS", "resolve_month", "valid_names"]
