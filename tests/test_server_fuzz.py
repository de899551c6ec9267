"""Fuzz the tools through the in-memory Client: thousands of random and adversarial argument sets.

Every call must return either a result that matches the tool's outputSchema, or an is_error result
whose text is a real message (never the SDK's bare "Error executing tool X", never our "internal
error" guard, which would mean a bug in span/). After every call the server must still answer.
"""

from __future__ import annotations

import os

import jsonschema
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from span_toolkit import span
from span_toolkit.server.app import DATEINFO_OUTPUT_KEYS, KEY_ALIASES, build_server
from span_toolkit.span.models import SIX_CALENDARS, parse_dates

CALS = list(span.ALL_CALENDAR_NAMES)
ALIASES = [a for n in CALS for a in span.get_calendar(n).aliases] + ["Chinese Lunar", "LUNAR", " Hijri ", "Umm Al-Qura"]
FESTIVAL_NAMES = [n for f in span.festivals.FESTIVALS for n in (f.name, *f.aliases)]
RANGES = {n: (span.get_calendar(n).min_year, span.get_calendar(n).max_year) for n in CALS}

junk = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10 ** 40), max_value=10 ** 40), st.text(max_size=30),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.sampled_from(["", " ", "\x00", "🗓️", "２０２５", "1e3", "0x10", "-0", "1_000", "NaN", "null", "[]", "{}",
                     "' OR 1=1 --", "a" * 5000]),
)
calendar_values = st.one_of(st.sampled_from(CALS), st.sampled_from(ALIASES), junk)
small_ints = st.integers(min_value=-3, max_value=40)


def year_for(cal: str):
    lo, hi = RANGES.get(cal, (1900, 2100))
    return st.integers(min_value=lo - 2, max_value=hi + 2)


@st.composite
def plausible_date(draw, leap_ok=True):
    """Mostly-valid dates, so the calendar core is exercised deeply (edges of months and of the range)."""
    cal = draw(st.sampled_from(CALS))
    out = {"calendar": draw(st.one_of(st.just(cal), st.sampled_from(span.get_calendar(cal).aliases))),
           "year": draw(year_for(cal)),
           "month": draw(st.integers(min_value=1, max_value=13)),
           "day": draw(st.one_of(st.integers(min_value=1, max_value=31), st.sampled_from([1, 29, 30])))}
    if leap_ok and draw(st.booleans()):
        out["is_lunar_leap_month"] = draw(st.booleans())
    return out


@st.composite
def valid_date(draw):
    """A real day in a random calendar (leap months included), as tool arguments."""
    cal = draw(st.sampled_from(CALS))
    lo, hi = span.get_calendar(cal).min_ordinal, span.get_calendar(cal).max_ordinal  # Umm al-Qura: less
    n = draw(st.one_of(st.integers(min_value=lo, max_value=hi),
                       st.integers(min_value=lo, max_value=lo + 400),
                       st.integers(min_value=hi - 400, max_value=hi)))
    d = span.CalendarDate.from_ordinal(cal, n)
    return {"calendar": cal, "year": d.year, "month": d.month, "day": d.day,
            "is_lunar_leap_month": d.is_leap_month}


moderate = {"days": st.integers(min_value=-3000, max_value=3000), "weeks": st.integers(min_value=-500, max_value=500),
            "months": st.integers(min_value=-150, max_value=150), "years": st.integers(min_value=-60, max_value=60)}


def maybe(strategy):
    return st.one_of(strategy, strategy, junk)


@st.composite
def adversarial_date(draw):
    """Any mix of present/missing/wrong-typed/extra fields."""
    base = draw(plausible_date())
    out = {}
    for key, value in base.items():
        choice = draw(st.integers(min_value=0, max_value=9))
        if choice == 0:
            continue  # missing
        out[key] = draw(junk) if choice == 1 else value
    if draw(st.integers(min_value=0, max_value=7)) == 0:
        out[draw(st.sampled_from(["hour", "is_leap_month", "calendar_name", "event", "x", "Calendar", "🙂"]))] = \
            draw(junk)
    return out


offsets = st.one_of(st.integers(min_value=-80_000, max_value=80_000), st.integers(min_value=-40, max_value=40),
                    st.integers(min_value=-(10 ** 30), max_value=10 ** 30))


# Mostly real calendar names and aliases (so results carry `more`), sometimes junk, empty or huge lists.
targets_values = st.one_of(
    st.lists(st.sampled_from(CALS + ALIASES), min_size=1, max_size=5),
    st.lists(st.sampled_from(CALS + ALIASES), min_size=1, max_size=5),
    st.lists(st.one_of(st.sampled_from(CALS), junk), max_size=4),
    st.just(["julian"] * 41), junk,
)


def with_targets(draw, out):
    if isinstance(out, dict) and draw(st.integers(min_value=0, max_value=2)) == 0:
        out["targets"] = draw(targets_values)
    return out


@st.composite
def search_args(draw):
    return with_targets(draw, draw(_search_args()))


@st.composite
def arithmetic_args(draw):
    return with_targets(draw, draw(_arithmetic_args()))


@st.composite
def _search_args(draw):
    kind = draw(st.integers(min_value=-1, max_value=3))
    if kind == -1:
        return draw(valid_date())
    if kind == 0:
        return draw(plausible_date())
    if kind == 1:
        cal = draw(st.sampled_from(CALS))
        out = {"calendar": cal, "year": draw(year_for(cal)),
               "festival_name": draw(st.one_of(st.sampled_from(FESTIVAL_NAMES), st.text(max_size=40), junk))}
        if draw(st.integers(min_value=0, max_value=4)) == 0:  # both a date and a festival
            out.update(month=draw(small_ints), day=draw(small_ints))
        if draw(st.integers(min_value=0, max_value=4)) == 0:
            out["is_lunar_leap_month"] = draw(maybe(st.booleans()))
        return out
    if kind == 2:
        out = draw(adversarial_date())
        if draw(st.booleans()):
            out["festival_name"] = draw(maybe(st.sampled_from(FESTIVAL_NAMES)))
        return out
    return draw(st.dictionaries(st.sampled_from(["calendar", "year", "month", "day", "festival_name",
                                                 "is_lunar_leap_month", "event", "festival", "zzz"]),
                                junk, max_size=7))


@st.composite
def _arithmetic_args(draw):
    if draw(st.booleans()):  # a real date and moderate steps: deep in the core (clamping, leap months)
        out = draw(valid_date())
        for key, strategy in moderate.items():
            if draw(st.booleans()):
                out[key] = draw(strategy)
        return out
    out = draw(st.one_of(plausible_date(), plausible_date(), adversarial_date()))
    for key in ("days", "weeks", "months", "years"):
        if draw(st.booleans()):
            out[key] = draw(st.one_of(offsets, offsets, offsets, junk))
    return out


@st.composite
def difference_args(draw):
    out = {}
    for key in ("start", "end"):
        choice = draw(st.integers(min_value=0, max_value=9))
        if choice == 0:
            continue
        out[key] = draw(junk) if choice == 1 else draw(st.one_of(valid_date(), valid_date(), plausible_date(),
                                                                 adversarial_date()))
    return out


tool_calls = st.one_of(
    st.tuples(st.just("search_calendar"), search_args()),
    st.tuples(st.just("date_arithmetic"), arithmetic_args()),
    st.tuples(st.just("date_difference"), difference_args()),
    st.tuples(st.sampled_from(["list_calendars", "search_calendar", "nope", "", "date_arithmetic "]),
              st.dictionaries(st.text(max_size=8), junk, max_size=3)),
)


@pytest.fixture(scope="module")
def portal_client():
    server = build_server(log_level="CRITICAL")
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(server)) as client:
            tools = portal.call(client.list_tools).tools
            schemas = {t.name: jsonschema.Draft202012Validator(t.output_schema) for t in tools}
            inputs = {t.name: jsonschema.Draft202012Validator(t.input_schema) for t in tools}
            yield portal, client, (schemas, inputs)


STRING_ARGS = ("calendar", "festival_name")


def _as_published(name, args):
    """The arguments under their published names (the server also takes a few argument-name aliases, and
    a result's DateInfo passed back as a date), or None when they rely on a leniency the schema does not
    describe: numbers sent as JSON text ("2025") or as floats (2025.0), which the SDK and pydantic parse."""
    def plain(key, v):
        return not isinstance(v, float) and not (isinstance(v, str) and key not in STRING_ARGS)

    out = {}
    for key, value in args.items():
        key = KEY_ALIASES.get(key, key)
        if name == "date_difference" and isinstance(value, dict):
            value = {KEY_ALIASES.get(k, k): v for k, v in value.items() if k not in DATEINFO_OUTPUT_KEYS}
            if not all(plain(k, v) for k, v in value.items()):
                return None
        elif not plain(key, value):
            return None
        out[key] = value
    return out


def check_call(portal_client, name, args, stats):
    portal, client, (schemas, inputs) = portal_client
    r = portal.call(client.call_tool, name, args)
    if r.is_error:
        text = r.content[0].text if r.content else ""
        assert text.strip(), (name, args)
        assert text.strip() != f"Error executing tool {name}", (name, args)
        assert "internal error" not in text, f"core bug: {name}({args!r}) -> {text}"
        assert len(text) < 2_000, (name, len(text))  # every echoed value is truncated
        stats["errors"] += 1
    else:
        assert r.structured_content is not None, (name, args)
        schemas[name].validate(r.structured_content)
        targets = args.get("targets") if isinstance(args, dict) else None
        # (a target list sent as JSON text, '["julian"]', is parsed by the SDK like "2025" for a year)
        if name in ("search_calendar", "date_arithmetic") and isinstance(targets, (list, type(None))):
            # the text lists exactly the requested calendars (default: the six and the source)
            entry = r.structured_content.get("result", r.structured_content)
            given = args.get("calendar", args.get("calendar_name"))
            source = r.structured_content["start"]["calendar"] if "start" in r.structured_content else \
                (entry["festival"]["calendar"] if "festival" in entry else given)
            want = span.resolve_targets(targets, source)
            body = r.content[0].text.split("\nresult:\n")[-1]
            assert list(parse_dates(body, span.ALL_CALENDAR_NAMES)) == list(want), (args, body)
            assert set(entry.get("more", {})) == set(want) - set(SIX_CALENDARS), (args, entry.get("more"))
            stats["with_targets"] += targets is not None
        # What the server answered, a schema-validating client would have let through.
        published = _as_published(name, args) if isinstance(args, dict) else None
        if published is not None and name in inputs:
            errors = [e.message for e in inputs[name].iter_errors(published)]
            assert not errors, (name, args, errors)
            stats["schema_checked"] += 1
        stats["ok"] += 1


# SPAN_FUZZ_SCALE=10 for a deeper run (default: about 2,200 calls in all, ~25 s).
SCALE = float(os.environ.get("SPAN_FUZZ_SCALE", "1"))


def n(examples: int) -> int:
    return max(1, int(examples * SCALE))


FUZZ = settings(max_examples=n(800), deadline=None, derandomize=False, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@FUZZ
@given(call=tool_calls)
def test_fuzz_any_tool(portal_client, call):
    check_call(portal_client, *call, stats=_STATS["any"])


@settings(FUZZ, max_examples=n(700))
@given(args=arithmetic_args())
def test_fuzz_date_arithmetic(portal_client, args):
    check_call(portal_client, "date_arithmetic", args, stats=_STATS["arith"])


@settings(FUZZ, max_examples=n(400))
@given(args=search_args())
def test_fuzz_search_calendar(portal_client, args):
    check_call(portal_client, "search_calendar", args, stats=_STATS["search"])


@settings(FUZZ, max_examples=n(300))
@given(args=difference_args())
def test_fuzz_date_difference(portal_client, args):
    check_call(portal_client, "date_difference", args, stats=_STATS["diff"])


_STATS = {k: {"ok": 0, "errors": 0, "schema_checked": 0, "with_targets": 0} for k in ("any", "arith", "search", "diff")}


def test_fuzz_mix_and_server_still_answers(portal_client):
    """Runs after the fuzzers (file order): both outcomes were seen, and the server still answers."""
    print("fuzz outcomes:", _STATS)
    total_ok = sum(s["ok"] for s in _STATS.values())
    total_err = sum(s["errors"] for s in _STATS.values())
    if total_ok + total_err:  # when run on its own, only the liveness check applies
        assert total_ok > 100 and total_err > 100, _STATS
        assert sum(s["schema_checked"] for s in _STATS.values()) > 100, _STATS
        assert _STATS["arith"]["with_targets"] + _STATS["search"]["with_targets"] > 20, _STATS
    portal, client, _ = portal_client
    r = portal.call(client.call_tool, "search_calendar",
                    {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1})
    assert not r.is_error and r.structured_content["hebrew"]["display"]
