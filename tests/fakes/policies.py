"""Scripted policies for the fake provider servers (importable by subprocess tests by name)."""

from __future__ import annotations

import json
import re

from .providers import Text, first_user_text, tool_results

ANSWERS_ENV = "SPAN_FAKE_ANSWERS"  # path of a JSON file {question: final answer text}

_answers: dict | None = None


def _load_answers() -> dict:
    global _answers
    if _answers is None:
        import os

        with open(os.environ[ANSWERS_ENV], encoding="utf-8") as f:
            _answers = json.load(f)
    return _answers


def oracle(body: dict, index: int):
    """Answers every question with its gold answer (looked up by question text)."""
    return Text("Final answer: " + _load_answers()[first_user_text(body)])


def always_yes(body: dict, index: int):
    return Text("Let me think. Final answer: Yes")


def echo_tools_count(body: dict, index: int):
    return Text(f"I saw {len(tool_results(body))} tool results.")


def number_in_question(body: dict) -> int | None:
    m = re.search(r"\d+", first_user_text(body))
    return int(m.group()) if m else None


BENCH_TOOL_ARGS = {"calendar": "hebrew", "year": 5785, "month": 4, "day": 5, "days": 27}


def toy_tool_then_answer(body: dict, index: int):
    """For tests.fakes.instances.toy_instances: one date_arithmetic call, then the gold answer (derived
    from the question text, so the policy needs no shared state)."""
    from .providers import ToolCalls

    if not tool_results(body):
        return ToolCalls([("date_arithmetic", BENCH_TOOL_ARGS)])
    q = first_user_text(body)
    m = re.search(r"date “?(\d+)”? days later|Gregorian calendar date (\d+) days later", q)
    day = int(next(g for g in m.groups() if g))
    return Text("Final answer: " + ("Yes" if "equivalent to the date" in q else f"2025-8-{day}"))
