"""The SPAN paper's task family (Table 1, Appendices A and F), top to bottom:

    templates.py   the 12 question templates and their code templates
    plan.py        what instances a date has (directions, festivals, offsets, polar negatives, formats)
    build.py       each instance's code, its gold by executing it, and the independent check
    parser.py      a question read back into its variables
    judge.py       the rules judge for answers to these questions
    answer.py      how the offline agents answer them (tools, program, baseline)
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable, Iterator

from ..execute import ExecutionError, answer_date, run_code
from ..family import Verdict
from ..protocol import EvalDay
from ..request import GenerationRequest
from . import answer as _answer
from . import judge as _judge
from .build import build_instances
from .parser import ParsedQuestion, looks_paper, parse_paper
from .plan import INSTANCES_PER_DATE, Spec, instance_strata, per_date, plan_day

REASONING_TYPES = ("date", "festival")


class PaperFamily:
    name = "paper"
    summary = ("the SPAN paper's 12 templates (Table 1): date and festival questions, content and polar, "
               "Gregorian to each chosen calendar and back")
    reasoning_types = REASONING_TYPES
    question_formats = ("content", "polar")
    directions = ("gregorian_to_other", "other_to_gregorian")
    question_openings = ("'Today's date on the <calendar> calendar is \"<date>\".'",)

    def per_date(self, request: GenerationRequest) -> int | None:
        return None if request.date_formats else per_date(request)

    def plan(self, day: EvalDay, request: GenerationRequest) -> Iterator[Spec]:
        return plan_day(day, request)

    def build(self, day: EvalDay, request: GenerationRequest, planned: Iterable[Spec], search: Any) -> Iterator[dict]:
        return build_instances(day, planned, request, search=search)

    def execute(self, instance: dict, search: Any) -> tuple[Any, Any]:
        raw = run_code(instance["code"], search, filename=f"<{instance.get('id', 'instance')}>")
        if instance["question_format"] == "polar":
            if not isinstance(raw, bool):
                raise ExecutionError(f"polar code must leave a bool, got {raw!r}")
            return raw, raw
        return raw, answer_date(raw, instance["target_calendar"]).as_dict()

    def strata(self, instance: dict) -> tuple:
        return instance_strata(instance)

    def parse(self, text: str) -> ParsedQuestion | None:
        return parse_paper(text) if looks_paper(text) else None

    def judge(self, instance: dict, answer: str) -> Verdict:
        return _judge.judge_answer(instance, answer)

    def reference_calls(self, parsed: ParsedQuestion) -> list[dict]:
        return _answer.reference_calls(parsed)

    def reference_answer(self, parsed: ParsedQuestion, results: list[dict]) -> str:
        return _answer.reference_answer(parsed, results)

    def reference_program(self, parsed: ParsedQuestion) -> str:
        return _answer.reference_program(parsed)

    def baseline_answer(self, parsed: ParsedQuestion) -> str:
        return _answer.baseline_answer(parsed)


FAMILY = PaperFamily()
