"""The dateaug task family (DateAugBench, the Date Fragments paper): generation, gold, reading back,
the rules judge and the offline agents. Arithmetic gold is checked against python-dateutil (an
independent library), written forms against datetime.strftime."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import date

import pytest
from dateutil.relativedelta import relativedelta

from span_toolkit.span.benchmark.dateaug import FAMILY, formats as F, generate_dateaug, parse_dateaug, plan_dateaug
from span_toolkit.span.benchmark.dateaug.answer import arith_plan, baseline_answer, program, tool_calls
from span_toolkit.span.benchmark.dateaug.answer import answer_from_results
from span_toolkit.span.benchmark.dateaug.build import PERIODS, SWITCH_FORMATS, ARITH_FORMATS
from span_toolkit.span.benchmark.execute import run_code

EVAL = date(2025, 7, 1)


@pytest.fixture(scope="module")
def instances():
    return list(generate_dateaug(EVAL))


def test_counts_balance_periods_and_forms(instances):
    by_type = Counter(i["reasoning_type"] for i in instances)
    assert by_type == {"format_switch": 160, "date_arithmetic": 160}
    switch = [i for i in instances if i["reasoning_type"] == "format_switch"]
    for period in PERIODS:
        golds = Counter(i["gold"] for i in switch if i["variables"]["period"] == period)
        assert golds == {True: 20, False: 20}
    assert Counter(i["variables"]["near_miss"] for i in switch if not i["gold"]) == {
        "swap": 20, "off_by_one": 20, "neighbour_month": 20, "century": 20}
    assert {i["variables"]["period"] for i in instances} == set(PERIODS)
    forms = {f for i in instances for f in i["variables"]["formats"]}
    assert len(forms) >= 10 and set(SWITCH_FORMATS) | set(ARITH_FORMATS) == forms
    assert len({i["id"] for i in instances}) == len(instances)


def test_periods_hold_their_dates(instances):
    for i in instances:
        lo, hi = PERIODS[i["variables"]["period"]]
        assert lo <= date.fromisoformat(i["variables"]["dates"][0]).year <= hi


def test_deterministic_and_seeded():
    a = [i["id"] for i in generate_dateaug(EVAL)]
    assert a == [i["id"] for i in generate_dateaug(EVAL)]
    assert a != [i["id"] for i in generate_dateaug(EVAL, seed=1)]
    assert a != [i["id"] for i in generate_dateaug(date(2025, 7, 2))]


def test_arithmetic_gold_matches_dateutil(instances):
    for i in instances:
        if i["reasoning_type"] != "date_arithmetic":
            continue
        v = i["variables"]
        base = date.fromisoformat(v["dates"][0])
        n = v["n"] if v["direction"] == "after" else -v["n"]
        expected = base + relativedelta(**{v["unit"]: n})
        assert i["gold"]["date"] == expected.isoformat(), i["question"]
        assert run_code(i["code"]) == i["answer"]


def test_switch_gold_and_near_misses(instances):
    for i in instances:
        if i["reasoning_type"] != "format_switch":
            continue
        a, b = (date.fromisoformat(x) for x in i["variables"]["dates"])
        assert i["gold"] is (a == b)
        kind = i["variables"]["near_miss"]
        if kind == "swap":
            assert (b.year, b.month, b.day) == (a.year, a.day, a.month)
        elif kind == "off_by_one":
            assert abs((b - a).days) == 1
        elif kind == "neighbour_month":
            assert b.day == a.day and abs((b.year * 12 + b.month) - (a.year * 12 + a.month)) == 1
        elif kind == "century":
            assert (b.month, b.day) == (a.month, a.day) and abs(b.year - a.year) == 100


@pytest.mark.parametrize("fmt,pattern", [("iso", "%Y-%m-%d"), ("ymd_slash", "%Y/%m/%d"), ("ymd_dot", "%Y.%m.%d"),
                                         ("dmy_slash", "%d/%m/%Y"), ("mdy_slash", "%m/%d/%Y"),
                                         ("dmy_dash", "%d-%m-%Y"), ("dmy_dot", "%d.%m.%Y"),
                                         ("compact_ymd", "%Y%m%d"), ("compact_dmy", "%d%m%Y"),
                                         ("compact_mdy", "%m%d%Y"), ("day_month_name", "%-d %B %Y")])
def test_forms_match_strftime(fmt, pattern):
    for d in (date(1606, 10, 27), date(2025, 3, 4), date(2599, 12, 31)):
        assert F.render(d, fmt) == d.strftime(pattern)
        assert (d, fmt) in F.parse(F.render(d, fmt), F.note_of(fmt))


def test_questions_read_back(instances):
    for i in instances:
        q = parse_dateaug(i["question"])
        assert q.reasoning_type == i["reasoning_type"]
        assert q.readings[0][0][0].isoformat() == i["variables"]["dates"][0]


def test_ambiguous_option_lists_every_reading():
    insts = list(generate_dateaug(EVAL, ambiguous=True))
    amb = [i for i in insts if i["reasoning_type"] == "date_arithmetic" and i["variables"]["ambiguous"]]
    assert amb
    two = [i for i in amb if len(i["variables"]["readings"]) == 2]
    assert two, "some ambiguous base date has two readings"
    for i in two:
        assert "(M/D/YYYY)" not in i["question"] and "(MM/DD/YYYY)" not in i["question"]
        assert len(i["gold"]["variants"]) == 2
        for variant in i["gold"]["variants"]:   # the judge accepts every reading's answer
            assert FAMILY.judge(i, f"Final answer: {variant}").verdict == "CORRECT"
    # by default the note is kept
    assert all("(" in i["question"] for i in generate_dateaug(EVAL)
               if i["reasoning_type"] == "date_arithmetic" and i["variables"]["format"] != "iso")


def _arith(question: str, gold: str, fmt: str = "iso") -> dict:
    q = parse_dateaug(question)
    return {"reasoning_type": "date_arithmetic", "question": question, "gold": {"date": gold, "variants": [gold]},
            "variables": {"format": fmt, "formats": [fmt], "dates": [q.readings[0][0][0].isoformat()]}}


@pytest.mark.parametrize("answer,verdict", [
    ("Final answer: 1997-11-18", "CORRECT"),
    ("The date is November 18, 1997.", "CORRECT"),
    ("That is Tuesday, 18th of November, 1997", "CORRECT"),
    ("Final answer: Nov. 18 1997", "CORRECT"),
    ("Final answer: 18-Nov-1997", "CORRECT"),
    ("Final answer: **November 18th 1997**", "CORRECT"),
    ("Final answer: 11/18/1997", "CORRECT"),
    ("Final answer: 18.11.1997", "CORRECT"),
    ("Final answer: 19971118", "CORRECT"),
    ("Final answer: 1997-11-19", "INCORRECT"),
    ("Final answer: 30 February 1997", "INCORRECT"),
    ("It is 1997-11-18 or 1997-11-19.", "NOT_ATTEMPTED"),
    ("I cannot compute that.", "NOT_ATTEMPTED"),
    ("Counting 10,000 days back from 2025-04-05 gives 1997-11-18.", "CORRECT"),
    ("Final answer: 2025-04-05", "INCORRECT"),            # the base date copied
])
def test_judge_arithmetic(answer, verdict):
    inst = _arith('What date is 10,000 days before "2025-04-05"? Answer with the date.', "1997-11-18")
    assert FAMILY.judge(inst, answer).verdict == verdict


def test_judge_reads_day_month_order_of_the_question():
    inst = _arith('What date is 3 days after "01/03/2025" (DD/MM/YYYY)? Answer with the date.', "2025-03-04",
                  "dmy_slash")
    assert FAMILY.judge(inst, "Final answer: 04/03/2025").verdict == "CORRECT"
    inst = _arith('What date is 3 days after "03/01/2025" (MM/DD/YYYY)? Answer with the date.', "2025-03-04",
                  "mdy_slash")
    assert FAMILY.judge(inst, "Final answer: 03/04/2025").verdict == "CORRECT"
    assert FAMILY.judge(inst, "Final answer: 04/03/2025").verdict == "INCORRECT"


@pytest.mark.parametrize("answer,verdict", [("Yes, they are the same date.", "CORRECT"), ("Final answer: No", "INCORRECT"),
                                            ("They are different dates.", "INCORRECT"), ("Maybe.", "NOT_ATTEMPTED")])
def test_judge_switch(answer, verdict):
    inst = {"reasoning_type": "format_switch", "gold": True,
            "question": 'Are "20250314" (YYYYMMDD) and "March 14th, 2025" the same date? Answer Yes or No.'}
    assert FAMILY.judge(inst, answer).verdict == verdict


async def _tool(call: dict) -> dict:
    from span_toolkit.server import tools as T

    return (await getattr(T, call["name"])(**call["arguments"])).model_dump()


def _reference(question: str) -> str:
    q = parse_dateaug(question)
    return answer_from_results(q, [asyncio.run(_tool(c)) for c in tool_calls(q)])


def test_reference_agent_with_tools_and_program_on_a_date(instances):
    for i in instances:
        assert FAMILY.judge(i, _reference(i["question"])).verdict == "CORRECT", i["question"]
        out = {}
        exec(program(parse_dateaug(i["question"])), {"print": lambda x: out.setdefault("v", x)})  # noqa: S102
        assert FAMILY.judge(i, f"Final answer: {out['v']}").verdict == "CORRECT"


@pytest.mark.parametrize("base,n,unit,sign", [
    (date(1799, 12, 1), 100, "days", 1), (date(1800, 4, 1), 100, "days", -1), (date(1790, 6, 1), 9_000, "days", 1),
    (date(2099, 1, 15), 60, "days", 1), (date(2200, 3, 5), 10, "days", -1), (date(1700, 2, 27), 3, "days", 1),
    (date(2300, 8, 14), 156, "weeks", 1), (date(1650, 1, 28), 120, "months", 1), (date(2595, 5, 5), 10_000, "days", 1)])
def test_reference_agent_across_common_century_years(base, n, unit, sign):
    """The tools' window is 1900-2100: the agent moves dates by whole years; a step over 1700, 1800, 2100, ...
    is answered from two tool results (the step and one day more)."""
    question = f'What date is {n:,} {unit} {"after" if sign > 0 else "before"} "{base.isoformat()}"? Answer with the date.'
    expected = base + relativedelta(**{unit: sign * n})
    assert _reference(question) == f"Final answer: {expected.isoformat()}"
    s, _ = arith_plan(base, n, unit, sign)
    assert s % 4 == 0 or unit == "months"


def test_baseline_and_registry(instances):
    from span_toolkit.span.benchmark import families

    assert families.FAMILIES["dateaug"] is FAMILY
    sw = next(i for i in instances if i["reasoning_type"] == "format_switch")
    ar = next(i for i in instances if i["reasoning_type"] == "date_arithmetic")
    assert families.family_of(sw) is FAMILY
    assert families.parse_question(ar["question"]).reasoning_type == "date_arithmetic"
    assert baseline_answer(parse_dateaug(sw["question"])) == "Final answer: Yes"
    assert FAMILY.judge(ar, baseline_answer(parse_dateaug(ar["question"]))).verdict == "INCORRECT"
    assert families.judge_answer(ar, "Final answer: " + ar["answer"]).verdict == "CORRECT"
    raw, gold = families.execute_instance(ar)
    assert raw == ar["answer"] and gold == ar["gold"]


def test_plan_counts_match_build():
    planned = plan_dateaug(EVAL)
    assert len(planned) == FAMILY.per_date(None) == 320


def test_cross_calendar_option():
    """Beyond DateAugBench: a Hebrew / Islamic / Chinese lunar date in its own forms against a Gregorian one.
    Gold checked against pyluach (Hebrew) and convertdate.islamic (the tabular Islamic calendar)."""
    pyluach = pytest.importorskip("pyluach.dates")
    from convertdate import islamic

    insts = [i for i in generate_dateaug(EVAL, cross_calendar=True) if i["template_id"] == "format_switch_cross_calendar"]
    assert len(insts) == 60 and Counter(i["gold"] for i in insts) == {True: 30, False: 30}
    assert Counter(i["variables"]["calendar"] for i in insts) == {"hebrew": 20, "islamic": 20, "chinese_lunar": 20}
    assert FAMILY.per_date(type("R", (), {"dateaug_cross_calendar": True})()) == 380
    for i in insts:
        o = i["variables"]["other_date"]
        greg = date.fromisoformat(i["variables"]["dates"][1])
        if o["calendar"] == "hebrew":      # pyluach: Nisan = 1, as the core
            same = pyluach.HebrewDate(o["year"], o["month"], o["day"]).to_pydate() == greg
            assert i["gold"] is same
        elif o["calendar"] == "islamic":
            same = date(*islamic.to_gregorian(o["year"], o["month"], o["day"])) == greg
            assert i["gold"] is same
        assert FAMILY.judge(i, _reference(i["question"])).verdict == "CORRECT", i["question"]
        q = parse_dateaug(i["question"])
        assert q.readings[0] == ()            # the other calendar's date is not converted by the reader


def test_cross_calendar_program_uses_search_calendar():
    from span_toolkit.span.search import search_calendar

    inst = next(i for i in generate_dateaug(EVAL, cross_calendar=True) if i["variables"].get("calendar") == "chinese_lunar")
    code = program(parse_dateaug(inst["question"]))
    assert "search_calendar(" in code
    out = {}
    exec(code, {"search_calendar": search_calendar, "print": lambda x: out.setdefault("v", x)})  # noqa: S102
    assert FAMILY.judge(inst, f"Final answer: {out['v']}").verdict == "CORRECT"


def test_generate_command_writes_the_family(tmp_path, capsys):
    """The issue's acceptance: `span-client generate --date 2025-07-01 --families dateaug`."""
    import json

    from span_toolkit.client.cli import main as cli

    out = tmp_path / "d.jsonl"
    assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug", "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    by_type = Counter(r["reasoning_type"] for r in rows)
    assert by_type["format_switch"] >= 100 and by_type["date_arithmetic"] >= 100
    assert Counter(r["gold"] for r in rows if r["reasoning_type"] == "format_switch") == {True: 80, False: 80}
    assert {r["variables"]["period"] for r in rows} == set(PERIODS)
    assert len({f for r in rows for f in r["variables"]["formats"]}) >= 10
    bad = tmp_path / "bad.jsonl"
    assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug,nope", "--out", str(bad)]) == 2
    assert not bad.exists() and "valid families" in capsys.readouterr().err


def test_judge_ambiguous_question_accepts_an_answer_in_the_other_order():
    """Review of #29: an ambiguous base date ("2/7/2002", no pattern note) read as D/M gives an answer a model
    naturally writes in D/M order too ("2/11/2003" = 2 November 2003, a gold variant). The question's own
    M/D form must not decide the order of that answer: either reading is accepted."""
    q = 'What date is 16 months after "2/7/2002"? Answer with the date.'
    gold = ["2003-06-07", "2003-11-02"]
    inst = {"reasoning_type": "date_arithmetic", "question": q, "gold": {"date": gold[0], "variants": gold},
            "variables": {"format": "mdy_minimal", "formats": ["mdy_minimal"], "dates": ["2002-02-07"],
                          "ambiguous": True, "readings": ["2002-02-07", "2002-07-02"]}}
    assert FAMILY.judge(inst, "Final answer: 2/11/2003").verdict == "CORRECT"      # D/M reading, D/M answer
    assert FAMILY.judge(inst, "Final answer: 6/7/2003").verdict == "CORRECT"       # M/D reading, M/D answer
    assert FAMILY.judge(inst, "Final answer: 2/12/2003").verdict == "INCORRECT"    # neither reading's answer
    # the paper's gold form, every reading's answer listed, is no hedge: each listed date is a gold variant
    assert FAMILY.judge(inst, "Final answer: 7 June 2003 or 2 November 2003").verdict == "CORRECT"
    assert FAMILY.judge(inst, "Final answer: 2003-06-07; 2003-11-02").verdict == "CORRECT"
    assert FAMILY.judge(inst, "Final answer: 7 June 2003 or 3 November 2003").verdict == "NOT_ATTEMPTED"
    # with the note kept the order is the question's: the same answer is read M/D and is wrong
    noted = dict(inst, question=q.replace('"? ', '" (M/D/YYYY)? '), gold={"date": gold[0], "variants": gold[:1]},
                 variables=dict(inst["variables"], ambiguous=False, readings=["2002-02-07"]))
    assert FAMILY.judge(noted, "Final answer: 2/11/2003").verdict == "INCORRECT"
    assert FAMILY.judge(noted, "Final answer: 7 June 2003 or 2 November 2003").verdict == "NOT_ATTEMPTED"


def test_family_options_unknown_or_not_boolean_are_one_line_errors(tmp_path, capsys):
    """Review of #29: an unknown dateaug option (a typo) or a value that is not true/false was silently ignored
    or read as true ("maybe"); now one line naming the valid options, and nothing written."""
    from span_toolkit.client.cli import main as cli

    for opt in ("dateaug_ambigous", "dateaug_ambiguous=maybe", "dateaug_cross_calendar=2"):
        out = tmp_path / "x.jsonl"
        assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug", "--family-option", opt,
                    "--out", str(out)]) == 2, opt
        err = capsys.readouterr().err.strip()
        assert not out.exists() and len(err.splitlines()) == 1, (opt, err)
        assert "dateaug_ambiguous" in err and "dateaug_cross_calendar" in err, err
    out = tmp_path / "ok.jsonl"
    assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug", "--family-option",
                "dateaug_ambiguous=false", "--out", str(out)]) == 0
    assert not any('"ambiguous":true' in x for x in out.read_text().splitlines())


def test_cross_calendar_option_refuses_umm_al_qura(tmp_path, capsys):
    """Review of #29: with --islamic-convention umm_al_qura the cross-calendar option still wrote tabular
    Islamic dates under the plain name "Islamic date" (the rest of the benchmark then names and computes
    Umm al-Qura): a gold other than the convention asked for. Now one line, nothing written."""
    from span_toolkit.client.cli import main as cli

    out = tmp_path / "x.jsonl"
    assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug", "--islamic-convention", "umm_al_qura",
                "--family-option", "dateaug_cross_calendar", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tabular" in err[0] and not out.exists()
    assert cli(["generate", "--date", "2025-07-01", "--families", "dateaug", "--islamic-convention", "umm_al_qura",
                "--out", str(out)]) == 0                         # the option off: nothing Islamic in the family
