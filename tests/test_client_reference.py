"""The offline agents through the real pipeline: the reference agent answers every SPAN instance of the
paper dates correctly using only the MCP tools of the real span-server over stdio; the baseline shows the
floor; the demo command runs the whole offline pipeline."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date

import pytest

from span_toolkit.client.cli import main
from tests.fakes.helpers import read_results, write_jsonl

PAPER_DATES = ["1960-07-01", "2025-07-01", "2060-07-01"]


def _check_reference_run(out, n):
    lines = read_results(out / "results.jsonl")
    assert len(lines) == n and len({l["id"] for l in lines}) == n
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == n and summary["n_errors"] == 0
    bad = [(l["question"], l["answer"], l["final_answer"], l["error"]) for l in lines if l["correct"] is not True]
    assert not bad, bad[:5]
    assert summary["accuracy"] == 1.0 and summary["per_judge"]["rules"]["CORRECT"] == n
    for l in lines:
        # answered only from the tools: exactly one successful MCP call, its result carried into the answer
        [call] = l["tool_calls"]
        assert call["is_error"] is False
        assert call["name"] == ("search_calendar" if l["reasoning_type"] == "festival" else "date_arithmetic")
        if l["question_format"] == "content":
            entry = call["result"]["result"] if l["reasoning_type"] == "date" else call["result"]
            assert l["final_answer"] == f"Final answer: {entry[l['target_calendar']]['display']}"
        assert l["stop_reason"] == "answered" and l["mode"] == "with_tools" and l["model"] == "reference"
    return lines


@pytest.mark.parametrize("day", PAPER_DATES)
def test_reference_agent_scores_100_percent_on_paper_dates(tmp_path, day):
    out = tmp_path / "ref"
    assert main(["eval", "--model", "reference", "--with-tools", "--date", day, "--out", str(out), "--quiet",
                 "--concurrency", "16"]) == 0
    lines = _check_reference_run(out, 1780)
    assert Counter(l["reasoning_type"] for l in lines) == {"date": 800, "festival": 980}
    run = json.loads((out / "run.json").read_text())
    assert run["provider"]["is_llm"] is False and "not an LLM" in run["provider"]["description"]
    assert run["mcp"]["server"].startswith("stdio")


def test_reference_agent_reads_every_rendering_and_says_no(tmp_path):
    from span_toolkit.span.benchmark import generate_sample

    items = list(generate_sample([date(2040, 7, 1), date(1975, 7, 1)], 400, seed=7, polar_negatives=True,
                                 date_formats=True))
    assert Counter(i["answer"] for i in items if i["question_format"] == "polar")["No"] > 50
    assert len({i["variables"]["date_format"] for i in items}) > 8
    f = write_jsonl(tmp_path / "i.jsonl", items)
    out = tmp_path / "ref"
    assert main(["eval", "--model", "reference", "--with-tools", "--instances", str(f), "--out", str(out),
                 "--quiet"]) == 0
    lines = _check_reference_run(out, 400)
    assert {l["final_answer"] for l in lines if l["answer"] == "No"} == {"Final answer: No"}


def test_baseline_is_the_floor(tmp_path):
    out = tmp_path / "base"
    assert main(["eval", "--model", "baseline", "--date", "2025-07-01", "--out", str(out), "--quiet"]) == 0
    lines = read_results(out / "results.jsonl")
    assert len(lines) == 1780
    assert all(l["tool_calls"] == [] and l["messages"][-1]["role"] == "assistant" for l in lines)
    polar = [l for l in lines if l["question_format"] == "polar"]
    content = [l for l in lines if l["question_format"] == "content"]
    assert all(l["final_answer"] == "Final answer: Yes" and l["correct"] for l in polar)  # paper polar gold: Yes
    assert not any(l["correct"] for l in content)  # the reference date copied is never the answer
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(len(polar) / 1780)


def test_demo_runs_the_offline_pipeline(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--date", "2030-07-01", "--sample", "60", "--quiet",
                 "--no-figures"]) == 0
    text = capsys.readouterr().out
    assert "baseline (unaided, not an LLM)" in text and "(not an LLM) 100.00%" in text
    assert len(read_results(out / "baseline-unaided" / "results.jsonl")) == 60
    assert len(read_results(out / "reference-with_tools" / "results.jsonl")) == 60
    assert (out / "instances-2030-07-01.jsonl").exists()
    assert (out / "report" / "report.md").exists()
    # re-running resumes: nothing is asked again, nothing duplicated
    assert main(["demo", "--out", str(out), "--date", "2030-07-01", "--sample", "60", "--quiet",
                 "--no-figures"]) == 0
    assert len(read_results(out / "reference-with_tools" / "results.jsonl")) == 60
