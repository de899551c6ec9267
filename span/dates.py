"""A date in one of the calendars: validated on creation, converted through the day number."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date as _date

from .calendars import ALL_CALENDAR_NAMES, MAX_ORDINAL, MIN_ORDINAL, get_calendar
from .errors import CalendarError

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_int(value, what: str) -> int:
    # Accept integral floats and plain decimal strings from loosely typed callers (JSON, LLM tool
    # calls); reject everything else with a message rather than a TypeError.
    if isinstance(value, bool):
        raise CalendarError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isascii() and digits.isdecimal() and len(digits) <= 12:
            return int(text)
    raise CalendarError(f"{what} must be an integer, got {_short(value)}")


def as_leap_flag(value) -> bool:
    """The leap-month flag: a bool (or 0/1, "true"/"false" from loosely typed callers), nothing else."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "0", "1"):
        return value.strip().lower() in ("true", "1")
    raise CalendarError(f"is_lunar_leap_month must be true or false, got {_short(value)}")


@dataclass(frozen=True, order=False)
class CalendarDate:
    calendar: str
    year: int
    month: int
    day: int
    is_leap_month: bool = False
    # Era calendars (japanese_era, roc): the era's canonical name, and `year` is the year counted in it
    # (Reiwa 1 = 2019). None elsewhere. A date built directly with era=None in an era calendar holds the
    # calendar's continuous year (span.arithmetic's intermediate steps); `create`/`from_ordinal` set the era.
    era: str | None = None

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def create(cls, calendar: str, year, month, day, is_leap_month: bool = False, era=None) -> "CalendarDate":
        cal = get_calendar(calendar)
        y, m, d = _as_int(year, "year"), _as_int(month, "month"), _as_int(day, "day")
        # The paper's interface ignores the leap flag for calendars without repeated leap months
        # (Hebrew Adar II is month 13, not a flagged month 12).
        leap = as_leap_flag(is_leap_month) and cal.has_leap_months
        if cal.eras:
            _, n = cal.validate_era(era if era != "" else None, y, m, d)
            return cls._of(cal, n)  # the era and the year counted in it, also when given a Gregorian year
        if era is not None and era != "":
            with_eras = " and ".join(n for n in ALL_CALENDAR_NAMES if get_calendar(n).eras)  # from the registry
            raise CalendarError(f"the {cal.title} calendar has no eras (only {with_eras} take one); "
                                f"leave era out, got {_short(era)}")
        cal.validate(y, m, d, leap)
        return cls(cal.name, y, m, d, leap)

    @classmethod
    def _of(cls, cal, ordinal: int) -> "CalendarDate":
        y, m, d, leap = cal.from_ordinal(ordinal)
        if cal.eras:
            era = cal.era_of(ordinal)
            out = cls(cal.name, era.from_calendar_year(y), m, d, leap, era.name)
        else:
            out = cls(cal.name, y, m, d, leap)
        object.__setattr__(out, "_ordinal", ordinal)
        return out

    @classmethod
    def from_ordinal(cls, calendar: str, ordinal: int) -> "CalendarDate":
        cal = get_calendar(calendar)
        if isinstance(ordinal, bool) or not isinstance(ordinal, int):
            raise CalendarError(f"a day number must be an integer, got {_short(ordinal)}")
        if not MIN_ORDINAL <= ordinal <= MAX_ORDINAL:
            raise CalendarError(f"day number {ordinal} is out of range; supported dates: "
                                f"Gregorian 1900-01-01 … 2100-12-31")
        return cls._of(cal, ordinal)

    @classmethod
    def from_dict(cls, data: dict) -> "CalendarDate":
        if not isinstance(data, dict):
            raise CalendarError(f"a date must be an object with calendar, year, month, day; got {_short(data)}")
        missing = [k for k in ("calendar", "year", "month", "day") if k not in data]
        if missing:
            raise CalendarError(f"date is missing {', '.join(missing)}; give calendar, year, month, day "
                                f"(and is_leap_month for a Chinese leap month)")
        return cls.create(data["calendar"], data["year"], data["month"], data["day"],
                          data.get("is_leap_month", False), data.get("era"))

    # -- views --------------------------------------------------------------------------------
    @property
    def ordinal(self) -> int:
        # Validates too: a CalendarDate built directly (not through create) may name a day that
        # does not exist, and must fail with a CalendarError, not an AttributeError.
        n = self.__dict__.get("_ordinal")  # frozen: computed (and validated) once
        if n is None:
            cal = get_calendar(self.calendar)
            if self.era is not None:
                n = cal.validate_era(self.era, self.year, self.month, self.day)[1]
            else:
                n = cal.validate(self.year, self.month, self.day, self.is_leap_month)
            object.__setattr__(self, "_ordinal", n)
        return n

    @property
    def linear_year(self) -> int:
        """The calendar's continuous year, which its layouts and year/month steps count: `year`, except in
        an era calendar (Gregorian year for japanese_era, Gregorian - 1911 for roc)."""
        if self.era is None:
            return self.year
        return get_calendar(self.calendar).find_era(self.era).to_calendar_year(self.year)

    def to(self, calendar: str) -> "CalendarDate":
        return CalendarDate._of(get_calendar(calendar), self.ordinal)

    def to_date(self) -> _date:
        return _date.fromordinal(self.ordinal)

    def weekday(self) -> str:
        return WEEKDAYS[self.to_date().weekday()]

    def month_name(self) -> str:
        return get_calendar(self.calendar).month_name(self.linear_year, self.month, self.is_leap_month)

    def display(self) -> str:
        """As questions and answers write it: "1 Tammuz 5725", "2025-7-1", "2023-leap2-15"."""
        if self.era is not None:  # "Reiwa 1-5-1"
            return f"{self.era} {self.year}-{self.month}-{self.day}"
        return get_calendar(self.calendar).format(self.year, self.month, self.day, self.is_leap_month)

    def numeric(self) -> str:
        """The paper's search_calendar string "Y-M-D" (leap flag not included)."""
        return f"{self.year}-{self.month}-{self.day}"

    def as_dict(self) -> dict:
        out = {"calendar": self.calendar, "year": self.year, "month": self.month, "day": self.day,
               "is_leap_month": self.is_leap_month}
        if self.era is not None:
            out["era"] = self.era
        return out

    def __str__(self) -> str:
        return f"{self.display()} ({self.calendar})"
