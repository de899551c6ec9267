"""The agent loop through the real anthropic/openai SDKs against fake wire-format servers on 127.0.0.1,
with the real MCP tools (the span server, in process)."""

from __future__ import annotations

import json
import re

import pytest

from span_toolkit.client.solvers import ChatSolver
from span_toolkit.client.mcp_tools import MCPTools
from span_toolkit.client.providers import make_provider
from span_toolkit.prompts import load as load_prompt
from tests.fakes.providers import FakeAnthropic, FakeOpenAI, Text, ToolCalls, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

KINDS = [pytest.param(FakeAnthropic, "anthropic/claude-test", id="anthropic"),
         pytest.param(FakeOpenAI, "openai/gpt-test", id="openai")]

GOOD_ARGS = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1, "days": -3}


def inproc_mcp() -> MCPTools:
    """The real span MCP server, in process (entered inside each test: anyio cancel scopes must be
    entered and exited in the same task, which async fixtures do not guarantee)."""
    from span_toolkit.server.app import build_server

    return MCPTools(target=build_server())


def provider_for(fake, spec):
    return make_provider(spec, base_url=fake.base_url, api_key="test-key", timeout=10)


def sent_tools(fake, i=0):
    return fake.requests[i]["body"].get("tools")


def last_results(fake):
    return tool_results(fake.requests[-1]["body"])


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_unaided_answer(cls, spec):
    with cls(lambda body, i: Text("The date is 2025-6-28.\nFinal answer: 2025-6-28")) as fake:
        p = provider_for(fake, spec)
        system = load_prompt("system_unaided.md")
        out = await ChatSolver(p, system=system).solve("Today is 2025-7-1. What was the date 3 days ago?")
        await p.aclose()
    assert out.stop_reason == "answered"
    assert out.final_answer.endswith("Final answer: 2025-6-28")
    assert out.error is None and out.tool_calls == [] and out.turns == 1
    assert out.input_tokens == 11 and out.output_tokens == 7
    assert len(fake.requests) == 1
    body = fake.requests[0]["body"]
    assert "tools" not in body
    if spec.startswith("anthropic"):
        assert body["system"] == system
        assert fake.requests[0]["headers"].get("Authorization") == "Bearer test-key"
    else:
        assert body["messages"][0] == {"role": "system", "content": system}
        assert body["temperature"] == 0.0
    assert out.messages[0] == {"role": "system", "content": system}
    assert out.messages[-1]["role"] == "assistant"


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_tool_round_trip(cls, spec):
    def policy(body, i):
        res = tool_results(body)
        if not res:
            return ToolCalls([("date_arithmetic", GOOD_ARGS)], text="Let me compute.")
        hebrew = re.search(r"^hebrew: (.+?) \(", res[0]["content"], re.M).group(1)  # the compact text form
        return Text(f"Final answer: {hebrew}")

    with cls(policy) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered", out.error
    # 2025-06-28 is 2 Tammuz 5785
    assert out.final_answer == "Final answer: 2 Tammuz 5785"
    assert len(fake.requests) == 2 and out.turns == 2
    if cls is FakeOpenAI:  # said explicitly whenever tools are offered (llama-cpp drops them otherwise)
        assert all(r["body"]["tool_choice"] == "auto" for r in fake.requests)
    names = {t["name"] if "name" in t else t["function"]["name"] for t in sent_tools(fake)}
    assert {"search_calendar", "date_arithmetic", "date_difference", "list_calendars"} <= names
    [call] = out.tool_calls
    assert call["name"] == "date_arithmetic" and call["arguments"] == GOOD_ARGS and call["is_error"] is False
    assert call["result"]["result"]["gregorian"]["numeric"] == "2025-6-28"
    [res] = last_results(fake)
    assert "hebrew: 2 Tammuz 5785" in res["content"]
    assert out.input_tokens == 20 + 11 and out.output_tokens == 15 + 7


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_several_tool_calls_in_one_turn(cls, spec):
    calls = [("date_arithmetic", GOOD_ARGS),
             ("search_calendar", {"calendar": "hebrew", "year": 5785, "festival_name": "Passover"}),
             ("list_calendars", {})]

    def policy(body, i):
        res = tool_results(body)
        if not res:
            return ToolCalls(calls)
        return Text(f"Final answer: got {len(res)}")

    with cls(policy) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered" and out.final_answer == "Final answer: got 3"
    assert [c["name"] for c in out.tool_calls] == [c[0] for c in calls]
    assert not any(c["is_error"] for c in out.tool_calls)
    # results come back in call order, each answering its own call id (the fake enforces the pairing)
    res = last_results(fake)
    assert len(res) == 3
    assert "gregorian: 2025-4-13" in res[1]["content"]  # Passover 5785 = 15 Nisan


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_tool_error_the_model_recovers_from(cls, spec):
    bad = dict(GOOD_ARGS, calendar="hebrew", year=5784, month=13, day=1)  # 5784 is leap: fine; use day 31
    bad["day"] = 31

    def policy(body, i):
        res = tool_results(body)
        if not res:
            return ToolCalls([("date_arithmetic", bad)])
        if len(res) == 1:
            assert res[0]["is_error"] in (True, None)
            return ToolCalls([("date_arithmetic", GOOD_ARGS)], text="I will fix the day.")
        return Text("Final answer: 2 Tammuz 5785")

    with cls(policy) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered" and out.final_answer == "Final answer: 2 Tammuz 5785"
    first, second = out.tool_calls
    assert first["is_error"] is True and "day" in first["result"].lower()
    assert second["is_error"] is False and first["turn"] == 1 and second["turn"] == 2
    err = tool_results(fake.requests[1]["body"])[0]
    if spec.startswith("anthropic"):
        assert err["is_error"] is True
    else:
        assert err["content"].startswith("ERROR: ")


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_unknown_tool_name(cls, spec):
    def policy(body, i):
        if not tool_results(body):
            return ToolCalls([("convert_everything", {"x": 1})])
        return Text("Final answer: No")

    with cls(policy) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered"
    [call] = out.tool_calls
    assert call["is_error"] is True
    assert "Unknown tool 'convert_everything'" in call["result"] and "date_arithmetic" in call["result"]
    assert "convert_everything" in last_results(fake)[0]["content"]


@pytest.mark.parametrize("spec", ["openai-compatible/local", "openai/gpt-test"])
async def test_invalid_json_arguments_openai(spec):
    bad = '{"calendar": "gregorian", "year": 2025,'

    def policy(body, i):
        if not tool_results(body):
            return ToolCalls([("date_arithmetic", bad)])
        return Text("Final answer: Yes")

    compatible = spec.startswith("openai-compatible")
    # a compatible server json.loads the history's tool-call arguments (vLLM chat templates)
    with FakeOpenAI(policy, json_history=compatible) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered", out.error
    [call] = out.tool_calls
    assert call["is_error"] is True and call["arguments"] == bad  # the run log keeps the raw string
    assert "invalid JSON" in call["result"]
    assert "invalid JSON" in last_results(fake)[0]["content"]
    assistant = fake.requests[1]["body"]["messages"][2]
    if compatible:
        # echoed as an empty object, so the server's template can decode the history
        assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"
        assert fake.requests[0]["body"]["max_tokens"] == 2048  # compatible servers get max_tokens
    else:
        # OpenAI itself: echoed with its raw arguments string, as the API expects
        assert assistant["tool_calls"][0]["function"]["arguments"] == bad
        assert fake.requests[0]["body"]["max_completion_tokens"] == 2048


def _no_tools_allowed(body: dict) -> bool:
    return body.get("tool_choice") in ("none", {"type": "none"}) or not body.get("tools")


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_max_turns_reached_ends_with_one_request_without_tools(cls, spec):
    def policy(body, i):  # a new call every turn (no repeats) until tools are no longer allowed
        if _no_tools_allowed(body):
            return Text("Final answer: 2025-6-28")
        return ToolCalls([("date_arithmetic", {**GOOD_ARGS, "days": -1 - i})])

    with cls(policy) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp, max_turns=3).solve("q")
        await p.aclose()
    assert out.stop_reason == "answered" and out.final_answer == "Final answer: 2025-6-28"
    assert out.final_turn == "max_turns" and out.repeats_caught == 0
    assert len(fake.requests) == 4 and out.turns == 4  # three turns with tools, then the final one
    assert len(out.tool_calls) == 3  # the third turn's call ran: the final answer may use its result
    final = fake.requests[-1]["body"]
    assert final["tools"] and final["tool_choice"] == ({"type": "none"} if spec.startswith("anthropic") else "none")
    assert "No more tool calls can be made" in json.dumps(final["messages"][-1])


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_a_final_turn_reply_that_calls_a_tool_is_no_answer(cls, spec):
    with cls(lambda body, i: ToolCalls([("date_arithmetic", {**GOOD_ARGS, "days": -1 - i})])) as fake:
        p = provider_for(fake, spec)
        async with inproc_mcp() as mcp:
            out = await ChatSolver(p, system="s", tools=mcp, max_turns=3).solve("q")
        await p.aclose()
    assert out.stop_reason == "max_turns"
    assert out.final_answer is None and out.error is None
    assert len(fake.requests) == 4 and out.final_turn == "max_turns"
    assert any("final request without tools was a tool call" in n for n in out.notes)


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_non_retryable_error_is_an_error_not_an_answer(cls, spec):
    from tests.fakes.providers import Status

    with cls(lambda body, i: Status(400, None)) as fake:
        p = provider_for(fake, spec)
        out = await ChatSolver(p, system="s").solve("q")
        await p.aclose()
    assert out.stop_reason == "error" and out.final_answer is None
    assert "400" in out.error


@pytest.mark.parametrize("cls,spec", KINDS)
async def test_malformed_reply_is_an_error(cls, spec):
    from tests.fakes.providers import Malformed

    with cls(lambda body, i: Malformed()) as fake:
        p = provider_for(fake, spec)
        out = await ChatSolver(p, system="s").solve("q")
        await p.aclose()
    assert out.stop_reason == "error" and out.final_answer is None
    assert out.error


def test_model_spec_errors(monkeypatch):
    from span_toolkit.client.providers import ModelSpecError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for spec, msg in (("gpt-4o", "PROVIDER/MODEL"), ("google/gemini", "PROVIDER/MODEL"),
                      ("anthropic/claude", "ANTHROPIC_API_KEY"), ("openai/gpt", "OPENAI_API_KEY"),
                      ("openai-compatible/qwen", "--base-url")):
        with pytest.raises(ModelSpecError, match=msg):
            make_provider(spec)


async def test_broken_mcp_connection_is_an_error_not_shown_to_the_model():
    from span_toolkit.client.mcp_tools import MCPConnectionError
    from span_toolkit.client.providers.base import ToolSpec

    class DeadServer:
        tools = [ToolSpec("date_arithmetic", "d", {"type": "object", "properties": {}})]

        async def call(self, name, arguments):
            raise MCPConnectionError("MCP call 'date_arithmetic' failed (stdio): ClosedResourceError")

    def policy(body, i):
        if not tool_results(body):
            return ToolCalls([("date_arithmetic", GOOD_ARGS)])
        return Text("Final answer: guessed without tools")

    with FakeAnthropic(policy) as fake:
        p = provider_for(fake, "anthropic/claude-test")
        out = await ChatSolver(p, system="s", tools=DeadServer()).solve("q")
        await p.aclose()
    assert out.stop_reason == "error" and out.final_answer is None
    assert "ClosedResourceError" in out.error
    assert len(fake.requests) == 1  # the model never saw a fake "tool failed" and never answered


async def test_default_eval_tool_definitions_fit_the_budget():
    """What `eval --with-tools` sends as tool definitions, in both provider formats: ≤ 4,000 characters of
    compact JSON (issue "Lean tools")."""
    from span_toolkit.client.providers.anthropic_provider import to_anthropic_tools
    from span_toolkit.client.providers.openai_provider import to_openai_tools
    from span_toolkit.server.app import build_server
    from span_toolkit.server.tools import EVAL_TOOLS

    async with MCPTools(target=build_server(), only=EVAL_TOOLS) as mcp:
        assert [t.name for t in mcp.tools] == [t for t in ("search_calendar", "date_arithmetic", "date_difference",
                                                           "list_calendars") if t in EVAL_TOOLS]
        for convert in (to_openai_tools, to_anthropic_tools):
            size = len(json.dumps(convert(mcp.tools), separators=(",", ":"), ensure_ascii=False))
            assert size <= 4_000, (convert.__name__, size)


def test_eval_offers_the_evaluation_tool_set_by_default(tmp_path):
    from span_toolkit.client.cli import main as cli_main
    from span_toolkit.server.tools import EVAL_TOOLS

    out = tmp_path / "r"
    assert cli_main(["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--sample", "3",
                     "--out", str(out), "--quiet"]) == 0
    info = json.loads((out / "run.json").read_text())
    assert info["mcp"]["tools"] == [t for t in info["mcp"]["tools"] if t in EVAL_TOOLS]
    assert set(info["mcp"]["tools"]) == set(EVAL_TOOLS) and info["settings"]["tools"] == sorted(EVAL_TOOLS)
