"""The three calendars whose independent sources disagree: Chinese lunar, Korean lunar, Umm al-Qura.

Every source is read day by day over span's whole range (span/calendars/sources.py: LunarCalendar,
borax, lunardate, lunar-python, sxtwl; KASI's korean-lunar-calendar, ICU's dangi, the rule with
PyEphem; hijridate, the `ummalqura` package, ICU's islamic-umalqura), the vote is recomputed, and
compared with what span ships (consensus.py, data/*_disagreements.csv) and with what it answers:
the majority's date everywhere, and a `disputed` marker with the other reading on every day where the
sources genuinely split — from Python and through the MCP tools. A missing source skips, never passes.
"""

from __future__ import annotations

import csv
from datetime import date

import pytest
from mcp import Client

from span_toolkit import span
from span_toolkit.span import CalendarDate, disputes, festivals, get_calendar, search_calendar, search_calendar_entry, shift_date
from span_toolkit.span.calendars import consensus, sources
from span_toolkit.span.calendars.base import MAX_ORDINAL, MIN_ORDINAL

CALENDARS = sources.CALENDARS


def _days(calendar: str):
    try:
        readings = sources.source_readings(calendar)
    except sources.SourceUnavailable as exc:
        pytest.skip(str(exc))
    return readings, sources.days_of(calendar, readings)


_CACHE: dict = {}


@pytest.fixture(params=CALENDARS)
def computed(request):
    """(calendar, every source's readings, the days where two differ) — computed once per calendar."""
    if request.param not in _CACHE:
        _CACHE[request.param] = _days(request.param)
    return (request.param, *_CACHE[request.param])


def _computed(calendar):
    if calendar not in _CACHE:
        _CACHE[calendar] = _days(calendar)
    return _CACHE[calendar]


def _written(cal, n: int) -> str:
    return sources.written(tuple(get_calendar(cal).from_ordinal(n)))


# ---------------------------------------------------------------------------------------------
# What span ships is what the sources say, day by day
# ---------------------------------------------------------------------------------------------

def test_data_file_is_the_sources_day_by_day(computed):
    calendar, readings, days = computed
    with open(sources.csv_path(calendar), newline="") as f:
        assert f.read() == sources.csv_text(calendar, days)


def test_consensus_table_is_the_vote(computed):
    calendar, readings, days = computed
    fixes = sources.consensus(calendar, days)
    shipped = {"chinese_lunar": consensus.CHINESE_LUNAR_YEARS,
               "islamic_umm_al_qura": consensus.UMM_AL_QURA_MONTH_STARTS}.get(calendar, {})
    assert fixes == shipped
    assert tuple(sources.disputes(calendar, days)) == consensus.DISPUTES[calendar]


def test_span_answers_the_majority_and_marks_every_tie(computed):
    """On every day of the range: the majority's reading where there is one; on a tie the table's
    reading, with the marker; and the marker exactly on the disputed days."""
    calendar, readings, days = computed
    cal = get_calendar(calendar)
    by_day = {d.ordinal: d for d in days}
    voices = sources.voice_readings(calendar, readings)
    marked = disputes.disputed_days(calendar)
    bad = []
    for n in range(cal.min_ordinal, cal.max_ordinal + 1):
        ours = tuple(cal.from_ordinal(n))
        d = by_day.get(n)
        if d is None:  # every source agrees
            expected = {v[n] for v in voices.values() if n in v}
            assert len(expected) == 1 and ours in expected, (date.fromordinal(n), ours, expected)
            assert n not in marked
            continue
        if ours != d.reading or (n in marked) != d.disputed:
            bad.append((date.fromordinal(n), ours, d))
        if d.disputed:
            split = disputes.dispute(calendar, n)
            assert split.other in d.others() and split.other != ours
    assert bad == []
    assert cal.to_ordinal(*cal.from_ordinal(cal.min_ordinal)) == cal.min_ordinal


# Measured (2026, the packages pinned in pyproject's test extra, ICU 78): days where two sources
# differ, and how many of them are disputed. ORACLES.md explains each; a change here needs a look there.
COUNTS = {"chinese_lunar": (180, 60), "korean_lunar": (150, 120), "islamic_umm_al_qura": (22_118, 1_347),
          "vietnamese_lunar": (120, 120)}


def test_disagreement_counts_are_the_documented_ones(computed):
    calendar, readings, days = computed
    assert (len(days), sum(d.disputed for d in days)) == COUNTS[calendar]
    assert len(disputes.disputed_days(calendar)) == COUNTS[calendar][1]


# ---------------------------------------------------------------------------------------------
# Chinese lunar: the computed sources
# ---------------------------------------------------------------------------------------------

def test_chinese_equals_lunar_python_and_sxtwl_wherever_they_agree():
    """1900-01-01 … 2100-12-31, both directions."""
    readings, _ = _computed("chinese_lunar")
    cal = get_calendar("chinese_lunar")
    lp, sx = readings["lunar_python"], readings["sxtwl"]
    agree, bad = 0, []
    for n in range(MIN_ORDINAL, MAX_ORDINAL + 1):
        if lp[n] != sx[n]:
            continue
        agree += 1
        if tuple(cal.from_ordinal(n)) != lp[n] or cal.to_ordinal(*lp[n]) != n:
            bad.append((date.fromordinal(n), cal.from_ordinal(n), lp[n]))
    assert bad == []
    assert agree == 73_414 - 30  # they differ only on the month from 2057-09-28


def test_chinese_1900_is_covered_by_every_source_that_reaches_it():
    readings, _ = _computed("chinese_lunar")
    cal = get_calendar("chinese_lunar")
    jan = range(date(1900, 1, 1).toordinal(), date(1900, 2, 1).toordinal())
    for n in jan:  # lunar year 1899's twelfth month: before borax's and lunardate's tables
        ours = tuple(cal.from_ordinal(n))
        assert ours == readings["lunarcalendar"][n] == readings["lunar_python"][n] == readings["sxtwl"][n]
        assert n not in readings["borax"] or date.fromordinal(n) >= date(1900, 1, 31)
    assert cal.from_ordinal(jan.start) == (1899, 12, 1, False)


def test_every_corrected_year_is_lunar_python_and_sxtwl_day_by_day():
    readings, _ = _computed("chinese_lunar")
    cal = get_calendar("chinese_lunar")
    assert set(consensus.CHINESE_LUNAR_YEARS) == {2089, 2097}
    for year in consensus.CHINESE_LUNAR_YEARS:
        lay = cal.layout(year)
        assert lay != cal.raw_layout(year)  # a correction, not a copy
        for n in range(lay.start, lay.end):
            ours = tuple(cal.from_ordinal(n))
            assert ours == readings["lunar_python"][n] == readings["sxtwl"][n] == readings["lunardate"][n], \
                date.fromordinal(n)


@pytest.mark.parametrize("name, year, expected, table", [
    ("Mid-Autumn Festival", 2089, date(2089, 9, 18), date(2089, 9, 19)),
    ("Qixi Festival", 2097, date(2097, 8, 13), date(2097, 8, 14)),
    ("Ghost Festival", 2097, date(2097, 8, 21), date(2097, 8, 22)),
])
def test_festivals_fall_on_the_majoritys_day(name, year, expected, table):
    lunar_python = pytest.importorskip("lunar_python")
    sxtwl = pytest.importorskip("sxtwl")
    lunarcalendar = pytest.importorskip("lunarcalendar")
    f = festivals.find(name, "chinese_lunar")
    got = festivals.date_in_year(f, year).to_date()
    s = lunar_python.Lunar.fromYmd(year, f.month, f.day).getSolar()
    x = sxtwl.fromLunar(year, f.month, f.day, False)
    assert got == expected == date(s.getYear(), s.getMonth(), s.getDay()) == \
        date(x.getSolarYear(), x.getSolarMonth(), x.getSolarDay())
    old = lunarcalendar.Converter.Lunar2Solar(lunarcalendar.Lunar(year, f.month, f.day))
    assert date(old.year, old.month, old.day) == table  # the table span no longer follows there


def test_lunar_python_months_are_its_per_day_conversion():
    """The month tables read from lunar-python's LunarYear equal its own Solar -> Lunar conversion
    (about 1.3 ms a day, so not all 73,414): on the last and first day of every one of its months
    1900-2100 (where a table misread would show), every day of the months where sources differ, the
    first 40 days, and every 97th day."""
    readings, days = _computed("chinese_lunar")
    lp = readings["lunar_python"]
    firsts = [n for n in range(MIN_ORDINAL, MAX_ORDINAL + 1) if lp[n][2] == 1]
    picks = set(firsts) | {n - 1 for n in firsts} | set(range(MIN_ORDINAL, MAX_ORDINAL + 1, 97))
    picks |= {d.ordinal for d in days} | set(range(MIN_ORDINAL, MIN_ORDINAL + 40))
    picks &= set(range(MIN_ORDINAL, MAX_ORDINAL + 1))
    assert len(firsts) > 2_480
    bad = [date.fromordinal(n) for n in sorted(picks) if sources.lunar_python_per_day(n) != lp[n]]
    assert bad == []


def test_lunardate_and_borax_cover_their_ranges_only():
    readings, _ = _computed("chinese_lunar")
    assert min(readings["borax"]) == min(readings["lunardate"]) == date(1900, 1, 31).toordinal()
    assert date.fromordinal(max(readings["lunardate"])) == date(2100, 2, 8)  # lunar years 1900-2099
    assert date.fromordinal(max(readings["borax"])) == date(2100, 12, 31)


# ---------------------------------------------------------------------------------------------
# The ΔT-dependent months, recomputed with PyEphem
# ---------------------------------------------------------------------------------------------

def test_delta_t_dependent_months_are_the_documented_ones():
    pytest.importorskip("ephem")
    from span_toolkit.span.calendars import korean_lunar_astro as astro
    moved = {}
    for calendar, hours in (("chinese_lunar", 8), ("korean_lunar", 9)):
        own = astro.lunar_years(2025, 2100, utc_offset_hours=hours)
        now = astro.lunar_years(2025, 2100, utc_offset_hours=hours, delta_t=astro.DELTA_T_NOW)
        moved[calendar] = sorted(y for y in own if own[y] != now[y])
    assert moved == {"chinese_lunar": [2057, 2097], "korean_lunar": [2074, 2096]}


# ---------------------------------------------------------------------------------------------
# Korean lunar and Umm al-Qura
# ---------------------------------------------------------------------------------------------

def test_korean_disputes_are_the_near_midnight_months():
    runs = [(date.fromordinal(a).isoformat(), date.fromordinal(b).isoformat())
            for a, b in disputes.disputed_ranges("korean_lunar")]
    assert runs == [("2051-08-06", "2051-09-04"), ("2051-11-03", "2051-12-02"), ("2074-08-22", "2074-09-20"),
                    ("2097-01-13", "2097-02-11")]
    # 2017's month 2, where ICU alone differs, is KASI's published date: not disputed
    assert not disputes.is_disputed("korean_lunar", date(2017, 2, 26).toordinal())


def test_umm_al_qura_majority_and_ties():
    readings, days = _computed("islamic_umm_al_qura")
    cal = get_calendar("islamic_umm_al_qura")
    # Shawwal 1485: ICU and the ummalqura package agree against hijridate; span follows them
    n = consensus.UMM_AL_QURA_MONTH_STARTS[(1485, 10)]
    assert date.fromordinal(n) == date(2063, 1, 31)
    assert readings["icu"][n] == readings["ummalqura"][n] == tuple(cal.from_ordinal(n)) == (1485, 10, 1, False)
    assert readings["hijridate"][n] == (1485, 10, 2, False)
    assert festivals.date_in_year(festivals.find("Eid al-Fitr", cal.name), 1485).to_date() == date(2063, 1, 31)
    # ties only where two sources exist (before the ummalqura package's 1356 AH), all disputed
    ties = [d for d in days if d.majority is None]
    assert ties and all(d.voices["ummalqura"] is None for d in ties)
    assert max(d.ordinal for d in days if d.disputed) < date(1937, 3, 14).toordinal()


def test_csv_rows_expand_to_every_differing_day(computed):
    """The data file's rows are runs; expanded, they name exactly the days where two sources differ,
    and their span column is what span answers."""
    calendar, _, days = computed
    with open(sources.csv_path(calendar), newline="") as f:
        rows = list(csv.DictReader(f))
    expanded = []
    for row in rows:
        a, b = date.fromisoformat(row["first"]).toordinal(), date.fromisoformat(row["last"]).toordinal()
        expanded += range(a, b + 1)
        assert row["span"] == _written(calendar, a)
        assert row["verdict"].startswith("disputed") == disputes.is_disputed(calendar, a)
    assert expanded == [d.ordinal for d in days]


# ---------------------------------------------------------------------------------------------
# The marker, from Python (no sources needed)
# ---------------------------------------------------------------------------------------------

def test_the_api():
    n = date(2057, 10, 7).toordinal()
    split = disputes.dispute("lunar", n)  # aliases accepted
    assert split.calendar == "chinese_lunar" and split.other == (2057, 9, 10, False)
    assert split.numeric() == split.display() == "2057-9-10"
    assert "Beijing midnight" in split.reason and "2-2" in split.reason
    assert disputes.is_disputed("chinese_lunar", n) and not disputes.is_disputed("chinese_lunar", n + 30)
    assert not disputes.is_disputed("gregorian", n) and disputes.dispute("hebrew", n) is None
    assert disputes.DISPUTED_CALENDARS == ("chinese_lunar", "korean_lunar", "islamic_umm_al_qura",
                                           "vietnamese_lunar")
    assert len(disputes.disputed_days("chinese_lunar")) == 60
    assert disputes.disputed_ranges("chinese_lunar") == (
        (date(2057, 9, 28).toordinal(), date(2057, 10, 27).toordinal()),
        (date(2097, 8, 7).toordinal(), date(2097, 9, 5).toordinal()))
    d = CalendarDate.create("chinese_lunar", 2057, 9, 9)
    assert disputes.dispute_of(d) == split
    assert disputes.other_ordinal(d) == n - 1  # the other reading puts 9-9 a day earlier
    assert disputes.other_ordinal(CalendarDate.create("chinese_lunar", 2097, 7, 7)) == date(2097, 8, 14).toordinal()
    assert disputes.other_ordinal(CalendarDate.create("chinese_lunar", 2057, 11, 1)) is None
    leap = disputes.dispute("korean_lunar", date(2074, 8, 22).toordinal())
    assert leap.numeric() == "2074-leap6-30" and leap.display() == "2074-leap6-30"
    uq = disputes.dispute("islamic_umm_al_qura", date(1925, 3, 1).toordinal())
    assert uq.display() == "6 Shaban 1343" and uq.numeric() == "1343-8-6"
    with pytest.raises(span.CalendarError):
        disputes.dispute("no such calendar", n)


@pytest.mark.parametrize("calendar", disputes.DISPUTED_CALENDARS)
def test_search_calendar_marks_every_disputed_day_and_no_other(calendar):
    key = span.result_key(calendar)
    days = sorted(disputes.disputed_days(calendar))
    targets = None if calendar == "chinese_lunar" else [calendar]
    for n in days:
        g = date.fromordinal(n)
        out = search_calendar("gregorian", g.year, g.month, g.day, targets=targets)
        split = disputes.dispute(calendar, n)
        assert out["disputed"] == {key: {"other": split.numeric(), "reason": split.reason}}, g
        # the six "Y-M-D" keys are untouched
        assert out["gregorian_date"] == f"{g.year}-{g.month}-{g.day}"
        y, m, d, leap = get_calendar(calendar).from_ordinal(n)
        assert out[key] == f"{y}-{m}-{d}"
    quiet = [n for n in (days[0] - 1, days[-1] + 1, date(2025, 7, 1).toordinal())
             if get_calendar(calendar).min_ordinal <= n <= get_calendar(calendar).max_ordinal]
    assert len(quiet) >= 2
    for n in quiet:
        g = date.fromordinal(n)
        assert "disputed" not in search_calendar("gregorian", g.year, g.month, g.day, targets=targets)


def test_typed_results_and_arithmetic_carry_the_marker():
    entry = search_calendar_entry("chinese_lunar", 2097, event="Qixi Festival")
    assert entry.gregorian.numeric == "2097-8-13" and entry.gregorian.disputed is None
    assert entry.chinese_lunar.disputed.startswith("other reading 2097-7-6: ")
    assert "[disputed, other reading 2097-7-6: " in entry.text()
    # the text still parses, and stays within a date result's budget
    from span_toolkit.span.models import parse_dates
    assert parse_dates(entry.text())["chinese_lunar"]["display"] == "2097-7-7"
    assert len(entry.text()) <= 500
    start = CalendarDate.create("gregorian", 2057, 10, 1)
    moved = shift_date(start, days=6)
    assert moved.disputed is None  # Gregorian: no dispute in its own calendar
    lunar = shift_date(CalendarDate.create("chinese_lunar", 2057, 8, 29), days=2)
    assert lunar.date.display() == "2057-9-1" and lunar.disputed.display() == "2057-9-2"
    assert shift_date(CalendarDate.create("chinese_lunar", 2057, 11, 1), days=1).disputed is None


# ---------------------------------------------------------------------------------------------
# The marker through the MCP tools (the SDK's in-memory client)
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    from span_toolkit.server.app import build_server
    return build_server(log_level="WARNING")


async def test_tools_mark_every_disputed_day(server):
    import jsonschema
    async with Client(server) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        for calendar in disputes.DISPUTED_CALENDARS:
            for n in sorted(disputes.disputed_days(calendar)):
                g = date.fromordinal(n)
                r = await client.call_tool("search_calendar", {"calendar": "gregorian", "year": g.year,
                                                               "month": g.month, "day": g.day,
                                                               "targets": [calendar]})
                assert not r.is_error, r.content[0].text
                split = disputes.dispute(calendar, n)
                want = f"other reading {split.display()}: {split.reason}"
                sc = r.structured_content
                assert (sc.get(calendar) or sc["more"][calendar])["disputed"] == want
                if n == min(disputes.disputed_days(calendar)):  # the published schema admits the marker
                    jsonschema.validate(sc, schemas["search_calendar"])
                assert f"{calendar}: " in r.content[0].text and f"[disputed, {want}]" in r.content[0].text
        r = await client.call_tool("search_calendar", {"calendar": "gregorian", "year": 2057, "month": 10,
                                                       "day": 28})
        assert "disputed" not in r.structured_content["chinese_lunar"] and "disputed" not in r.content[0].text


async def test_arithmetic_and_difference_tools_carry_the_marker(server):
    import jsonschema
    async with Client(server) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        r = await client.call_tool("date_arithmetic", {"calendar": "gregorian", "year": 2057, "month": 10,
                                                       "day": 1, "days": 6})
        assert not r.is_error
        jsonschema.validate(r.structured_content, schemas["date_arithmetic"])
        res = r.structured_content["result"]["chinese_lunar"]
        assert res["numeric"] == "2057-9-9" and res["disputed"].startswith("other reading 2057-9-10: ")
        assert "chinese_lunar: 2057-9-9 [disputed, other reading 2057-9-10: " in r.content[0].text
        assert "disputed" not in r.structured_content["start"]
        r = await client.call_tool("date_arithmetic", {"calendar": "korean", "year": 2074, "month": 7, "day": 1,
                                                       "days": 1})
        assert r.structured_content["start"]["disputed"].startswith("other reading 2074-leap6-30: ")
        assert r.structured_content["result"]["more"]["korean_lunar"]["disputed"].startswith(
            "other reading 2074-7-1: ")
        assert "start: korean_lunar 2074-7-1 [disputed, other reading 2074-leap6-30: " in r.content[0].text
        r = await client.call_tool("date_difference", {
            "start": {"calendar": "gregorian", "year": 2063, "month": 1, "day": 1},
            "end": {"calendar": "umm al-qura", "year": 1343, "month": 8, "day": 5}})
        assert not r.is_error
        jsonschema.validate(r.structured_content, schemas["date_difference"])
        assert r.structured_content["end"]["disputed"] == \
            "other reading 6 Shaban 1343: sources split 1-1; no third source before 1356 AH"
        assert "disputed" not in r.structured_content["start"]
        assert "end: islamic_umm_al_qura 5 Shaban 1343 (1343-8-5) [disputed, " in r.content[0].text
