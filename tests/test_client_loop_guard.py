"""The tool loop's guard against a model that repeats itself: a call identical to an earlier one of the
instance is not run again, and at the second repeat (or at --max-turns) one last request without tools
asks for the answer — through the real SDKs against fake servers, native and Hermes-style text calls."""

from __future__ import annotations

import json

import pytest

from span_toolkit.client.mcp_tools import MCPTools
from span_toolkit.client.providers import make_provider
from span_toolkit.client.solvers import ChatSolver
from span_toolkit.client.solvers.chat import repeat_text
from span_toolkit.prompts import load as load_prompt
from tests.fakes.providers import FakeAnthropic, FakeOpenAI, Text, ToolCalls

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ARGS = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1, "days": -3}
HERMES = '<tool_call>\n{"name": "date_arithmetic", "arguments": %s}\n</tool_call>' % json.dumps(ARGS)
BARE = json.dumps({"name": "date_arithmetic", "arguments": ARGS})  # Qwen's call whose tags vanished
FINAL = "No more tool calls can be made"

NATIVE = [pytest.param(FakeAnthropic, "anthropic/claude-test", id="anthropic"),
          pytest.param(FakeOpenAI, "openai/gpt-test", id="openai"),
          pytest.param(FakeOpenAI, "openai-compatible/qwen", id="openai-compatible")]


def inproc_mcp() -> MCPTools:
    from span_toolkit.server.app import build_server

    return MCPTools(target=build_server())


def provider_for(fake, spec):
    return make_provider(spec, base_url=fake.base_url, api_key="test-key", timeout=10)


def tools_allowed(body: dict) -> bool:
    """What a real server lets the model do: call tools only when they are in the request (as API tools or
    described in the system prompt) and tool_choice does not forbid it."""
    if body.get("tool_choice") in ("none", {"type": "none"}):
        return False
    system = body.get("system") or next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    return bool(body.get("tools")) or "<tools>" in str(system)


async def solve(fake, spec, **kw):
    p = provider_for(fake, spec)
    async with inproc_mcp() as mcp:
        out = await ChatSolver(p, system=load_prompt("system_tools.md"), tools=mcp, **kw).solve(
            'Today\'s date on the Gregorian calendar is "2025-7-1". What was the Hebrew calendar date 3 days ago?')
    await p.aclose()
    return out


@pytest.mark.parametrize("cls,spec", NATIVE)
async def test_a_native_call_repeated_forever_gets_a_judged_answer_in_four_requests(cls, spec):
    def policy(body, i):  # the same call whenever it may call; an answer when it may not
        return ToolCalls([("date_arithmetic", ARGS)]) if tools_allowed(body) else Text("Final answer: 2 Tammuz 5785")

    with cls(policy) as fake:
        out = await solve(fake, spec)  # --max-turns 8: the guard, not the turn budget, ends the loop
    assert out.stop_reason == "answered" and out.final_answer == "Final answer: 2 Tammuz 5785"
    assert len(fake.requests) == 4 and out.turns == 4
    assert out.repeats_caught == 2 and out.final_turn == "repeats"
    assert len(out.tool_calls) == 1  # run once; the two repeats were answered without running
    final = fake.requests[-1]["body"]
    if spec.startswith("anthropic"):
        assert final["tool_choice"] == {"type": "none"} and final["tools"]
    elif spec.startswith("openai/"):
        assert final["tool_choice"] == "none" and final["tools"]
    else:  # compatible servers render tools into the prompt whatever tool_choice says: left out
        assert "tools" not in final and "tool_choice" not in final
    assert all(fake.requests[i]["body"].get("tools") for i in range(3))
    assert FINAL in json.dumps(final["messages"][-1])
    # what the model was told about its repeat: not run again, the earlier result, answer now
    second = json.dumps(fake.requests[2]["body"]["messages"])
    assert "not run again" in second and "2 Tammuz 5785" in second and "answer the question now" in second


@pytest.mark.parametrize("mode", ["auto", "text"])
@pytest.mark.parametrize("written", [HERMES, BARE], ids=["hermes", "bare"])
async def test_a_text_call_repeated_forever_gets_a_judged_answer_in_four_requests(mode, written):
    def policy(body, i):
        return Text(written) if tools_allowed(body) else Text("The result says 2 Tammuz.\nFinal answer: 2 Tammuz 5785")

    with FakeOpenAI(policy) as fake:
        out = await solve(fake, "openai-compatible/qwen", tool_calls=mode)
    assert out.stop_reason == "answered" and out.final_answer.endswith("Final answer: 2 Tammuz 5785")
    assert len(fake.requests) == 4 and out.repeats_caught == 2 and out.final_turn == "repeats"
    assert [c["form"] for c in out.tool_calls] == ["text:hermes" if written == HERMES else "text:json"]
    final = fake.requests[-1]["body"]
    system = final["messages"][0]["content"]
    assert "tools" not in final
    if mode == "text":  # the tools-in-prompt text is replaced by the instruction to answer
        assert "<tools>" not in system and FINAL in system
        assert "<tools>" in fake.requests[0]["body"]["messages"][0]["content"]
    assert FINAL in final["messages"][-1]["content"] and final["messages"][-1]["role"] == "user"


@pytest.mark.parametrize("reply", [HERMES, BARE, "Let me check again.\n" + BARE], ids=["hermes", "bare", "prose"])
async def test_a_final_turn_reply_that_is_a_text_call_is_never_judged(reply):
    with FakeOpenAI(lambda body, i: Text(reply)) as fake:  # calls even when told it cannot
        out = await solve(fake, "openai-compatible/qwen", tool_calls="text")
    assert out.final_answer is None and out.stop_reason == "max_turns" and out.error is None
    assert len(fake.requests) == 4 and out.final_turn == "repeats"


async def test_a_final_turn_reply_with_a_call_then_a_final_answer_line_is_judged():
    def policy(body, i):
        if tools_allowed(body):
            return Text(HERMES)
        return Text(f"I called:\n{BARE}\nand it gave 2 Tammuz 5785.\nFinal answer: 2 Tammuz 5785")

    with FakeOpenAI(policy) as fake:
        out = await solve(fake, "openai-compatible/qwen", tool_calls="text")
    assert out.stop_reason == "answered" and out.final_answer.endswith("Final answer: 2 Tammuz 5785")


async def test_a_native_final_turn_reply_that_calls_anyway_is_no_answer():
    with FakeOpenAI(lambda body, i: ToolCalls([("date_arithmetic", ARGS)], text="Final answer: 2 Tammuz 5785")) as fake:
        out = await solve(fake, "openai-compatible/qwen")
    assert out.final_answer is None and out.stop_reason == "max_turns" and len(fake.requests) == 4


async def test_different_calls_are_run_and_only_exact_repeats_are_caught():
    calls = [{**ARGS, "days": -3}, {**ARGS, "days": -4}, {**ARGS, "days": -3}, {**ARGS, "days": -5}]

    def policy(body, i):
        if not tools_allowed(body):
            return Text("Final answer: 2 Tammuz 5785")
        return ToolCalls([("date_arithmetic", calls[i])]) if i < len(calls) else Text("Final answer: 3 Tammuz 5785")

    with FakeOpenAI(policy) as fake:
        out = await solve(fake, "openai/gpt-test")
    assert out.repeats_caught == 1 and out.final_turn is None  # one repeat: the loop goes on
    assert [c["arguments"]["days"] for c in out.tool_calls] == [-3, -4, -5]
    assert out.final_answer == "Final answer: 3 Tammuz 5785" and len(fake.requests) == 5


async def test_a_repeated_unusable_call_counts_as_a_repeat():
    broken = '<tool_call>\n{"name": "date_arithmetic", "arguments": {calendar: gregorian}}\n</tool_call>'

    def policy(body, i):
        return Text(broken) if tools_allowed(body) else Text("Final answer: 2 Tammuz 5785")

    with FakeOpenAI(policy) as fake:
        out = await solve(fake, "openai-compatible/qwen", tool_calls="text")
    assert out.repeats_caught == 2 and out.final_turn == "repeats" and len(fake.requests) == 4
    assert len(out.tool_calls) == 1 and out.tool_calls[0]["is_error"]  # recorded once
    assert "You sent this same call in turn 1" in fake.requests[2]["body"]["messages"][-1]["content"]
    assert out.final_answer == "Final answer: 2 Tammuz 5785"


async def test_max_turns_with_text_calls_ends_with_a_final_request():
    def policy(body, i):
        if not tools_allowed(body):
            return Text("Final answer: 2 Tammuz 5785")
        return Text(HERMES.replace('"days": -3', f'"days": {-3 - i}'))  # new arguments every time

    with FakeOpenAI(policy) as fake:
        out = await solve(fake, "openai-compatible/qwen", tool_calls="text", max_turns=2)
    assert out.final_turn == "max_turns" and out.repeats_caught == 0
    assert len(fake.requests) == 3 and len(out.tool_calls) == 2
    assert out.final_answer == "Final answer: 2 Tammuz 5785"


def test_the_repeat_text_shows_the_earlier_result_or_error():
    ok = repeat_text(1, "hebrew: 2 Tammuz 5785")
    assert "turn 1" in ok and "2 Tammuz 5785" in ok and "answer the question now" in ok and "===" not in ok
    failed = repeat_text(2, "Islamic year 2025 is out of range", True)
    assert "failed" in failed and "Change the arguments" in failed and "out of range" in failed
    assert len(repeat_text(1, "x" * 10_000)) < 2_500  # a huge earlier result is clipped
