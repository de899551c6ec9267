"""`span-client export RUN --format inspect`: finished run folders become inspect_ai logs that read back
with every sample scored, with the exchange, the tool calls or code runs and the breakdowns kept."""

from __future__ import annotations

import json
import math
import sys

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser  # noqa: E402

from span_toolkit.client.cli import main as cli_main  # noqa: E402
from span_toolkit.client.inspect_export import BREAKDOWNS, chat_messages  # noqa: E402
from span_toolkit.client.rundir import RunFolder, RunInfo  # noqa: E402

N = 12


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three real runs of the same stratified sample: baseline unaided, reference with tools, reference-code
    as the Time Agent (the demo's three arms)."""
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, how in (("baseline", []), ("reference", ["--with-tools"]), ("reference-code", ["--time-agent"])):
        folder = base / name
        assert cli_main(["eval", "--model", name, *how, "--date", "2025-07-01", "--sample", str(N), "--seed", "2",
                         "--extended", "--out", str(folder), "--quiet"]) == 0
        out[name] = folder
    return out


def _export(run_dir, out, *extra):
    return cli_main(["export", str(run_dir), "--format", "inspect", "--out", str(out), *extra])


@pytest.mark.parametrize("name", ["baseline", "reference", "reference-code"])
def test_a_run_reads_back_with_every_sample_scored(runs, tmp_path, name, capsys):
    out = tmp_path / f"{name}.eval"
    assert _export(runs[name], out) == 0
    assert "open it with: inspect view" in capsys.readouterr().out
    log = read_eval_log(str(out))
    records = list(RunFolder(runs[name]).records())
    summary = json.loads((runs[name] / "summary.json").read_text())
    assert log.status == "success"
    assert len(log.samples) == len(records) == N
    assert {s.id for s in log.samples} == {r["id"] for r in records}
    by_id = {r["id"]: r for r in records}
    for s in log.samples:
        rec = by_id[s.id]
        score = s.scores["span_judge"]
        assert score.value == {True: "C", False: ("N" if rec["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED"
                                                  else "I")}[rec["correct"]]
        assert s.input == rec["question"] and s.target == rec["answer"]
        assert s.output.completion == rec["final_answer"]
        assert set(BREAKDOWNS) <= set(s.metadata) and s.metadata["mode"] == rec["mode"]
        assert s.metadata["direction"] == rec["direction"]
        assert isinstance(s.messages[0], ChatMessageSystem) and isinstance(s.messages[1], ChatMessageUser)
        assert s.messages[-1].text == rec["final_answer"]
    score = log.results.scores[0]
    assert score.scored_samples == summary["n_scored"] == N
    assert score.metrics["accuracy"].value == pytest.approx(summary["accuracy"])
    assert log.eval.model == f"span/{name}"


def test_tool_calls_stay_tool_calls_and_code_runs_are_kept(runs, tmp_path):
    assert _export(runs["reference"], tmp_path / "ref.json") == 0  # plain JSON works too
    log = read_eval_log(str(tmp_path / "ref.json"))
    by_id = {r["id"]: r for r in RunFolder(runs["reference"]).records()}
    for s in log.samples:
        calls = [c for m in s.messages if isinstance(m, ChatMessageAssistant) for c in (m.tool_calls or [])]
        results = [m for m in s.messages if isinstance(m, ChatMessageTool)]
        assert [c.function for c in calls] == [t["name"] for t in by_id[s.id]["tool_calls"]]
        assert [c.arguments for c in calls] == [t["arguments"] for t in by_id[s.id]["tool_calls"]]
        assert [r.tool_call_id for r in results] == [c.id for c in calls]
        assert all(r.function in ("search_calendar", "date_arithmetic") for r in results)
        assert s.store["span_tool_calls"] == by_id[s.id]["tool_calls"]
    assert _export(runs["reference-code"], tmp_path / "code.eval") == 0
    log = read_eval_log(str(tmp_path / "code.eval"))
    for s in log.samples:
        runs_ = s.store["span_code_runs"]
        assert len(runs_) == 1 and runs_[0]["exit_reason"] == "ok"
        assert "```python" in s.messages[2].text and "Printed output" in s.messages[3].text


def _write_run(folder, lines, mode="with_tools", model="claude-x", is_llm=True):
    rf = RunFolder(folder)
    rf.create()
    rf.write_info(RunInfo(model=model, mode=mode, provider={"label": model, "is_llm": is_llm},
                          started_at="2026-11-25T00:00:00+00:00", ended_at="2026-11-25T00:01:00+00:00"))
    with rf.appender() as app:
        for line in lines:
            app.write(line)


BASE = {"eval_date": "2025-07-01", "reasoning_type": "date", "question_format": "content",
        "direction": "gregorian_to_other", "source_calendar": "gregorian", "target_calendar": "hebrew",
        "template_id": "date_content_days_later", "question": "Q?", "answer": "6 Tammuz 5785", "mode": "with_tools",
        "model": "claude-x"}


def test_error_and_unscored_lines_are_unscored_not_wrong(tmp_path):
    lines = [
        {**BASE, "id": "ok", "final_answer": "Final answer: 6 Tammuz 5785", "stop_reason": "answered",
         "primary_judge": "rules", "verdicts": {"rules": {"verdict": "CORRECT", "extracted": "6 Tammuz 5785"}},
         "correct": True, "messages": [{"role": "user", "content": "Q?"}],
         "usage": {"input_tokens": 10, "output_tokens": 3}},
        {**BASE, "id": "err", "final_answer": None, "stop_reason": "error", "error": "HTTP 500 from the provider",
         "verdicts": {}, "correct": None, "messages": [{"role": "user", "content": "Q?"}]},
        {**BASE, "id": "unscored", "final_answer": "Final answer: x", "stop_reason": "answered",
         "primary_judge": "llm", "correct": None,
         "verdicts": {"rules": {"verdict": "INCORRECT"}, "llm": {"verdict": "UNSCORED", "raw": "garbled"}}},
    ]
    _write_run(tmp_path / "run", lines)
    assert _export(tmp_path / "run", tmp_path / "x.eval") == 0
    log = read_eval_log(str(tmp_path / "x.eval"))
    s = {x.id: x for x in log.samples}
    assert s["ok"].scores["span_judge"].value == "C" and s["ok"].error is None
    assert s["ok"].model_usage["claude-x"].input_tokens == 10
    for sid in ("err", "unscored"):
        assert math.isnan(s[sid].scores["span_judge"].value)  # inspect's unscored: left out of its metrics
    assert s["err"].error.message == "HTTP 500 from the provider"
    assert s["unscored"].scores["span_judge"].explanation == "garbled"
    score = log.results.scores[0]
    assert score.scored_samples == 1 and score.unscored_samples == 2
    assert score.metrics["accuracy"].value == 1.0 and score.metrics["n_errors"].value == 1
    assert log.eval.model == "claude-x"


def test_anthropic_and_openai_exchanges_become_the_same_messages():
    anthropic = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
                                          {"type": "tool_use", "id": "tu1", "name": "search_calendar",
                                           "input": {"calendar": "hebrew", "year": 5785}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "bad", "is_error": True}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Final answer: No"}]},
    ]
    openai = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "tu1", "type": "function",
             "function": {"name": "search_calendar", "arguments": '{"calendar": "hebrew", "year": 5785}'}}]},
        {"role": "tool", "tool_call_id": "tu1", "content": "bad", "is_error": True},
        {"role": "assistant", "content": "Final answer: No"},
    ]
    a, o = chat_messages(anthropic, "m"), chat_messages(openai, "m")
    for msgs in (a, o):
        assert [type(m).__name__ for m in msgs] == ["ChatMessageSystem", "ChatMessageUser", "ChatMessageAssistant",
                                                    "ChatMessageTool", "ChatMessageAssistant"]
        call = msgs[2].tool_calls[0]
        assert (call.id, call.function, call.arguments) == ("tu1", "search_calendar", {"calendar": "hebrew",
                                                                                       "year": 5785})
        assert msgs[2].text == "Let me look." and msgs[3].function == "search_calendar"
        assert msgs[3].error is not None and msgs[4].text == "Final answer: No"
    broken = chat_messages([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "x", "function": {"name": "f", "arguments": "{not json"}}]}], "m")
    assert broken[0].tool_calls[0].parse_error.startswith("arguments are not JSON")


def test_bad_exports_are_one_line_errors(tmp_path, runs, capsys):
    assert _export(tmp_path / "nowhere", tmp_path / "a.eval") == 2
    assert "no such run folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert _export(tmp_path / "empty", tmp_path / "a.eval") == 2
    assert "not a finished run folder" in capsys.readouterr().err
    assert _export(runs["baseline"], tmp_path / "a.txt") == 2
    assert "name the file .eval" in capsys.readouterr().err
    assert _export(runs["baseline"], tmp_path / "new" / "logs" / "a.eval") == 0  # issue 34: folders made
    assert read_eval_log(str(tmp_path / "new" / "logs" / "a.eval")).status == "success"
    capsys.readouterr()
    assert _export(runs["baseline"], tmp_path / "new2" / "a.txt") == 2  # refused: no empty folder left behind
    assert "name the file .eval" in capsys.readouterr().err and not (tmp_path / "new2").exists()
    (tmp_path / "afile").write_text("x")
    assert _export(runs["baseline"], tmp_path / "afile" / "a.eval") == 2
    assert "is not a folder" in capsys.readouterr().err
    (tmp_path / "taken.eval").write_text("keep me")
    assert _export(runs["baseline"], tmp_path / "taken.eval") == 2
    assert "--force" in capsys.readouterr().err and (tmp_path / "taken.eval").read_text() == "keep me"
    with pytest.raises(SystemExit) as e:  # argparse's own error, made one line by the client's parser
        cli_main(["export", str(runs["baseline"]), "--format", "csv", "--out", str(tmp_path / "a.eval")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "inspect" in err and len(err.strip().splitlines()) == 1


def test_without_inspect_installed_export_says_how_to_get_it(tmp_path, runs, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai now raises ImportError
    assert _export(runs["baseline"], tmp_path / "a.eval") == 2
    err = capsys.readouterr().err.strip()
    assert "pip install 'span-toolkit[inspect]'" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "a.eval").exists()


def test_an_epochs_run_exports_every_attempt_with_pass_k(tmp_path):
    """--epochs 3: three samples per instance told apart by epoch (inspect would fold samples that share
    an id and an epoch: the first export kept 6 of 18), config.epochs 3, and pass@3 / pass^3 beside the
    mean. One attempt of an always-right instance is made wrong by hand so the three figures differ."""
    run = tmp_path / "epochs"
    assert cli_main(["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "6", "--seed", "2",
                     "--epochs", "3", "--out", str(run), "--quiet"]) == 0
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 18 and sorted({x["epoch"] for x in lines}) == [1, 2, 3]
    always = sorted({x["id"] for x in lines if x["correct"]})
    assert always and all(sum(x["correct"] for x in lines if x["id"] == i) == 3 for i in always)
    flipped = next(x for x in lines if x["id"] == always[0] and x["epoch"] == 2)
    flipped["correct"] = False
    flipped["verdicts"]["rules"]["verdict"] = "INCORRECT"
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))

    out = tmp_path / "epochs.eval"
    assert _export(run, out) == 0
    log = read_eval_log(str(out))
    assert len(log.samples) == 18 and log.eval.config.epochs == 3
    assert {(s.id, s.epoch) for s in log.samples} == {(x["id"], x["epoch"]) for x in lines}
    assert log.eval.dataset.samples == 6 and sorted(log.eval.dataset.sample_ids) == sorted({x["id"] for x in lines})
    sample = next(s for s in log.samples if s.id == always[0] and s.epoch == 2)
    assert sample.scores["span_judge"].value == "I"
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    right = len(always)
    assert metrics["accuracy"] == pytest.approx((3 * right - 1) / 18)
    assert metrics["pass_at_3"] == pytest.approx(right / 6)          # one right attempt of three is enough
    assert metrics["pass_hat_3"] == pytest.approx((right - 1) / 6)   # all three must be right


def test_a_line_that_is_no_result_record_is_named_not_dropped_silently(runs, tmp_path, capsys):
    """The run folder is left as it is; the export says which lines it could not read, and the log keeps
    their numbers (span_lines_left_out)."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(runs["baseline"], run)
    lines = (run / "results.jsonl").read_text().splitlines()
    lines[4] = "{not json"
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "x.eval"
    assert _export(run, out) == 0
    captured = capsys.readouterr()
    assert "warning: 1 line(s) of" in captured.err and "(line 5)" in captured.err
    assert f"{N - 1} samples" in captured.out
    log = read_eval_log(str(out))
    assert len(log.samples) == N - 1 and log.eval.metadata["span_lines_left_out"] == [5]
