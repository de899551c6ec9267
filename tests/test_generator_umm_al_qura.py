"""islamic_convention="umm_al_qura" (issue 15 item 4): the paper's 12 templates with every Islamic side on
Saudi Arabia's civil calendar. The default (tabular) output stays byte-identical; the Umm al-Qura gold is
re-derived here through hijridate's own API and datetime, not through span's conversions."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta

import pytest
from convertdate import islamic
from hijridate import Gregorian, Hijri

import span_toolkit.span.benchmark.paper.build as gen
from span_toolkit.span import CalendarDate, festivals, search_calendar, shift_date
from span_toolkit.span.benchmark import (INSTANCES_PER_DATE, GoldMismatchError, PAPER_EVAL_DATES, UQ_MAX_EVAL_DATE, UQ_MIN_EVAL_DATE,
                            GenerationRequest, GeneratorError, ParsedQuestion, execute_instance, generate_instances, generate_many,
                            generate_sample, parse_dates_spec, parse_eval_date, parse_question, sample_instances)
from span_toolkit.span.benchmark.jsonl import encode, iter_lines
from tests.fakes.helpers import jsonl_sha256

UQ = "islamic_umm_al_qura"
EVAL = date(2025, 7, 1)


@pytest.fixture(scope="module")
def tabular() -> list[dict]:
    return list(generate_instances(EVAL))


@pytest.fixture(scope="module")
def uq() -> list[dict]:
    return list(generate_instances(EVAL, islamic_convention="umm_al_qura"))


# ---------------------------------------------------------------------------------------------
# The default stays the paper's protocol, byte for byte
# ---------------------------------------------------------------------------------------------

# sha256 of the JSON lines (each + "\n", span.benchmark.jsonl.encode) as the generator wrote them before
# the option existed (measured with the previous generate.py/templates.py/formats.py on the same core).
BEFORE = {
    "default 2025-07-01": "85e34ed56b6992f243908b12173a30e93d62def209b4bd37d91448369de4a2b4",
    "negatives+formats 1990-07-01 seed 5": "2b2b8393aad3969ec3051c8f45e69511d5ff629758f37851ba6ea5e294a0c862",
    "negatives 1930-01-01": "b848c20cb3766495294b6819caa4cd14bd196434a6d1cf58669f5cbb74d8716f",
}


def test_default_output_is_unchanged(tabular):
    assert jsonl_sha256(tabular) == BEFORE["default 2025-07-01"]
    assert jsonl_sha256(generate_instances(EVAL, islamic_convention="tabular")) == BEFORE["default 2025-07-01"]
    assert jsonl_sha256(generate_instances(date(1990, 7, 1), polar_negatives=True, date_formats=True, seed=5,
                                   islamic_convention="tabular")) == BEFORE["negatives+formats 1990-07-01 seed 5"]
    # the tabular near-miss "umm_al_qura" now comes from the core's module: same instances as before
    assert jsonl_sha256(generate_instances(date(1930, 1, 1), polar_negatives=True)) == BEFORE["negatives 1930-01-01"]
    assert all("islamic_convention" not in i["variables"] for i in tabular)


def test_iter_lines_passes_the_option_only_when_asked(uq):
    assert list(iter_lines([EVAL], GenerationRequest(islamic_convention="tabular"))) == list(iter_lines([EVAL]))
    assert list(iter_lines([EVAL], GenerationRequest(islamic_convention="umm_al_qura"))) == [encode(i) for i in uq]
    with pytest.raises(GeneratorError, match="tabular or umm_al_qura"):
        GenerationRequest(islamic_convention="saudi")


# ---------------------------------------------------------------------------------------------
# Shape: counts, calendars, ids, wording, code
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [UQ_MIN_EVAL_DATE, date(1960, 7, 1), UQ_MAX_EVAL_DATE], ids=str)
def test_counts_per_date(d):
    got = list(generate_instances(d, islamic_convention="umm_al_qura"))
    assert len(got) == INSTANCES_PER_DATE == 1780
    pairs = Counter((i["source_calendar"], i["target_calendar"]) for i in got)
    assert pairs[("gregorian", UQ)] == 220 and pairs[(UQ, "gregorian")] == 160
    assert not any("islamic" in (i["source_calendar"], i["target_calendar"]) for i in got)
    assert Counter(i["reasoning_type"] for i in got) == {"date": 800, "festival": 980}


def test_same_protocol_with_only_the_islamic_side_swapped(tabular, uq):
    assert len(uq) == len(tabular)
    swapped = 0
    for t, u in zip(tabular, uq):
        assert u["variables"]["islamic_convention"] == "umm_al_qura"
        assert u["template_id"] == t["template_id"] and u["variables"]["offset"] == t["variables"]["offset"]
        if "islamic" in (t["source_calendar"], t["target_calendar"]):
            swapped += 1
            assert {u["source_calendar"], u["target_calendar"]} == {"gregorian", UQ}
            assert u["direction"] == t["direction"]
        else:   # nothing Islamic about it: the same question, code and gold under either convention
            for k in ("question", "code", "answer", "gold", "source_calendar", "target_calendar"):
                assert u[k] == t[k], k
    assert swapped == 380
    ids = [i["id"] for i in uq]
    assert len(set(ids)) == len(ids) and not set(ids) & {i["id"] for i in tabular}
    assert ids == [i["id"] for i in generate_instances(EVAL, islamic_convention="umm_al_qura")]  # deterministic


def test_reference_dates_are_the_saudi_dates(uq):
    # 2025-07-01 is 6 Muharram 1447 in Umm al-Qura (5 Muharram in the tabular calendar)
    h = Gregorian(2025, 7, 1).to_hijri()
    refs = {i["variables"]["reference_text"] for i in uq if i["source_calendar"] == UQ}
    assert refs == {f"{h.day} Muharram {h.year}"} == {"6 Muharram 1447"}


def test_wording_names_the_convention(uq):
    for i in uq:
        q = i["question"]
        assert "Islamic calendar" not in q and 'Islamic festival' not in q
        if UQ in (i["source_calendar"], i["target_calendar"]):
            assert "the Islamic (Umm al-Qura) calendar" in q
    fest = {re.search(r'festival "([^"]+)"', i["question"]).group(1) for i in uq
            if i["source_calendar"] == UQ and i["reasoning_type"] == "festival"}
    assert fest == {"Hijri New Year", "Isra and Mi'raj", "Eid al-Fitr", "Eid al-Adha"}
    assert {i["variables"]["festival"] for i in uq if i["source_calendar"] == UQ and i["reasoning_type"] == "festival"} \
        == {f + " (Umm al-Qura)" for f in fest}


def test_code_uses_the_umm_al_qura_calendar(uq):
    for i in uq:
        code = i["code"]
        assert 'calendar="islamic"' not in code and "islamic_date" not in code
        if i["target_calendar"] == UQ:
            assert 'targets=["islamic_umm_al_qura"]' in code and 'calendar.get("islamic_umm_al_qura_date")' in code
        if i["source_calendar"] == UQ:
            assert 'calendar="islamic_umm_al_qura"' in code


# ---------------------------------------------------------------------------------------------
# Gold: executed code, and an independent derivation through hijridate's API
# ---------------------------------------------------------------------------------------------

def _uq_to_greg(y: int, m: int, d: int) -> date:
    return Hijri(y, m, d).to_gregorian()


def _oracle(inst: dict) -> tuple[str, tuple[int, int, int]]:
    """(calendar, (y, m, d)) of the answer, from hijridate and datetime only (no span conversion)."""
    v = inst["variables"]
    ref = v["reference_date"]
    sign = -1 if v["sense"] == "ago" else 1
    if inst["reasoning_type"] == "date":
        step = timedelta(**{v["unit"]: sign * v["offset"]})
        start = (date(ref["year"], ref["month"], ref["day"]) if ref["calendar"] == "gregorian"
                 else _uq_to_greg(ref["year"], ref["month"], ref["day"]))
        day = start + step
    elif ref["calendar"] == UQ:
        f = festivals.find(v["festival"], UQ)
        day = _uq_to_greg(ref["year"] + sign * v["offset"], f.month, f.day)
    else:
        f = festivals.find(v["festival"], "gregorian")
        day = date(ref["year"] + sign * v["offset"], f.month, f.day)
    if inst["target_calendar"] == "gregorian":
        return "gregorian", (day.year, day.month, day.day)
    h = Gregorian(day.year, day.month, day.day).to_hijri()
    return UQ, (h.year, h.month, h.day)


@pytest.mark.parametrize("kwargs", [{"d": EVAL}, {"d": date(1960, 7, 1), "polar_negatives": True, "seed": 4},
                                    {"d": UQ_MAX_EVAL_DATE, "polar_negatives": True}], ids=str)
def test_gold_is_what_the_code_computes_and_matches_hijridate(kwargs):
    d = kwargs.pop("d")
    n = no = 0
    for inst in generate_instances(d, islamic_convention="umm_al_qura", **kwargs):
        if UQ not in (inst["source_calendar"], inst["target_calendar"]):
            continue
        raw, gold = execute_instance(inst, search_calendar)   # the plain paper interface, no cache
        assert gold == inst["gold"], inst["id"]
        cal, truth = _oracle(inst)
        if inst["question_format"] == "content":
            assert (gold["calendar"], (gold["year"], gold["month"], gold["day"])) == (cal, truth), inst["id"]
            assert inst["answer"] == CalendarDate.from_dict(gold).display()
        else:
            exp = inst["variables"]["expected_date"]
            assert gold == ((exp["calendar"], (exp["year"], exp["month"], exp["day"])) == (cal, truth)), inst["id"]
            no += gold is False
        n += 1
    assert n == 380
    if kwargs.get("polar_negatives"):
        assert no > 50


def test_negatives_include_the_other_conventions_answer():
    """The near miss "tabular_islamic": the answer day's tabular Islamic numbers, offered as Umm al-Qura."""
    seen = 0
    for i in generate_instances(date(2000, 7, 1), islamic_convention="umm_al_qura", polar_negatives=True, seed=1):
        if i["variables"].get("near_miss") != "tabular_islamic":
            continue
        assert i["target_calendar"] == UQ and i["gold"] is False and i["answer"] == "No"
        exp = i["variables"]["expected_date"]
        _, (y, m, d) = _oracle(i)
        day = Hijri(y, m, d).to_gregorian()
        assert (exp["calendar"], (exp["year"], exp["month"], exp["day"])) == \
            (UQ, islamic.from_gregorian(day.year, day.month, day.day)) != (UQ, (y, m, d))
        seen += 1
    assert seen > 5


def test_mismatch_with_the_core_stops_generation(monkeypatch):
    real = gen._direct_answer

    def off_by_one(ctx, spec):
        d = real(ctx, spec)
        return CalendarDate.from_ordinal(d.calendar, d.ordinal + 1) if UQ in (spec.source, spec.target) else d

    monkeypatch.setattr(gen, "_direct_answer", off_by_one)
    with pytest.raises(GoldMismatchError, match="islamic_umm_al_qura"):
        list(generate_instances(EVAL, islamic_convention="umm_al_qura"))


def test_extended_tasks_are_not_affected_by_the_convention(uq):
    both = list(generate_instances(EVAL, islamic_convention="umm_al_qura", families=("paper", "extended")))
    assert [encode(i) for i in both[:1780]] == [encode(i) for i in uq]
    assert [encode(i) for i in both[1780:]] == [encode(i) for i in generate_instances(EVAL, families=("paper", "extended"))][1780:]


# ---------------------------------------------------------------------------------------------
# Range and bad options
# ---------------------------------------------------------------------------------------------

def test_out_of_range_dates_name_the_umm_al_qura_range():
    for d in (UQ_MIN_EVAL_DATE - timedelta(days=1), UQ_MAX_EVAL_DATE + timedelta(days=1), date(2080, 7, 1)):
        with pytest.raises(GeneratorError) as e:
            next(generate_instances(d, islamic_convention="umm_al_qura"))
        msg = str(e.value)
        assert "\n" not in msg and "1930-01-01 .. 2071-12-31" in msg and "umm_al_qura" in msg
        assert "1343-1500 AH" in msg
    with pytest.raises(GeneratorError, match="1930-01-01 .. 2071-12-31"):
        parse_dates_spec("2070-07-01..2075-07-01/1y", islamic_convention="umm_al_qura")
    with pytest.raises(GeneratorError, match="1930-01-01 .. 2071-12-31"):
        parse_eval_date("1929-12-31", islamic_convention="umm_al_qura")
    assert parse_dates_spec("paper", islamic_convention="umm_al_qura") == list(PAPER_EVAL_DATES)
    assert parse_eval_date("2080-07-01") == date(2080, 7, 1)   # fine under the paper's convention


def test_range_bounds_are_tight(monkeypatch):
    """Each bound is the last day whose instances all exist: one day further, some instance's code fails."""
    import span_toolkit.span.benchmark.evaldates as evaldates
    monkeypatch.setattr(evaldates, "UQ_MIN_EVAL_DATE", date(1920, 1, 1))
    monkeypatch.setattr(evaldates, "UQ_MAX_EVAL_DATE", date(2080, 1, 1))
    for inside, outside in ((UQ_MIN_EVAL_DATE, UQ_MIN_EVAL_DATE - timedelta(days=1)),
                            (UQ_MAX_EVAL_DATE, UQ_MAX_EVAL_DATE + timedelta(days=1))):
        assert sum(1 for _ in generate_instances(inside, islamic_convention="umm_al_qura")) == 1780
        with pytest.raises(Exception, match="outside the Umm al-Qura calendar's range"):
            list(generate_instances(outside, islamic_convention="umm_al_qura"))


@pytest.mark.parametrize("bad", ["umm al-qura", "Tabular", "", None, 1])
def test_bad_convention(bad):
    with pytest.raises(GeneratorError, match=r"unknown islamic_convention .*valid: tabular or umm_al_qura"):
        next(generate_instances(EVAL, islamic_convention=bad))


# ---------------------------------------------------------------------------------------------
# Formats, sampling, parsing, answering from the question alone
# ---------------------------------------------------------------------------------------------

def test_sample_streams_like_the_full_set():
    days = [date(1990, 7, 1), EVAL]
    opts = {"islamic_convention": "umm_al_qura", "polar_negatives": True, "date_formats": True, "seed": 2}
    streamed = list(generate_sample(days, 150, **opts))
    assert [encode(i) for i in streamed] == [encode(i) for i in sample_instances(generate_many(days, **opts), 150, seed=2)]
    assert Counter(f"{i['source_calendar']}->{i['target_calendar']}" for i in streamed)[f"{UQ}->gregorian"] == 15


def _answer_from_question(q: ParsedQuestion) -> CalendarDate:
    """What a tool-using agent computes from the parsed question alone, with the core's tools."""
    ref = q.reference_date
    if q.reasoning_type == "date":
        return shift_date(ref, **{q.unit: q.sign * q.offset}).date.to(q.target_calendar)
    result = search_calendar(calendar=q.source_calendar, year=ref.year + q.sign * q.offset,
                             festival_name=q.festival, targets=[q.target_calendar])
    key = "gregorian_date" if q.target_calendar == "gregorian" else f"{q.target_calendar}_date"
    y, m, d = map(int, result[key].split("-"))
    return CalendarDate.create(q.target_calendar, y, m, d)


def test_every_question_parses_back_and_suffices_to_answer():
    n = 0
    for i in generate_instances(date(2040, 7, 1), islamic_convention="umm_al_qura", polar_negatives=True,
                                date_formats=True, seed=3):
        q = parse_question(i["question"])
        v = i["variables"]
        assert (q.source_calendar, q.target_calendar, q.template_id, q.offset, q.festival, q.date_format) == \
            (i["source_calendar"], i["target_calendar"], i["template_id"], v["offset"], v["festival"], v["date_format"])
        assert q.reference_date.as_dict() == v["reference_date"]
        if UQ not in (i["source_calendar"], i["target_calendar"]):
            continue
        got = _answer_from_question(q)
        if i["question_format"] == "content":
            assert got.as_dict() == i["gold"], i["question"]
        else:
            assert (got == q.expected_date) is i["gold"], i["question"]
        n += 1
    assert n > 380   # every rendering of the Umm al-Qura reference dates too


# ---------------------------------------------------------------------------------------------
# The offline reference agent and the rules judge on Umm al-Qura instances
# ---------------------------------------------------------------------------------------------

def _uq_sample(target: str) -> list[dict]:
    items = generate_sample([EVAL, date(1960, 7, 1)], 400, seed=5, islamic_convention="umm_al_qura",
                            polar_negatives=True)
    return [i for i in items if i["target_calendar"] == target and UQ in (i["source_calendar"], i["target_calendar"])]


def _reference_run(tmp_path, items) -> tuple[int, list[dict]]:
    from span_toolkit.client.cli import main
    from tests.fakes.helpers import read_results, write_jsonl

    f = write_jsonl(tmp_path / "i.jsonl", items)
    out = tmp_path / "ref"
    rc = main(["eval", "--model", "reference", "--with-tools", "--instances", str(f), "--out", str(out), "--quiet",
               "--concurrency", "8"])
    return rc, read_results(out / "results.jsonl")


def test_reference_agent_answers_umm_al_qura_questions_with_the_tools(tmp_path):
    """Umm al-Qura -> Gregorian: the agent calls the real span-server (stdio) with calendar
    "islamic_umm_al_qura" and the rules judge scores every answer CORRECT."""
    items = _uq_sample("gregorian")
    assert len(items) >= 30 and Counter(i["reasoning_type"] for i in items).keys() == {"date", "festival"}
    rc, lines = _reference_run(tmp_path, items)
    assert rc == 0 and len(lines) == len(items)
    assert [(l["question"], l["error"]) for l in lines if l["correct"] is not True] == []
    assert all(l["tool_calls"][0]["arguments"]["calendar"] == UQ for l in lines)


def test_reference_agent_answers_questions_whose_target_is_umm_al_qura(tmp_path):
    items = _uq_sample(UQ)[:10]
    rc, lines = _reference_run(tmp_path, items)
    assert rc == 0 and len(lines) == len(items) and all(l["correct"] is True for l in lines)


def test_rules_judge_reads_umm_al_qura_answers_in_display_form(uq):
    from span_toolkit.client.judges.rules import judge_answer

    for i in uq:
        if i["target_calendar"] == UQ:
            assert judge_answer(i, f"Final answer: {i['answer']}").verdict == "CORRECT", i["question"]
            if i["question_format"] == "content":
                gold = CalendarDate.from_dict(i["gold"])
                tab = gold.to("islamic")   # the other convention's numbers
                if (tab.year, tab.month, tab.day) != (gold.year, gold.month, gold.day):
                    assert judge_answer(i, f"Final answer: {tab.display()}").verdict == "INCORRECT"


def test_rules_judge_accepts_a_hijri_label_on_an_umm_al_qura_answer(uq):
    from span_toolkit.client.judges.rules import judge_answer

    inst = next(i for i in uq if i["target_calendar"] == UQ and i["question_format"] == "content")
    assert judge_answer(inst, f"Final answer: {inst['answer']} AH").verdict == "CORRECT"
