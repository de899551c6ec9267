"""Read a generated question back into its variables (CONTRACTS.md: parse_question).

Reads every rendering the generator produces: the 12 templates of Table 1, all six calendars, every
reference-date format family (with or without a "(DD/MM/YYYY)" note), Chinese leap months, and
expected dates of polar questions. Typographic quotes (“ ” ’) are accepted as well as ASCII ones, and
"1 day" as well as the paper's "1 days".

With islamic_convention="umm_al_qura" the questions name the Saudi calendar "Islamic (Umm al-Qura)"
(templates.QUESTION_TITLES) and its festivals by their usual names ("Eid al-Fitr"); both read back as
the `islamic_umm_al_qura` calendar and its festivals ("Eid al-Fitr (Umm al-Qura)").

(The opt-in ordering and duration questions are read by their own family: span.benchmark.extended;
span.benchmark.parse_question reads any family's question.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...calendars import get_calendar
from ...dates import CalendarDate
from ...errors import CalendarError
from ... import festivals as _festivals
from ...textforms import parse_date
from .. import formats as _formats
from ..errors import QuestionParseError
from ..protocol import QUESTION_TITLES


@dataclass(frozen=True)
class ParsedQuestion:
    source_calendar: str
    target_calendar: str
    reasoning_type: str            # "date" | "festival"
    question_format: str           # "content" | "polar"
    reference_date: CalendarDate
    unit: str                      # "days" | "weeks" | "years"
    offset: int
    sign: int                      # -1 ago, +1 later
    festival: str | None           # canonical festival name
    expected_date: CalendarDate | None
    date_format: str = "paper"     # how the reference date was written (formats.py family)
    reference_text: str = ""
    expected_text: str | None = None

    @property
    def sense(self) -> str:
        return "ago" if self.sign < 0 else "later"

    @property
    def direction(self) -> str:
        return "gregorian_to_other" if self.source_calendar == "gregorian" else "other_to_gregorian"

    @property
    def template_id(self) -> str:
        return f"{self.reasoning_type}_{self.question_format}_{self.unit}_{self.sense}"


# A calendar title: words, or a word and a bracketed convention ("Islamic (Umm al-Qura)").
_CAL = r"[A-Za-z][A-Za-z ]*?(?: \([A-Za-z][A-Za-z' -]*\))?"
_HEAD = re.compile(r'^Today\'s date on the (?P<src>' + _CAL + r') calendar is "(?P<ref>[^"]+)"'
                   r'(?: \((?P<note>[^)]+)\))?\. (?P<body>.+)$')
_TAIL = r' (?P<n>\d+) (?P<unit>days?|weeks?|years?) (?P<sense>ago|later)' \
        r'(?: equivalent to the date "(?P<exp>[^"]+)")?\?$'
_DATE_BODY = re.compile(r'^(?P<verb>What was|What is|Was|Is) the (?P<tgt>' + _CAL + r') calendar date' + _TAIL)
_FEST_BODY = re.compile(r'^(?P<verb>What was|What is|Was|Is) the (?P<tgt>' + _CAL + r') calendar date of the '
                        r'(?P<fsrc>' + _CAL + r') festival "(?P<fest>[^"]+)"' + _TAIL)


def normalize(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip()


_BY_TITLE = {title.lower(): name for name, title in QUESTION_TITLES.items()}


def _calendar(name: str, what: str) -> str:
    hit = _BY_TITLE.get(name.lower())
    if hit is not None:
        return hit
    try:
        return get_calendar(name).name
    except CalendarError as exc:
        raise QuestionParseError(f"unknown {what} calendar {name!r}: {exc}") from None


def looks_paper(text: str) -> bool:
    """Does the (normalised) text open the way every paper question does?"""
    return _HEAD.match(text) is not None


def parse_paper(text: str) -> ParsedQuestion:
    """A paper question (normalised text) -> ParsedQuestion; QuestionParseError says what failed."""
    head = _HEAD.match(text)
    if not head:
        raise QuestionParseError("not a SPAN paper question: expected it to start with "
                                 "'Today's date on the <calendar> calendar is \"<date>\".'")
    source = _calendar(head.group("src"), "source")
    body = head.group("body")
    m = _FEST_BODY.match(body)
    rtype = "festival"
    if m is None:
        m = _DATE_BODY.match(body)
        rtype = "date"
    if m is None:
        raise QuestionParseError(f"unrecognised question body: {body!r}")
    target = _calendar(m.group("tgt"), "target")
    unit = m.group("unit") if m.group("unit").endswith("s") else m.group("unit") + "s"
    if (rtype == "festival") != (unit == "years"):
        raise QuestionParseError(f"{rtype}-based questions do not count in {unit}")
    polar = m.group("verb") in ("Was", "Is")
    if polar != (m.group("exp") is not None):
        raise QuestionParseError("a yes/no question needs an expected date and a 'what' question none")
    festival = None
    if rtype == "festival":
        if _calendar(m.group("fsrc"), "festival") != source:
            raise QuestionParseError("the festival's calendar differs from the reference date's calendar")
        try:
            festival = _festivals.find(m.group("fest"), source).name
        except CalendarError as exc:
            raise QuestionParseError(str(exc)) from None
    try:
        ref, fam = _formats.parse(head.group("ref"), head.group("note"), source)
    except CalendarError as exc:
        raise QuestionParseError(f"reference date: {exc}") from None
    expected = None
    if polar:
        try:
            expected = parse_date(m.group("exp"), target)
        except CalendarError as exc:
            raise QuestionParseError(f"expected date: {exc}") from None
    return ParsedQuestion(
        source_calendar=source, target_calendar=target, reasoning_type=rtype,
        question_format="polar" if polar else "content", reference_date=ref, unit=unit,
        offset=int(m.group("n")), sign=-1 if m.group("sense") == "ago" else 1, festival=festival,
        expected_date=expected, date_format=fam, reference_text=head.group("ref"),
        expected_text=m.group("exp"))
