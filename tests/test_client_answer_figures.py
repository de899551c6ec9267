"""Figures a constant answer cannot carry: content and polar accuracy apart, the share of polar answers that
are "Yes" and a warning when one word makes up nearly all of them — in summary.json, the printed summary and
the report; and the Time Agent's reminder to write a program, with answers given without any code counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from span_toolkit.client.rundir.counts import MIN_POLAR_ANSWERS, FormatTally, one_word_warning
from span_toolkit.client.agents.scripted import final_answer, program_for
from span_toolkit.client.solvers.timeagent_messages import stdout_from_message
from span_toolkit.span.benchmark import generate_sample, parse_eval_date
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.policies import always_yes
from tests.fakes.providers import FakeOpenAI, Text, first_user_text


def _instances(tmp_path: Path, n: int, polar_negatives: bool, seed: int = 4) -> Path:
    items = list(generate_sample([parse_eval_date("2025-07-01")], n, seed=seed, polar_negatives=polar_negatives))
    return write_jsonl(tmp_path / f"instances-{polar_negatives}.jsonl", items)


def _eval(fake, instances: Path, out: Path, *extra: str) -> int:
    return main(["eval", "--model", "openai-compatible/m", "--base-url", fake.base_url, "--api-key", "k",
                 "--instances", str(instances), "--out", str(out), "--quiet", *extra])


def test_a_model_that_always_says_yes_is_shown_apart_and_warned_about(tmp_path, capsys):
    inst = _instances(tmp_path, 40, polar_negatives=True)
    golds = [i["gold"] for i in map(json.loads, inst.read_text().splitlines()) if i["question_format"] == "polar"]
    assert 0 < sum(golds) < len(golds)  # balanced: some polar golds are "No"
    with FakeOpenAI(always_yes) as fake:
        assert _eval(fake, inst, tmp_path / "run") == 0
    captured = capsys.readouterr()
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    f = s["by_format"]
    assert f["polar"]["n_scored"] == len(golds) and f["polar"]["n_correct"] == sum(golds)
    assert f["content"]["n_correct"] == 0 and f["content"]["n_scored"] == 40 - len(golds)
    assert f["polar_answers"]["yes"] == len(golds) and f["polar_answers"]["yes_share"] == 1.0
    assert f["polar_answers"]["gold_yes_share"] == pytest.approx(sum(golds) / len(golds))
    [warning] = [w for w in s["warnings"] if "polar answers" in w]
    assert f'{len(golds)} of {len(golds)} polar answers are "Yes"' in warning and "content accuracy" in warning
    assert "--polar-negatives" not in warning  # the golds are balanced already
    assert "content 0.0% (0/" in captured.out and f"polar {100 * sum(golds) / len(golds):.1f}%" in captured.out
    assert '"Yes" in 100% of polar answers' in captured.out
    assert "one word carries the polar questions" in captured.err

    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--no-figures", "--quiet",
                 "--resamples", "200"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Content and polar questions" in md and "one word carries the polar questions" in md
    rep = json.loads((tmp_path / "rep" / "summary.json").read_text())
    [row] = rep["answers"]
    assert row["polar_answers"]["yes_share"] == 1.0 and row["one_word_warning"]
    assert "answers_by_format.csv" in rep["csv_files"]


def test_under_the_paper_protocol_the_warning_says_how_to_balance(tmp_path):
    inst = _instances(tmp_path, 40, polar_negatives=False)
    with FakeOpenAI(always_yes) as fake:
        _eval(fake, inst, tmp_path / "run")
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["by_format"]["polar"]["accuracy"] == 1.0 and s["by_format"]["polar_answers"]["gold_yes_share"] == 1.0
    [warning] = [w for w in s["warnings"] if "polar answers" in w]
    assert "100% of the polar golds are \"Yes\"" in warning and "--polar-negatives" in warning


def test_a_model_that_really_answers_gets_no_warning(tmp_path):
    inst = _instances(tmp_path, 40, polar_negatives=True)
    assert main(["eval", "--model", "reference", "--with-tools", "--instances", str(inst), "--out",
                 str(tmp_path / "ref"), "--quiet"]) == 0
    s = json.loads((tmp_path / "ref" / "summary.json").read_text())
    assert s["accuracy"] == 1.0 and not [w for w in s["warnings"] if "polar answers" in w]
    assert 0.2 < s["by_format"]["polar_answers"]["yes_share"] < 0.8
    assert s["loop_guard"] == {"repeats_caught": 0, "instances_with_repeats": 0, "final_turns": 0,
                               "final_turn_answers": 0}


def _polar(word: str | None, gold: bool = True) -> dict:
    return {"id": "x", "question_format": "polar", "gold": gold, "correct": (word == "Yes") == gold,
            "verdicts": {"rules": {"verdict": "CORRECT", "extracted": word}}}


@pytest.mark.parametrize("yes,no,warns", [(9, 1, False), (MIN_POLAR_ANSWERS - 1, 0, False), (19, 1, True),
                                          (10, 0, True), (1, 19, True), (11, 9, False)])
def test_the_one_word_threshold(yes, no, warns):
    t = FormatTally()
    for r in [_polar("Yes")] * yes + [_polar("No")] * no + [_polar(None)] * 5:
        t.add(r)
    f = t.result()
    assert f["polar_answers"]["neither"] == 5 and f["polar_answers"]["yes"] == yes
    assert bool(one_word_warning(f)) is warns


# ------------------------------------------------------------------------------------------ Time Agent
def _last_user(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def test_a_time_agent_reply_without_code_gets_one_reminder(tmp_path, capsys):
    """First reply a bare "Yes" (as Qwen2.5-Coder-0.5B does), then the program once reminded."""
    def policy(body, index):
        users = [m for m in body["messages"] if m["role"] == "user"]
        if len(users) == 1:
            return Text("Yes")
        if len(users) == 2:
            assert "no ```python code block" in users[-1]["content"]
            return Text("```python\n" + program_for(first_user_text(body)) + "```")
        return Text(final_answer(stdout_from_message(_last_user(body))))

    inst = _instances(tmp_path, 6, polar_negatives=True)
    with FakeOpenAI(policy) as fake:
        assert _eval(fake, inst, tmp_path / "run", "--time-agent") == 0
    for line in read_results(tmp_path / "run" / "results.jsonl"):
        assert line["correct"] is True and line["code_reminder"] is True and line["answered_without_code"] is False
        assert line["turns"] == 3 and len(line["code_runs"]) == 1
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["code_runs"]["answers_without_code"] == 0 and s["code_runs"]["code_reminders"] == 6


def test_time_agent_answers_without_any_code_are_counted(tmp_path, capsys):
    inst = _instances(tmp_path, 6, polar_negatives=True)
    with FakeOpenAI(always_yes) as fake:  # never writes a program, even when reminded
        assert _eval(fake, inst, tmp_path / "run", "--time-agent") == 0
        assert fake.count == 12  # the answer, the reminder's reply: two requests per instance
    for line in read_results(tmp_path / "run" / "results.jsonl"):
        assert line["answered_without_code"] is True and line["code_reminder"] is True and line["turns"] == 2
        assert line["final_answer"] == "Final answer: Yes" and "code_runs" not in line
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["code_runs"]["answers_without_code"] == 6 and s["code_runs"]["instances_with_code"] == 0
    assert "6 answers without any code run" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--no-figures", "--quiet",
                 "--resamples", "200"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| Model | Answers without code | Reminded to write a program |" in md
    assert "| openai-compatible/m | 6 | 6 |" in md
