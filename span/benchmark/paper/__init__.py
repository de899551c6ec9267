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
from ..family import Options, Verdict
from . import answer as _answer
from . import judge as _judge
from .build import build_instances
from .parser import ParsedQuestion, looks_paper, parse_paper
from .plan import INSTANCES_PER_DATE, Spec, instance_strata, plan_instances

REASONING_TYPES = ("date", "festival")


class PaperFamily:
    name = "paper"
    reasoning_types = REASONING_TYPES
    question_formats = ("content", "polar")
    directions = ("gregorian_to_other", "other_to_gregorian")

    def per_date(self, options: Options) -> int:
        if not options.date_formats:
            return INSTANCES_PER_DATE
        raise ValueError("the count with date_formats depends on the date; plan it")

    def plan(self, eval_date: date, options: Options) -> Iterator[Spec]:
        return plan_instances(eval_date, polar_negatives=options.polar_negatives, date_formats=options.date_formats,
                              seed=options.seed, islamic_convention=options.islamic_convention)

    def build(self, eval_date: date, options: Options, planned: Iterable[Spec], search: Any) -> Iterator[dict]:
        return build_instances(eval_date, planned, polar_negatives=options.polar_negatives, seed=options.seed,
                               islamic_convention=options.islamic_convention, search=search)

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
