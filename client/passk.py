"""Several attempts per instance (``--epochs K``): mean accuracy, pass@k and pass^k.

With n scored attempts of an instance, c of them correct:

* **pass@k** (Chen et al. 2021, the unbiased estimator): the chance that at least one of k attempts drawn
  without replacement from the n is correct, 1 - C(n-c, k) / C(n, k);
* **pass^k** (Yao et al. 2024, τ-bench): the chance that all k drawn attempts are correct, C(c, k) / C(n, k).

Both are averaged over the instances with at least k scored attempts (an attempt that failed with an
error or whose verdict is unscored is not an attempt at the answer); the instances with fewer are
counted apart, never filled in. Exact integer arithmetic (``math.comb``), so no cancellation for large n.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any, Iterable


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return float(Fraction(comb(c, k), comb(n, k)))


def attempt_of(line: dict) -> int:
    """The attempt number of a result line (1 for lines written before --epochs existed)."""
    e = line.get("epoch")
    return e if isinstance(e, int) and not isinstance(e, bool) and e >= 1 else 1


def tally(lines: Iterable[dict]) -> dict[str, list[int]]:
    """instance id -> [scored attempts, correct attempts]."""
    out: dict[str, list[int]] = {}
    for line in lines:
        nc = out.setdefault(str(line.get("id")), [0, 0])
        if line.get("correct") is not None:
            nc[0] += 1
            nc[1] += bool(line["correct"])
    return out


def epoch_metrics(lines: Iterable[dict], k: int) -> dict[str, Any]:
    """Mean accuracy over all scored attempts, and pass@k / pass^k over the instances with >= k of them."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    counts = tally(lines)
    n_att = sum(n for n, _ in counts.values())
    n_ok = sum(c for _, c in counts.values())
    full = [(n, c) for n, c in counts.values() if n >= k]
    return {
        "k": k,
        "n_instances": len(counts),
        "n_attempts_scored": n_att,
        "mean_accuracy": n_ok / n_att if n_att else None,
        "n_instances_with_k": len(full),
        "pass_at_k": sum(pass_at_k(n, c, k) for n, c in full) / len(full) if full else None,
        "pass_hat_k": sum(pass_hat_k(n, c, k) for n, c in full) / len(full) if full else None,
    }


def epoch_breakdown(lines: Iterable[dict], k: int, field: str) -> dict[str, dict[str, Any]]:
    """:func:`epoch_metrics` per value of an instance field (reasoning_type, direction, …)."""
    groups: dict[str, list[dict]] = {}
    for line in lines:
        groups.setdefault(str(line.get(field)), []).append(line)
    return {value: epoch_metrics(group, k) for value, group in sorted(groups.items())}
