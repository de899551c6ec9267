"""Beyond the paper (issue 15): cross-calendar ordering and duration questions, opt-in — a task family
read top to bottom:

    questions.py   items, the three templates, reading a question back
    build.py       planning a date's 344 questions, their code, gold by executing it, the independent check
    judge.py       the rules judge for answers to these questions
    answer.py      how the offline agents answer them (tools, program, baseline)

    from <the core>.benchmark import GenerationRequest, generate 
    request = GenerationRequest(families=("paper", "extended"))
    for inst in generate([date(2025, 7, 1)], request):   # 1,780 paper + 344 extended
        ...

The paper's instances are unchanged (and come first); the extended ones have reasoning_type
"ordering" (question_format "choice", answer "A"/"B" or "B, C, A") or "duration" (question_format
"numeric", answer a whole number of days), direction "cross_calendar".
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable, Iterator

from ..errors import QuestionParseError
from ..family import Verdict
from ..protocol import EvalDay
from ..request import GenerationRequest
from .answer import answer_extended, answer_from_results, baseline_answer, final_answer_text, tool_calls
from .build import (EXTENDED_PER_DATE, TEMPLATE_COUNTS, PlannedQuestion, build_extended, execute_extended,
                    extended_code, generate_extended, plan_extended)
from .judge import judge_extended, judge_extended_detail
from .questions import (CALENDARS, DIRECTION, QUESTION_FORMATS, REASONING_TYPES, Item, ParsedExtendedQuestion,
                        answer_from_ordinals, looks_extended, parse_extended, parse_item, render_question,
                        template_id)


def instance_strata(inst: dict) -> tuple:
    """One top-level stratum per task beside the paper's 10 directions."""
    return strata(inst["reasoning_type"], inst["template_id"], inst["source_calendar"], inst["target_calendar"],
                  inst["question_format"], inst["variables"].get("date_format", "paper"), inst["eval_date"])


def strata(reasoning_type: str, template_id: str, source: str, target: str, question_format: str,
           date_format: str, eval_date: str) -> tuple:
    return (f"extended:{reasoning_type}", template_id, f"{source}->{target}", question_format, "yes",
            date_format, eval_date)


class ExtendedFamily:
    name = "extended"
    summary = ("beyond the paper: cross-calendar ordering and duration questions over the paper's six "
               "calendars (344 per date)")
    reasoning_types = REASONING_TYPES
    question_formats = tuple(QUESTION_FORMATS[rt] for rt in REASONING_TYPES)
    directions = (DIRECTION,)
    question_openings = ("'Which comes first:'", "'Order these from earliest to latest:'", "'How many days apart'")

    def per_date(self, request: GenerationRequest) -> int:
        return EXTENDED_PER_DATE

    def plan(self, day: EvalDay, request: GenerationRequest) -> list[PlannedQuestion]:
        return plan_extended(day, request.seed)

    def build(self, day: EvalDay, request: GenerationRequest, planned: Iterable[PlannedQuestion], search: Any
              ) -> Iterator[dict]:
        return build_extended(day.date, planned, search=search)

    def execute(self, instance: dict, search: Any) -> tuple[Any, Any]:
        return execute_extended(instance, search)

    def strata(self, instance: dict) -> tuple:
        return instance_strata(instance)

    def parse(self, text: str) -> ParsedExtendedQuestion | None:
        if not looks_extended(text):
            return None
        try:
            return parse_extended(text)
        except ValueError as exc:  # CalendarError included
            raise QuestionParseError(f"extended question: {exc}") from None

    def judge(self, instance: dict, answer: str) -> Verdict:
        return judge_extended_detail(instance, answer)

    def reference_calls(self, parsed: ParsedExtendedQuestion) -> list[dict]:
        return tool_calls(parsed)

    def reference_answer(self, parsed: ParsedExtendedQuestion, results: list[dict]) -> str:
        return final_answer_text(answer_from_results(parsed, results[-len(parsed.items):]))

    def reference_program(self, parsed: ParsedExtendedQuestion) -> str:
        return extended_code(parsed.reasoning_type, parsed.items)

    def baseline_answer(self, parsed: ParsedExtendedQuestion) -> str:
        return baseline_answer(parsed)


FAMILY = ExtendedFamily()

__all__ = [
    "CALENDARS", "DIRECTION", "QUESTION_FORMATS", "REASONING_TYPES", "Item", "ParsedExtendedQuestion",
    "answer_from_ordinals", "parse_extended", "parse_item", "render_question", "template_id",
    "EXTENDED_PER_DATE", "TEMPLATE_COUNTS", "execute_extended", "extended_code", "generate_extended",
    "plan_extended", "answer_extended", "answer_from_results", "final_answer_text", "tool_calls",
    "judge_extended", "judge_extended_detail", "FAMILY", "strata", "instance_strata",
]
