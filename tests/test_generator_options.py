"""Options beyond the paper: polar negatives, date formats, stratified sampling; ids and determinism."""

from collections import Counter
from datetime import date

import pytest

from span_toolkit.span import CalendarDate
from span_toolkit.span.benchmark import (PAPER_EVAL_DATES, GeneratorError, date_range, formats, generate_instances,
                            generate_many, generate_sample, parse_dates_spec, sample_instances, stratified_indices)

D = date(2025, 7, 1)


def test_deterministic_and_stable_ids():
    a = list(generate_instances(D))
    b = list(generate_instances(D))
    assert a == b
    # pinned: the id is a pure function of the defining variables, across runs and versions
    by = {(i["template_id"], i["source_calendar"], i["target_calendar"], i["variables"]["offset"],
           i["variables"]["festival"]): i["id"] for i in generate_instances(date(1960, 7, 1))}
    assert by[("date_polar_days_ago", "gregorian", "islamic", 5, None)] == PINNED_ID
    # ids do not depend on which other dates or options are generated alongside
    many = {i["id"] for i in generate_many([date(1960, 7, 1), D])}
    assert set(by.values()) <= many
    with_opts = {i["id"] for i in generate_instances(D, date_formats=True, polar_negatives=True)}
    plain = [i for i in a if i["question_format"] == "content"]
    assert {i["id"] for i in plain} <= with_opts


PINNED_ID = "19600701-date_polar_days_ago-gregorian-islamic-5-69e7eb19e9"


def test_polar_negatives_balanced_and_seeded():
    insts = list(generate_instances(D, polar_negatives=True, seed=7))
    assert len(insts) == 1780
    polar = [i for i in insts if i["question_format"] == "polar"]
    golds = Counter(i["gold"] for i in polar)
    assert golds == {True: 445, False: 445}
    # balanced inside each group that differs only in the offset
    groups = Counter()
    for i in polar:
        if i["reasoning_type"] == "date":
            groups[(i["template_id"], i["source_calendar"], i["target_calendar"], i["gold"])] += 1
    assert set(groups.values()) == {5}
    for i in polar:
        v = i["variables"]
        assert i["answer"] == ("Yes" if i["gold"] else "No")
        assert (v["near_miss"] is None) == i["gold"]
        if not i["gold"]:
            assert v["expected_text"] == CalendarDate.from_dict(v["expected_date"]).display()
    assert all(i["variables"]["near_miss"] is None for i in insts if i["question_format"] == "content")
    # content instances are the paper's (same ids), seeds change the choice, same seed same output
    paper = {i["id"]: i for i in generate_instances(D)}
    assert all(paper[i["id"]]["answer"] == i["answer"] for i in insts if i["question_format"] == "content")
    assert list(generate_instances(D, polar_negatives=True, seed=7)) == insts
    other = list(generate_instances(D, polar_negatives=True, seed=8))
    assert [i["gold"] for i in other] != [i["gold"] for i in insts]
    kinds = Counter(i["variables"]["near_miss"] for i in polar if not i["gold"])
    assert {"day_before", "day_after", "previous_month", "next_month", "previous_year", "next_year"} <= set(kinds)


def test_polar_negatives_are_near_misses():
    insts = list(generate_instances(date(1990, 7, 1), polar_negatives=True, seed=1))
    kinds = Counter(i["variables"]["near_miss"] for i in insts if i["question_format"] == "polar" and not i["gold"])
    assert "umm_al_qura" in kinds and "leap_month_confusion" in kinds and "wrong_direction" in kinds
    answers = {(i["template_id"].replace("polar", "content"), i["source_calendar"], i["target_calendar"],
                i["variables"]["offset"], i["variables"]["festival"]): CalendarDate.from_dict(i["gold"])
               for i in insts if i["question_format"] == "content"}
    for i in insts:
        if i["question_format"] == "polar" and not i["gold"]:
            v = i["variables"]
            right = answers[(i["template_id"].replace("polar", "content"), i["source_calendar"],
                             i["target_calendar"], v["offset"], v["festival"])]
            wrong = CalendarDate.from_dict(v["expected_date"])
            assert wrong != right
            if v["near_miss"] in ("day_before", "day_after"):
                assert abs(wrong.ordinal - right.ordinal) == 1
            if v["near_miss"] == "umm_al_qura":
                assert wrong.calendar == "islamic" and abs(wrong.ordinal - right.ordinal) <= 3


def test_date_formats():
    insts = list(generate_instances(D, date_formats=True))
    paper = [i for i in insts if i["variables"]["date_format"] == "paper"]
    assert paper == list(generate_instances(D))               # the paper instances, same ids, unchanged
    fams = Counter((i["source_calendar"], i["variables"]["date_format"]) for i in insts)
    assert {f for (c, f) in fams if c == "gregorian"} == set(formats.CALENDAR_FAMILIES["gregorian"])
    assert {f for (c, f) in fams if c == "hebrew"} == {"paper", "ordinal_day_month_name", "month_name_day",
                                                        "month_name_ordinal_day"}
    assert len({i["id"] for i in insts}) == len(insts) and len({i["question"] for i in insts}) == len(insts)
    ex = [i for i in insts if i["variables"]["date_format"] == "dmy_slash"][0]
    assert '"01/07/2025" (DD/MM/YYYY).' in ex["question"]
    ex = [i for i in insts if i["variables"]["date_format"] == "month_name_ordinal_day"
          and i["source_calendar"] == "islamic"][0]
    assert 'Islamic calendar is "Muharram 5th, 1447".' in ex["question"]
    # same code and gold as the paper instance it varies
    base = {(i["template_id"], i["source_calendar"], i["target_calendar"], i["variables"]["offset"],
             i["variables"]["festival"]): i for i in paper}
    for i in insts:
        b = base[(i["template_id"], i["source_calendar"], i["target_calendar"], i["variables"]["offset"],
                  i["variables"]["festival"])]
        assert (i["code"], i["gold"], i["answer"]) == (b["code"], b["gold"], b["answer"])


def test_stratified_sample():
    dates = PAPER_EVAL_DATES[:4]
    full = list(generate_many(dates, polar_negatives=True, date_formats=True, seed=2))
    s = sample_instances(full, 400, seed=2)
    assert len(s) == 400 and len({i["id"] for i in s}) == 400
    assert s == list(generate_sample(dates, 400, seed=2, polar_negatives=True, date_formats=True))
    assert s == sample_instances(full, 400, seed=2)                      # deterministic
    assert s != sample_instances(full, 400, seed=3)
    order = {i["id"]: k for k, i in enumerate(full)}
    assert [order[i["id"]] for i in s] == sorted(order[i["id"]] for i in s)   # original order kept
    assert len({(i["source_calendar"], i["target_calendar"]) for i in s}) == 10
    assert {i["reasoning_type"] for i in s} == {"date", "festival"}
    assert {i["question_format"] for i in s} == {"content", "polar"}
    assert {i["variables"]["date_format"] for i in s} == set(formats.ALL_FAMILIES)
    assert {i["eval_date"] for i in s} == {d.isoformat() for d in dates}
    assert len({i["template_id"] for i in s}) == 12
    polar = Counter(i["gold"] for i in s if i["question_format"] == "polar")
    assert abs(polar[True] - polar[False]) <= 0.2 * sum(polar.values())
    dirs = Counter((i["source_calendar"], i["target_calendar"]) for i in s)
    assert max(dirs.values()) - min(dirs.values()) <= 1          # evenly spread over directions
    small = sample_instances(generate_instances(D), 10, seed=0)
    assert len({(i["source_calendar"], i["target_calendar"]) for i in small}) == 10
    assert sample_instances(full[:5], 50) == full[:5]
    with pytest.raises(GeneratorError):
        stratified_indices([("a",)], 0)


def test_date_specs():
    assert parse_dates_spec("1960-07-01..2060-07-01/5y") == list(PAPER_EVAL_DATES)
    assert parse_dates_spec("paper") == list(PAPER_EVAL_DATES)
    assert parse_dates_spec("2025-07-01, 1990-7-1,2025-07-01") == [date(2025, 7, 1), date(1990, 7, 1)]
    assert parse_dates_spec("2025-01-31..2025-05-01/1m") == [date(2025, 1, 31), date(2025, 2, 28), date(2025, 3, 31),
                                                            date(2025, 4, 30)]
    assert parse_dates_spec("2025-07-01..2025-07-03") == [date(2025, 7, 1), date(2025, 7, 2), date(2025, 7, 3)]
    assert parse_dates_spec("2025-07-01..2025-07-20/2w") == [date(2025, 7, 1), date(2025, 7, 15)]
    assert parse_dates_spec("2024-02-29..2029-01-01/1y")[1] == date(2025, 2, 28)
    assert date_range(date(2025, 7, 1), date(2025, 7, 1), "3d") == [date(2025, 7, 1)]
    for bad in ("", "2025-02-30", "2025/07/01", "1900-01-01", "2099-01-01", "2025-07-02..2025-07-01",
                "2025-07-01..2025-08-01/0d", "2025-07-01..2025-08-01/1x", "2025-07-01..", ",", "tomorrow"):
        with pytest.raises(GeneratorError):
            parse_dates_spec(bad)
