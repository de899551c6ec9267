"""The task-family registry, and the operations every caller needs without knowing the families (execute
an instance, judge an answer, stratify, read a question back).

Adding a family: its package ``span/benchmark/<name>/`` (whose ``FAMILY`` implements family.TaskFamily)
and one line in ``registry.FAMILY_MODULES``; ``GenerationRequest(families=(..., "<name>"))`` and
``span-client generate --families paper,<name>`` then generate it. The first family is the paper's, read
for instances that carry no reasoning type.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import Any

from ..search import search_calendar
from .errors import QuestionParseError
from .family import NOT_ATTEMPTED, TaskFamily, Verdict
from .registry import FAMILY_MODULES

FAMILIES: dict[str, TaskFamily] = {}
for _module in FAMILY_MODULES:
    _family = import_module(f".{_module}", __package__).FAMILY
    assert _family.name == _module, f"family {_family.name!r} registered as {_module!r}"
    FAMILIES[_family.name] = _family

_BY_REASONING_TYPE = {rt: f for f in FAMILIES.values() for rt in f.reasoning_types}
_DEFAULT = FAMILIES[FAMILY_MODULES[0]]
REASONING_TYPES: tuple[str, ...] = tuple(_BY_REASONING_TYPE)
QUESTION_FORMATS: tuple[str, ...] = tuple(q for f in FAMILIES.values() for q in f.question_formats)
DIRECTIONS: tuple[str, ...] = tuple(d for f in FAMILIES.values() for d in f.directions)


def family_of(instance_or_parsed: Any) -> TaskFamily:
    """The family of an instance (a dict) or of a parsed question, by its reasoning type. An instance
    without a known one (a user's own file may hold only id, question and gold) is read as the paper's."""
    rt = (instance_or_parsed.get("reasoning_type") if isinstance(instance_or_parsed, dict)
          else getattr(instance_or_parsed, "reasoning_type", None))
    return _BY_REASONING_TYPE.get(rt, _DEFAULT)


def parse_question(text: str):
    """Any family's question -> its parsed form (paper: ParsedQuestion; extended: ParsedExtendedQuestion)."""
    if not isinstance(text, str):
        raise QuestionParseError(f"expected a question string, got {type(text).__name__}")
    q = re.sub(r"\s+", " ", text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
               .replace("\u201d", '"')).strip()
    for fam in FAMILIES.values():
        parsed = fam.parse(q)
        if parsed is not None:
            return parsed
    openings = [o for f in FAMILIES.values() for o in f.question_openings]
    listed = openings[0] if len(openings) == 1 else ", ".join(openings[:-1]) + f" or {openings[-1]}"
    raise QuestionParseError(f"not a SPAN question: expected it to start with {listed}")


def execute_instance(instance: dict, search=search_calendar):
    """Run a generated instance's code; return (raw answer, gold) with gold as the instance stores it."""
    return family_of(instance).execute(instance, search)


def judge_answer(instance: dict, answer: str | None) -> Verdict:
    """The instance's family judges the final answer (CORRECT / INCORRECT / NOT_ATTEMPTED)."""
    if answer is None or not str(answer).strip():
        return Verdict(NOT_ATTEMPTED, None, "empty answer")
    return family_of(instance).judge(instance, str(answer))


# A sampling key has this many levels, most important first (the paper's: direction, reasoning type,
# question format, polar answer, date format, evaluation date, template); a family's shorter key is padded.
STRATA_LEVELS = 7


def strata_key(key: tuple, family: str = "") -> tuple:
    """A family's strata tuple as the sampler takes it: STRATA_LEVELS levels (a shorter one padded)."""
    key = tuple(key)
    if len(key) > STRATA_LEVELS:
        raise ValueError(f"task family {family or '?'}: a strata key has at most {STRATA_LEVELS} levels, got "
                         f"{len(key)}: {key!r:.120}")
    return key + ("",) * (STRATA_LEVELS - len(key))


def instance_strata(instance: dict) -> tuple:
    fam = family_of(instance)
    return strata_key(fam.strata(instance), fam.name)
