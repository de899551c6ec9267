"""The rules judge on a table of realistic model answers, with the verdict each should get.

Golds are computed by the calendar core (never typed in by hand), so a row fails if either the judge
or the dates are wrong. The table deliberately includes near misses (off by one day / month / year,
the Umm al-Qura one-day-off Islamic date, a missing leap-month marker, Adar I vs Adar II), hedges,
refusals, and replies that restate the question's reference date before or after the answer.
"""

from __future__ import annotations

import random

import pytest

from span_toolkit.client.judges.rules import (CORRECT, INCORRECT, NOT_ATTEMPTED, RuleVerdict, extract_final_date,
                                 extract_yes_no, judge_answer)
from span_toolkit.span import CalendarDate, get_calendar
from span_toolkit.span.calendars import CALENDAR_NAMES

C, I, NA = CORRECT, INCORRECT, NOT_ATTEMPTED


def content(ref: CalendarDate, gold: CalendarDate) -> dict:
    return {"id": "t", "question_format": "content", "source_calendar": ref.calendar,
            "target_calendar": gold.calendar, "variables": {"reference_date": ref.as_dict()},
            "answer": gold.display(), "gold": gold.as_dict()}


def polar(gold: bool) -> dict:
    return {"id": "p", "question_format": "polar", "source_calendar": "gregorian",
            "target_calendar": "islamic", "answer": "Yes" if gold else "No", "gold": gold,
            "variables": {"reference_date": CalendarDate.create("gregorian", 1960, 7, 1).as_dict()}}


G = lambda y, m, d: CalendarDate.create("gregorian", y, m, d)  # noqa: E731
REF_2025 = G(2025, 7, 1)
PLUS3 = G(2025, 7, 4)

INSTANCES = {
    # Gregorian 2025-7-1, "3 days later", into each named-month calendar.
    "heb": content(REF_2025, PLUS3.to("hebrew")),        # 8 Tammuz 5785 (today = 5 Tammuz 5785)
    "isl": content(REF_2025, PLUS3.to("islamic")),       # 8 Muharram 1447 (Umm al-Qura: 9 Muharram)
    "per": content(REF_2025, PLUS3.to("persian")),       # 13 Tir 1404
    "sha": content(REF_2025, PLUS3.to("shaka")),         # 13 Ashadha 1947
    # "7 days ago" into the Chinese lunar calendar: 2025-6-24 = lunar 2025-5-29.
    "lun": content(REF_2025, G(2025, 6, 24).to("chinese_lunar")),
    # A Chinese leap month: 2023-4-5 = lunar 2023-leap2-15.
    "leap": content(G(2023, 4, 1), G(2023, 4, 5).to("chinese_lunar")),
    # Hebrew leap year 5784: 2024-3-24 = 14 Adar II, 2024-2-23 = 14 Adar I; 5785 is a common year.
    "adar2": content(G(2024, 3, 20), G(2024, 3, 24).to("hebrew")),
    "adar1": content(G(2024, 2, 20), G(2024, 2, 23).to("hebrew")),
    "adar": content(G(2025, 3, 10), G(2025, 3, 14).to("hebrew")),
    # Into the Gregorian calendar: the paper's example 4 (1 Tammuz 5725, 3 days ago = 1965-6-28).
    "greg": content(CalendarDate.create("hebrew", 5725, 4, 1), G(1965, 6, 28)),
    "greg_dm": content(CalendarDate.create("hebrew", 5785, 4, 5), G(2025, 7, 4)),
    # Paper Appendix F examples: 2060-6-30 ("6 30, 2060") and 22 Muharram 1483.
    "paper_g": content(CalendarDate.create("islamic", 1483, 2, 2), G(2060, 6, 30)),
    "paper_i": content(G(2060, 7, 1), CalendarDate.create("islamic", 1483, 1, 22)),
    # Lunar source whose numbers also read as a Gregorian date: lunar 2020-7-1 = 2020-8-19; +5 days.
    "lun_src": content(CalendarDate.create("chinese_lunar", 2020, 7, 1), G(2020, 8, 24)),
    # "1 day ago" from Gregorian 2025-7-1 (the reviewer's instances): 2025-6-30 in each calendar;
    # today is 5 Tammuz 5785 / 5 Muharram 1447 / 10 Tir 1404 / lunar 2025-6-7.
    "heb1": content(REF_2025, G(2025, 6, 30).to("hebrew")),
    "isl1": content(REF_2025, G(2025, 6, 30).to("islamic")),
    "per1": content(REF_2025, G(2025, 6, 30).to("persian")),
    "lun1": content(REF_2025, G(2025, 6, 30).to("chinese_lunar")),
    "greg1": content(CalendarDate.create("hebrew", 5785, 4, 5), G(2025, 6, 30)),
    "yes": polar(True),
    "no": polar(False),
}


def test_instances_are_what_the_rows_assume():
    # If the core's conversions changed, the rows below would test the wrong thing.
    shown = {k: v["answer"] for k, v in INSTANCES.items()}
    assert shown["heb"] == "8 Tammuz 5785" and shown["isl"] == "8 Muharram 1447"
    assert shown["per"] == "13 Tir 1404" and shown["sha"] == "13 Ashadha 1947"
    assert shown["lun"] == "2025-5-29" and shown["leap"] == "2023-leap2-15"
    assert shown["adar2"] == "14 Adar II 5784" and shown["adar1"] == "14 Adar I 5784"
    assert shown["adar"] == "14 Adar 5785"
    assert REF_2025.to("hebrew").display() == "5 Tammuz 5785"
    assert (shown["heb1"], shown["isl1"], shown["per1"], shown["lun1"]) == \
        ("4 Tammuz 5785", "4 Muharram 1447", "9 Tir 1404", "2025-6-6")
    assert REF_2025.to("islamic").display() == "5 Muharram 1447"


ROWS = [
    # --- Hebrew target: 8 Tammuz 5785 -----------------------------------------------------------
    ("heb", "8 Tammuz 5785", C),
    ("heb", "Final answer: 8 Tammuz 5785", C),
    ("heb", "Tammuz 8, 5785", C),
    ("heb", "The date is the 8th of Tammuz, 5785.", C),
    ("heb", "**8 Tammuz 5785**", C),
    ("heb", "8 Tamuz 5785", C),
    ("heb", "The eighth of Tammuz, 5785", C),
    ("heb", "5785-4-8", C),                                   # numeric, convertdate month numbers
    ("heb", "8 Tammuz 5785 AM", C),
    ("heb", "Hmm, I think it's probably 8 Tammuz 5785.", C),  # hedging words, one committed date
    ("heb", "Today (2025-7-1) is 5 Tammuz 5785; three days later it will be 8 Tammuz 5785.", C),
    ("heb", "8 Tammuz 5785 is three days after 5 Tammuz 5785.", C),  # base of the computation
    ("heb", "It is 8 Tammuz 5785, not 9 Tammuz 5785.", C),           # negated alternative
    ("heb", "8 Tammuz 5785, which is one day after 7 Tammuz 5785.", C),  # a later date used as a base
    ("greg", "1965-6-28 - that is, two days after 1965-6-26.", C),
    ("heb", "Final answer: 8 Tammuz 5785 (July 4, 2025)", C),
    ("heb", "Step 1: 2025-7-1 + 3 days = 2025-7-4.\nStep 2: 2025-7-4 corresponds to 8 Tammuz 5785 in "
            "the Hebrew calendar.\nFinal answer: 8 Tammuz 5785", C),
    ("heb", "What is the Hebrew date 3 days after 2025-7-1? It is 8 Tammuz 5785.", C),
    ("heb", "9 Tammuz 5785", I),                              # one day off
    ("heb", "8 Sivan 5785", I),                               # one month off
    ("heb", "8 Tammuz 5786", I),                              # one year off
    ("heb", "8 Tammuz", I),                                   # no year: partial
    ("heb", "30 Tammuz 5785", I),                             # Tammuz has 29 days: no such date
    ("heb", "8 Tammuz 5785. Wait, let me recompute: 9 Tammuz 5785.", I),  # the final statement counts
    ("heb", "Final answer: 5 Tammuz 5785", I),                # today's date given as the answer
    ("heb", "Either 8 Tammuz 5785 or 9 Tammuz 5785.", NA),
    ("heb", "I'm sorry, but I can't convert dates to the Hebrew calendar.", NA),
    ("heb", "Today is 2025-7-1. I am unable to determine the Hebrew date.", NA),
    ("heb", "Today is 5 Tammuz 5785, but I cannot compute dates reliably.", NA),
    ("heb", "The Gregorian date is 2025-07-04.", I),         # a date, but in the wrong calendar
    # The shape Qwen2.5-Coder-0.5B answers in (unaided, evaluation date 2026-03-15: 8 of 40 content replies,
    # all NOT_ATTEMPTED before): a Gregorian date given *as* the target calendar's is a committed wrong answer
    ("heb", 'The Hebrew calendar date 3 days later is "2025-7-4".', I),
    ("heb", 'The Hebrew calendar date 3 days later was "01-07-2025".', NA),  # the reference date: maybe only mentioned
    ("isl", 'The Islamic calendar date 3 days later is "2025-12-31".', I),
    ("per", 'The Persian calendar date 3 days later is "2026-10-15".', I),
    ("greg", 'The Gregorian calendar date 3 days ago was "1430-12-26".', I),  # an Islamic-looking date
    ("heb", "The Hebrew calendar date 3 days after 2025-7-1.", NA),          # the base of the question only
    # a date only mentioned with the label, not stated as the answer (found in review): still no answer
    ("heb", "To find the Hebrew date for 2025-7-4, use a Hebrew calendar converter.", NA),
    ("heb", "Hebrew date of 2025-07-04: please consult hebcal.com.", NA),
    ("isl", "The Islamic date on 2025-07-04 depends on moon sighting.", NA),
    ("isl", "Islamic date (for 2025-07-04): unknown", NA),
    ("heb", "The Hebrew date 3 days later (on 2025-07-04) is Friday.", NA),
    ("heb", "Hebrew date: 2025-7-4", I),                                       # stated after a colon
    ("heb", "The Hebrew date 3 days later is not 2025-07-04.", NA),          # negated, nothing stated
    ("heb", "", NA),
    ("heb", None, NA),
    # --- Islamic target: 8 Muharram 1447 -------------------------------------------------------
    ("isl", "8 Muharram 1447", C),
    ("isl", "Muharram 8, 1447 AH", C),
    ("isl", "8 Moharram 1447", C),
    ("isl", "1447-1-8", C),
    ("isl", "1447/01/08", C),
    ("isl", "The answer is 8 Muharram 1447 AH (4 July 2025 CE).", C),
    ("isl", "9 Muharram 1447 AH", I),                         # Umm al-Qura's date, one day off
    ("isl", "8 Safar 1447", I),
    ("isl", "27 Dhu al-Hijjah 1446", I),                      # 7 days ago instead of 3 days later
    # --- Persian target: 13 Tir 1404 --------------------------------------------------------------
    ("per", "13 Tir 1404", C),
    ("per", "Tir 13, 1404 SH", C),
    ("per", "13 Teer 1404", C),
    ("per", "13 tir 1404", C),
    ("per", "1404/4/13", C),
    ("per", "The Persian date is 13 Tir 1404 (Solar Hijri).", C),
    ("per", "12 Tir 1404", I),
    ("per", "13 Tir 1403", I),
    ("per", "13 Mordad 1404", I),
    # --- Shaka target: 13 Ashadha 1947 -------------------------------------------------------------
    ("sha", "13 Ashadha 1947", C),
    ("sha", "Asadha 13, 1947 Saka", C),
    ("sha", "13 Ashadh 1947", C),
    ("sha", "1947-4-13", C),
    ("sha", "14 Ashadha 1947", I),
    ("sha", "13 Ashadha 1946", I),
    ("sha", "13 Jyeshtha 1947", I),
    # --- Chinese lunar target: 2025-5-29 (reference Gregorian 2025-7-1) -------------------------------
    ("lun", "2025-5-29", C),
    ("lun", "Final answer: 2025-05-29", C),
    ("lun", "The Chinese lunar date was 2025-5-29.", C),
    ("lun", "Today is 2025-7-1, so 7 days ago the lunar date was 2025-5-29.", C),
    ("lun", "The lunar date was 2025-5-29, seven days before 2025-7-1.", C),   # reference restated last
    ("lun", "2025-6-24 (Gregorian) corresponds to lunar 2025-5-29.", C),
    ("lun", "2025-5-29 (lunar), i.e. 2025-6-24 Gregorian.", C),     # the Gregorian gloss comes last
    ("lun", "Final answer: 2025-6-24 Gregorian, which is 2025-5-29 in the Chinese lunar calendar", C),
    ("lun", "2025年五月廿九", C),
    ("lun", "the 29th day of the 5th month, 2025", C),
    ("lun", "month 5, day 29, 2025", C),
    ("lun", "2025-7-1", I),                                   # the baseline's copy of the reference
    ("lun", "2025-5-28", I),
    ("lun", "2025-5-29 (leap month)", I),                     # 2025 has no leap 5th month
    ("lun", "The Gregorian date 7 days ago was 2025-06-24.", I),  # labelled: not a lunar answer
    # --- Chinese lunar leap month: 2023-leap2-15 ------------------------------------------------------
    ("leap", "2023-leap2-15", C),
    ("leap", "2023-L2-15", C),
    ("leap", "2023-闰2-15", C),
    ("leap", "2023年闰二月十五", C),
    ("leap", "the 15th day of the leap 2nd month of 2023", C),
    ("leap", "15th day of the intercalary second month, 2023", C),
    ("leap", "2023-2-15 (leap month)", C),
    ("leap", "leap month 2, day 15, 2023", C),
    ("leap", "2023-2-15", I),                                 # the regular 2nd month: a month earlier
    ("leap", "2023-2-15 (not a leap month)", I),
    ("leap", "2023-leap2-14", I),
    ("leap", "2023-3-15", I),
    # --- Hebrew leap year: Adar I / Adar II ------------------------------------------------------------
    ("adar2", "14 Adar II 5784", C),
    ("adar2", "14 Veadar 5784", C),
    ("adar2", "Adar Sheni 14, 5784", C),
    ("adar2", "14 Adar 5784", C),                             # bare Adar in a leap year: either
    ("adar2", "5784-13-14", C),
    ("adar2", "14 Adar I 5784", I),
    ("adar2", "15 Adar II 5784", I),
    ("adar1", "14 Adar I 5784", C),
    ("adar1", "14 Adar 5784", C),
    ("adar1", "14 Adar (Adar I) 5784", C),
    ("adar1", "14 Adar Rishon 5784", C),
    ("adar1", "14 Adar II 5784", I),
    ("adar", "14 Adar 5785", C),
    ("adar", "14 Adar II 5785", I),                           # 5785 is a common year: no Adar II
    # --- Gregorian target: 1965-6-28 (reference 1 Tammuz 5725) -------------------------------------------
    ("greg", "1965-6-28", C),
    ("greg", "June 28, 1965", C),
    ("greg", "28 June 1965", C),
    ("greg", "Sunday, June 28th, 1965", C),
    ("greg", "28/06/1965", C),
    ("greg", "06/28/1965", C),
    ("greg", "28.6.1965", C),
    ("greg", "1965/06/28", C),
    ("greg", "28-Jun-1965", C),
    ("greg", "The Gregorian date of 1 Tammuz 5725 is 1965-7-1, so three days earlier is 1965-6-28.", C),
    ("greg", "1965-6-28 is three days before 1965-7-1.", C),
    ("greg", "June 27, 1965", I),
    ("greg", "1965-7-1", I),
    ("greg", "It was June 28.", I),
    ("greg", "Either June 27 or June 28, 1965.", NA),
    # --- Day/month order (gold 2025-7-4) --------------------------------------------------------------------
    ("greg_dm", "4/7/2025", C),                                # ambiguous: a valid reading matches
    ("greg_dm", "7/4/2025", C),
    ("greg_dm", "4.7.2025", C),                                # dots are day-first
    ("greg_dm", "7.4.2025", I),                                # 7 April
    ("greg_dm", "Yesterday was 30/06/2025... no wait, the answer is 4/7/2025.", C),
    ("greg_dm", "Counting from 06/30/2025 the result is 4/7/2025.", I),  # month-first reply: 7 April
    # --- The paper's own renderings (Appendix F) --------------------------------------------------------------
    ("paper_g", "6 30, 2060", C),
    ("paper_g", "30 June 2060", C),
    ("paper_g", "6 29, 2060", I),
    ("paper_i", "22 Muharram, 1483", C),
    ("paper_i", "1483-1-22", C),
    # --- Lunar source, Gregorian target (the reference's numbers also read as a Gregorian date) -----------------
    ("lun_src", "Lunar 2020-7-1 is Gregorian 2020-8-19; five days later is 2020-8-24.", C),
    ("lun_src", "2020-8-24, five days after 2020-8-19", C),
    ("lun_src", "2020-7-1", I),
    # --- An equivalent in another calendar in brackets after the answer ---------------------------------
    # The bracket labels the date inside it, not the answer before it.
    ("heb1", "Final answer: 4 Tammuz 5785 (Gregorian: 30 June 2025)", C),
    ("lun", "Final answer: 2025-6-24 (lunar: 2025-5-29)", C),             # the target-labelled date wins
    ("lun", "Final answer: 2025-6-24 (Chinese lunar calendar: 2025-5-29)", C),
    ("lun", "Final answer: 2025-6-24 (lunar: 2025-5-28)", I),             # labelled, and wrong
    ("heb1", "Final answer: 4 Tammuz 5785 (Gregorian 2025-06-30)", C),
    ("heb1", "Final answer: 4 Tammuz 5785 (corresponding to Gregorian June 30, 2025)", C),
    ("heb1", "Final answer: 4 Tammuz 5785 (in the Hebrew calendar)", C),
    ("heb1", "Final answer: 4 Tammuz 5785 (Hebrew date)", C),
    ("per1", "Final answer: 9 Tir 1404 (June 30, 2025 in the Gregorian calendar)", C),
    ("isl1", "Final answer: 4 Muharram 1447 (Gregorian: 30 June 2025)", C),
    ("lun1", "Final answer: 2025-6-6 (Gregorian: 2025-6-30)", C),
    ("lun1", "The lunar date was the 6th day of the 6th month, 2025 (Gregorian 2025-6-30).", C),
    ("greg1", "Final answer: 2025-06-30 (Hebrew: 4 Tammuz 5785)", C),
    ("heb1", "Final answer: 3 Tammuz 5785 (Gregorian: 30 June 2025)", I),    # wrong date, right gloss
    ("heb1", "Final answer: 5 Tammuz 5785 (Gregorian: 30 June 2025)", I),    # today's date
    ("isl1", "Final answer: 5 Muharram 1447 (Gregorian: 30 June 2025)", I),
    ("lun1", "Final answer: 2025-6-7 (Gregorian: 2025-6-30)", I),
    ("lun1", "Final answer: 2025-6-30 (Gregorian)", I),                      # labelled: wrong calendar
    ("greg1", "Final answer: 2025-07-01 (Hebrew: 4 Tammuz 5785)", I),
    ("heb1", "Final answer: 2025-06-30 (Gregorian)", I),                      # no Hebrew date at all
    # --- Hedging between the answer and the restated reference date --------------------------------------
    ("heb1", "Final answer: 4 Tammuz 5785 or 5 Tammuz 5785", NA),
    ("isl1", "Final answer: 4 Muharram 1447 AH (tabular) or 5 Muharram 1447 (Umm al-Qura).", NA),
    ("heb1", "Today is 5 Tammuz 5785; yesterday was 4 Tammuz 5785.", C),      # not a hedge
    # --- A trailing question in the answer's sentence ------------------------------------------------------
    ("heb1", "Final answer: 4 Tammuz 5785 (perhaps you meant the civil year?)", C),
    ("heb1", "Final answer: 4 Tammuz 5785, or did you mean the Gregorian date?", C),
    ("heb1", "Final answer: 4 Tammuz 5785?", C),                              # tentative, still the answer
    ("heb1", "What was the Hebrew date on 5 Tammuz 5785 minus one day? 4 Tammuz 5785.", C),
    # --- Year-first with a month name; French transliteration -------------------------------------------
    ("heb1", "5785 Tammuz 4", C),
    ("heb1", "Final answer: 5785-Tammuz-04", C),
    ("heb1", "4 Tammouz 5785", C),
    ("heb1", "5785 Tammuz 5", I),
    ("greg1", "2025 June 30", C),
    # --- Polar, gold Yes --------------------------------------------------------------------------------------
    ("yes", "Yes.", C),
    ("yes", "yes, it is", C),
    ("yes", "Yes — both dates refer to the same day.", C),
    ("yes", "The answer is yes.", C),
    ("yes", "Correct — they are equivalent.", C),
    ("yes", "True", C),
    ("yes", "**Yes**", C),
    ("yes", "They are equivalent.", C),
    ("yes", "Yes, they match.", C),
    ("yes", "It is not incorrect.", C),
    ("yes", "No doubt about it — they are the same date.", C),
    ("yes", "answer = True", C),
    ("yes", "Was the Islamic date 5 days ago equivalent to 1 Muharram 1380? Yes.", C),
    ("yes", "At first glance no, but 1960-6-26 is 1 Muharram 1380.\nFinal answer: Yes", C),
    ("yes", "No. Actually, wait: yes, they are the same date.", C),
    ("yes", "Final answer: the two dates match", C),
    ("yes", "Both refer to the same day, so they coincide.", C),
    ("yes", "Yes, it matches — did you want the Gregorian date too?", C),   # trailing question
    ("yes", "Final answer: No discrepancy — the dates are equivalent.", C),  # "No" as a determiner
    ("yes", "Final answer: No doubt, yes.", C),
    ("yes", "Final answer: No match.", I),
    ("yes", "Is it the same date? No, it is not.", I),
    ("yes", "Are they the same date? Hard to say.", NA),                 # question restated, no answer
    ("yes", "Given that today is 1960-7-1, is the date 5 days ago 1 Muharram 1380? Yes, it is.", C),
    ("yes", "No, it was not.", I),
    ("yes", "There is no match between the dates.", I),
    ("yes", "The answer is no", I),
    ("yes", "Not equivalent.", I),
    ("yes", "False", I),
    ("yes", "It is not the same date.", I),
    ("yes", "They don't match.", I),
    ("yes", "Answer: no", I),
    ("yes", "Yes or no? Hard to say.", NA),
    ("yes", "I cannot determine whether they are equivalent.", NA),
    ("yes", "Yes. Five days ago was 1 Safar 1380, so they are not equivalent.", NA),  # contradictory
    ("yes", "1 Muharram 1380", NA),                            # a date, no yes/no
    ("yes", "", NA),
    # --- Polar, gold No ---------------------------------------------------------------------------------------
    ("no", "No.", C),
    ("no", "No, they are different dates.", C),
    ("no", "Final answer: No", C),
    ("no", "Yes", I),
    ("no", "They are the same.", I),
]


@pytest.mark.parametrize("key,answer,expected", ROWS, ids=[f"{i}-{r[0]}" for i, r in enumerate(ROWS)])
def test_answer_table(key, answer, expected):
    v = judge_answer(INSTANCES[key], answer)
    assert isinstance(v, RuleVerdict)
    assert v.verdict == expected, f"{answer!r}: {v}"
    assert set(v.as_dict()) == {"verdict", "extracted", "reason"} and v.reason


def test_table_is_large_and_balanced():
    assert len(ROWS) >= 80
    counts = {v: sum(1 for r in ROWS if r[2] == v) for v in (C, I, NA)}
    assert counts[C] >= 40 and counts[I] >= 30 and counts[NA] >= 10


def test_extracted_value_is_reported():
    v = judge_answer(INSTANCES["heb"], "So the answer is 9 Tammuz 5785.")
    assert (v.verdict, v.extracted) == (I, "9 Tammuz 5785")
    v = judge_answer(INSTANCES["leap"], "2023-闰2-15")
    assert (v.verdict, v.extracted) == (C, "2023-leap2-15")
    assert judge_answer(INSTANCES["yes"], "Yes, it is.").extracted == "Yes"


def test_gold_may_be_a_calendar_date_and_instance_may_be_minimal():
    gold = CalendarDate.create("persian", 1404, 4, 13)
    assert judge_answer({"question_format": "content", "target_calendar": "persian", "gold": gold},
                        "13 Tir 1404").verdict == C
    assert judge_answer({"question_format": "content", "gold": gold.as_dict()}, "13 Tir 1404").verdict == C


# ---- extract_final_date --------------------------------------------------------------------------

def test_extract_final_date_basic_forms():
    assert extract_final_date("Final answer: 2023-leap2-15", "lunar") == \
        CalendarDate.create("chinese_lunar", 2023, 2, 15, True)
    assert extract_final_date("It was 22 Muharram, 1483.", "hijri") == CalendarDate.create("islamic", 1483, 1, 22)
    assert extract_final_date("no date here", "gregorian") is None
    assert extract_final_date("8 Tammuz", "hebrew") is None            # partial
    assert extract_final_date("30 Tammuz 5785", "hebrew") is None      # does not exist
    assert extract_final_date("2025-7-1 or 2025-7-2", "gregorian") is None  # hedge
    assert extract_final_date(None, "gregorian") is None


def test_numeric_dates_outside_the_calendar_range_are_not_that_calendar():
    # "2025-7-4" cannot be a Hebrew date (years 5660-5861), so it is not read as one.
    assert extract_final_date("2025-7-4", "hebrew") is None
    assert extract_final_date("5785-4-8", "gregorian") is None


def test_lowercase_english_word_variants_need_a_capital():
    # Persian "Day" (Dey) and Gregorian "May"/"Mar" are also English words.
    assert extract_final_date("It will be day 5, 1404 by then", "persian") is None
    assert extract_final_date("Day 5, 1404", "persian") == CalendarDate.create("persian", 1404, 10, 5)
    assert extract_final_date("we may 5, 2025", "gregorian") is None


@pytest.mark.parametrize("calendar", CALENDAR_NAMES)
def test_every_displayed_date_reads_back(calendar):
    # The renderer's own display form must always be understood: 150 random days per calendar
    # across the whole supported range, plus every month of two years (leap months included).
    cal = get_calendar(calendar)
    rng = random.Random(calendar)
    lo, hi = CalendarDate.create("gregorian", 1900, 1, 1).ordinal, CalendarDate.create("gregorian", 2100, 12, 31).ordinal
    days = [CalendarDate.from_ordinal(calendar, rng.randint(lo, hi)) for _ in range(150)]
    for year in (cal.min_year + 3, cal.max_year - 3):
        for m in cal.months_of(year):
            days.append(CalendarDate.create(calendar, year, m.number, min(m.length, 15), m.is_leap))
    for d in days:
        got = extract_final_date(f"The answer is {d.display()}.", calendar)
        assert got == d, (d.display(), got)
        v = judge_answer({"question_format": "content", "target_calendar": calendar, "gold": d.as_dict()},
                         f"Final answer: {d.display()}")
        assert v.verdict == C, v


@pytest.mark.parametrize("calendar", [c for c in CALENDAR_NAMES if get_calendar(c).month_names])
def test_every_month_spelling_is_understood(calendar):
    cal = get_calendar(calendar)
    year = {"gregorian": 2024, "hebrew": 5784, "islamic": 1446, "persian": 1403, "shaka": 1946}[calendar]
    spellings = {**{v.lower(): k for k, v in cal.month_names.items()}, **cal.month_name_variants}
    for spelling, number in spellings.items():
        if spelling in ("may", "mar", "day", "ab", "av", "bul", "dei", "sawan", "bhadra", "jan"):
            spelling = spelling.capitalize()
        d = extract_final_date(f"Final answer: 5 {spelling} {year}", calendar)
        if calendar == "hebrew" and spelling == "adar":
            assert d is not None and d.month == 12   # preferred reading; 13 is also accepted
            continue
        assert d is not None and d.month == number, (spelling, d)


# ---- extract_yes_no ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("Yes", True), ("No", False), ("Yep, same day.", True), ("Nope.", False),
    ("The two dates are equivalent, so yes.", True), ("They differ by one day.", False),
    ("It is indeed the same date.", True), ("Those dates aren't equivalent.", False),
    ("No leap month is involved, and the dates are the same.", True),  # "No leap" is not an answer
    ("I'm not sure.", None), ("yes or no", None), ("Yes... no", None), (None, None),
])
def test_extract_yes_no(text, expected):
    assert extract_yes_no(text) is expected
