"""parse_question reads every question the generator writes back to exactly its variables."""

from datetime import date

import pytest

from span_toolkit.span import CalendarDate
from span_toolkit.span.benchmark import (PAPER_EVAL_DATES, ParsedQuestion, QuestionParseError, formats, generate_instances,
                            parse_question)


def assert_round_trip(inst: dict) -> None:
    p = parse_question(inst["question"])
    v = inst["variables"]
    got = {
        "source_calendar": p.source_calendar, "target_calendar": p.target_calendar,
        "reasoning_type": p.reasoning_type, "question_format": p.question_format,
        "template_id": p.template_id, "direction": p.direction,
        "unit": p.unit, "offset": p.offset, "sense": p.sense, "festival": p.festival,
        "reference_date": p.reference_date.as_dict(), "reference_text": p.reference_text,
        "expected_date": p.expected_date.as_dict() if p.expected_date else None,
        "expected_text": p.expected_text, "date_format": p.date_format,
    }
    want = {
        "source_calendar": inst["source_calendar"], "target_calendar": inst["target_calendar"],
        "reasoning_type": inst["reasoning_type"], "question_format": inst["question_format"],
        "template_id": inst["template_id"], "direction": inst["direction"],
        **{k: v[k] for k in ("unit", "offset", "sense", "festival", "reference_date", "reference_text",
                             "expected_date", "expected_text", "date_format")},
    }
    assert got == want, inst["question"]
    assert p.sign == (-1 if v["sense"] == "ago" else 1)


@pytest.mark.parametrize("d", PAPER_EVAL_DATES, ids=str)
def test_round_trip_all_options(d):
    """Every question of every paper date, with every option on (paper forms included, as a subset)."""
    n = 0
    for inst in generate_instances(d, polar_negatives=True, date_formats=True, seed=d.year):
        assert_round_trip(inst)
        n += 1
    assert n > 1780


@pytest.mark.parametrize("d", [date(1960, 7, 1), date(2060, 7, 1)], ids=str)
def test_round_trip_paper_protocol(d):
    for inst in generate_instances(d):
        assert_round_trip(inst)


def test_extra_dates_cover_edge_renderings():
    # 2023-04-10: Chinese leap 2nd month; 2024-03-11: Hebrew Adar II; 1984-12-12: day == month (D/M order
    # notes differ); 1999-11-22: two-digit month and day (paper form == ISO form, ISO dropped)
    for d in (date(2023, 4, 10), date(2024, 3, 11), date(1984, 12, 12), date(1999, 11, 22)):
        for inst in generate_instances(d, polar_negatives=True, date_formats=True):
            assert_round_trip(inst)


def test_typographic_quotes_and_singular_units():
    q = ("Today’s date on the Hebrew calendar is “1 Tammuz 5725”. Was the Gregorian calendar date 3 days ago "
         "equivalent to the date “1965-6-28”?")
    p = parse_question(q)
    assert p.source_calendar == "hebrew" and p.reference_date == CalendarDate.create("hebrew", 5725, 4, 1)
    assert p.expected_date == CalendarDate.create("gregorian", 1965, 6, 28) and p.sign == -1 and p.offset == 3
    p = parse_question('Today\'s date on the Gregorian calendar is "2020-7-1". What is the Islamic calendar date 1 day later?')
    assert p.unit == "days" and p.offset == 1 and p.sign == 1 and p.question_format == "content"
    assert isinstance(p, ParsedQuestion)


@pytest.mark.parametrize("text", [
    "What is the date?",
    'Today\'s date on the Martian calendar is "2020-7-1". What is the Islamic calendar date 1 days later?',
    'Today\'s date on the Gregorian calendar is "2020-13-1". What is the Islamic calendar date 1 days later?',
    'Today\'s date on the Gregorian calendar is "2020-7-1". Is the Islamic calendar date 1 days later?',
    'Today\'s date on the Gregorian calendar is "2020-7-1". What is the Islamic calendar date of the Gregorian '
    'festival "Diwali" 1 years later?',
    'Today\'s date on the Gregorian calendar is "2020-7-1". What is the Islamic calendar date 2 years later?',
    'Today\'s date on the Gregorian calendar is "01/07/2020" (YYYY/DD/MM). What is the Islamic calendar date 1 days later?',
])
def test_rejects_other_text(text):
    with pytest.raises(QuestionParseError):
        parse_question(text)


def test_formats_render_and_parse():
    g = CalendarDate.create("gregorian", 1960, 7, 1)
    got = dict(formats.variants(g))
    assert got["paper"] == "1960-7-1" and got["iso"] == "1960-07-01" and got["dmy_slash"] == "01/07/1960"
    assert got["mdy_slash"] == "07/01/1960" and got["compact_ymd"] == "19600701" and got["compact_dmy"] == "01071960"
    assert got["ordinal_day_month_name"] == "1st July 1960" and got["month_name_ordinal_day"] == "July 1st, 1960"
    assert formats.note_of("dmy_slash") == "DD/MM/YYYY" and formats.note_of("iso") is None
    h = CalendarDate.create("hebrew", 5725, 4, 1)
    assert dict(formats.variants(h)) == {"paper": "1 Tammuz 5725", "ordinal_day_month_name": "1st Tammuz 5725",
                                         "month_name_day": "Tammuz 1, 5725", "month_name_ordinal_day": "Tammuz 1st, 5725"}
    leap = CalendarDate.create("chinese_lunar", 2023, 2, 15, True)
    lv = dict(formats.variants(leap))
    assert lv["paper"] == "2023-leap2-15" and lv["iso"] == "2023-leap02-15" and "compact_ymd" not in lv
    for d in (g, h, leap):
        for fam, text in formats.variants(d):
            assert formats.parse(text, formats.note_of(fam), d.calendar) == (d, fam)
    same = dict(formats.variants(CalendarDate.create("gregorian", 1999, 11, 22)))
    assert "iso" not in same          # identical to the paper form, emitted once
