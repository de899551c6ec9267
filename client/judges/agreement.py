"""Agreement between two judges (the paper's Appendix B/C reports the judge's agreement as Cohen's kappa).

kappa = (p_o - p_e) / (1 - p_e), with p_o the observed agreement and p_e the agreement expected by
chance from each rater's label frequencies (Cohen 1960). Labels may be any hashable values.

Degenerate case: when both raters give one and the same label to every item, p_o = p_e = 1 and kappa
is 0/0, undefined (scikit-learn also returns NaN by default). `cohen_kappa` returns float("nan") then;
`agreement` reports it as None (JSON null) next to raw_agreement = 1.0, so a report can show "n/a"
instead of pretending to a value. An empty list gives NaN / None as well.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Hashable, Sequence


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    if len(a) != len(b):
        raise ValueError(f"label lists differ in length: {len(a)} vs {len(b)}")
    n = len(a)
    if n == 0:
        return float("nan")
    p_o = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    p_e = sum(ca[k] * cb[k] for k in ca.keys() & cb.keys()) / (n * n)
    if math.isclose(p_e, 1.0):
        return float("nan")
    return (p_o - p_e) / (1 - p_e)


def agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> dict:
    """{"n", "raw_agreement", "cohen_kappa"}; undefined values are None."""
    if len(a) != len(b):
        raise ValueError(f"label lists differ in length: {len(a)} vs {len(b)}")
    n = len(a)
    if n == 0:
        return {"n": 0, "raw_agreement": None, "cohen_kappa": None}
    k = cohen_kappa(a, b)
    return {"n": n, "raw_agreement": sum(x == y for x, y in zip(a, b)) / n,
            "cohen_kappa": None if math.isnan(k) else k}


def judge_agreement(rules_verdicts: Sequence[str | None], llm_verdicts: Sequence[str | None]) -> dict:
    """Agreement of the rules judge and the LLM judge on "is the answer correct?".

    The two judges have different label sets (NOT_ATTEMPTED vs UNSCORED), so both are reduced to
    correct / not correct, as the paper's judge only says 1 or 0: NOT_ATTEMPTED counts as not correct.
    Pairs where either verdict is missing (None, e.g. a provider error) or the LLM verdict is
    UNSCORED are left out, since there is nothing to agree on.
    """
    if len(rules_verdicts) != len(llm_verdicts):
        raise ValueError(f"verdict lists differ in length: {len(rules_verdicts)} vs {len(llm_verdicts)}")
    a, b = [], []
    for r, l in zip(rules_verdicts, llm_verdicts):
        if r is None or l is None or l == "UNSCORED" or r == "UNSCORED":
            continue
        a.append(r == "CORRECT")
        b.append(l == "CORRECT")
    return agreement(a, b)


__all__ = ["cohen_kappa", "agreement", "judge_agreement"]
