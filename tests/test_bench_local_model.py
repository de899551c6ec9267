"""benchmarks/bench_local_model.py's plumbing against a fake OpenAI-compatible server (no llama-cpp in
tests): three arms on balanced instances, the per-mode figures, the recording proxy and prompt variants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from span_toolkit.client.agents.scripted import final_answer, program_for
from span_toolkit.client.solvers.timeagent_messages import stdout_from_message
from tests.fakes.providers import FakeOpenAI, Text, first_user_text

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "bench_local_model.py"
CALL = '{"name": "list_calendars", "arguments": {}}'


def policy(body: dict, index: int):
    system = body["messages"][0]["content"]
    users = [m for m in body["messages"] if m["role"] == "user"]
    if "search_calendar(calendar, year" in system:  # the Time Agent: "Yes" at once, then a program
        if len(users) == 1:
            return Text("Yes")
        if len(users) == 2:
            return Text("```python\n" + program_for(first_user_text(body)) + "```")
        return Text(final_answer(stdout_from_message(users[-1]["content"])))
    if body.get("tools"):  # with tools: one call, repeated until the tools are gone
        return Text(CALL)
    return Text("Final answer: Yes")


def run_bench(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "bench"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with FakeOpenAI(policy) as fake:
        res = subprocess.run([sys.executable, str(BENCH), "--base-url", fake.base_url, "--model-name", "m",
                              "--sample", "6", "--seed", "1", "--out", str(out), "--timeout", "30", *extra],
                             capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res, json.loads((out / "bench.json").read_text())


def test_three_arms_on_balanced_instances_with_their_figures(tmp_path):
    res, report = run_bench(tmp_path, "--record")
    assert report["polar"].startswith("balanced") and [r["mode"] for r in report["rows"]] == [
        "unaided", "with_tools", "time_agent"]
    rows = {r["mode"]: r for r in report["rows"]}
    golds = [json.loads(x)["gold"] for x in (tmp_path / "bench" / "instances.jsonl").read_text().splitlines()
             if json.loads(x)["question_format"] == "polar"]
    unaided = rows["unaided"]
    assert unaided["n"] == 6 and unaided["polar_answers"]["yes_share"] == 1.0
    assert unaided["polar"]["n_correct"] == sum(golds) and unaided["content"]["n_correct"] == 0
    tools = rows["with_tools"]
    assert tools["tool_calls"] == {"native": 0, "text": 6, "unparsed": 0}
    assert tools["repeats_caught"] == 12 and tools["final_turns"] == 6 and tools["final_turn_answers"] == 6
    assert tools["requests"] == 6 * 4  # a call repeated forever: four requests per instance
    agent = rows["time_agent"]
    assert agent["accuracy"] == 1.0 and agent["code_reminders"] == 6 and agent["answers_without_code"] == 0
    assert agent["code_runs"] == 6 and agent["code_runs_failed"] == 0
    assert "| with_tools |" in res.stdout and "\"Yes\" share of polar answers" in res.stdout
    exchanges = [json.loads(x) for x in (tmp_path / "bench" / "with_tools" / "exchanges.jsonl").read_text().splitlines()]
    assert len(exchanges) == 24 and all(e["status"] == 200 for e in exchanges)
    assert exchanges[3]["request"].get("tools") is None and exchanges[0]["request"]["tools"]
    assert exchanges[0]["response"]["choices"][0]["message"]["content"] == CALL


def test_a_prompt_variant_replaces_the_named_prompt(tmp_path):
    variant = tmp_path / "variant"
    variant.mkdir()
    (variant / "system_unaided.md").write_text("A VARIANT SYSTEM PROMPT\n", encoding="utf-8")
    _, report = run_bench(tmp_path, "--modes", "unaided", "--prompts", str(variant), "--record")
    assert report["prompts"] == str(variant)
    [first] = [json.loads(x) for x in (tmp_path / "bench" / "unaided" / "exchanges.jsonl").read_text().splitlines()][:1]
    assert first["request"]["messages"][0]["content"] == "A VARIANT SYSTEM PROMPT\n"


def test_an_unknown_prompt_name_is_refused(tmp_path):
    variant = tmp_path / "variant"
    variant.mkdir()
    (variant / "no_such_prompt.md").write_text("x", encoding="utf-8")
    res = subprocess.run([sys.executable, str(BENCH), "--base-url", "http://127.0.0.1:9/v1", "--prompts",
                          str(variant), "--out", str(tmp_path / "b")], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120, cwd=ROOT)
    assert res.returncode != 0 and "no_such_prompt.md" in res.stderr
