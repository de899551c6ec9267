"""`eval --with-tools` against a model server that writes its tool calls in the reply text (open models
served without a tool parser): each of the four text forms scores what native calls score, 0 calls lost."""

from __future__ import annotations

import json
import re
import pytest

from span_toolkit.client.cli import main
from span_toolkit.span.benchmark import family_of, parse_question
from span_toolkit.span.models import parse_dates
from tests.fakes.providers import FakeOpenAI, Text, ToolCalls, first_user_text


def _call(question: str) -> tuple[str, dict]:
    q = parse_question(question)
    (call,) = family_of(q).reference_calls(q)
    return call["name"], call["arguments"]


def _written(form: str, name: str, args: dict) -> str:
    obj = {"name": name, "arguments": args}
    if form == "hermes":
        return f"I'll use a tool.\n<tool_call>\n{json.dumps(obj)}\n</tool_call>"
    if form == "mistral":
        return f"[TOOL_CALLS] [{json.dumps(obj)}]"
    if form == "json":  # Llama 3.x: "parameters", nothing around it
        return json.dumps({"name": name, "parameters": args})
    if form == "fenced":
        return f"Let me call the tool:\n```json\n{json.dumps(obj, indent=2)}\n```"
    raise ValueError(form)


def _result_text(body: dict) -> str:
    last = body["messages"][-1]
    text = last["content"] if isinstance(last["content"], str) else json.dumps(last["content"])
    blocks = re.findall(r"<tool_response>\s*(.*?)\s*</tool_response>", text, re.S)
    if blocks:  # Hermes style: each result is a JSON object {"name", "content"}
        return "\n".join(json.loads(b)["content"] for b in blocks)
    return text


def _answer(question: str, result: str) -> str:
    q = parse_question(question)
    info = parse_dates(result.split("result:", 1)[-1])[q.target_calendar]
    if q.question_format == "polar":
        e = q.expected_date
        same = (info["year"], info["month"], info["day"], info["is_leap_month"]) == (
            e.year, e.month, e.day, bool(e.is_leap_month))
        return f"Final answer: {'Yes' if same else 'No'}"
    return f"Final answer: {info['display']}"


def policy_for(form: str):
    def policy(body: dict, index: int):
        question = first_user_text(body)
        if len(body["messages"]) == 2:  # system + the question: call the tool
            name, args = _call(question)
            return ToolCalls([(name, args)]) if form == "native" else Text(_written(form, name, args))
        return Text(_answer(question, _result_text(body)))
    return policy


@pytest.mark.parametrize("form", ["native", "hermes", "mistral", "json", "fenced"])
def test_text_calls_score_what_native_calls_score(tmp_path, form):
    out = tmp_path / form
    with FakeOpenAI(policy_for(form)) as fake:
        rc = main(["eval", "--model", "openai-compatible/m", "--base-url", fake.base_url, "--api-key", "k",
                   "--with-tools", "--date", "2025-07-01", "--sample", "40", "--seed", "5", "--out", str(out),
                   "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == 1.0 and summary["n"] == 40
    calls = summary["tool_calls"]
    assert calls["instances_with_calls"] == 40 and calls["unparsed"] == 0
    assert calls["native" if form == "native" else "text"] == 40  # 0 calls lost
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    expected = "native" if form == "native" else f"text:{form}"
    assert {c["form"] for l in lines for c in l["tool_calls"]} == {expected}


def test_a_reply_that_is_only_a_text_call_is_never_judged_as_an_answer(tmp_path):
    def policy(body, index):  # calls forever, in text, the same call repeated
        name, args = _call(first_user_text(body))
        return Text("\n".join([_written("hermes", name, args)] * 12), finish="length")

    out = tmp_path / "loop"
    with FakeOpenAI(policy) as fake:
        main(["eval", "--model", "openai-compatible/m", "--base-url", fake.base_url, "--api-key", "k",
              "--with-tools", "--date", "2025-07-01", "--sample", "3", "--max-turns", "2", "--out", str(out),
              "--quiet"])
    for line in (json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()):
        assert line["stop_reason"] == "max_turns" and line["final_answer"] is None and line["correct"] is False
        assert len(line["tool_calls"]) == 1  # twelve copies in the reply, run once
        assert any("repeated" in n for n in line["notes"])


def test_tool_calls_text_describes_the_tools_in_the_prompt(tmp_path):
    seen = []

    def policy(body, index):
        seen.append(body)
        return policy_for("hermes")(body, index)

    out = tmp_path / "text"
    with FakeOpenAI(policy) as fake:
        assert main(["eval", "--model", "openai-compatible/m", "--base-url", fake.base_url, "--api-key", "k",
                     "--with-tools", "--tool-calls", "text", "--date", "2025-07-01", "--sample", "6",
                     "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "summary.json").read_text())["accuracy"] == 1.0
    body = seen[0]
    assert "tools" not in body and "tool_choice" not in body
    system = body["messages"][0]["content"]
    assert "<tools>" in system and '"name":"date_arithmetic"' in system and "<tool_call>" in system
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["tool_calls"] == "text" and "tools_in_prompt.md" in run["settings"]["prompt_hashes"]
