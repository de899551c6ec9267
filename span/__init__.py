"""SPAN calendar core: six calendars, festivals, search_calendar, date arithmetic.

Pure functions, no I/O. Every conversion goes through the proleptic Gregorian day number.
"""

from .errors import CalendarError
from .calendars import CALENDAR_NAMES, REGISTRY, canonical_name, get_calendar
from .dates import WEEKDAYS, CalendarDate
from . import festivals
from .search import search_calendar, search_calendar_entry
from .arithmetic import Shifted, date_difference, shift_date
from .textforms import parse_date

__all__ = [
    "CalendarError", "CALENDAR_NAMES", "REGISTRY", "canonical_name", "get_calendar", "WEEKDAYS",
    "CalendarDate", "festivals", "search_calendar", "search_calendar_entry", "Shifted",
    "date_difference", "shift_date", "parse_date",
]
