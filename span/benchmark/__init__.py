"""The SPAN benchmark: the paper's evaluation protocol, instantiated for any Gregorian date.

    from datetime import date
    from <the core>.benchmark import GenerationRequest, generate, parse_question
    for inst in generate([date(2025, 7, 1)]):   # 1,780 dicts (instance JSONL schema): the paper's protocol
        ...

    generate(days, GenerationRequest(families=("paper", "extended")))   # + 344 ordering/duration instances
    generate(days, GenerationRequest(islamic_convention="umm_al_qura"))   # Islamic side on Umm al-Qura

Layout: one typed GenerationRequest (``request.py``) names everything generated; the task families
(``paper/``, ``extended/``, …: questions, build and gold, parser, judge, offline answers) behind one
interface (``family.py``), listed in one registry (``registry.py``, loaded by ``families.py``); shared ground in ``protocol.py``
(calendars, directions, festivals, conventions, the EvalDay of stage 1), ``evaldates.py``,
``execute.py``, ``snippets.py``, ``formats.py``; ``generate.py`` streams and samples (``sampling.py``);
``jsonl.py`` writes.
"""

from . import extended, formats, paper
from .errors import GeneratorError, GoldMismatchError, QuestionParseError
from .evaldates import (EVAL_DATE_RANGES, MAX_EVAL_DATE, MIN_EVAL_DATE, PAPER_EVAL_DATES, UQ_MAX_EVAL_DATE,
                        UQ_MIN_EVAL_DATE, check_eval_date, check_request_date, date_range, parse_dates_spec,
                        parse_eval_date)
from .execute import CachedSearch, ExecutionError, answer_date, run_code
from .extended import EXTENDED_PER_DATE, ParsedExtendedQuestion, answer_extended, generate_extended, judge_extended
from .families import FAMILIES, FAMILY_MODULES, execute_instance, family_of, instance_strata, judge_answer, parse_question
from .family import CORRECT, INCORRECT, NOT_ATTEMPTED, Options, TaskFamily, Verdict
from .generate import (count_instances, generate, generate_instances, generate_many, generate_sample,
                       sample_instances)
from .paper.parser import ParsedQuestion
from .paper.plan import INSTANCES_PER_DATE, plan_instances
from .paper.templates import DATE_TEMPLATES, FESTIVAL_TEMPLATES, TEMPLATES, QuestionTemplate
from .protocol import (DIRECTIONS, FESTIVAL_PAIRS, ISLAMIC_CALENDAR, ISLAMIC_CONVENTIONS, NON_GREGORIAN,
                       PAPER_FESTIVALS, EvalDay, calendars_for, check_convention, directions_among,
                       directions_for, festival_pairs_among, festival_pairs_for, festivals_for, reference_dates)
from .request import GenerationRequest, check_calendars, check_families
from .sampling import StratifiedChooser, stratified_indices

__all__ = [
    "TEMPLATES", "DATE_TEMPLATES", "FESTIVAL_TEMPLATES", "QuestionTemplate", "DIRECTIONS", "FESTIVAL_PAIRS",
    "INSTANCES_PER_DATE", "MAX_EVAL_DATE", "MIN_EVAL_DATE", "PAPER_EVAL_DATES", "PAPER_FESTIVALS",
    "GeneratorError", "GoldMismatchError", "check_eval_date", "date_range", "generate_instances",
    "generate_many", "generate_sample", "parse_dates_spec", "parse_eval_date", "plan_instances",
    "reference_dates", "sample_instances", "stratified_indices", "CachedSearch", "ExecutionError",
    "answer_date", "execute_instance", "run_code", "ParsedQuestion", "QuestionParseError", "parse_question",
    "formats", "extended", "paper", "EVAL_DATE_RANGES", "ISLAMIC_CALENDAR", "ISLAMIC_CONVENTIONS",
    "UQ_MAX_EVAL_DATE", "UQ_MIN_EVAL_DATE", "calendars_for", "check_convention", "directions_for",
    "festival_pairs_for", "festivals_for", "EXTENDED_PER_DATE", "ParsedExtendedQuestion", "answer_extended",
    "generate_extended", "judge_extended", "FAMILIES", "family_of", "instance_strata", "judge_answer",
    "count_instances", "StratifiedChooser", "CORRECT", "INCORRECT", "NOT_ATTEMPTED", "Options", "TaskFamily", "Verdict",
    "GenerationRequest", "check_calendars", "check_families", "generate", "EvalDay", "FAMILY_MODULES",
    "NON_GREGORIAN", "directions_among", "festival_pairs_among", "check_request_date",
]
