"""How the offline agents answer a paper question — from the parsed question text alone, never from an
instance's gold or code:

* the reference agent asks one MCP tool (``reference_calls``: ``date_arithmetic`` for a date question,
  ``search_calendar`` for a festival question) and answers from its structured result
  (``reference_answer``: the target calendar's date, or for a polar question whether it is the expected
  date);
* the reference-code agent writes a program (``reference_program``: ``search_calendar`` and ``datetime``,
  the paper's Time Agent style) whose last printed line is the answer;
* the baseline is the floor (``baseline_answer``: "Yes" to every polar question, the reference date
  copied as every content answer).
"""

from __future__ import annotations

from ...calendars import CALENDAR_NAMES, canonical_name, get_calendar
from ...errors import CalendarError
from ...search import result_key
from ..snippets import code_calendar, leap_key
from .parser import ParsedQuestion


def _cal(name: str) -> str:
    try:
        return canonical_name(name)
    except CalendarError:
        return name


def _with_target(args: dict, q: ParsedQuestion) -> dict:
    """Results hold the paper's six calendars by default; any other target is asked for by name."""
    target = _cal(q.target_calendar)
    return {**args, "targets": [target]} if target not in CALENDAR_NAMES else args


def reference_calls(q: ParsedQuestion) -> list[dict]:
    """The one tool call that answers `q`: [{"name": ..., "arguments": {...}}]."""
    ref = q.reference_date
    source = _cal(q.source_calendar)
    if q.reasoning_type == "festival":
        if q.unit not in ("years", None):
            raise ValueError(f"festival offset unit {q.unit!r} not understood")
        args = {"calendar": source, "year": ref.year + q.sign * int(q.offset), "festival_name": q.festival}
        return [{"name": "search_calendar", "arguments": _with_target(args, q)}]
    if q.unit not in ("days", "weeks"):
        raise ValueError(f"date offset unit {q.unit!r} not understood")
    args = {"calendar": source, "year": ref.year, "month": ref.month, "day": ref.day,
            "is_lunar_leap_month": bool(ref.is_leap_month), q.unit: q.sign * int(q.offset)}
    if ref.era is not None:  # an era calendar (japanese_era, roc): the year is counted in its era
        args["era"] = ref.era
    return [{"name": "date_arithmetic", "arguments": _with_target(args, q)}]


def reference_answer(q: ParsedQuestion, results: list[dict]) -> str:
    """The final answer text from the tool's structured result (the last one)."""
    if not results or not isinstance(results[-1], dict):
        raise ValueError("the tool result has no structured content")
    payload = results[-1]
    entry = payload.get("result", payload) if q.reasoning_type == "date" else payload
    target = _cal(q.target_calendar)
    info = entry.get(target) if isinstance(entry, dict) else None
    if info is None and isinstance(entry, dict):  # a calendar beyond the paper's six: asked for as a target
        info = (entry.get("more") or {}).get(target)
    if not isinstance(info, dict):
        raise ValueError(f"the tool result has no {target!r} date")
    if q.question_format == "polar":
        exp = q.expected_date
        if exp is None:
            raise ValueError("polar question without an expected date")
        same = (int(info["year"]), int(info["month"]), int(info["day"]), bool(info.get("is_leap_month"))) == (
            exp.year, exp.month, exp.day, bool(exp.is_leap_month))
        return f"Final answer: {'Yes' if same else 'No'}"
    return f"Final answer: {info['display']}"


def baseline_answer(q: ParsedQuestion) -> str:
    if q.question_format == "polar":
        return "Final answer: Yes"
    return f"Final answer: {q.reference_date.display()}"


# ------------------------------------------------------------------------------------------ program

def _month_names(calendar: str) -> dict[int, str]:
    cal = get_calendar(calendar)
    return {} if cal.numeric_display else dict(cal.month_names)


def _render_lines(target: str) -> list[str]:
    """Code that prints the variable `result` (a search_calendar dict) as a date in `target`."""
    key = result_key(target)
    lines = [f'y, m, d = map(int, result["{key}"].split("-"))']
    names = _month_names(target)
    if names:
        lines.append(f"MONTHS = {names!r}")
        lines.append('print(f"{d} {MONTHS[m]} {y}")')
    elif leap_key(target) is not None:
        lines.append(f'print(f"{{y}}-leap{{m}}-{{d}}" if result["{leap_key(target)}"] else f"{{y}}-{{m}}-{{d}}")')
    else:
        lines.append('print(f"{y}-{m}-{d}")')
    return lines


def _compare_lines(target: str, expected) -> list[str]:
    key = result_key(target)
    lines = [f'y, m, d = map(int, result["{key}"].split("-"))',
             f"same = (y, m, d) == ({expected.year}, {expected.month}, {expected.day})"]
    if leap_key(target) is not None:
        lines.append(f'same = same and bool(result["{leap_key(target)}"]) == {bool(expected.is_leap_month)}')
    lines.append('print("Yes" if same else "No")')
    return lines


def reference_program(q: ParsedQuestion) -> str:
    """The reference-code agent's program (its last printed line is the answer)."""
    ref, src, tgt = q.reference_date, q.source_calendar, q.target_calendar
    cal = code_calendar(src)
    more = f', targets=["{tgt}"]' if tgt not in CALENDAR_NAMES else ""  # beyond the six: asked for by name
    lines: list[str] = []
    if q.reasoning_type == "festival":
        if '"' in q.festival or "\\" in q.festival:
            raise ValueError(f"festival name cannot be written as a string literal: {q.festival!r}")
        lines.append(f'result = search_calendar(calendar="{cal}", year={ref.year} {"+" if q.sign > 0 else "-"} '
                     f'{q.offset}, festival_name="{q.festival}"{more})')
    else:
        op = "+" if q.sign > 0 else "-"
        shift = f"timedelta({q.unit}={q.offset})"
        if src == "gregorian":
            lines.append(f"day = datetime({ref.year}, {ref.month}, {ref.day}) {op} {shift}")
        else:
            leap = ", is_lunar_leap_month=True" if ref.is_leap_month else ""
            leap += f', era="{ref.era}"' if ref.era is not None else ""
            lines.append(f'today = search_calendar(calendar="{cal}", year={ref.year}, month={ref.month}, '
                         f'day={ref.day}{leap})')
            lines.append(f'day = datetime.strptime(today["gregorian_date"], "%Y-%m-%d") {op} {shift}')
        lines.append('result = search_calendar(calendar="gregorian", year=day.year, month=day.month, day=day.day'
                     + more + ')')
    if q.question_format == "polar":
        lines += _compare_lines(tgt, q.expected_date)
    else:
        lines += _render_lines(tgt)
    return "\n".join(lines) + "\n"
