"""Date arithmetic: properties (hypothesis) and the lunisolar month sequence."""

from datetime import date, timedelta

import pytest
from hypothesis import given, settings, strategies as st

from span_toolkit.span import CALENDAR_NAMES, CalendarDate, CalendarError, date_difference, get_calendar, shift_date
from span_toolkit.span.calendars.base import MAX_ORDINAL, MIN_ORDINAL

calendars = st.sampled_from(CALENDAR_NAMES)
ordinals = st.integers(MIN_ORDINAL + 4000, MAX_ORDINAL - 4000)


@settings(max_examples=400, deadline=None)
@given(calendars, ordinals, st.integers(-3650, 3650))
def test_add_then_subtract_days_is_identity(calendar, n, k):
    d = CalendarDate.from_ordinal(calendar, n)
    there = shift_date(d, days=k).date
    assert shift_date(there, days=-k).date == d
    assert date_difference(d, there) == k
    assert there.to_date() == d.to_date() + timedelta(days=k)


@settings(max_examples=300, deadline=None)
@given(calendars, ordinals, st.integers(-200, 200))
def test_weeks_are_seven_days(calendar, n, w):
    d = CalendarDate.from_ordinal(calendar, n)
    assert shift_date(d, weeks=w).date == shift_date(d, days=7 * w).date


@settings(max_examples=300, deadline=None)
@given(calendars, ordinals, calendars)
def test_difference_is_independent_of_calendar(cal_a, n, cal_b):
    a = CalendarDate.from_ordinal(cal_a, n)
    b = CalendarDate.from_ordinal(cal_b, n + 100)
    assert date_difference(a, b) == 100 == date_difference(a.to(cal_b), b.to(cal_a))


@settings(max_examples=300, deadline=None)
@given(calendars, ordinals, st.integers(-60, 60))
def test_month_steps_follow_the_month_sequence(calendar, n, k):
    d = CalendarDate.from_ordinal(calendar, n)
    r = shift_date(d, months=k)
    cal = get_calendar(calendar)
    seq = [(y, m.number, m.is_leap) for y in range(cal.min_year, cal.max_year + 1) for m in cal.layout(y).months]
    i = seq.index((d.year, d.month, d.is_leap_month))
    assert (r.date.year, r.date.month, r.date.is_leap_month) == seq[i + k]
    assert r.date.day == min(d.day, get_calendar(calendar).layout(r.date.year).find(r.date.month, r.date.is_leap_month).length)
    assert r.clamped == (r.date.day != d.day)


def test_gregorian_month_and_year_clamping():
    r = shift_date(CalendarDate.create("gregorian", 2024, 1, 31), months=1)
    assert r.date.display() == "2024-2-29" and r.clamped and "clamped to day 29" in r.note
    r = shift_date(CalendarDate.create("gregorian", 2024, 2, 29), years=1)
    assert r.date.display() == "2025-2-28" and r.clamped


def test_chinese_month_steps_visit_the_leap_month():
    d = CalendarDate.create("chinese_lunar", 2023, 2, 15)
    assert shift_date(d, months=1).date == CalendarDate.create("chinese_lunar", 2023, 2, 15, True)
    assert shift_date(d, months=2).date == CalendarDate.create("chinese_lunar", 2023, 3, 15)
    # 2023 has 13 months: 12 months later is still in lunar 2024's first month
    assert shift_date(d, months=12).date == CalendarDate.create("chinese_lunar", 2024, 1, 15)


def test_chinese_year_step_from_a_leap_month_falls_back_to_the_regular_month():
    r = shift_date(CalendarDate.create("chinese_lunar", 2023, 2, 10, True), years=1)
    assert r.date == CalendarDate.create("chinese_lunar", 2024, 2, 10)
    assert "no leap month 2" in r.note


def test_hebrew_adar_sequence():
    adar1 = CalendarDate.create("hebrew", 5784, 12, 30)  # Adar I has 30 days
    r = shift_date(adar1, months=1)
    assert r.date.display() == "29 Adar II 5784" and r.clamped
    assert shift_date(CalendarDate.create("hebrew", 5784, 13, 1), months=1).date.display() == "1 Nisan 5784"
    assert shift_date(CalendarDate.create("hebrew", 5785, 12, 1), months=1).date.display() == "1 Nisan 5785"
    # the year changes on 1 Tishri
    assert shift_date(CalendarDate.create("hebrew", 5784, 6, 1), months=1).date.display() == "1 Tishri 5785"
    r = shift_date(CalendarDate.create("hebrew", 5784, 13, 14), years=1)
    assert r.date.display() == "14 Adar 5785" and "no month 13 (Adar II); used month 12 (Adar)" in r.note


def test_islamic_and_persian_30th_day_clamps():
    r = shift_date(CalendarDate.create("islamic", 1445, 12, 30), years=1)  # 1445 leap, 1446 not
    assert r.date.display() == "29 Dhu al-Hijjah 1446" and r.clamped
    r = shift_date(CalendarDate.create("persian", 1403, 12, 30), years=1)
    assert r.date.display() == "29 Esfand 1404" and r.clamped


def test_out_of_range_results_are_errors():
    with pytest.raises(CalendarError, match="supported"):
        shift_date(CalendarDate.create("gregorian", 2100, 12, 1), days=40)
    with pytest.raises(CalendarError, match="after the year step the date falls in Gregorian year 2200"):
        shift_date(CalendarDate.create("gregorian", 2000, 1, 1), years=200)
    with pytest.raises(CalendarError, match="after the month step .* year 2101, outside the supported range"):
        shift_date(CalendarDate.create("gregorian", 2100, 12, 1), months=1)
    with pytest.raises(CalendarError, match="must be an integer"):
        shift_date(CalendarDate.create("gregorian", 2000, 1, 1), days="soon")


def test_bad_arguments_are_calendar_errors():
    for call in (lambda: shift_date("2025-1-1", days=1),
                 lambda: date_difference("a", "b"),
                 lambda: shift_date(CalendarDate("hebrew", 5785, 13, 1), days=1),   # built without create()
                 lambda: shift_date(CalendarDate("gregorian", 2025, 2, 30), months=1)):
        with pytest.raises(CalendarError):
            call()


def test_weekday():
    assert CalendarDate.create("gregorian", 2025, 7, 1).weekday() == "Tuesday"
    assert CalendarDate.create("hebrew", 5785, 7, 1).weekday() == date(2024, 10, 3).strftime("%A")
