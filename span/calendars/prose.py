"""Calendar facts as words, derived from the registry (``span.calendars.REGISTRY``): how many calendars
there are, which, and their titles. Every text that names or counts the calendars (the MCP server's
instructions, tool descriptions and --help, server.json) is built from these, so a calendar added to the
registry is counted and named everywhere with no other edit (tests/test_calendar_facts.py checks that no
file counts or lists them by hand).

    count_text()        "eleven calendars"
    paper_and_more()    "the SPAN paper's six (Gregorian, …, Persian) and Julian, …, Korean lunar"
"""

from __future__ import annotations

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_word(n: int) -> str:
    """0..99 in English words ("eleven", "twenty-one"); larger numbers as digits."""
    if not 0 <= n < 100:
        return f"{n:,}"
    if n < 20:
        return _UNITS[n]
    tens, unit = divmod(n, 10)
    return _TENS[tens] + (f"-{_UNITS[unit]}" if unit else "")


def listing(items, conjunction: str = "and") -> str:
    """"A", "A and B", "A, B and C"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def _registry():
    from . import ALL_CALENDAR_NAMES, CALENDAR_NAMES, EXTRA_CALENDAR_NAMES, get_calendar

    return ALL_CALENDAR_NAMES, CALENDAR_NAMES, EXTRA_CALENDAR_NAMES, get_calendar


def count_text(names=None) -> str:
    """"eleven calendars": how many calendars the core converts (or how many `names` holds)."""
    all_names = _registry()[0] if names is None else tuple(names)
    return f"{number_word(len(all_names))} calendar{'' if len(all_names) == 1 else 's'}"


def titles(names) -> list[str]:
    """The calendars' titles, in the order given."""
    get_calendar = _registry()[3]
    return [get_calendar(n).title for n in names]


def paper_and_more(*, canonical: bool = False) -> str:
    """"the SPAN paper's six (Gregorian, …) and Julian, …" — the paper's calendars, then the others, by
    title (or by canonical name with canonical=True)."""
    _, paper, extra, _ = _registry()
    name = (lambda ns: list(ns)) if canonical else titles
    text = f"the SPAN paper's {number_word(len(paper))} ({', '.join(name(paper))})"
    return text + (f" and {listing(name(extra))}" if extra else "")


__all__ = ["number_word", "listing", "count_text", "titles", "paper_and_more"]
