"""The date fragmentation ratio F of the Date Fragments paper (eq. 1-2), per date string and as the
paper's Tables 2 and 4 for any tokenizer.

    F = 0.10 * 1_split + 0.10 * 1_delimiter + 0.05 * (N - N_b) + 0.30 * theta,   theta = 1 - cos(t, b)

The paper leaves several things open; each decision below is pinned by tests/test_fragmentation.py and
explained in docs/date-fragments.md:

1. The date string is tokenized alone (no sentence, no leading space), as the paper's Table 4 shows it.
2. Baseline tokens: the components (year, month, day; a month name is the month) and every maximal run of
   other characters as one delimiter token (", " is one); an ordinal suffix ("th") is a token of its own.
   Eight-digit strings are split by their form (YYYYMMDD, DDMMYYYY, MMDDYYYY) when it is known; otherwise
   by the first of those readings that is a valid date.
3. 1_split = 1 when a token boundary falls inside a component (some year, month or day is not within one
   token). Tokens that merge components ("1027" for month and day) are not a split: N and theta see them.
4. 1_delimiter = 1 when a delimiter character shares a token with a component character ("-0", "/03"):
   the delimiter no longer stands on its own. The one exception is whitespace opening a word or number
   token (" March", " 2025"): byte-level BPE marks word starts that way and the boundary is kept. Forms
   without delimiters (compact digits) never lose one. (The authors' earlier code joins the tokens with
   spaces before looking for delimiters, so its penalty never fires for two or more tokens; not followed.)
5. The token excess is max(0, N - N_b): a tokenizer that merges components is not less fragmented than
   the baseline (the authors' code lets the term go negative).
6. theta compares bags of token strings: counts over the pieces with surrounding whitespace stripped,
   whitespace-only pieces left out (from both bags).
7. F is clipped to [0, 1] (the paper: "F in [0, 1]").
The baseline tokenizer scores F = 0 on every string by construction.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import date

from span_toolkit.span.benchmark.dateaug import formats as DF
from span_toolkit.span.benchmark.dateaug.build import PERIODS

W_SPLIT, W_DELIM, W_EXCESS, W_THETA = 0.10, 0.10, 0.05, 0.30


# ---------------------------------------------------------------------------------------------
# The baseline (rule-based) split
# ---------------------------------------------------------------------------------------------

def _compact_form(text: str) -> str:
    for fmt in ("compact_ymd", "compact_dmy", "compact_mdy"):
        if DF._read(text, fmt) is not None:
            return fmt
    return "compact_ymd"


def component_spans(text: str, fmt: str | None = None) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the year, month and day in `text` (its form `fmt` if known)."""
    if fmt is None and re.fullmatch(r"\d{8}", text):
        fmt = _compact_form(text)
    if fmt is not None and fmt in DF.FORMATS:
        return DF.components(text, fmt)
    out = []
    for m in re.finditer(r"[A-Za-z]+|\d+", text):
        tok = m.group(0)
        if tok.isalpha():
            if tok.lower() in DF.MONTH_NUMBER:
                out.append(("month", m.start(), m.end()))
        else:
            out.append(("number", m.start(), m.end()))
    return out


def baseline_spans(text: str, fmt: str | None = None) -> list[tuple[int, int]]:
    """The baseline tokens as character spans: components, other letter runs (ordinal suffixes) and each
    maximal run of non-alphanumeric characters."""
    comps = component_spans(text, fmt)
    cuts = {0, len(text)}
    for _, s, e in comps:
        cuts.update((s, e))
    for m in re.finditer(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", text):
        cuts.update((m.start(), m.end()))
    edges = sorted(cuts)
    return [(a, b) for a, b in zip(edges, edges[1:]) if a < b]


def baseline_pieces(text: str, fmt: str | None = None) -> list[str]:
    return [text[a:b] for a, b in baseline_spans(text, fmt)]


# ---------------------------------------------------------------------------------------------
# F
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fragmentation:
    text: str
    pieces: tuple[str, ...]
    baseline: tuple[str, ...]
    split: bool
    delimiter_lost: bool
    excess: int          # max(0, N - N_b)
    theta: float
    F: float

    def as_dict(self) -> dict:
        return {"text": self.text, "pieces": list(self.pieces), "baseline": list(self.baseline),
                "split": self.split, "delimiter_lost": self.delimiter_lost, "excess": self.excess,
                "theta": round(self.theta, 6), "F": round(self.F, 6)}


def _bag(pieces) -> Counter:
    return Counter(p.strip() for p in pieces if p.strip())


def cosine_distance(t: Counter, b: Counter) -> float:
    if t == b:
        return 0.0          # exactly (floating point would leave 1e-16)
    dot = sum(v * b.get(k, 0) for k, v in t.items())
    nt = math.sqrt(sum(v * v for v in t.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    if nt == 0 or nb == 0:
        return 1.0 if (nt or nb) else 0.0
    return max(0.0, 1.0 - dot / (nt * nb))


def fragmentation(text: str, pieces: list[str], fmt: str | None = None) -> Fragmentation:
    """F of one date string cut into `pieces` (a tokenizer's token strings, concatenating to `text`)."""
    if "".join(pieces) != text:
        raise ValueError(f"the pieces {pieces!r:.80} do not spell {text!r}")
    base = baseline_pieces(text, fmt)
    bounds, pos = [], 0
    for p in pieces:
        bounds.append((pos, pos + len(p)))
        pos += len(p)
    inner = {s for s, _ in bounds[1:]}
    comps = component_spans(text, fmt)
    split = any(any(s < c < e for c in inner) for _, s, e in comps)
    in_comp = [False] * len(text)
    for _, s, e in comps:
        for i in range(s, e):
            in_comp[i] = True
    lost = False
    for s, e in bounds:
        piece = text[s:e]
        delim = [i for i in range(s, e) if not text[i].isalnum()]
        if not delim or not any(in_comp[i] for i in range(s, e)):
            continue
        lead = len(piece) - len(piece.lstrip())
        if piece[:lead].isspace() and all(i < s + lead for i in delim):
            continue                   # " March", " 2025": a word-initial space
        lost = True
        break
    excess = max(0, len(pieces) - len(base))
    theta = cosine_distance(_bag(pieces), _bag(base))
    F = W_SPLIT * split + W_DELIM * lost + W_EXCESS * excess + W_THETA * theta
    return Fragmentation(text, tuple(pieces), tuple(base), split, lost, excess, theta, min(1.0, max(0.0, F)))


def fragmentation_of(text: str, tokenizer, fmt: str | None = None) -> Fragmentation:
    """F of `text` under a client.tokenizers.Tokenizer (the baseline splits by the known form)."""
    if tokenizer.name == "baseline":
        return fragmentation(text, baseline_pieces(text, fmt), fmt)
    return fragmentation(text, tokenizer.pieces(text), fmt)


# ---------------------------------------------------------------------------------------------
# Tables 2 and 4
# ---------------------------------------------------------------------------------------------

SAMPLE_DATE = (date(1606, 10, 27), "compact_mdy")   # the paper's Table 4: "10271606"
TABLE_FORMATS = tuple(DF.FORMATS)


def sample_dates(per_period: int = 25, seed: int = 0) -> list[tuple[str, date]]:
    """(period, date) drawn uniformly inside each period, the same for every tokenizer."""
    rng = random.Random(f"span/fragmentation/{seed}")
    out = []
    for period, (lo, hi) in PERIODS.items():
        a, b = date(lo, 1, 1).toordinal(), date(hi, 12, 31).toordinal()
        out.extend((period, date.fromordinal(rng.randint(a, b))) for _ in range(per_period))
    return out


def table(tokenizer, per_period: int = 25, seed: int = 0, formats=TABLE_FORMATS) -> dict:
    """Mean F overall, by period and by form over the sample dates in every form, and the pieces of the
    paper's Table 4 date."""
    by_period: dict[str, list[float]] = {p: [] for p in PERIODS}
    by_format: dict[str, list[float]] = {f: [] for f in formats}
    for period, d in sample_dates(per_period, seed):
        for fmt in formats:
            f = fragmentation_of(DF.render(d, fmt), tokenizer, fmt).F
            by_period[period].append(f)
            by_format[fmt].append(f)
    every = [x for xs in by_period.values() for x in xs]
    sd, sfmt = SAMPLE_DATE
    sample = fragmentation_of(DF.render(sd, sfmt), tokenizer, sfmt)
    return {"mean": round(statistics.fmean(every), 4),
            "by_period": {p: round(statistics.fmean(v), 4) for p, v in by_period.items()},
            "by_format": {f: round(statistics.fmean(v), 4) for f, v in by_format.items()},
            "sample": sample.as_dict(), "n_strings": len(every), "description": tokenizer.description}
