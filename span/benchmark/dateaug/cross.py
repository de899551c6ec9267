"""Beyond DateAugBench (an option, off by default): format switching across calendars -- a Hebrew, Islamic
or Chinese lunar date in one of its own written forms against a Gregorian date in one of the family's forms:

    Are the Hebrew date "5 Tammuz 5785" and the Gregorian date "2025-07-01" the same day? Answer Yes or No.

Here the calendar tools matter: the answer needs a conversion. Per evaluation date 60 questions: the three
calendars x 20 (10 "Yes", 10 "No": the Gregorian day one day off or a month off, five each), over the
periods clipped to the window every calendar of the core shares (past 1900-1999, near_past, present,
future 2026-2100), five questions per (calendar, period). The other calendar's forms are the project's
(span.benchmark.formats): month names for Hebrew and Islamic ("5 Tammuz 5785", "5th Tammuz 5785",
"Tammuz 5, 5785"), numbers for the Chinese lunar calendar ("2025-6-7", "07/06/2025" (DD/MM/YYYY); a leap
month written "leap").
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from ...calendars import get_calendar
from ...dates import CalendarDate
from ...errors import CalendarError
from .. import formats as SF
from ..snippets import search_call
from . import formats as F
from .formats import add_months

CALENDARS = ("hebrew", "islamic", "chinese_lunar")
PERIOD_WINDOW = {"past": (1900, 1999), "near_past": (2000, 2009), "present": (2010, 2025), "future": (2026, 2100)}
PER_CALENDAR_PERIOD = 5
CROSS_PER_DATE = len(CALENDARS) * len(PERIOD_WINDOW) * PER_CALENDAR_PERIOD     # 60
DIRECTION = "cross_calendar"
GREGORIAN_FORMS = ("iso", "dmy_slash", "mdy_slash", "compact_ymd", "month_name_ordinal_day", "day_month_name")

TEMPLATE = "Are the {title} date {A} and the Gregorian date {B} the same day? Answer Yes or No."
_RX = re.compile(r'^Are the (?P<title>[A-Z][A-Za-z ]+?) date "(?P<a>[^"]{1,40})"(?: \((?P<an>[A-Z/.\-]{6,10})\))? '
                 r'and the Gregorian date "(?P<b>[^"]{1,40})"(?: \((?P<bn>[A-Z/.\-]{6,10})\))? the same day\? '
                 r'Answer Yes or No\.$')


def _forms(calendar: str) -> tuple[str, ...]:
    return tuple(f for f in SF.CALENDAR_FAMILIES[calendar] if not f.startswith("compact_"))


def quoted_other(d: CalendarDate, fam: str) -> str:
    note = SF.note_of(fam)
    return f'"{SF.render(d, fam)}"' + (f" ({note})" if note else "")


def render(other: CalendarDate, fam: str, greg: date, gfmt: str) -> str:
    return TEMPLATE.format(title=get_calendar(other.calendar).title, A=quoted_other(other, fam),
                           B=F.quoted(greg, gfmt))


def parse(text: str):
    """(other date, its form, Gregorian date, its form) of a cross-calendar question; ValueError if not one."""
    m = _RX.match(text)
    if m is None:
        raise ValueError('not a cross-calendar format-switching question: expected \'Are the <Calendar> date '
                         '"<date>" and the Gregorian date "<date>" the same day? Answer Yes or No.\'')
    try:
        cal = get_calendar(m.group("title")).name
    except CalendarError as exc:
        raise ValueError(str(exc)) from None
    if cal not in CALENDARS:
        raise ValueError(f"the cross-calendar questions name a {', '.join(CALENDARS)} date, not {cal}")
    other, fam = SF.parse(m.group("a"), m.group("an"), cal)
    (greg, gfmt), *rest = F.parse(m.group("b"), m.group("bn"))
    if rest:
        raise ValueError(f"the Gregorian date {m.group('b')!r} reads two ways; a note is needed")
    return other, fam, greg, gfmt


def code(other: CalendarDate, greg: date) -> str:
    args = [("year", str(other.year)), ("month", str(other.month)), ("day", str(other.day))]
    if other.is_leap_month:
        args.append(("is_lunar_leap_month", "True"))
    return ("from datetime import date\n\n" + search_call(other.calendar, args) +
            'y, m, d = (int(x) for x in calendar["gregorian_date"].split("-"))\n'
            f"answer = \"Yes\" if date(y, m, d) == date({greg.year}, {greg.month}, {greg.day}) else \"No\"\n")


def plan(eval_date: date, seed) -> list[tuple]:
    """(period, calendar, other date, its form, Gregorian date, its form, near miss or None) per question."""
    out = []
    rng = random.Random(f"span/dateaug/cross/{seed}/{eval_date.isoformat()}")
    for cal in CALENDARS:
        forms = _forms(cal)
        kinds = [None] * 10 + ["off_by_one", "neighbour_month"] * 5
        rng.shuffle(kinds)
        periods = [p for p in PERIOD_WINDOW for _ in range(PER_CALENDAR_PERIOD)]
        for i, (period, kind) in enumerate(zip(periods, kinds)):
            lo, hi = PERIOD_WINDOW[period]
            while True:
                day = date.fromordinal(rng.randint(date(lo, 1, 1).toordinal(), date(hi, 12, 31).toordinal()))
                greg = day
                if kind == "off_by_one":
                    greg = day + timedelta(days=rng.choice((-1, 1)))
                elif kind == "neighbour_month":
                    try:
                        greg = add_months(day, rng.choice((-1, 1)))
                    except ValueError:
                        continue
                try:
                    other = CalendarDate.create("gregorian", day.year, day.month, day.day).to(cal)
                except CalendarError:
                    continue
                fam = forms[(i + rng.randint(0, len(forms) - 1)) % len(forms)]
                if SF.render(other, fam) is None:
                    continue
                out.append((period, cal, other, fam, greg, GREGORIAN_FORMS[i % len(GREGORIAN_FORMS)], kind))
                break
    return out
