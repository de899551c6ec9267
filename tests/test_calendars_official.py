"""The calendars in official use (vietnamese_lunar, japanese_era, roc, thai_buddhist, bahai): registry,
eras in and out, era boundaries both ways, validation messages, festivals, every tool.

Expected dates come from published facts (era proclamations, the Bahá'í World Centre's Naw-Rúz table,
Vietnamese and Thai government calendars), not from this code; tests/test_calendars_official_oracles.py
compares every day with independent libraries.
"""

from __future__ import annotations

from datetime import date

import pytest
from mcp import Client

from span_toolkit import span
from span_toolkit.span import CalendarDate, CalendarError, festivals, get_calendar, parse_date, shift_date
from span_toolkit.span.search import search_calendar

OFFICIAL = ("vietnamese_lunar", "japanese_era", "roc", "thai_buddhist", "thai_buddhist_proleptic", "bahai")


def test_registry_one_line_each_and_the_paper_six_unchanged():
    assert span.CALENDAR_NAMES == ("gregorian", "chinese_lunar", "islamic", "hebrew", "shaka", "persian")
    # registered, in this order (a calendar added later may follow them)
    assert [n for n in span.ALL_CALENDAR_NAMES if n in OFFICIAL] == list(OFFICIAL)
    from span_toolkit.span.calendars import _CALENDARS
    assert len(_CALENDARS) == len(span.ALL_CALENDAR_NAMES)  # one registry line per calendar, nothing else


@pytest.mark.parametrize("alias, name", [
    ("Vietnamese", "vietnamese_lunar"), ("am lich", "vietnamese_lunar"), ("Vietnamese lunar calendar", "vietnamese_lunar"),
    ("Japanese", "japanese_era"), ("wareki", "japanese_era"), ("nengo", "japanese_era"),
    ("ROC", "roc"), ("Minguo", "roc"), ("Taiwan", "roc"), ("Republic of China", "roc"),
    ("Thai", "thai_buddhist"), ("Buddhist Era", "thai_buddhist"), ("icu buddhist", "thai_buddhist_proleptic"),
    ("Bahai", "bahai"), ("Baha'i", "bahai"), ("Badi", "bahai"),
    ("lunar", "chinese_lunar"), ("korean", "korean_lunar"),  # unchanged
    # written as people write them: accents and any apostrophe (review of #31)
    ("Bahá'í", "bahai"), ("Bahá’í calendar", "bahai"), ("Âm lịch", "vietnamese_lunar"),
])
def test_aliases(alias, name):
    assert span.canonical_name(alias) == name


@pytest.mark.parametrize("alias, name", [("Bahá'í", "bahai"), ("Bahá’í", "bahai"), ("Âm lịch", "vietnamese_lunar")])
async def test_accented_aliases_through_the_server_and_its_schema(server, alias, name):
    import jsonschema
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        args = {"calendar": alias, "year": 182 if name == "bahai" else 2025, "month": 1, "day": 1, "targets": [alias]}
        jsonschema.validate(args, tools["search_calendar"].input_schema)  # a validating host sends it
        r = await client.call_tool("search_calendar", args)
    assert not r.is_error and r.content[0].text.startswith(f"{name}: "), r.content[0].text


# ---------------------------------------------------------------------------------------------
# Eras
# ---------------------------------------------------------------------------------------------

BOUNDARIES = [  # (last day of the old era, first day of the new), Gregorian
    (("Meiji", 45, 7, 29), ("Taishō", 1, 7, 30), date(1912, 7, 30)),
    (("Taishō", 15, 12, 24), ("Shōwa", 1, 12, 25), date(1926, 12, 25)),
    (("Shōwa", 64, 1, 7), ("Heisei", 1, 1, 8), date(1989, 1, 8)),
    (("Heisei", 31, 4, 30), ("Reiwa", 1, 5, 1), date(2019, 5, 1)),
]


@pytest.mark.parametrize("old, new, first", BOUNDARIES)
def test_era_boundaries_both_ways(old, new, first):
    g_new, g_old = CalendarDate.create("gregorian", first.year, first.month, first.day), None
    g_old = CalendarDate.from_ordinal("gregorian", first.toordinal() - 1)
    # Gregorian -> era
    assert (g_new.to("japanese_era").era, *tuple(g_new.to("japanese_era").as_dict()[k] for k in ("year", "month", "day"))) == new
    assert (g_old.to("japanese_era").era, *tuple(g_old.to("japanese_era").as_dict()[k] for k in ("year", "month", "day"))) == old
    # era -> Gregorian
    assert CalendarDate.create("japanese_era", *new[1:], era=new[0]).to_date() == first
    assert CalendarDate.create("japanese_era", *old[1:], era=old[0]).ordinal == first.toordinal() - 1
    # arithmetic across the boundary lands in the right era, both directions
    step = shift_date(CalendarDate.create("japanese_era", *old[1:], era=old[0]), days=1).date
    assert (step.era, step.year, step.month, step.day) == new
    back = shift_date(CalendarDate.create("japanese_era", *new[1:], era=new[0]), days=-1).date
    assert (back.era, back.year, back.month, back.day) == old


def test_heisei_31_4_30_plus_one_day_is_reiwa_1_5_1_in_every_tool_form():
    d = CalendarDate.create("japanese_era", 31, 4, 30, era="heisei")
    assert shift_date(d, days=1).date == CalendarDate.create("japanese_era", 1, 5, 1, era="Reiwa")
    assert shift_date(CalendarDate.create("japanese_era", 30, 5, 1, era="Heisei"), years=1).date.display() == "Reiwa 1-5-1"
    assert shift_date(CalendarDate.create("japanese_era", 31, 4, 1, era="Heisei"), months=1).date.display() == "Reiwa 1-5-1"
    assert span.date_difference(d, CalendarDate.create("japanese_era", 1, 5, 1, era="Reiwa")) == 1
    birthday = shift_date(CalendarDate.create("japanese_era", 30, 5, 1, era="Heisei"), years=1, anniversary="birthday")
    assert birthday.date.display() == "Reiwa 1-5-1"


@pytest.mark.parametrize("era", ["Shōwa", "showa", "SHOWA", "Shouwa", "syowa", "昭和", "S", " Showa "])
def test_era_spellings(era):
    assert CalendarDate.create("japanese_era", 64, 1, 7, era=era).to_date() == date(1989, 1, 7)


@pytest.mark.parametrize("args, needles", [
    (("Heisei", 31, 5, 1), ["outside the Heisei era", "Heisei 1-1-8 … 31-4-30", "1989-01-08 … 2019-04-30"]),
    (("Shōwa", 65, 1, 1), ["outside the Shōwa era", "Shōwa 1-12-25 … 64-1-7"]),
    (("Reiwa", 1, 4, 30), ["outside the Reiwa era", "2019-05-01"]),
    (("Reiwa", 0, 5, 1), ["era years start at 1", "元年"]),
    (("Edo", 1, 1, 1), ["unknown era", "Meiji, Taishō, Shōwa, Heisei, Reiwa"]),
    ((None, 31, 4, 30), ["needs its era", "Meiji", "Gregorian year"]),
    (("Meiji", 30, 1, 1), ["outside the Meiji era", "1900-01-01", "began 1868"]),
    (("Heisei", 31, 2, 30), ["February", "of Heisei 31 has 28 days"]),
])
def test_era_errors_name_the_range(args, needles):
    era, y, m, d = args
    with pytest.raises(CalendarError) as e:
        CalendarDate.create("japanese_era", y, m, d, era=era)
    assert all(n in str(e.value) for n in needles), str(e.value)


def test_without_era_a_four_digit_year_is_gregorian():
    assert CalendarDate.create("japanese_era", 2019, 5, 1).display() == "Reiwa 1-5-1"
    assert CalendarDate.create("roc", 2025, 5, 1).display() == "Minguo 114-5-1"
    assert CalendarDate.create("roc", 114, 5, 1).display() == "Minguo 114-5-1"  # ROC's default era


def test_roc_years_and_before_minguo():
    assert CalendarDate.create("gregorian", 1911, 12, 31).to("roc").display() == "Before Minguo 1-12-31"
    assert CalendarDate.create("gregorian", 1900, 1, 1).to("roc").display() == "Before Minguo 12-1-1"
    assert CalendarDate.create("gregorian", 1912, 1, 1).to("roc").display() == "Minguo 1-1-1"
    assert CalendarDate.create("roc", 12, 1, 1, era="民國前").to_date() == date(1900, 1, 1)
    assert CalendarDate.create("roc", 1, 1, 1, era="B.R.O.C.").to_date() == date(1911, 1, 1)
    assert shift_date(CalendarDate.create("roc", 1, 12, 31, era="before minguo"), days=1).date.display() == "Minguo 1-1-1"
    with pytest.raises(CalendarError, match="outside the Minguo era"):
        CalendarDate.create("roc", 190, 1, 1)
    with pytest.raises(CalendarError, match="has no eras"):
        CalendarDate.create("gregorian", 2025, 1, 1, era="Reiwa")


def test_era_dates_round_trip_as_dicts_and_text():
    d = CalendarDate.create("japanese_era", 1, 5, 1, era="reiwa")
    assert d.as_dict() == {"calendar": "japanese_era", "year": 1, "month": 5, "day": 1, "is_leap_month": False,
                           "era": "Reiwa"}
    assert CalendarDate.from_dict(d.as_dict()) == d
    assert CalendarDate.create("gregorian", 2025, 1, 1).as_dict() == {  # no era key elsewhere: paper output unchanged
        "calendar": "gregorian", "year": 2025, "month": 1, "day": 1, "is_leap_month": False}
    for text in ("Reiwa 1-5-1", "令和元年5月1日", "R1.5.1", "reiwa 1/5/1"):
        assert parse_date(text, "japanese_era") == d
    assert parse_date("民國114年10月10日", "roc").to_date() == date(2025, 10, 10)


# ---------------------------------------------------------------------------------------------
# Thai, Bahá'í, Vietnamese facts
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("calendar, ymd, gregorian", [
    ("thai_buddhist", (2568, 5, 1), date(2025, 5, 1)),
    ("thai_buddhist", (2472, 1, 15), date(1930, 1, 15)),    # the year began on 1 April then
    ("thai_buddhist_proleptic", (2473, 1, 15), date(1930, 1, 15)),
    ("thai_buddhist", (2483, 4, 1), date(1940, 4, 1)),
    ("thai_buddhist", (2484, 1, 1), date(1941, 1, 1)),
    ("bahai", (182, 1, 1), date(2025, 3, 20)),              # Naw-Rúz 2025 (BWC)
    ("bahai", (183, 1, 1), date(2026, 3, 21)),              # Naw-Rúz 2026 (BWC)
    ("bahai", (171, 1, 1), date(2014, 3, 21)),              # fixed 21 March before 2015
    ("bahai", (181, 0, 1), date(2025, 2, 25)),              # Ayyám-i-Há 181: 4 days
    ("bahai", (181, 19, 1), date(2025, 3, 1)),              # the fast
    ("vietnamese_lunar", (1985, 1, 1), date(1985, 1, 21)),  # Tết 1985 (China: 1985-02-20)
    ("vietnamese_lunar", (2007, 1, 1), date(2007, 2, 17)),
])
def test_published_dates(calendar, ymd, gregorian):
    assert CalendarDate.create(calendar, *ymd).to_date() == gregorian
    assert CalendarDate.from_ordinal(calendar, gregorian.toordinal()).as_dict()["year"] == ymd[0]


def test_thai_short_year_2483():
    with pytest.raises(CalendarError, match="ran from 1 April to 31 December 1940"):
        CalendarDate.create("thai_buddhist", 2483, 2, 1)
    with pytest.raises(CalendarError, match="BE 2483"):
        shift_date(CalendarDate.create("thai_buddhist", 2482, 1, 15), years=1)
    assert shift_date(CalendarDate.create("thai_buddhist", 2482, 3, 31), days=1).date.display() == "2483-4-1"
    assert shift_date(CalendarDate.create("thai_buddhist", 2483, 12, 31), days=1).date.display() == "2484-1-1"


def test_bahai_months_and_names():
    cal = get_calendar("bahai")
    assert [m.number for m in cal.months_of(181)] == list(range(1, 19)) + [0, 19]
    assert cal.months_of(180)[18].length == 4 and cal.months_of(178)[18].length == 5  # Naw-Rúz 2021-03-20 → 2022-03-21
    assert cal.months_of(168)[18].length == 5  # fixed rule: 26 February – 1 March 2012
    assert parse_date("1 Bahá 182", "bahai") == parse_date("1 Baha 182", "bahai") == CalendarDate.create("bahai", 182, 1, 1)
    assert parse_date("2 Ayyam-i-Ha 181", "bahai").to_date() == date(2025, 2, 26)
    assert CalendarDate.create("bahai", 181, 19, 19).display() == "19 ʻAlá 181"
    with pytest.raises(CalendarError, match="0 = Ayyám-i-Há"):
        CalendarDate.create("bahai", 181, 20, 1)
    with pytest.raises(CalendarError, match="valid: 1–4"):
        CalendarDate.create("bahai", 181, 0, 5)


@pytest.mark.parametrize("name, calendar, year, gregorian", [
    ("Tet", None, 1985, date(1985, 1, 21)),
    ("Vietnamese New Year", None, 2030, date(2030, 2, 2)),
    ("Tết Nguyên Đán", None, 2025, date(2025, 1, 29)),
    ("Lunar New Year", "vietnamese_lunar", 1985, date(1985, 1, 21)),
    ("Gio To Hung Vuong", None, 2025, date(2025, 4, 7)),
    ("Tết Trung Thu", None, 2025, date(2025, 10, 6)),
    ("Ong Tao", None, 2024, date(2025, 1, 22)),
    ("Naw-Ruz", None, 182, date(2025, 3, 20)),
    ("Ridvan", None, 182, date(2025, 4, 20)),
    ("Declaration of the Bab", None, 171, date(2014, 5, 23)),
    ("Declaration of the Bab", None, 182, date(2025, 5, 23)),
    ("Songkran", None, 2568, date(2025, 4, 13)),
    ("Double Ten Day", None, 114, date(2025, 10, 10)),
])
def test_festivals(name, calendar, year, gregorian):
    f = festivals.find(name, calendar)
    assert festivals.date_in_year(f, year).to_date() == gregorian


def test_festival_names_in_any_unicode_form_and_without_accents():
    import unicodedata
    for text in ("Tết Nguyên Đán", unicodedata.normalize("NFD", "Tết Nguyên Đán"), "tet nguyen dan", "TET"):
        assert festivals.find(text).name == "Tết Nguyên Đán"
    assert festivals.find("gio to hung vuong").name == "Giỗ Tổ Hùng Vương"
    assert festivals.find("Naw-Rúz").name == festivals.find("naw ruz").name == "Naw-Rúz"


def test_bare_names_keep_their_meaning():
    assert festivals.find("Lunar New Year").calendar == "chinese_lunar"
    assert festivals.find("Mid-Autumn Festival").calendar == "chinese_lunar"
    assert festivals.find("Nowruz").calendar == "persian"


def test_vietnamese_disputed_months_are_marked():
    from span_toolkit.span import disputes
    split = disputes.dispute("vietnamese_lunar", date(1944, 6, 20).toordinal())
    assert split.numeric() == "1944-leap4-30" and "Vietnam midnight" in split.reason
    assert not disputes.is_disputed("vietnamese_lunar", date(1985, 1, 21).toordinal())
    out = search_calendar("gregorian", 1944, 6, 20, targets=["vietnamese_lunar"])
    assert out["vietnamese_lunar_date"] == "1944-5-1" and "vietnamese_lunar_date" in out["disputed"]


def test_search_calendar_targets_and_era_keys():
    out = search_calendar("japanese_era", 31, 4, 30, era="Heisei",
                          targets=["japanese_era", "roc", "thai", "bahai", "vietnamese"])
    assert out["gregorian_date"] == "2019-4-30"
    assert (out["japanese_era_date"], out["japanese_era_era"]) == ("31-4-30", "Heisei")
    assert (out["roc_date"], out["roc_era"]) == ("108-4-30", "Minguo")
    assert out["thai_buddhist_date"] == "2562-4-30" and out["bahai_date"] == "176-3-3"
    paper = search_calendar("gregorian", 2025, 1, 29)
    assert set(paper) == {"gregorian_date", "lunar_date", "islamic_date", "hebrew_date", "shaka_date",
                          "persian_date", "lunar_is_leap_month"}
    assert search_calendar("vietnamese", 1985, festival_name="Tet")["gregorian_date"] == "1985-1-21"


# ---------------------------------------------------------------------------------------------
# Through the MCP tools
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    from span_toolkit.server.app import build_server
    return build_server(log_level="WARNING")


async def test_tools_take_and_return_eras(server):
    async with Client(server) as client:
        r = await client.call_tool("date_arithmetic", {"calendar": "japanese", "year": 31, "month": 4, "day": 30,
                                                        "era": "Heisei", "days": 1, "targets": ["japanese_era"]})
        assert not r.is_error, r.content[0].text
        res = r.structured_content["result"]["more"]["japanese_era"]
        assert (res["era"], res["year"], res["month"], res["day"]) == ("Reiwa", 1, 5, 1)
        assert "japanese_era: Reiwa 1-5-1" in r.content[0].text
        assert r.structured_content["start"]["era"] == "Heisei"
        r = await client.call_tool("search_calendar", {"calendar": "roc", "year": 114, "month": 10, "day": 10,
                                                        "targets": ["gregorian", "roc", "bahai"]})
        assert not r.is_error and r.structured_content["gregorian"]["numeric"] == "2025-10-10"
        r = await client.call_tool("date_difference", {
            "start": {"calendar": "japanese_era", "era": "Showa", "year": 64, "month": 1, "day": 7},
            "end": {"calendar": "gregorian", "year": 1989, "month": 1, "day": 8}})
        assert not r.is_error and r.structured_content["days"] == 1
        r = await client.call_tool("search_calendar", {"calendar": "japanese_era", "era": "Heisei", "year": 32,
                                                        "month": 1, "day": 1})
        assert r.is_error and "Heisei 1-1-8 … 31-4-30" in r.content[0].text
        r = await client.call_tool("search_calendar", {"calendar": "bahai", "year": 181, "month": 0, "day": 1})
        assert not r.is_error and r.structured_content["gregorian"]["numeric"] == "2025-2-25"
        r = await client.call_tool("search_calendar", {"calendar": "vietnamese", "year": 1985,
                                                        "festival_name": "Tet"})
        assert not r.is_error and r.structured_content["gregorian"]["numeric"] == "1985-1-21"


async def test_list_calendars_documents_them(server):
    async with Client(server) as client:
        r = await client.call_tool("list_calendars", {})
        text = r.content[0].text
        for name in OFFICIAL:
            assert f"\n{name} (" in text
        for word in ("Reiwa", "Minguo", "Ayyám-i-Há", "UTC+7", "1 April"):
            assert word in text


# ---------------------------------------------------------------------------------------------
# The benchmark: the new calendars as the non-Gregorian side (generator, reference code, judge)
# ---------------------------------------------------------------------------------------------

WRONG = {"japanese_era": "Heisei 31-4-30", "roc": "Minguo 108-4-29", "thai_buddhist": "2561-4-30",
         "bahai": "2 Jamál 176", "vietnamese_lunar": "2019-3-25"}


@pytest.mark.parametrize("calendar", ["japanese_era", "roc", "thai_buddhist", "bahai", "vietnamese_lunar"])
def test_generated_questions_run_and_judge(calendar):
    """Questions on 2019-05-01 (Reiwa 1-5-1: the era boundary is a day away): every instance's reference
    code ran when it was generated; the judge reads every gold answer as correct, and a wrong date as wrong."""
    from span_toolkit.span.benchmark import GenerationRequest, generate
    from span_toolkit.span.benchmark.paper.judge import judge_answer
    rows = list(generate([date(2019, 5, 1)], GenerationRequest(calendars=(calendar,))))
    assert rows and {r["source_calendar"] for r in rows} | {r["target_calendar"] for r in rows} == {"gregorian", calendar}
    assert all(judge_answer(r, r["answer"]).verdict == "CORRECT" for r in rows)
    content = [r for r in rows if r["target_calendar"] == calendar and r["question_format"] == "content"]
    assert content and all(judge_answer(r, WRONG[calendar]).verdict == "INCORRECT" for r in content
                           if r["answer"] != WRONG[calendar])
    if calendar == "japanese_era":
        ago = next(r for r in content if r["reasoning_type"] == "date" and "1 days ago" in r["question"])
        assert ago["answer"] == "Heisei 31-4-30"
        assert judge_answer(ago, "平成31年4月30日").verdict == "CORRECT"
        assert judge_answer(ago, "2019-4-30").verdict != "CORRECT"      # the Gregorian date is no era date
        assert judge_answer(ago, "Reiwa 0-4-30").verdict == "INCORRECT"  # no such era date


def test_paper_protocol_unchanged_by_the_new_calendars():
    from span_toolkit.span.benchmark import GenerationRequest, generate
    rows = list(generate([date(2025, 7, 1)], GenerationRequest()))
    assert rows and all('era="' not in r["code"] and "era=" not in r["code"] for r in rows)
    assert {r["target_calendar"] for r in rows} <= set(span.CALENDAR_NAMES)
