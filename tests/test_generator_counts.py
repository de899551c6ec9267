"""The protocol's counts (issue 4): 1,780 instances per evaluation date, 800 date-based + 980 festival."""

from collections import Counter
from datetime import date

import pytest

from span_toolkit.span import festivals
from span_toolkit.span.benchmark import (DIRECTIONS, FESTIVAL_PAIRS, MAX_EVAL_DATE, MIN_EVAL_DATE, PAPER_EVAL_DATES,
                            TEMPLATES, generate_instances)

DATES = [date(1960, 7, 1), date(2060, 7, 1), date(2025, 7, 1), date(1990, 7, 1), date(2000, 2, 29),
         MIN_EVAL_DATE, MAX_EVAL_DATE]


@pytest.fixture(scope="module", params=DATES, ids=str)
def instances(request):
    return list(generate_instances(request.param))


def test_totals(instances):
    assert len(instances) == 1780
    types = Counter(i["reasoning_type"] for i in instances)
    assert types == {"date": 800, "festival": 980}
    assert Counter((i["reasoning_type"], i["question_format"]) for i in instances) == {
        ("date", "content"): 400, ("date", "polar"): 400, ("festival", "content"): 490, ("festival", "polar"): 490}


def test_templates_and_directions(instances):
    per_template = Counter(i["template_id"] for i in instances)
    assert set(per_template) == set(TEMPLATES) and len(per_template) == 12
    for tid, n in per_template.items():
        assert n == (100 if tid.startswith("date") else 245), tid      # 10 dirs x 10 offsets | 49 pairs x 5
    date_dirs = Counter((i["source_calendar"], i["target_calendar"]) for i in instances if i["reasoning_type"] == "date")
    assert len(date_dirs) == 10 and set(date_dirs) == set(DIRECTIONS) and set(date_dirs.values()) == {80}
    assert Counter(i["direction"] for i in instances if i["reasoning_type"] == "date") == {
        "gregorian_to_other": 400, "other_to_gregorian": 400}
    for i in instances:
        assert (i["source_calendar"] == "gregorian") != (i["target_calendar"] == "gregorian")
        assert i["direction"] == ("gregorian_to_other" if i["source_calendar"] == "gregorian" else "other_to_gregorian")


def test_festival_pairs(instances):
    pairs = Counter((i["variables"]["festival"], i["target_calendar"]) for i in instances if i["reasoning_type"] == "festival")
    assert len(pairs) == 49 and set(pairs) == set(FESTIVAL_PAIRS) and set(pairs.values()) == {20}
    paper = {f.name: f.calendar for f in festivals.FESTIVALS if f.paper}
    assert len(paper) == 21
    used = {i["variables"]["festival"] for i in instances if i["reasoning_type"] == "festival"}
    assert used == set(paper)                                   # only (and all of) the paper's 21
    greg = [p for p in pairs if paper[p[0]] == "gregorian"]
    assert len(greg) == 35 and len(pairs) - len(greg) == 14
    for i in instances:
        if i["reasoning_type"] == "festival":
            assert paper[i["variables"]["festival"]] == i["source_calendar"]


def test_offsets(instances):
    for i in instances:
        v = i["variables"]
        if i["reasoning_type"] == "date":
            assert v["unit"] in ("days", "weeks") and 1 <= v["offset"] <= 10 and v["festival"] is None
        else:
            assert v["unit"] == "years" and 1 <= v["offset"] <= 5
        assert v["sense"] in ("ago", "later") and i["template_id"].endswith(v["sense"])
    offs = Counter((i["template_id"], v["offset"]) for i in instances for v in [i["variables"]])
    assert len(offs) == 8 * 10 + 4 * 5


def test_paper_protocol_polar_all_yes(instances):
    polar = [i for i in instances if i["question_format"] == "polar"]
    assert len(polar) == 890 and all(i["answer"] == "Yes" and i["gold"] is True for i in polar)
    for i in polar:
        assert i["variables"]["expected_date"] is not None and i["variables"]["expected_text"]
    content = [i for i in instances if i["question_format"] == "content"]
    assert all(isinstance(i["gold"], dict) and i["variables"]["expected_date"] is None for i in content)


def test_schema_and_unique_ids(instances):
    keys = ["id", "eval_date", "reasoning_type", "question_format", "direction", "source_calendar",
            "target_calendar", "template_id", "variables", "question", "code", "answer", "gold"]
    vkeys = ["unit", "offset", "sense", "reference_date", "reference_text", "festival", "expected_date",
             "expected_text", "date_format"]
    for i in instances:
        # "disputed" follows only where the gold crosses a day the calendar's sources dispute (2095-05-05: Qixi
        # and the Ghost Festival of 2097)
        assert list(i) in (keys, keys + ["disputed"]) and list(i["variables"]) == vkeys
        assert i["variables"]["date_format"] == "paper"
    ids = [i["id"] for i in instances]
    assert len(set(ids)) == 1780
    assert len({i["question"] for i in instances}) == 1780


def test_paper_dates():
    assert len(PAPER_EVAL_DATES) == 21 and PAPER_EVAL_DATES[0] == date(1960, 7, 1) \
        and PAPER_EVAL_DATES[-1] == date(2060, 7, 1)
    assert 21 * 1780 == 37380


def test_benchmark_package_is_pure():
    import subprocess
    import sys
    code = ("import sys, span_toolkit.span.benchmark, span_toolkit.span.benchmark.jsonl; "
            "bad = [m for m in sys.modules if m.startswith(('span_toolkit.server', 'span_toolkit.client'))]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
