"""The paper family's rules judge: CORRECT / INCORRECT / NOT_ATTEMPTED, offline, no model.

Verdict categories follow DateAugBench (the date-fragments paper, Appendix "LLM-as-Judge"):
CORRECT = the final answer states the gold; INCORRECT = a committed answer that is not the gold
(wrong date, partial date, invalid date, date in the wrong calendar); NOT_ATTEMPTED = no answer,
a refusal, a hedge between alternatives, or a contradictory yes/no.

Rules (the README documents them; tests/test_judges_rules.py pins each one):

Polar questions (gold is a bool)
  * The answer is read from (1) the text after the last explicit answer marker ("Final answer:",
    "the answer is", "answer =", "\\boxed{"), else (2) every yes/no signal in the reply: standalone
    yes/no/true/false/correct/incorrect words at a clause start, and predicates such as "they are
    (not) equivalent", "is the same", "does not match", "different". Questions are ignored, so a
    restated question never votes: a sentence opening with a question word ("Is it ...?", "What
    ...?") whole, else only the clause holding the "?" (from the last dash, comma, "(" or ";"), so
    "Yes, it matches - did you want the Gregorian date too?" keeps its "Yes"; text right after an
    answer marker is never ignored. "whether ..." clauses do not assert. Right after an answer
    marker, "no" / "true" / "correct" opening a noun phrase ("Final answer: No discrepancy - ...",
    "No doubt, yes") is not the answer; the words after it are read instead.
  * All signals agree -> that answer. Signals disagree -> NOT_ATTEMPTED (contradictory), unless a
    self-correction cue ("actually", "wait", "correction", "on second thought") precedes the last
    change of mind, in which case the last stated answer counts.
  * No signal -> NOT_ATTEMPTED (also for a bare date with no yes/no).

Content questions (gold is a date in the target calendar)
  * Dates are found in the target calendar only, in every form the renderer or a model writes:
    Y-M-D with - / . separators (also zero-padded, compact YYYYMMDD, "2025年7月1日"), D/M/Y and
    M/D/Y, the paper's "6 30, 2060" (month day, year), "D Month Y", "D Month, Y", "Month D, Y",
    "5785 Tammuz 1", "1st of Tammuz 5725", "the first of Tammuz, 5725", "the 15th day of the leap
    2nd month of 2023", "month 2, day 15, 2023", with every month spelling in get_calendar(c).month_names and
    .month_name_variants (case, apostrophes, hyphens and diacritics ignored; a parenthesised
    alternative such as "Adar (Adar I)" is allowed). Numeric dates count only if their year is in the
    target calendar's supported range (so "2025-7-1" is never read as a Hebrew date).
  * Month numbers are the core's: Hebrew Nisan = 1 ... Tishri = 7, Adar / Adar I = 12, Adar II /
    Veadar = 13. A bare "Adar" in a Hebrew leap year is ambiguous and matches Adar I or Adar II.
  * Chinese lunar leap months: "2023-leap2-15", "2023-L2-15", "2023-闰2-15", "2023年闰二月十五",
    "leap month 2", "intercalary 2nd month", "2023-2-15 (leap month)". The leap flag is part of the
    date: the same numbers without the marker name the regular month, a different day -> INCORRECT.
  * Day/month order for year-last numeric dates, first rule that applies: a field marked "leap"
    is the month; a field > 12 decides; "." means day-first (D.M.Y); a "(DD/MM/YYYY)" /
    "(MM/DD/YYYY)" note right after the date; the convention of another unambiguous year-last date
    in the same reply; the convention the question stated (generator --date-formats: dmy_*, mdy_*);
    otherwise every valid reading is accepted (DateAugBench: "Date format ambiguity: ... accept
    any"). The paper's "6 30, 2060" form is month-first. 8-digit DDMMYYYY / MMDDYYYY answers are read
    only when the question used that form; otherwise 8 digits are YYYYMMDD.
  * Which date is the answer: the text after the last answer marker, its first date; without a
    marker, the last date in the reply. Ignored on the way: questions (as for polar questions);
    dates labelled with another calendar ("(Gregorian)", "Gregorian date 2025-7-1", "1446 AH" for a
    Persian target). A bracket after a date labels that date only when it holds nothing but a
    calendar name ("(Gregorian)", "(in the Hebrew calendar)", "(Hebrew date)"); a bracket holding
    a date labels the date inside it, so in "4 Tammuz 5785 (Gregorian: 30 June 2025)" the answer
    is 4 Tammuz 5785. Also ignored: dates negated ("not 5 Tammuz"); dates used as the base of a computation ("3 days after X");
    and echoes of the question's reference date (its own numbers, or the reference date converted
    into the target calendar) — those only when another date remains.
  * A date the reply labels with the target calendar ("(lunar: 2025-5-29)") is preferred over the
    unlabelled dates it could be confused with.
  * Two different dates joined by "or" in the chosen sentence -> NOT_ATTEMPTED (hedge), also when
    one of them is the restated reference date ("4 Tammuz 5785 or 5 Tammuz 5785").
  * A month and day with no year -> INCORRECT (a partial answer, DateAugBench rule 4).
  * A date that does not exist (30 in a 29-day month, Adar II in a common year) -> INCORRECT.
  * No target-calendar date but a date in another calendar (even just the reference date copied,
    as the baseline does) -> INCORRECT ("wrong calendar"); so is a date the reply calls a target
    date though it cannot be one and states it as the answer after a copula or a colon ("The Hebrew
    date was 2025-3-14", "Hebrew date: 2025-3-14"); a date only mentioned ("the Hebrew date for
    2025-3-14"), negated, the base of a computation or the reference date restated is no answer; with
    refusal wording, or with no date at all -> NOT_ATTEMPTED.
  * Only echoes of the reference date plus refusal wording -> NOT_ATTEMPTED.
  * The comparison with the gold is by (year, month, day, is_leap_month); selection never looks at
    the gold, so listing several dates cannot earn a CORRECT.

Why this module is long: reading a free-text answer is one job with many cases (every date form of six
calendars, yes/no signals, hedges, labels, echoes); split across modules the rules above would have to
share most of their state, and the order in which they apply is the point of the docstring.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from ...calendars import CALENDAR_NAMES, get_calendar
from ...dates import CalendarDate
from ...errors import CalendarError
from ..family import CORRECT, INCORRECT, NOT_ATTEMPTED, Verdict

Reading = tuple[int, int, int, bool]  # (year, month, day, is_leap_month)


# ---------------------------------------------------------------------------------------------
# Text normalisation (positions below always refer to the normalised text)
# ---------------------------------------------------------------------------------------------

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uff0d"), "-")
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u02bb\u02bc\u02bf\u02be`\u00b4"), "'")


def _normalize(text: str) -> str:
    # NFKD + dropping combining marks folds "Mordād"/"Esfând" to ASCII and full-width digits to ASCII;
    # CJK characters (闰, 年) have no decomposition and survive.
    t = unicodedata.normalize("NFKD", text)
    t = "".join(ch for ch in t if not unicodedata.combining(ch))
    t = t.translate(_DASHES).translate(_QUOTES).replace("\u00a0", " ")
    # Markdown emphasis and code marks carry no meaning for the answer; LaTeX \text{} likewise.
    t = t.replace("**", "").replace("__", "").replace("~~", "").replace("*", "")
    t = re.sub(r"(?<!\w)_|_(?!\w)", "", t)
    t = re.sub(r"^\s*#+\s*", "", t, flags=re.M)
    t = re.sub(r"\\(?:text|mathrm|textbf)\{([^{}]*)\}", r"\1", t)
    return t


_INTERROGATIVE = re.compile(
    r"\s*[\"'(\[]*(?:is|are|was|were|do|does|did|what|which|when|where|who|whom|whose|why|how|"
    r"can|could|would|will|should|shall|has|have|had|may|might|must|isn't|aren't|wasn't|weren't|"
    r"doesn't|don't|didn't)\b", re.I)
_CLAUSE_BREAK = re.compile(r"[,(;\[]|(?<=\s)-+|-+(?=\s)|-{2,}")


def _question_mask(text: str) -> str:
    """Blank out (same length) questions: a restated question never answers.

    A sentence that opens with a question word ("What is ...?", "Is it ...?") is blanked whole.
    Otherwise only the clause holding the "?" is: from the last clause boundary before it (a dash,
    comma, "(", ";" or an answer marker), so "Yes, it matches - did you want more?" keeps its "Yes"
    and "Final answer: 4 Tammuz 5785 (perhaps you meant ...?)" keeps its date. Text right after an
    answer marker is never blanked ("Final answer: 4 Tammuz 5785?" is a tentative answer)."""
    out = list(text)
    for m in re.finditer(r"[^.!?\n]*(?:\.\d[^.!?\n]*)*\?", text):
        seg = m.group(0)
        if _INTERROGATIVE.match(seg):
            start = 0
        else:
            start = 0
            for b in _CLAUSE_BREAK.finditer(seg):
                start = b.start()
            marker_end = None
            for a in _ANSWER_MARKER.finditer(seg):
                marker_end = a.end()
            if marker_end is not None and marker_end > start:
                continue              # the question clause is the answer itself: keep it
        for i in range(m.start() + start, m.end() - 1):   # the "?" stays: it still ends a clause
            if out[i] != "\n":
                out[i] = " "
    return "".join(out)


_REFUSAL = re.compile(
    r"\b(?:i\s+(?:can(?:no|')t|cannot|am\s+(?:unable|not\s+able)|'m\s+(?:unable|not\s+able)|"
    r"do\s+not\s+(?:have|know)|don't\s+(?:have|know)|am\s+not\s+sure|'m\s+not\s+sure)|"
    r"unable\s+to\s+(?:determine|compute|calculate|answer|provide|convert)|"
    r"(?:cannot|can't|can\s+not)\s+be\s+(?:determined|computed|calculated)|"
    r"not\s+possible\s+to\s+(?:determine|say|compute)|insufficient\s+information|"
    r"i'?m\s+sorry|i\s+apologi[sz]e|as\s+an\s+ai)\b", re.I)

# The explicit final-answer markers. "\boxed{" is LaTeX-style; "answer =" is code-style.
_ANSWER_MARKER = re.compile(
    r"(?:\bfinal\s+answer\b\s*(?:is|would\s+be|:|=|-)?|"
    r"\b(?:the\s+|my\s+)?answer\s*(?:is|would\s+be|will\s+be|should\s+be|[:=])|\\boxed\{)", re.I)


def _answer_region_start(masked: str) -> int | None:
    last = None
    for m in _ANSWER_MARKER.finditer(masked):
        last = m
    return None if last is None else last.end()


# ---------------------------------------------------------------------------------------------
# Month-name tables -> one regex per calendar
# ---------------------------------------------------------------------------------------------

def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).lower()
    return re.sub(r"['\s\-.]+", "", s.translate(_QUOTES))


# Variants that are also common English words only count when capitalised ("on day 5" is not Dey).
_CAPITALISED_ONLY = {"may", "mar", "day", "ab", "av", "bul", "dei", "sawan", "bhadra", "jan"}

_ORD_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
              "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
              "seventeenth", "eighteenth", "nineteenth", "twentieth"]
_ORD_WORDS += [f"twenty-{w}" for w in _ORD_WORDS[:9]] + ["thirtieth", "thirty-first"]
_ORD_VALUE = {w: i + 1 for i, w in enumerate(_ORD_WORDS)}
_ORDW = "|".join(w.replace("-", r"[\s\-]?") for w in sorted(_ORD_WORDS, key=len, reverse=True))


def _ord_value(word: str) -> int:
    w = re.sub(r"[\s\-]+", "", word.lower())
    w = re.sub(r"^(twenty|thirty)(?=.)", r"\1-", w)   # "twenty first" / "twentyfirst" -> "twenty-first"
    return _ORD_VALUE[w]


@dataclass(frozen=True)
class _MonthTable:
    lookup: dict          # folded spelling -> month number
    pattern: str          # regex alternation of every spelling


@lru_cache(maxsize=None)
def _month_table(calendar: str) -> _MonthTable | None:
    cal = get_calendar(calendar)
    if not cal.month_names:
        return None
    spellings: dict[str, int] = {}
    for number, name in cal.month_names.items():
        spellings[name.lower()] = number
    for name, number in cal.month_name_variants.items():
        spellings.setdefault(name.lower(), number)
    lookup = {_fold(s): n for s, n in spellings.items()}
    alts = []
    for s in sorted(spellings, key=len, reverse=True):
        tokens = [t for t in re.split(r"[\s\-]+", s.replace("'", "")) if t]
        # Apostrophes may appear anywhere ("Sha'ban", "Rabi' al-Awwal"); separators are free.
        tok_rx = ["'?".join(re.escape(c) for c in t) for t in tokens]
        alts.append(r"[\s\-']*".join(tok_rx))
    return _MonthTable(lookup, "|".join(alts))


# ---------------------------------------------------------------------------------------------
# Candidate dates
# ---------------------------------------------------------------------------------------------

@dataclass
class _Cand:
    calendar: str
    start: int
    end: int
    text: str
    readings: list          # valid (y, m, d, leap) readings, preferred first
    literal: Reading | None  # the reading as written, kept for reporting when it is invalid
    has_year: bool = True
    ambiguous_order: bool = False  # year-last numeric with day/month order undecided
    flags: set = field(default_factory=set)  # echo / base / negated / label:<calendar>

    @property
    def valid(self) -> bool:
        return bool(self.readings)

    def display(self) -> str:
        cal = get_calendar(self.calendar)
        y, m, d, leap = self.readings[0] if self.readings else self.literal
        if not self.has_year:
            return f"{d} {cal.month_name(2000, m, leap)} (no year)" if not cal.numeric_display \
                else f"{'leap' if leap else ''}{m}-{d} (no year)"
        try:
            return cal.format(y, m, d, leap)
        except Exception:  # an invalid date may not render (e.g. month 14)
            return f"{y}-{'leap' if leap else ''}{m}-{d}"


_YSEP = r"\s*[-/.,]?\s*(?:(?:of|in)\s+)?(?:the\s+)?(?:year\s+)?(?:of\s+)?"
_YEAR = r"(?<!\d)(?P<y>\d{4})(?!\d|[.,]\d)"
_PAREN = r"(?:\s*\((?P<alt>[^()\n]{1,30})\))?"
_DAY = r"(?<![\d.])(?P<d>[0-3]?\d)(?:st|nd|rd|th)?(?!\d)"
_DAYW = rf"(?P<dw>{_ORDW})(?=\s+(?:day\s+)?of\b)"
_MORD = rf"(?P<m>\d{{1,2}})(?:st|nd|rd|th)?|(?P<mw>{'|'.join(_ORD_WORDS[:12])})"
_LEAP_TRAIL = re.compile(r"\s*[\(\[,]?\s*(?:in\s+)?(?:an?\s+|the\s+)?(?:leap|intercalary|闰)(?!\s*year)", re.I)
_CN_NUM = {"正": 1, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
           "十": 10, "冬": 11, "腊": 12, "臘": 12}


def _cn_value(s: str, month: bool) -> int:
    if s.isdigit():
        return int(s)
    s = s.replace("初", "").replace("廿", "二十").replace("卅", "三十")
    if month and s in ("十一", "冬"):
        return 11
    if month and s in ("十二", "腊", "臘"):
        return 12
    if s == "十":
        return 10
    if "十" in s:
        tens, _, ones = s.partition("十")
        return (_CN_NUM[tens] if tens else 1) * 10 + (_CN_NUM[ones] if ones else 0)
    return _CN_NUM[s]


def _era_pattern(cal) -> re.Pattern:
    """An era calendar's date: "Reiwa 7-6-30", "R7.6.30", "令和7年6月30日" (元 = 1), "Minguo 114-6-30". The
    reply is accent-folded (_normalize), so the era names are too; a Gregorian "2025-6-30" is no era date."""
    names = {_normalize(a) for e in cal.eras for a in (e.name, *e.aliases)}
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z])(?P<era>{alt})\s*(?P<y>\d{{1,3}}|元)(?!\d)\s*(?:年|[-/.,]|\s)\s*(?P<m>\d{{1,2}})"
                      rf"\s*(?:月|[-/.])\s*(?P<d>\d{{1,2}})(?!\d)", re.I)


@lru_cache(maxsize=None)
def _patterns(calendar: str) -> dict[str, re.Pattern]:
    cal = get_calendar(calendar)
    out: dict[str, re.Pattern] = {}
    f = re.I
    if cal.eras:  # japanese_era, roc: only a date that names its era is a date of the calendar
        return {"era": _era_pattern(cal)}
    # a calendar whose years have fewer than four digits in range (bahai: 56-257)
    year_rx = _YEAR if cal.min_year >= 1000 else r"(?<!\d)(?P<y>\d{2,4})(?!\d|[.,]\d)"
    out["ymd"] = re.compile(
        r"(?<![\d/.])(?P<y>\d{4})\s*(?P<sep>[-/.])\s*(?P<lp1>leap\s*|intercalary\s*|l|闰)?(?P<m>\d{1,2})"
        r"(?P<lp2>l|\s*\((?:leap|闰)\))?\s*(?P=sep)\s*(?P<d>\d{1,2})(?!\d)", f)
    out["dmy"] = re.compile(r"(?<![\d.\-/])(?P<alp>leap\s*|l|闰)?(?P<a>\d{1,2})(?P<sep>[-/.])(?P<blp>leap\s*|l|闰)?"
                            r"(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})(?!\d)", re.I)
    out["compact"] = re.compile(r"(?<![\d\-/.])(?P<y>\d{4})(?P<m>[01]\d)(?P<d>[0-3]\d)(?!\d)")
    out["compact_yl"] = re.compile(r"(?<![\d\-/.])(?P<a>[0-3]\d)(?P<b>[0-3]\d)(?P<y>\d{4})(?!\d)")
    out["paper_mdy"] = re.compile(r"(?<![\d.\-/])(?P<a>\d{1,2})\s+(?P<b>\d{1,2}),\s*(?P<y>\d{4})(?!\d)")
    if cal.numeric_display:
        out["cjk"] = re.compile(
            r"(?P<y>\d{4})\s*年\s*(?P<lp1>闰|閏)?\s*(?P<m>[正一二三四五六七八九十冬腊臘]{1,2}|\d{1,2})\s*月\s*"
            r"(?P<d>初[一二三四五六七八九十]|二十[一二三四五六七八九]?|廿[一二三四五六七八九]?|三十|"
            r"十[一二三四五六七八九]?|[一二三四五六七八九]|\d{1,2})(?!\d)")
    if cal.has_leap_months:
        lp = r"(?P<lp1>leap\s+|intercalary\s+)?"
        out["prose_dm"] = re.compile(
            rf"(?:(?<![\d.])(?P<d>[0-3]?\d)(?:st|nd|rd|th)?|(?P<dw>{_ORDW}))\s+day\s+of\s+(?:the\s+)?{lp}"
            rf"(?:{_MORD})\s+(?P<lp3>leap\s+|intercalary\s+)?(?:lunar\s+)?month"
            rf"(?P<lp2>\s*\((?:leap|intercalary)(?:\s+month)?\))?\s*,?\s*(?:(?:of|in)\s+)?(?:the\s+)?"
            rf"(?:lunar\s+)?(?:year\s+)?(?:of\s+)?{_YEAR}", f)
        out["prose_md"] = re.compile(
            rf"{lp}(?:lunar\s+)?month\s+(?P<m>\d{{1,2}})(?P<lp2>\s*\((?:leap|intercalary)\))?\s*,?\s*day\s+"
            rf"(?P<d>\d{{1,2}})\s*,?\s*(?:(?:of|in)\s+)?(?:the\s+)?(?:lunar\s+)?(?:year\s+)?{_YEAR}", f)
        out["prose_ymd"] = re.compile(
            rf"(?:year\s+)?(?<!\d)(?P<y>\d{{4}})(?!\d)\s*,?\s*{lp}(?:lunar\s+)?month\s+(?P<m>\d{{1,2}})"
            rf"(?P<lp2>\s*\((?:leap|intercalary)\))?\s*,?\s*day\s+(?P<d>\d{{1,2}})(?!\d)", f)
    table = _month_table(calendar)
    if table is not None:
        # an ʿayn or hamza may open or close a transliterated name (Bahá'í "ʻAẓamat", "Asmáʼ")
        mon = rf"(?<![A-Za-z])(?P<mon>'?(?:{table.pattern})'?)\.?(?![A-Za-z0-9]){_PAREN}"
        day = rf"(?:{_DAY}|{_DAYW})"
        pre = r"\s*[-/.]?\s*(?:day\s+)?(?:of\s+)?(?:the\s+month\s+of\s+)?"
        out["dmy_named"] = re.compile(rf"{day}{pre}{mon}{_YSEP}{year_rx}", f)
        out["mdy_named"] = re.compile(rf"{mon}\s*[-/.]?\s*(?:the\s+)?{_DAY}{_YSEP}{year_rx}", f)
        # "5785 Tammuz 4" / "2025-June-30": year first, then the month name, then the day.
        out["ymd_named"] = re.compile(rf"{year_rx}\s*[-/.,]?\s*{mon}\s*[-/.]?\s*{_DAY}(?![.,]\d)", f)
        out["dm_named"] = re.compile(rf"{day}{pre}{mon}", f)
        out["md_named"] = re.compile(rf"{mon}\s*[-/.]?\s*(?:the\s+)?{_DAY}", f)
    return out


def _month_from_name(calendar: str, m: re.Match, year: int | None) -> list[int] | None:
    """Month numbers a matched name can mean (two for a bare "Adar" in a Hebrew leap year)."""
    table = _month_table(calendar)
    name = m.group("mon")
    key = _fold(name)
    if key in _CAPITALISED_ONLY and not name[:1].isupper():
        return None
    number = table.lookup.get(key)
    alt = m.groupdict().get("alt")
    alt_number = table.lookup.get(_fold(alt)) if alt else None
    if number is None:
        return None
    if calendar == "hebrew" and key == "adar":
        if alt_number in (12, 13):       # "Adar (Adar I)": the parenthesis settles it
            return [alt_number]
        if year is not None and _has_month(calendar, year, 13):
            return [12, 13]
    return [number]


def _has_month(calendar: str, year: int, number: int) -> bool:
    """Whether that year of the calendar has that month (Adar II only in Hebrew leap years) — the core's
    year layout decides, the judge keeps no calendar rule of its own."""
    try:
        return any(m.number == number for m in get_calendar(calendar).months_of(year))
    except CalendarError:
        return False


def _in_range(calendar: str, y: int) -> bool:
    cal = get_calendar(calendar)
    return cal.min_year <= y <= cal.max_year


def _valid(calendar: str, r: Reading) -> bool:
    try:
        CalendarDate.create(calendar, *r[:3], is_leap_month=r[3])
        return True
    except (CalendarError, TypeError, ValueError):
        return False


def _norm_reading(calendar: str, r: Reading) -> Reading:
    # The leap flag only means something where months repeat (Chinese lunar), as in CalendarDate.
    return (r[0], r[1], r[2], bool(r[3]) and get_calendar(calendar).has_leap_months)


_ORDER_NOTE = re.compile(r"\s*\(\s*(?P<o>DD|MM)[/\-.]?(?:MM|DD)[/\-.]?YYYY\s*\)")


def _find_candidates(text: str, calendar: str, hint: dict | None = None) -> list[_Cand]:
    """Every date in `text` readable in `calendar`. `hint` carries the question's own conventions:
    {"order": "dmy"|"mdy"} for year-last numeric dates, {"compact": "dmy"|"mdy"} for 8-digit ones."""
    hint = hint or {}
    cal = get_calendar(calendar)
    pats = _patterns(cal.name)
    raw: list[_Cand] = []

    def add(m: re.Match, readings: list[Reading], has_year=True, ambiguous=False):
        readings = [_norm_reading(cal.name, r) for r in readings]
        valid = [r for r in dict.fromkeys(readings) if not has_year or _valid(cal.name, r)]
        raw.append(_Cand(cal.name, m.start(), m.end(), m.group(0), valid, readings[0], has_year, ambiguous))

    for kind, rx in pats.items():
        for m in rx.finditer(text):
            g = m.groupdict()
            if kind == "era":  # readings in the calendar's continuous year; a date outside its era is none
                try:
                    n = cal.validate_era(g["era"], 1 if g["y"] == "元" else int(g["y"]), int(g["m"]), int(g["d"]))[1]
                except CalendarError:
                    add(m, [(0, int(g["m"]), int(g["d"]), False)])
                    continue
                add(m, [cal.from_ordinal(n)])
            elif kind in ("ymd", "compact"):
                y, mo, d = int(g["y"]), int(g["m"]), int(g["d"])
                if not _in_range(cal.name, y):
                    continue
                leap = bool(g.get("lp1") or g.get("lp2"))
                if cal.has_leap_months and not leap and _LEAP_TRAIL.match(text, m.end()):
                    leap = True
                add(m, [(y, mo, d, leap)])
            elif kind in ("dmy", "paper_mdy", "compact_yl"):
                y, a, b = int(g["y"]), int(g["a"]), int(g["b"])
                if not _in_range(cal.name, y):
                    continue
                if kind == "compact_yl" and hint.get("compact") not in ("dmy", "mdy"):
                    continue  # DDMMYYYY / MMDDYYYY only where the question itself used that form
                leap = bool(cal.has_leap_months and _LEAP_TRAIL.match(text, m.end()))
                note = _ORDER_NOTE.match(text, m.end())
                if g.get("alp") or g.get("blp"):
                    leap = True
                    order = [(b, a)] if g.get("alp") else [(a, b)]       # the leap-marked field is the month
                elif kind == "compact_yl":
                    order = [(a, b)] if hint["compact"] == "dmy" else [(b, a)]
                elif note:
                    order = [(a, b)] if note.group("o").upper() == "DD" else [(b, a)]
                elif kind == "paper_mdy":
                    order = [(b, a)] if a <= 12 else [(a, b)]          # (day, month)
                elif a > 12 or g["sep"] == ".":
                    order = [(a, b)]                                     # day-first
                elif b > 12:
                    order = [(b, a)]                                     # month-first
                else:
                    order = [(a, b), (b, a)] if a != b else [(a, b)]
                add(m, [(y, mo, d, leap) for d, mo in order], ambiguous=len(order) > 1 and kind == "dmy")
            elif kind == "cjk":
                leap = bool(g.get("lp1"))
                add(m, [(int(g["y"]), _cn_value(g["m"], True), _cn_value(g["d"], False), leap)])
            elif kind.startswith("prose"):
                mo = int(g["m"]) if g.get("m") else _ORD_VALUE[g["mw"].lower()]
                d = int(g["d"]) if g.get("d") else _ord_value(g["dw"])
                leap = bool(g.get("lp1") or g.get("lp2") or g.get("lp3"))
                add(m, [(int(g["y"]), mo, d, leap)])
            else:  # month-name forms
                has_year = kind in ("dmy_named", "mdy_named", "ymd_named")
                y = int(g["y"]) if has_year else None
                months = _month_from_name(cal.name, m, y)
                if months is None:
                    continue
                d = int(g["d"]) if g.get("d") else _ord_value(g["dw"])
                add(m, [(y if y is not None else 0, mo, d, False) for mo in months], has_year=has_year)

    # Keep the longest non-overlapping matches, full dates before year-less ones.
    raw.sort(key=lambda c: (not c.has_year, -(c.end - c.start), c.start))
    kept: list[_Cand] = []
    for c in raw:
        if all(c.end <= k.start or c.start >= k.end for k in kept):
            kept.append(c)
    kept.sort(key=lambda c: c.start)
    return kept


# ---------------------------------------------------------------------------------------------
# Context around a candidate: calendar labels, negation, "N days after X"
# ---------------------------------------------------------------------------------------------

_CAL_WORDS = re.compile(
    r"\b(?:(?P<persian>solar\s+hijri|persian|jalali|shamsi|iranian)|"
    r"(?P<islamic>lunar\s+hijri|islamic|hijri|hijra|muslim)|"
    r"(?P<chinese_lunar>chinese\s+lunar|lunar|chinese|nongli|lunisolar)|"
    r"(?P<hebrew>hebrew|jewish)|(?P<shaka>shaka|saka|indian)|"
    r"(?P<gregorian>gregorian|western))\b", re.I)
_ERA = re.compile(r"\s*\(?\s*(?:(?P<gregorian>CE|AD|C\.E\.|A\.D\.)|(?P<islamic>AH|A\.H\.)|(?P<hebrew>AM|A\.M\.)|"
                  r"(?P<persian>SH|AP|HS|S\.H\.)|(?P<shaka>SE|S\.E\.|Saka|Shaka))(?![A-Za-z])")
_AFTER_LABEL = re.compile(
    r"\s*(?:[\(\[](?P<p>[^()\[\]\n]{1,50})[\)\]]|"
    r",?\s*(?:in|on|according\s+to|per)\s+the\s+(?P<q>[A-Za-z ]{1,30}?)\s+calendar|"
    r"\s+(?P<r>(?:solar\s+|lunar\s+|chinese\s+)?[A-Za-z]+)(?=\s+(?:calendar|date)\b|\s*[,.;)\n]|\s*$))", re.I)
_NEGATED = re.compile(r"(?:\bnot|\brather\s+than|\binstead\s+of|\bisn't|\bwasn't|\bnor|\bnever)"
                      r"\s+(?:the\s+|on\s+|as\s+)?$", re.I)
_BASE = re.compile(r"\b(?:days?|weeks?|years?|months?)\s+(?:after|before|from|since|prior\s+to|"
                   r"earlier\s+than|later\s+than|past)\s+(?:the\s+)?(?:date\s+)?$|\b(?:starting|counting)\s+"
                   r"(?:from|at)\s+$|\b(?:subtract\w*|add\w*)\s+\d+\s+\w+\s+(?:from|to)\s+$", re.I)


_LABEL_FILLER = re.compile(
    r"\b(?:in|on|per|according\s+to|by|the|a|an|calendar|calendars|date|dates|reckoning|era|system|"
    r"year|years|style|civil|tabular|arithmetic(?:al)?|astronomical|traditional|national|official|"
    r"i\.?e\.?|that\s+is)\b|[\s,.:;/'\-]+", re.I)


def _bracket_label(inner: str) -> re.Match | None:
    """The calendar named by a bracket that contains only a calendar name (plus filler words)."""
    words = list(_CAL_WORDS.finditer(inner))
    if not words:
        return None
    rest = _LABEL_FILLER.sub("", _CAL_WORDS.sub("", inner))
    return words[0] if not rest.strip() else None


def _label_of(text: str, c: _Cand, prev_end: int) -> str | None:
    """The calendar a date is explicitly said to be in, if any."""
    m = _ERA.match(text, c.end)
    if m:
        return next(k for k, v in m.groupdict().items() if v)
    m = _AFTER_LABEL.match(text, c.end)
    if m:
        words = None
        if m.group("p") is not None:
            # A bracket labels the date before it only when it holds nothing but a calendar name
            # ("(Gregorian)", "(in the Hebrew calendar)", "(Hebrew date)"); a bracket that holds
            # a date or other words ("(Gregorian: 30 June 2025)") labels the date inside it.
            words = _bracket_label(m.group("p"))
        else:
            words = _CAL_WORDS.search(m.group("q") or m.group("r") or "")
        if words:
            return next(k for k, v in words.groupdict().items() if v)
    lo = max(prev_end, c.start - 45)
    window = text[lo:c.start]
    # Only the current clause: a label from a previous sentence does not carry over.
    cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("; "), window.rfind("? "))
    if cut >= 0:
        window = window[cut + 1:]
    label = None
    for w in _CAL_WORDS.finditer(window):
        label = next(k for k, v in w.groupdict().items() if v)
    return label


def _annotate(text: str, cands: list[_Cand], echoes: set[Reading], echo_numbers: set[Reading]) -> None:
    """Flag each candidate; `echoes` are reference-date readings in this calendar (always echoes),
    `echo_numbers` the reference date's own numbers (an echo unless explicitly labelled)."""
    prev_end = 0
    for c in cands:
        label = _label_of(text, c, prev_end)
        if label:
            c.flags.add(f"label:{label}")
        before = text[max(0, c.start - 40):c.start]
        if _NEGATED.search(before):
            c.flags.add("negated")
        if _BASE.search(before):
            c.flags.add("base")
        rs = set(c.readings) or {c.literal}
        if c.has_year:
            if rs & echoes or (rs & echo_numbers and not _label_fits(label, c.calendar)):
                c.flags.add("echo")
        elif {(r[1], r[2], r[3]) for r in rs} & {(r[1], r[2], r[3]) for r in echoes}:
            c.flags.add("echo")
        prev_end = c.end


# A label names a calendar family: "AH", "(Hijri)", "Islamic" fit both Islamic conventions.
_SAME_FAMILY = {("islamic", "islamic_umm_al_qura")}


def _label_fits(label: str | None, calendar: str) -> bool:
    return label == calendar or (label, calendar) in _SAME_FAMILY


def _label_ok(c: _Cand) -> bool:
    labels = [f[6:] for f in c.flags if f.startswith("label:")]
    return not labels or _label_fits(labels[0], c.calendar)


def _resolve_order(cands: list[_Cand]) -> None:
    """Settle D/M vs M/D for ambiguous year-last dates from the reply's own unambiguous ones."""
    decided = [c for c in cands if c.text and re.fullmatch(r"\d{1,2}[/-]\d{1,2}[/-]\d{4}", c.text)
               and not c.ambiguous_order]
    for c in cands:
        if not c.ambiguous_order:
            continue
        sep = "/" if "/" in c.text else "-"
        for o in decided:
            if sep not in o.text:
                continue
            a, b = (int(x) for x in re.split(r"[/-]", o.text)[:2])
            day_first = a > 12
            lit_a, lit_b = (int(x) for x in re.split(r"[/-]", c.text)[:2])
            want = (lit_a, lit_b) if day_first else (lit_b, lit_a)   # (day, month)
            keep = [r for r in c.readings if (r[2], r[1]) == want]
            if keep:
                c.readings = keep
                c.ambiguous_order = False
            break


# ---------------------------------------------------------------------------------------------
# Choosing the final answer
# ---------------------------------------------------------------------------------------------

@dataclass
class _Choice:
    cand: _Cand | None
    status: str   # "ok" | "none" | "hedge"
    note: str = ""
    all_echo: bool = False


def _reference_sets(instance: dict | None, calendar: str) -> tuple[set, set]:
    """Readings that merely restate the question's reference date, in `calendar`."""
    echoes: set[Reading] = set()
    numbers: set[Reading] = set()
    if not instance:
        return echoes, numbers
    ref = (instance.get("variables") or {}).get("reference_date")
    if not isinstance(ref, dict):
        return echoes, numbers
    try:
        d = CalendarDate.from_dict(ref)
    except (CalendarError, KeyError, TypeError, ValueError):
        return echoes, numbers
    conv = d.to(calendar)  # (linear_year: an era calendar's readings count its continuous year)
    echoes.add((conv.linear_year, conv.month, conv.day, conv.is_leap_month))
    if d.calendar == get_calendar(calendar).name:
        echoes.add((d.linear_year, d.month, d.day, d.is_leap_month))
    else:
        numbers.add((d.linear_year, d.month, d.day, d.is_leap_month and get_calendar(calendar).has_leap_months))
    return echoes, numbers


def _format_hint(instance: dict | None) -> dict:
    """The day/month convention the question itself stated (generator's --date-formats families)."""
    fam = str(((instance or {}).get("variables") or {}).get("date_format") or "")
    hint = {}
    if fam in ("dmy_slash", "dmy_dash", "compact_dmy"):
        hint["order"] = "dmy"
    elif fam in ("mdy_slash", "compact_mdy"):
        hint["order"] = "mdy"
    if fam.startswith("compact_") and fam != "compact_ymd":
        hint["compact"] = fam[len("compact_"):]
    return hint


def _choose(text: str, calendar: str, instance: dict | None) -> _Choice:
    masked = _question_mask(text)
    hint = _format_hint(instance)
    cands = _find_candidates(masked, calendar, hint)
    _resolve_order(cands)
    if hint.get("order"):                       # still ambiguous: the question's stated convention
        for c in cands:
            if c.ambiguous_order:
                a, b = (int(x) for x in re.split(r"[/-]", c.text)[:2])
                want = (a, b) if hint["order"] == "dmy" else (b, a)      # (day, month)
                c.readings = [r for r in c.readings if (r[2], r[1]) == want] or c.readings
                c.ambiguous_order = False
    echoes, numbers = _reference_sets(instance, calendar)
    _annotate(masked, cands, echoes, numbers)
    cands = [c for c in cands if _label_ok(c)]
    if not cands:
        return _Choice(None, "none")
    start = _answer_region_start(masked)
    region = [c for c in cands if start is not None and c.start >= start]
    pick_first = bool(region)
    pool = region or cands
    # Dates that are not the answer: negated, the base of a computation, the restated reference.
    # The hedge check below sees the restated reference too: "4 Tammuz or 5 Tammuz" where
    # 5 Tammuz is today's date is still a hedge, not a committed answer.
    hedge_pool = pool
    for flag in ("negated", "base", "echo"):
        rest = [c for c in pool if flag not in c.flags]
        if rest:
            pool = rest
        if flag != "echo":
            hedge_pool = pool
    # A date the reply itself labels with the target calendar beats an unlabelled one: in
    # "Final answer: 2025-6-24 (lunar: 2025-5-29)" the lunar answer is the labelled date.
    explicit = [c for c in pool if f"label:{calendar}" in c.flags]
    if explicit and len(explicit) < len(pool):
        pool = explicit
    chosen = pool[0] if pick_first else pool[-1]
    all_echo = all("echo" in c.flags for c in pool)
    # A hedge: another, different date in the same sentence joined to the chosen one by "or".
    for other in hedge_pool:
        if other is chosen or set(other.readings) == set(chosen.readings) and other.has_year == chosen.has_year:
            continue
        lo, hi = sorted((other.end, chosen.start)) if other.start < chosen.start else sorted((chosen.end, other.start))
        between = masked[lo:hi]
        if len(between) < 60 and re.search(r"\bor\b", between, re.I) and not re.search(r"[.;\n]\s", between):
            return _Choice(chosen, "hedge", f"alternatives {other.text!r} / {chosen.text!r}")
    return _Choice(chosen, "ok", "after the answer marker" if pick_first else "last date in the reply",
                   all_echo=all_echo)


def extract_final_date(text: str | None, calendar: str, instance: dict | None = None) -> CalendarDate | None:
    """The date the reply finally commits to in `calendar`, or None (no date, a hedge, a date with
    no year, or a date that does not exist). `instance` (optional) lets restated reference dates be
    skipped."""
    if not text:
        return None
    cal = get_calendar(calendar)
    choice = _choose(_normalize(text), cal.name, instance)
    c = choice.cand
    if choice.status != "ok" or c is None or not c.has_year or not c.readings:
        return None
    y, m, d, leap = c.readings[0]
    return CalendarDate.create(cal.name, y, m, d, leap)


# ---------------------------------------------------------------------------------------------
# Yes / no
# ---------------------------------------------------------------------------------------------

_POS, _NEG = True, False
_EXPLICIT = re.compile(r"\b(yes|yeah|yep|yup|no|nope|true|false|correct|incorrect|affirmative|negative)\b", re.I)
_EXPLICIT_POLARITY = {"yes": _POS, "yeah": _POS, "yep": _POS, "yup": _POS, "true": _POS, "correct": _POS,
                      "affirmative": _POS, "no": _NEG, "nope": _NEG, "false": _NEG, "incorrect": _NEG,
                      "negative": _NEG}
_LEAD_WORDS = {"so", "therefore", "thus", "hence", "then", "well", "is", "be", "was", "answer", "probably",
               "likely", "definitely", "certainly", "surely", "simply", "think", "believe", "say", "indeed",
               "and", "but", "that's", "it's", "is:", "actually", "wait", "so,", "yes", "no"}
_FOLLOW_WORDS = {"it", "they", "that", "this", "the", "these", "those", "indeed", "i", "we", "because",
                 "since", "as", "both", "there", "he", "she", "you"}
# Words that can also open a noun phrase ("no doubt", "correct date"): after an answer marker they
# still need the following-word check.
_DETERMINER_LIKE = {"no", "true", "false", "correct", "incorrect", "negative"}
_POS_KW = r"equivalent|the\s+same(?:\s+date|\s+day)?|same|identical|equal|correct|true|right|a\s+match|consistent|accurate"
_NEG_KW = r"different|incorrect|false|wrong|inconsistent|a\s+mismatch|inaccurate"
_PREDICATE = re.compile(
    rf"\b(?:is|are|was|were|be|'s|'re)(?P<neg>\s+not|n't)?\s+(?:(?:indeed|exactly|in\s+fact|precisely|both|"
    rf"also|thus|therefore|still|actually|really|definitely|clearly|then)\s+)*(?:(?P<pos>{_POS_KW})|(?P<negkw>{_NEG_KW}))\b"
    rf"|\b(?P<neg2>not|never)\s+(?:(?P<pos2>{_POS_KW})|(?P<negkw2>{_NEG_KW}))\b"
    rf"|\b(?:does|do|did)(?P<neg3>\s+not|n't)?\s+(?:match|correspond|coincide|agree|equal|line\s+up)\b"
    rf"|\b(?P<verb>matches|matched|match|corresponds|correspond|coincides|coincide|agrees|agree|differs?|differed)\b", re.I)
_CORRECTION = re.compile(r"\b(?:actually|wait|correction|on\s+second\s+thought|i\s+was\s+wrong|"
                         r"let\s+me\s+re-?check|re-?checking|i\s+made\s+(?:a|an)\s+(?:mistake|error)|"
                         r"scratch\s+that|sorry)\b", re.I)


def _explicit_ok(text: str, m: re.Match, region_start: int | None) -> bool:
    before = text[:m.start()].rstrip()
    after = text[m.end():].lstrip()
    word = m.group(1).lower()
    next_word = after.split()[0].lower().strip(",.!;:") if after.split() else ""
    follows_ok = (not after or after[0] in ".!,;:-)\n\"'}(" or next_word in _FOLLOW_WORDS)
    if region_start is not None and not text[region_start:m.start()].strip(" :=-\"'({"):
        # Right after "Final answer:" any of these words is the answer, unless it is used as a
        # determiner or adjective: "No discrepancy", "No doubt", "Correct date: ...".
        return follows_ok or word not in _DETERMINER_LIKE or next_word[:1].isdigit()
    ok_before = (not before or before[-1] in ".!?:;,(\n-\"'>{" or
                 before.split()[-1].lower().strip(",:") in _LEAD_WORDS)
    if not ok_before:
        return False
    if word in ("correct", "incorrect", "true", "false") and before and before.split()[-1].lower() in ("is", "be", "was"):
        return False  # "is correct" is a predicate, counted by _PREDICATE
    return follows_ok


def _polar_signals(text: str, region_start: int | None) -> list[tuple[int, bool, str]]:
    masked = _question_mask(text)
    # "yes or no" / "yes/no" restate the options, they do not answer.
    masked = re.sub(r"\b(?:yes|no|true|false)\s*(?:or|/)\s*(?:yes|no|true|false)\b",
                    lambda m: " " * len(m.group(0)), masked, flags=re.I)
    signals: list[tuple[int, int, bool, str]] = []
    for m in _EXPLICIT.finditer(masked):
        if _explicit_ok(masked, m, region_start):
            signals.append((m.start(), m.end(), _EXPLICIT_POLARITY[m.group(1).lower()], m.group(0)))
    for m in _PREDICATE.finditer(masked):
        g = m.groupdict()
        sentence_start = max(masked.rfind(".", 0, m.start()), masked.rfind("\n", 0, m.start()), 0)
        clause = masked[sentence_start:m.start()]
        if re.search(r"\b(?:whether|if)\b", clause, re.I):
            continue  # "cannot tell whether they are equivalent" asserts nothing
        if g["verb"]:
            pol = not g["verb"].lower().startswith("differ")
            if re.search(r"(?:\b(?:not|never|no)|n't)\s*$", masked[max(0, m.start() - 12):m.start()], re.I):
                pol = not pol
        elif g["pos"] or g["negkw"]:
            pol = bool(g["pos"]) != bool(g["neg"])
        elif g["pos2"] or g["negkw2"]:
            pol = not bool(g["pos2"])
        else:
            pol = not bool(g["neg3"])
        if any(s < m.end() and m.start() < e for s, e, _, _ in signals):
            continue
        signals.append((m.start(), m.end(), pol, m.group(0)))
    signals.sort()
    return [(s, p, t) for s, _, p, t in signals]


def _decide_polar(text: str) -> tuple[bool | None, str]:
    t = _normalize(text)
    masked = _question_mask(t)
    start = _answer_region_start(masked)
    signals = _polar_signals(t, start)
    if start is not None:
        after = [s for s in signals if s[0] >= start]
        if after:
            return after[0][1], f"after the answer marker: {after[0][2]!r}"
    if not signals:
        return None, "no yes/no found" + (" (refusal)" if _REFUSAL.search(t) else "")
    values = {p for _, p, _ in signals}
    if len(values) == 1:
        return signals[-1][1], f"{signals[-1][2]!r}" + (f" (+{len(signals) - 1} agreeing)" if len(signals) > 1 else "")
    # Disagreement: accept it only as an explicit self-correction before the last change of mind.
    last = signals[-1][1]
    switch = max(i for i, s in enumerate(signals) if s[1] != last) + 1
    between = masked[signals[switch - 1][0]:signals[switch][0] + 1]
    if _CORRECTION.search(between):
        return last, f"self-corrected to {signals[switch][2]!r}"
    return None, "contradictory: " + ", ".join(repr(x) for _, _, x in signals[:4])


def extract_yes_no(text: str | None) -> bool | None:
    """True for yes, False for no, None when the reply gives no (or a contradictory) yes/no."""
    if not text:
        return None
    return _decide_polar(text)[0]


# ---------------------------------------------------------------------------------------------
# The judge
# ---------------------------------------------------------------------------------------------

def _gold_reading(gold: dict | CalendarDate) -> tuple[str, Reading]:
    d = gold if isinstance(gold, CalendarDate) else CalendarDate.from_dict(gold)
    return d.calendar, (d.linear_year, d.month, d.day, d.is_leap_month)


def judge_answer(instance: dict, answer: str | None) -> Verdict:
    """Grade one final answer against the instance's gold (see the module docstring for the rules)."""
    if answer is None or not str(answer).strip():
        return Verdict(NOT_ATTEMPTED, None, "empty answer")
    answer = str(answer)
    fmt = instance.get("question_format")
    gold = instance.get("gold")
    if fmt == "polar" or isinstance(gold, bool):
        value, why = _decide_polar(answer)
        if value is None:
            return Verdict(NOT_ATTEMPTED, None, why)
        said = "Yes" if value else "No"
        if value == bool(gold):
            return Verdict(CORRECT, said, why)
        return Verdict(INCORRECT, said, f"{why}; gold is {'Yes' if gold else 'No'}")

    gold_cal, gold_r = _gold_reading(gold)
    target = get_calendar(instance.get("target_calendar") or gold_cal).name
    text = _normalize(answer)
    choice = _choose(text, target, instance)
    refusal = bool(_REFUSAL.search(text))
    c = choice.cand
    if choice.status == "none":
        if refusal:
            return Verdict(NOT_ATTEMPTED, None, "refusal, no date in the target calendar")
        other = _other_calendar_date(text, target, instance)
        if other and _label_ok(other):
            return Verdict(INCORRECT, other.display(),
                               f"no {target} date; answered with a {other.calendar} date {other.text!r}")
        if other:  # "The Hebrew date was 2025-3-14": committed to a date that is no Hebrew date in range
            return Verdict(INCORRECT, other.display(),
                               f"no {target} date; answered {other.text!r}, which the reply calls {target} but "
                               f"is no {target} date in range")
        return Verdict(NOT_ATTEMPTED, None, f"no {target} date found")
    if choice.status == "hedge":
        return Verdict(NOT_ATTEMPTED, None, f"hedged between {choice.note}")
    shown = c.display()
    if choice.all_echo and refusal:
        return Verdict(NOT_ATTEMPTED, None, f"refusal; only the restated reference date {c.text!r}")
    if not c.has_year:
        return Verdict(INCORRECT, shown, f"partial date without a year: {c.text!r}")
    if not c.readings:
        return Verdict(INCORRECT, shown, f"date does not exist in the {target} calendar: {c.text!r}")
    where = choice.note + (", echo of the reference date" if "echo" in c.flags else "")
    if gold_r in c.readings:
        extra = ""
        if len(c.readings) > 1:
            extra = (" (ambiguous day/month order; a reading matches)" if c.ambiguous_order
                     else " (bare Adar in a leap year; Adar I or Adar II accepted)")
        shown = get_calendar(target).format(*gold_r)
        return Verdict(CORRECT, shown, f"{c.text!r} ({where}){extra}")
    return Verdict(INCORRECT, shown, f"{c.text!r} ({where}) != gold "
                       f"{get_calendar(gold_cal).format(*gold_r)}")


# A copula or a colon right before a date (quotes and brackets allowed between): the date is stated.
_STATED = re.compile(r"(?:\b(?:is|was|are|were|be|equals|gives)|[:=])\s*[\"'“‘(\[*]*\s*$", re.I)


def _other_calendar_date(text: str, target: str, instance: dict | None) -> _Cand | None:
    """The date a reply with no date of the target calendar committed to, read in another calendar: one
    whose label fits that calendar first; else a bare echo of the reference date; else (last) a date the
    reply labels with the target calendar although it cannot be one ("The Islamic date was 2025-3-14": a
    committed, wrong answer, not a missing one) unless it is the reference date restated."""
    masked = _question_mask(text)
    fallback = mislabelled = None
    for name in CALENDAR_NAMES:
        if name == target:
            continue
        cands = _find_candidates(masked, name, _format_hint(instance))
        echoes, numbers = _reference_sets(instance, name)
        _annotate(masked, cands, echoes, numbers | echoes)
        dated = [c for c in cands if c.has_year and _label_ok(c)]
        real = [c for c in dated if "echo" not in c.flags]
        if real:
            return real[-1]
        # A reply that only repeats the reference date still committed to a date (the baseline
        # does exactly this); refusals were handled before this point.
        if dated:
            fallback = fallback or dated[-1]
        # only a date *stated* as the answer ("… was 2025-3-14", "…: 2025-3-14"); not "the Hebrew date for X",
        # "3 days after X", "not X" or the reference date restated: those are mentioned, not answered
        labelled_target = [c for c in cands if c.has_year and c.valid and f"label:{target}" in c.flags
                           and not c.flags & {"base", "negated", "echo"} and _STATED.search(masked, 0, c.start)]
        if labelled_target and mislabelled is None:
            mislabelled = labelled_target[-1]
    return fallback or mislabelled


__all__ = ["CORRECT", "INCORRECT", "NOT_ATTEMPTED", "Verdict", "judge_answer",
           "extract_final_date", "extract_yes_no"]
