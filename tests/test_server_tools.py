"""The MCP tools through the SDK's in-memory Client, in both protocol eras (auto = 2026-07-28, legacy)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from mcp import Client

from span_toolkit import span
from span_toolkit.server.app import build_server
from span_toolkit.server.tools import CalendarCatalog
from span_toolkit.span.models import CrossCalendarEntry, DifferenceResult, ShiftResult

TOOLS = ("search_calendar", "date_arithmetic", "date_difference", "list_calendars", "today")


@pytest.fixture(scope="module")
def server():
    return build_server(log_level="WARNING")


@pytest.fixture(params=["auto", "legacy"])
def mode(request):
    # A Client is opened inside each test: an async-generator fixture would enter and exit the
    # client's task group in different tasks.
    return request.param


async def ok(client, name, args):
    r = await client.call_tool(name, args)
    assert not r.is_error, r.content[0].text
    assert r.structured_content is not None
    return r.structured_content


async def err(client, name, args) -> str:
    r = await client.call_tool(name, args)
    assert r.is_error, r.structured_content
    text = r.content[0].text
    assert text.strip() and text.strip() != f"Error executing tool {name}", text
    return text


# --------------------------------------------------------------------------------------------
# Published schemas
# --------------------------------------------------------------------------------------------

def _all_properties(schema):
    for name, prop in schema.get("properties", {}).items():
        yield name, prop
        yield from _all_properties(prop)


async def test_tool_list_titles_annotations_schemas(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for t in tools.values():
            assert t.title and t.description and len(t.description) > 80
            a = t.annotations
            assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == \
                (True, False, True, False)
            assert t.output_schema and t.output_schema.get("type") == "object"
            assert t.input_schema["type"] == "object"
            assert t.input_schema.get("additionalProperties") is False
            assert "$defs" not in t.input_schema and "$ref" not in str(t.input_schema)
            for name, prop in _all_properties(t.input_schema):
                assert prop.get("description"), f"{t.name}.{name} has no description"


async def test_calendar_schema_is_the_servers_pattern(server, mode):
    # Not an enum: the server takes any case and spacing of every alias ("Chinese Lunar", " hijri ").
    # The schema publishes the pattern the server itself enforces; names are in the description.
    from span_toolkit.server.tools import CALENDAR_PATTERN

    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("search_calendar", "date_arithmetic"):
            cal = tools[name].input_schema["properties"]["calendar"]
            assert cal["type"] == "string" and cal["pattern"] == CALENDAR_PATTERN and "enum" not in cal
            # the six by a name or alias each; every other name in list_calendars (the tools/list budget)
            assert all(c in cal["description"] for c in ("lunar", "islamic", "hebrew", "list_calendars"))
        start = tools["date_difference"].input_schema["properties"]["start"]
        assert start["required"] == ["calendar", "year", "month", "day"]


async def test_integer_ranges_published(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        props = tools["date_arithmetic"].input_schema["properties"]
        # numbers or names (#32), as anyOf: strict validators refuse a two-type union; the valid numbers depend
        # on the calendar and year, and the error names them
        assert props["month"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
        assert (props["day"]["minimum"], props["day"]["maximum"]) == (1, 31)
        assert props["days"]["minimum"] < -73_000 and props["days"]["maximum"] > 73_000
        assert all("ge" not in p and "le" not in p for p in props.values())  # JSON Schema words only


async def test_definitions_state_conventions(server, mode):
    # What a model reads (description + input schema) states each convention once, in the parameter it
    # concerns; the full reference stays in list_calendars.
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("search_calendar", "date_arithmetic"):
            d = tools[name].description + json.dumps(tools[name].input_schema, ensure_ascii=False)
            assert "tabular" in d and "list_calendars" in d
            assert "Nisan=1" in d and "Adar II=13" in d and "Tishri=7" in d
            assert "is_lunar_leap_month" in d and "leap month" in d
            # ranges (Umm al-Qura's own) are in list_calendars and in the error that refuses a year (#32 moved
            # them out of the descriptions to make room in the tools/list budget)
            assert "targets" in d  # every calendar name: list_calendars (names_only), tests/test_tools_issue32.py
            assert "Example" in tools[name].description
        for t in tools.values():
            assert len(t.description) <= 400, (t.name, len(t.description))


async def test_server_info(server, mode):
    async with Client(server, mode=mode) as client:
        from span_toolkit.server.app import server_version
        assert client.server_info.name == "span"
        assert client.server_info.version == server_version() and client.server_info.version


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------

def _validates(tool_schema, data):
    jsonschema.validate(data, tool_schema)


async def test_search_calendar_festival_and_date(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        sc = await ok(client, "search_calendar", {"calendar": "chinese_lunar", "year": 2025,
                                                  "festival_name": "Chinese New Year"})
        _validates(tools["search_calendar"].output_schema, sc)
        CrossCalendarEntry.model_validate(sc)
        assert sc["gregorian"]["numeric"] == "2025-1-29" and sc["weekday"] == "Wednesday"
        assert sc["festival"]["name"] == "Chinese New Year" and sc["festival"]["calendar"] == "chinese_lunar"
        for name in span.CALENDAR_NAMES:
            assert set(sc[name]) >= {"year", "month", "day", "is_leap_month", "month_name", "display"}

        # the same day back from its Hebrew date, and matching the paper interface in span
        heb = sc["hebrew"]
        sc2 = await ok(client, "search_calendar", {"calendar": "hebrew", "year": heb["year"],
                                                   "month": heb["month"], "day": heb["day"]})
        assert sc2["gregorian"]["numeric"] == "2025-1-29" and "festival" not in sc2
        paper = span.search_calendar("hebrew", heb["year"], heb["month"], heb["day"])
        assert paper["lunar_date"] == sc2["chinese_lunar"]["numeric"]
        assert paper["persian_date"] == sc2["persian"]["numeric"]


@pytest.mark.parametrize("calendar,year,festival,gregorian", [
    ("hebrew", 5785, "Rosh Hashanah", "2024-10-3"),
    ("persian", 1404, "Nowruz", "2025-3-21"),
    ("gregorian", 2024, "valentines day", "2024-2-14"),
    ("Chinese Lunar", 2024, "Mid-Autumn Festival", "2024-9-17"),
])
async def test_known_festivals(server, mode, calendar, year, festival, gregorian):
    async with Client(server, mode=mode) as client:
        sc = await ok(client, "search_calendar", {"calendar": calendar, "year": year, "festival_name": festival})
        assert sc["gregorian"]["numeric"] == gregorian


async def test_chinese_leap_month(server, mode):
    async with Client(server, mode=mode) as client:
        sc = await ok(client, "search_calendar", {"calendar": "lunar", "year": 2023, "month": 2, "day": 15,
                                                  "is_lunar_leap_month": True})
        lunar = sc["chinese_lunar"]
        assert lunar["is_leap_month"] is True and lunar["display"] == "2023-leap2-15"
        regular = await ok(client, "search_calendar", {"calendar": "lunar", "year": 2023, "month": 2, "day": 15})
        assert regular["gregorian"]["numeric"] != sc["gregorian"]["numeric"]


@pytest.mark.parametrize("alias", ["lunar", "Chinese Lunar", "chinese", "CHINESE_LUNAR", " chinese-lunar "])
async def test_calendar_aliases_accepted(server, mode, alias):
    async with Client(server, mode=mode) as client:
        sc = await ok(client, "search_calendar", {"calendar": alias, "year": 2025, "month": 1, "day": 1})
        assert sc["chinese_lunar"]["numeric"] == "2025-1-1"


async def test_paper_keyword_aliases(server, mode):
    # The paper's code calls search_calendar(calendar=..., event=...): accepted under their own names.
    async with Client(server, mode=mode) as client:
        sc = await ok(client, "search_calendar", {"calendar": "islamic", "year": 1446, "event": "Eid al-Fitr"})
        assert sc["islamic"]["display"] == "1 Shawwal 1446"
        sc = await ok(client, "search_calendar", {"calendar_name": "lunar", "year": 2023, "month": 2, "day": 1,
                                                  "is_leap_month": True})
        assert sc["chinese_lunar"]["is_leap_month"] is True


async def test_date_arithmetic(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        r = await ok(client, "date_arithmetic", {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1,
                                                 "days": -10})
        _validates(tools["date_arithmetic"].output_schema, r)
        ShiftResult.model_validate(r)
        assert r["result"]["gregorian"]["numeric"] == "2025-6-21" and r["clamped"] is False
        assert r["shift"] == {"days": -10, "weeks": 0, "months": 0, "years": 0}
        assert r["start"]["display"] == "2025-7-1"

        r = await ok(client, "date_arithmetic", {"calendar": "hebrew", "year": 5784, "month": 13, "day": 29,
                                                 "years": 1})
        assert r["result"]["hebrew"]["display"] == "29 Adar 5785" and "Adar II" in r["note"]

        r = await ok(client, "date_arithmetic", {"calendar": "gregorian", "year": 2024, "month": 1, "day": 31,
                                                 "months": 1})
        assert r["result"]["gregorian"]["numeric"] == "2024-2-29" and r["clamped"] is True and r["note"]

        r = await ok(client, "date_arithmetic", {"calendar": "persian", "year": 1404, "month": 1, "day": 1,
                                                 "weeks": 3, "days": 2})
        d = span.shift_date(span.CalendarDate.create("persian", 1404, 1, 1), days=23).date
        assert r["result"]["persian"]["numeric"] == d.numeric()


async def test_date_difference(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        r = await ok(client, "date_difference", {
            "start": {"calendar": "gregorian", "year": 2025, "month": 1, "day": 1},
            "end": {"calendar": "lunar", "year": 2025, "month": 1, "day": 1}})
        _validates(tools["date_difference"].output_schema, r)
        DifferenceResult.model_validate(r)
        assert (r["days"], r["weeks"], r["remainder_days"]) == (28, 4, 0)
        back = await ok(client, "date_difference", {"start": r["end"], "end": r["start"]})  # DateInfo passed back
        assert (back["days"], back["weeks"], back["remainder_days"]) == (-28, -4, 0)
        r = await ok(client, "date_difference", {
            "start": {"calendar": "hebrew", "year": 5785, "month": 7, "day": 1},
            "end": {"calendar": "hebrew", "year": 5785, "month": 7, "day": 10}})
        assert (r["days"], r["weeks"], r["remainder_days"]) == (9, 1, 2)


async def test_list_calendars(server, mode):
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        r = await ok(client, "list_calendars", {})
        _validates(tools["list_calendars"].output_schema, r)
        cat = CalendarCatalog.model_validate(r)
        assert [c.name for c in cat.calendars] == list(span.ALL_CALENDAR_NAMES)
        hebrew = next(c for c in cat.calendars if c.name == "hebrew")
        months = {m.number: m.name for m in hebrew.months}
        assert months[1] == "Nisan" and months[7] == "Tishri" and months[13] == "Adar II"
        chinese = next(c for c in cat.calendars if c.name == "chinese_lunar")
        assert chinese.has_leap_months and "is_lunar_leap_month" in chinese.month_note
        assert "lunar" in chinese.aliases
        names = {f.name for f in cat.festivals}
        assert {f.name for f in span.festivals.FESTIVALS} == names
        assert sum(f.in_span_paper for f in cat.festivals) == 21
        assert all(f.rule for f in cat.festivals)
        assert "Umm al-Qura" in cat.conventions
        # the range is not claimed for every calendar: Umm al-Qura's table covers less
        uaq = next(c for c in cat.calendars if c.name == "islamic_umm_al_qura")
        assert "1924-08-01" in uaq.supported_range and "2077-11-16" in uaq.supported_range
        assert "except islamic_umm_al_qura" in cat.conventions and "2077-11-16" in cat.conventions
        korean = next(c for c in cat.calendars if c.name == "korean_lunar")
        assert korean.has_leap_months and chinese.month_note in korean.month_note
        assert [m.number for m in korean.months] == list(range(1, 13))
        ethiopian = next(c for c in cat.calendars if c.name == "ethiopian")
        assert ethiopian.months[12].name == "Pagume" and "6 in a leap year" in ethiopian.months[12].note
        easter = next(f for f in cat.festivals if f.name == "Orthodox Easter")
        assert easter.month is None and easter.day is None and "computus" in easter.rule
        assert "month" not in next(f for f in r["festivals"] if f["name"] == "Orthodox Easter")
        assert all(f.month and f.day for f in cat.festivals if f.name != "Orthodox Easter")


def test_month_notes_come_from_the_calendars(monkeypatch):
    """The server lists each calendar's own notes (span/calendars/*: month_note, notes_by_month): change
    one on the calendar and the catalog shows the change, for any calendar."""
    import asyncio

    from span_toolkit.server import tools as server_tools

    persian = span.get_calendar("persian")
    assert persian.month_note is None and not persian.notes_by_month
    monkeypatch.setattr(type(persian), "month_note", "a note the server cannot know")
    monkeypatch.setattr(type(persian), "notes_by_month", {12: "29 or 30 days"})
    monkeypatch.setattr(server_tools, "_CATALOG", None)
    cat = asyncio.run(server_tools.list_calendars())
    monkeypatch.setattr(server_tools, "_CATALOG", None)  # rebuilt from the real calendars for later tests
    by_name = {c.name: c for c in cat.calendars}
    assert by_name["persian"].month_note == "a note the server cannot know"
    assert [m.note for m in by_name["persian"].months if m.note] == ["29 or 30 days"]
    for name in span.ALL_CALENDAR_NAMES:
        cal = span.get_calendar(name)
        entry = by_name[name]
        assert entry.month_note == cal.month_note, name
        assert {m.number: m.note for m in entry.months if m.note} == cal.notes_by_month, name
    assert by_name["hebrew"].months[12].note == "leap years only (7 of every 19 years)"


# --------------------------------------------------------------------------------------------
# Errors: every path answers with is_error and a message the model can act on
# --------------------------------------------------------------------------------------------

D = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}

ERROR_CASES = [
    # (tool, arguments, words the message must contain)
    ("search_calendar", {"calendar": "mayan", "year": 2025, "month": 1, "day": 1},
     ["unknown calendar 'mayan'", "gregorian, chinese_lunar"]),
    ("search_calendar", {"calendar": 7, "year": 2025, "month": 1, "day": 1}, ["calendar", "gregorian, chinese_lunar"]),
    ("search_calendar", {"calendar": "lunar2", "year": 2025, "month": 1, "day": 1}, ["calendar", "letters"]),
    ("search_calendar", {"calendar": "hebrew", "year": 5785, "month": 13, "day": 1}, ["not a leap year"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2023, "month": 2, "day": 29}, ["28 days"]),
    ("search_calendar", {"calendar": "islamic", "year": 1446, "month": 1, "day": 31}, ["day", "31"]),
    ("search_calendar", {"calendar": "lunar", "year": 2023, "month": 4, "day": 1, "is_lunar_leap_month": True},
     ["leap month 2, not 4"]),
    ("search_calendar", {"calendar": "lunar", "year": 2025, "month": 2, "day": 1, "is_lunar_leap_month": True},
     ["leap month 6"]),
    ("search_calendar", {"calendar": "gregorian", "year": 1850, "month": 1, "day": 1}, ["out of range", "1900"]),
    # a Gregorian date sent as another calendar's (Qwen2.5-Coder-0.5B's commonest slip): the error says so
    ("search_calendar", {"calendar": "hebrew", "year": 2025, "month": 3, "day": 14},
     ["Hebrew year 2025 is out of range", "5660", 'if you meant the Gregorian year 2025, give the calendar "gregorian"']),
    ("date_arithmetic", {"calendar": "persian", "year": 2026, "month": 10, "day": 15, "days": 3},
     ["Persian year 2026 is out of range", '"gregorian"']),
    ("search_calendar", {"calendar": "gregorian", "year": 10 ** 30, "month": 1, "day": 1},
     ["year: expected an integer from 1 to 9999"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "festival_name": "Diwali"},
     ["unknown festival 'Diwali'", "Christmas Day"]),
    ("search_calendar", {"calendar": "islamic", "year": 1446, "festival_name": "Christmas"},
     ["Gregorian calendar", "calendar='gregorian'"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 12, "day": 25,
                         "festival_name": "Christmas"}, ["not both"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 12}, ["day missing"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025}, ["month and day missing", "festival_name"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "festival_name": "  "}, ["festival"]),
    ("search_calendar", {"calendar": "lunar", "year": 2025, "festival_name": "Chinese New Year",
                         "is_lunar_leap_month": True}, ["not to a festival"]),
    ("search_calendar", {"year": 2025, "month": 1, "day": 1}, ["calendar: required argument missing"]),
    ("search_calendar", {"calendar": "gregorian", "year": "twenty", "month": 1, "day": 1},
     ["year: expected an integer", "'twenty'"]),
    ("search_calendar", {"calendar": "gregorian", "year": True, "month": 1, "day": 1}, ["boolean"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025.5, "month": 1, "day": 1}, ["year"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 0, "day": 1}, ["month", "1"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 1, "day": 99}, ["day", "31"]),
    ("search_calendar", {**D, "colour": "red"}, ["unexpected argument 'colour'", "festival_name"]),
    ("search_calendar", {**D, "festival": "Christmas", "festival_name": "Halloween"},
     ["given twice (as 'festival' and 'festival_name')"]),
    ("search_calendar", {"calendar": "gregorian", "year": 2025, "festival_name": "x" * 500}, ["festival_name"]),
    ("date_arithmetic", {**D, "days": 10 ** 9}, ["days", "80000"]),
    ("date_arithmetic", {**D, "years": -500}, ["years"]),
    ("date_arithmetic", {**D, "days": 80_000}, ["outside the supported range"]),
    ("date_arithmetic", {"calendar": "gregorian", "year": 1900, "month": 1, "day": 1, "days": -1},
     ["outside the supported range"]),
    ("date_arithmetic", {"calendar": "hebrew", "year": 5861, "month": 9, "day": 1, "months": 12},
     ["supported"]),
    ("date_arithmetic", {"calendar": "gregorian", "year": 2025, "month": 2, "day": 30}, ["28 days"]),
    ("date_arithmetic", {"calendar": "gregorian", "year": 2025, "month": 2}, ["day: required argument missing"]),
    ("date_arithmetic", {**D, "days": "ten"}, ["days: expected an integer from -80000 to 80000", "'ten'"]),
    ("date_arithmetic", {**D, "festival_name": "Christmas"}, ["unexpected argument 'festival_name'"]),
    ("date_difference", {"start": D}, ["end: required argument missing"]),
    ("date_difference", {"start": D, "end": "tomorrow"}, ["end: expected a date object {calendar, year",
                                                          "'tomorrow'"]),
    ("date_difference", {"start": D, "end": {**D, "calendar": "klingon"}}, ["unknown calendar 'klingon'"]),
    ("date_difference", {"start": D, "end": {**D, "month": 2, "day": 30}}, ["28 days"]),
    ("date_difference", {"start": D, "end": {**D, "hour": 3}}, ["unexpected field 'hour'"]),
    ("date_difference", {"start": D, "end": {"calendar": "hebrew", "year": 5785, "month": 1}},
     ["end.day: required argument missing"]),
    ("list_calendars", {"verbose": True}, ["unexpected argument 'verbose'"]),
    ("no_such_tool", {}, ["unknown tool 'no_such_tool'", "search_calendar"]),
]


@pytest.mark.parametrize("tool,args,words", ERROR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
async def test_error_paths(server, mode, tool, args, words):
    async with Client(server, mode=mode) as client:
        text = await err(client, tool, args)
        for w in words:
            assert w in text, f"{w!r} not in {text!r}"
        assert "Traceback" not in text
        assert "DateInput" not in text and "dictionary" not in text  # no Python internals
        # the server still answers afterwards
        await ok(client, "search_calendar", {**D})


async def test_unexpected_exception_becomes_clear_tool_error(server, monkeypatch):
    """The guard for core bugs: a non-CalendarError exception is a clear ToolError, not a bare message."""
    import span_toolkit.server.tools as tools_mod

    def boom(*a, **k):
        raise ZeroDivisionError("simulated core bug")

    monkeypatch.setattr(tools_mod.span.search, "resolve_query", boom)
    async with Client(server) as c:
        text = await err(c, "search_calendar", D)
        assert "internal error in search_calendar" in text and "ZeroDivisionError" in text
        monkeypatch.undo()
        await ok(c, "search_calendar", D)


async def test_direct_call_without_transport(server):
    r = await server.call_tool("search_calendar", {"calendar": "jalali", "year": 1404, "festival_name": "Nowruz"})
    assert r.structured_content["gregorian"]["numeric"] == "2025-3-21"
