"""Stage 4 of the protocol: run an instance's code and read its ``answer``.

The code runs with ``search_calendar`` (the core's paper interface) in its namespace, exactly as the
paper's code templates and Time Agent call it. Each snippet is compiled from its own text: the gold
answer is what *that* text computes.

``CachedSearch`` memoises search_calendar on its arguments (it is a pure function of them; every call
gets its own copy of the result). Within one evaluation date many snippets ask for the same
conversion (the five targets of a Gregorian date, content and polar twins), so this removes most of
the conversion work without changing any result.
"""

from __future__ import annotations

import builtins

from ..dates import CalendarDate
from ..errors import CalendarError
from ..search import search_calendar


class ExecutionError(RuntimeError):
    """An instance's code failed or left no usable ``answer``."""


class CachedSearch:
    def __init__(self, func=search_calendar, maxsize: int = 20000) -> None:
        self._func = func
        self._cache: dict = {}
        self._maxsize = maxsize

    def __call__(self, *args, **kwargs):
        if isinstance(kwargs.get("targets"), list):  # the Umm al-Qura code passes a list: key and call alike
            kwargs["targets"] = tuple(kwargs["targets"])
        # other lists are not hashable either: key them as tuples
        key = (args, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items())))
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= self._maxsize:
                self._cache.clear()
            hit = self._cache[key] = self._func(*args, **kwargs)
        return dict(hit)

    def clear(self) -> None:
        self._cache.clear()


def run_code(code: str, search=search_calendar, filename: str = "<span-instance>"):
    """Execute `code` with search_calendar available; return its ``answer`` variable."""
    namespace = {"search_calendar": search, "__builtins__": builtins}
    try:
        exec(compile(code, filename, "exec"), namespace)  # noqa: S102 - the benchmark's own code
    except Exception as exc:  # report which instance, keep the cause
        raise ExecutionError(f"{filename}: code raised {type(exc).__name__}: {exc}") from exc
    if "answer" not in namespace:
        raise ExecutionError(f"{filename}: code left no `answer` variable")
    return namespace["answer"]


def answer_date(answer, calendar: str) -> CalendarDate:
    """A content snippet's answer ("Y-M-D", or "Y-leapM-D" for a Chinese leap month) as a date."""
    if not isinstance(answer, str):
        raise ExecutionError(f"content code must leave a 'Y-M-D' string, got {answer!r}")
    try:
        y, m, d = answer.split("-")
        leap = m.startswith("leap")
        return CalendarDate.create(calendar, int(y), int(m.removeprefix("leap")), int(d), leap)
    except (ValueError, CalendarError) as exc:
        raise ExecutionError(f"content code left {answer!r}, not a valid {calendar} 'Y-M-D' date: {exc}") from exc
