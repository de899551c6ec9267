"""The rules judge for dateaug answers: CORRECT / INCORRECT / NOT_ATTEMPTED, offline, no model.

format_switch (gold True/False): the paper family's yes/no reader (span.benchmark.paper.judge): the text
after the last answer marker, else every yes/no signal of the reply (restated questions ignored;
contradictory signals -> NOT_ATTEMPTED unless self-corrected).

date_arithmetic (gold {"date": ..., "variants": [...]}): the answer date is read in any of the family's
forms and more, for any year 1-9999 (proleptic Gregorian):
  * year-first numerics "2025-03-14", "2025/3/14", "2025.03.14"; year-last "14/03/2025", "3-14-2025",
    "14.03.2025"; compact "20250314"; month names, full or abbreviated, with or without ordinal suffix,
    comma or "of": "14 March 2025", "14th of March, 2025", "March 14th, 2025", "Mar. 14 2025", "14-Mar-2025",
    with an optional weekday in front ("Friday, March 14, 2025").
  * Day/month order of a year-last numeric: a field > 12 decides; a pattern note right after it
    ("(DD/MM/YYYY)") decides; else the order of the question's own form (dmy_*/mdy_*) unless the question
    left out its pattern note (the ambiguous option); else both readings are accepted (DateAugBench: "date
    format ambiguity: accept any"). Eight digits are read in the question's compact order when the
    question used DDMMYYYY/MMDDYYYY, else as YYYYMMDD.
  * Which date: the first after the last answer marker ("Final answer:", "the answer is", ...); without
    a marker, the last date of the reply. The question restated, its base date as written, and the base
    date in any form (an echo) are skipped while another date remains.
  * Two different dates joined by "or" in that sentence -> NOT_ATTEMPTED (a hedge), except in an ambiguous
    question when each is a gold variant (every reading's answer listed, the form of the paper's gold
    "18 November 1997; 17 December 1997"); no date -> NOT_ATTEMPTED; a date that does not exist
    ("30 February 2025") -> INCORRECT.
  * CORRECT when a reading equals any gold variant (an ambiguous question lists one answer per reading).
"""

from __future__ import annotations

import re
from datetime import date

from ..family import CORRECT, INCORRECT, NOT_ATTEMPTED, Verdict
from ..paper.judge import _REFUSAL, _answer_region_start, _decide_polar, _normalize, _question_mask
from . import formats as F

_MON = r"(?P<mon>" + "|".join(sorted([m.lower() for m in F.MONTHS] + list(F.MONTH_ABBR), key=len, reverse=True)) + r")\.?"
_SUF = r"(?:st|nd|rd|th)?"
_RX = re.compile(
    r"(?<![\d.])(?P<y1>\d{4})(?P<s1>[-/.])(?P<m1>\d{1,2})(?P=s1)(?P<d1>\d{1,2})(?![\d])"
    r"|(?<![\d.])(?P<a2>\d{1,2})(?P<s2>[-/.])(?P<b2>\d{1,2})(?P=s2)(?P<y2>\d{4})(?![\d])"
    r"|(?<!\d)(?P<c8>\d{8})(?!\d)"
    r"|(?<![\w])(?P<d3>\d{1,2})" + _SUF + r"(?:\s+of)?(?:\s+|-)" + _MON.replace("mon", "mon3") + r"(?:,?\s+|-)(?P<y3>\d{4})(?!\d)"
    r"|(?<![\w])" + _MON.replace("mon", "mon4") + r"(?:\s+(?:the\s+)?|-)(?P<d4>\d{1,2})" + _SUF + r"(?:,?\s+|-)(?P<y4>\d{4})(?!\d)",
    re.I)
_NOTE = re.compile(r"\s*\(\s*(?P<o>DD|MM|D|M)[/\-.](?:MM|DD|M|D)[/\-.]YYYY\s*\)")


class _Cand:
    __slots__ = ("start", "end", "text", "readings", "invalid")

    def __init__(self, start: int, end: int, text: str, readings: list[date], invalid: bool) -> None:
        self.start, self.end, self.text, self.readings, self.invalid = start, end, text, readings, invalid


def _mk(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _ambiguous(instance: dict | None) -> bool:
    """The question wrote its base date without the pattern note (the ambiguous option)."""
    v = (instance or {}).get("variables") or {}
    return bool(v.get("ambiguous")) and str(v.get("format") or "") in F.AMBIGUOUS_TWIN


def _order_hint(instance: dict | None) -> str | None:
    if _ambiguous(instance):
        return None           # no order was given: an answer in either order may be meant
    fmt = str(((instance or {}).get("variables") or {}).get("format") or "")
    return F.ORDER.get(fmt) if F.ORDER.get(fmt) in ("dmy", "mdy") else None


def _gold_variants(instance: dict | None) -> set[date]:
    out = set()
    for v in (((instance or {}).get("gold") or {}) if isinstance((instance or {}).get("gold"), dict) else {}
              ).get("variants") or ():
        try:
            out.add(date.fromisoformat(v))
        except (TypeError, ValueError):
            pass
    return out


def find_dates(text: str, instance: dict | None = None) -> list[_Cand]:
    """Every date in `text` (already normalised), with its readings."""
    hint = _order_hint(instance)
    compact = str(((instance or {}).get("variables") or {}).get("format") or "")
    out = []
    for m in _RX.finditer(text):
        g = m.groupdict()
        if g["y1"]:
            cands = [_mk(int(g["y1"]), int(g["m1"]), int(g["d1"]))]
        elif g["y2"]:
            a, b, y = int(g["a2"]), int(g["b2"]), int(g["y2"])
            note = _NOTE.match(text, m.end())
            if a > 12 or b > 12:
                cands = [_mk(y, b, a) if a > 12 else _mk(y, a, b)]
            elif note:
                cands = [_mk(y, b, a) if note.group("o").startswith("D") else _mk(y, a, b)]
            elif hint:
                cands = [_mk(y, b, a) if hint == "dmy" else _mk(y, a, b)]
            else:
                cands = [_mk(y, a, b), _mk(y, b, a)]
        elif g["c8"]:
            s = g["c8"]
            if compact == "compact_dmy":
                cands = [_mk(int(s[4:]), int(s[2:4]), int(s[:2]))]
            elif compact == "compact_mdy":
                cands = [_mk(int(s[4:]), int(s[:2]), int(s[2:4]))]
            else:
                cands = [_mk(int(s[:4]), int(s[4:6]), int(s[6:]))]
        else:
            mon = (g["mon3"] or g["mon4"]).lower()
            day = int(g["d3"] or g["d4"])
            cands = [_mk(int(g["y3"] or g["y4"]), F.MONTH_NUMBER[mon], day)]
        readings = []
        for c in cands:
            if c is not None and c not in readings:
                readings.append(c)
        out.append(_Cand(m.start(), m.end(), m.group(0), readings, not readings))
    return out


def _mask_question(text: str, instance: dict | None) -> str:
    q = (instance or {}).get("question")
    if q:
        nq = _normalize(str(q))
        text = text.replace(nq, " " * len(nq))
    return _question_mask(text)


def extract_answer_date(answer: str, instance: dict | None = None) -> tuple[_Cand | None, str]:
    text = _mask_question(_normalize(answer), instance)
    cands = find_dates(text, instance)
    if not cands:
        return None, "no date found"
    start = _answer_region_start(text)
    region = [c for c in cands if start is not None and c.start >= start]
    pool = region or cands
    bases = set()
    for s in (((instance or {}).get("variables") or {}).get("dates") or []):
        try:
            bases.add(date.fromisoformat(s))
        except ValueError:
            pass
    rest = [c for c in pool if not (c.readings and set(c.readings) <= bases)]
    pool = rest or pool
    chosen = pool[0] if region else pool[-1]
    # an ambiguous question's answers listed side by side ("18 November 1997 or 17 December 1997", the
    # paper's own gold form) are no hedge when each listed date is a gold variant
    listed = _gold_variants(instance) if _ambiguous(instance) else set()
    for other in pool:
        if other is chosen or set(other.readings) == set(chosen.readings):
            continue
        if listed and set(other.readings) & listed and set(chosen.readings) & listed:
            continue
        lo, hi = sorted((other.end, chosen.start)) if other.start < chosen.start else sorted((chosen.end, other.start))
        between = text[lo:hi]
        if len(between) < 60 and re.search(r"\bor\b", between, re.I) and not re.search(r"[.;\n]\s", between):
            return None, f"hedged between {other.text!r} and {chosen.text!r}"
    return chosen, "after the answer marker" if region else "last date in the reply"


def judge_dateaug(instance: dict, answer: str | None) -> Verdict:
    if answer is None or not str(answer).strip():
        return Verdict(NOT_ATTEMPTED, None, "empty answer")
    answer = str(answer)
    if instance.get("reasoning_type") == "format_switch":
        value, why = _decide_polar(answer)
        if value is None:
            return Verdict(NOT_ATTEMPTED, None, why)
        said = "Yes" if value else "No"
        gold = bool(instance["gold"])
        return Verdict(CORRECT if value == gold else INCORRECT, said,
                       why if value == gold else f"{why}; gold is {'Yes' if gold else 'No'}")
    if instance.get("reasoning_type") != "date_arithmetic":
        raise ValueError(f"judge_dateaug scores format_switch and date_arithmetic, not {instance.get('reasoning_type')!r}")
    chosen, why = extract_answer_date(answer, instance)
    if chosen is None:
        if why.startswith("hedged"):
            return Verdict(NOT_ATTEMPTED, None, why)
        return Verdict(NOT_ATTEMPTED, None, why + (" (refusal)" if _REFUSAL.search(answer) else ""))
    if chosen.invalid:
        return Verdict(INCORRECT, chosen.text, f"{chosen.text!r} is no valid date")
    gold = [date.fromisoformat(v) for v in instance["gold"]["variants"]]
    hit = next((r for r in chosen.readings if r in gold), None)
    if hit is not None:
        extra = " (ambiguous day/month order; a reading matches)" if len(chosen.readings) > 1 else ""
        return Verdict(CORRECT, hit.isoformat(), f"{chosen.text!r} ({why}){extra}")
    return Verdict(INCORRECT, chosen.readings[0].isoformat(),
                   f"{chosen.text!r} ({why}) != gold {' or '.join(instance['gold']['variants'])}")
