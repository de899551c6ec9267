"""The rules judge: CORRECT / INCORRECT / NOT_ATTEMPTED, offline, no model — each task family judges its
own questions (span.benchmark.judge_answer dispatches). The rules are documented where they live: the
paper's in span/benchmark/paper/judge.py, the ordering and duration tasks' in
span/benchmark/extended/judge.py."""

from span_toolkit.span.benchmark import CORRECT, INCORRECT, NOT_ATTEMPTED, Verdict, judge_answer
from span_toolkit.span.benchmark.paper.judge import extract_final_date, extract_yes_no

RuleVerdict = Verdict  # the name results and tests have always used

__all__ = ["CORRECT", "INCORRECT", "NOT_ATTEMPTED", "RuleVerdict", "Verdict", "judge_answer", "extract_final_date",
           "extract_yes_no"]
