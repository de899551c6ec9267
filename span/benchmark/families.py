"""The task families, composed: which family an instance or a question belongs to, and the operations
every caller needs without knowing the families (execute an instance, judge an answer, stratify, read
a question back, answer it as an offline agent).

    paper      span.benchmark.paper      the SPAN paper's 12 templates (always generated)
    extended   span.benchmark.extended   ordering and duration questions (opt-in)
"""

from __future__ import annotations

from typing import Any

from ..search import search_calendar
from . import extended, paper
from .errors import QuestionParseError
from .family import NOT_ATTEMPTED, TaskFamily, Verdict

FAMILIES: dict[str, TaskFamily] = {f.name: f for f in (paper.FAMILY, extended.FAMILY)}
_BY_REASONING_TYPE = {rt: f for f in FAMILIES.values() for rt in f.reasoning_types}
REASONING_TYPES: tuple[str, ...] = tuple(_BY_REASONING_TYPE)
QUESTION_FORMATS: tuple[str, ...] = tuple(q for f in FAMILIES.values() for q in f.question_formats)
DIRECTIONS: tuple[str, ...] = tuple(d for f in FAMILIES.values() for d in f.directions)


def family_of(instance_or_parsed: Any) -> TaskFamily:
    """The family of an instance (a dict) or of a parsed question, by its reasoning type. An instance
    without a known one (a user's own file may hold only id, question and gold) is read as the paper's."""
    rt = (instance_or_parsed.get("reasoning_type") if isinstance(instance_or_parsed, dict)
          else getattr(instance_or_parsed, "reasoning_type", None))
    return _BY_REASONING_TYPE.get(rt, paper.FAMILY)


def parse_question(text: str):
    """Any family's question -> its parsed form (paper: ParsedQuestion; extended: ParsedExtendedQuestion)."""
    if not isinstance(text, str):
        raise QuestionParseError(f"expected a question string, got {type(text).__name__}")
    q = paper.parser.normalize(text)
    for fam in FAMILIES.values():
        parsed = fam.parse(q)
        if parsed is not None:
            return parsed
    raise QuestionParseError("not a SPAN question: expected it to start with "
                             "'Today's date on the <calendar> calendar is \"<date>\".' (or, for the "
                             "extended tasks, 'Which comes first:', 'Order these from earliest to latest:' "
                             "or 'How many days apart')")


def execute_instance(instance: dict, search=search_calendar):
    """Run a generated instance's code; return (raw answer, gold) with gold as the instance stores it."""
    return family_of(instance).execute(instance, search)


def judge_answer(instance: dict, answer: str | None) -> Verdict:
    """The instance's family judges the final answer (CORRECT / INCORRECT / NOT_ATTEMPTED)."""
    if answer is None or not str(answer).strip():
        return Verdict(NOT_ATTEMPTED, None, "empty answer")
    return family_of(instance).judge(instance, str(answer))


def instance_strata(instance: dict) -> tuple:
    return family_of(instance).strata(instance)
