"""Pieces of the Appendix-F style code every task family writes: how a calendar is named in code and how
a ``search_calendar(...)`` call is written.

The paper's code names its six calendars with its own keywords ("lunar" for the Chinese calendar); a
calendar beyond the six (``islamic_umm_al_qura``) is named canonically and, as a target, asked for with
``targets=[...]``, since search_calendar returns the paper's six keys unless asked for more.
"""

from __future__ import annotations

from ..calendars import get_calendar
from ..search import RESULT_KEYS

# The paper's calendar keywords in code (Appendix F: "gregorian", "lunar", "islamic", ...).
CODE_CALENDAR = {"gregorian": "gregorian", "chinese_lunar": "lunar", "islamic": "islamic",
                 "hebrew": "hebrew", "shaka": "shaka", "persian": "persian"}


def code_calendar(calendar: str) -> str:
    """The calendar keyword in code: the paper's ("lunar") for its six, else the canonical name."""
    return CODE_CALENDAR.get(calendar, calendar)


def leap_key(calendar: str) -> str | None:
    """The search_calendar key saying whether the day is in a leap month, for a calendar with leap months
    ("lunar_is_leap_month" for the Chinese lunar calendar, as the paper's code reads it; "<name>_is_leap_month"
    for one asked for as a target); None for a calendar without them."""
    if calendar == "chinese_lunar":
        return "lunar_is_leap_month"
    return f"{calendar}_is_leap_month" if get_calendar(calendar).has_leap_months else None


def search_call(calendar: str, args: list[tuple[str, str]], target: str | None = None) -> str:
    """``calendar = search_calendar(...)`` with one keyword argument per line, as Appendix F writes it."""
    lines = [f'    calendar="{code_calendar(calendar)}",'] + [f"    {k}={v}," for k, v in args]
    if target is not None and target not in RESULT_KEYS:
        lines.append(f'    targets=["{target}"],')
    return "calendar = search_calendar(\n" + "\n".join(lines) + "\n)\n"
