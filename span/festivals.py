"""Festivals, each with its rule in its own calendar.

`paper=True` marks the 21 festivals of the SPAN paper (Appendix A); the benchmark uses only those.
The rest are holidays a user of that calendar expects; each rule is the fixed date in that
calendar (observance customs such as postponing a fast from Shabbat are not modelled, and say so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from .calendars import MAX_ORDINAL, MIN_ORDINAL, get_calendar
from .dates import CalendarDate
from .errors import CalendarError


@dataclass(frozen=True)
class Festival:
    name: str
    calendar: str
    month: int
    day: int
    rule: str
    paper: bool = False
    aliases: tuple[str, ...] = field(default=())
    leap_year_month: int | None = None  # the month used instead in leap years (Purim: Adar II = 13)

    def date_in_year(self, year: int) -> CalendarDate:
        return date_in_year(self, year)


def _f(name, calendar, month, day, rule, paper=False, aliases=(), leap_year_month=None):
    return Festival(name, calendar, month, day, rule, paper, tuple(aliases), leap_year_month)


FESTIVALS: tuple[Festival, ...] = (
    # Gregorian (paper)
    _f("New Year's Day", "gregorian", 1, 1, "1 January", True),
    _f("Valentine's Day", "gregorian", 2, 14, "14 February", True, ["Saint Valentine's Day"]),
    _f("International Women's Day", "gregorian", 3, 8, "8 March", True, ["Women's Day"]),
    _f("International Workers' Day", "gregorian", 5, 1, "1 May", True, ["Labour Day", "Labor Day", "May Day"]),
    _f("International Children's Day", "gregorian", 6, 1, "1 June", True, ["Children's Day"]),
    _f("Halloween", "gregorian", 10, 31, "31 October", True, ["All Hallows' Eve"]),
    _f("Christmas Day", "gregorian", 12, 25, "25 December", True, ["Christmas"]),
    # Chinese lunar (paper): always the regular month, never the leap month of the same number
    _f("Chinese New Year", "chinese_lunar", 1, 1, "1st day of the 1st lunar month", True,
       ["Spring Festival", "Lunar New Year", "Chunjie"]),
    _f("Lantern Festival", "chinese_lunar", 1, 15, "15th day of the 1st lunar month", True, ["Yuanxiao"]),
    _f("Dragon Boat Festival", "chinese_lunar", 5, 5, "5th day of the 5th lunar month (regular month)", True,
       ["Duanwu", "Duanwu Festival"]),
    _f("Chinese Valentine's Day", "chinese_lunar", 7, 7, "7th day of the 7th lunar month (regular month)", True,
       ["Qixi", "Qixi Festival", "Double Seventh Festival"]),
    _f("Ghost Festival", "chinese_lunar", 7, 15, "15th day of the 7th lunar month (regular month)", True,
       ["Zhongyuan Festival", "Hungry Ghost Festival"]),
    _f("Mid-Autumn Festival", "chinese_lunar", 8, 15, "15th day of the 8th lunar month (regular month)", True,
       ["Mid Autumn", "Moon Festival", "Zhongqiu"]),
    _f("Double Ninth Festival", "chinese_lunar", 9, 9, "9th day of the 9th lunar month (regular month)", False,
       ["Chongyang Festival"]),
    _f("Laba Festival", "chinese_lunar", 12, 8, "8th day of the 12th lunar month", False),
    # Islamic (paper), tabular calendar
    _f("Hijri New Year", "islamic", 1, 1, "1 Muharram", True, ["Islamic New Year", "Muharram"]),
    _f("Isra and Mi'raj", "islamic", 7, 27, "27 Rajab", True, ["Isra Miraj", "Lailat al-Miraj"]),
    _f("Eid al-Fitr", "islamic", 10, 1, "1 Shawwal", True, ["Id al-Fitr", "Eid ul-Fitr"]),
    _f("Eid al-Adha", "islamic", 12, 10, "10 Dhu al-Hijjah", True, ["Id al-Adha", "Eid ul-Adha", "Bakrid"]),
    _f("Ashura", "islamic", 1, 10, "10 Muharram"),
    _f("Mawlid", "islamic", 3, 12, "12 Rabi al-Awwal", False, ["Mawlid al-Nabi", "Prophet's Birthday"]),
    _f("Start of Ramadan", "islamic", 9, 1, "1 Ramadan", False, ["Ramadan", "First day of Ramadan"]),
    _f("Laylat al-Qadr", "islamic", 9, 27, "27 Ramadan"),
    _f("Day of Arafah", "islamic", 12, 9, "9 Dhu al-Hijjah", False, ["Arafah", "Arafat Day"]),
    # Persian (paper)
    _f("Persian New Year", "persian", 1, 1, "1 Farvardin", True, ["Nowruz", "Norouz", "Nowrooz", "Iranian New Year"]),
    _f("Sizdah Be-dar", "persian", 1, 13, "13 Farvardin", True, ["Sizdah Bedar", "Nature Day"]),
    _f("Tirgan Festival", "persian", 4, 13, "13 Tir", True, ["Tirgan"]),
    _f("Mehregan Festival", "persian", 7, 16, "16 Mehr (some reckonings use 10 Mehr)", True, ["Mehregan"]),
    _f("Yalda Night", "persian", 9, 30, "30 Azar (the night before 1 Dey)", False, ["Yalda", "Shab-e Yalda"]),
    # Hebrew (not in the paper); convertdate month numbers (Nisan = 1, Tishri = 7)
    _f("Rosh Hashanah", "hebrew", 7, 1, "1 Tishri", False, ["Jewish New Year", "Rosh Hashana"]),
    _f("Yom Kippur", "hebrew", 7, 10, "10 Tishri", False, ["Day of Atonement"]),
    _f("Sukkot", "hebrew", 7, 15, "15 Tishri (first day)", False, ["Succot", "Sukkoth", "Feast of Tabernacles"]),
    _f("Simchat Torah", "hebrew", 7, 23, "23 Tishri (diaspora; 22 Tishri in Israel)", False),
    _f("Hanukkah", "hebrew", 9, 25, "25 Kislev (first day)", False, ["Chanukah", "Hanukah", "Chanukkah"]),
    _f("Tu BiShvat", "hebrew", 11, 15, "15 Shevat", False, ["Tu B'Shvat"]),
    _f("Purim", "hebrew", 12, 14, "14 Adar; 14 Adar II (month 13) in leap years", False, leap_year_month=13),
    _f("Passover", "hebrew", 1, 15, "15 Nisan (first day)", False, ["Pesach", "Pesah"]),
    _f("Lag BaOmer", "hebrew", 2, 18, "18 Iyyar", False, ["Lag B'Omer"]),
    _f("Shavuot", "hebrew", 3, 6, "6 Sivan", False, ["Shavuos", "Pentecost"]),
    _f("Tisha B'Av", "hebrew", 5, 9, "9 Av (the fast moves to 10 Av when 9 Av is Shabbat; not modelled)", False),
    # Shaka
    _f("Shaka New Year", "shaka", 1, 1, "1 Chaitra", False, ["Indian National New Year", "Saka New Year"]),
)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _index() -> dict[str, Festival]:
    out: dict[str, Festival] = {}
    for f in FESTIVALS:
        for n in (f.name, *f.aliases):
            out.setdefault(_key(n), f)
            # "Mehregan Festival" == "Mehregan", "Mid-Autumn" == "Mid-Autumn Festival"
            for suffix in ("festival", "day"):
                k = _key(n)
                if k.endswith(suffix) and len(k) > len(suffix) + 3:
                    out.setdefault(k[: -len(suffix)], f)
    return out


_BY_KEY = _index()


def names(calendar: str | None = None, paper_only: bool = False) -> list[str]:
    cal = get_calendar(calendar).name if calendar else None
    return [f.name for f in FESTIVALS
            if (cal is None or f.calendar == cal) and (f.paper or not paper_only)]


def find(name: str, calendar: str | None = None) -> Festival:
    """Look a festival up by name (case, apostrophes, hyphens and spacing ignored)."""
    cal = get_calendar(calendar).name if calendar else None
    if not isinstance(name, str) or not name.strip():
        raise CalendarError("festival name must be a non-empty string")
    f = _BY_KEY.get(_key(name))
    if f is None:
        k = _key(name)
        for suffix in ("festival", "day"):
            if k.endswith(suffix) and k[: -len(suffix)] in _BY_KEY:
                f = _BY_KEY[k[: -len(suffix)]]
                break
    if f is None:
        where = f"the {get_calendar(cal).title} calendar" if cal else "any calendar"
        valid = names(cal) if cal else [f"{x.name} ({x.calendar})" for x in FESTIVALS]
        raise CalendarError(f"unknown festival {name!r:.60} in {where}; valid festivals: {', '.join(valid)}")
    if cal is not None and f.calendar != cal:
        raise CalendarError(f"{f.name!r} is a festival of the {get_calendar(f.calendar).title} calendar, "
                            f"not the {get_calendar(cal).title} calendar; use calendar={f.calendar!r}, "
                            f"or one of the {get_calendar(cal).title} festivals: {', '.join(names(cal)) or 'none'}")
    return f


def date_in_year(festival: Festival | str, year: int) -> CalendarDate:
    """The festival's date in `year` of its own calendar (exactly one date)."""
    f = festival if isinstance(festival, Festival) else find(festival)
    cal = get_calendar(f.calendar)
    month = f.month
    if f.leap_year_month and cal.check_year(year).find(f.leap_year_month, False):
        month = f.leap_year_month
    return CalendarDate.create(f.calendar, year, month, f.day)


def occurrences_in_year(festival: Festival | str, calendar: str, year: int) -> list[CalendarDate]:
    """Every date inside `year` of `calendar` on which the festival falls, in that calendar.

    An Islamic festival can fall twice in one Gregorian year (Eid al-Fitr 2000), a Gregorian
    festival not at all in some Islamic years (New Year's Day in 1396 AH).
    """
    f = festival if isinstance(festival, Festival) else find(festival)
    cal = get_calendar(calendar)
    lay = cal.check_year(year)
    lo, hi = max(lay.start, MIN_ORDINAL), min(lay.end - 1, MAX_ORDINAL)
    own = get_calendar(f.calendar)
    out = []
    for y in range(own.year_of(lo), own.year_of(hi) + 1):
        try:
            d = date_in_year(f, y)
        except CalendarError:  # the festival's year is partly outside the supported window
            continue
        if lo <= d.ordinal <= hi:
            out.append(d.to(cal.name))
    return sorted(out, key=lambda d: d.ordinal)


def occurrences_in_gregorian_year(festival: Festival | str, gregorian_year: int) -> list[CalendarDate]:
    return occurrences_in_year(festival, "gregorian", gregorian_year)
