"""One typed GenerationRequest (span.benchmark.request): families by name from one registry, the Islamic
convention, the calendars of the paper family's non-Gregorian side, formats, polar negatives, sampling —
checked when made (one line that says what is valid), built once at the entry point and passed whole;
each evaluation date converted once (protocol.EvalDay) for every family, plan and build alike."""

from __future__ import annotations

import argparse
import contextlib
import io
from datetime import date
from datetime import datetime, timedelta

import pytest

from span_toolkit.client.commands import generate as cmd
from span_toolkit.span import search_calendar
from span_toolkit.span.benchmark import (FAMILIES, FAMILY_MODULES, GenerationRequest, GeneratorError, count_instances,
                                         generate, generate_instances, generate_sample, judge_answer,
                                         parse_question, protocol)
from span_toolkit.span.benchmark import families as families_module
from span_toolkit.span.benchmark import registry
from span_toolkit.span.benchmark.jsonl import encode
from tests.fakes.helpers import jsonl_sha256
from tests.test_generator_extended import PAPER_2025_SHA256

EVAL = date(2025, 7, 1)


def run_cli(*argv) -> int:
    parser = argparse.ArgumentParser(prog="span-client generate")
    cmd.configure(parser)
    try:
        return cmd.run(parser.parse_args(list(argv)))
    except SystemExit as exc:
        return exc.code


# --------------------------------------------------------------------------------------------------
# the request
# --------------------------------------------------------------------------------------------------

def test_the_default_request_is_the_papers_protocol():
    r = GenerationRequest()
    assert r.families == ("paper",) and r.islamic_convention == "tabular" and r.is_paper
    assert r.calendars == ("chinese_lunar", "islamic", "hebrew", "shaka", "persian") == protocol.NON_GREGORIAN
    assert r.recorded() == {}
    assert jsonl_sha256(generate([EVAL], r)) == PAPER_2025_SHA256   # byte-identical to before the request
    assert jsonl_sha256(generate_instances(EVAL, r)) == PAPER_2025_SHA256


def test_families_are_names_of_the_registry_in_registry_order():
    assert tuple(FAMILIES) == FAMILY_MODULES[:len(FAMILIES)] and FAMILY_MODULES[0] == "paper"
    for name, fam in FAMILIES.items():
        assert fam.name == name and fam.summary and fam.question_openings
    r = GenerationRequest(families="extended, paper,paper")
    assert r.families == ("paper", "extended") and r.recorded() == {"families": ["paper", "extended"]}
    assert GenerationRequest().with_families(["extended"]) == r


@pytest.mark.parametrize("families", ["paper,bogus", ["nope"], "", 5])
def test_an_unknown_family_is_one_line_naming_the_valid_ones(families):
    with pytest.raises(GeneratorError) as e:
        GenerationRequest(families=families)
    msg = str(e.value)
    assert "\n" not in msg and all(name in msg for name in FAMILIES)


@pytest.mark.parametrize("fields, words", [
    ({"calendars": ("gregorian",)}, "always the other side"),
    ({"calendars": "klingon"}, "unknown calendar 'klingon'"),
    ({"calendars": ["islamic_umm_al_qura"]}, "islamic_convention=umm_al_qura"),
    ({"calendars": []}, "no calendar"),
    ({"islamic_convention": "saudi"}, "tabular or umm_al_qura"),
    ({"polar_negatives": "yes"}, "true or false"),
    ({"sample": 0}, "positive"),
    ({"extended": True}, "valid: calendars, date_formats"),
])
def test_bad_fields_say_what_is_valid(fields, words):
    with pytest.raises(GeneratorError, match=words.replace("(", r"\(")):
        GenerationRequest.of(**fields)


def test_the_cli_builds_one_request_and_refuses_an_unknown_family(tmp_path, capsys):
    assert run_cli("--date", "2025-07-01", "--families", "paper,bogus", "--out", str(tmp_path / "x.jsonl")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "valid families: " + ", ".join(FAMILIES) in err
    assert list(tmp_path.iterdir()) == []


def test_extended_is_shorthand_for_adding_the_family(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run_cli("--date", "2025-07-01", "--extended", "--sample", "60", "--seed", "2", "--out", str(a)) == 0
    assert run_cli("--date", "2025-07-01", "--families", "paper,extended", "--sample", "60", "--seed", "2",
                   "--out", str(b)) == 0
    assert a.read_bytes() == b.read_bytes()
    assert '"reasoning_type":"ordering"' in a.read_text() or '"reasoning_type":"duration"' in a.read_text()


# --------------------------------------------------------------------------------------------------
# stage 1 once per date
# --------------------------------------------------------------------------------------------------

def test_each_date_is_converted_once_for_every_family_and_both_sampling_walks(monkeypatch):
    made: list[date] = []
    real_init = protocol.EvalDay.__init__

    def counting(self, d):
        made.append(d)
        real_init(self, d)

    monkeypatch.setattr(protocol.EvalDay, "__init__", counting)
    monkeypatch.setattr(protocol, "reference_dates", lambda *a, **k: pytest.fail("stage 1 computed apart"))
    request = GenerationRequest(families=("paper", "extended"), polar_negatives=True)
    days = [EVAL, date(1990, 7, 1)]
    list(generate_sample(days, 80, request))
    assert made == days                      # one EvalDay per date: counting walk, choosing walk, both families
    made.clear()
    n = sum(1 for _ in generate_instances(EVAL, request))
    assert made == [EVAL] and n == count_instances([EVAL], request)


def test_a_conversion_is_made_once_per_calendar():
    day = protocol.EvalDay(EVAL)
    first = day["hebrew"]
    assert day["hebrew"] is first and day.refs(["gregorian", "hebrew"])["hebrew"] is first


# --------------------------------------------------------------------------------------------------
# calendars: other non-Gregorian sides
# --------------------------------------------------------------------------------------------------

def _program_answer(inst: dict) -> str:
    fam = FAMILIES["paper"]
    program = fam.reference_program(parse_question(inst["question"]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(program, {"search_calendar": search_calendar, "datetime": datetime, "timedelta": timedelta})
    return out.getvalue().strip().splitlines()[-1]


def test_calendars_beyond_the_paper_are_generated_read_back_and_answered():
    request = GenerationRequest(calendars="hebrew, julian, korean_lunar", polar_negatives=True, seed=3)
    insts = list(generate([EVAL], request))     # every gold is checked against the core while building
    assert len(insts) == count_instances([EVAL], request)
    # 8 date templates x 6 directions x 10 offsets + 4 festival templates x (7 Gregorian festivals x 3) x 5
    assert len(insts) == 8 * 6 * 10 + 4 * 21 * 5
    sides = {(i["source_calendar"], i["target_calendar"]) for i in insts}
    assert {s for pair in sides for s in pair} == {"gregorian", "hebrew", "julian", "korean_lunar"}
    assert any("Korean lunar calendar" in i["question"] for i in insts)
    picked = [i for i in insts if "korean_lunar" in (i["source_calendar"], i["target_calendar"])
              or "julian" in (i["source_calendar"], i["target_calendar"])][::7]
    assert any(i["gold"] is False for i in picked) and any(isinstance(i["gold"], dict) for i in picked)
    for inst in picked:   # read back, answered by the reference-code agent, judged by the rules judge
        parsed = parse_question(inst["question"])
        assert (parsed.source_calendar, parsed.target_calendar) == (inst["source_calendar"], inst["target_calendar"])
        assert judge_answer(inst, _program_answer(inst)).verdict == "CORRECT", inst["id"]


def test_the_papers_calendars_named_again_give_the_papers_instances():
    again = GenerationRequest(calendars=["persian", "shaka", "Hebrew", "hijri", "lunar"])
    assert again == GenerationRequest() and again.recorded() == {}


def test_an_evaluation_date_outside_a_chosen_calendars_data_is_one_line():
    with pytest.raises(GeneratorError) as e:
        list(generate([date(2098, 1, 1)], GenerationRequest(calendars="julian")))
    assert "\n" not in str(e.value) and "out of range" in str(e.value)


# --------------------------------------------------------------------------------------------------
# a family is its slice and one registry line
# --------------------------------------------------------------------------------------------------

class _Toy:
    """The smallest family: one question per date (what a new family's slice provides)."""

    name = "toy"
    summary = "one weekday question per date"
    reasoning_types = ("weekday",)
    question_formats = ("content",)
    directions = ("gregorian",)
    question_openings = ("'On which weekday'",)

    def per_date(self, request):
        return 1

    def plan(self, day, request):
        class Planned:
            strata = ("toy", day.isoformat())
        return [Planned()]

    def build(self, day, request, planned, search):
        for _ in planned:
            g = day["gregorian"]
            yield {"id": f"toy-{day.isoformat()}", "eval_date": day.isoformat(), "reasoning_type": "weekday",
                   "question": f"On which weekday is {g.display()}?", "answer": day.date.strftime("%A")}

    def strata(self, instance):
        return ("toy", instance["eval_date"])

    def parse(self, text):
        return None


def test_a_family_in_the_registry_is_generated_by_name(monkeypatch):
    monkeypatch.setattr(registry, "FAMILY_MODULES", (*registry.FAMILY_MODULES, "toy"))   # its registry line
    monkeypatch.setitem(families_module.FAMILIES, "toy", _Toy())                          # as families.py loads it
    request = GenerationRequest(families="paper,toy")
    got = list(generate([EVAL], request))
    assert len(got) == 1781 == count_instances([EVAL], request)
    assert got[-1]["answer"] == "Tuesday" and [encode(i) for i in got[:1780]] == \
        [encode(i) for i in generate_instances(EVAL)]


def test_a_familys_own_options_travel_in_the_request(tmp_path, capsys):
    from span_toolkit.client.commands.common import generation_request

    parser = argparse.ArgumentParser()
    cmd.configure(parser)
    args = parser.parse_args(["--date", "2025-07-01", "--families", "paper,dateaug",
                              "--family-option", "dateaug_ambiguous", "--family-option", "dateaug_limit=3"])
    r = generation_request(args)
    assert r.family_options == {"dateaug_ambiguous": True, "dateaug_limit": 3}
    assert r.recorded()["family_options"] == {"dateaug_ambiguous": True, "dateaug_limit": 3} and not r.is_paper
    assert run_cli("--date", "2025-07-01", "--family-option", "nosuch_thing", "--out", str(tmp_path / "x")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "<family>_<option>" in err and "paper" in err


def test_a_shorter_strata_key_is_padded_and_a_longer_one_refused(monkeypatch):
    from span_toolkit.span.benchmark.families import STRATA_LEVELS, strata_key

    assert strata_key(("a", "b")) == ("a", "b") + ("",) * (STRATA_LEVELS - 2)
    with pytest.raises(ValueError, match="toy: a strata key has at most"):
        strata_key(tuple("abcdefghij"), "toy")
    monkeypatch.setattr(registry, "FAMILY_MODULES", (*registry.FAMILY_MODULES, "toy"))
    monkeypatch.setitem(families_module.FAMILIES, "toy", _Toy())        # its keys have two levels
    got = list(generate_sample([EVAL, date(2024, 7, 1)], 30, GenerationRequest(families="paper,toy", seed=1)))
    assert len(got) == 30 and any(i["reasoning_type"] == "weekday" for i in got)
