"""Stage 4: every instance's code, run again here with the plain search_calendar, gives its gold, and the
gold agrees with a direct computation in the core, for all 21 paper evaluation dates (37,380 instances)."""

from datetime import date

import pytest

from span_toolkit.span import CalendarDate, festivals, search_calendar
from span_toolkit.span.benchmark import (GoldMismatchError, PAPER_EVAL_DATES, execute_instance, generate_instances,
                            reference_dates)
import span_toolkit.span.benchmark.paper.build as gen


def direct(inst: dict) -> CalendarDate:
    v = inst["variables"]
    ref = CalendarDate.from_dict(v["reference_date"])
    sign = -1 if v["sense"] == "ago" else 1
    if inst["reasoning_type"] == "date":
        days = sign * v["offset"] * (7 if v["unit"] == "weeks" else 1)
        moved = CalendarDate.from_ordinal(ref.calendar, ref.ordinal + days)
    else:
        moved = festivals.date_in_year(festivals.find(v["festival"], ref.calendar), ref.year + sign * v["offset"])
    return moved.to(inst["target_calendar"])


def check_instance(inst: dict) -> None:
    raw, gold = execute_instance(inst, search_calendar)
    assert gold == inst["gold"], inst["id"]
    truth = direct(inst)
    if inst["question_format"] == "content":
        assert CalendarDate.from_dict(gold) == truth, inst["id"]
        assert inst["answer"] == truth.display()
    else:
        assert gold == (CalendarDate.from_dict(inst["variables"]["expected_date"]) == truth), inst["id"]
        assert inst["answer"] == ("Yes" if gold else "No")


@pytest.mark.parametrize("d", PAPER_EVAL_DATES, ids=str)
def test_all_paper_dates_code_gives_gold(d):
    refs = reference_dates(d)
    n = 0
    for inst in generate_instances(d):
        assert CalendarDate.from_dict(inst["variables"]["reference_date"]) == refs[inst["source_calendar"]]
        check_instance(inst)
        n += 1
    assert n == 1780


def test_negatives_and_formats_gold():
    for inst in generate_instances(date(1990, 7, 1), polar_negatives=True, date_formats=True, seed=5):
        if inst["variables"]["date_format"] == "paper":
            check_instance(inst)


def test_reference_dates_are_the_eval_date():
    refs = reference_dates(date(1960, 7, 1))
    assert refs["islamic"].display() == "6 Muharram 1380"
    assert refs["hebrew"].display() == "6 Tammuz 5720"
    assert reference_dates(date(2060, 7, 1))["islamic"].display() == "2 Safar 1483"
    assert reference_dates(date(1965, 7, 1))["hebrew"].display() == "1 Tammuz 5725"
    cross = search_calendar(calendar="gregorian", year=1960, month=7, day=1)
    assert cross["islamic_date"] == "1380-1-6" and cross["lunar_date"] == "1960-6-8"


def test_mismatch_raises_loudly(monkeypatch):
    """If the direct computation ever disagreed with the code, generation must stop."""
    real = gen._direct_answer

    def off_by_one(ctx, spec):
        d = real(ctx, spec)
        return CalendarDate.from_ordinal(d.calendar, d.ordinal + 1)

    monkeypatch.setattr(gen, "_direct_answer", off_by_one)
    with pytest.raises(GoldMismatchError, match="code gives"):
        next(generate_instances(date(2025, 7, 1)))


def test_code_style():
    for inst in generate_instances(date(2025, 7, 1)):
        code = inst["code"]
        assert "search_calendar(" in code and "answer" in code
        if inst["reasoning_type"] == "festival":
            assert "event=" in code and f'event="{inst["variables"]["festival"]}"' in code
        elif inst["source_calendar"] == "gregorian":
            assert 'calendar="gregorian"' in code and "timedelta(" in code
            assert code.index("timedelta(") < code.index("search_calendar(")      # arithmetic, then convert
        else:
            assert code.index("search_calendar(") < code.index("timedelta(")      # convert, then arithmetic
            assert 'datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")' in code
