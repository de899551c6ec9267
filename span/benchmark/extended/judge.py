"""Rules judge for ordering and duration answers: CORRECT / INCORRECT / NOT_ATTEMPTED, pure, no model.

Where the answer is read
  * After the last answer marker ("Final answer:", "Answer:", "the answer is", "answer =", "\\boxed{")
    if there is one; otherwise from the reply's statements (below). The question restated in the reply
    (any sentence ending in "?", the template's answer instructions) is ignored first.

Ordering (gold {"order": [...], "first": ...})
  * An option is named by its letter -- "(B)", "[B]", "**B**", "option B", "B comes first", a bare "B"
    (a capital "A" followed by an ordinary word, as in "A date ...", is the article, not option A) -- or
    by its item's quoted text: the festival's name (or a known alias: "Moon Festival" for Mid-Autumn
    Festival) or the date exactly as the question wrote it ("5 Tammuz 5785").
  * Two items: after a marker, the option the answer starts with ("Final answer: B ...") unless the
    text right after it says it is the later one; otherwise the sentence's last cue word -- "first",
    "earlier", "before", "precedes" (or "later", "after", "follows", read the other way) -- applied to
    the option named just before it (or, if none, just after it). Without a marker, the deciding
    sentence is the last one that names an option and has such a cue; else a short reply that names
    one option only ("B", "Mid-Autumn Festival").
  * Three items: the first three different options in the order written, after a marker, or else in
    the last sentence naming all three (or a letter run "B, C, A", "B < C < A", "B -> C -> A"). "latest
    first" / "from latest to earliest" reverses it; ">" between options is ambiguous (NOT_ATTEMPTED).
    Fewer than three options named -> INCORRECT (a partial order).
  * Two different options joined by "or" in the deciding sentence -> NOT_ATTEMPTED (hedge). "The same
    day" with no option -> INCORRECT (items never fall on the same day).

Duration (gold {"days": n}; the question asks for the count from the earlier to the later day)
  * A day count is "<n> days" / "<n> day", "<w> weeks and <d> days" (= 7w + d), "<w> weeks", with
    thousands separators allowed; after a marker a bare number counts too. Numbers inside dates
    ("2025-7-1", the question's dates) and after "year" are not counts.
  * After a marker, the first count there; otherwise the last count in the reply; otherwise a reply that
    is nothing but a number; a count in brackets is an aside when the sentence has another ("45 days
    (46 counting both ends)" reads 45). A minus sign is ignored (the question asks for a distance; "-45" is the
    difference taken the other way). Two different counts joined by "or", or a range ("45-46 days",
    "45 to 46 days"), in the deciding sentence -> NOT_ATTEMPTED. "About 45 days" is read as 45.
  * No count at all (a refusal, only dates) -> NOT_ATTEMPTED.
"""

from __future__ import annotations

import re

from ... import festivals as _festivals
from ..family import CORRECT, INCORRECT, NOT_ATTEMPTED, Verdict
from .questions import REASONING_TYPES


_MARKER = re.compile(r"\bfinal\s+answer\s*(?:is\b)?\s*[:：=\-–—]?|\b(?:correct\s+)?answer\s*(?:is\b\s*:?|[:：=])"
                     r"|\\boxed\{", re.IGNORECASE)
_INSTRUCTIONS = ("Answer A or B.", "Answer with the three letters, earliest first.",
                 "Answer with the number of days from the earlier to the later (consecutive days are 1 day apart).",
                 "(consecutive days are 1 day apart)")


def _normalize(text: str) -> str:
    text = (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
            .replace("\u2212", "-").replace("**", "").replace("`", "").replace("'", ""))
    return re.sub(r"[ \t]+", " ", text).strip()


def _mask(text: str, question: str | None) -> str:
    """Blank out restated questions and instructions (same length, so positions stay valid)."""
    def blank(m: re.Match) -> str:
        return " " * len(m.group(0))
    if question:
        text = text.replace(_normalize(question), " " * len(_normalize(question)))
    for ins in _INSTRUCTIONS:
        text = re.sub(re.escape(ins), blank, text, flags=re.IGNORECASE)
    # a sentence that ends in "?" (from the previous sentence end or line break)
    return re.sub(r"(?:^|(?<=[.!:\n]))[^.!:\n?]*\?", blank, text)


def _region(text: str) -> tuple[str, bool]:
    marks = list(_MARKER.finditer(text))
    if not marks:
        return text, False
    return text[marks[-1].end():], True


def _sentences(text: str) -> list[tuple[int, str]]:
    out, start = [], 0
    for m in re.finditer(r"(?<!\d)[.!;\n]+(?!\d)", text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(s, t) for s, t in out if t.strip()]


# ---------------------------------------------------------------------------------------------
# Ordering
# ---------------------------------------------------------------------------------------------

_CUE_WORDS = ("comes", "come", "came", "is", "was", "occurs", "occurred", "falls", "fell", "happens", "happened",
              "precedes", "preceded", "then", "and", "or", "before", "after", "first", "earlier", "later",
              "last", "second")
_LATER = re.compile(r"\b(?:is|was|comes?|came|falls?|occurs?|happens?)\s+(?:later|after|last)\b|"
                    r"\bfollows\b|\blater than\b", re.IGNORECASE)
_FIRST_CUE = re.compile(r"\b(?:first|earlier|earliest|before|precedes?|preceded|sooner)\b", re.IGNORECASE)
_LATER_CUE = re.compile(r"\b(?:later|after|follows)\b", re.IGNORECASE)


def _alias_pattern(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name.replace("'", ""))
    return r"(?<![A-Za-z0-9])" + r"[\s\-']*".join(re.escape(w) for w in words) + r"(?![A-Za-z0-9])"


def _item_patterns(instance: dict) -> list[tuple[str, re.Pattern]]:
    out = []
    for item in instance["variables"]["items"]:
        names = [item["text"]]
        if item["kind"] == "festival":
            try:
                fest = _festivals.find(item["festival"], item["calendar"])
                names = [fest.name, *fest.aliases]
            except Exception:  # noqa: BLE001 - an unknown name is still matched literally
                pass
            pats = [_alias_pattern(n) for n in names]
        else:
            pats = [r"(?<![\w-])" + re.escape(item["text"]) + r"(?![\w-])"]
        out.append((item["label"], re.compile("|".join(f"(?:{p})" for p in pats), re.IGNORECASE)))
    return out


def _letter_pattern(labels: tuple[str, ...]) -> re.Pattern:
    cls = "[" + "".join(labels) + "]"
    cues = "|".join(_CUE_WORDS)
    return re.compile(
        r"[(\[](?P<p>" + cls + r")[)\]]"
        r"|\b(?i:option|choice|item|letter)\s*\(?(?P<o>(?i:" + cls + r"))\)?(?![A-Za-z])"
        # a bare capital; "A" followed by an ordinary word is the article ("A date ...")
        r"|(?<![A-Za-z0-9'])(?P<b>" + cls + r")(?![A-Za-z0-9'])(?!\s+(?!(?i:" + cues + r")\b)[A-Za-z])")


def _mentions(text: str, instance: dict) -> list[tuple[int, int, str]]:
    """(start, end, label) of every option named in `text`, in order, overlaps resolved (longest wins)."""
    labels = tuple(i["label"] for i in instance["variables"]["items"])
    found = []
    for m in _letter_pattern(labels).finditer(text):
        lab = (m.group("p") or m.group("o") or m.group("b")).upper()
        found.append((m.start(), m.end(), lab))
    for lab, rx in _item_patterns(instance):
        for m in rx.finditer(text):
            found.append((m.start(), m.end(), lab))
    found.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    out, last_end = [], -1
    for s, e, lab in found:
        if s >= last_end:
            out.append((s, e, lab))
            last_end = e
    return out


def _hedged(sentence: str, mentions: list[tuple[int, int, str]], offset: int) -> bool:
    for (_s1, e1, l1), (s2, _e2, l2) in zip(mentions, mentions[1:]):
        if l1 != l2 and re.fullmatch(r"[\s,)\]]*or\s+(?:option\s+|maybe\s+|possibly\s+)?[(\[]?\s*",
                                     sentence[e1 - offset:s2 - offset], re.IGNORECASE):
            return True
    return False


_CUE = re.compile(r"\b(?P<first>first|earlier|earliest|before|precedes?|preceded|sooner)\b"
                  r"|\b(?P<later>later|latest|after|follows|followed)\b", re.IGNORECASE)


def _two_from_sentence(sentence: str, mentions, labels, direct: bool) -> tuple[str, str]:
    """Which option the sentence says is first. `direct`: the sentence is an answer marker's text and
    starts with the option ("B", "(B) ...")."""
    first = mentions[0]
    if direct and not sentence[:first[0]].strip(" :*-([\"'"):
        nxt = next((m for m in mentions[1:] if m[2] != first[2]), None)
        between = sentence[first[1]:nxt[0] if nxt else len(sentence)]
        cue = _CUE.match(between.strip(" ,)]-"))
        if not (cue and cue.group("later")) and not _LATER.search(between):
            return first[2], "named right after the answer marker"
    cues = list(_CUE.finditer(sentence))
    if not cues:
        return first[2], "named first"
    cue = cues[-1]
    before = [m for m in mentions if m[1] <= cue.start()]
    subject = before[-1] if before else next((m for m in mentions if m[0] >= cue.end()), first)
    if cue.group("first"):
        return subject[2], f"said to be {cue.group(0)}"
    other = [lab for lab in labels if lab != subject[2]]
    return other[0], f"the other one is said to be {cue.group(0)}"


_SAME_DAY = re.compile(r"\bsame day\b|\bsimultaneous", re.IGNORECASE)
_REVERSED = re.compile(r"latest\s+(?:first|to\s+(?:the\s+)?earliest)|descending|reverse[\s-]+chronological",
                       re.IGNORECASE)
_TOK = r"[(\[]?\s*([ABC])\s*[)\]]?"
_SEP = r"\s*(?:,\s*(?:then|and)?|;|<|>|→|->|=>|then|and|\s)\s*"
_RUN = re.compile(r"(?<![A-Za-z0-9'])" + _TOK + _SEP + _TOK + _SEP + _TOK + r"(?![A-Za-z0-9'])")


def _three(sentence: str, instance: dict, offset: int, last_run: bool) -> Verdict | None:
    runs = [m for m in _RUN.finditer(sentence) if len({m.group(1), m.group(2), m.group(3)}) == 3]
    for r1, r2 in zip(runs, runs[1:]):
        if r1.group(1, 2, 3) != r2.group(1, 2, 3) and re.search(r"\bor\b", sentence[r1.end():r2.start()]):
            return Verdict(NOT_ATTEMPTED, None, "hedged between orders")
    if runs:
        run = runs[-1] if last_run else runs[0]
        order, span = [run.group(1), run.group(2), run.group(3)], run.group(0)
    else:
        ms = _mentions(sentence, instance)
        if not ms:
            return None
        order, end = [], ms[0][1]
        for _s, e, lab in ms:
            if lab not in order:
                order.append(lab)
                end = e
            if len(order) == 3:
                break
        span = sentence[ms[0][0]:end]
        used = [m for m in ms if m[1] <= end]
        if _hedged(sentence, used, 0):
            return Verdict(NOT_ATTEMPTED, None, "hedged between options")
    if re.search(r"\bor\b", span):
        return Verdict(NOT_ATTEMPTED, None, "hedged between orders")
    if ">" in span.replace("->", "").replace("=>", ""):
        return Verdict(NOT_ATTEMPTED, ", ".join(order), "'>' between options: order direction unclear")
    if _REVERSED.search(sentence):
        order.reverse()
    got = ", ".join(order)
    if len(order) < 3:
        return Verdict(INCORRECT, got, "partial order (fewer than three options)")
    gold = instance["gold"]["order"]
    return Verdict(CORRECT if order == list(gold) else INCORRECT, got, "order as written")


def _two(sentence: str, instance: dict, labels, direct: bool = False) -> Verdict | None:
    ms = _mentions(sentence, instance)
    if not ms:
        return None
    if _hedged(sentence, ms, 0):
        return Verdict(NOT_ATTEMPTED, None, "hedged between options")
    got, why = _two_from_sentence(sentence, ms, labels, direct)
    return Verdict(CORRECT if got == instance["gold"]["first"] else INCORRECT, got, why)


def _judge_ordering(instance: dict, text: str) -> Verdict:
    labels = tuple(i["label"] for i in instance["variables"]["items"])
    region, marked = _region(text)
    if marked:
        sents = _sentences(region)
        if len(labels) == 3:
            # an order may run over line breaks or semicolons ("B;\nC;\nA")
            got = _three(region, instance, 0, last_run=False)
        else:
            got = _two(sents[0][1], instance, labels, direct=True) if sents else None
        if got is not None:
            return got
        if _SAME_DAY.search(region):
            return Verdict(INCORRECT, "same day", "says the items fall on the same day")
        return Verdict(NOT_ATTEMPTED, None, "no option named after the answer marker")
    chosen = None
    for _s, t in _sentences(text):
        if len(labels) == 2:
            if _mentions(t, instance) and (_FIRST_CUE.search(t) or _LATER_CUE.search(t)):
                chosen = t
        elif any(len({m.group(1), m.group(2), m.group(3)}) == 3 for m in _RUN.finditer(t)) or \
                len({m[2] for m in _mentions(t, instance)}) == 3:
            chosen = t
    if chosen is None:
        ms = _mentions(text, instance)
        if ms and len({m[2] for m in ms}) == 1 and len(text) <= 80:
            chosen = text   # the reply is just one option ("B", "Mid-Autumn Festival")
        elif len(labels) == 3 and ms and len(text) <= 80:
            chosen = text
    if chosen is not None:
        got = _two(chosen, instance, labels) if len(labels) == 2 else _three(chosen, instance, 0, last_run=True)
        if got is not None:
            return got
    if _SAME_DAY.search(text):
        return Verdict(INCORRECT, "same day", "says the items fall on the same day")
    return Verdict(NOT_ATTEMPTED, None, "no option named")


# ---------------------------------------------------------------------------------------------
# Duration
# ---------------------------------------------------------------------------------------------

_INT = r"\d{1,3}(?:,\d{3})+|\d+"
_COUNT = re.compile(
    r"(?P<w>" + _INT + r")\s*weeks?(?:\s*(?:and|,)?\s*(?P<d>\d+)\s*days?)?\b"
    r"|(?P<n>" + _INT + r")(?:\s*|-)(?:calendar\s+|full\s+|whole\s+)?days?\b", re.IGNORECASE)
_BARE = re.compile(r"(?<![\w.])(?P<n>" + _INT + r")(?![\w])")
_DATEISH = re.compile(r"\b\d{1,4}[-/.](?:leap)?\d{1,2}[-/.]\d{1,4}\b|\byear\s+\d+\b", re.IGNORECASE)
# "45 or 46 days", "45-46 days", "45 to 46 days" (not a subtraction "738916 - 738871 = 45")
_ALTERNATIVES = re.compile(r"(?<![\d,])(" + _INT + r")\s*(?:days?\s*)?(?:or|to|[-–])\s*(" + _INT + r")(?!\s*[=\d])",
                           re.IGNORECASE)


def _counts(text: str, bare: bool) -> list[tuple[int, int, int]]:
    """(start, end, value) of day counts in `text`; with `bare`, plain numbers if there is no count."""
    out = []
    for m in _COUNT.finditer(text):
        if m.group("w") is not None:
            val = 7 * int(m.group("w").replace(",", "")) + int(m.group("d") or 0)
        else:
            val = int(m.group("n").replace(",", ""))
        out.append((m.start(), m.end(), val))
    if bare and not out:
        out = [(m.start(), m.end(), int(m.group("n").replace(",", ""))) for m in _BARE.finditer(text)]
    return out


def _bracket_depth(text: str) -> list[int]:
    out, depth = [], 0
    for ch in text:
        if ch in "([":
            depth += 1
        out.append(depth)
        if ch in ")]" and depth:
            depth -= 1
    return out


def _judge_duration(instance: dict, text: str) -> Verdict:
    gold = int(instance["gold"]["days"])
    masked = text
    for item in instance["variables"]["items"]:
        masked = re.sub(re.escape(item["text"]), lambda m: " " * len(m.group(0)), masked, flags=re.IGNORECASE)
    masked = _DATEISH.sub(lambda m: " " * len(m.group(0)), masked)
    region, marked = _region(masked)
    chosen, sentence = None, ""
    if marked:
        sents = _sentences(region)
        if sents:
            sentence = sents[0][1]
            counts = _counts(sentence, bare=True)
            chosen = counts[0] if counts else None
    else:
        for _s, t in _sentences(masked):
            c = _counts(t, bare=False)
            if c:
                # a count in brackets is an aside ("(counting both ends it would be 46 days)")
                depth = _bracket_depth(t)
                main = [x for x in c if depth[x[0]] == 0]
                chosen, sentence = (main or c)[-1], t
        if chosen is None:
            m = re.fullmatch(r"-?\s*(" + _INT + r")", masked.strip().strip(".!*\"' "))
            if m:
                return _verdict_days(int(m.group(1).replace(",", "")), gold, "the reply is a number")
    if chosen is None:
        return Verdict(NOT_ATTEMPTED, None, "no day count found")
    for m in _ALTERNATIVES.finditer(sentence):
        if m.group(1).replace(",", "") != m.group(2).replace(",", ""):
            return Verdict(NOT_ATTEMPTED, None, f"alternatives or a range: {m.group(0).strip()!r}")
    return _verdict_days(chosen[2], gold, "after the answer marker" if marked else "last day count")


def _verdict_days(value: int, gold: int, why: str) -> Verdict:
    return Verdict(CORRECT if value == gold else INCORRECT, str(value), why)


# ---------------------------------------------------------------------------------------------

def judge_extended_detail(instance: dict, answer_text: str | None) -> Verdict:
    """Verdict, the answer as read, and why (for results.jsonl's rules verdict)."""
    rtype = instance.get("reasoning_type")
    if rtype not in REASONING_TYPES:
        raise ValueError(f"judge_extended scores ordering and duration instances, not {rtype!r}")
    if answer_text is None or not str(answer_text).strip():
        return Verdict(NOT_ATTEMPTED, None, "empty answer")
    text = _mask(_normalize(str(answer_text)), instance.get("question"))
    if rtype == "ordering":
        return _judge_ordering(instance, text)
    return _judge_duration(instance, text)


def judge_extended(instance: dict, answer_text: str | None) -> str:
    """"CORRECT" | "INCORRECT" | "NOT_ATTEMPTED" for an ordering or duration instance."""
    return judge_extended_detail(instance, answer_text).verdict
