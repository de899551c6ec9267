"""Real replies of Qwen2.5-Coder-0.5B-Instruct (llama-cpp-python 0.3.36, the GGUF's own chat template),
recorded request by request with ``benchmarks/bench_local_model.py --record`` and replayed here through
``span-client eval`` against a fake server that sends each recorded reply body back as it was: the loop
guard on a real repeated call, the Time Agent's reminder on a real code-less reply, a real "No"."""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path

from span_toolkit.client.cli import main
from span_toolkit.client.rundir.counts import FormatTally
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.providers import FakeOpenAI, Recorded

FIXTURES = Path(__file__).parent / "fixtures" / "real_model"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def _shape(messages: list[dict]) -> list[tuple]:
    """What must match between a recorded request and the client's: the roles, and every model reply."""
    return [(m["role"], m["content"] if m["role"] == "assistant" else None) for m in messages]


def replayer(fx: dict, seen: list[dict]):
    """Sends the recorded replies in order, after checking that the client's request is the recorded one."""
    exchanges = fx["exchanges"]

    def policy(body: dict, index: int):
        seen.append(body)
        assert index < len(exchanges), f"request {index + 1}: the recorded instance made only {len(exchanges)}"
        recorded = exchanges[index]["request"]
        assert _shape(body["messages"]) == _shape(recorded["messages"]), f"request {index + 1} differs"
        assert bool(body.get("tools")) == bool(recorded.get("tools")), f"request {index + 1}: tools differ"
        return Recorded(exchanges[index]["response"])

    return policy


def _eval(tmp_path: Path, fx: dict, policy, *mode: str) -> dict:
    inst = write_jsonl(tmp_path / "instance.jsonl", [fx["instance"]])
    with FakeOpenAI(policy) as fake:
        assert main(["eval", "--model", "openai-compatible/qwen2.5-coder-0.5b", "--base-url", fake.base_url,
                     "--api-key", "none", "--instances", str(inst), "--out", str(tmp_path / "run"), "--quiet",
                     "--concurrency", "1", *mode]) == 0
    [line] = read_results(tmp_path / "run" / "results.jsonl")
    return line


def test_real_repeated_unusable_call_gets_a_final_turn_and_a_judged_answer(tmp_path):
    fx = fixture("loop_unusable_call_to_final_turn")
    calls = [e["response"]["choices"][0]["message"]["content"] for e in fx["exchanges"][:3]]
    assert len(set(calls)) == 1 and calls[0].startswith('{"name": "search_calendar"')  # the same call, 3 times
    seen: list[dict] = []
    # default --max-turns (8): the guard ends the loop, not the turn budget
    line = _eval(tmp_path, fx, replayer(fx, seen), "--with-tools")
    assert len(seen) == 4 and line["turns"] == 4
    assert line["repeats_caught"] == 2 and line["final_turn"] == "repeats"
    assert line["stop_reason"] == "answered" and line["final_answer"] == "Final answer: 2025-7-1"
    assert line["correct"] is False and line["verdicts"]["rules"]["verdict"] == "INCORRECT"  # judged
    assert "tools" not in seen[-1] and "No more tool calls can be made" in seen[-1]["messages"][-1]["content"]
    [call] = line["tool_calls"]  # one unusable attempt, recorded once
    assert call["form"] == "text:json" and call["unusable"] is True
    calls = json.loads((tmp_path / "run" / "summary.json").read_text())["tool_calls"]
    assert calls == {"native": 0, "text": 0, "unparsed": 1, "instances_with_calls": 0}


def test_real_repeated_call_answered_after_being_told_it_has_the_result(tmp_path):
    fx = fixture("loop_repeated_call_then_answer")
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen), "--with-tools", "--max-turns", "4")
    assert len(seen) == 3 and line["repeats_caught"] == 1 and "final_turn" not in line
    [call] = line["tool_calls"]
    assert call["form"] == "text:json" and call["arguments"]["calendar"] == "chinese_lunar"  # what it got wrong
    told = seen[2]["messages"][-1]["content"]
    assert "not run again" in told and "2025-leap6-29" in told  # the earlier result, shown again
    assert line["final_answer"] == "Final answer: 2025-8-21" and line["correct"] is False


def test_a_real_call_repeated_forever_is_judged_within_four_requests(tmp_path):
    """The recorded looping reply, sent for every request (what the model did until the guard stopped it)."""
    fx = fixture("loop_repeated_call_then_answer")
    again = fx["exchanges"][0]["response"]
    n = count()
    line = _eval(tmp_path, fx, lambda body, i: (next(n), Recorded(again))[1], "--with-tools")
    assert next(n) == 4 and line["repeats_caught"] == 2 and line["final_turn"] == "repeats"
    assert line["final_answer"] is None and line["stop_reason"] == "max_turns"  # a call is never an answer
    assert line["correct"] is False and line["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED"


def test_a_real_native_call_repeated_forever_is_judged_within_four_requests(tmp_path):
    """llama-cpp-python's chatml-function-calling forces a native call into every reply."""
    fx = fixture("native_tool_call_auto")
    fx["instance"] = fixture("loop_repeated_call_then_answer")["instance"]
    n = count()
    line = _eval(tmp_path, fx, lambda body, i: (next(n), Recorded(fx["response"]))[1], "--with-tools")
    assert next(n) == 4 and line["repeats_caught"] == 2 and line["final_turn"] == "repeats"
    assert line["final_answer"] is None and [c["form"] for c in line["tool_calls"]] == ["native"]


def test_real_code_less_time_agent_reply_is_reminded_once(tmp_path):
    fx = fixture("time_agent_no_code_reply")
    assert fx["exchanges"][0]["response"]["choices"][0]["message"]["content"] == "Yes"
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen), "--time-agent")
    assert len(seen) == 4 and line["code_reminder"] is True and line["answered_without_code"] is False
    assert "no ```python code block" in seen[1]["messages"][-1]["content"]
    assert [r["exit_reason"] for r in line["code_runs"]] == ["error", "ok"]
    assert "def search_calendar" in line["code_runs"][0]["code"]  # it wrote its own stub, as recorded
    assert line["final_answer"] == "Final answer: No" and line["correct"] is False


def test_a_real_code_less_reply_repeated_is_counted_as_an_answer_without_code(tmp_path):
    fx = fixture("time_agent_no_code_reply")
    yes = fx["exchanges"][0]["response"]
    line = _eval(tmp_path, fx, lambda body, i: Recorded(yes), "--time-agent")
    assert line["turns"] == 2 and line["answered_without_code"] is True and line["final_answer"] == "Yes"
    assert line["correct"] is True  # a bare "Yes" to a polar question whose gold is Yes: right, without work
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["code_runs"]["answers_without_code"] == 1


def test_real_unaided_no_is_read_as_no(tmp_path):
    fx = fixture("polar_no_unaided")
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen))
    assert line["final_answer"].startswith("No, the Islamic calendar date")
    assert line["verdicts"]["rules"]["extracted"] == "No" and fx["instance"]["gold"] is True
    assert line["correct"] is False
    t = FormatTally()
    t.add(line)
    assert t.result()["polar_answers"] == {"yes": 0, "no": 1, "neither": 0, "yes_share": 0.0, "gold_yes_share": 1.0}


def test_real_program_followed_by_an_imitated_output_block_runs_the_program(tmp_path):
    fx = fixture("time_agent_imitated_output_block")
    first = fx["exchanges"][0]["response"]["choices"][0]["message"]["content"]
    assert first.startswith("```python\n") and "It prints:" in first and first.rstrip().endswith("```")
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen), "--time-agent")
    [run] = line["code_runs"]
    assert run["code"].startswith("day = datetime(2025, 7, 1) + timedelta(days=1)")  # the program, not "1404-4-10"
    # the model's own mistake shows now (a Gregorian date passed as a Persian one), and it is told so
    assert run["exit_reason"] == "error" and "Persian year 2025 is out of range" in run["stderr"]
    assert "Persian year 2025 is out of range" in seen[1]["messages"][-1]["content"]


# Recorded 2026-11-27 with the Time Agent of issue 30 (40 balanced instances: 28 identical programs caught in
# 14 instances, 15 final requests, 1 instance stopped at the limit still writing code).

def test_real_final_turn_answered_with_a_program_is_no_answer(tmp_path):
    """The code runs spent, the final request says no program will run; the real model replies with a code
    block holding 'Final answer: search_calendar(...)'. That is no answer: never judged from the program."""
    fx = fixture("time_agent_final_turn_code_again")
    last = fx["exchanges"][-1]["response"]["choices"][0]["message"]["content"]
    assert last.startswith("```python") and "Final answer:" in last
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen), "--time-agent")
    assert len(seen) == 4 and "no more programs will be run" in seen[-1]["messages"][-1]["content"]
    assert line["stop_reason"] == "max_turns" and line["final_answer"] is None
    assert line["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED" and line["correct"] is False
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["code_runs"]["stopped_at_limit"] == 1


def test_real_identical_programs_are_caught_and_the_answer_judged(tmp_path):
    """The real model writes the same failing program three times: it runs once, the copies are caught and
    not run, the final request gets a plain answer, and that answer is judged."""
    fx = fixture("time_agent_repeated_program_caught")
    programs = [e["response"]["choices"][0]["message"]["content"] for e in fx["exchanges"][1:4]]
    assert len(set(programs)) == 1 and programs[0].startswith("```python")
    seen: list[dict] = []
    line = _eval(tmp_path, fx, replayer(fx, seen), "--time-agent")
    assert len(seen) == 5 and line["repeats_caught"] == 2 and line["final_turn"] == "repeats"
    assert len(line["code_runs"]) == 1  # the copies were not run again
    assert line["final_answer"] == "Final answer: No" and line["verdicts"]["rules"]["verdict"] in ("CORRECT", "INCORRECT")
    assert line["correct"] is (fx["instance"]["gold"] is False)
