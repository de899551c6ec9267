"""What a task family is: one kind of question, read top to bottom in its own package.

A family owns everything about its questions: how they are planned and built with their gold (the
instance's own code, executed and checked against the core), how its question text is read back, how a
free-text answer is judged, and how the offline agents answer it (the reference agent through the MCP
tools, the reference-code agent with a program, the baseline floor). ``span.benchmark.families`` composes
the families; nothing outside a family branches on its reasoning types.

The families are listed in ``span.benchmark.registry`` (FAMILY_MODULES) and loaded by
``span.benchmark.families``; a GenerationRequest names the ones to generate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Protocol

from .protocol import EvalDay
from .request import GenerationRequest

CORRECT, INCORRECT, NOT_ATTEMPTED = "CORRECT", "INCORRECT", "NOT_ATTEMPTED"


@dataclass(frozen=True)
class Verdict:
    """A rules judge's grade of one answer."""

    verdict: str           # CORRECT | INCORRECT | NOT_ATTEMPTED
    extracted: str | None  # the answer as read: "Yes"/"No", a date in display form, "B, C, A", "45"
    reason: str

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "extracted": self.extracted, "reason": self.reason}


# How instances are generated: one GenerationRequest, handed whole to every family (``Options`` is its old
# name, kept for callers of the family interface).
Options = GenerationRequest


class Planned(Protocol):
    """One instance before it is built: enough to stratify a sample on (a tuple of at most
    families.STRATA_LEVELS levels, most important first; the same as ``strata(instance)`` once built)."""

    @property
    def strata(self) -> tuple: ...


class TaskFamily(Protocol):
    """A family: a package ``span/benchmark/<name>/`` whose ``FAMILY`` implements this, and one line in
    ``registry.FAMILY_MODULES``. Generation gets the evaluation date as an EvalDay (its dates in every
    calendar, each converted once for all families) and the whole GenerationRequest."""

    name: str
    summary: str                      # one line: what the family asks (CLI help, docs)
    reasoning_types: tuple[str, ...]
    question_formats: tuple[str, ...]
    directions: tuple[str, ...]
    question_openings: tuple[str, ...]  # how its questions start (the parse error names them)

    # generation
    def per_date(self, request: GenerationRequest) -> int | None: ...   # None: plan a date to count
    def plan(self, day: EvalDay, request: GenerationRequest) -> Iterable[Planned]: ...
    def build(self, day: EvalDay, request: GenerationRequest, planned: Iterable[Planned],
              search: Any) -> Iterator[dict]: ...
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
