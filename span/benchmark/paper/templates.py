"""The twelve question templates of the SPAN paper (Table 1) and their code templates (Appendix F style).

Question templates are the paper's wording with ASCII quotes (the paper typesets “ ” and ’; its own
Appendix F queries use plain quotes). The festival content row's "{n_d} ago" is the table's typo for
"{n_y} years ago" and is fixed here. Offsets are written as the paper writes them ("1 days ago").

Code templates follow the paper's two categories:
* Gregorian-to-Others: datetime arithmetic on the Gregorian reference date, then
  ``search_calendar(calendar="gregorian", ...)`` and ``calendar.get("<target>_date")``.
* Others-to-Gregorian: ``search_calendar`` with the source calendar (``is_lunar_leap_month=True`` for a
  Chinese leap reference month), then ``datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")``
  and datetime arithmetic.
* Festival templates: ``search_calendar(calendar=..., year=<reference year> ± n, event="...")``.
* A calendar beyond the paper's six (the Umm al-Qura convention, ``islamic_umm_al_qura``) is named by its
  canonical name in code; as a target it is asked for with ``targets=["islamic_umm_al_qura"]`` and read
  from its ``"islamic_umm_al_qura_date"`` key (span.search_calendar keeps the six keys by default).

A content snippet leaves ``answer`` as a "Y-M-D" string (search_calendar's form, e.g. "1380-1-1"; the
Others-to-Gregorian snippets end with ``strftime("%Y-%m-%d")``, e.g. "1965-06-28", as the paper's
Appendix F answer "2060-06-30"); for a Chinese lunar target whose result is a leap month it marks the
month the way answers are written ("2023-leap2-15"). A polar snippet leaves a bool.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dates import CalendarDate
from ...search import result_key
from ..protocol import calendar_title
from ..snippets import code_calendar, leap_key, search_call

DATE_OFFSETS = tuple(range(1, 11))      # n_d and n_w
YEAR_OFFSETS = tuple(range(1, 6))       # n_y


@dataclass(frozen=True)
class QuestionTemplate:
    template_id: str
    reasoning_type: str     # "date" | "festival"
    question_format: str    # "content" | "polar"
    unit: str               # "days" | "weeks" | "years"
    sense: str              # "ago" | "later"
    text: str               # the question after the shared prefix, with {ct} {n} {f} {cs} {exp}

    @property
    def sign(self) -> int:
        return -1 if self.sense == "ago" else 1


PREFIX = 'Today\'s date on the {cs} calendar is "{ref}"{note}.'


def _make() -> dict[str, QuestionTemplate]:
    out: dict[str, QuestionTemplate] = {}
    for rtype, units in (("date", ("days", "weeks")), ("festival", ("years",))):
        for qformat in ("content", "polar"):
            for unit in units:
                for sense in ("ago", "later"):
                    verb = ("What was" if sense == "ago" else "What is") if qformat == "content" \
                        else ("Was" if sense == "ago" else "Is")
                    what = "the {ct} calendar date" + (' of the {cs} festival "{f}"' if rtype == "festival" else "")
                    tail = ' equivalent to the date "{exp}"' if qformat == "polar" else ""
                    text = f"{verb} {what} {{n}} {unit} {sense}{tail}?"
                    tid = f"{rtype}_{qformat}_{unit}_{sense}"
                    out[tid] = QuestionTemplate(tid, rtype, qformat, unit, sense, text)
    return out


TEMPLATES: dict[str, QuestionTemplate] = _make()
DATE_TEMPLATES = tuple(t for t in TEMPLATES.values() if t.reasoning_type == "date")
FESTIVAL_TEMPLATES = tuple(t for t in TEMPLATES.values() if t.reasoning_type == "festival")
assert len(TEMPLATES) == 12 and len(DATE_TEMPLATES) == 8 and len(FESTIVAL_TEMPLATES) == 4


def festival_question_name(festival: str) -> str:
    """A festival as a question names it: the Umm al-Qura festivals by their usual name ("Eid al-Fitr"),
    since the question already names the calendar; every other festival by its canonical name."""
    return festival.removesuffix(" (Umm al-Qura)")


def render_question(t: QuestionTemplate, *, source: str, target: str, reference_text: str, offset: int,
                    festival: str | None = None, expected_text: str | None = None, note: str = "") -> str:
    cs, ct = calendar_title(source), calendar_title(target)
    head = PREFIX.format(cs=cs, ref=reference_text, note=note)
    fest = festival_question_name(festival) if festival is not None else None
    body = t.text.format(ct=ct, cs=cs, n=offset, f=fest, exp=expected_text)
    return f"{head} {body}"


# ---------------------------------------------------------------------------------------------
# Code templates
# ---------------------------------------------------------------------------------------------

def _content_tail(target: str) -> str:
    key, leap = result_key(target), leap_key(target)
    if leap is not None:
        return (f'answer = calendar.get("{key}")\n'
                f'if calendar.get("{leap}"):\n'
                '    answer = answer.replace("-", "-leap", 1)\n')
    return f'answer = calendar.get("{key}")\n'


def _polar_tail(target: str, expected: CalendarDate) -> str:
    key, leap = result_key(target), leap_key(target)
    conds = [f"year == {expected.year}", f"month == {expected.month}", f"day == {expected.day}"]
    if leap is not None:
        conds.append(f'calendar.get("{leap}")' if expected.is_leap_month
                     else f'not calendar.get("{leap}")')
    body = "\n    and ".join(conds)
    return (f'year, month, day = map(int, calendar.get("{key}").split("-"))\n\n'
            f"answer = bool(\n    {body}\n)\n")


def _var(n: int, unit: str, sense: str) -> str:
    return f"gregorian_date_{n}_{unit}_{sense}"


def date_code(t: QuestionTemplate, reference: CalendarDate, target: str, offset: int,
              expected: CalendarDate | None = None) -> str:
    """Code for a date-based template (exactly one of reference.calendar / target is Gregorian)."""
    var = _var(offset, t.unit, t.sense)
    op = "-" if t.sense == "ago" else "+"
    step = f"{var} = gregorian_date_today {op} timedelta({t.unit}={offset})\n"
    out = "from datetime import datetime, timedelta\n\n"
    if reference.calendar == "gregorian":
        out += f"gregorian_date_today = datetime({reference.year}, {reference.month}, {reference.day})\n"
        out += step + "\n"
        out += search_call("gregorian", [("year", f"{var}.year"), ("month", f"{var}.month"),
                                          ("day", f"{var}.day")], target)
        out += "\n"
        out += _content_tail(target) if t.question_format == "content" else _polar_tail(target, expected)
        return out
    args = [("year", str(reference.year)), ("month", str(reference.month)), ("day", str(reference.day))]
    if reference.is_leap_month:
        args.append(("is_lunar_leap_month", "True"))
    if reference.era is not None:  # an era calendar (japanese_era, roc): the year is counted in its era
        args.append(("era", f'"{reference.era}"'))
    out += search_call(reference.calendar, args) + "\n"
    out += 'gregorian_date_today = datetime.strptime(calendar.get("gregorian_date"), "%Y-%m-%d")\n'
    out += step + "\n"
    if t.question_format == "content":
        out += f'answer = {var}.strftime("%Y-%m-%d")\n'
    else:
        out += (f"answer = bool(\n    {var}.year == {expected.year}\n    and {var}.month == {expected.month}\n"
                f"    and {var}.day == {expected.day}\n)\n")
    return out


def festival_code(t: QuestionTemplate, source: str, reference_year: int, festival: str, target: str,
                  offset: int, expected: CalendarDate | None = None) -> str:
    """Code for a festival template: the festival in the source calendar's year ± n, converted."""
    if '"' in festival or "\\" in festival:
        raise ValueError(f"festival name cannot be quoted in code: {festival!r}")
    yvar = f"{code_calendar(source)}_year"
    op = "-" if t.sense == "ago" else "+"
    out = f"{yvar} = {reference_year} {op} {offset}\n\n"
    out += search_call(source, [("year", yvar), ("event", f'"{festival}"')], target) + "\n"
    out += _content_tail(target) if t.question_format == "content" else _polar_tail(target, expected)
    return out
