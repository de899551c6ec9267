"""The rules judge against the generator's real instances (every calendar pair, festival and offset).

For three paper evaluation dates: the gold answer, however the generator's own format families
would write it, is CORRECT; the same date one day earlier or later is INCORRECT; the baseline's
answer (the reference date copied) is never CORRECT; polar golds read back. This catches any
month spelling, leap month or range the hand-written table misses.
"""

from __future__ import annotations

from datetime import date

import pytest

from span_toolkit.client.judges.rules import CORRECT, INCORRECT, judge_answer
from span_toolkit.span import CalendarDate
from span_toolkit.span.benchmark import formats, generate_instances

DATES = [date(1960, 7, 1), date(2025, 7, 1), date(2060, 7, 1)]


@pytest.fixture(scope="module", params=DATES, ids=str)
def instances(request):
    return list(generate_instances(request.param, polar_negatives=True))


def test_gold_display_is_correct_everywhere(instances):
    assert len(instances) == 1780
    for inst in instances:
        for reply in (inst["answer"], f"Let me work it out.\n\nFinal answer: {inst['answer']}"):
            v = judge_answer(inst, reply)
            assert v.verdict == CORRECT, (inst["question"], reply, v)


def test_polar_negatives_are_read_as_no(instances):
    negatives = [i for i in instances if i["question_format"] == "polar" and i["gold"] is False]
    assert negatives, "polar_negatives=True should produce some No golds"
    for inst in negatives:
        assert judge_answer(inst, "No, they are not the same date.").verdict == CORRECT
        assert judge_answer(inst, "Yes.").verdict == INCORRECT


def test_one_day_off_is_incorrect_and_every_family_of_the_gold_is_correct(instances):
    content = [i for i in instances if i["question_format"] == "content"]
    for inst in content[::3]:
        gold = CalendarDate.from_dict(inst["gold"])
        for delta in (-1, 1):
            near = CalendarDate.from_ordinal(gold.calendar, gold.ordinal + delta)
            v = judge_answer(inst, f"Final answer: {near.display()}")
            assert v.verdict == INCORRECT, (inst["question"], near.display(), v)
        for family, text in formats.variants(gold):
            if family in ("compact_dmy", "compact_mdy"):
                continue  # read only when the question used that form (tested in the table)
            v = judge_answer(inst, f"The {inst['target_calendar']} date is {text}.")
            assert v.verdict == CORRECT, (family, text, v)


def test_the_baseline_copy_of_the_reference_date_never_scores(instances):
    for inst in instances:
        if inst["question_format"] != "content":
            continue
        ref = inst["variables"]["reference_date"]
        gold = inst["gold"]
        coincidence = (ref["year"], ref["month"], ref["day"]) == (gold["year"], gold["month"], gold["day"])
        v = judge_answer(inst, inst["variables"]["reference_text"])
        assert v.verdict == INCORRECT or coincidence, (inst["question"], v)
