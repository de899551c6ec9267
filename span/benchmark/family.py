"""What a task family is: one kind of question, read top to bottom in its own package.

A family owns everything about its questions: how they are planned and built with their gold (the
instance's own code, executed and checked against the core), how its question text is read back, how a
free-text answer is judged, and how the offline agents answer it (the reference agent through the MCP
tools, the reference-code agent with a program, the baseline floor). ``span.benchmark.families`` composes
the families; nothing outside a family branches on its reasoning types.

    paper      the SPAN paper's 12 templates (date, festival; content, polar)     span.benchmark.paper
    extended   beyond the paper: ordering and duration questions (opt-in)          span.benchmark.extended
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Iterable, Iterator, Protocol

CORRECT, INCORRECT, NOT_ATTEMPTED = "CORRECT", "INCORRECT", "NOT_ATTEMPTED"


@dataclass(frozen=True)
class Verdict:
    """A rules judge's grade of one answer."""

    verdict: str           # CORRECT | INCORRECT | NOT_ATTEMPTED
    extracted: str | None  # the answer as read: "Yes"/"No", a date in display form, "B, C, A", "45"
    reason: str

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "extracted": self.extracted, "reason": self.reason}


@dataclass(frozen=True)
class Options:
    """How instances are generated (every option off is the paper's protocol)."""

    polar_negatives: bool = False    # half of the polar questions get a near-miss expected date (gold "No")
    date_formats: bool = False       # every instance also in the source calendar's other written forms
    seed: Any = 0
    islamic_convention: str = "tabular"
    exclude_disputed: bool = False   # leave out instances whose gold depends on a disputed day (span.disputes)


class Planned(Protocol):
    """One instance before it is built: enough to stratify a sample on."""

    @property
    def strata(self) -> tuple: ...


class TaskFamily(Protocol):
    name: str
    reasoning_types: tuple[str, ...]
    question_formats: tuple[str, ...]
    directions: tuple[str, ...]

    # generation
    def per_date(self, options: Options) -> int: ...
    def plan(self, eval_date: date, options: Options) -> Iterable[Planned]: ...
    def build(self, eval_date: date, options: Options, planned: Iterable[Planned], search: Any) -> Iterator[dict]: ...
    def execute(self, instance: dict, search: Any) -> tuple[Any, Any]: ...
    def strata(self, instance: dict) -> tuple: ...

    # reading and judging
    def parse(self, text: str) -> Any | None: ...
    def judge(self, instance: dict, answer: str) -> Verdict: ...

    # the offline agents (never from an instance's gold or code: from the parsed question only)
    def reference_calls(self, parsed: Any) -> list[dict]: ...
    def reference_answer(self, parsed: Any, results: list[dict]) -> str: ...
    def reference_program(self, parsed: Any) -> str: ...
    def baseline_answer(self, parsed: Any) -> str: ...
