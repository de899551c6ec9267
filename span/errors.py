"""The one exception the calendar core raises for bad input."""


class CalendarError(ValueError):
    """Invalid calendar input. The message always says what would be valid instead."""
