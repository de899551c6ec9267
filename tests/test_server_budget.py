"""What the tools cost a model and a client, and that the published schemas say what the server does.

* the tool definitions a with-tools eval sends (compact JSON, both provider shapes) fit 4,000 characters;
* tools/list on the wire fits 12,000 bytes; output schemas share $defs and are valid JSON Schema;
* a date result's text (what a model reads) fits 500 characters and holds every date, the weekday and
  the leap-month flag, the same as structuredContent;
* every calendar alias list_calendars lists validates against the published input schemas, and the
  server accepts exactly the calendar spellings the schema's pattern accepts;
* a 1 MB tool name, nested field or value (or a 4,000-digit year) gets an error under 2 KB, and the log
  line too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from mcp import Client

from span_toolkit import span
# where the client keeps the provider shapes (exactly what a provider sends as `tools`)
from span_toolkit.client.providers.anthropic_provider import to_anthropic_tools
from span_toolkit.client.providers.openai_provider import to_openai_tools
from span_toolkit.client.providers.base import ToolSpec
from span_toolkit.server.app import build_server
from span_toolkit.server.tools import EVAL_TOOLS
from span_toolkit.span.models import SIX_CALENDARS, parse_dates

ROOT = Path(__file__).resolve().parent.parent
DEFINITIONS_BUDGET = 4_000
TOOLS_LIST_BUDGET = 12_000
TEXT_BUDGET = 500
ERROR_BUDGET = 2_000


def compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


@pytest.fixture(scope="module")
def server():
    return build_server(log_level="WARNING")


async def _tools(server):
    async with Client(server) as client:
        return {t.name: t for t in (await client.list_tools()).tools}


def _specs(tools, names):
    return [ToolSpec(name=t.name, description=t.description or "", input_schema=t.input_schema, title=t.title,
                     output_schema=t.output_schema) for n, t in tools.items() if n in names]


# --------------------------------------------------------------------------------------------
# What a model is sent
# --------------------------------------------------------------------------------------------

async def test_eval_tool_definitions_fit_the_budget(server):
    tools = await _tools(server)
    assert set(EVAL_TOOLS) <= set(tools)
    specs = _specs(tools, EVAL_TOOLS)
    for shape, convert in (("anthropic", to_anthropic_tools), ("openai", to_openai_tools)):
        size = len(compact(convert(specs)))
        print(f"{shape}: {size} characters for {', '.join(EVAL_TOOLS)}")
        assert size <= DEFINITIONS_BUDGET, (shape, size)


async def test_every_tool_definition_is_lean(server):
    # Each tool alone stays small too, so offering date_difference as well costs ~1.7k more, not 4k
    # (date_arithmetic, the largest with its four offsets and `targets`, is ~1.95k).
    tools = await _tools(server)
    for spec in _specs(tools, set(tools)):
        size = len(compact(to_openai_tools([spec])))
        assert size <= 2_000, (spec.name, size)
        assert len(spec.description) <= 400
        if spec.input_schema.get("properties"):  # a tool that takes arguments shows one call
            assert "Example" in spec.description, spec.name


def _raw_session(*extra_args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "span_toolkit.server", *extra_args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class RawStdio:
    """The wire, byte for byte: a bare JSON-RPC client on span-server's pipes."""

    def __init__(self, log_level: str = "WARNING") -> None:
        self.proc = _raw_session("--log-level", log_level)
        self.next_id = 0
        self.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "budget-test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def rpc(self, method: str, params: dict | None = None) -> bytes:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})})
        while True:
            line = self.proc.stdout.readline()
            assert line, "span-server closed stdout"
            if json.loads(line).get("id") == self.next_id:
                return line

    def close(self) -> str:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        return self.proc.stderr.read().decode(errors="replace")


def test_tools_list_on_the_wire_fits_12_kb():
    s = RawStdio()
    try:
        line = s.rpc("tools/list")
    finally:
        s.close()
    tools = json.loads(line)["result"]["tools"]
    print(f"tools/list: {len(line)} bytes")
    assert len(line) <= TOOLS_LIST_BUDGET, len(line)
    for t in tools:
        out = t["outputSchema"]
        jsonschema.Draft202012Validator.check_schema(out)
        jsonschema.Draft202012Validator.check_schema(t["inputSchema"])
        assert "$ref" not in compact(t["inputSchema"])  # inputs inline: some hosts do not resolve $ref
    by_name = {t["name"]: t for t in tools}
    # the date object is defined once per output schema and referenced, not repeated inline
    out = compact(by_name["date_arithmetic"]["outputSchema"])
    # start, the six calendars and `more`; one definition (month_name: its property and its required entry)
    assert out.count('"$ref":"#/$defs/DateInfo"') == 8 and out.count('"month_name"') == 2


# --------------------------------------------------------------------------------------------
# What a model reads back
# --------------------------------------------------------------------------------------------

_LONGEST = max(span.festivals.FESTIVALS, key=lambda f: len(f.name) + len(f.rule))  # the longest festival line
DATE_QUERIES = [
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}),
    ("search_calendar", {"calendar": "lunar", "year": 2023, "month": 2, "day": 15, "is_lunar_leap_month": True}),
    ("search_calendar", {"calendar": "hebrew", "year": 5784, "month": 13, "day": 29}),
    ("search_calendar", {"calendar": "persian", "year": 1403, "month": 12, "day": 30}),
    ("search_calendar", {"calendar": "islamic", "year": 1446, "festival_name": "Eid al-Fitr"}),
    ("search_calendar", {"calendar": "hebrew", "year": 5785, "festival_name": "Tisha B'Av"}),
    ("search_calendar", {"calendar": _LONGEST.calendar, "year": span.get_calendar(_LONGEST.calendar).min_year + 20,
                         "festival_name": _LONGEST.name}),
    ("search_calendar", {"calendar": "gregorian", "year": 2100, "month": 12, "day": 31}),
    ("date_arithmetic", {"calendar": "gregorian", "year": 2024, "month": 1, "day": 31, "months": 1}),
    ("date_arithmetic", {"calendar": "hebrew", "year": 5784, "month": 13, "day": 29, "years": 1}),
    ("date_arithmetic", {"calendar": "lunar", "year": 2023, "month": 2, "day": 29, "is_lunar_leap_month": True,
                         "weeks": -3, "days": 2}),
]


@pytest.mark.parametrize("tool,args", DATE_QUERIES)
async def test_result_text_is_compact_and_complete(server, tool, args):
    async with Client(server) as client:
        r = await client.call_tool(tool, args)
    assert not r.is_error, r.content[0].text
    [content] = r.content
    text, data = content.text, r.structured_content
    entry = data["result"] if tool == "date_arithmetic" else data
    limit = TEXT_BUDGET + (200 if tool == "date_arithmetic" else 0)  # + the start line and a clamping note
    assert len(text) <= limit, (len(text), text)
    dates = parse_dates(text.split("\nresult:\n")[-1])
    assert list(dates) == list(SIX_CALENDARS)
    for name in SIX_CALENDARS:
        want = entry[name]
        got = dates[name]
        assert (got["year"], got["month"], got["day"], got["is_leap_month"], got["display"]) == \
            (want["year"], want["month"], want["day"], want["is_leap_month"], want["display"]), name
    assert f"weekday: {entry['weekday']}" in text
    if "festival" in entry:
        assert entry["festival"]["name"] in text
    if tool == "date_arithmetic":
        assert text.startswith(f"start: {data['start']['calendar']} {data['start']['display']}")
        assert ("clamped" in text) == data["clamped"]


async def test_search_text_reads_one_line_per_calendar(server):
    async with Client(server) as client:
        r = await client.call_tool("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1})
        leap = await client.call_tool("search_calendar", {"calendar": "lunar", "year": 2023, "month": 2, "day": 15,
                                                          "is_lunar_leap_month": True})
    assert r.content[0].text.splitlines() == [
        "gregorian: 2025-7-1", "chinese_lunar: 2025-6-7", "islamic: 5 Muharram 1447 (1447-1-5)",
        "hebrew: 5 Tammuz 5785 (5785-4-5)", "shaka: 10 Ashadha 1947 (1947-4-10)", "persian: 10 Tir 1404 (1404-4-10)",
        "weekday: Tuesday"]
    assert "chinese_lunar: 2023-leap2-15 (leap month)" in leap.content[0].text.splitlines()
    assert len(r.content[0].text) < 250


async def test_other_results_have_compact_text(server):
    async with Client(server) as client:
        diff = await client.call_tool("date_difference", {
            "start": {"calendar": "gregorian", "year": 2025, "month": 1, "day": 1},
            "end": {"calendar": "lunar", "year": 2025, "month": 1, "day": 1}})
        cat = await client.call_tool("list_calendars", {})
    assert diff.content[0].text.splitlines()[-1] == "days: 28 (end minus start) = 4 weeks 0 days"
    text = cat.content[0].text
    assert not text.startswith("{") and len(text) < len(json.dumps(cat.structured_content))
    for f in span.festivals.FESTIVALS:
        when = "movable" if f.movable else f"{f.month}-{f.day}"
        assert f"{f.name}; {f.calendar}; {when}; {f.rule}" in text
    assert "hebrew (" in text and "13 Adar II" in text and "; 0-0;" not in text
    assert "Gregorian 1924-08-01 … 2077-11-16" in text


# --------------------------------------------------------------------------------------------
# The input schemas accept what the server accepts
# --------------------------------------------------------------------------------------------

def _calendar_schemas(tools):
    return {"search_calendar": tools["search_calendar"].input_schema["properties"]["calendar"],
            "date_arithmetic": tools["date_arithmetic"].input_schema["properties"]["calendar"],
            "date_difference.start": tools["date_difference"].input_schema["properties"]["start"]["properties"]["calendar"]}


def _spellings(name: str) -> list[str]:
    return [name, name.upper(), name.title(), f"  {name} ", name.replace(" ", "_"), name.replace(" ", "-"),
            f"{name} calendar"]


async def test_every_listed_alias_validates_and_is_accepted(server):
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        catalog = (await client.call_tool("list_calendars", {})).structured_content
        V = jsonschema.Draft202012Validator
        schemas = [V(s) for s in _calendar_schemas(tools).values()]
        search, arith, diff = (V(tools[n].input_schema) for n in ("search_calendar", "date_arithmetic",
                                                                   "date_difference"))
        checked = 0
        for cal in catalog["calendars"]:
            for alias in [cal["name"], *cal["aliases"]]:
                for spelling in _spellings(alias):
                    # the whole argument object, as a validating client (Ajv, jsonschema) would check it
                    args = {"calendar": spelling, "year": 2000, "month": 1, "day": 1}
                    search.validate(args)
                    arith.validate({**args, "days": 1, "targets": [spelling]})
                    search.validate({**args, "targets": [spelling, "julian"]})
                    diff.validate({"start": args, "end": args})
                    for schema in schemas:
                        schema.validate(spelling)
                    checked += 1
                # the server's answer for every listed alias, as the calendar and as a target
                r = await client.call_tool("date_arithmetic", {"calendar": alias, "year": cal["first_year"] + 5,
                                                               "month": 1, "day": 1, "targets": [alias]})
                assert not r.is_error, (alias, r.content[0].text)
                assert r.structured_content["start"]["calendar"] == cal["name"]
                assert r.content[0].text.split("\nresult:\n")[1].startswith(f"{cal['name']}: ")
        assert checked >= len(span.ALL_CALENDAR_NAMES) * 7 * 5


# (not "lunar\n": Python's jsonschema matches `$` before a final newline, ECMA-262 validators such as Ajv
# and the server do not)
@pytest.mark.parametrize("value", ["lunar2", "中国", "hebrew;", "", "  ", "-", "ｌｕｎａｒ", "\tlunar", "SHA\u212aA"])
async def test_spellings_outside_the_pattern_are_refused_by_both(server, value):
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        schema = _calendar_schemas(tools)["search_calendar"]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(value, schema)
        r = await client.call_tool("search_calendar", {"calendar": value, "year": 2025, "month": 1, "day": 1})
        assert r.is_error and "calendar" in r.content[0].text and "gregorian" in r.content[0].text


# --------------------------------------------------------------------------------------------
# Huge inputs get short errors
# --------------------------------------------------------------------------------------------

BIG = "x" * 1_000_000
D = {"calendar": "gregorian", "year": 2025, "month": 1, "day": 1}
HUGE_CALLS = {
    "tool name": {"name": BIG, "arguments": {}},
    "argument name": {"name": "search_calendar", "arguments": {**D, BIG: 1}},
    "nested field": {"name": "date_difference", "arguments": {"start": D, "end": {**D, BIG: 1}}},
    "calendar value": {"name": "date_difference", "arguments": {"start": D, "end": {**D, "calendar": "a" * 1_000_000}}},
    "4,000-digit year": {"name": "search_calendar",
                         "arguments": {**D, "year": int("9" * 4000), "festival_name": BIG}},
    "festival value": {"name": "search_calendar", "arguments": {"calendar": "gregorian", "year": 2025,
                                                                "festival_name": BIG}},
}


def test_huge_inputs_get_short_errors_and_short_log_lines():
    s = RawStdio(log_level="DEBUG")
    replies = {}
    try:
        for what, params in HUGE_CALLS.items():
            replies[what] = s.rpc("tools/call", params)
        ok = json.loads(s.rpc("tools/call", {"name": "search_calendar", "arguments": D}))
    finally:
        stderr = s.close()
    for what, line in replies.items():
        result = json.loads(line)["result"]
        assert result["isError"], what
        text = result["content"][0]["text"]
        assert len(line) < ERROR_BUDGET and "…" in text, (what, len(line), text[:300])
    assert not ok["result"].get("isError")
    longest = max(map(len, stderr.splitlines()), default=0)
    assert longest < ERROR_BUDGET, longest
    assert len(stderr) < 20 * ERROR_BUDGET


async def test_reference_material_is_a_resource_and_a_prompt(server):
    async with Client(server) as client:
        resources = (await client.list_resources()).resources
        [res] = [r for r in resources if str(r.uri) == "span://calendars"]
        body = (await client.read_resource("span://calendars")).contents[0].text
        catalog = (await client.call_tool("list_calendars", {})).content[0].text
        assert body == catalog and "Adar II" in body
        prompt = await client.get_prompt("calendar_conventions")
        assert "Umm al-Qura" in prompt.messages[0].content.text


def test_malformed_call_envelope_names_the_parameter():
    # Caught before the SDK's params validation, which would say only "Invalid request parameters".
    s = RawStdio()
    try:
        replies = [json.loads(s.rpc("tools/call", p)) for p in (
            {"name": "search_calendar", "arguments": BIG},
            {"name": "search_calendar", "arguments": [1, 2]},
            {"name": 42, "arguments": {}})]
        ok = json.loads(s.rpc("tools/call", {"name": "search_calendar", "arguments": D}))
    finally:
        s.close()
    messages = [r["error"]["message"] for r in replies]
    assert all(r["error"]["code"] == -32602 for r in replies)
    assert "'arguments' for 'search_calendar' must be a JSON object" in messages[0] and "a string" in messages[0]
    assert len(messages[0]) < 300 and "…" in messages[0]
    assert "an array" in messages[1]
    assert "'name' must be a tool name (a string), got a number" in messages[2]
    assert not ok["result"].get("isError")


def test_more_calendars_extend_a_result_without_changing_the_six():
    # More calendars: the six fixed fields stay, the rest go to `more`, and the text gains one line each.
    # With `targets` the text lists exactly the targets, in their order; the data keep the six.
    from span_toolkit.span.models import CrossCalendarEntry

    d = span.CalendarDate.create("gregorian", 2025, 7, 1)
    extra = list(span.EXTRA_CALENDAR_NAMES[:2])
    assert extra and not set(extra) & set(SIX_CALENDARS)
    entry = CrossCalendarEntry.of(d, more=tuple(extra))
    assert list(entry.more) == extra and entry.gregorian.numeric == "2025-7-1"
    parsed = parse_dates(entry.text(), calendars=[*SIX_CALENDARS, *extra])
    assert list(parsed) == [*SIX_CALENDARS, *extra]
    for name in extra:
        assert parsed[name]["display"] == entry.more[name].display
    assert "more" not in CrossCalendarEntry.of(d).model_dump(exclude_none=True)
    chosen = CrossCalendarEntry.of(d, targets=(extra[1], "hebrew"))
    assert list(parse_dates(chosen.text(), span.ALL_CALENDAR_NAMES)) == [extra[1], "hebrew"]
    assert list(chosen.more) == [extra[1]] and chosen.model_dump()["hebrew"] == entry.model_dump()["hebrew"]
