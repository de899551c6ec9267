"""Generated questions read exactly like the paper's Table 1 (and the paper's worked examples)."""

import re
from datetime import date
from pathlib import Path

import pytest

from span_toolkit.span import get_calendar
from span_toolkit.span.benchmark import PAPER_EVAL_DATES, generate_instances, run_code

PAPER = Path(__file__).resolve().parents[2] / "shared" / "papers" / "span-paper.txt"

# Table 1 of the SPAN paper, as its text reads once the LaTeX duplicates of each placeholder
# ("{cs}\{c_{s}\}") are collapsed. Row order = the table's.
TABLE1 = {
    "date_content_days_ago": "Today’s date on the {cs} calendar is “{dcsr}”. What was the {ct} calendar date {nd} days ago?",
    "date_content_days_later": "Today’s date on the {cs} calendar is “{dcsr}”. What is the {ct} calendar date {nd} days later?",
    "date_content_weeks_ago": "Today’s date on the {cs} calendar is “{dcsr}”. What was the {ct} calendar date {nw} weeks ago?",
    "date_content_weeks_later": "Today’s date on the {cs} calendar is “{dcsr}”. What is the {ct} calendar date {nw} weeks later?",
    "date_polar_days_ago": "Today’s date on the {cs} calendar is “{dcsr}”. Was the {ct} calendar date {nd} days ago equivalent to the date “{dcte}”?",
    "date_polar_days_later": "Today’s date on the {cs} calendar is “{dcsr}”. Is the {ct} calendar date {nd} days later equivalent to the date “{dcte}”?",
    "date_polar_weeks_ago": "Today’s date on the {cs} calendar is “{dcsr}”. Was the {ct} calendar date {nw} weeks ago equivalent to the date “{dcte}”?",
    "date_polar_weeks_later": "Today’s date on the {cs} calendar is “{dcsr}”. Is the {ct} calendar date {nw} weeks later equivalent to the date “{dcte}”?",
    "festival_content_years_ago": "Today’s date on the {cs} calendar is “{dcsr}”. What was the {ct} calendar date of the {cs} festival “{fcs}{nd} ago?",
    "festival_content_years_later": "Today’s date on the {cs} calendar is “{dcsr}”. What is the {ct} calendar date of the {cs} festival “{fcs}{ny} later?",
    "festival_polar_years_ago": "Today’s date on the {cs} calendar is “{dcsr}”. Was the {ct} calendar date of the {cs} festival “{fcs}{ny} years ago equivalent to the date ”{dcte}”?",
    "festival_polar_years_later": "Today’s date on the {cs} calendar is “{dcsr}”. Is the {ct} calendar date of the {cs} festival “{fcs}{ny} years later equivalent to the date “{dcte}”?",
}


def table1_from_paper() -> list[str]:
    out = []
    for line in PAPER.read_text(encoding="utf-8").splitlines():
        if "Today’s date on the {cs}" in line:
            line = line[line.index("Today’s"):]
            out.append(re.sub(r"\{(\w+)\}\\\{.*?\\\}", r"{\1}", line))
    return out


@pytest.mark.skipif(not PAPER.exists(), reason="paper text not available")
def test_transcription_matches_paper_text():
    assert table1_from_paper() == list(TABLE1.values())


def normalized(template_id: str) -> str:
    """Table 1 row -> the generator's template: ASCII quotes; the festival rows' closing quote (lost in
    the table's text) restored; the festival content rows' "{n_d} ago"/"{n_y} later" fixed to
    "{n_y} years ago/later" (the table's typo; the polar rows and the task definition say years)."""
    t = TABLE1[template_id]
    t = t.replace("{fcs}{nd} ago?", "{fcs}” {ny} years ago?").replace("{fcs}{ny} later?", "{fcs}” {ny} years later?")
    t = t.replace("{fcs}{ny} years", "{fcs}” {ny} years").replace("date ”{dcte}", "date “{dcte}")
    return t.replace("’", "'").replace("“", '"').replace("”", '"')


def expected_question(inst: dict) -> str:
    v = inst["variables"]
    t = normalized(inst["template_id"])
    values = {"cs": get_calendar(inst["source_calendar"]).title, "ct": get_calendar(inst["target_calendar"]).title,
              "dcsr": v["reference_text"], "dcte": v["expected_text"] or "", "fcs": v["festival"] or "",
              "nd": str(v["offset"]), "nw": str(v["offset"]), "ny": str(v["offset"])}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], t)


@pytest.mark.parametrize("d", [date(1960, 7, 1), date(1990, 7, 1), date(2060, 7, 1)])
def test_every_question_reads_like_table1(d):
    n = 0
    for inst in generate_instances(d):
        assert inst["question"] == expected_question(inst)
        n += 1
    assert n == 1780


def test_sample_questions_verbatim():
    by_key = {}
    for d in (date(1960, 7, 1), date(1965, 7, 1), date(2020, 7, 1), date(2060, 7, 1)):
        for inst in generate_instances(d):
            v = inst["variables"]
            by_key[(inst["eval_date"], inst["template_id"], inst["source_calendar"], inst["target_calendar"],
                    v["offset"], v["festival"])] = inst
    # Appendix F, Time Agent example 3: 1960-7-1 minus 5 days is 1 Muharram 1380.
    i = by_key[("1960-07-01", "date_polar_days_ago", "gregorian", "islamic", 5, None)]
    assert i["question"] == ('Today\'s date on the Gregorian calendar is "1960-7-1". Was the Islamic calendar '
                             'date 5 days ago equivalent to the date "1 Muharram 1380"?')
    assert i["answer"] == "Yes" and i["gold"] is True
    # Example 4: 1 Tammuz 5725 minus 3 days is 1965-6-28.
    i = by_key[("1965-07-01", "date_polar_days_ago", "hebrew", "gregorian", 3, None)]
    assert i["question"] == ('Today\'s date on the Hebrew calendar is "1 Tammuz 5725". Was the Gregorian calendar '
                             'date 3 days ago equivalent to the date "1965-6-28"?')
    assert i["answer"] == "Yes"
    # Example 1 (code prompt): 2020-7-1, Islamic date 7 days ago.
    i = by_key[("2020-07-01", "date_content_days_ago", "gregorian", "islamic", 7, None)]
    assert i["question"] == ('Today\'s date on the Gregorian calendar is "2020-7-1". What was the Islamic '
                             'calendar date 7 days ago?')
    # Response-prompt examples: 2060-7-1 is 2 Safar 1483; 10 days before it is 22 Muharram 1483;
    # 1 day before 2 Safar 1483 is 2060-6-30.
    i = by_key[("2060-07-01", "date_content_days_ago", "gregorian", "islamic", 10, None)]
    assert i["answer"] == "22 Muharram 1483"
    i = by_key[("2060-07-01", "date_content_days_ago", "islamic", "gregorian", 1, None)]
    assert i["question"] == ('Today\'s date on the Islamic calendar is "2 Safar 1483". What was the Gregorian '
                             'calendar date 1 days ago?')
    assert i["answer"] == "2060-6-30"
    # Example 2: Chinese lunar 2020 + 5 years, Mid-Autumn Festival -> Gregorian.
    i = by_key[("2020-07-01", "festival_content_years_later", "chinese_lunar", "gregorian", 5, "Mid-Autumn Festival")]
    assert i["question"] == ('Today\'s date on the Chinese lunar calendar is "2020-5-11". What is the Gregorian '
                             'calendar date of the Chinese lunar festival "Mid-Autumn Festival" 5 years later?')
    assert i["answer"] == "2025-10-6"
    assert 'lunar_year = 2020 + 5' in i["code"] and 'event="Mid-Autumn Festival"' in i["code"]
    # month names for the Hebrew, Islamic, Persian and Shaka calendars, also in answers
    i = by_key[("1960-07-01", "date_content_weeks_later", "gregorian", "persian", 2, None)]
    assert i["answer"] == "24 Tir 1339"
    i = by_key[("1960-07-01", "date_content_days_later", "shaka", "gregorian", 1, None)]
    assert i["question"].startswith('Today\'s date on the Shaka calendar is "10 Ashadha 1882".')


def test_paper_appendix_f_code_agrees_with_generated_code():
    """The paper's own Example 3/4 code (typos fixed) computes what our instances' code computes."""
    from span_toolkit.span import search_calendar
    example3 = '''
from datetime import datetime, timedelta
gregorian_date_today = datetime(1960, 7, 1)
gregorian_date_5_days_ago = gregorian_date_today - timedelta(days=5)
calendar = search_calendar(calendar="gregorian", year=gregorian_date_5_days_ago.year,
                           month=gregorian_date_5_days_ago.month, day=gregorian_date_5_days_ago.day)
year, month, day = map(int, calendar.get("islamic_date").split("-"))
answer = bool(year == 1380 and month == 1 and day == 1)
'''
    example4 = '''
from datetime import datetime, timedelta
calendar = search_calendar(calendar="hebrew", year=5725, month=4, day=1)
gregorian_date_today = datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")
gregorian_date_3_days_ago = gregorian_date_today - timedelta(days=3)
answer = bool(gregorian_date_3_days_ago.year == 1965 and gregorian_date_3_days_ago.month == 6
              and gregorian_date_3_days_ago.day == 28)
'''
    assert run_code(example3, search_calendar) is True
    assert run_code(example4, search_calendar) is True
    ours = {(i["eval_date"], i["template_id"], i["source_calendar"], i["target_calendar"], i["variables"]["offset"]): i
            for d in (date(1960, 7, 1), date(1965, 7, 1)) for i in generate_instances(d)}
    mine3 = ours[("1960-07-01", "date_polar_days_ago", "gregorian", "islamic", 5)]
    mine4 = ours[("1965-07-01", "date_polar_days_ago", "hebrew", "gregorian", 3)]
    assert run_code(mine3["code"], search_calendar) is True and run_code(mine4["code"], search_calendar) is True
    # same structure as the paper's snippets
    assert 'gregorian_date_5_days_ago = gregorian_date_today - timedelta(days=5)' in mine3["code"]
    assert 'calendar.get("islamic_date").split("-")' in mine3["code"]
    assert 'calendar="hebrew",\n    year=5725,\n    month=4,\n    day=1,' in mine4["code"]
    assert 'datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")' in mine4["code"]


def test_month_names_in_questions_and_answers():
    for inst in generate_instances(PAPER_EVAL_DATES[5]):
        for cal, text in ((inst["source_calendar"], inst["variables"]["reference_text"]),
                          (inst["target_calendar"], inst["answer"] if inst["question_format"] == "content" else None)):
            if text is None:
                continue
            if cal in ("hebrew", "islamic", "persian", "shaka"):
                assert re.fullmatch(r"\d{1,2} [A-Z][A-Za-z' -]+ \d{4}", text), text
            else:
                assert re.fullmatch(r"\d{4}-(leap)?\d{1,2}-\d{1,2}", text), text


def test_chinese_leap_month_is_marked():
    # 1990-07-01 is in the Chinese leap 5th month
    insts = list(generate_instances(date(1990, 7, 1)))
    src = [i for i in insts if i["source_calendar"] == "chinese_lunar"]
    assert src and all(i["variables"]["reference_text"] == "1990-leap5-9" for i in src)
    assert all("is_lunar_leap_month=True" in i["code"] for i in src if i["reasoning_type"] == "date")
    leap_answers = [i for i in insts if i["target_calendar"] == "chinese_lunar" and i["question_format"] == "content"
                    and i["gold"]["is_leap_month"]]
    assert leap_answers and all(i["answer"] == f"{i['gold']['year']}-leap{i['gold']['month']}-{i['gold']['day']}"
                                for i in leap_answers)
    assert any(i["answer"].startswith("1990-leap5-") for i in leap_answers)
    polar = [i for i in insts if i["target_calendar"] == "chinese_lunar" and i["question_format"] == "polar"
             and i["variables"]["expected_date"]["is_leap_month"]]
    assert polar and all("-leap" in i["variables"]["expected_text"] for i in polar)
    assert all('calendar.get("lunar_is_leap_month")' in i["code"] and "not calendar" not in i["code"] for i in polar)
