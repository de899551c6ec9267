"""The extended question templates (ordering, duration): items, wording, and reading them back.

An *item* is one thing a question compares: a date written in one of the six calendars
('the Hebrew calendar date "5 Tammuz 5785"') or a festival of a given year of its own calendar
('the Islamic festival "Eid al-Adha" of Islamic year 1447'). A question names two or three items,
each in a different calendar, labelled (A), (B), (C) in the order written.

Templates (the whole question; {A} {B} {C} are item phrases):

  ordering, two items   Which comes first: (A) {A} or (B) {B}? Answer A or B.
  ordering, three items Order these from earliest to latest: (A) {A}; (B) {B}; (C) {C}. Answer with the
                        three letters, earliest first.
  duration              How many days apart are {A} and {B}? Answer with the number of days from the
                        earlier to the later (consecutive days are 1 day apart).

The duration is the absolute difference of the two day numbers (|B - A|, never negative; a date and
the next day are 1 day apart, a date and itself 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as _date

from ...calendars import CALENDAR_NAMES, get_calendar
from ...dates import CalendarDate
from ...errors import CalendarError
from ... import festivals as _festivals
from .. import formats as _formats
from ..protocol import calendar_title
from ..snippets import CODE_CALENDAR

# The paper's six calendars, named here rather than taken from the registry so that calendars added to
# the core later never change what this generator emits.
CALENDARS: tuple[str, ...] = CALENDAR_NAMES   # the paper's six (the calendar registry's first six)
LABELS = ("A", "B", "C")

REASONING_TYPES = ("ordering", "duration")
# "content" in the paper's instances means "the gold is a date in the target calendar" (execute.py, the
# rules judge and the report's Umm al-Qura check rely on that); these formats keep those paths off.
QUESTION_FORMATS = {"ordering": "choice", "duration": "numeric"}
DIRECTION = "cross_calendar"

ORDERING_TWO = "Which comes first: (A) {A} or (B) {B}? Answer A or B."
ORDERING_THREE = ("Order these from earliest to latest: (A) {A}; (B) {B}; (C) {C}. "
                  "Answer with the three letters, earliest first.")
DURATION = ("How many days apart are {A} and {B}? Answer with the number of days from the earlier to the "
            "later (consecutive days are 1 day apart).")


@dataclass(frozen=True)
class Item:
    """A date (kind "date": `date` set) or a festival in a year of its own calendar (kind "festival")."""
    kind: str                        # "date" | "festival"
    calendar: str                    # canonical calendar name
    date: CalendarDate | None = None
    festival: str | None = None      # canonical festival name
    year: int | None = None          # the festival's year, in its own calendar

    @classmethod
    def of_date(cls, d: CalendarDate) -> "Item":
        return cls("date", d.calendar, date=d)

    @classmethod
    def of_festival(cls, name: str, year: int, calendar: str | None = None) -> "Item":
        # Give the calendar: one name can belong to festivals of several calendars ("Eid al-Fitr").
        fest = _festivals.find(name, calendar)
        return cls("festival", fest.calendar, festival=fest.name, year=int(year))

    @property
    def text(self) -> str:
        """What the question quotes: the date as written, or the festival name."""
        return self.date.display() if self.kind == "date" else self.festival

    def phrase(self) -> str:
        title = calendar_title(self.calendar)
        if self.kind == "date":
            return f'the {title} calendar date "{self.text}"'
        return f'the {title} festival "{self.festival}" of {title} year {self.year}'

    def resolve(self) -> CalendarDate:
        """The item's day, with the core directly (no search_calendar, no text)."""
        if self.kind == "date":
            return CalendarDate.create(self.calendar, self.date.year, self.date.month, self.date.day,
                                       self.date.is_leap_month)
        return _festivals.date_in_year(_festivals.find(self.festival, self.calendar), self.year)

    @property
    def ordinal(self) -> int:
        return self.resolve().ordinal

    def search_arguments(self) -> dict:
        """Arguments for the MCP `search_calendar` tool that give this item's day."""
        if self.kind == "date":
            d = self.date
            out = {"calendar": self.calendar, "year": d.year, "month": d.month, "day": d.day,
                   "is_lunar_leap_month": bool(d.is_leap_month)}
            if d.era is not None:  # an era calendar (japanese_era, roc): the year is counted in its era
                out["era"] = d.era
            return out
        return {"calendar": self.calendar, "year": self.year, "festival_name": self.festival}

    def code_arguments(self) -> list[tuple[str, str]]:
        """Keyword arguments (as code text) for the paper's Python search_calendar."""
        if self.kind == "date":
            d = self.date
            args = [("year", str(d.year)), ("month", str(d.month)), ("day", str(d.day))]
            if d.is_leap_month:
                args.append(("is_lunar_leap_month", "True"))
            if d.era is not None:
                args.append(("era", f'"{d.era}"'))
            return args
        if '"' in self.festival or "\\" in self.festival:
            raise ValueError(f"festival name cannot be quoted in code: {self.festival!r}")
        return [("year", str(self.year)), ("event", f'"{self.festival}"')]

    def as_dict(self) -> dict:
        return {"kind": self.kind, "calendar": self.calendar,
                "date": self.date.as_dict() if self.date is not None else None,
                "festival": self.festival, "year": self.year, "text": self.text}

    @classmethod
    def from_dict(cls, data: dict) -> "Item":
        if data.get("kind") == "date":
            return cls.of_date(CalendarDate.from_dict(data["date"]))
        if data.get("kind") == "festival":
            return cls.of_festival(data["festival"], data["year"], data.get("calendar"))
        raise ValueError(f"an item has kind 'date' or 'festival', got {data.get('kind')!r}")


def template_id(reasoning_type: str, items: tuple[Item, ...] | list[Item]) -> str:
    """ordering_two_{dates|festivals|mixed}, ordering_three, duration_{dates|festivals|mixed}."""
    if reasoning_type == "ordering" and len(items) == 3:
        return "ordering_three"
    kinds = {i.kind for i in items}
    what = "mixed" if len(kinds) > 1 else ("dates" if kinds == {"date"} else "festivals")
    return f"ordering_two_{what}" if reasoning_type == "ordering" else f"duration_{what}"


def render_question(reasoning_type: str, items: tuple[Item, ...] | list[Item]) -> str:
    phrases = {label: item.phrase() for label, item in zip(LABELS, items)}
    if reasoning_type == "duration":
        if len(items) != 2:
            raise ValueError("a duration question names exactly two items")
        return DURATION.format(**phrases)
    if reasoning_type != "ordering":
        raise ValueError(f"unknown extended reasoning type {reasoning_type!r}; valid: ordering, duration")
    if len(items) == 2:
        return ORDERING_TWO.format(**phrases)
    if len(items) == 3:
        return ORDERING_THREE.format(**phrases)
    raise ValueError("an ordering question names two or three items")


# ---------------------------------------------------------------------------------------------
# Reading a question back
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ParsedExtendedQuestion:
    """An ordering or duration question read back from its text (never from the gold)."""
    reasoning_type: str               # "ordering" | "duration"
    items: tuple[Item, ...]           # in the order written: A, B[, C]
    question_format: str              # "choice" | "numeric"
    template_id: str

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS[:len(self.items)]

    @property
    def source_calendar(self) -> str:
        return self.items[0].calendar

    @property
    def target_calendar(self) -> str:
        return self.items[1].calendar

    @property
    def direction(self) -> str:
        return DIRECTION


_CAL = r"[A-Za-z][A-Za-z ]*?"
_ITEM = (r'the (?:' + _CAL + r') (?:calendar date "[^"]+"|festival "[^"]+" of ' + _CAL + r' year \d{1,4})')
_ITEM_PARTS = re.compile(r'^the (?P<cal>' + _CAL + r') (?:calendar date "(?P<date>[^"]+)"|festival '
                         r'"(?P<fest>[^"]+)" of (?P<ycal>' + _CAL + r') year (?P<year>\d{1,4}))$')


def _pattern(template: str) -> re.Pattern:
    body = re.escape(template)
    for label in LABELS:
        body = body.replace(re.escape("{" + label + "}"), f"(?P<{label}>{_ITEM})")
    return re.compile("^" + body + "$")


_PATTERNS = (("ordering", _pattern(ORDERING_TWO)), ("ordering", _pattern(ORDERING_THREE)),
             ("duration", _pattern(DURATION)))


def looks_extended(text: str) -> bool:
    """Does the (normalised) text start like one of the extended templates?"""
    return text.startswith(("Which comes first:", "Order these from earliest to latest:", "How many days apart"))


def _calendar(name: str) -> str:
    try:
        return get_calendar(name).name
    except CalendarError as exc:
        raise ValueError(f"unknown calendar {name!r}: {exc}") from None


def parse_item(phrase: str) -> Item:
    """'the Hebrew calendar date "5 Tammuz 5785"' or 'the Islamic festival "Eid al-Adha" of Islamic
    year 1447' -> Item. Raises ValueError (a CalendarError for an invalid date or festival)."""
    m = _ITEM_PARTS.match(phrase)
    if m is None:
        raise ValueError(f"not an item phrase: {phrase!r:.80}")
    cal = _calendar(m.group("cal"))
    if cal not in CODE_CALENDAR:
        raise ValueError(f"the {m.group('cal')} calendar is not one of the six benchmark calendars")
    if m.group("date") is not None:
        d, _fam = _formats.parse(m.group("date"), None, cal)
        return Item.of_date(d)
    if _calendar(m.group("ycal")) != cal:
        raise ValueError(f"festival {m.group('fest')!r}: its year must be counted in its own calendar ({cal})")
    fest = _festivals.find(m.group("fest"), cal)
    item = Item.of_festival(fest.name, int(m.group("year")), cal)
    item.resolve()   # the year must be inside the supported range
    return item


def parse_extended(text: str) -> ParsedExtendedQuestion:
    """Read an ordering or duration question (already whitespace/quote-normalised). ValueError if not."""
    for rtype, rx in _PATTERNS:
        m = rx.match(text)
        if m is None:
            continue
        items = tuple(parse_item(m.group(label)) for label in LABELS if label in rx.groupindex)
        return ParsedExtendedQuestion(rtype, items, QUESTION_FORMATS[rtype], template_id(rtype, items))
    raise ValueError("not an ordering or duration question: expected 'Which comes first: (A) ... or (B) ...? "
                     "Answer A or B.', 'Order these from earliest to latest: (A) ...; (B) ...; (C) .... "
                     "Answer with the three letters, earliest first.' or 'How many days apart are ... and "
                     "...? Answer with the number of days ...'")


def ordinal_of(value) -> int:
    """A day number from what a converter returns: a datetime.date, a CalendarDate, an MCP
    search_calendar result (its "gregorian" entry), or the paper's dict ("gregorian_date": "Y-M-D")."""
    if isinstance(value, CalendarDate):
        return value.ordinal
    if isinstance(value, _date):
        return value.toordinal()
    if isinstance(value, dict):
        g = value.get("gregorian")
        if isinstance(g, dict):
            return _date(int(g["year"]), int(g["month"]), int(g["day"])).toordinal()
        if isinstance(value.get("gregorian_date"), str):
            y, m, d = (int(x) for x in value["gregorian_date"].split("-"))
            return _date(y, m, d).toordinal()
    raise TypeError(f"cannot read a day from {type(value).__name__}; give a datetime.date, a CalendarDate, "
                    f"or a search_calendar result")


def answer_from_ordinals(reasoning_type: str, ordinals: list[int] | tuple[int, ...]) -> str:
    """The answer text ("B", "B, C, A", "45") from the items' day numbers, in item order."""
    labels = LABELS[:len(ordinals)]
    if reasoning_type == "duration":
        if len(ordinals) != 2:
            raise ValueError("a duration question has two items")
        return str(abs(ordinals[1] - ordinals[0]))
    if len(set(ordinals)) != len(ordinals):
        raise ValueError("two items fall on the same day; no order")
    order = sorted(labels, key=lambda lab: ordinals[labels.index(lab)])
    return order[0] if len(order) == 2 else ", ".join(order)
