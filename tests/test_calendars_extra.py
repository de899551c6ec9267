"""The first calendars beyond the paper (julian, coptic, ethiopian, umm al-qura, korean lunar): registry,
validation, festivals, search_calendar targets.

Expected dates here come from published calendars (church and government holiday dates), not
from this code; tests/test_calendars_extra_oracles.py compares every day with other libraries.
"""

from datetime import date

import pytest
from hypothesis import given, settings, strategies as st

from span_toolkit import span
from span_toolkit.span import CalendarDate, CalendarError, festivals, get_calendar, parse_date, shift_date

EXTRA = ("julian", "coptic", "ethiopian", "islamic_umm_al_qura", "korean_lunar")


def test_paper_names_unchanged_and_all_names_extend_them():
    assert span.CALENDAR_NAMES == ("gregorian", "chinese_lunar", "islamic", "hebrew", "shaka", "persian")
    # the official-use calendars (tests/test_calendars_official.py) come after these five
    assert span.ALL_CALENDAR_NAMES[:11] == span.CALENDAR_NAMES + EXTRA
    assert span.EXTRA_CALENDAR_NAMES[:5] == EXTRA


@pytest.mark.parametrize("alias, name", [
    ("Julian", "julian"), ("old style", "julian"), ("Coptic", "coptic"), ("Alexandrian", "coptic"),
    ("ethiopic", "ethiopian"), ("Amete Mihret", "ethiopian"), ("umm al-qura", "islamic_umm_al_qura"),
    ("Umm al-Qura calendar", "islamic_umm_al_qura"), ("hijri_umalqura", "islamic_umm_al_qura"),
    ("islamic-umalqura", "islamic_umm_al_qura"), ("korean", "korean_lunar"), ("Korean Lunar", "korean_lunar"),
    ("dangi", "korean_lunar"),
    # the paper's aliases still mean what they meant
    ("hijri", "islamic"), ("lunar", "chinese_lunar"), ("chinese", "chinese_lunar"),
])
def test_aliases(alias, name):
    assert span.canonical_name(alias) == name


def test_unknown_calendar_lists_every_calendar():
    with pytest.raises(CalendarError) as e:
        get_calendar("klingon")
    assert "korean_lunar" in str(e.value) and ", ".join(span.ALL_CALENDAR_NAMES) in str(e.value)


@pytest.mark.parametrize("calendar, ymd, gregorian", [
    ("julian", (1950, 12, 25), date(1951, 1, 7)),          # Orthodox Christmas of Julian 1950
    ("julian", (1918, 1, 31), date(1918, 2, 13)),          # Russia's switch: 31 Jan (OS) → 14 Feb (NS)
    ("julian", (2100, 2, 29), date(2100, 3, 14)),          # a Julian leap day the Gregorian lacks
    ("coptic", (1741, 1, 1), date(2024, 9, 11)),           # Nayrouz 1741
    ("coptic", (1739, 13, 6), date(2023, 9, 11)),          # leap day, before Gregorian leap year 2024
    ("coptic", (1719, 1, 1), date(2002, 9, 11)),
    ("ethiopian", (2016, 1, 1), date(2023, 9, 12)),        # Enkutatash 2016 (after a leap year)
    ("ethiopian", (2018, 1, 1), date(2025, 9, 11)),        # Enkutatash 2018
    ("ethiopian", (2000, 1, 1), date(2007, 9, 12)),        # the Ethiopian millennium
    ("islamic_umm_al_qura", (1446, 9, 1), date(2025, 3, 1)),   # Saudi start of Ramadan 1446
    ("islamic_umm_al_qura", (1446, 10, 1), date(2025, 3, 30)),
    ("islamic_umm_al_qura", (1445, 12, 10), date(2024, 6, 16)),
    ("korean_lunar", (2025, 1, 1), date(2025, 1, 29)),
    ("korean_lunar", (1997, 1, 1), date(1997, 2, 8)),      # Chinese New Year 1997 was 7 February
    ("korean_lunar", (2028, 1, 1), date(2028, 1, 27)),     # Chinese New Year 2028 is 26 January
])
def test_published_dates(calendar, ymd, gregorian):
    d = CalendarDate.create(calendar, *ymd)
    assert d.to_date() == gregorian
    assert CalendarDate.from_ordinal(calendar, gregorian.toordinal()) == d


def test_korean_leap_months():
    d = CalendarDate.create("korean", 2023, 2, 1, True)
    assert d.to_date() == date(2023, 3, 22) and d.display() == "2023-leap2-1"
    assert parse_date("2023-leap2-15", "korean").is_leap_month
    # 2012: the Chinese calendar had leap month 4, KASI's has leap month 3
    assert CalendarDate.create("korean_lunar", 2012, 3, 1, True).to_date() == date(2012, 4, 21)
    assert CalendarDate.create("chinese_lunar", 2012, 4, 1, True).to_date() == date(2012, 5, 21)


@pytest.mark.parametrize("args, needle", [
    (("ethiopian", 2017, 13, 6), "not a leap year: Pagume (month 13) has 5 days"),
    (("ethiopian", 2015, 13, 7), "has 6 days; day 7 does not exist (valid: 1–6)"),
    (("ethiopian", 2017, 13, 7), "valid: 1–5"),
    (("ethiopian", 2017, 14, 1), "months 1–13 (Meskerem–Pagume"),
    (("coptic", 1741, 13, 6), "not a leap year: Pi Kogi Enavot"),
    (("coptic", 1741, 0, 1), "months 1–13"),
    (("coptic", 1741, 2, 31), "has 30 days"),
    (("julian", 2023, 2, 29), "has 28 days"),
    (("julian", 2023, 13, 1), "months 1–12"),
    (("julian", 1899, 12, 1), "supported Julian dates: 20 December 1899"),
    (("korean", 2024, 4, 1, True), "has no leap month"),
    (("korean", 2023, 3, 1, True), "has leap month 2, not 3"),
    (("korean", 2101, 1, 1), "Gregorian 1900-01-01 … 2100-12-31"),
    (("korean", 2100, 12, 2), "2100-12-1"),
    (("umm al-qura", 1342, 12, 1), "1 Muharram 1343 … 30 Dhu al-Hijjah 1500 (Gregorian 1924-08-01 … 2077-11-16)"),
    (("umm al-qura", 1501, 1, 1), "out of range"),
    (("umm al-qura", 1446, 9, 30), "has 29 days"),
])
def test_validation_messages_say_what_is_valid(args, needle):
    with pytest.raises(CalendarError) as e:
        CalendarDate.create(*args)
    assert needle in str(e.value)


def test_conversion_out_of_a_narrow_range_is_a_clear_error():
    with pytest.raises(CalendarError, match="outside the Umm al-Qura calendar's range.*1924-08-01"):
        CalendarDate.create("gregorian", 1910, 1, 1).to("islamic_umm_al_qura")
    assert CalendarDate.create("gregorian", 2060, 1, 1).to("korean").year == 2059  # computed years
    with pytest.raises(CalendarError, match="supported"):
        shift_date(CalendarDate.create("umm al-qura", 1500, 12, 1), days=40)
    with pytest.raises(CalendarError, match="supported"):
        shift_date(CalendarDate.create("korean", 2100, 11, 1), months=2)


def test_ranges_of_the_paper_calendars_are_unchanged():
    assert get_calendar("islamic").range_text().endswith("(Gregorian 1900-01-01 … 2100-12-31)")
    for name in span.CALENDAR_NAMES + ("julian", "coptic", "ethiopian", "korean_lunar"):
        cal = get_calendar(name)
        assert (cal.min_ordinal, cal.max_ordinal) == (date(1900, 1, 1).toordinal(), date(2100, 12, 31).toordinal())


@pytest.mark.parametrize("text, calendar, expected", [
    ("29 Koiak 1741", "coptic", (1741, 4, 29)), ("Kiahk 29, 1741", "coptic", (1741, 4, 29)),
    ("6 Nasie 1739", "coptic", (1739, 13, 6)), ("1 Meskerem 2018", "ethiopian", (2018, 1, 1)),
    ("17 Maskaram 2018", "ethiopic", (2018, 1, 17)), ("6 Pagumen 2015", "ethiopian", (2015, 13, 6)),
    ("25 December 1950", "julian", (1950, 12, 25)), ("1 Shawwal 1446", "umm al-qura", (1446, 10, 1)),
    ("2025-8-15", "korean", (2025, 8, 15)),
])
def test_parse_month_names(text, calendar, expected):
    d = parse_date(text, calendar)
    assert (d.year, d.month, d.day) == expected


def test_display_forms():
    assert CalendarDate.create("coptic", 1741, 4, 29).display() == "29 Koiak 1741"
    assert CalendarDate.create("ethiopian", 2015, 13, 6).display() == "6 Pagume 2015"
    assert CalendarDate.create("julian", 1950, 12, 25).display() == "25 December 1950"
    assert CalendarDate.create("umm al-qura", 1446, 10, 1).display() == "1 Shawwal 1446"
    assert CalendarDate.create("korean", 2025, 8, 15).display() == "2025-8-15"


def test_arithmetic_in_the_new_calendars():
    # Pagume: 30 Nehase + 1 month is Pagume, clamped to its length
    r = shift_date(CalendarDate.create("ethiopian", 2017, 12, 30), months=1)
    assert (r.date.month, r.date.day, r.clamped) == (13, 5, True)
    # Korean 2023: month 2, leap month 2, month 3
    r = shift_date(CalendarDate.create("korean", 2023, 2, 10), months=1)
    assert (r.date.month, r.date.is_leap_month, r.date.day) == (2, True, 10)
    # Umm al-Qura 1446: Rajab has 30 days, Shaban 29
    r = shift_date(CalendarDate.create("umm al-qura", 1446, 7, 30), months=1)
    assert (r.date.month, r.date.day, r.clamped) == (8, 29, True)


# ---- festivals -----------------------------------------------------------------------------

@pytest.mark.parametrize("name, calendar, year, gregorian", [
    ("Orthodox Christmas", None, 1950, date(1951, 1, 7)),
    ("Christmas", "julian", 2024, date(2025, 1, 7)),
    ("Orthodox Easter", None, 2024, date(2024, 5, 5)),
    ("Orthodox Easter", None, 2025, date(2025, 4, 20)),
    ("Easter", "julian", 2023, date(2023, 4, 16)),
    ("Coptic Christmas", None, 1740, date(2024, 1, 7)),    # 28 Koiak: 1739 was a leap year
    ("Coptic Christmas", None, 1741, date(2025, 1, 7)),    # 29 Koiak
    ("Genna", None, 2016, date(2024, 1, 7)),
    ("Enkutatash", None, 2016, date(2023, 9, 12)),
    ("Meskel", None, 2018, date(2025, 9, 27)),
    ("Meskel", None, 2016, date(2023, 9, 28)),
    ("Timkat", None, 2016, date(2024, 1, 20)),
    ("Seollal", None, 2025, date(2025, 1, 29)),
    ("Seollal", None, 1997, date(1997, 2, 8)),
    ("Chuseok", None, 2025, date(2025, 10, 6)),
    ("Chuseok", None, 2024, date(2024, 9, 17)),
    ("Eid al-Fitr", "islamic_umm_al_qura", 1446, date(2025, 3, 30)),
    ("Eid al-Adha (Umm al-Qura)", None, 1445, date(2024, 6, 16)),
])
def test_festival_dates(name, calendar, year, gregorian):
    f = festivals.find(name, calendar)
    assert festivals.date_in_year(f, year).to_date() == gregorian
    cal = f.calendar
    assert span.search_calendar(calendar=cal, year=year, festival_name=name)["gregorian_date"] == \
        f"{gregorian.year}-{gregorian.month}-{gregorian.day}"


def test_bare_names_keep_their_paper_meaning():
    assert festivals.find("Eid al-Fitr").calendar == "islamic"
    assert festivals.find("Eid al-Fitr", "islamic").calendar == "islamic"
    assert festivals.find("Eid al-Fitr", "umm al-qura").name == "Eid al-Fitr (Umm al-Qura)"
    assert festivals.find("Christmas").calendar == "gregorian"
    assert festivals.find("Christmas", "coptic").name == "Coptic Christmas"
    assert festivals.find("Lunar New Year").calendar == "chinese_lunar"
    assert festivals.find("Lunar New Year", "korean").name == "Seollal"
    with pytest.raises(CalendarError, match="unknown festival 'Easter'"):
        festivals.find("Easter")  # Western Easter is not modelled; "Easter" alone must not mean Orthodox
    with pytest.raises(CalendarError, match="Islamic calendar, not the Julian"):
        festivals.find("Eid al-Fitr", "julian")
    assert len([f for f in festivals.FESTIVALS if f.paper]) == 21


def test_festival_rules_are_listed_and_umm_al_qura_mirrors_islamic():
    islamic = [f for f in festivals.FESTIVALS if f.calendar == "islamic"]
    uaq = [f for f in festivals.FESTIVALS if f.calendar == "islamic_umm_al_qura"]
    assert [(f.month, f.day) for f in islamic] == [(f.month, f.day) for f in uaq]
    assert all(f.rule and not f.paper for f in festivals.FESTIVALS if f.calendar in EXTRA)
    assert festivals.find("Orthodox Easter").movable and "computus" in festivals.find("Orthodox Easter").rule


def test_orthodox_easter_is_a_sunday_between_its_limits():
    for year in range(1900, 2101):
        d = festivals.date_in_year("Orthodox Easter", year)
        assert d.weekday() == "Sunday"
        assert (3, 22) <= (d.month, d.day) <= (4, 25)  # Julian limits of the computus


def test_festival_outside_a_narrow_range():
    with pytest.raises(CalendarError, match="1343"):
        festivals.date_in_year("Eid al-Fitr (Umm al-Qura)", 1342)
    with pytest.raises(CalendarError, match="2101"):
        festivals.date_in_year("Chuseok", 2101)
    # a Gregorian year only partly covered lists what the table covers (Eid al-Fitr 1342 was in May 1924)
    assert festivals.occurrences_in_gregorian_year("Eid al-Fitr (Umm al-Qura)", 1924) == []
    assert len(festivals.occurrences_in_gregorian_year("Hijri New Year (Umm al-Qura)", 1924)) == 1
    with pytest.raises(CalendarError, match="1924-08-01"):
        festivals.occurrences_in_gregorian_year("Eid al-Fitr (Umm al-Qura)", 1920)
    assert len(festivals.occurrences_in_gregorian_year("Eid al-Fitr (Umm al-Qura)", 2000)) == 2


# ---- search_calendar and convert ---------------------------------------------------------------

PAPER_KEYS = ["gregorian_date", "lunar_date", "islamic_date", "hebrew_date", "shaka_date", "persian_date",
              "lunar_is_leap_month"]


def test_search_calendar_default_keys_unchanged():
    out = span.search_calendar(calendar="gregorian", year=2025, month=1, day=7)
    assert list(out) == PAPER_KEYS
    out = span.search_calendar(calendar="julian", year=2024, month=12, day=25)
    assert list(out) == PAPER_KEYS and out["gregorian_date"] == "2025-1-7"


def test_search_calendar_targets_add_keys():
    out = span.search_calendar(calendar="gregorian", year=2023, month=4, day=5,
                               targets=["korean", "julian", "ethiopic", "coptic", "umm al-qura", "hebrew"])
    assert list(out) == PAPER_KEYS + ["korean_lunar_date", "korean_lunar_is_leap_month", "julian_date",
                                      "ethiopian_date", "coptic_date", "islamic_umm_al_qura_date"]
    assert out["korean_lunar_date"] == "2023-2-15" and out["korean_lunar_is_leap_month"] is True
    assert out["julian_date"] == "2023-3-23"
    assert out["islamic_umm_al_qura_date"] == "1444-9-14"


def test_search_calendar_bad_targets():
    with pytest.raises(CalendarError, match="unknown target calendar 'mayan'.*korean_lunar"):
        span.search_calendar(calendar="gregorian", year=2023, month=4, day=5, targets=["mayan"])
    with pytest.raises(CalendarError, match="Umm al-Qura"):
        span.search_calendar(calendar="gregorian", year=1910, month=1, day=1, targets=["umm al-qura"])


def test_convert():
    d = CalendarDate.create("coptic", 1741, 4, 29)
    out = span.convert(d)
    assert list(out) == list(span.CALENDAR_NAMES) + ["coptic"]
    assert out["coptic"] == d and out["gregorian"].to_date() == date(2025, 1, 7)
    out = span.convert(d, ["julian", "Julian", "korean"])
    assert list(out) == ["julian", "korean_lunar"] and out["julian"].display() == "25 December 2024"
    assert span.convert(d, []) == {}
    assert span.resolve_targets(None, "gregorian") == span.CALENDAR_NAMES
    assert span.result_key("chinese_lunar") == "lunar_date" and span.result_key("ethiopic") == "ethiopian_date"
    with pytest.raises(CalendarError, match="valid targets"):
        span.convert(d, ["julian", "klingon"])


@pytest.mark.parametrize("name, day", [("Enkutatash", 11), ("Nayrouz", 11), ("Meskel", 27)])
def test_new_year_and_meskel_gregorian_rule_in_their_rule_text(name, day):
    f = festivals.find(name)
    cal = get_calendar(f.calendar)
    for year in range(cal.min_year, cal.max_year + 1):
        try:
            g = festivals.date_in_year(f, year).to_date()
        except CalendarError:
            continue  # outside 1900-2100
        if g.year > 2098:  # 2099: the Julian leap year 2100 moves it although 2100 is no Gregorian one
            continue
        leap_next = (g.year + 1) % 4 == 0 and ((g.year + 1) % 100 != 0 or (g.year + 1) % 400 == 0)
        assert (g.month, g.day) == (9, day + leap_next), (year, g)
    assert "before a Gregorian leap year" in f.rule


# ---- properties over every calendar ---------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(calendar=st.sampled_from(span.ALL_CALENDAR_NAMES), n=st.integers(0, 73413), days=st.integers(-400, 400))
def test_round_trip_and_day_steps_in_every_calendar(calendar, n, days):
    cal = get_calendar(calendar)
    ordinal = max(cal.min_ordinal, min(cal.max_ordinal, date(1900, 1, 1).toordinal() + n))
    d = CalendarDate.from_ordinal(calendar, ordinal)
    assert d.ordinal == ordinal
    assert parse_date(d.display(), calendar) == d
    target = ordinal + days
    if cal.min_ordinal <= target <= cal.max_ordinal:
        moved = shift_date(d, days=days).date
        assert span.date_difference(d, moved) == days and moved.calendar == cal.name
    else:
        with pytest.raises(CalendarError, match="supported"):
            shift_date(d, days=days)


@pytest.mark.parametrize("text, expected", [
    ("1 Adar 5785", (5785, 12, 1)),           # a common year: one Adar
    ("1 Adar 5784", (5784, 12, 1)),           # a leap year: bare Adar is Adar I
    ("1 Adar I 5784", (5784, 12, 1)), ("1 Adar Rishon 5784", (5784, 12, 1)), ("14 Adar II 5784", (5784, 13, 14)),
    ("1 Adar I 5785", "no 'Adar I'"),         # was read as 1 Adar 5785 without a word
    ("1 Adar Aleph 5785", "not a leap year"),
    ("14 Adar II 5785", "not a leap year"),
])
def test_adar_names_follow_the_year(text, expected):
    if isinstance(expected, tuple):
        d = parse_date(text, "hebrew")
        assert (d.year, d.month, d.day) == expected
    else:
        with pytest.raises(CalendarError, match=expected):
            parse_date(text, "hebrew")
