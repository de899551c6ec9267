"""Reasoning models with tools and as Time Agents (issue 30), and the Time Agent that never answers: a tool
call or a program written only inside the thinking is never run; thinking goes back with tool results as each
API documents (Anthropic: the turn's thinking blocks, unchanged; DeepSeek-style servers: reasoning_content on
tool-calling turns only); a model that only ever writes programs gets no verdict from their literals."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import pytest

from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from span_toolkit.client.runner import run_eval
from span_toolkit.client.spec import RunSpec
from span_toolkit.span.benchmark.generate import generate_sample
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.providers import FakeOpenAI, Text, first_user_text, tool_results
from tests.fakes.thinking import FakeThinkingAnthropic, FakeThinkingOpenAI, Thought

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

N = 20
GOOD_ARGS = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1, "days": 3}
BAD_ARGS = {"calendar": "gregorian", "year": 1999, "month": 1, "day": 1, "days": 1}


def hermes(args: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": "date_arithmetic", "arguments": args}) + "\n</tool_call>"


@pytest.fixture(scope="module")
def instances() -> list[dict]:
    return list(generate_sample([date(2025, 7, 1)], N, seed=11, polar_negatives=True))


def plainly(inst: dict) -> str:
    return f"{inst['answer']}." if inst["question_format"] == "polar" else f"The date is {inst['answer']}."


def run(spec_kw: dict, provider, instances, tmp: Path, **kw) -> tuple[dict, list[dict]]:
    path = write_jsonl(tmp / "instances.jsonl", instances)
    spec = RunSpec(model=provider.label, out_dir=tmp / "run", instances_file=path, concurrency=4, preflight=False,
                   quiet=True, **spec_kw)

    async def go():
        try:
            return await run_eval(spec, provider=provider, **kw)
        finally:
            await provider.aclose()
    return asyncio.run(go()), read_results(tmp / "run" / "results.jsonl")


def mcp():
    from span_toolkit.server.app import build_server

    return build_server()


def compatible(fake) -> OpenAIProvider:
    return OpenAIProvider("qwen3", api_key="k", base_url=fake.base_url, compatible=True, timeout=10)


# ------------------------------------------------------------------------------------ tools and thinking
@pytest.mark.parametrize("form", ["tags", "reasoning_content"])
def test_a_tool_call_only_thought_of_is_never_run(tmp_path, instances, form):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        assert not tool_results(body)
        return Thought(thinking=f"Maybe call it: {hermes(BAD_ARGS)}\nNo, I know this.", text=plainly(inst))

    with FakeThinkingOpenAI(policy, form=form) as fake:
        summary, lines = run({"mode": "with_tools"}, compatible(fake), instances, tmp_path, mcp_target=mcp())
        n_requests = fake.count
    assert summary["accuracy"] >= 0.95 and n_requests == N  # 0 tool round trips
    assert summary["tool_calls"]["instances_with_calls"] == 0 and summary["tool_calls"]["text"] == 0
    assert all(not x["tool_calls"] for x in lines)


@pytest.mark.parametrize("form", ["tags", "reasoning_content"])
def test_a_tool_call_after_the_thinking_is_run_once(tmp_path, instances, form):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if not any("<tool_response>" in str(m.get("content")) for m in body["messages"]):
            return Thought(thinking=f"Draft: {hermes(BAD_ARGS)}\nBetter args below.", text=hermes(GOOD_ARGS))
        return Thought(thinking="The tool said so. Final answer: 1999-1-1?", text=plainly(inst))

    with FakeThinkingOpenAI(policy, form=form) as fake:
        summary, lines = run({"mode": "with_tools"}, compatible(fake), instances, tmp_path, mcp_target=mcp())
    assert summary["accuracy"] >= 0.95
    for x in lines:
        (call,) = x["tool_calls"]
        assert call["arguments"] == GOOD_ARGS and call["form"] == "text:hermes"
        assert len(x["thinking"]) == 2


def test_anthropic_thinking_goes_back_with_tool_results_over_several_turns(tmp_path, instances):
    """Interleaved thinking: each tool_use turn is sent back starting with its own thinking blocks, unchanged
    (the fake checks their signatures and refuses a tool_use turn that does not start with thinking)."""
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        done = len(tool_results(body))
        if done < 2:
            args = {**GOOD_ARGS, "days": done + 1}
            return Thought(thinking=f"step {done}: I need the tool. Final answer: No", redacted=done,
                           calls=[("date_arithmetic", args)], reasoning_tokens=40)
        return Thought(thinking="Both results agree.", text=plainly(inst), reasoning_tokens=20)

    with FakeThinkingAnthropic(policy) as fake:
        provider = AnthropicProvider("claude-think", api_key="k", base_url=fake.base_url, timeout=10)
        summary, lines = run({"mode": "with_tools", "thinking_budget": 1024}, provider, instances, tmp_path,
                             mcp_target=mcp())
        last = fake.requests[-1]["body"]
    assert summary["n_errors"] == 0 and summary["accuracy"] >= 0.95
    assert all(len(x["tool_calls"]) == 2 and len(x["thinking"]) == 3 for x in lines)
    assert all(x["usage"]["reasoning_tokens"] == 100 for x in lines)
    assistant = [m for m in last["messages"] if m["role"] == "assistant"]
    assert [m["content"][0]["type"] for m in assistant] == ["thinking", "thinking"]
    assert last["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_deepseek_style_server_gets_reasoning_only_with_tool_calls(tmp_path, instances):
    """reasoning_content goes back on a tool-calling turn (required there) and never on a finished turn
    (refused there); here over a tool loop and a final request without tools."""
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        done = len(tool_results(body))
        if body.get("tools") and done < 3:  # the same call every time: the loop guard's final request follows
            return Thought(thinking="I will call the tool.", calls=[("date_arithmetic", GOOD_ARGS)])
        return Thought(thinking="Enough.", text=plainly(inst))

    with FakeThinkingOpenAI(policy, form="reasoning_content", history="deepseek") as fake:
        summary, lines = run({"mode": "with_tools"}, compatible(fake), instances, tmp_path, mcp_target=mcp())
    assert summary["n_errors"] == 0 and summary["accuracy"] >= 0.95, summary.get("errors_by_kind")
    assert all(x["final_turn"] == "repeats" for x in lines)


# ------------------------------------------------------------------------------ the Time Agent
AGENT = {"mode": "time_agent", "sandbox": "unsafe-process"}


def test_a_time_agent_that_only_writes_programs_is_never_judged_from_them(tmp_path, instances):
    """The issue's fake: one failing program with a 'No' literal, forever. It was 9 of 30 CORRECT."""
    program = "```python\nanswer = 'No'\nprint(search_calendar('nowhere', 1, 1, 1), answer)\n```"
    with FakeOpenAI(lambda body, i: Text(program)) as fake:
        summary, lines = run(AGENT, compatible(fake), instances, tmp_path)
    for x in lines:
        assert x["final_answer"] is None and x["stop_reason"] == "max_turns" and x["final_turn"]
        assert x["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED" and x["correct"] is False
        assert len(x["code_runs"]) == 1 and x["repeats_caught"] == 2  # the same program is not run again
    runs = summary["code_runs"]
    assert runs["stopped_at_limit"] == N and runs["program_repeats_caught"] == 2 * N
    assert summary["n_correct"] == 0
    assert any("stopped at the code-run limit" in w for w in summary["warnings"])
    assert any("identical to one already run" in w for w in summary["warnings"])


def test_a_time_agent_still_writing_new_programs_gets_one_last_request(tmp_path, instances):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        last = body["messages"][-1]["content"]
        if "All your code runs are used" in last:
            return Text(f"Final answer: {by_q[first_user_text(body)]['answer']}")
        return Text(f"```python\nprint({index})\n```")  # a new program every time

    with FakeOpenAI(policy) as fake:
        summary, lines = run(AGENT, compatible(fake), instances, tmp_path)
    assert summary["accuracy"] == 1.0
    assert all(x["final_turn"] == "max_turns" and len(x["code_runs"]) == 2 for x in lines)


def test_a_program_inside_the_thinking_never_runs(tmp_path, instances):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if body["messages"][-1]["role"] == "user" and "Your program ran" in body["messages"][-1]["content"]:
            return Thought(thinking="```python\nprint('No')\n```", text=f"Final answer: {inst['answer']}")
        return Thought(thinking="```python\nimport os\nprint('No')\n```", text="```python\nprint('ran')\n```")

    with FakeThinkingOpenAI(policy, form="reasoning_content", history="deepseek") as fake:
        summary, lines = run(AGENT, compatible(fake), instances, tmp_path)
    assert summary["n_errors"] == 0 and summary["accuracy"] == 1.0
    for x in lines:
        (ran,) = x["code_runs"]
        assert ran["code"] == "print('ran')\n" and ran["stdout"] == "ran\n"


def test_the_prompts_own_words_are_not_an_answer(tmp_path, instances):
    def policy(body, index):
        if "Printed output" in str(body["messages"][-1]["content"]):
            return Text("Final answer: No attempts are left to run code.")
        return Text("```python\nprint('x')\n```")

    with FakeOpenAI(policy) as fake:
        summary, lines = run(AGENT, compatible(fake), instances, tmp_path)
    for x in lines:
        assert x["final_answer"] is None and x["prompt_echo"] == "No attempts are left to run code."
        assert x["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED"
    assert summary["code_runs"]["prompt_echoes"] == N


@pytest.mark.parametrize("thinks", [False, True])
def test_a_program_that_prints_a_think_tag_runs_as_written(tmp_path, instances, thinks):
    """A ``</think>`` inside the program's code fence is code, not the end of a thinking: the program runs as the
    model wrote it (nothing taken out of it), with or without thinking before it."""
    some = instances[:4]
    by_q = {i["question"]: i for i in some}
    program = "```python\nmarker = '</think>'\nprint(marker + 'ok')\n```"

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if "Your program ran" in str(body["messages"][-1]["content"]):
            return Text(f"Final answer: {inst['answer']}")
        return Text(("<think>\nI will print a marker.\n</think>\n\n" if thinks else "") + program)

    with FakeOpenAI(policy) as fake:
        summary, lines = run(AGENT, compatible(fake), some, tmp_path)
    assert summary["n_errors"] == 0 and summary["accuracy"] == 1.0
    for x in lines:
        (ran,) = x["code_runs"]
        assert ran["code"] == "marker = '</think>'\nprint(marker + 'ok')\n" and ran["stdout"] == "</think>ok\n"
        assert len(x.get("thinking") or []) == (1 if thinks else 0)
