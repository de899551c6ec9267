"""The SPAN benchmark: the paper's evaluation protocol, instantiated for any Gregorian date.

    from datetime import date
    from span.benchmark import generate_instances, parse_question
    for inst in generate_instances(date(2025, 7, 1)):   # 1,780 dicts (instance JSONL schema)
        ...
"""

from .templates import TEMPLATES, DATE_TEMPLATES, FESTIVAL_TEMPLATES, QuestionTemplate
from .generate import (DIRECTIONS, FESTIVAL_PAIRS, INSTANCES_PER_DATE, MAX_EVAL_DATE, MIN_EVAL_DATE,
                       PAPER_EVAL_DATES, PAPER_FESTIVALS, GeneratorError, GoldMismatchError,
                       check_eval_date, date_range, generate_instances, generate_many, generate_sample,
                       parse_dates_spec, parse_eval_date, plan_instances, reference_dates,
                       sample_instances, stratified_indices)
from .execute import CachedSearch, ExecutionError, answer_date, execute_instance, run_code
from .question_parser import ParsedQuestion, QuestionParseError, parse_question
from . import formats

__all__ = [
    "TEMPLATES", "DATE_TEMPLATES", "FESTIVAL_TEMPLATES", "QuestionTemplate", "DIRECTIONS", "FESTIVAL_PAIRS",
    "INSTANCES_PER_DATE", "MAX_EVAL_DATE", "MIN_EVAL_DATE", "PAPER_EVAL_DATES", "PAPER_FESTIVALS",
    "GeneratorError", "GoldMismatchError", "check_eval_date", "date_range", "generate_instances",
    "generate_many", "generate_sample", "parse_dates_spec", "parse_eval_date", "plan_instances",
    "reference_dates", "sample_instances", "stratified_indices", "CachedSearch", "ExecutionError",
    "answer_date", "execute_instance", "run_code", "ParsedQuestion", "QuestionParseError", "parse_question",
    "formats",
]
