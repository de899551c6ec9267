"""Statistics for `span-client report`: accuracy counts, bootstrap significance (paper Appendix C),
the exact McNemar test for paired 0/1 outcomes, judge agreement (paper Appendix B).

The bootstrap is exact resampling with replacement, vectorised.  For data with few distinct values
(0/1 correctness, or -1/0/+1 paired differences) the counts of each value in a resample of size n follow
Multinomial(n, counts / n) -- drawing them directly is the same distribution as drawing n indices, in
O(resamples) instead of O(resamples * n).  Other data falls back to chunked index resampling.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np

from ..rundir import count as rundir_count

N_RESAMPLES = 10_000
DEFAULT_SEED = 20250701
_FEW_VALUES = 64          # multinomial shortcut up to this many distinct values
_CHUNK_CELLS = 20_000_000  # index-resampling memory bound (cells per chunk)


# ---------------------------------------------------------------------------------------- counts
def rules_verdict(rec: dict) -> str | None:
    v = (rec.get("verdicts") or {}).get("rules")
    return v.get("verdict") if isinstance(v, dict) else None


def llm_verdict(rec: dict) -> str | None:
    v = (rec.get("verdicts") or {}).get("llm")
    return v.get("verdict") if isinstance(v, dict) else None


def count(records: Iterable[dict]) -> dict:
    """client.rundir.count (the one definition of scored / correct / accuracy, and of "unscored": answered
    but not scored; errors are counted apart) plus a Wilson 95% interval."""
    c = rundir_count(records)
    return {"n": c["n"], "n_scored": c["n_scored"], "n_correct": c["n_correct"], "n_unscored": c["n_unscored"],
            "n_errors": c["n_errors"], "n_not_attempted": c["n_not_attempted"], "n_max_turns": c["n_max_turns"],
            "n_disputed": c["n_disputed"], "n_disputed_correct": c["n_disputed_correct"], "accuracy": c["accuracy"],
            "ci95": list(wilson_interval(c["n_correct"], c["n_scored"])) if c["n_scored"] else None}


def wilson_interval(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (used for error bars only)."""
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


# ------------------------------------------------------------------------------------- bootstrap
def derive_rng(seed: int, label: str) -> np.random.Generator:
    """An independent, reproducible generator per comparison: adding or removing one comparison
    does not change the numbers of the others."""
    return np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF,
                                                         zlib.crc32(label.encode("utf-8"))]))


def resample_means(values: Sequence[float] | np.ndarray, n_resamples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Means of `n_resamples` bootstrap resamples (with replacement, size n) of `values`."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return np.full(n_resamples, np.nan)
    uniq, counts = np.unique(x, return_counts=True)
    if uniq.size <= _FEW_VALUES:
        draws = rng.multinomial(n, counts / n, size=n_resamples)  # (B, k)
        return draws @ uniq / n
    out = np.empty(n_resamples)
    step = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = x[idx].mean(axis=1)
    return out


@dataclass
class BootstrapResult:
    label: str
    kind: str                  # "unpaired" | "paired"
    n_a: int
    n_b: int
    mean_a: float | None
    mean_b: float | None
    mean_difference: float | None   # mean_a - mean_b
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n_resamples: int
    seed: int
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _p_two_sided(null_stats: np.ndarray, observed: float) -> float:
    # add-one so that p is never reported as exactly 0 from a finite number of resamples
    hits = int(np.count_nonzero(np.abs(null_stats) >= abs(observed) - 1e-12))
    return (hits + 1) / (null_stats.size + 1)


def bootstrap_unpaired(a: Sequence[float], b: Sequence[float], *, label: str = "",
                       n_resamples: int = N_RESAMPLES, seed: int = DEFAULT_SEED) -> BootstrapResult:
    """Difference of means mean(a) - mean(b) between two independent groups.

    CI: percentile interval of the bootstrap distribution (each group resampled on its own).
    p-value: two-sided, from the null distribution obtained by resampling both groups from the
    pooled sample (no difference), p = (1 + #|null| >= |observed|) / (1 + resamples).
    """
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.size == 0 or xb.size == 0:
        return BootstrapResult(label, "unpaired", int(xa.size), int(xb.size),
                               float(xa.mean()) if xa.size else None,
                               float(xb.mean()) if xb.size else None,
                               None, None, None, None, n_resamples, seed, "a group is empty")
    rng = derive_rng(seed, label)
    obs = float(xa.mean() - xb.mean())
    diffs = resample_means(xa, n_resamples, rng) - resample_means(xb, n_resamples, rng)
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    pooled = np.concatenate([xa, xb])
    null = (_resample_from(pooled, xa.size, n_resamples, rng)
            - _resample_from(pooled, xb.size, n_resamples, rng))
    return BootstrapResult(label, "unpaired", int(xa.size), int(xb.size), float(xa.mean()),
                           float(xb.mean()), obs, float(lo), float(hi),
                           _p_two_sided(null, obs), n_resamples, seed)


def _resample_from(pool: np.ndarray, size: int, n_resamples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Means of resamples of `size` drawn with replacement from `pool`."""
    uniq, counts = np.unique(pool, return_counts=True)
    if uniq.size <= _FEW_VALUES:
        return rng.multinomial(size, counts / pool.size, size=n_resamples) @ uniq / size
    out = np.empty(n_resamples)
    step = max(1, _CHUNK_CELLS // max(size, 1))
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        out[start:stop] = pool[rng.integers(0, pool.size, size=(stop - start, size))].mean(axis=1)
    return out


def bootstrap_paired(a: Sequence[float], b: Sequence[float], *, label: str = "",
                     n_resamples: int = N_RESAMPLES, seed: int = DEFAULT_SEED) -> BootstrapResult:
    """Paired difference mean(a_i - b_i) over the same instances (a[i] and b[i] belong together).

    CI: percentile interval of resampled mean differences (instances resampled, pairs kept).
    p-value: two-sided, null distribution from the differences centred on zero.
    """
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in length: {xa.size} vs {xb.size}")
    if xa.size == 0:
        return BootstrapResult(label, "paired", 0, 0, None, None, None, None, None, None,
                               n_resamples, seed, "no instance in common")
    rng = derive_rng(seed, label)
    d = xa - xb
    obs = float(d.mean())
    means = resample_means(d, n_resamples, rng)
    lo, hi = np.percentile(means, [2.5, 97.5])
    null = means - obs  # resampling the centred differences d - mean(d) is exactly this shift
    nonzero = d[d != 0]
    note = ""
    if nonzero.size and (np.all(nonzero > 0) or np.all(nonzero < 0)):
        note = ("all discordant pairs favour one side: the bootstrap p-value can be far too small "
                "(its floor is 1/(1+resamples)); see the exact McNemar p-value")
    return BootstrapResult(label, "paired", int(xa.size), int(xb.size), float(xa.mean()),
                           float(xb.mean()), obs, float(lo), float(hi), _p_two_sided(null, obs),
                           n_resamples, seed, note)


# ------------------------------------------------------------------------------------ McNemar
FEW_DISCORDANT = 20   # below this many discordant pairs the p-values are flagged as unreliable


def mcnemar_exact(n_a_only: int, n_b_only: int) -> float:
    """Exact McNemar test: two-sided binomial test of the discordant pairs against p = 1/2.

    n_a_only = pairs right in A only, n_b_only = right in B only. p = min(1, 2 * P(X <= min)) with
    X ~ Binomial(n_a_only + n_b_only, 1/2) (for p = 1/2 this equals scipy.stats.binomtest's
    two-sided p). No discordant pair: p = 1. Unlike a bootstrap p-value it has no floor at
    1 / (1 + resamples): [1,1,1] vs [0,0,0] gives 0.25."""
    n_a_only, n_b_only = int(n_a_only), int(n_b_only)
    if n_a_only < 0 or n_b_only < 0:
        raise ValueError("discordant counts must be non-negative")
    n = n_a_only + n_b_only
    if n == 0:
        return 1.0
    k = min(n_a_only, n_b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2 ** n)      # exact integer arithmetic, one rounding at the end


def mcnemar_paired(a: Sequence[float], b: Sequence[float]) -> dict:
    """Discordant-pair counts and the exact McNemar p-value for paired 0/1 outcomes."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in length: {xa.size} vs {xb.size}")
    a_only = int(np.sum((xa == 1) & (xb == 0)))
    b_only = int(np.sum((xa == 0) & (xb == 1)))
    n_disc = a_only + b_only
    return {"n_discordant": n_disc, "mcnemar_p": mcnemar_exact(a_only, b_only) if xa.size else None,
            "few_discordant": n_disc < FEW_DISCORDANT}


def format_p(p: float | None, n_resamples: int = N_RESAMPLES) -> str:
    if p is None:
        return "n/a"
    if p < 0.001:
        return "p < 0.001"
    return f"{p:.3f}"


# ------------------------------------------------------------------------------------ agreement
# One implementation of agreement for the whole toolkit: client.judges.agreement (the runner's
# summary uses it too). A degenerate sample (both judges give one and the same label to every
# answer) has an undefined kappa: NaN there, None (JSON null) here.
KAPPA_SOURCE = "span_toolkit.client.judges.agreement"


def cohen_kappa(a: Sequence, b: Sequence) -> tuple[float, str]:
    """Cohen's kappa from client.judges.agreement (NaN when undefined). Returns (kappa, source)."""
    from span_toolkit.client.judges.agreement import cohen_kappa as judges_kappa
    return float(judges_kappa(list(a), list(b))), KAPPA_SOURCE


def judge_agreement(records: Iterable[dict]) -> dict | None:
    """Rules vs LLM judge on the records where both produced a verdict (binary correct / not),
    computed by client.judges.agreement.judge_agreement: rules NOT_ATTEMPTED counts as not correct,
    LLM UNSCORED is left out (and counted here). None when no record has both verdicts."""
    from span_toolkit.client.judges.agreement import judge_agreement as judges_agreement
    rules, llm = [], []
    for r in records:
        rv, lv = rules_verdict(r), llm_verdict(r)
        if rv is not None and lv is not None:
            rules.append(rv)
            llm.append(lv)
    if not rules:
        return None
    out = judges_agreement(rules, llm)
    kept = [(rv == "CORRECT", lv == "CORRECT") for rv, lv in zip(rules, llm)
            if lv != "UNSCORED" and rv != "UNSCORED"]
    kappa = out["cohen_kappa"]
    if isinstance(kappa, float) and math.isnan(kappa):
        kappa = None
    return {"n": out["n"], "n_agree": sum(x == y for x, y in kept),
            "raw_agreement": out["raw_agreement"], "cohen_kappa": kappa,
            "kappa_source": KAPPA_SOURCE, "n_llm_unscored": sum(1 for lv in llm if lv == "UNSCORED"),
            "rules_correct": sum(x for x, _ in kept), "llm_correct": sum(y for _, y in kept)}


def format_kappa(k: float | None, digits: int = 3) -> str:
    """Kappa for report text: undefined when every answer got the same label from both judges."""
    if k is None or (isinstance(k, float) and math.isnan(k)):
        return "undefined (one label only)"
    return f"{k:.{digits}f}"
