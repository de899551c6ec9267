"""How the offline agents answer a dateaug question — from the parsed question alone, never from an
instance's gold or code.

* The reference agent (with the MCP tools, those ``span-client eval`` offers by default) looks both dates of
  a format-switching question up with ``search_calendar`` (as it reads them) and answers "Yes" exactly when
  the tool gives the same day for both; for an arithmetic question it asks ``date_arithmetic``. The
  tools cover Gregorian 1900-01-01 .. 2100-12-31 (the window every calendar of the core shares) while
  this family's dates run from 1600 to 2600, so the agent moves the dates into the window by a whole
  number of years ``shift`` that changes nothing the answer depends on, and moves the tool's result back:
  - format switching: any multiple of 4 years (a shifted February 29 stays valid: in 1901-2099 every
    fourth year is a leap year); two dates are the same day exactly when their shifted copies are;
  - arithmetic by months: any shift (the family asks month steps only for days 1-28);
  - arithmetic by days or weeks: a multiple of 4 years such that every year the step can touch is a leap
    year exactly when its shifted year is (a multiple of 400 always qualifies; 1700, 1800, 2100, ...
    are common years). Where a step crosses such a common century year, the frame's image of that year
    is a leap year with one February 29 too many: the agent asks for the step and for one day more and
    keeps the second exactly when the first reached or passed that extra day. Where no shift works at
    all the agent says the tools cannot reach the date (an error of the agent, never a made-up answer).
* The reference-code agent (Time Agent) writes Python with ``datetime`` (proleptic Gregorian, years
  1-9999), prints the answer; it needs no window.
* The baseline: "Yes" to every format-switching question, the base date copied as every arithmetic answer.
"""

from __future__ import annotations

from datetime import date

from .questions import ParsedDateaug

WINDOW = (date(1900, 1, 1), date(2100, 12, 31))


def _is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _moved(d: date, years: int) -> date:
    return date(d.year + years, d.month, d.day)


def _in_window(d: date) -> bool:
    return WINDOW[0] <= d <= WINDOW[1]


def _shifts():
    """Candidate year shifts, smallest first: 0, then multiples of 4 (either sign) up to 1,200 years."""
    yield 0
    for k in range(1, 301):
        yield 4 * k
        yield -4 * k


def switch_shift(a: date, b: date) -> int:
    for s in _shifts():
        try:
            if _in_window(_moved(a, s)) and _in_window(_moved(b, s)):
                return s
        except ValueError:
            continue
    raise ValueError(f"the MCP tools (Gregorian {WINDOW[0]} .. {WINDOW[1]}) cannot hold both {a} and {b}")


def arith_plan(base: date, n: int, unit: str, sign: int) -> tuple[int, int | None]:
    """(shift, century): a year shift under which the tools' answer, moved back, is the answer (see the
    module docstring), and the common century year the shifted frame turns into a leap year (None when
    the frame's leap years are exactly the original's). Uses a bound on the years the step can reach,
    never its result."""
    span_years = n // 12 + 1 if unit == "months" else (n * (7 if unit == "weeks" else 1)) // 365 + 1
    lo, hi = (base.year, base.year + span_years) if sign > 0 else (base.year - span_years, base.year)
    best = None
    for s in _shifts():
        if not (WINDOW[0].year < lo + s and hi + s < WINDOW[1].year):
            continue
        if unit == "months":
            return s, None
        if s % 4:
            continue
        wrong = [y for y in range(lo, hi + 1) if _is_leap(y) != _is_leap(y + s)]
        if not wrong:
            return s, None
        if best is None and len(wrong) == 1 and not _is_leap(wrong[0]):
            best = (s, wrong[0])
    if best is not None:
        return best
    raise ValueError(f"the MCP tools cover Gregorian {WINDOW[0]} .. {WINDOW[1]}; {n} {unit} "
                     f"{'after' if sign > 0 else 'before'} {base} cannot be moved into that window by whole "
                     f"years")


def _arg(d: date) -> dict:
    return {"calendar": "gregorian", "year": d.year, "month": d.month, "day": d.day}


def _other_call(q: ParsedDateaug) -> dict:
    o = q.other
    args = {"calendar": o.calendar, "year": o.year, "month": o.month, "day": o.day}
    if o.is_leap_month:
        args["is_lunar_leap_month"] = True
    return {"name": "search_calendar", "arguments": args}


def tool_calls(q: ParsedDateaug) -> list[dict]:
    if q.other is not None:        # cross-calendar: the tool converts the other calendar's date
        return [_other_call(q)]
    if q.reasoning_type == "format_switch":
        a, b = q.readings[0][0][0], q.readings[1][0][0]
        s = switch_shift(a, b)
        # one call when both read as the same day (an MCP client need not run a call twice)
        return [{"name": "search_calendar", "arguments": _arg(_moved(d, s))} for d in ((a,) if a == b else (a, b))]
    base = q.readings[0][0][0]
    s, century = arith_plan(base, q.n, q.unit, q.sign)
    if century is None:
        return [{"name": "date_arithmetic", "arguments": {**_arg(_moved(base, s)), q.unit: q.sign * q.n}}]
    # The frame has one February 29 the original lacks (its image of the common year `century`): ask
    # for the step and for one day more; the answer picks the one that matches whether it was crossed.
    days = q.n * (7 if q.unit == "weeks" else 1)
    return [{"name": "date_arithmetic", "arguments": {**_arg(_moved(base, s)), "days": q.sign * k}}
            for k in (days, days + 1)]


def answer_from_results(q: ParsedDateaug, results: list) -> str:
    if not results or not isinstance(results[-1], dict):
        raise ValueError("the tool result has no structured content")
    payload = results[-1]
    if q.other is not None:
        same = _gregorian(payload) == q.readings[1][0][0]
        return f"Final answer: {'Yes' if same else 'No'}"
    if q.reasoning_type == "format_switch":
        a, b = q.readings[0][0][0], q.readings[1][0][0]
        wanted = 1 if a == b else 2
        if len(results) < wanted:
            raise ValueError("need the search_calendar result of each date")
        days = [_gregorian(r) for r in results[-wanted:]]
        a, b = days[0], days[-1]
        return f"Final answer: {'Yes' if a == b else 'No'}"
    base = q.readings[0][0][0]
    s, century = arith_plan(base, q.n, q.unit, q.sign)
    dates = [_result_date(r) for r in (results[-2:] if century is not None else results[-1:])]
    got = dates[0]
    if century is not None:
        extra = date(century + s, 2, 29)          # the frame's day that the original calendar lacks
        start = _moved(base, s)
        crossed = start < extra <= got if q.sign > 0 else got <= extra < start
        got = dates[1] if crossed else got
    return f"Final answer: {_moved(got, -s).isoformat()}"


def _gregorian(payload) -> date:
    """The Gregorian day of a search_calendar result (its "gregorian" entry)."""
    g = payload.get("gregorian") if isinstance(payload, dict) else None
    if not isinstance(g, dict):
        raise ValueError("the search_calendar result has no Gregorian date")
    return date(int(g["year"]), int(g["month"]), int(g["day"]))


def _result_date(payload) -> date:
    g = (payload.get("result") or {}).get("gregorian") if isinstance(payload, dict) else None
    if not isinstance(g, dict):
        raise ValueError("the date_arithmetic result has no Gregorian date")
    return date(int(g["year"]), int(g["month"]), int(g["day"]))


def program(q: ParsedDateaug) -> str:
    """The reference-code agent's program: datetime only (search_calendar for the cross-calendar option),
    the answer on the last printed line."""
    if q.other is not None:
        o, g = q.other, q.readings[1][0][0]
        leap = ", is_lunar_leap_month=True" if o.is_leap_month else ""
        cal = {"chinese_lunar": "lunar"}.get(o.calendar, o.calendar)
        return ("from datetime import date\n"
                f'r = search_calendar(calendar="{cal}", year={o.year}, month={o.month}, day={o.day}{leap})\n'
                'y, m, d = (int(x) for x in r["gregorian_date"].split("-"))\n'
                f'print("Yes" if date(y, m, d) == date({g.year}, {g.month}, {g.day}) else "No")\n')
    if q.reasoning_type == "format_switch":
        a, b = q.readings[0][0][0], q.readings[1][0][0]
        return ("from datetime import date\n"
                f"a = date({a.year}, {a.month}, {a.day})\n"
                f"b = date({b.year}, {b.month}, {b.day})\n"
                'print("Yes" if a == b else "No")\n')
    base = q.readings[0][0][0]
    if q.unit == "months":
        return ("from datetime import date\n"
                f"base = date({base.year}, {base.month}, {base.day})\n"
                f"y, m0 = divmod(base.month - 1 + ({q.sign * q.n}), 12)\n"
                "print(date(base.year + y, m0 + 1, base.day).isoformat())\n")
    return ("from datetime import date, timedelta\n"
            f"base = date({base.year}, {base.month}, {base.day})\n"
            f"print((base + timedelta({q.unit}={q.sign * q.n})).isoformat())\n")


def baseline_answer(q: ParsedDateaug) -> str:
    if q.reasoning_type == "format_switch":
        return "Final answer: Yes"
    return f"Final answer: {q.texts[0]}"


__all__ = ["tool_calls", "answer_from_results", "program", "baseline_answer", "switch_shift", "arith_plan"]
