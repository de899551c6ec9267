"""Statistics of `span-client report` on constructed data with known answers."""

import json
import math

import numpy as np
import pytest

from span_toolkit.client.report import stats


def _binary(k, n):
    return np.array([1.0] * k + [0.0] * (n - k))


# ------------------------------------------------------------------------------------ unpaired
def test_known_difference_is_inside_the_ci_and_significant():
    a, b = _binary(700, 1000), _binary(500, 1000)
    r = stats.bootstrap_unpaired(a, b, label="x")
    assert r.mean_difference == pytest.approx(0.2)
    assert r.ci_low < 0.2 < r.ci_high
    # binomial SE of the difference ~ sqrt(.7*.3/1000 + .5*.5/1000) = 0.0215 -> CI ~ +-0.042
    assert r.ci_high - r.ci_low == pytest.approx(2 * 1.96 * 0.02145, rel=0.1)
    assert r.p_value < 0.001
    assert r.n_resamples == 10_000 and r.n_a == 1000 and r.n_b == 1000


def test_identical_groups_give_p_one_and_ci_around_zero():
    a = _binary(400, 1000)
    r = stats.bootstrap_unpaired(a, a.copy(), label="same")
    assert r.mean_difference == 0.0
    assert r.p_value == pytest.approx(1.0)
    assert r.ci_low < 0 < r.ci_high


def test_small_true_difference_is_not_significant():
    r = stats.bootstrap_unpaired(_binary(505, 1000), _binary(500, 1000), label="tiny")
    assert r.p_value > 0.5
    assert r.ci_low < 0.005 < r.ci_high


def test_seeded_reproducible_and_label_dependent():
    rng = np.random.default_rng(1)
    a, b = (rng.random(3000) < 0.4).astype(float), (rng.random(2000) < 0.45).astype(float)
    r1 = stats.bootstrap_unpaired(a, b, label="L", seed=7)
    r2 = stats.bootstrap_unpaired(a, b, label="L", seed=7)
    r3 = stats.bootstrap_unpaired(a, b, label="L", seed=8)
    assert r1 == r2
    assert (r1.ci_low, r1.ci_high) != (r3.ci_low, r3.ci_high)
    # the generator of one comparison does not depend on which others were run before
    stats.bootstrap_unpaired(b, a, label="other", seed=7)
    assert stats.bootstrap_unpaired(a, b, label="L", seed=7) == r1


def test_empty_group_is_reported_not_raised():
    r = stats.bootstrap_unpaired([], _binary(3, 5), label="e")
    assert r.mean_difference is None and r.p_value is None and "empty" in r.note


def test_multinomial_shortcut_matches_index_resampling():
    """The vectorised resampling has the distribution of plain index resampling."""
    rng = np.random.default_rng(0)
    x = (rng.random(500) < 0.3).astype(float)
    fast = stats.resample_means(x, 20_000, np.random.default_rng(1))
    idx = np.random.default_rng(2).integers(0, x.size, size=(20_000, x.size))
    slow = x[idx].mean(axis=1)
    assert fast.mean() == pytest.approx(slow.mean(), abs=0.002)
    assert fast.std() == pytest.approx(slow.std(), rel=0.05)


def test_many_distinct_values_use_index_resampling():
    x = np.arange(1000, dtype=float)  # > 64 distinct values
    m = stats.resample_means(x, 2000, np.random.default_rng(0))
    assert m.shape == (2000,)
    assert m.mean() == pytest.approx(x.mean(), rel=0.01)
    assert m.std() == pytest.approx(x.std() / math.sqrt(x.size), rel=0.1)


def test_large_inputs_are_fast():
    import time
    rng = np.random.default_rng(3)
    a = (rng.random(40_000) < 0.35).astype(float)
    b = (rng.random(40_000) < 0.95).astype(float)
    t = time.perf_counter()
    stats.bootstrap_unpaired(a, b, label="big")
    stats.bootstrap_paired(a, b, label="bigp")
    assert time.perf_counter() - t < 2.0


# -------------------------------------------------------------------------------------- paired
def test_paired_known_difference():
    tools = np.ones(1000)
    unaided = _binary(600, 1000)
    r = stats.bootstrap_paired(tools, unaided, label="p")
    assert r.kind == "paired"
    assert r.mean_difference == pytest.approx(0.4)
    assert r.ci_low < 0.4 < r.ci_high
    assert r.p_value < 0.001


def test_paired_identical_runs():
    x = _binary(300, 800)
    r = stats.bootstrap_paired(x, x.copy(), label="id")
    assert r.mean_difference == 0.0
    assert r.p_value == pytest.approx(1.0)
    assert r.ci_low == 0.0 and r.ci_high == 0.0


def test_paired_is_tighter_than_unpaired_for_correlated_answers():
    rng = np.random.default_rng(5)
    base = (rng.random(2000) < 0.5).astype(float)
    better = base.copy()
    flip = np.flatnonzero(base == 0)[:100]  # tools fix 100 answers, break none
    better[flip] = 1.0
    p = stats.bootstrap_paired(better, base, label="c")
    u = stats.bootstrap_unpaired(better, base, label="c")
    assert p.mean_difference == pytest.approx(0.05) == pytest.approx(u.mean_difference)
    assert (p.ci_high - p.ci_low) < 0.5 * (u.ci_high - u.ci_low)
    assert p.p_value < 0.001 and u.p_value > 0.001


def test_paired_length_mismatch_raises():
    with pytest.raises(ValueError):
        stats.bootstrap_paired([1, 0], [1], label="bad")


def test_paired_empty():
    r = stats.bootstrap_paired([], [], label="none")
    assert r.p_value is None and "no instance" in r.note


def test_format_p():
    assert stats.format_p(1 / 10001) == "p < 0.001"
    assert stats.format_p(0.04321) == "0.043"
    assert stats.format_p(None) == "n/a"


# -------------------------------------------------------------------------------------- counts
def _rec(correct, *, error=None, verdict=None, primary="rules", stop="answered"):
    v = {"rules": {"verdict": verdict or ("CORRECT" if correct else "INCORRECT")}}
    return {"id": "x", "correct": correct, "error": error, "stop_reason": stop, "verdicts": v,
            "primary_judge": primary}


def test_count_states_denominator_and_keeps_unscored_apart():
    recs = ([_rec(True)] * 6 + [_rec(False)] * 2
            + [_rec(None, error="HTTP 500", verdict="NOT_ATTEMPTED", stop="error")] * 3
            + [_rec(False, verdict="NOT_ATTEMPTED")] * 2
            + [_rec(False, stop="max_turns")]
            + [{"id": "u", "correct": None, "primary_judge": "llm",
                "verdicts": {"rules": {"verdict": "CORRECT"}, "llm": {"verdict": "UNSCORED"}}}])
    c = stats.count(recs)
    assert c["n"] == 15
    assert c["n_scored"] == 11 and c["n_correct"] == 6
    assert c["n_unscored"] == 1 and c["n_errors"] == 3  # an UNSCORED llm verdict; provider errors apart
    assert c["n_errors"] == 3
    assert c["n_not_attempted"] == 2       # only the scored ones (errors are counted as errors)
    assert c["n_max_turns"] == 1
    assert c["accuracy"] == pytest.approx(6 / 11)
    lo, hi = c["ci95"]
    assert lo < 6 / 11 < hi


def test_count_empty():
    c = stats.count([])
    assert c["n"] == 0 and c["accuracy"] is None and c["ci95"] is None


def test_wilson_interval_known_value():
    lo, hi = stats.wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)


# ----------------------------------------------------------------------------------- agreement
def test_local_kappa_known_values():
    # The report's kappa is client.judges.agreement's (the local fallback is gone): same values,
    # except the degenerate one-label case, which is undefined (NaN), not 1.0.
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0])[0] == pytest.approx(0.5)
    assert stats.cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0])[0] == pytest.approx(1.0)
    assert math.isnan(stats.cohen_kappa([1, 1, 1], [1, 1, 1])[0])


def test_kappa_agrees_with_judges_package_when_present():
    from span_toolkit.client.judges.agreement import cohen_kappa as judges_kappa
    k, source = stats.cohen_kappa([True, True, False, False, True], [True, False, False, False, True])
    assert k == pytest.approx(judges_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]))
    assert source == "span_toolkit.client.judges.agreement"


def test_judge_agreement_one_label_only_is_null_and_reported_as_undefined():
    recs = [{"verdicts": {"rules": {"verdict": "CORRECT"}, "llm": {"verdict": "CORRECT"}}}] * 5
    a = stats.judge_agreement(recs)
    assert a["n"] == 5 and a["raw_agreement"] == 1.0 and a["cohen_kappa"] is None
    assert json.loads(json.dumps(a))["cohen_kappa"] is None
    assert stats.format_kappa(None) == stats.format_kappa(float("nan")) == "undefined (one label only)"
    assert stats.format_kappa(0.5) == "0.500"
    # only LLM-unscored pairs: counted, nothing to agree on
    a = stats.judge_agreement([{"verdicts": {"rules": {"verdict": "CORRECT"}, "llm": {"verdict": "UNSCORED"}}}])
    assert a["n"] == 0 and a["n_llm_unscored"] == 1 and a["cohen_kappa"] is None


def test_judge_agreement_matches_the_judges_package():
    from span_toolkit.client.judges.agreement import judge_agreement as judges_agreement
    rng = np.random.default_rng(3)
    labels = ["CORRECT", "INCORRECT", "NOT_ATTEMPTED"]
    rv = [labels[i] for i in rng.integers(0, 3, 300)]
    lv = [["CORRECT", "INCORRECT", "UNSCORED"][i] for i in rng.integers(0, 3, 300)]
    a = stats.judge_agreement([{"verdicts": {"rules": {"verdict": x}, "llm": {"verdict": y}}}
                               for x, y in zip(rv, lv)])
    ref = judges_agreement(rv, lv)
    assert (a["n"], a["raw_agreement"], a["cohen_kappa"]) == (ref["n"], ref["raw_agreement"],
                                                              ref["cohen_kappa"])


# ------------------------------------------------------------------------------------ McNemar
def test_mcnemar_exact_known_values():
    assert stats.mcnemar_exact(3, 0) == stats.mcnemar_exact(0, 3) == pytest.approx(0.25)
    assert stats.mcnemar_exact(0, 0) == 1.0 and stats.mcnemar_exact(1, 0) == 1.0
    assert stats.mcnemar_exact(5, 7) == pytest.approx(0.7744140625)
    assert stats.mcnemar_exact(0, 20) == pytest.approx(2 / 2 ** 20)
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_mcnemar_has_no_bootstrap_floor():
    # The reviewer's case: the bootstrap p-value floors at 1/(1+resamples), McNemar says 0.25.
    r = stats.bootstrap_paired([1, 1, 1], [0, 0, 0], label="floor")
    assert r.p_value == pytest.approx(1 / (1 + stats.N_RESAMPLES)) and "McNemar" in r.note
    m = stats.mcnemar_paired([1, 1, 1], [0, 0, 0])
    assert m == {"n_discordant": 3, "mcnemar_p": pytest.approx(0.25), "few_discordant": True}
    m = stats.mcnemar_paired(np.ones(100), np.r_[np.zeros(30), np.ones(70)])
    assert m["n_discordant"] == 30 and not m["few_discordant"] and m["mcnemar_p"] < 1e-8
    assert stats.mcnemar_paired([], [])["mcnemar_p"] is None


def test_mcnemar_matches_scipy_binomtest():
    scipy_stats = pytest.importorskip("scipy.stats")
    for a, b in [(0, 3), (2, 9), (5, 7), (10, 30), (13, 13), (100, 130), (0, 1), (250, 310)]:
        want = scipy_stats.binomtest(a, a + b, 0.5).pvalue
        assert stats.mcnemar_exact(a, b) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_judge_agreement():
    def r(rv, lv):
        return {"verdicts": {"rules": {"verdict": rv}, "llm": {"verdict": lv}}}
    recs = ([r("CORRECT", "CORRECT")] * 40 + [r("INCORRECT", "INCORRECT")] * 50
            + [r("NOT_ATTEMPTED", "INCORRECT")] * 5 + [r("CORRECT", "INCORRECT")] * 5
            + [r("CORRECT", "UNSCORED")] * 3 + [{"verdicts": {"rules": {"verdict": "CORRECT"}}}])
    a = stats.judge_agreement(recs)
    assert a["n"] == 100 and a["n_agree"] == 95 and a["raw_agreement"] == pytest.approx(0.95)
    assert a["n_llm_unscored"] == 3
    po, pe = 0.95, 0.45 * 0.40 + 0.55 * 0.60
    assert a["cohen_kappa"] == pytest.approx((po - pe) / (1 - pe))
    assert stats.judge_agreement([{"verdicts": {"rules": {"verdict": "CORRECT"}}}]) is None
