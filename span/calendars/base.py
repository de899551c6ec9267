"""The interface every calendar implements, and the generic machinery built on it.

A calendar module only has to describe each of its years: the day number on which the year
starts and the sequence of its months (number, leap flag, length). Conversion to and from the
day number, validation, month stepping and rendering are derived here, so they are identical
for every calendar and a new calendar is one small module.

Day numbers are proleptic Gregorian ordinals (`datetime.date.toordinal()`, 0001-01-01 = 1).
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from ..errors import CalendarError

# The window in which every calendar is defined, so that any date can be shown in all six.
# LunarCalendar's tables bound it (they are reliable for lunar years 1888-2111); 1900-2100
# is the range the test oracles cover day by day.
MIN_ORDINAL = date(1900, 1, 1).toordinal()
MAX_ORDINAL = date(2100, 12, 31).toordinal()

JD_ORDINAL_OFFSET = 1721424.5  # julian day (convertdate) = ordinal + offset


def jd_to_ordinal(jd: float) -> int:
    return int(jd - JD_ORDINAL_OFFSET)


def ordinal_to_jd(n: int) -> float:
    return n + JD_ORDINAL_OFFSET


@dataclass(frozen=True)
class Month:
    number: int
    is_leap: bool
    length: int
    start: int  # ordinal of day 1


@dataclass(frozen=True)
class YearLayout:
    year: int
    start: int
    months: tuple[Month, ...]
    starts: tuple[int, ...] = ()  # month start ordinals, for bisect
    end: int = 0                  # ordinal of the first day of the next year

    def __post_init__(self):
        object.__setattr__(self, "starts", tuple(m.start for m in self.months))
        last = self.months[-1]
        object.__setattr__(self, "end", last.start + last.length)

    def find(self, month: int, is_leap: bool) -> Month | None:
        for m in self.months:
            if m.number == month and m.is_leap == is_leap:
                return m
        return None


def build_layout(year: int, start: int, months: list[tuple[int, bool, int]]) -> YearLayout:
    out, cur = [], start
    for number, leap, length in months:
        out.append(Month(number, leap, length, cur))
        cur += length
    return YearLayout(year, start, tuple(out))


def lunisolar_month_error(title: str, lay: YearLayout, month: int, is_leap: bool) -> str:
    """What is valid instead, for a month a Chinese-style lunisolar year lacks (the Chinese, Korean and
    Vietnamese calendars say it in the same words)."""
    leap = next((m.number for m in lay.months if m.is_leap), None)
    if is_leap:
        if leap is None:
            return f"{title} year {lay.year} has no leap month; months are 1–12 (none leap)"
        return f"{title} year {lay.year} has leap month {leap}, not {month}"
    extra = f" plus leap month {leap}" if leap else " (no leap month)"
    return f"{title} year {lay.year} has months 1–12{extra}; got month {month}"


def lunisolar_layout(year: int, start: int, leap: int, lengths) -> YearLayout:
    """A Chinese-style year from its month lengths in order ('1' / 1 = 30 days): the leap month, if any
    (``leap`` is its index), repeats the number of the month before it."""
    months, number = [], 0
    for i, bit in enumerate(lengths):
        is_leap = bool(leap) and i == leap
        number = number if is_leap else number + 1
        months.append((number, is_leap, 30 if bit in ("1", 1, True) else 29))
    return build_layout(year, start, months)


@lru_cache(maxsize=1024)
def era_key(text: str) -> str:
    """An era name as compared: case, accents/macrons, spaces and punctuation ignored ("Shōwa" ==
    "showa" == "SHOWA"); CJK names ("昭和", "民國") are kept as written."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return "".join(ch for ch in text if ch.isalnum())


@dataclass(frozen=True)
class Era:
    """A named era of an era calendar (Japanese Reiwa, ROC Minguo). Dates carry the era and the year
    counted in it; the calendar's own `year` (its layouts) is the continuous year number (Gregorian for
    the Japanese calendar, Gregorian - 1911 for the ROC calendar), and an era maps one to the other."""
    name: str                  # canonical romanised name, returned as `era`
    first: int                 # ordinal of the era's first day inside span's window
    last: int                  # ordinal of its last day inside span's window
    year_one: int              # the calendar year in which era year 1 falls
    aliases: tuple[str, ...] = ()
    counts_down: bool = False  # era years counted backwards (ROC "before Minguo": 1911 = year 1)
    began: str = ""            # the era's historical first day when before span's window

    def to_calendar_year(self, era_year: int) -> int:
        return self.year_one - (era_year - 1) if self.counts_down else self.year_one + era_year - 1

    def from_calendar_year(self, year: int) -> int:
        return self.year_one - year + 1 if self.counts_down else year - self.year_one + 1


class Calendar:
    """Subclasses set the class attributes and implement `_layout` and `_approx_year`."""

    name: str = ""
    title: str = ""
    aliases: tuple[str, ...] = ()
    has_leap_months: bool = False  # True where a leap month repeats a month number (Chinese)
    month_names: dict[int, str] = {}
    # Extra spellings accepted when parsing, mapped to month numbers.
    month_name_variants: dict[str, int] = {}
    numeric_display: bool = False  # Gregorian and Chinese lunar dates are written "Y-M-D"
    description: str = ""
    # What a reader of the month list needs besides names and numbers (list_calendars shows both):
    # one note on the months as a whole, and notes on single months by number.
    month_note: str | None = None
    notes_by_month: dict[int, str] = {}
    # A calendar whose data cover less than the common window (Umm al-Qura's table, the Korean
    # lunar table) narrows it here; dates outside are a CalendarError naming the range.
    min_ordinal: int = MIN_ORDINAL
    max_ordinal: int = MAX_ORDINAL
    # Era calendars (Japanese, ROC): their eras in order, and the era assumed when none is given
    # (None: an era is required). Dates then carry `era` and the year counted in it.
    eras: tuple[Era, ...] = ()
    default_era: str | None = None

    # ---- what a calendar module provides -------------------------------------------------
    def _layout(self, year: int) -> YearLayout:
        raise NotImplementedError

    def _approx_year(self, ordinal: int) -> int:
        raise NotImplementedError

    def month_name(self, year: int, month: int, is_leap: bool = False) -> str:
        return self.month_names.get(month, str(month))

    # ---- derived ----------------------------------------------------------------------------
    def __init__(self) -> None:
        self.layout = lru_cache(maxsize=None)(self._layout)
        lo, hi = self.year_of(self.min_ordinal), self.year_of(self.max_ordinal)
        self.min_year, self.max_year = lo, hi
        self.min_date = self.from_ordinal(self.min_ordinal)
        self.max_date = self.from_ordinal(self.max_ordinal)

    def year_of(self, ordinal: int) -> int:
        y = self._approx_year(ordinal)
        while self.layout(y).start > ordinal:
            y -= 1
        while self.layout(y).end <= ordinal:
            y += 1
        return y

    def range_text(self) -> str:
        lo, hi = self.min_date, self.max_date
        text = f"supported {self.title} dates: {self.format(*lo)} … {self.format(*hi)}"
        if self.name == "gregorian":
            return text
        first, last = date.fromordinal(self.min_ordinal), date.fromordinal(self.max_ordinal)
        return text + f" (Gregorian {first.isoformat()} … {last.isoformat()})"

    def check_year(self, year: int) -> YearLayout:
        if isinstance(year, bool) or not isinstance(year, int):
            raise CalendarError(f"{self.title} year must be an integer, got {year!r}")
        if not self.min_year <= year <= self.max_year:
            hint = ""
            first, last = date.fromordinal(self.min_ordinal).year, date.fromordinal(self.max_ordinal).year
            if self.name != "gregorian" and first <= year <= last:
                # the commonest slip (small models make it): a Gregorian date sent as this calendar's
                hint = f"; if you meant the Gregorian year {year}, give the calendar \"gregorian\""
            raise CalendarError(f"{self.title} year {year} is out of range; {self.range_text()}{hint}")
        return self.layout(year)

    def check_month(self, year: int, month: int, is_leap: bool = False) -> Month:
        lay = self.check_year(year)
        if isinstance(month, bool) or not isinstance(month, int):
            raise CalendarError(f"{self.title} month must be an integer, got {month!r}")
        m = lay.find(month, bool(is_leap))
        if m is None:
            raise CalendarError(self._month_error(lay, month, bool(is_leap)))
        return m

    def _month_error(self, lay: YearLayout, month: int, is_leap: bool) -> str:
        numbers = sorted({m.number for m in lay.months})
        return (f"{self.title} year {lay.year} has no month {month}; "
                f"valid months are {numbers[0]}–{numbers[-1]}")

    def validate(self, year: int, month: int, day: int, is_leap: bool = False) -> int:
        """Return the ordinal of a valid date, or raise CalendarError saying what is valid."""
        m = self.check_month(year, month, is_leap)
        if isinstance(day, bool) or not isinstance(day, int):
            raise CalendarError(f"{self.title} day must be an integer, got {day!r}")
        if not 1 <= day <= m.length:
            raise CalendarError(
                f"{self.title} month {self.month_label(year, month, is_leap)} of year {year} has {m.length} days; "
                f"day {day} does not exist (valid: 1–{m.length})")
        n = m.start + day - 1
        if not self.min_ordinal <= n <= self.max_ordinal:
            raise CalendarError(f"{self.format(year, month, day, is_leap)} is out of range; "
                                f"{self.range_text()}")
        return n

    def month_label(self, year: int, month: int, is_leap: bool = False) -> str:
        if not self.month_names:
            return f"{'leap ' if is_leap else ''}{month}"
        return f"{month} ({self.month_name(year, month, is_leap)})"

    def to_ordinal(self, year: int, month: int, day: int, is_leap: bool = False) -> int:
        return self.validate(year, month, day, is_leap)

    def from_ordinal(self, ordinal: int) -> tuple[int, int, int, bool]:
        # Only a narrowed window is enforced here: the six original calendars keep answering for
        # any day number their callers hand them, as before.
        if (ordinal < self.min_ordinal and self.min_ordinal > MIN_ORDINAL) or \
                (ordinal > self.max_ordinal and self.max_ordinal < MAX_ORDINAL):
            when = date.fromordinal(ordinal).isoformat() if 1 <= ordinal <= date.max.toordinal() \
                else f"day number {ordinal}"
            raise CalendarError(f"Gregorian {when} is outside the {self.title} calendar's range; "
                                f"{self.range_text()}")
        lay = self.layout(self.year_of(ordinal))
        i = bisect.bisect_right(lay.starts, ordinal) - 1
        m = lay.months[i]
        return lay.year, m.number, ordinal - m.start + 1, m.is_leap

    def months_of(self, year: int) -> tuple[Month, ...]:
        return self.check_year(year).months

    def format(self, year: int, month: int, day: int, is_leap: bool = False) -> str:
        """The written form used in questions and answers (`year`: the calendar's continuous year)."""
        if self.eras:
            era, era_year = self.era_of_date(year, month, day)
            return f"{era.name} {era_year}-{month}-{day}"
        if self.numeric_display:
            return f"{year}-{'leap' if is_leap else ''}{month}-{day}"
        return f"{day} {self.month_name(year, month, is_leap)} {year}"

    # ---- eras (Japanese, ROC) --------------------------------------------------------------------
    def era_names(self) -> str:
        return ", ".join(e.name for e in self.eras)

    def find_era(self, name) -> Era:
        """The era a name means (romanised any case, with or without macrons, or the CJK name)."""
        if not self.eras:
            raise CalendarError(f"the {self.title} calendar has no eras; leave era out")
        if not isinstance(name, str) or len(name) > 40 or not era_key(name):
            raise CalendarError(f"era must be a name, got {name!r:.60}; {self.title} eras: {self.era_names()}")
        index = self.__dict__.get("_era_index")
        if index is None:
            index = self.__dict__["_era_index"] = {era_key(a): e for e in self.eras for a in (e.name, *e.aliases)}
        era = index.get(era_key(name))
        if era is not None:
            return era
        raise CalendarError(f"unknown era {name!r:.60} for the {self.title} calendar; valid eras: {self.era_names()}")

    def era_of(self, ordinal: int) -> Era:
        for era in reversed(self.eras):
            if ordinal >= era.first:
                return era
        return self.eras[0]

    def era_of_date(self, year: int, month: int, day: int) -> tuple[Era, int]:
        """(era, year in the era) of a date given in the calendar's continuous year."""
        m = self.layout(year).find(month, False)
        n = m.start + day - 1 if m is not None else self.layout(year).start
        era = self.era_of(n)
        return era, era.from_calendar_year(year)

    def era_range_text(self, era: Era) -> str:
        first, last = self.from_ordinal(era.first), self.from_ordinal(era.last)
        fy, ly = era.from_calendar_year(first[0]), era.from_calendar_year(last[0])
        began = f"; it began {era.began}" if era.began else ""
        return (f"the {era.name} era covers {era.name} {fy}-{first[1]}-{first[2]} … {ly}-{last[1]}-{last[2]} "
                f"(Gregorian {date.fromordinal(era.first).isoformat()} … "
                f"{date.fromordinal(era.last).isoformat()}{began})")

    def validate_era(self, era_name, era_year: int, month: int, day: int) -> tuple[Era, int]:
        """(era, ordinal) of a date given as era + year in it; an error naming the era's range when the
        date lies outside that era."""
        if isinstance(era_year, bool) or not isinstance(era_year, int):
            raise CalendarError(f"{self.title} year must be an integer, got {era_year!r:.60}")
        if era_name is None and era_year >= 1000:
            # No era: a year of four digits is the Gregorian (continuous) year, never an era year (the
            # longest era in range, Shōwa, has 64). 2019-5-1 -> Reiwa 1-5-1.
            n = self.validate(era_year, month, day)
            return self.era_of(n), n
        if era_name is None:
            if self.default_era is None:
                raise CalendarError(f"a {self.title} date needs its era: give era (one of {self.era_names()}), "
                                    f"or the Gregorian year ({date.fromordinal(self.min_ordinal).year}–"
                                    f"{date.fromordinal(self.max_ordinal).year})")
            era_name = self.default_era
        era = self.find_era(era_name)
        if era_year < 1:
            raise CalendarError(f"{era.name} {era_year} does not exist: era years start at 1 (元年 = 1); "
                                f"{self.era_range_text(era)}")
        year = era.to_calendar_year(era_year)
        if not self.min_year <= year <= self.max_year:
            raise CalendarError(f"{era.name} {era_year}-{month}-{day} is outside the {era.name} era; "
                                f"{self.era_range_text(era)}")
        try:
            n = self.validate(year, month, day)
        except CalendarError as exc:  # the calendar speaks of its continuous year: say the era's
            raise CalendarError(str(exc).replace(f"of year {year}", f"of {era.name} {era_year}")
                                .replace(f"year {year} has", f"{era.name} {era_year} has")) from None
        if not era.first <= n <= era.last:
            raise CalendarError(f"{era.name} {era_year}-{month}-{day} is outside the {era.name} era; "
                                f"{self.era_range_text(era)}")
        return era, n
