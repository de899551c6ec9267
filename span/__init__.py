"""SPAN calendar core: the paper's six calendars and more (span.calendars.REGISTRY), festivals, search_calendar,
date arithmetic.

Pure functions, no I/O. Every conversion goes through the proleptic Gregorian day number.
"""

from .errors import CalendarError
from .calendars import (ALL_CALENDAR_NAMES, CALENDAR_NAMES, EXTRA_CALENDAR_NAMES, REGISTRY, canonical_name,
                        get_calendar)
from .dates import WEEKDAYS, CalendarDate
from . import disputes, festivals
from .search import convert, resolve_targets, result_key, search_calendar, search_calendar_entry
from .arithmetic import Shifted, date_difference, shift_date
from .textforms import parse_date

__all__ = [
    "CalendarError", "CALENDAR_NAMES", "ALL_CALENDAR_NAMES", "EXTRA_CALENDAR_NAMES", "REGISTRY",
    "canonical_name", "get_calendar", "WEEKDAYS", "CalendarDate", "disputes", "festivals", "search_calendar",
    "search_calendar_entry", "convert", "resolve_targets", "result_key", "Shifted", "date_difference",
    "shift_date", "parse_date",
]
