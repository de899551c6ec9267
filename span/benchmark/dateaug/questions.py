"""The dateaug question templates and reading a question back (never from the gold).

    format_switch     Are "<A>" [(NOTE)] and "<B>" [(NOTE)] the same date? Answer Yes or No.
    date_arithmetic   What date is <N> <days|weeks|months> <before|after> "<D>" [(NOTE)]? Answer with the date.

N is written with thousands separators ("10,000 days", as in DateAugBench's "What date is 10,000 days
before 5/4/2025?"). A month step keeps the day of the month (the family only asks it for days 1-28, so
no clamping convention is involved).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from . import cross, formats as F
from .formats import add_months

REASONING_TYPES = ("format_switch", "date_arithmetic")
QUESTION_FORMATS = {"format_switch": "polar", "date_arithmetic": "content"}  # content: the answer is a date
DIRECTION = "gregorian->gregorian"
UNITS = ("days", "weeks", "months")

SWITCH = "Are {A} and {B} the same date? Answer Yes or No."
ARITH = "What date is {N} {unit} {where} {D}? Answer with the date."

_DATE = r'"(?P<{0}>[^"]{{1,40}})"(?: \((?P<{0}n>[A-Z/.\-]{{6,10}})\))?'
_SWITCH_RX = re.compile("^Are " + _DATE.format("a") + " and " + _DATE.format("b") +
                        r" the same date\? Answer Yes or No\.$")
_ARITH_RX = re.compile(r"^What date is (?P<n>\d{1,3}(?:,\d{3})*) (?P<unit>days?|weeks?|months?) "
                       r"(?P<where>before|after) " + _DATE.format("d") + r"\? Answer with the date\.$")


def count_text(n: int) -> str:
    return f"{n:,}"


def render_switch(a: date, fa: str, b: date, fb: str, ambiguous: bool = False) -> str:
    return SWITCH.format(A=F.quoted(a, fa, ambiguous), B=F.quoted(b, fb, ambiguous))


def render_arith(base: date, fmt: str, n: int, unit: str, sign: int, ambiguous: bool = False) -> str:
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; valid: {', '.join(UNITS)}")
    word = unit if n != 1 else unit[:-1]
    return ARITH.format(N=count_text(n), unit=word, where="after" if sign > 0 else "before",
                        D=F.quoted(base, fmt, ambiguous))


@dataclass(frozen=True)
class ParsedDateaug:
    """A dateaug question read back. `readings` holds every (date, form) reading of each quoted date
    (one unless the question left out the pattern note of an ambiguous form)."""
    reasoning_type: str
    texts: tuple[str, ...]
    readings: tuple[tuple[tuple[date, str], ...], ...]
    n: int = 0
    unit: str = ""
    sign: int = 0
    other: object = None          # cross-calendar option: the other calendar's date (a CalendarDate)

    @property
    def question_format(self) -> str:
        return QUESTION_FORMATS[self.reasoning_type]

    @property
    def direction(self) -> str:
        return "cross_calendar" if self.other is not None else DIRECTION

    @property
    def source_calendar(self) -> str:
        return self.other.calendar if self.other is not None else "gregorian"

    @property
    def target_calendar(self) -> str:
        return "gregorian"


def looks_dateaug(text: str) -> bool:
    return text.startswith(("Are \"", "Are the ", "What date is "))


def parse_dateaug(text: str) -> ParsedDateaug:
    if text.startswith("Are the "):
        other, fam, greg, gfmt = cross.parse(text)
        # the other date is not converted here: the agents convert it (the tools, a program)
        return ParsedDateaug("format_switch", (f"{other.calendar}:{fam}", gfmt), ((), ((greg, gfmt),)), other=other)
    m = _SWITCH_RX.match(text)
    if m:
        ra = tuple(F.parse(m.group("a"), m.group("an")))
        rb = tuple(F.parse(m.group("b"), m.group("bn")))
        return ParsedDateaug("format_switch", (m.group("a"), m.group("b")), (ra, rb))
    m = _ARITH_RX.match(text)
    if m:
        unit = m.group("unit") if m.group("unit").endswith("s") else m.group("unit") + "s"
        return ParsedDateaug("date_arithmetic", (m.group("d"),), (tuple(F.parse(m.group("d"), m.group("dn"))),),
                             int(m.group("n").replace(",", "")), unit, 1 if m.group("where") == "after" else -1)
    raise ValueError('not a dateaug question: expected \'Are "<date>" and "<date>" the same date? Answer Yes or '
                     'No.\' or \'What date is <N> days|weeks|months before|after "<date>"? Answer with the date.\'')


def shifted(d: date, n: int, unit: str, sign: int) -> date:
    """The answer of an arithmetic question, by day numbers (the independent check of the code)."""
    if unit == "months":
        return add_months(d, sign * n)
    per = 7 if unit == "weeks" else 1
    return date.fromordinal(d.toordinal() + sign * n * per)
