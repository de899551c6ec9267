"""pass@k and pass^k against a brute-force count over every k-subset of the attempts and against the
numerically stable product form of Chen et al. (2021)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from span_toolkit.client.passk import attempt_of, epoch_breakdown, epoch_metrics, pass_at_k, pass_hat_k


def brute(n: int, c: int, k: int) -> tuple[float, float]:
    attempts = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_ok = sum(any(attempts[i] for i in s) for s in subsets)
    all_ok = sum(all(attempts[i] for i in s) for s in subsets)
    return any_ok / len(subsets), all_ok / len(subsets)


def chen(n: int, c: int, k: int) -> float:  # the paper's numpy code, verbatim in substance
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


@pytest.mark.parametrize("n", range(1, 9))
def test_against_every_subset(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = brute(n, c, k)
            assert math.isclose(pass_at_k(n, c, k), at, abs_tol=1e-12)
            assert math.isclose(pass_hat_k(n, c, k), hat, abs_tol=1e-12)
            assert math.isclose(pass_at_k(n, c, k), chen(n, c, k), abs_tol=1e-12)


def test_large_n_stays_exact():
    assert math.isclose(pass_at_k(200, 1, 100), chen(200, 1, 100), rel_tol=1e-12)
    assert pass_hat_k(1000, 999, 10) == pytest.approx(0.99, abs=1e-12)


@pytest.mark.parametrize("n,c,k", [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_out_of_range(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def _lines(spec):
    """spec: {id: [True/False/None per attempt]} -> result lines."""
    return [{"id": i, "epoch": e, "correct": v, "reasoning_type": "date" if i < "m" else "festival"}
            for i, attempts in spec.items() for e, v in enumerate(attempts, start=1)]


def test_epoch_metrics():
    lines = _lines({"a": [True, True, True], "b": [True, False, False], "c": [False, False, False],
                    "n": [True, None, True]})  # n: one errored attempt -> fewer than k scored
    m = epoch_metrics(lines, 3)
    assert m["n_instances"] == 4 and m["n_instances_with_k"] == 3
    assert m["mean_accuracy"] == pytest.approx(6 / 11)
    assert m["pass_at_k"] == pytest.approx((1 + 1 + 0) / 3)
    assert m["pass_hat_k"] == pytest.approx((1 + 0 + 0) / 3)
    m1 = epoch_metrics(lines, 1)  # k=1 is the mean accuracy per instance
    assert m1["pass_at_k"] == m1["pass_hat_k"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)
    by = epoch_breakdown(lines, 3, "reasoning_type")
    assert by["date"]["pass_at_k"] == pytest.approx(2 / 3) and by["festival"]["n_instances_with_k"] == 0
    assert by["festival"]["pass_at_k"] is None


def test_attempt_numbers():
    assert attempt_of({}) == 1 and attempt_of({"epoch": 3}) == 3
    assert attempt_of({"epoch": True}) == 1 and attempt_of({"epoch": "2"}) == 1 and attempt_of({"epoch": 0}) == 1
