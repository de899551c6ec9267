"""search_calendar speed, per source calendar, against the naive convertdate path.

The naive path is what a direct implementation does: the source date to a Julian day with
convertdate (LunarCalendar for the Chinese calendar), then convertdate/LunarCalendar from there to
all six calendars. Answers are compared for every query before timing.

Then every calendar beyond the paper's six (the registry's, so a new calendar appears without an edit
here): search_calendar from that calendar (2025-07-01 in it, its era where it has one) with the
calendar as a target, and from Gregorian into it; the paper's calendars are the yardstick. No naive
path there: their answers are checked day by day in the tests, not here.

    python benchmarks/bench_core.py [--n 2000]
"""

import argparse
import sys
import time
import warnings
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from convertdate import gregorian, hebrew, indian_civil, islamic, persian  # noqa: E402
from lunarcalendar import Converter, Lunar, Solar  # noqa: E402

from span_toolkit.span import CalendarDate, search_calendar  # noqa: E402
from span_toolkit.span.calendars import EXTRA_CALENDAR_NAMES  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
MODULES = {"gregorian": gregorian, "islamic": islamic, "hebrew": hebrew, "shaka": indian_civil,
           "persian": persian}
KEYS = {"gregorian": "gregorian_date", "chinese_lunar": "lunar_date", "islamic": "islamic_date",
        "hebrew": "hebrew_date", "shaka": "shaka_date", "persian": "persian_date"}


def naive(calendar, y, m, d, leap=False):
    if calendar == "chinese_lunar":
        s = Converter.Lunar2Solar(Lunar(y, m, d, isleap=leap))
        jd = gregorian.to_jd(s.year, s.month, s.day)
    else:
        jd = MODULES[calendar].to_jd(y, m, d)
    out = {KEYS[name]: "%d-%d-%d" % mod.from_jd(jd) for name, mod in MODULES.items()}
    g = gregorian.from_jd(jd)
    lunar = Converter.Solar2Lunar(Solar(*g))
    out["lunar_date"] = f"{lunar.year}-{lunar.month}-{lunar.day}"
    out["lunar_is_leap_month"] = bool(lunar.isleap)
    return out


QUERIES = {  # 2025-07-01 in each calendar; for the Chinese calendar a day of 2025's leap 6th month
    "gregorian": (2025, 7, 1), "chinese_lunar": (2025, 6, 7, True), "islamic": (1447, 1, 5),
    "hebrew": (5785, 4, 5), "shaka": (1947, 4, 10), "persian": (1404, 4, 10),
}
FESTIVALS = {"gregorian": "Christmas Day", "chinese_lunar": "Mid-Autumn Festival", "islamic": "Eid al-Fitr",
             "hebrew": "Passover", "shaka": "Shaka New Year", "persian": "Mehregan Festival"}


def per_call(fn, n):
    fn()  # warm
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="calls per measurement for search_calendar")
    ap.add_argument("--naive-n", type=int, default=5, help="calls per measurement for the naive path")
    args = ap.parse_args()
    print(f"{'source':<14}{'query':<10}{'span µs/call':>14}{'naive µs/call':>16}{'ratio':>10}")
    worst = 0.0
    for cal, q in QUERIES.items():
        leap = q[3] if len(q) > 3 else False
        ours = search_calendar(cal, *q[:3], is_lunar_leap_month=leap)
        assert ours == naive(cal, *q[:3], leap), (cal, ours, naive(cal, *q[:3], leap))
        t_span = per_call(lambda: search_calendar(cal, *q[:3], is_lunar_leap_month=leap), args.n)
        t_naive = per_call(lambda: naive(cal, *q[:3], leap), args.naive_n)
        worst = max(worst, t_span)
        print(f"{cal:<14}{'date':<10}{t_span * 1e6:>14.1f}{t_naive * 1e6:>16.0f}{t_naive / t_span:>9.0f}x")
        fest = FESTIVALS[cal]
        t_f = per_call(lambda: search_calendar(cal, 2025 if cal in ("gregorian", "chinese_lunar") else q[0],
                                               festival_name=fest), args.n)
        worst = max(worst, t_f)
        print(f"{cal:<14}{'festival':<10}{t_f * 1e6:>14.1f}{'':>16}{'':>10}")
    print(f"worst warm search_calendar: {worst * 1e6:.1f} µs/call (target ≤ 50 µs)")
    print(f"\n{'calendar':<26}{'from it µs/call':>16}{'into it µs/call':>17}")
    day = date(2025, 7, 1).toordinal()
    worst_extra = 0.0
    for cal in EXTRA_CALENDAR_NAMES:
        d = CalendarDate.from_ordinal(cal, day)
        kw = {"is_lunar_leap_month": d.is_leap_month, "targets": [cal]}
        if d.era is not None:
            kw["era"] = d.era
        assert search_calendar(cal, d.year, d.month, d.day, **kw)["gregorian_date"] == "2025-7-1", cal
        t_from = per_call(lambda: search_calendar(cal, d.year, d.month, d.day, **kw), args.n)
        t_into = per_call(lambda: search_calendar("gregorian", 2025, 7, 1, targets=[cal]), args.n)
        worst_extra = max(worst_extra, t_from, t_into)
        print(f"{cal:<26}{t_from * 1e6:>16.1f}{t_into * 1e6:>17.1f}")
    print(f"worst warm search_calendar beyond the paper: {worst_extra * 1e6:.1f} µs/call")


if __name__ == "__main__":
    main()
