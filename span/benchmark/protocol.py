"""The paper's protocol, shared by every task family: its calendars, directions and festivals, the
evaluation date in each calendar (stage 1), and the Islamic convention that swaps the paper's tabular
Islamic calendar for Saudi Arabia's Umm al-Qura calendar.

Stage 2 of the paper (template matching) is fixed here: (source, target) pairs with exactly one side
Gregorian (10 directions) and 49 festival/target pairs (7 Gregorian festivals x 5 targets + 14
festivals of the Chinese lunar, Islamic and Persian calendars x Gregorian).
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache

from .. import festivals as _festivals
from ..calendars import CALENDAR_NAMES, get_calendar
from ..dates import CalendarDate
from .errors import GeneratorError

ISLAMIC_CONVENTIONS = ("tabular", "umm_al_qura")
ISLAMIC_CALENDAR = {"tabular": "islamic", "umm_al_qura": "islamic_umm_al_qura"}

NON_GREGORIAN = tuple(c for c in CALENDAR_NAMES if c != "gregorian")
DIRECTIONS: tuple[tuple[str, str], ...] = tuple(("gregorian", c) for c in NON_GREGORIAN) + \
    tuple((c, "gregorian") for c in NON_GREGORIAN)
PAPER_FESTIVALS = tuple(f for f in _festivals.FESTIVALS if f.paper)
FESTIVAL_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (f.name, t) for f in PAPER_FESTIVALS
    for t in (NON_GREGORIAN if f.calendar == "gregorian" else ("gregorian",)))
assert len(PAPER_FESTIVALS) == 21 and len(FESTIVAL_PAIRS) == 49


_TITLES = {c: get_calendar(c).title for c in CALENDAR_NAMES}
# How questions name the Umm al-Qura calendar: "Islamic" tells a model it is the Hijri calendar (month
# names, festivals), the bracket which of its conventions; the bare "Islamic" stays the paper's tabular one.
QUESTION_TITLES = {"islamic_umm_al_qura": "Islamic (Umm al-Qura)"}
_TITLES.update(QUESTION_TITLES)


def calendar_title(calendar: str) -> str:
    """The calendar as questions name it: "Gregorian", "Chinese lunar", "Islamic", ..."""
    title = _TITLES.get(calendar)
    return title if title is not None else get_calendar(calendar).title


def check_convention(convention) -> str:
    if convention not in ISLAMIC_CONVENTIONS:
        raise GeneratorError(f"unknown islamic_convention {convention!r:.40}; valid: "
                             f"{' or '.join(ISLAMIC_CONVENTIONS)} (tabular = the paper's arithmetic calendar, "
                             f"umm_al_qura = Saudi Arabia's civil calendar)")
    return convention


def swap(calendar: str, convention: str) -> str:
    """The calendar that plays `calendar`'s part under the convention (only the Islamic one changes)."""
    return ISLAMIC_CALENDAR[convention] if calendar == "islamic" else calendar


def _uq_festival(f: _festivals.Festival) -> _festivals.Festival:
    uq = _festivals.find(f.name, "islamic_umm_al_qura")
    assert (uq.month, uq.day) == (f.month, f.day), uq  # the same rule, on the other calendar
    return uq


def calendars_for(convention: str = "tabular") -> tuple[str, ...]:
    """The six calendars of the protocol under a convention (the Islamic one swapped)."""
    return tuple(swap(c, check_convention(convention)) for c in CALENDAR_NAMES)


def festivals_for(convention: str = "tabular") -> tuple:
    """The 21 paper festivals under a convention (the four Islamic ones on the Umm al-Qura calendar)."""
    if check_convention(convention) == "tabular":
        return PAPER_FESTIVALS
    return tuple(_uq_festival(f) if f.calendar == "islamic" else f for f in PAPER_FESTIVALS)


@lru_cache(maxsize=None)
def directions_for(convention: str = "tabular") -> tuple[tuple[str, str], ...]:
    check_convention(convention)
    return tuple((swap(a, convention), swap(b, convention)) for a, b in DIRECTIONS)


@lru_cache(maxsize=None)
def festival_pairs_for(convention: str = "tabular") -> tuple[tuple[str, str], ...]:
    """FESTIVAL_PAIRS under a convention, in the same order."""
    fests = dict(zip((f.name for f in PAPER_FESTIVALS), festivals_for(convention)))
    return tuple((fests[name].name, swap(t, convention)) for name, t in FESTIVAL_PAIRS)


# every festival a question of either convention can name, by its canonical name
FESTIVAL_BY_NAME = {f.name: f for f in (*PAPER_FESTIVALS, *festivals_for("umm_al_qura"))}


@lru_cache(maxsize=None)
def directions_among(non_gregorian: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The (source, target) pairs with Gregorian on one side and each of `non_gregorian` on the other:
    Gregorian to each, then each to Gregorian (the paper's 10 for its five)."""
    return tuple(("gregorian", c) for c in non_gregorian) + tuple((c, "gregorian") for c in non_gregorian)


@lru_cache(maxsize=None)
def festival_pairs_among(non_gregorian: tuple[str, ...], convention: str = "tabular") -> tuple[tuple[str, str], ...]:
    """The paper's festival/target pairs with `non_gregorian` as the other side: each Gregorian festival to
    each of them, each festival of one of them to Gregorian (the paper's 49 for its five), in the paper's
    order. A festival whose calendar is not among them is left out."""
    out = []
    for f in festivals_for(convention):
        if f.calendar == "gregorian":
            out.extend((f.name, t) for t in non_gregorian)
        elif f.calendar in non_gregorian:
            out.append((f.name, "gregorian"))
    return tuple(out)


class EvalDay:
    """Stage 1, once per evaluation date: the date in every calendar a family asks for, each conversion
    made once (``day["hebrew"]``) and shared by every family's plan and build of that date."""

    __slots__ = ("date", "_dates")

    def __init__(self, eval_date: date) -> None:
        if not isinstance(eval_date, date):
            raise GeneratorError(f"evaluation date must be a datetime.date, got {eval_date!r:.60}")
        self.date = eval_date
        self._dates = {"gregorian": CalendarDate.create("gregorian", eval_date.year, eval_date.month, eval_date.day)}

    def __getitem__(self, calendar: str) -> CalendarDate:
        hit = self._dates.get(calendar)
        if hit is None:
            hit = self._dates[calendar] = self._dates["gregorian"].to(calendar)
        return hit

    def refs(self, calendars) -> dict[str, CalendarDate]:
        """The day in each of `calendars` (canonical names), in that order."""
        return {c: self[c] for c in calendars}

    def isoformat(self) -> str:
        return self.date.isoformat()

    def __repr__(self) -> str:
        return f"EvalDay({self.date.isoformat()})"


def reference_dates(eval_date: date, islamic_convention: str = "tabular") -> dict[str, CalendarDate]:
    """Stage 1: the evaluation date in all six calendars (the Islamic one per the convention)."""
    return EvalDay(eval_date).refs(calendars_for(islamic_convention))
