"""Instances whose gold depends on a day the calendar's independent sources dispute (issue 22) are
marked with the other reading, and can be left out; nothing else is marked."""

from __future__ import annotations

from datetime import date

from span_toolkit.client.cli import main
from span_toolkit.span import disputes
from span_toolkit.span.benchmark import generate_instances, generate_sample
from span_toolkit.span.dates import CalendarDate


def _disputed(d: dict) -> bool:
    return disputes.is_disputed(d["calendar"], CalendarDate.from_dict(d).ordinal)


def test_every_instance_that_crosses_a_disputed_day_is_marked_and_no_other():
    insts = list(generate_instances(date(2057, 10, 1), families=("paper", "extended")))
    marked = [i for i in insts if "disputed" in i]
    assert marked and len(insts) == 1780 + 344
    for inst in insts:
        v = inst["variables"]
        must = False
        if inst["reasoning_type"] == "date" and inst["source_calendar"] == "chinese_lunar":
            must = _disputed(v["reference_date"])  # "today" read the other way is another day
        if inst["question_format"] == "content" and isinstance(inst["gold"], dict) and "calendar" in inst["gold"]:
            must = must or _disputed(inst["gold"])
        if inst["reasoning_type"] in ("ordering", "duration"):
            must = any(it["kind"] == "date" and _disputed(it["date"]) for it in v["items"])
        if must:
            assert "disputed" in inst, inst["question"]
        for d in inst.get("disputed", []):
            assert disputes.is_disputed(d["calendar"], disputes_ordinal(d)), d
            assert d["other"] and d["reason"]


def disputes_ordinal(d: dict) -> int:
    from span_toolkit.span import parse_date

    return parse_date(d["date"], d["calendar"]).ordinal


def test_a_festival_question_depends_on_the_festivals_day_not_on_todays():
    """Qixi and the Ghost Festival of 2097 fall in a disputed month: only the questions that land on them
    are marked (the reference date of a festival question counts by its year)."""
    marked = [i for i in generate_instances(date(2094, 7, 1)) if "disputed" in i]
    assert len(marked) == 4
    assert {i["variables"]["festival"] for i in marked} == {"Chinese Valentine's Day", "Ghost Festival"}
    assert all(i["source_calendar"] == "chinese_lunar" and i["variables"]["offset"] == 3 for i in marked)


def test_dates_far_from_a_disputed_day_are_unmarked():
    assert not any("disputed" in i for i in generate_instances(date(2025, 7, 1), families=("paper", "extended")))


def test_exclude_disputed_leaves_them_out(tmp_path):
    every = list(generate_instances(date(2057, 10, 1)))
    kept = list(generate_instances(date(2057, 10, 1), exclude_disputed=True))
    assert kept == [i for i in every if "disputed" not in i] and len(kept) < len(every)
    sample = list(generate_sample([date(2057, 10, 1)], 300, seed=1, exclude_disputed=True))
    assert sample and not any("disputed" in i for i in sample) and len(sample) <= 300
    out = tmp_path / "i.jsonl"
    assert main(["generate", "--date", "2057-10-01", "--exclude-disputed", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == len(kept)


def test_a_run_counts_its_disputed_instances_and_the_report_says_so(tmp_path, capsys):
    import json

    insts = list(generate_instances(date(2057, 10, 1)))
    picked = [i for i in insts if "disputed" in i][:6] + [i for i in insts if "disputed" not in i][:10]
    f = tmp_path / "i.jsonl"
    f.write_text("".join(json.dumps(i) + "\n" for i in picked))
    run = tmp_path / "run"
    assert main(["eval", "--model", "baseline", "--instances", str(f), "--out", str(run), "--quiet"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["disputed"]["n"] == 6 and summary["n"] == 16
    assert "6 instances depend on a day the calendar's sources dispute" in capsys.readouterr().out
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--no-figures", "--no-tiktoken", "--quiet"]) == 0
    assert "independent sources dispute" in (tmp_path / "rep" / "report.md").read_text()
