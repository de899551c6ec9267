"""Festivals, each with its rule in its own calendar.

`paper=True` marks the 21 festivals of the SPAN paper (Appendix A); the benchmark uses only those.
The rest are holidays a user of that calendar expects; each rule is the fixed date in that
calendar (observance customs such as postponing a fast from Shabbat are not modelled, and say so),
or, for a movable feast (Orthodox Easter) or one whose day depends on the year (Coptic Christmas),
a function of the year in that calendar (`compute`).

A name can belong to festivals of several calendars ("Eid al-Fitr": tabular Islamic and Umm
al-Qura; "Christmas": Gregorian, Julian, Coptic, Ethiopian). Without a calendar it means the first
one listed here, which is always the SPAN paper's (or the Gregorian) one; with a calendar, that
calendar's festival.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable
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
    # (month, day) in a given year of the festival's calendar, for rules that are not one fixed
    # date; `month`/`day` then hold the usual date, or 0/0 for a movable feast (Easter).
    compute: Callable[[int], tuple[int, int]] | None = field(default=None, compare=False, repr=False)
    # Names that mean this festival only when its calendar is given ("Easter" with calendar="julian"),
    # because without a calendar they would name another tradition's feast.
    local_aliases: tuple[str, ...] = field(default=(), compare=False)

    @property
    def movable(self) -> bool:
        """True when the festival has no usual month/day (Easter): `month` and `day` are 0."""
        return self.compute is not None and self.month == 0

    def date_in_year(self, year: int) -> CalendarDate:
        return date_in_year(self, year)


def _f(name, calendar, month, day, rule, paper=False, aliases=(), leap_year_month=None, compute=None,
       local=()):
    return Festival(name, calendar, month, day, rule, paper, tuple(aliases), leap_year_month, compute,
                    tuple(local))


def julian_easter(year: int) -> tuple[int, int]:
    """Orthodox Easter Sunday as a Julian (month, day): the Julian computus (Meeus, Astronomical
    Algorithms, ch. 8): the Sunday after the 14th day of the Paschal moon of the 19-year cycle."""
    a, b, c = year % 4, year % 7, year % 19
    d = (19 * c + 15) % 30
    e = (2 * a + 4 * b - d + 34) % 7
    return (d + e + 114) // 31, (d + e + 114) % 31 + 1


def alexandrian_christmas(year: int) -> tuple[int, int]:
    """29 Koiak / 29 Tahsas, but 28 in a year that follows a leap year (year % 4 == 0): the churches
    keep the Nativity on Julian 25 December, which the 6th epagomenal day pushes to the 28th."""
    return 4, 28 if year % 4 == 0 else 29


def _umm_al_qura(f: Festival) -> Festival:
    """The same month/day rule on the Umm al-Qura calendar."""
    return Festival(f"{f.name} (Umm al-Qura)", "islamic_umm_al_qura", f.month, f.day,
                    f"{f.rule}, Umm al-Qura calendar", False, (f.name, *f.aliases))


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
    # ---- beyond the paper: each is listed after the paper's festivals so that a bare name
    # keeps resolving to the paper's festival ----
    # Julian (Orthodox churches on the old calendar)
    _f("Orthodox Christmas", "julian", 12, 25, "25 December (Julian); Gregorian 7 January 1901–2100", False,
       ["Julian Christmas", "Old Calendar Christmas", "Eastern Orthodox Christmas", "Christmas",
        "Christmas Day"]),
    _f("Orthodox Easter", "julian", 0, 0,
       "Easter Sunday by the Julian computus: the Sunday after the Paschal full moon of the 19-year "
       "cycle, in the Julian calendar (Meeus' Julian algorithm)", False,
       ["Orthodox Pascha", "Pascha", "Eastern Orthodox Easter", "Julian Easter"], compute=julian_easter,
       local=["Easter", "Easter Sunday"]),
    _f("Orthodox Theophany", "julian", 1, 6, "6 January (Julian)", False,
       ["Theophany", "Orthodox Epiphany"], local=["Epiphany"]),
    _f("Old New Year", "julian", 1, 1, "1 January (Julian)", False,
       ["Orthodox New Year", "Julian New Year", "Old Style New Year", "New Year's Day"], local=["New Year"]),
    # Coptic
    _f("Coptic Christmas", "coptic", 4, 29,
       "29 Koiak; 28 Koiak in a year that follows a Coptic leap year (year % 4 == 0), so that it "
       "stays on Julian 25 December (Gregorian 7 January, 1901–2100)", False,
       ["Coptic Nativity", "Christmas"], compute=alexandrian_christmas),
    _f("Nayrouz", "coptic", 1, 1,
       "1 Thout (Gregorian 11 September, 12 September before a Gregorian leap year, 1900–2098)", False,
       ["Coptic New Year", "Neyrouz", "Nairouz"], local=["New Year"]),
    # Ethiopian
    _f("Enkutatash", "ethiopian", 1, 1,
       "1 Meskerem (Gregorian 11 September, 12 September before a Gregorian leap year, 1900–2098)", False,
       ["Ethiopian New Year", "Inkutatash", "Enqutatash"], local=["New Year"]),
    _f("Meskel", "ethiopian", 1, 17,
       "17 Meskerem (Gregorian 27 September, 28 September before a Gregorian leap year, 1900–2098)", False,
       ["Meskel Festival", "Mesqel", "Finding of the True Cross", "Demera"]),
    _f("Genna", "ethiopian", 4, 29,
       "29 Tahsas; 28 Tahsas in a year that follows an Ethiopian leap year (year % 4 == 0), so that it "
       "stays on Julian 25 December (Gregorian 7 January, 1901–2100)", False,
       ["Ethiopian Christmas", "Gena", "Lidet", "Christmas"], compute=alexandrian_christmas),
    _f("Timkat", "ethiopian", 5, 11, "11 Tir (Gregorian 19 January, 20 January in Gregorian leap years)",
       False, ["Timket", "Ethiopian Epiphany"], local=["Epiphany"]),
    # Korean lunar (KASI): always the regular month, never the leap month of the same number
    _f("Seollal", "korean_lunar", 1, 1, "1st day of the 1st Korean lunar month", False,
       ["Korean New Year", "Seolnal", "Lunar New Year"], local=["New Year"]),
    _f("Jeongwol Daeboreum", "korean_lunar", 1, 15, "15th day of the 1st Korean lunar month", False,
       ["Daeboreum"]),
    _f("Buddha's Birthday (Korea)", "korean_lunar", 4, 8,
       "8th day of the 4th Korean lunar month (regular month)", False,
       ["Bucheonnim Osin Nal", "Seokga Tansinil", "Korean Buddha's Birthday", "Buddha's Birthday"]),
    _f("Dano", "korean_lunar", 5, 5, "5th day of the 5th Korean lunar month (regular month)", False,
       ["Surit-nal", "Danoje"]),
    _f("Chuseok", "korean_lunar", 8, 15, "15th day of the 8th Korean lunar month (regular month)", False,
       ["Hangawi", "Korean Thanksgiving", "Chuseok Festival"]),
    # Vietnamese lunar (UTC+7): always the regular month, never the leap month of the same number
    _f("Tết Nguyên Đán", "vietnamese_lunar", 1, 1, "1st day of the 1st Vietnamese lunar month", False,
       ["Tet", "Tet Nguyen Dan", "Vietnamese New Year", "Vietnamese Lunar New Year", "Tết"],
       local=["New Year", "Lunar New Year"]),
    _f("Giỗ Tổ Hùng Vương", "vietnamese_lunar", 3, 10, "10th day of the 3rd Vietnamese lunar month (regular month)",
       False, ["Gio To Hung Vuong", "Hung Kings' Festival", "Hung Kings Commemoration Day", "Hung Kings Day"]),
    _f("Tết Đoan Ngọ", "vietnamese_lunar", 5, 5, "5th day of the 5th Vietnamese lunar month (regular month)",
       False, ["Tet Doan Ngo", "Doan Ngo", "Vietnamese Dragon Boat Festival"], local=["Dragon Boat Festival"]),
    _f("Vu Lan", "vietnamese_lunar", 7, 15, "15th day of the 7th Vietnamese lunar month (regular month)", False,
       ["Le Vu Lan", "Vu Lan Festival", "Ullambana"], local=["Ghost Festival"]),
    _f("Tết Trung Thu", "vietnamese_lunar", 8, 15, "15th day of the 8th Vietnamese lunar month (regular month)",
       False, ["Tet Trung Thu", "Vietnamese Mid-Autumn Festival"], local=["Mid-Autumn Festival", "Mid Autumn"]),
    _f("Ông Táo", "vietnamese_lunar", 12, 23, "23rd day of the 12th Vietnamese lunar month (the Kitchen Gods go "
       "to heaven)", False, ["Ong Tao", "Tet Ong Cong Ong Tao", "Kitchen Gods' Day", "Kitchen God Day"]),
    # Bahá'í (Badí'): months 1-19, Ayyám-i-Há = 0. Holy days on their Badí' dates (since 2015; two were
    # kept a day earlier in the West before, by their Gregorian dates: `compute` gives those years' day)
    _f("Naw-Rúz", "bahai", 1, 1, "1 Bahá: the day of the March equinox in Tehran (since 2015; 21 March before)",
       False, ["Naw-Ruz", "Naw Ruz", "Bahai New Year", "Baha'i New Year"], local=["New Year", "Nowruz"]),
    _f("Festival of Ridván", "bahai", 2, 13, "13 Jalál, the first day of Ridván (20 or 21 April)", False,
       ["Ridvan", "Ridván", "First Day of Ridvan", "Ridvan Festival"]),
    _f("Ninth Day of Ridván", "bahai", 3, 2, "2 Jamál", False, ["Ninth Day of Ridvan"]),
    _f("Twelfth Day of Ridván", "bahai", 3, 5, "5 Jamál", False, ["Twelfth Day of Ridvan"]),
    _f("Declaration of the Báb", "bahai", 4, 8, "8 ʻAẓamat (since 2015; before, 23 May = 7 ʻAẓamat in the West)",
       False, ["Declaration of the Bab"], compute=lambda y: (4, 8 if y >= 172 else 7)),
    _f("Ascension of Bahá'u'lláh", "bahai", 4, 13, "13 ʻAẓamat", False,
       ["Ascension of Bahaullah", "Ascension of Baha'u'llah"]),
    _f("Martyrdom of the Báb", "bahai", 6, 17, "17 Raḥmat (since 2015; before, 9 July = 16 Raḥmat in the West)",
       False, ["Martyrdom of the Bab"], compute=lambda y: (6, 17 if y >= 172 else 16)),
    _f("Day of the Covenant", "bahai", 14, 4, "4 Qawl", False, ["Day of Covenant"]),
    _f("Ascension of ʻAbdu'l-Bahá", "bahai", 14, 6, "6 Qawl", False,
       ["Ascension of Abdul-Baha", "Ascension of Abdu'l-Baha"]),
    _f("Start of the Bahá'í Fast", "bahai", 19, 1, "1 ʻAlá, the first day of the 19-day fast", False,
       ["Bahai Fast", "Baha'i Fast", "Nineteen Day Fast", "Start of the Bahai Fast"]),
    # Thai solar and ROC: Gregorian months and days
    _f("Songkran", "thai_buddhist", 4, 13, "13 April (first day of the Songkran holidays, 13-15 April)", False,
       ["Thai New Year", "Songkran Festival"], local=["New Year"]),
    _f("Double Ten Day", "roc", 10, 10, "10 October, National Day of the Republic of China (Taiwan)", False,
       ["Double Tenth Day", "National Day (Taiwan)", "ROC National Day"]),
)

# Umm al-Qura versions of every Islamic festival: the same month/day on Saudi Arabia's calendar.
FESTIVALS = FESTIVALS + tuple(_umm_al_qura(f) for f in FESTIVALS if f.calendar == "islamic")


def _key(name: str) -> str:
    # accents folded ("Tết Nguyên Đán" == "Tet Nguyen Dan", "Naw-Rúz" == "Naw-Ruz"), in any Unicode form
    name = unicodedata.normalize("NFKD", name.replace("đ", "d").replace("Đ", "D"))
    return re.sub(r"[^a-z0-9]", "", "".join(ch for ch in name if not unicodedata.combining(ch)).lower())


def _index() -> dict[str, list[Festival]]:
    """Every spelling → the festivals it names, in FESTIVALS order (the first is the default)."""
    out: dict[str, list[Festival]] = {}

    def add(key: str, f: Festival) -> None:
        found = out.setdefault(key, [])
        if f not in found:
            found.append(f)

    for f in FESTIVALS:
        for n in (f.name, *f.aliases):
            add(_key(n), f)
            # "Mehregan Festival" == "Mehregan", "Mid-Autumn" == "Mid-Autumn Festival"
            for suffix in ("festival", "day"):
                k = _key(n)
                if k.endswith(suffix) and len(k) > len(suffix) + 3:
                    add(k[: -len(suffix)], f)
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
    found = _BY_KEY.get(_key(name))
    if found is None:
        k = _key(name)
        for suffix in ("festival", "day"):
            if k.endswith(suffix) and k[: -len(suffix)] in _BY_KEY:
                found = _BY_KEY[k[: -len(suffix)]]
                break
    f = None
    if found:
        f = next((x for x in found if x.calendar == cal), None)
    if f is None and cal is not None:
        f = next((x for x in FESTIVALS if x.calendar == cal
                  and any(_key(a) == _key(name) for a in x.local_aliases)), None)
    if f is None and found:
        f = found[0]
    if f is None:
        where = f"the {get_calendar(cal).title} calendar" if cal else "any calendar"
        valid = names(cal) if cal else [f"{x.name} ({x.calendar})" for x in FESTIVALS]
        if not valid:  # a calendar without festivals of its own (japanese_era, thai_buddhist_proleptic …)
            raise CalendarError(f"unknown festival {name!r:.60}: the {get_calendar(cal).title} calendar has no "
                                f"festivals of its own; give the festival's own calendar (list_calendars names "
                                f"every festival with its calendar), or a date with month and day")
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
    month, day = f.month, f.day
    if f.compute is not None:
        cal.check_year(year)  # a clear range error before the rule runs
        month, day = f.compute(year)
    if f.leap_year_month and cal.check_year(year).find(f.leap_year_month, False):
        month = f.leap_year_month
    return CalendarDate.create(f.calendar, year, month, day)


def occurrences_in_year(festival: Festival | str, calendar: str, year: int) -> list[CalendarDate]:
    """Every date inside `year` of `calendar` on which the festival falls, in that calendar.

    An Islamic festival can fall twice in one Gregorian year (Eid al-Fitr 2000), a Gregorian
    festival not at all in some Islamic years (New Year's Day in 1396 AH). Only days inside the
    festival calendar's range count (Umm al-Qura covers 1924-08-01 … 2077-11-16).
    """
    f = festival if isinstance(festival, Festival) else find(festival)
    cal = get_calendar(calendar)
    lay = cal.check_year(year)
    own = get_calendar(f.calendar)
    # Umm al-Qura and Korean lunar cover less than the common window: only days they cover count,
    # and a year they do not cover at all is an error rather than "never".
    lo = max(lay.start, MIN_ORDINAL, own.min_ordinal)
    hi = min(lay.end - 1, MAX_ORDINAL, own.max_ordinal)
    if lo > hi:
        raise CalendarError(f"{cal.title} year {year} is outside the {own.title} calendar's range; "
                            f"{own.range_text()}")
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


__all__ = ["FESTIVALS", "Festival", "alexandrian_christmas", "date_in_year", "find", "julian_easter", "names",
           "occurrences_in_gregorian_year", "occurrences_in_year"]
