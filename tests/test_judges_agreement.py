"""Cohen's kappa against hand-computed values (and scikit-learn when it happens to be installed)."""

from __future__ import annotations

import json
import math
import random

import pytest

from span_toolkit.client.judges.agreement import agreement, cohen_kappa, judge_agreement


def test_wikipedia_worked_example():
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert agreement(a, b) == {"n": 50, "raw_agreement": pytest.approx(0.7), "cohen_kappa": pytest.approx(0.4)}


def test_three_categories_by_hand():
    # Confusion (rows A, cols B) over C/I/N: [[4,1,0],[1,2,1],[0,0,1]], n = 10.
    # p_o = 7/10; A marginals 5,4,1; B marginals 5,3,2; p_e = (25+12+2)/100 = 0.39
    # kappa = (0.7-0.39)/(0.61) = 0.5081967...
    pairs = [("C", "C")] * 4 + [("C", "I")] + [("I", "C")] + [("I", "I")] * 2 + [("I", "N")] + [("N", "N")]
    a, b = zip(*pairs)
    assert cohen_kappa(list(a), list(b)) == pytest.approx(0.31 / 0.61)


def test_perfect_chance_and_total_disagreement():
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == pytest.approx(1.0)
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(0.0)     # p_o = p_e = 0.5
    assert cohen_kappa([1, 0], [0, 1]) == pytest.approx(-1.0)
    assert cohen_kappa(["a", "a"], ["b", "b"]) == pytest.approx(0.0)          # p_o = p_e = 0


def test_degenerate_all_same_label_is_undefined():
    # Both judges say CORRECT everywhere: p_o = p_e = 1, kappa = 0/0.
    assert math.isnan(cohen_kappa(["C"] * 5, ["C"] * 5))
    out = agreement(["C"] * 5, ["C"] * 5)
    assert out == {"n": 5, "raw_agreement": 1.0, "cohen_kappa": None}
    json.dumps(out, allow_nan=False)   # summary.json stays strict JSON
    assert agreement([], []) == {"n": 0, "raw_agreement": None, "cohen_kappa": None}


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError):
        agreement([1], [])


def test_kappa_is_symmetric_and_bounded():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 30)
        a = [rng.choice("CIN") for _ in range(n)]
        b = [x if rng.random() < 0.6 else rng.choice("CIN") for x in a]
        k = cohen_kappa(a, b)
        if math.isnan(k):
            continue
        assert k == pytest.approx(cohen_kappa(b, a)) and -1 - 1e-12 <= k <= 1 + 1e-12


def test_judge_agreement_maps_to_correct_and_drops_unscored():
    rules = ["CORRECT", "INCORRECT", "NOT_ATTEMPTED", "CORRECT", None, "CORRECT"]
    llm = ["CORRECT", "INCORRECT", "INCORRECT", "INCORRECT", "CORRECT", "UNSCORED"]
    out = judge_agreement(rules, llm)
    # kept pairs (T,T) (F,F) (F,F) (T,F): p_o = 3/4; marginals rules 2T2F, llm 1T3F;
    # p_e = (2*1 + 2*3)/16 = 0.5; kappa = 0.25/0.5 = 0.5
    assert out == {"n": 4, "raw_agreement": 0.75, "cohen_kappa": pytest.approx(0.5)}


def test_matches_sklearn_if_installed():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(3)
    for _ in range(50):
        a = [rng.choice("CIN") for _ in range(40)]
        b = [x if rng.random() < 0.7 else rng.choice("CIN") for x in a]
        assert cohen_kappa(a, b) == pytest.approx(metrics.cohen_kappa_score(a, b))
