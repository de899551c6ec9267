"""The report with several attempts per instance and with costs: mean, pass@k and pass^k overall and per
breakdown from every attempt, the first attempt for the instance-by-instance comparisons, USD per arm."""

from __future__ import annotations

import argparse
import json

import pytest

from span_toolkit.client.report import command
from tests.fakes import synthetic_runs as sy


@pytest.fixture(autouse=True)
def _offline_tiktoken(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("tiktoken-empty")))


def _run(*argv) -> int:
    p = argparse.ArgumentParser()
    command.configure(p)
    return command.run(p.parse_args([str(a) for a in argv]))


def _epoch_rows(ins, model, pattern):
    """pattern(index) -> list of correct values, one per attempt."""
    base = {r["id"]: r for r in sy.results(ins, model, "unaided", 1.0, seed=0)}
    rows = []
    for n, inst in enumerate(ins):
        for e, ok in enumerate(pattern(n), start=1):
            rows.append({**base[inst["id"]], "epoch": e, "correct": ok, "cost_usd": 0.001 * e,
                         "requests": 1 if e != 2 else 0, "cache_hits": 1 if e == 2 else 0})
    rows.reverse()  # finishing order: later attempts may come first
    return rows


def test_epochs_and_cost_in_the_report(tmp_path):
    ins = sy.instances(12)
    # even instances: right, right, wrong; odd: wrong every time
    folder = sy.write_run(tmp_path / "m1", _epoch_rows(ins, "openai/gpt-4o", lambda n: [True, True, False]
                                                       if n % 2 == 0 else [False, False, False]))
    other = sy.write_run(tmp_path / "m2", _epoch_rows(ins, "anthropic/claude-haiku-4-5", lambda n: [True] * 3))
    out = tmp_path / "report"
    assert _run(folder, other, "--out", out, "--resamples", "200", "--no-figures") == 0
    rep = json.loads((out / "summary.json").read_text())
    s1 = next(b for b in rep["scale"] if b["model"] == "openai/gpt-4o")
    a = s1["attempts"]["overall"]
    assert s1["epochs"] == 3 and a["n_instances"] == 12 and a["n_instances_with_k"] == 12
    assert a["mean_accuracy"] == pytest.approx(12 / 36)
    assert a["pass_at_k"] == pytest.approx(0.5) and a["pass_hat_k"] == 0.0
    assert s1["cost"]["usd"] == pytest.approx(12 * 0.006) and s1["cost"]["usd_per_instance"] == pytest.approx(0.006)
    assert (s1["cost"]["requests"], s1["cost"]["cache_hits"]) == (24, 12)
    by = s1["attempts"]["by"]["question_format"]
    assert set(by) == {i["question_format"] for i in ins}
    # the instance-by-instance part reads attempt 1 of each instance (here: right on even, wrong on odd)
    series = next(s for s in rep["series"] if s["model"] == "openai/gpt-4o")
    assert series["overall"]["n_scored"] == 12 and series["overall"]["n_correct"] == 6
    md = (out / "report.md").read_text()
    assert "## Cost" in md and "## Several attempts per instance (--epochs)" in md
    assert "| openai/gpt-4o · unaided | 3 | 33.3% | 50.0% | 0.0% | 12/12 |" in md
    # and the overall table says so, with the mean beside it (it read 50.0% with no word of attempt 1)
    overall = md.split("## Overall accuracy", 1)[1].split("\n## ", 1)[0]
    assert "openai/gpt-4o · unaided 3 attempts, mean accuracy over all of them 33.3%" in overall
    assert "read **attempt 1** of each instance" in overall


def test_the_console_says_which_attempt_the_accuracy_is(tmp_path, capsys):
    ins = sy.instances(6)
    folder = sy.write_run(tmp_path / "m1", _epoch_rows(ins, "openai/gpt-4o", lambda n: [True, False, False]))
    assert _run(folder, "--out", tmp_path / "report", "--resamples", "200", "--no-figures") == 0
    assert "openai/gpt-4o · unaided: 100.0% (6/6 scored, 0 unscored, 0 errors; attempt 1 of 3, mean over all " \
           "33.3%)" in capsys.readouterr().out


def test_runs_without_costs_say_nothing_about_cost(tmp_path):
    ins = sy.instances(6)
    folder = sy.write_run(tmp_path / "old", sy.results(ins, "baseline", "unaided", 0.5, seed=1))
    out = tmp_path / "report"
    assert _run(folder, "--out", out, "--resamples", "200", "--no-figures") == 0
    md = (out / "report.md").read_text()
    assert "## Cost" not in md and "--epochs" not in md
    rep = json.loads((out / "summary.json").read_text())
    assert rep["scale"][0]["cost"]["usd"] is None and rep["scale"][0]["epochs"] == 1


def test_an_unknown_cost_is_not_a_free_run(tmp_path):
    ins = sy.instances(4)
    rows = [{**r, "cost_usd": None if n == 0 else 0.01, "requests": 1}
            for n, r in enumerate(sy.results(ins, "openai-compatible/q", "unaided", 0.5, seed=1))]
    out = tmp_path / "report"
    assert _run(sy.write_run(tmp_path / "r", rows), "--out", out, "--resamples", "200", "--no-figures") == 0
    rep = json.loads((out / "summary.json").read_text())
    c = rep["scale"][0]["cost"]
    assert c["usd"] is None and c["usd_known_part"] == pytest.approx(0.03) and c["n_attempts_unknown_cost"] == 1
    assert "unknown ($0.0300 known)" in (out / "report.md").read_text()
