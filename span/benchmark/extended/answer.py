"""Answering a parsed ordering / duration question with a converter (for the offline reference agent).

The agent reads the question (``parse_question``), looks every item up with the MCP ``search_calendar``
tool (``tool_calls``: one call per item, all independent), and answers from the tools' results only
(``answer_from_results``) -- never from the instance's gold. ``answer_extended`` does the same with any
callable that turns an item into its day.
"""

from __future__ import annotations

from typing import Callable, Iterable

from .questions import Item, ParsedExtendedQuestion, answer_from_ordinals, ordinal_of


def tool_calls(parsed: ParsedExtendedQuestion) -> list[dict]:
    """[{"name": "search_calendar", "arguments": {...}}, ...], one per item in A, B[, C] order."""
    return [{"name": "search_calendar", "arguments": item.search_arguments()} for item in parsed.items]


def answer_from_results(parsed: ParsedExtendedQuestion, results: Iterable) -> str:
    """The final answer text from the items' search_calendar results, in item order. A result is the
    MCP tool's structured output (a CrossCalendarEntry dict: its "gregorian" entry is read), the paper's
    dict ("gregorian_date": "Y-M-D"), a datetime.date or a CalendarDate."""
    results = list(results)
    if len(results) != len(parsed.items):
        raise ValueError(f"need one result per item ({len(parsed.items)}), got {len(results)}")
    return answer_from_ordinals(parsed.reasoning_type, [ordinal_of(r) for r in results])


def answer_extended(parsed: ParsedExtendedQuestion, convert: Callable[[Item], object]) -> str:
    """The answer ("B", "B, C, A" or "45") with `convert(item)` giving each item's day (any form
    answer_from_results reads)."""
    return answer_from_results(parsed, [convert(item) for item in parsed.items])


def final_answer_text(answer: str) -> str:
    """How the reference agent states it (the judge reads the text after "Final answer:")."""
    return f"Final answer: {answer}"


def baseline_answer(parsed: ParsedExtendedQuestion) -> str:
    """The floor: no difference at all for a duration, the items in the order written for an ordering."""
    if parsed.reasoning_type == "duration":
        return "Final answer: 0 days"
    return "Final answer: " + (", ".join(parsed.labels) if len(parsed.items) > 2 else "A")
