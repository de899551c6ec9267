"""The calendars beyond the paper through the MCP tools, and the `targets` option, through the SDK's
in-memory Client: each new calendar as a source (a date and its festivals), date arithmetic along its real
month sequence, targets in search_calendar and date_arithmetic, one-line errors that name what is valid,
and the published input schemas accepting every alias list_calendars lists.

Expected festival dates are public observances (the Orthodox, Coptic and Ethiopian churches' calendars,
KASI's Korean holidays, Saudi Arabia's announced Eids), not values computed by span.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from mcp import Client

from span_toolkit import span
from span_toolkit.server.app import build_server
from span_toolkit.server.tools import MAX_TARGETS
from span_toolkit.span.models import SIX_CALENDARS, parse_dates

NEW = span.EXTRA_CALENDAR_NAMES
ROOT = Path(__file__).resolve().parent.parent
TEXT_BUDGET = 500


@pytest.fixture(scope="module")
def server():
    return build_server(log_level="WARNING")


async def call(server, tool, args):
    async with Client(server) as client:
        return await client.call_tool(tool, args)


async def ok(server, tool, args):
    r = await call(server, tool, args)
    assert not r.is_error, r.content[0].text
    return r.structured_content, r.content[0].text


async def err(server, tool, args) -> str:
    r = await call(server, tool, args)
    assert r.is_error, r.structured_content
    [content] = r.content
    assert "\n" not in content.text and "Traceback" not in content.text, content.text
    return content.text


def greg(entry) -> str:
    return entry["gregorian"]["numeric"]


# --------------------------------------------------------------------------------------------
# Each new calendar as the source
# --------------------------------------------------------------------------------------------

FESTIVALS = [
    # (calendar as a model might name it, year in that calendar, festival, Gregorian date)
    ("julian", 1950, "Orthodox Christmas", "1951-1-7"),   # a year of its own calendar: Julian 1950
    ("julian", 1950, "Christmas", "1951-1-7"),            # the Julian calendar's own "Christmas"
    ("orthodox", 2025, "Easter", "2025-4-20"),            # Julian computus; movable
    ("julian", 2024, "Orthodox Easter", "2024-5-5"),
    ("ethiopian", 2017, "Enkutatash", "2024-9-11"),
    ("ethiopic", 2017, "Meskel", "2024-9-27"),
    ("ethiopian", 2016, "Genna", "2024-1-7"),
    ("coptic", 1741, "Coptic Christmas", "2025-1-7"),      # 29 Koiak
    ("coptic", 1740, "Coptic Christmas", "2024-1-7"),      # 28 Koiak: the year after a Coptic leap year
    ("coptic", 1741, "Nayrouz", "2024-9-11"),
    ("korean", 2025, "Seollal", "2025-1-29"),
    ("korean_lunar", 2024, "Chuseok", "2024-9-17"),
    ("korean_lunar", 2025, "Chuseok", "2025-10-6"),
    ("islamic_umm_al_qura", 1446, "Eid al-Fitr", "2025-3-30"),   # the tabular calendar says 2025-3-31
    ("umm al-qura", 1445, "Eid al-Adha", "2024-6-16"),
]


@pytest.mark.parametrize("calendar,year,festival,gregorian", FESTIVALS)
async def test_festival_of_a_new_calendar(server, calendar, year, festival, gregorian):
    entry, text = await ok(server, "search_calendar", {"calendar": calendar, "year": year, "festival_name": festival})
    source = span.canonical_name(calendar)
    assert greg(entry) == gregorian
    assert entry["festival"]["calendar"] == source
    # default targets: the six fixed fields, and the source calendar in `more` and in the text
    assert list(entry["more"]) == [source] and entry["more"][source]["year"] == year
    assert list(parse_dates(text, span.ALL_CALENDAR_NAMES)) == [*SIX_CALENDARS, source]
    assert text.startswith(f"festival: {entry['festival']['name']} ({source}, ")
    assert len(text) <= TEXT_BUDGET, len(text)


async def test_umm_al_qura_and_tabular_eid_differ(server):
    tab, _ = await ok(server, "search_calendar", {"calendar": "hijri", "year": 1446, "festival_name": "Eid al-Fitr"})
    uaq, _ = await ok(server, "search_calendar", {"calendar": "saudi", "year": 1446, "festival_name": "Eid al-Fitr"})
    assert (greg(tab), greg(uaq)) == ("2025-3-31", "2025-3-30")
    assert "more" not in tab and uaq["festival"]["name"] == "Eid al-Fitr (Umm al-Qura)"


DATES = [
    # (source date, Gregorian day): a day where the calendars' month boundaries matter
    ({"calendar": "julian", "year": 2025, "month": 6, "day": 18}, "2025-7-1"),
    ({"calendar": "julian", "year": 1900, "month": 2, "day": 29}, "1900-3-13"),  # a Julian leap day only
    ({"calendar": "coptic", "year": 1739, "month": 13, "day": 6}, "2023-9-11"),   # 6th epagomenal day
    ({"calendar": "ethiopian", "year": 2015, "month": 13, "day": 6}, "2023-9-11"),  # Pagume 6
    ({"calendar": "korean_lunar", "year": 2017, "month": 5, "day": 1, "is_lunar_leap_month": True}, "2017-6-24"),
    ({"calendar": "islamic_umm_al_qura", "year": 1447, "month": 1, "day": 1}, "2025-6-26"),
]


@pytest.mark.parametrize("date,gregorian", DATES)
async def test_date_of_a_new_calendar(server, date, gregorian):
    entry, text = await ok(server, "search_calendar", date)
    assert greg(entry) == gregorian
    info = entry["more"][date["calendar"]]
    assert (info["year"], info["month"], info["day"], info["is_leap_month"]) == \
        (date["year"], date["month"], date["day"], date.get("is_lunar_leap_month", False))
    # and back: the Gregorian day converts to the same date in the new calendar
    y, m, d = map(int, gregorian.split("-"))
    back, _ = await ok(server, "search_calendar", {"calendar": "gregorian", "year": y, "month": m, "day": d,
                                                   "targets": [date["calendar"]]})
    assert back["more"][date["calendar"]] == info


async def test_korean_and_chinese_leap_months_differ_in_2017(server):
    # 2017: Korea's leap month follows month 5, China's follows month 6 (KASI vs the Purple Mountain tables)
    _, text = await ok(server, "search_calendar", {"calendar": "korean", "year": 2017, "month": 5, "day": 1,
                                                   "is_lunar_leap_month": True,
                                                   "targets": ["korean_lunar", "chinese_lunar"]})
    dates = parse_dates(text, span.ALL_CALENDAR_NAMES)
    assert dates["korean_lunar"]["is_leap_month"] and "(leap month)" in text.splitlines()[0]
    assert (dates["chinese_lunar"]["month"], dates["chinese_lunar"]["is_leap_month"]) == (6, False)
    e = await err(server, "search_calendar", {"calendar": "chinese_lunar", "year": 2017, "month": 5, "day": 1,
                                              "is_lunar_leap_month": True})
    assert "leap month 6" in e


# --------------------------------------------------------------------------------------------
# Date arithmetic and differences in the new calendars
# --------------------------------------------------------------------------------------------

def _start(calendar, year, month, day, leap=False, **shift):
    return {"calendar": calendar, "year": year, "month": month, "day": day, "is_lunar_leap_month": leap, **shift}


ARITHMETIC = [
    # (arguments, result in the source calendar (year, month, day, leap), clamped)
    (_start("ethiopian", 2015, 12, 30, months=1), (2015, 13, 6, False), True),     # Pagume of a leap year: 6 days
    (_start("ethiopian", 2016, 12, 30, months=1), (2016, 13, 5, False), True),     # common year: 5
    (_start("ethiopian", 2015, 12, 30, months=2), (2016, 1, 30, False), False),    # month 13 counts as a month
    (_start("ethiopian", 2015, 13, 6, years=1), (2016, 13, 5, False), True),
    (_start("coptic", 1739, 13, 6, days=1), (1740, 1, 1, False), False),
    (_start("coptic", 1740, 1, 1, months=-1), (1739, 13, 1, False), False),
    (_start("coptic", 1739, 13, 6, years=1), (1740, 13, 5, False), True),
    (_start("julian", 1900, 2, 29, years=1), (1901, 2, 28, False), True),
    (_start("julian", 1950, 12, 25, days=13), (1951, 1, 7, False), False),
    (_start("korean_lunar", 2017, 5, 15, months=1), (2017, 5, 15, True), False),   # Korea's leap 5th month
    (_start("korean_lunar", 2017, 5, 15, leap=True, months=1), (2017, 6, 15, False), False),
    (_start("korean_lunar", 2017, 5, 15, months=12), (2018, 4, 15, False), False),  # 13 months in 2017
    (_start("islamic_umm_al_qura", 1446, 10, 1, days=-1), (1446, 9, 29, False), False),  # Ramadan 1446: 29 days
    (_start("islamic_umm_al_qura", 1446, 7, 30, months=2), (1446, 9, 29, False), True),  # Rajab 30 → Ramadan
]


@pytest.mark.parametrize("args,want,clamped", ARITHMETIC)
async def test_arithmetic_follows_the_real_month_sequence(server, args, want, clamped):
    data, text = await ok(server, "date_arithmetic", args)
    res = data["result"]["more"][args["calendar"]]
    assert (res["year"], res["month"], res["day"], res["is_leap_month"]) == want
    assert data["clamped"] is clamped and ("clamped" in text) is clamped
    assert text.startswith(f"start: {args['calendar']} ")


async def test_arithmetic_agrees_with_day_counts(server):
    # +N months in the new calendar, then the days between start and result from date_difference, equal the
    # day number difference the core computes independently of the month walk.
    args = _start("ethiopian", 2010, 1, 30, months=40)
    data, _ = await ok(server, "date_arithmetic", args)
    r = data["result"]["more"]["ethiopian"]
    diff, _ = await ok(server, "date_difference", {"start": _start("ethiopian", 2010, 1, 30),
                                                   "end": {k: r[k] for k in ("calendar", "year", "month", "day")}})
    # 40 months = 3 years of 13 months (2011 has a 6-day Pagume) + 1 month of 30 days
    assert diff["days"] == 3 * 365 + 1 + 30


async def test_difference_between_new_calendars(server):
    same = [({"calendar": "julian", "year": 1950, "month": 12, "day": 25},
             {"calendar": "gregorian", "year": 1951, "month": 1, "day": 7}),
            ({"calendar": "ethiopian", "year": 2017, "month": 1, "day": 1},
             {"calendar": "coptic", "year": 1741, "month": 1, "day": 1}),
            ({"calendar": "korean", "year": 2025, "month": 1, "day": 1},
             {"calendar": "lunar", "year": 2025, "month": 1, "day": 1})]
    for a, b in same:
        data, _ = await ok(server, "date_difference", {"start": a, "end": b})
        assert data["days"] == 0, (a, b)
    data, text = await ok(server, "date_difference", {
        "start": {"calendar": "islamic_umm_al_qura", "year": 1446, "month": 10, "day": 1},
        "end": {"calendar": "islamic", "year": 1446, "month": 10, "day": 1}})
    assert data["days"] == 1 and text.splitlines()[0].startswith("start: islamic_umm_al_qura 1 Shawwal 1446")


# --------------------------------------------------------------------------------------------
# targets
# --------------------------------------------------------------------------------------------

D = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}


@pytest.mark.parametrize("tool,args", [("search_calendar", D), ("date_arithmetic", {**D, "days": 10}),
                                       ("search_calendar", {"calendar": "jewish", "year": 5785,
                                                            "festival_name": "Passover"})])
async def test_targets_choose_the_calendars_of_the_text(server, tool, args):
    full, full_text = await ok(server, tool, args)
    data, text = await ok(server, tool, {**args, "targets": ["Julian", "korean", "hebrew", "umm al-qura", "julian"]})
    entry, full_entry = data.get("result", data), full.get("result", full)
    want = ["julian", "korean_lunar", "hebrew", "islamic_umm_al_qura"]  # given order, aliases resolved, no repeats
    body = text.split("\nresult:\n")[-1]
    assert list(parse_dates(body, span.ALL_CALENDAR_NAMES)) == want
    assert f"weekday: {entry['weekday']}" in body
    # structuredContent: the six fixed fields as without targets, the extra targets in `more`
    assert {k: entry[k] for k in SIX_CALENDARS} == {k: full_entry[k] for k in SIX_CALENDARS}
    assert list(entry["more"]) == ["julian", "korean_lunar", "islamic_umm_al_qura"]
    assert len(text) < len(full_text) + 80
    async with Client(server) as client:
        schema = {t.name: t for t in (await client.list_tools()).tools}[tool].output_schema
    jsonschema.Draft202012Validator(schema).validate(data)


async def test_target_argument_aliases(server):
    # "target_calendars" and "target" are names models use; they mean `targets` (a list all the same)
    data, text = await ok(server, "search_calendar", {**D, "target_calendars": ["coptic"]})
    assert list(data["more"]) == ["coptic"] and text.startswith("coptic: ")
    e = await err(server, "date_arithmetic", {**D, "target": "coptic"})
    assert "targets: expected a list of calendar names" in e


async def test_targets_only_of_the_six_leave_more_out(server):
    data, text = await ok(server, "search_calendar", {**D, "targets": ["persian"]})
    assert "more" not in data and text.splitlines() == ["persian: 10 Tir 1404 (1404-4-10)", "weekday: Tuesday"]


async def test_result_text_with_three_extra_targets_fits(server):
    targets = [*SIX_CALENDARS, "julian", "ethiopian", "korean_lunar"]
    longest = max((f for f in span.festivals.FESTIVALS), key=lambda f: len(f.name) + len(f.rule))
    cal = span.get_calendar(longest.calendar)
    queries = [("search_calendar", {**D, "targets": targets}),
               ("search_calendar", {"calendar": longest.calendar, "year": cal.min_year + 50,
                                    "festival_name": longest.name, "targets": [*targets, longest.calendar]}),
               ("date_arithmetic", {"calendar": "lunar", "year": 2023, "month": 2, "day": 29,
                                    "is_lunar_leap_month": True, "months": 1, "targets": targets})]
    for tool, args in queries:
        data, text = await ok(server, tool, args)
        print(f"{tool} with {len(set(args['targets']))} targets: {len(text)} characters")
        assert len(text) <= TEXT_BUDGET + (200 if tool == "date_arithmetic" else 0), (len(text), text)
        entry = data.get("result", data)
        dates = parse_dates(text.split("\nresult:\n")[-1], span.ALL_CALENDAR_NAMES)
        for name, got in dates.items():
            want = entry[name] if name in SIX_CALENDARS else entry["more"][name]
            assert (got["year"], got["month"], got["day"], got["is_leap_month"]) == \
                (want["year"], want["month"], want["day"], want["is_leap_month"]), name


# --------------------------------------------------------------------------------------------
# Errors: one line, naming what is valid
# --------------------------------------------------------------------------------------------

ALL = ", ".join(span.ALL_CALENDAR_NAMES)
ERRORS = [
    ("search_calendar", {"calendar": "ethiopian", "year": 2016, "month": 13, "day": 7}, ["Pagume", "valid: 1–5"]),
    ("search_calendar", {"calendar": "ethiopian", "year": 2016, "month": 13, "day": 6}, ["not a leap year", "5 days"]),
    # (a month is a number or a name since #32: the calendar says which numbers it has)
    ("search_calendar", {"calendar": "coptic", "year": 1740, "month": 14, "day": 1},
     ["months 1–13", "got month 14"]),
    ("date_arithmetic", {"calendar": "ethiopic", "year": 2016, "month": 14, "day": 1}, ["months 1–13"]),
    ("search_calendar", {"calendar": "umm al-qura", "year": 1342, "month": 1, "day": 1},
     ["out of range", "1924-08-01", "2077-11-16"]),
    ("search_calendar", {"calendar": "umm al-qura", "year": 1342, "festival_name": "Eid al-Fitr"},
     ["out of range", "2077-11-16"]),
    ("search_calendar", {**D, "year": 1910, "targets": ["islamic_umm_al_qura"]},
     ["outside the Umm al-Qura calendar's range", "1924-08-01 … 2077-11-16"]),
    ("date_arithmetic", {"calendar": "umm al-qura", "year": 1500, "month": 12, "day": 1, "months": 1},
     ["outside the supported range", "2077-11-16"]),
    ("date_arithmetic", {"calendar": "islamic_umm_al_qura", "year": 1446, "month": 9, "day": 30},
     ["29 days"]),
    ("search_calendar", {**D, "targets": ["julian", "mayan"]},
     ["targets.1: unknown target calendar 'mayan'", ALL]),
    ("date_arithmetic", {**D, "targets": ["lunar2"]}, ["'lunar2' is not a calendar name", ALL]),
    ("search_calendar", {**D, "targets": "julian"}, ["targets: expected a list of calendar names", ALL]),
    ("search_calendar", {**D, "targets": []}, ["empty list", "leave targets out", ALL]),
    ("search_calendar", {**D, "targets": [7]}, ["7 is not a calendar name", ALL]),
    ("search_calendar", {**D, "targets": ["julian"] * (MAX_TARGETS + 1)}, [f"at most {MAX_TARGETS}", ALL]),
    ("search_calendar", {"calendar": "korean", "year": 2025, "festival_name": "Passover"},
     ["Hebrew calendar", "Seollal", "Chuseok"]),
    ("search_calendar", {"calendar": "julian", "year": 2025, "festival_name": "Easter", "is_lunar_leap_month": True},
     ["not to a festival"]),
    ("search_calendar", {"calendar": "korean", "year": 2025, "month": 2, "day": 1, "is_lunar_leap_month": True},
     ["leap month"]),
]


@pytest.mark.parametrize("tool,args,words", ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERRORS)])
async def test_errors_are_one_line_and_name_what_is_valid(server, tool, args, words):
    text = await err(server, tool, args)
    for w in words:
        assert w in text, (w, text)
    assert len(text) < 700, len(text)


# --------------------------------------------------------------------------------------------
# Schemas and list_calendars
# --------------------------------------------------------------------------------------------

async def test_every_new_alias_validates_against_the_published_schema(server):
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        catalog = (await client.call_tool("list_calendars", {})).structured_content
    V = jsonschema.Draft202012Validator
    search, arith, diff = (V(tools[n].input_schema) for n in ("search_calendar", "date_arithmetic",
                                                               "date_difference"))
    new = [c for c in catalog["calendars"] if c["name"] in NEW]
    assert [c["name"] for c in new] == list(NEW)
    checked = 0
    for cal in new:
        for alias in [cal["name"], *cal["aliases"]]:
            for spelling in (alias, alias.upper(), f" {alias} ", f"{alias} calendar"):
                args = {"calendar": spelling, "year": cal["first_year"] + 5, "month": 1, "day": 1}
                search.validate({**args, "targets": [spelling]})
                arith.validate({**args, "months": 1, "targets": [spelling, "gregorian"]})
                diff.validate({"start": args, "end": args})
                checked += 1
            # and the server takes the alias both as the source and as a target
            data, _ = await ok(server, "search_calendar", {"calendar": alias, "year": cal["first_year"] + 5,
                                                           "month": 1, "day": 1, "targets": [alias]})
            assert list(data["more"]) == [cal["name"]]
    assert checked >= 4 * len(NEW) * 3


async def test_list_calendars_describes_the_new_calendars(server):
    cat, text = await ok(server, "list_calendars", {})
    by_name = {c["name"]: c for c in cat["calendars"]}
    assert list(by_name) == list(span.ALL_CALENDAR_NAMES)
    for name in NEW:
        c = by_name[name]
        cal = span.get_calendar(name)
        assert c["supported_range"] == cal.range_text() and c["months"]  # era calendars have no festivals
        assert c["festivals"] == span.festivals.names(name)
    assert [m["name"] for m in by_name["coptic"]["months"]][12] == "Pi Kogi Enavot"
    assert by_name["korean_lunar"]["month_note"].startswith(by_name["chinese_lunar"]["month_note"])
    # every festival of the new calendars, with its rule; the movable one without month/day
    fests = {f["name"]: f for f in cat["festivals"]}
    for f in span.festivals.FESTIVALS:
        if f.calendar in NEW:
            got = fests[f.name]
            assert got["rule"] == f.rule and got["calendar"] == f.calendar
            assert (got.get("month"), got.get("day")) == ((None, None) if f.movable else (f.month, f.day))
    assert "Orthodox Easter; julian; movable; Easter Sunday by the Julian computus" in text
    # the text and the conventions name Umm al-Qura's own range, never 1900-2100 for every calendar
    assert "islamic_umm_al_qura (Umm al-Qura; aliases:" in text and "(Gregorian 1924-08-01 … 2077-11-16)" in text
    assert "in every calendar, except islamic_umm_al_qura" in cat["conventions"]


# --------------------------------------------------------------------------------------------
# The TypeScript SDK's client validates results that carry `more` and festivals without month/day
# --------------------------------------------------------------------------------------------

PREFIX = Path(os.environ.get("SPAN_TSDK_PREFIX", ROOT / ".ci" / "tsdk"))
_TSDK = PREFIX / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
_JS = r"""
const path = require("node:path");
const { createRequire } = require("node:module");
const [prefix, py] = process.argv.slice(1);
const req = createRequire(path.join(path.resolve(prefix), "node_modules", "noop.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
const CALLS = JSON.parse(process.env.SPAN_CALLS);
(async () => {
  const client = new Client({ name: "span-targets-check", version: "0" });
  await client.connect(new StdioClientTransport({ command: py, args: ["-m", "span_toolkit.server", "--log-level", "WARNING"],
                                                  stderr: "ignore" }));
  await client.listTools();  // the SDK keeps the output schemas and validates each result against them
  const out = [];
  for (const [name, args] of CALLS) {
    try {
      const r = await client.callTool({ name, arguments: args });
      out.push({ ok: !r.isError, more: Object.keys((r.structuredContent.result || r.structuredContent).more || {}) });
    } catch (e) { out.push({ ok: false, error: String(e.message || e).slice(0, 300) }); }
  }
  await client.close();
  console.log(JSON.stringify(out));
})();
"""


@pytest.mark.skipif(shutil.which("node") is None or not _TSDK.exists(),
                    reason=f"needs node and @modelcontextprotocol/sdk in {PREFIX} (SPAN_TSDK_PREFIX)")
def test_typescript_sdk_validates_results_with_targets():
    calls = [["search_calendar", {**D, "targets": ["julian", "coptic", "korean"]}],
             ["search_calendar", {"calendar": "julian", "year": 2025, "festival_name": "Easter"}],
             ["date_arithmetic", {"calendar": "ethiopian", "year": 2015, "month": 12, "day": 30, "months": 1,
                                  "targets": ["gregorian", "umm al-qura"]}],
             ["list_calendars", {}]]
    env = {**os.environ, "SPAN_CALLS": json.dumps(calls),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    r = subprocess.run(["node", "-e", _JS, str(PREFIX), sys.executable], capture_output=True, text=True,
                       timeout=120, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert [c["ok"] for c in out] == [True] * 4, out
    assert [c["more"] for c in out[:3]] == [["julian", "coptic", "korean_lunar"], ["julian"],
                                            ["islamic_umm_al_qura"]]
