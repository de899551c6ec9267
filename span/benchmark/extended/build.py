"""Ordering and duration instances for one evaluation date (opt-in; the paper's 1,780 are untouched).

Items are anchored to the evaluation date the way the paper's templates are:
* dates: the evaluation date plus or minus a seeded number of days, written in one of the six calendars;
* festivals: the paper's 21 festivals (Appendix A), each in the year of its own calendar that contains
  the evaluation date (as the paper's festival templates count from the reference date's year);
* "mixed" questions pair a festival with dates a few days before or after it (ordering) or with the
  evaluation date moved by up to 60 days (duration).
Every question's items are in different calendars and fall on different days.

Per evaluation date (fixed counts):
  ordering_two_dates      60  15 calendar pairs x 4 gap classes (1-3, 4-14, 15-60, 61-180 days)
  ordering_two_festivals  40  festival pairs from different calendars (seeded draw, no ties)
  ordering_two_mixed      42  21 festivals x (a date 1-30 days before, a date 1-30 days after)
  ordering_three          60  20 calendar triples x (2 three-date questions, 1 festival + 2 dates)
  duration_dates          60  15 calendar pairs x 4 gap classes (1-30, 31-120, 121-365, 366-730 days)
  duration_festivals      40  festival pairs from different calendars (seeded draw, no ties)
  duration_mixed          42  21 festivals x 2 dates (evaluation date +- 0..60 days)
  => 202 ordering + 142 duration = 344.

Balance: inside every template the items' written order is a seeded shuffle of a balanced list of
permutations, so for two items the earlier one is (A) exactly half the time, and for three items each of
the 6 orders is the answer equally often (10 each; so each letter is first 20 times).

Gold: the instance's code (search_calendar + datetime, like the paper's Appendix F code) is executed;
the result is checked against the core's day numbers directly (CalendarDate.create(...).ordinal /
festivals.date_in_year) and against the planned day numbers. Any difference raises GoldMismatchError.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date
from itertools import combinations, permutations
from typing import Iterable, Iterator, NamedTuple

from ...dates import CalendarDate
from ...disputes import dispute_of
from ..errors import GoldMismatchError
from ..evaldates import check_eval_date
from ..execute import CachedSearch, run_code
from ..protocol import PAPER_FESTIVALS, EvalDay
from ..snippets import search_call
from .questions import (CALENDARS, DIRECTION, LABELS, QUESTION_FORMATS, Item, answer_from_ordinals,
                        render_question, template_id)

ORDERING_GAPS = ((1, 3), (4, 14), (15, 60), (61, 180))
DURATION_GAPS = ((1, 30), (31, 120), (121, 365), (366, 730))
FESTIVAL_PAIRS_PER_DATE = 40
TEMPLATE_COUNTS = {"ordering_two_dates": 60, "ordering_two_festivals": 40, "ordering_two_mixed": 42,
                   "ordering_three": 60, "duration_dates": 60, "duration_festivals": 40, "duration_mixed": 42}
EXTENDED_PER_DATE = sum(TEMPLATE_COUNTS.values())
assert EXTENDED_PER_DATE == 344

_CAL_PAIRS = tuple(combinations(CALENDARS, 2))        # 15
_CAL_TRIPLES = tuple(combinations(CALENDARS, 3))      # 20
_FESTIVAL_CALENDARS = tuple(c for c in CALENDARS if any(f.calendar == c for f in PAPER_FESTIVALS))


# ---------------------------------------------------------------------------------------------
# Planning: (reasoning type, items earliest first) per question, then the written order
# ---------------------------------------------------------------------------------------------

class _Plan:
    def __init__(self, day: EvalDay, seed) -> None:
        eval_date = self.eval_date = day.date
        self.seed = seed
        self.today = eval_date.toordinal()
        refs = day.refs(CALENDARS)   # the paper's six, tabular Islamic (the convention is the paper family's)
        self.festival_days = {f.name: Item.of_festival(f.name, refs[f.calendar].year, f.calendar)
                              for f in PAPER_FESTIVALS}
        self.ordinals = {name: item.ordinal for name, item in self.festival_days.items()}

    def rng(self, what: str) -> random.Random:
        return random.Random(f"span/extended/{self.seed}/{self.eval_date.isoformat()}/{what}")

    @staticmethod
    def date(calendar: str, ordinal: int) -> tuple[Item, int]:
        return Item.of_date(CalendarDate.from_ordinal(calendar, ordinal)), ordinal

    def festival(self, name: str) -> tuple[Item, int]:
        return self.festival_days[name], self.ordinals[name]

    def dates_pairs(self, what: str, gaps, spread: int) -> list[list[tuple[Item, int]]]:
        rng = self.rng(what)
        out = []
        for i, (c1, c2) in enumerate(_CAL_PAIRS):
            for k, (lo, hi) in enumerate(gaps):
                early, late = (c1, c2) if (i + k) % 2 == 0 else (c2, c1)
                while True:   # redraw when two dates would be written alike ("2025-8-20" in two calendars)
                    start = self.today + rng.randint(-spread, spread)
                    gap = rng.randint(lo, hi)
                    items = [self.date(early, start), self.date(late, start + gap)]
                    if _distinct(items):
                        break
                out.append(items)
        return out

    def festival_pairs(self, what: str) -> list[list[tuple[Item, int]]]:
        rng = self.rng(what)
        pairs = [(f.name, g.name) for f, g in combinations(PAPER_FESTIVALS, 2) if f.calendar != g.calendar]
        rng.shuffle(pairs)
        out = []
        for f, g in pairs:
            if self.ordinals[f] != self.ordinals[g]:
                out.append(sorted([self.festival(f), self.festival(g)], key=lambda x: x[1]))
            if len(out) == FESTIVAL_PAIRS_PER_DATE:
                break
        return out

    def ordering_mixed(self) -> list[list[tuple[Item, int]]]:
        rng = self.rng("ordering_two_mixed")
        out = []
        for f in PAPER_FESTIVALS:
            fest = self.festival(f.name)
            before_cal, after_cal = rng.sample([c for c in CALENDARS if c != f.calendar], 2)
            out.append([self.date(before_cal, fest[1] - rng.randint(1, 30)), fest])
            out.append([fest, self.date(after_cal, fest[1] + rng.randint(1, 30))])
        return out

    def ordering_three(self) -> list[list[tuple[Item, int]]]:
        rng = self.rng("ordering_three")
        out = []
        for triple in _CAL_TRIPLES:
            for _ in range(2):
                cals = rng.sample(triple, 3)
                while True:
                    start = self.today + rng.randint(-180, 180)
                    g1, g2 = rng.randint(1, 20), rng.randint(1, 20)
                    items = [self.date(cals[0], start), self.date(cals[1], start + g1),
                             self.date(cals[2], start + g1 + g2)]
                    if _distinct(items):
                        break
                out.append(items)
            fcal = rng.choice([c for c in triple if c in _FESTIVAL_CALENDARS])
            fest = self.festival(rng.choice([f.name for f in PAPER_FESTIVALS if f.calendar == fcal]))
            others = [c for c in triple if c != fcal]
            while True:
                o1, o2 = rng.sample([x for x in range(-30, 31) if x != 0], 2)
                items = [fest, self.date(others[0], fest[1] + o1), self.date(others[1], fest[1] + o2)]
                if _distinct(items):
                    break
            out.append(sorted(items, key=lambda x: x[1]))
        return out

    def duration_mixed(self) -> list[list[tuple[Item, int]]]:
        rng = self.rng("duration_mixed")
        out = []
        for f in PAPER_FESTIVALS:
            fest = self.festival(f.name)
            for cal in rng.sample([c for c in CALENDARS if c != f.calendar], 2):
                day = self.today + rng.randint(-60, 60)
                while day == fest[1]:
                    day = self.today + rng.randint(-60, 60)
                out.append(sorted([self.date(cal, day), fest], key=lambda x: x[1]))
        return out


def _distinct(items: list[tuple[Item, int]]) -> bool:
    """Different days and different quoted texts (so an answer naming an item names one)."""
    return len({n for _, n in items}) == len(items) and len({i.text for i, _ in items}) == len(items)


def _balanced_orders(n_items: int, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """`count` permutations (position -> rank of the item written there), each equally often."""
    perms = list(permutations(range(n_items)))
    out = [perms[i % len(perms)] for i in range(count)]
    rng.shuffle(out)
    return out


class PlannedQuestion(NamedTuple):
    """One planned question: its items in written order and their day numbers."""
    reasoning_type: str
    template_id: str
    items: tuple[Item, ...]
    ordinals: tuple[int, ...]
    eval_date: date

    @property
    def strata(self) -> tuple:
        return (f"extended:{self.reasoning_type}", self.template_id,
                f"{self.items[0].calendar}->{self.items[1].calendar}", QUESTION_FORMATS[self.reasoning_type], "yes",
                "paper", self.eval_date.isoformat())


def plan_extended(eval_date: date | EvalDay, seed=0) -> list[PlannedQuestion]:
    """Every question of the date, planned (no code run)."""
    day = eval_date if isinstance(eval_date, EvalDay) else EvalDay(eval_date)
    eval_date = check_eval_date(day.date)
    p = _Plan(day, seed)
    groups = [
        ("ordering", "ordering_two_dates", p.dates_pairs("ordering_two_dates", ORDERING_GAPS, 180)),
        ("ordering", "ordering_two_festivals", p.festival_pairs("ordering_two_festivals")),
        ("ordering", "ordering_two_mixed", p.ordering_mixed()),
        ("ordering", "ordering_three", p.ordering_three()),
        ("duration", "duration_dates", p.dates_pairs("duration_dates", DURATION_GAPS, 365)),
        ("duration", "duration_festivals", p.festival_pairs("duration_festivals")),
        ("duration", "duration_mixed", p.duration_mixed()),
    ]
    out = []
    for rtype, tid, questions in groups:
        if len(questions) != TEMPLATE_COUNTS[tid]:
            raise GoldMismatchError(f"{eval_date} {tid}: planned {len(questions)} questions, "
                                    f"expected {TEMPLATE_COUNTS[tid]}")
        orders = _balanced_orders(len(questions[0]), len(questions), p.rng(f"{tid}/order"))
        for ranked, order in zip(questions, orders):
            written = [ranked[r] for r in order]
            items = tuple(i for i, _ in written)
            if template_id(rtype, items) != tid:
                raise GoldMismatchError(f"{eval_date} {tid}: planned items make a {template_id(rtype, items)}")
            out.append(PlannedQuestion(rtype, tid, items, tuple(n for _, n in written), eval_date))
    return out


# ---------------------------------------------------------------------------------------------
# Code (the paper's Appendix F style) and execution
# ---------------------------------------------------------------------------------------------

def _item_code(item: Item, var: str) -> str:
    if item.kind == "date" and item.calendar == "gregorian":
        d = item.date
        return f"{var} = datetime({d.year}, {d.month}, {d.day})\n"
    return (search_call(item.calendar, item.code_arguments()) +
            f'{var} = datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")\n')


def extended_code(reasoning_type: str, items: tuple[Item, ...]) -> str:
    """Python that leaves the answer in `answer`: "A"/"B", "B, C, A", or an int number of days."""
    out = "from datetime import datetime\n\n"
    names = [f"date_{lab.lower()}" for lab in LABELS[:len(items)]]
    for item, var in zip(items, names):
        out += _item_code(item, var) + "\n"
    if reasoning_type == "duration":
        return out + "answer = abs((date_b - date_a).days)\n"
    if len(items) == 2:
        return out + 'answer = "A" if date_a < date_b else "B"\n'
    return out + ('dates = {"A": date_a, "B": date_b, "C": date_c}\n'
                  'answer = ", ".join(sorted(dates, key=dates.get))\n')


def gold_of(reasoning_type: str, raw) -> tuple[str, dict]:
    """(answer display, structured gold) from what the code left in `answer`."""
    if reasoning_type == "duration":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise GoldMismatchError(f"duration code must leave a non-negative int, got {raw!r}")
        return str(raw), {"days": raw}
    if raw in ("A", "B"):   # two items: the code names the first; the order follows
        order = [raw, "B" if raw == "A" else "A"]
    else:
        order = raw.split(", ") if isinstance(raw, str) else []
        if sorted(order) != list(LABELS):
            raise GoldMismatchError(f"ordering code must leave 'A', 'B' or an order like 'B, C, A', got {raw!r}")
    return raw, {"order": order, "first": order[0]}


def execute_extended(instance: dict, search=None):
    """Run an extended instance's code; return (raw answer, gold as the instance stores it)."""
    kwargs = {} if search is None else {"search": search}
    raw = run_code(instance["code"], filename=f"<{instance.get('id', 'instance')}>", **kwargs)
    return raw, gold_of(instance["reasoning_type"], raw)[1]


def _instance_id(eval_date: date, tid: str, items: tuple[Item, ...]) -> str:
    iso = eval_date.isoformat()
    parts = [iso, tid]
    for item in items:
        if item.kind == "date":
            d = item.date
            parts.append(f"date:{d.calendar}:{d.year}:{d.month}:{d.day}:{int(d.is_leap_month)}")
        else:
            parts.append(f"festival:{item.calendar}:{item.festival}:{item.year}")
    digest = hashlib.sha1("|".join(parts).encode()).hexdigest()[:10]
    return f"{iso.replace('-', '')}-{tid}-{'-'.join(i.calendar for i in items)}-{digest}"


def generate_extended(eval_date: date, *, seed=0, search=None) -> Iterator[dict]:
    """The 344 ordering and duration instances of one evaluation date (instance JSONL schema)."""
    return build_extended(eval_date, plan_extended(eval_date, seed), search=search)


def build_extended(eval_date: date, planned_questions: Iterable[PlannedQuestion], *, search=None) -> Iterator[dict]:
    """The instances of planned questions of one evaluation date, each gold-checked."""
    search = search if search is not None else CachedSearch()
    today = eval_date.toordinal()
    seen: set[str] = set()
    for rtype, tid, items, planned, _ in planned_questions:
        code = extended_code(rtype, items)
        raw = run_code(code, search)
        answer, gold = gold_of(rtype, raw)
        direct = [item.ordinal for item in items]   # the core's own arithmetic, no search_calendar
        if direct != list(planned) or answer_from_ordinals(rtype, direct) != answer:
            raise GoldMismatchError(f"{eval_date} {tid} {[i.text for i in items]}: code gives {raw!r}, core "
                                    f"gives {answer_from_ordinals(rtype, direct)!r} (days {direct}, planned "
                                    f"{list(planned)})")
        if len({i.calendar for i in items}) != len(items) or len({i.text for i in items}) != len(items):
            raise GoldMismatchError(f"{eval_date} {tid}: items must differ in calendar and text: "
                                    f"{[i.phrase() for i in items]}")
        iid = _instance_id(eval_date, tid, items)
        if iid in seen:
            raise GoldMismatchError(f"{eval_date} {tid}: duplicate question {iid}")
        seen.add(iid)
        variables = {
            "items": [{"label": lab, **item.as_dict(), "offset_days": n - today}
                      for lab, item, n in zip(LABELS, items, direct)],
            "date_format": "paper",
        }
        disputed = [_disputed(d) for d in (item.resolve() for item in items) if dispute_of(d) is not None]
        yield {
            "id": iid,
            "eval_date": eval_date.isoformat(),
            "reasoning_type": rtype,
            "question_format": QUESTION_FORMATS[rtype],
            "direction": DIRECTION,
            "source_calendar": items[0].calendar,
            "target_calendar": items[1].calendar,
            "template_id": tid,
            "variables": variables,
            "question": render_question(rtype, items),
            "code": code,
            "answer": answer,
            "gold": gold,
            **({"disputed": disputed} if disputed else {}),
        }


def _disputed(d) -> dict:
    """An item's day whose reading the sources dispute (span.disputes): the order or count may differ."""
    return {"calendar": d.calendar, "date": d.display(), **dispute_of(d).as_dict()}
