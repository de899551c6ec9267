"""DateAugBench's tasks (the Date Fragments paper, date-fragments-paper.txt), as a task family read top
to bottom:

    formats.py     the written forms of a Gregorian date (1600-2600 and beyond), their notes, reading them
    questions.py   the two templates and reading a question back
    build.py       planning a date's 320 questions (four periods), their code, gold by executing it
    judge.py       the rules judge (yes/no; a date in any form, any gold variant)
    answer.py      how the offline agents answer (tools, program, baseline)

    format_switch    "Are "20250314" (YYYYMMDD) and "March 14th, 2025" the same date? Answer Yes or No."
    date_arithmetic  "What date is 10,000 days before "5/4/2025" (M/D/YYYY)? Answer with the date."

Selected with ``span-client generate --families dateaug`` (alone or beside paper/extended). The
fragmentation ratio of each instance's date strings is computed by the client (its date_fragmentation module):
the core stays free of tokenizers.

Options (off by default; ``dateaug_ambiguous`` / ``dateaug_cross_calendar`` on the generation request, or the
keyword arguments of generate_dateaug): ``ambiguous`` writes the slash forms of arithmetic base dates without their
pattern note ("5/4/2025"); the gold then lists the answer of every reading ("2022-11-18; 2022-12-17"
style) and the judge accepts any of them, as DateAugBench's gold sets do. ``cross_calendar`` adds 60
format-switching questions between a Hebrew, Islamic or Chinese lunar date and a Gregorian one (cross.py). Context-based resolution
(TimeQA passages) is not part of the family: its passages and answers are not available offline.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable, Iterator

from ..errors import GeneratorError, QuestionParseError
from ..family import Verdict
from . import formats
from .answer import answer_from_results, baseline_answer, program, tool_calls
from .build import (ARITH_FORMATS, DATEAUG_PER_DATE, NEAR_MISSES, PERIODS, SWITCH_FORMATS, PlannedDateaug,
                    build_dateaug, execute_dateaug, generate_dateaug, period_of, plan_dateaug)
from .cross import CROSS_PER_DATE, DIRECTION as CROSS_DIRECTION
from .judge import extract_answer_date, judge_dateaug
from .questions import DIRECTION, QUESTION_FORMATS, REASONING_TYPES, ParsedDateaug, looks_dateaug, parse_dateaug


OPTIONS = ("dateaug_ambiguous", "dateaug_cross_calendar")


def check_options(request: Any) -> None:
    """The request's dateaug_* family options: each one of OPTIONS, with a true/false value; else
    GeneratorError, one line naming the valid options (a typo must not pass as the default)."""
    opts = getattr(request, "family_options", None)
    if not isinstance(opts, dict):
        return
    valid = f"valid dateaug options: {', '.join(OPTIONS)} (each true or false)"
    for key, value in opts.items():
        if not str(key).startswith("dateaug_"):
            continue
        if key not in OPTIONS:
            raise GeneratorError(f"unknown family option {str(key)[:40]!r}; {valid}")
        if not isinstance(value, bool):
            raise GeneratorError(f"family option {key}={str(value)[:40]}: not true or false; {valid}")
    convention = getattr(request, "islamic_convention", "tabular")
    if opts.get("dateaug_cross_calendar") is True and convention != "tabular":
        raise GeneratorError(f"dateaug_cross_calendar writes its Islamic dates on the tabular calendar (the paper's), "
                             f"not {convention}; valid: the option with --islamic-convention tabular, or without it")


def _option(request: Any, name: str) -> bool:
    """One of the family's own options (dateaug_ambiguous, dateaug_cross_calendar) from whatever carries the
    generation options: an attribute of the request, or a mapping it holds (family_options / extra)."""
    check_options(request)
    for holder in (request, getattr(request, "family_options", None), getattr(request, "extra", None)):
        val = holder.get(name) if isinstance(holder, dict) else getattr(holder, name, None) if holder is not None else None
        if val:
            return True
    return False


def _date_of(day: Any) -> date:
    """The evaluation date of an EvalDay (or a datetime.date)."""
    return day if isinstance(day, date) else day.date


def instance_strata(inst: dict) -> tuple:
    v = inst["variables"]
    return (f"dateaug:{inst['reasoning_type']}", inst["template_id"], v["period"], inst["question_format"],
            "no" if v.get("near_miss") else "yes", "+".join(v["formats"]), inst["eval_date"])


class DateaugFamily:
    name = "dateaug"
    summary = ("DateAugBench (the Date Fragments paper): same-date recognition across ten written forms and "
               "date arithmetic with the base date in five forms, over past, near-past, present and future dates")
    question_openings = ("'Are \"<date>\" and \"<date>\" the same date?'", "'What date is <N> days|weeks|months'")
    reasoning_types = REASONING_TYPES
    question_formats = tuple(QUESTION_FORMATS[rt] for rt in REASONING_TYPES)
    directions = (DIRECTION, CROSS_DIRECTION)

    def per_date(self, request: Any) -> int:
        return DATEAUG_PER_DATE + (CROSS_PER_DATE if _option(request, "dateaug_cross_calendar") else 0)

    def plan(self, day: Any, request: Any) -> list[PlannedDateaug]:
        return plan_dateaug(_date_of(day), getattr(request, "seed", 0), _option(request, "dateaug_ambiguous"),
                            _option(request, "dateaug_cross_calendar"))

    def build(self, day: Any, request: Any, planned: Iterable[PlannedDateaug], search: Any) -> Iterator[dict]:
        return build_dateaug(_date_of(day), planned, search)

    def execute(self, instance: dict, search: Any) -> tuple[Any, Any]:
        return execute_dateaug(instance, search)

    def strata(self, instance: dict) -> tuple:
        return instance_strata(instance)

    def parse(self, text: str) -> ParsedDateaug | None:
        if not looks_dateaug(text):
            return None
        try:
            return parse_dateaug(text)
        except ValueError as exc:
            raise QuestionParseError(f"dateaug question: {exc}") from None

    def judge(self, instance: dict, answer: str) -> Verdict:
        return judge_dateaug(instance, answer)

    def reference_calls(self, parsed: ParsedDateaug) -> list[dict]:
        return tool_calls(parsed)

    def reference_answer(self, parsed: ParsedDateaug, results: list[dict]) -> str:
        return answer_from_results(parsed, results)

    def reference_program(self, parsed: ParsedDateaug) -> str:
        return program(parsed)

    def baseline_answer(self, parsed: ParsedDateaug) -> str:
        return baseline_answer(parsed)


FAMILY = DateaugFamily()

__all__ = ["FAMILY", "DateaugFamily", "formats", "PERIODS", "SWITCH_FORMATS", "ARITH_FORMATS", "NEAR_MISSES",
           "DATEAUG_PER_DATE", "ParsedDateaug", "parse_dateaug", "plan_dateaug", "build_dateaug",
           "generate_dateaug", "execute_dateaug", "judge_dateaug", "extract_answer_date", "period_of",
           "instance_strata"]
