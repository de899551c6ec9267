"""The opt-in ordering and duration tasks (issue 15 item 3): generation, balance, gold, parsing,
answering from tool results, and the rules judge for them."""

from __future__ import annotations

from collections import Counter
from datetime import date
from functools import lru_cache
from itertools import permutations

import pytest
from convertdate import hebrew, indian_civil, islamic, persian
from lunarcalendar import Converter, Lunar

from span_toolkit.span import CalendarDate, search_calendar, search_calendar_entry
from span_toolkit.span.benchmark import (MAX_EVAL_DATE, MIN_EVAL_DATE, GoldMismatchError, ParsedQuestion, QuestionParseError,
                            generate_instances, generate_many, generate_sample, parse_question, sample_instances)
from span_toolkit.span.benchmark.execute import run_code
from span_toolkit.span.benchmark.extended import (EXTENDED_PER_DATE, TEMPLATE_COUNTS, ParsedExtendedQuestion, answer_extended,
                                     answer_from_results, execute_extended, final_answer_text, generate_extended,
                                     judge_extended, judge_extended_detail, tool_calls)
from span_toolkit.span.benchmark.extended import build as _build
from span_toolkit.span.benchmark.jsonl import encode
from tests.fakes.helpers import jsonl_sha256

EVAL = date(2025, 7, 1)
# sha256 of the 1,780 JSON lines (each + "\n") that the generator produced for 2025-07-01 before the
# extended tasks existed (commit 0695e05, measured with span.benchmark.jsonl.encode).
PAPER_2025_SHA256 = "85e34ed56b6992f243908b12173a30e93d62def209b4bd37d91448369de4a2b4"


@pytest.fixture(scope="module")
def ext() -> list[dict]:
    return list(generate_extended(EVAL))


def _by_template(instances, tid):
    return [i for i in instances if i["template_id"] == tid]


# ---------------------------------------------------------------------------------------------
# Opt-in: the paper's output is untouched
# ---------------------------------------------------------------------------------------------

def test_default_output_is_byte_identical_to_the_pinned_paper_output():
    assert jsonl_sha256(generate_instances(EVAL)) == PAPER_2025_SHA256
    assert jsonl_sha256(generate_instances(EVAL, families=("paper",))) == PAPER_2025_SHA256


def test_extended_appends_after_the_unchanged_paper_instances(ext):
    both = list(generate_instances(EVAL, families=("paper", "extended")))
    assert len(both) == 1780 + EXTENDED_PER_DATE
    assert jsonl_sha256(both[:1780]) == PAPER_2025_SHA256
    assert [encode(i) for i in both[1780:]] == [encode(i) for i in ext]


def test_streaming_sample_includes_the_extended_tasks():
    days = [date(1990, 7, 1), EVAL]
    streamed = list(generate_sample(days, 120, seed=3, families=("paper", "extended")))
    assert [encode(i) for i in streamed] == [encode(i) for i in
                                             sample_instances(generate_many(days, families=("paper", "extended"), seed=3), 120, seed=3)]
    kinds = Counter(i["reasoning_type"] for i in streamed)
    # 12 top-level strata (10 paper directions, ordering, duration): 10 each
    assert kinds["ordering"] == kinds["duration"] == 10 and kinds["date"] + kinds["festival"] == 100


# ---------------------------------------------------------------------------------------------
# Counts, schema, determinism
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [MIN_EVAL_DATE, date(1960, 7, 1), EVAL, date(2060, 7, 1), MAX_EVAL_DATE])
def test_counts_per_date_across_the_supported_range(d):
    got = list(generate_extended(d))
    counts = Counter(i["template_id"] for i in got)
    assert counts == Counter(TEMPLATE_COUNTS)
    by_type = Counter(i["reasoning_type"] for i in got)
    assert by_type == {"ordering": 202, "duration": 142}
    assert len({i["id"] for i in got}) == len(got)


def test_instance_fields_match_the_paper_schema(ext):
    paper = next(iter(generate_instances(EVAL)))
    for inst in ext:
        assert list(inst) == list(paper)
        assert inst["direction"] == "cross_calendar"
        assert inst["eval_date"] == "2025-07-01"
        items = inst["variables"]["items"]
        assert [it["label"] for it in items] == ["A", "B", "C"][:len(items)]
        assert inst["source_calendar"] == items[0]["calendar"] and inst["target_calendar"] == items[1]["calendar"]
        assert len({it["calendar"] for it in items}) == len(items)        # different calendars
        assert len({it["offset_days"] for it in items}) == len(items)     # different days
        if inst["reasoning_type"] == "ordering":
            assert inst["question_format"] == "choice"
            assert inst["gold"]["first"] == inst["gold"]["order"][0]
            assert inst["answer"] == (inst["gold"]["first"] if len(items) == 2 else ", ".join(inst["gold"]["order"]))
        else:
            assert inst["question_format"] == "numeric"
            assert inst["answer"] == str(inst["gold"]["days"]) and inst["gold"]["days"] > 0


def test_deterministic_and_ids_stable(ext):
    again = list(generate_extended(EVAL))
    assert [encode(i) for i in again] == [encode(i) for i in ext]
    other_seed = list(generate_extended(EVAL, seed=1))
    assert {i["id"] for i in other_seed} != {i["id"] for i in ext}
    # an id is a function of the question's content: the same question under another seed keeps it
    common = {i["question"]: i["id"] for i in ext}.items() & {i["question"]: i["id"] for i in other_seed}.items()
    assert all(i["id"] == dict(common).get(i["question"], i["id"]) for i in other_seed)


def test_items_are_anchored_to_the_evaluation_date(ext):
    for inst in _by_template(ext, "ordering_two_dates") + _by_template(ext, "duration_dates"):
        assert all(abs(it["offset_days"]) <= 365 + 730 for it in inst["variables"]["items"])
    for inst in ext:
        for it in inst["variables"]["items"]:
            if it["kind"] == "festival":   # the year of its own calendar that holds the evaluation date
                today = CalendarDate.create("gregorian", 2025, 7, 1).to(it["calendar"])
                assert it["year"] == today.year


# ---------------------------------------------------------------------------------------------
# Balance
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [EVAL, date(1960, 7, 1)])
def test_answers_are_balanced(d):
    got = list(generate_extended(d))
    for tid in ("ordering_two_dates", "ordering_two_festivals", "ordering_two_mixed"):
        firsts = Counter(i["gold"]["first"] for i in _by_template(got, tid))
        assert firsts["A"] == firsts["B"] == TEMPLATE_COUNTS[tid] // 2, (tid, firsts)
    three = _by_template(got, "ordering_three")
    orders = Counter(tuple(i["gold"]["order"]) for i in three)
    assert set(orders) == set(permutations("ABC")) and set(orders.values()) == {10}
    assert set(Counter(i["gold"]["first"] for i in three).values()) == {20}
    for tid in ("duration_dates", "duration_festivals", "duration_mixed"):
        earlier_first = sum(i["variables"]["items"][0]["offset_days"] < i["variables"]["items"][1]["offset_days"]
                            for i in _by_template(got, tid))
        assert earlier_first == TEMPLATE_COUNTS[tid] // 2, tid


def test_duration_magnitudes_cover_the_gap_classes(ext):
    days = [i["gold"]["days"] for i in _by_template(ext, "duration_dates")]
    for lo, hi in _build.DURATION_GAPS:
        assert sum(lo <= n <= hi for n in days) == 15


# ---------------------------------------------------------------------------------------------
# Gold: the code, an independent oracle (the paper's libraries), and the mismatch check
# ---------------------------------------------------------------------------------------------

# The paper's festivals (Appendix A) as fixed (month, day) in their own calendar, written out here
# rather than read from span.festivals.
PAPER_FESTIVAL_RULES = {
    "New Year's Day": (1, 1), "Valentine's Day": (2, 14), "International Women's Day": (3, 8),
    "International Workers' Day": (5, 1), "International Children's Day": (6, 1), "Halloween": (10, 31),
    "Christmas Day": (12, 25), "Chinese New Year": (1, 1), "Lantern Festival": (1, 15),
    "Dragon Boat Festival": (5, 5), "Chinese Valentine's Day": (7, 7), "Ghost Festival": (7, 15),
    "Mid-Autumn Festival": (8, 15), "Hijri New Year": (1, 1), "Isra and Mi'raj": (7, 27), "Eid al-Fitr": (10, 1),
    "Eid al-Adha": (12, 10), "Persian New Year": (1, 1), "Sizdah Be-dar": (1, 13), "Tirgan Festival": (4, 13),
    "Mehregan Festival": (7, 16),
}


def _oracle_day(item: dict) -> date:
    """The item's Gregorian day from convertdate / LunarCalendar (the paper's libraries, not span's
    calendars)."""
    cal = item["calendar"]
    if item["kind"] == "festival":
        (m, dd), y, leap = PAPER_FESTIVAL_RULES[item["festival"]], item["year"], False
    else:
        y, m, dd, leap = (item["date"][k] for k in ("year", "month", "day", "is_leap_month"))
    if cal == "gregorian":
        return date(y, m, dd)
    if cal == "chinese_lunar":
        s = Converter.Lunar2Solar(Lunar(y, m, dd, isleap=leap))
        return date(s.year, s.month, s.day)
    if cal == "persian":   # convertdate finds each year's equinox (slow): its Nowruz, then the fixed month lengths
        return date.fromordinal(_nowruz(y) + (m - 1) * 31 - max(0, m - 7) + dd - 1)
    mod = {"islamic": islamic, "hebrew": hebrew, "shaka": indian_civil}[cal]
    return date(*mod.to_gregorian(y, m, dd))


@lru_cache(maxsize=None)
def _nowruz(year: int) -> int:
    return date(*persian.to_gregorian(year, 1, 1)).toordinal()


def test_gold_agrees_with_the_papers_libraries(ext):
    for inst in ext:
        days = [_oracle_day(it).toordinal() for it in inst["variables"]["items"]]
        labels = [it["label"] for it in inst["variables"]["items"]]
        if inst["reasoning_type"] == "duration":
            assert inst["gold"]["days"] == abs(days[1] - days[0]), inst["id"]
        else:
            assert inst["gold"]["order"] == sorted(labels, key=lambda lab: days[labels.index(lab)]), inst["id"]


def test_code_reexecuted_with_the_plain_search_gives_the_gold(ext):
    for inst in ext[::7]:
        raw, gold = execute_extended(inst, search=search_calendar)
        assert gold == inst["gold"] and str(raw) == inst["answer"]
        assert "search_calendar(" in inst["code"] or "datetime(" in inst["code"]


def test_code_uses_the_papers_interface(ext):
    inst = next(i for i in _by_template(ext, "ordering_two_festivals"))
    assert 'event="' in inst["code"] and 'calendar.get("gregorian_date")' in inst["code"]
    assert inst["code"].startswith("from datetime import datetime\n")


def test_a_wrong_conversion_is_caught(monkeypatch):
    def off_by_one(*args, **kwargs):
        out = search_calendar(*args, **kwargs)
        y, m, d = map(int, out["gregorian_date"].split("-"))
        shifted = date.fromordinal(date(y, m, d).toordinal() + 1)
        out["gregorian_date"] = f"{shifted.year}-{shifted.month}-{shifted.day}"
        return out
    with pytest.raises(GoldMismatchError, match="code gives"):
        list(generate_extended(EVAL, search=off_by_one))


def test_code_leaving_a_bad_answer_is_rejected():
    with pytest.raises(GoldMismatchError, match="ordering code must leave"):
        _build.gold_of("ordering", "A, A, B")
    with pytest.raises(GoldMismatchError, match="non-negative int"):
        _build.gold_of("duration", -3)
    assert run_code('answer = "B"') == "B"


# ---------------------------------------------------------------------------------------------
# Parsing and answering with tools (what the reference agent does)
# ---------------------------------------------------------------------------------------------

def test_every_question_parses_back_to_its_items(ext):
    for inst in ext:
        p = parse_question(inst["question"])
        assert isinstance(p, ParsedExtendedQuestion)
        assert p.reasoning_type == inst["reasoning_type"] and p.template_id == inst["template_id"]
        assert p.question_format == inst["question_format"] and p.direction == inst["direction"]
        assert (p.source_calendar, p.target_calendar) == (inst["source_calendar"], inst["target_calendar"])
        want = [{k: v for k, v in it.items() if k not in ("label", "offset_days")} for it in inst["variables"]["items"]]
        assert [i.as_dict() for i in p.items] == want


def test_answering_from_search_calendar_results_reaches_100_percent(ext):
    for inst in ext:
        p = parse_question(inst["question"])
        results = [search_calendar_entry(**c["arguments"]).model_dump(mode="json") for c in tool_calls(p)]
        assert all(c["name"] == "search_calendar" for c in tool_calls(p))
        text = final_answer_text(answer_from_results(p, results))
        assert judge_extended(inst, text) == "CORRECT", (inst["question"], text)


def test_answer_extended_accepts_any_converter(ext):
    inst = _by_template(ext, "ordering_three")[0]
    p = parse_question(inst["question"])
    assert answer_extended(p, lambda item: item.resolve()) == inst["answer"]
    assert answer_extended(p, lambda item: item.resolve().to_date()) == inst["answer"]
    assert answer_extended(p, lambda item: search_calendar(**item.search_arguments() | {
        "festival_name": item.festival} if item.kind == "festival" else item.search_arguments())) == inst["answer"]
    with pytest.raises(ValueError, match="one result per item"):
        answer_from_results(p, [item.resolve() for item in p.items][:2])


def test_paper_questions_still_parse_as_before():
    q = ("Today’s date on the Hebrew calendar is “1 Tammuz 5725”. Was the Gregorian calendar date 3 days ago "
         "equivalent to the date “1965-6-28”?")
    p = parse_question(q)
    assert isinstance(p, ParsedQuestion) and p.reasoning_type == "date" and p.offset == 3


@pytest.mark.parametrize("text, fragment", [
    ('Which comes first: (A) the Hebrew calendar date "30 Adar II 5785" or (B) the Gregorian calendar date '
     '"2025-7-1"? Answer A or B.', "Hebrew"),
    ('Which comes first: (A) the Martian calendar date "1 Sol 12" or (B) the Gregorian calendar date '
     '"2025-7-1"? Answer A or B.', "unknown calendar"),
    ('How many days apart are the Islamic festival "Halloween" of Islamic year 1447 and the Gregorian calendar '
     'date "2025-7-1"? Answer with the number of days from the earlier to the later (consecutive days are 1 '
     'day apart).', "Halloween"),
    ('How many days apart are the Islamic festival "Eid al-Fitr" of Persian year 1404 and the Gregorian '
     'calendar date "2025-7-1"? Answer with the number of days from the earlier to the later (consecutive '
     'days are 1 day apart).', "own calendar"),
    ("Which comes first: the moon or the sun?", "not an ordering or duration question"),
])
def test_bad_extended_questions_get_a_clear_error(text, fragment):
    with pytest.raises(QuestionParseError, match=fragment):
        parse_question(text)


def test_typographic_quotes_are_read(ext):
    inst = ext[0]
    fancy = inst["question"].replace('"', "“", 1).replace('"', "”", 1)
    assert parse_question(fancy).items == parse_question(inst["question"]).items


# ---------------------------------------------------------------------------------------------
# Judge
# ---------------------------------------------------------------------------------------------

def _pick(ext, tid, first):
    return next(i for i in _by_template(ext, tid) if i["gold"]["first"] == first)


def test_judge_two_way_ordering(ext):
    inst = _pick(ext, "ordering_two_festivals", "B")
    a, b = (it["text"] for it in inst["variables"]["items"])
    cases = {
        "B comes first": "CORRECT", "A comes first": "INCORRECT", "Final answer: B": "CORRECT",
        "Final answer: (A)": "INCORRECT", "B": "CORRECT", "**B**": "CORRECT", "The answer is B.": "CORRECT",
        f"{b} comes first.": "CORRECT", f"{a} comes first.": "INCORRECT",
        f"{b} falls earlier than {a}, so the answer is {b}.": "CORRECT",
        f"{a} is later than {b}.": "CORRECT", f"{b} comes after {a}.": "INCORRECT",
        "A date in the Islamic calendar is tricky. B comes first.": "CORRECT",
        "Final answer: A or B": "NOT_ATTEMPTED", "It is either A or B.": "NOT_ATTEMPTED",
        "I cannot determine which comes first.": "NOT_ATTEMPTED", "": "NOT_ATTEMPTED",
        "They fall on the same day.": "INCORRECT",
        f'{inst["question"]} Converting both: B is earlier. Final answer: B': "CORRECT",
        "Final answer: B (A is later)": "CORRECT", "Final answer: A, because it is earlier than B": "INCORRECT",
        "**Answer:** B": "CORRECT", "The correct answer is **(B)**.": "CORRECT", "$\\boxed{B}$": "CORRECT",
        "To answer this, convert both to Gregorian. A is on 2026-1-16, B on 2025-10-8. So B is earlier.": "CORRECT",
    }
    for text, want in cases.items():
        assert judge_extended(inst, text) == want, (text, judge_extended_detail(inst, text))
    assert judge_extended(inst, None) == "NOT_ATTEMPTED"


def test_judge_festival_aliases_and_apostrophes(ext):
    inst = next(i for i in ext if i["template_id"] == "ordering_two_mixed"
                and any(it["festival"] == "Mid-Autumn Festival" for it in i["variables"]["items"]))
    label = next(it["label"] for it in inst["variables"]["items"] if it["festival"] == "Mid-Autumn Festival")
    want = "CORRECT" if inst["gold"]["first"] == label else "INCORRECT"
    assert judge_extended(inst, "The Moon Festival comes first.") == want
    assert judge_extended(inst, "Final answer: Mid-Autumn Festival") == want
    isra = next(i for i in ext if i["template_id"] == "ordering_two_mixed"
                and any(it["festival"] == "Isra and Mi'raj" for it in i["variables"]["items"]))
    lab = next(it["label"] for it in isra["variables"]["items"] if it["festival"] == "Isra and Mi'raj")
    want = "CORRECT" if isra["gold"]["first"] == lab else "INCORRECT"
    assert judge_extended(isra, "Isra and Mi’raj comes first.") == want


def test_judge_date_text_names_its_option(ext):
    inst = _pick(ext, "ordering_two_dates", "A")
    a, b = (it["text"] for it in inst["variables"]["items"])
    assert judge_extended(inst, f'Final answer: "{a}"') == "CORRECT"
    assert judge_extended(inst, f'Final answer: "{b}"') == "INCORRECT"


def test_judge_three_way_ordering(ext):
    inst = next(i for i in _by_template(ext, "ordering_three") if i["gold"]["order"] == ["C", "A", "B"])
    names = {it["label"]: it["text"] for it in inst["variables"]["items"]}
    cases = {
        "Final answer: C, A, B": "CORRECT", "C, A, B": "CORRECT", "The order is C, A, B.": "CORRECT",
        "Final answer: C < A < B": "CORRECT", "Final answer: C -> A -> B": "CORRECT",
        "Final answer: (C), (A), (B)": "CORRECT", "Final answer: A, C, B": "INCORRECT",
        "Final answer: C, A": "INCORRECT", "Final answer: C > A > B": "NOT_ATTEMPTED",
        "C, A, B or A, C, B": "NOT_ATTEMPTED", "From latest to earliest: B, A, C": "CORRECT",
        "Converting A, B and C to Gregorian first... so the order is C, A, B.": "CORRECT",
        "I am not able to work this out.": "NOT_ATTEMPTED",
        "Final answer: " + ", ".join(names[lab] for lab in ("C", "A", "B")): "CORRECT",
        "Final answer: " + ", ".join(names[lab] for lab in ("A", "C", "B")): "INCORRECT",
    }
    for text, want in cases.items():
        assert judge_extended(inst, text) == want, (text, judge_extended_detail(inst, text))


def test_judge_duration(ext):
    inst = next(i for i in _by_template(ext, "duration_dates") if 8 <= i["gold"]["days"] <= 200)
    n = inst["gold"]["days"]
    w, r = divmod(n, 7)
    cases = {
        f"It is {n} days": "CORRECT", f"{n}": "CORRECT", f"Final answer: {n}": "CORRECT",
        f"Final answer: {n} days": "CORRECT", f"Final answer: -{n}": "CORRECT", f"about {n} days": "CORRECT",
        f"It is {n + 1} days": "INCORRECT", f"Final answer: {n - 1}": "INCORRECT",
        f"{n} or {n + 1} days": "NOT_ATTEMPTED", f"{n}-{n + 1} days": "NOT_ATTEMPTED",
        f"between {n} to {n + 1} days": "NOT_ATTEMPTED",
        f"A is 2025-3-1 and B is 2025-8-15 in Gregorian, so they are {n} days apart.": "CORRECT",
        f"{739000 + n} - 739000 = {n} days": "CORRECT", f"{w} weeks and {r} days": "CORRECT",
        f"They are {n} days apart (counting both ends it would be {n + 1} days).": "CORRECT",
        "I don't know.": "NOT_ATTEMPTED", "About four months.": "NOT_ATTEMPTED",
        f"{inst['question']} {n} days.": "CORRECT", f"\\boxed{{{n}}}": "CORRECT",
        f"**Answer:** {n} days": "CORRECT", f"A {n}-day gap.": "CORRECT",
    }
    for text, want in cases.items():
        assert judge_extended(inst, text) == want, (text, judge_extended_detail(inst, text))


def test_judge_does_not_read_the_questions_dates_as_the_count(ext):
    inst = _by_template(ext, "duration_dates")[0]
    texts = [it["text"] for it in inst["variables"]["items"]]
    assert judge_extended(inst, f"From {texts[0]} to {texts[1]}.") == "NOT_ATTEMPTED"


def test_judge_rejects_paper_instances():
    paper = next(iter(generate_instances(EVAL)))
    with pytest.raises(ValueError, match="ordering and duration"):
        judge_extended(paper, "Yes")
