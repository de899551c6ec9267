"""The independent sources of the three calendars whose sources disagree, their vote, and the files
built from it. Development only: nothing at run time imports this module.

For every Gregorian day of a calendar's range each source gives its reading (year, month, day, leap
flag, or None where it has no data). The sources vote as *voices*: two sources that are copies of one
table (identical on every day) are one voice, so a copy cannot outvote its original. Per day:

* the **majority** is the reading more voices give than any other; span reads it (consensus.py
  corrects the table a calendar module reads where the table is outvoted);
* a **tie** (no such reading) is a genuine split: span keeps its table's reading and marks the day
  disputed, with the other reading;
* for the lunisolar calendars a month whose first day moves with the unknown future ΔT (the rule
  recomputed with PyEphem's ΔT and with ΔT held at today's value, korean_lunar_astro) is disputed
  too, even where the sources agree: they all extrapolate ΔT, and the Earth need not follow.

Voices (span/calendars/ORACLES.md says why):
* chinese_lunar: the HKO-lineage table (LunarCalendar = borax, identical on all 73,414 days),
  lunardate (its own table), lunar-python (6tail's astronomical algorithm), sxtwl (寿星天文历, C++);
* korean_lunar: KASI (korean-lunar-calendar, to 2050-12-31), ICU's dangi (Node's Intl), the rule
  computed with PyEphem (which is span's table after 2050);
* islamic_umm_al_qura: hijridate, the `ummalqura` package (1356–1500 AH), ICU's islamic-umalqura;
* vietnamese_lunar: Hồ Ngọc Đức's algorithm (lunar-vn = vnlunar, identical on every day: one voice) and
  the rule computed with PyEphem at UTC+7 (span's table).

    python -m span_toolkit.span.calendars.sources --regenerate    # rewrites consensus.py and data/*.csv

The test-only packages above must be installed (pip install -e '.[test]') and Node on the PATH.
tests/test_calendar_consensus.py recomputes everything here and compares it with the files.
Why this module is long: the readers of the eleven sources, the vote and the two file formats
change together (a new source is a reader, a voice and a CSV column), and none of it runs in span.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

Reading = tuple[int, int, int, bool]

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_DIR = os.path.join(HERE, "data")
CALENDARS = ("chinese_lunar", "korean_lunar", "islamic_umm_al_qura", "vietnamese_lunar")


def csv_path(calendar: str) -> str:
    return os.path.join(DATA_DIR, f"{calendar}_disagreements.csv")


def written(r: Reading | None) -> str:
    """A reading as the CSV writes it: "2057-9-1", "2023-leap2-15", "" for no reading."""
    if r is None:
        return ""
    y, m, d, leap = r
    return f"{y}-{'leap' if leap else ''}{m}-{d}"


def _span_range(calendar: str) -> range:
    from . import get_calendar
    cal = get_calendar(calendar)
    return range(cal.min_ordinal, cal.max_ordinal + 1)


# ---------------------------------------------------------------------------------------------
# ICU through Node's Intl: one subprocess per table
# ---------------------------------------------------------------------------------------------

_NODE_SCRIPT = r"""
const [cal, first, count] = JSON.parse(process.argv[1]);
const f = new Intl.DateTimeFormat('en-u-ca-' + cal,
    {timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric'});
if (f.resolvedOptions().calendar !== cal) { process.stdout.write('null'); process.exit(0); }
const rows = new Array(count);
for (let i = 0; i < count; i++) {
  let y, m, d, leap = 0;
  for (const p of f.formatToParts(new Date(first + i * 86400000))) {
    if (p.type === 'year' || p.type === 'relatedYear') y = +p.value;
    else if (p.type === 'month') { leap = p.value.endsWith('bis') ? 1 : 0; m = parseInt(p.value, 10); }
    else if (p.type === 'day') d = +p.value;
  }
  rows[i] = [y, m, d, leap];
}
process.stdout.write(JSON.stringify({icu: process.versions.icu, rows}));
"""
_UNIX_EPOCH = date(1970, 1, 1).toordinal()


class SourceUnavailable(RuntimeError):
    """A source's package (or Node) is missing: the tests skip, never pass."""


@lru_cache(maxsize=None)
def icu_table(icu_calendar: str, first: int, last: int) -> dict[int, Reading]:
    node = shutil.which("node")
    if node is None:
        raise SourceUnavailable("node is not installed: the ICU source is unavailable")
    spec = [icu_calendar, (first - _UNIX_EPOCH) * 86_400_000, last - first + 1]
    proc = subprocess.run([node, "-e", _NODE_SCRIPT, json.dumps(spec)], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0 or proc.stdout == "null":
        raise SourceUnavailable(f"ICU has no {icu_calendar} calendar here: {proc.stderr.strip()[:200]}")
    rows = json.loads(proc.stdout)["rows"]
    return {first + i: (y, m, d, bool(leap)) for i, (y, m, d, leap) in enumerate(rows)}


_NODE_ERA_SCRIPT = r"""
const [cal, first, count] = JSON.parse(process.argv[1]);
const f = new Intl.DateTimeFormat('en-u-ca-' + cal,
    {timeZone: 'UTC', era: 'long', year: 'numeric', month: 'numeric', day: 'numeric'});
if (f.resolvedOptions().calendar !== cal) { process.stdout.write('null'); process.exit(0); }
const rows = new Array(count);
for (let i = 0; i < count; i++) {
  let e, y, m, d;
  for (const p of f.formatToParts(new Date(first + i * 86400000))) {
    if (p.type === 'era') e = p.value;
    else if (p.type === 'year') y = +p.value;
    else if (p.type === 'month') m = +p.value;
    else if (p.type === 'day') d = +p.value;
  }
  rows[i] = [e, y, m, d];
}
process.stdout.write(JSON.stringify({icu: process.versions.icu, rows}));
"""


@lru_cache(maxsize=None)
def icu_era_table(icu_calendar: str, first: int, last: int) -> dict[int, tuple[str, int, int, int]]:
    """{ordinal: (era as ICU names it in English, year in the era, month, day)}: ICU's japanese, roc,
    buddhist calendars (the official-use calendars' tests)."""
    node = shutil.which("node")
    if node is None:
        raise SourceUnavailable("node is not installed: the ICU source is unavailable")
    spec = [icu_calendar, (first - _UNIX_EPOCH) * 86_400_000, last - first + 1]
    proc = subprocess.run([node, "-e", _NODE_ERA_SCRIPT, json.dumps(spec)], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0 or proc.stdout == "null":
        raise SourceUnavailable(f"ICU has no {icu_calendar} calendar here: {proc.stderr.strip()[:200]}")
    rows = json.loads(proc.stdout)["rows"]
    return {first + i: (e, y, m, d) for i, (e, y, m, d) in enumerate(rows)}


def _import(name: str):
    try:
        return __import__(name, fromlist=["_"])
    except ImportError as exc:
        raise SourceUnavailable(f"{name} is not installed (pip install -e '.[test]')") from exc


def _layout_readings(rows: dict[int, tuple[int, int, str]]) -> dict[int, Reading]:
    """Per-day readings from year rows in korean_lunar_table's format."""
    out: dict[int, Reading] = {}
    for year, (start, leap, bits) in rows.items():
        n, number = start, 0
        for i, bit in enumerate(bits):
            is_leap = bool(leap) and i == leap
            number = number if is_leap else number + 1
            for d in range(30 if bit == "1" else 29):
                out[n + d] = (year, number, d + 1, is_leap)
            n += 30 if bit == "1" else 29
    return out


# ---------------------------------------------------------------------------------------------
# Chinese lunar
# ---------------------------------------------------------------------------------------------

def _lunarcalendar(days: range) -> dict[int, Reading]:
    lc = _import("lunarcalendar")
    out = {}
    for n in days:
        g = date.fromordinal(n)
        r = lc.Converter.Solar2Lunar(lc.Solar(g.year, g.month, g.day))
        out[n] = (r.year, r.month, r.day, bool(r.isleap))
    return out


def _borax(days: range) -> dict[int, Reading]:
    lunardate = _import("borax.calendars.lunardate")
    first = date(1900, 1, 31).toordinal()  # borax's first day
    out = {}
    for n in days:
        if n >= first:
            r = lunardate.LunarDate.from_solar(date.fromordinal(n))
            out[n] = (r.year, r.month, r.day, bool(r.leap))
    return out


def _lunardate(days: range) -> dict[int, Reading]:
    LunarDate = _import("lunardate").LunarDate
    # Its table holds lunar years 1900-2099; past their last day it answers with wrapped values.
    first = LunarDate(1900, 1, 1).to_solar_date().toordinal()
    last_month = LunarDate(2099, 12, 1).to_solar_date().toordinal()
    try:
        LunarDate(2099, 12, 30).to_solar_date()
        last = last_month + 29
    except ValueError:
        last = last_month + 28
    out = {}
    for n in days:
        if first <= n <= last:
            g = date.fromordinal(n)
            r = LunarDate.from_solar_date(g.year, g.month, g.day)
            out[n] = (r.year, r.month, r.day, bool(r.is_leap_month))
    return out


_JDN_OF_ORDINAL_0 = 1721425  # JDN = ordinal + this


def _lunar_python(days: range) -> dict[int, Reading]:
    """lunar-python's months (first Julian day, day count, negative number = leap), from LunarYear:
    the tables its Solar -> Lunar conversion reads (checked per day in the tests, sampled)."""
    LunarYear = _import("lunar_python").LunarYear
    first_year, last_year = date.fromordinal(days.start).year - 1, date.fromordinal(days.stop - 1).year + 1
    out = {}
    for y in range(first_year, last_year + 1):
        for m in LunarYear.fromYear(y).getMonthsInYear():
            start = int(m.getFirstJulianDay()) - _JDN_OF_ORDINAL_0
            for d in range(m.getDayCount()):
                if start + d in days:
                    out[start + d] = (m.getYear(), abs(m.getMonth()), d + 1, m.getMonth() < 0)
    return out


def lunar_python_per_day(n: int) -> Reading:
    """lunar-python's own Solar -> Lunar conversion of one day (slow: about 1.3 ms)."""
    Solar = _import("lunar_python").Solar
    g = date.fromordinal(n)
    r = Solar.fromYmd(g.year, g.month, g.day).getLunar()
    return r.getYear(), abs(r.getMonth()), r.getDay(), r.getMonth() < 0


def _sxtwl(days: range) -> dict[int, Reading]:
    sxtwl = _import("sxtwl")
    out = {}
    for n in days:
        g = date.fromordinal(n)
        r = sxtwl.fromSolar(g.year, g.month, g.day)
        # getLunarYear(True): the year changes at the Lunar New Year (False would use Lichun)
        out[n] = (r.getLunarYear(True), r.getLunarMonth(), r.getLunarDay(), bool(r.isLunarLeap()))
    return out


# ---------------------------------------------------------------------------------------------
# Korean lunar
# ---------------------------------------------------------------------------------------------

KASI_LAST = date(2050, 12, 31).toordinal()  # korean-lunar-calendar refuses later days


def _kasi(days: range) -> dict[int, Reading]:
    k = _import("korean_lunar_calendar").KoreanLunarCalendar()
    out = {}
    for n in days:
        if n <= KASI_LAST:
            g = date.fromordinal(n)
            assert k.setSolarDate(g.year, g.month, g.day)
            out[n] = (k.lunarYear, k.lunarMonth, k.lunarDay, bool(k.isIntercalation))
    return out


def _korean_rule(days: range, delta_t: float | None = None) -> dict[int, Reading]:
    _import("ephem")
    from . import korean_lunar_astro as astro
    rows = {**astro.lunar_years(1899, 1911, utc_offset_hours=8),  # KASI's table is at UTC+8 before 1912
            **astro.lunar_years(1912, 2100, utc_offset_hours=9, delta_t=delta_t)}
    return {n: r for n, r in _layout_readings(rows).items() if n in days}


def _chinese_rule(days: range, delta_t: float | None = None) -> dict[int, Reading]:
    """The rule at UTC+8 from 2025 on (before, the calendar is history, not prediction)."""
    _import("ephem")
    from . import korean_lunar_astro as astro
    rows = astro.lunar_years(2025, 2100, utc_offset_hours=8, delta_t=delta_t)
    return {n: r for n, r in _layout_readings(rows).items() if n in days}


# ---------------------------------------------------------------------------------------------
# Vietnamese lunar
# ---------------------------------------------------------------------------------------------

VN_OFFSET = 7.0


def _lunar_vn(days: range) -> dict[int, Reading]:
    convert = _import("lunar_vn").convert_solar_to_lunar
    out = {}
    for n in days:
        g = date.fromordinal(n)
        r = convert(g.day, g.month, g.year, VN_OFFSET)
        out[n] = (r.year, r.month, r.day, bool(r.leap))
    return out


def _vnlunar(days: range) -> dict[int, Reading]:
    convert = _import("vnlunar").convert_solar_to_lunar
    out = {}
    for n in days:
        g = date.fromordinal(n)
        r = convert(g.day, g.month, g.year, VN_OFFSET)  # a dict in vnlunar 1.0.5
        out[n] = (r["year"], r["month"], r["day"], bool(r["leap"]))
    return out


def _vietnamese_rule(days: range, delta_t: float | None = None) -> dict[int, Reading]:
    """The rule at UTC+7 (PyEphem); with `delta_t`, only from 2025 on (the predicted part)."""
    _import("ephem")
    from . import korean_lunar_astro as astro
    first = 1899 if delta_t is None else 2025
    rows = astro.lunar_years(first, 2100, utc_offset_hours=VN_OFFSET, delta_t=delta_t)
    return {n: r for n, r in _layout_readings(rows).items() if n in days}


# ---------------------------------------------------------------------------------------------
# Umm al-Qura
# ---------------------------------------------------------------------------------------------

def _hijridate(days: range) -> dict[int, Reading]:
    hijridate = _import("hijridate")
    out = {}
    for n in days:
        h = hijridate.Gregorian.fromdate(date.fromordinal(n)).to_hijri()
        out[n] = (h.year, h.month, h.day, False)
    return out


def _ummalqura(days: range) -> dict[int, Reading]:
    conv = _import("ummalqura.hijri").Umalqurra()
    first = date(*map(int, conv.hijri_to_gregorian(1356, 1, 1))).toordinal()  # its table starts 1356 AH
    out = {}
    for n in days:
        if n >= first:
            g = date.fromordinal(n)
            y, m, d, _ = conv.gegorean_to_hijri(g.year, g.month, g.day)
            out[n] = (int(y), int(m), int(d), False)
    return out


# ---------------------------------------------------------------------------------------------
# The vote
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Voice:
    name: str               # the CSV column
    sources: tuple[str, ...]  # the packages behind it (more than one: copies of one table)


VOICES: dict[str, tuple[Voice, ...]] = {
    "chinese_lunar": (Voice("hko_table", ("lunarcalendar", "borax")), Voice("lunardate", ("lunardate",)),
                      Voice("lunar_python", ("lunar_python",)), Voice("sxtwl", ("sxtwl",))),
    "korean_lunar": (Voice("kasi", ("kasi",)), Voice("icu", ("icu",)), Voice("rule_pyephem", ("rule_pyephem",))),
    "islamic_umm_al_qura": (Voice("hijridate", ("hijridate",)), Voice("ummalqura", ("ummalqura",)),
                            Voice("icu", ("icu",))),
    "vietnamese_lunar": (Voice("ho_ngoc_duc", ("lunar_vn", "vnlunar")), Voice("rule_pyephem", ("rule_pyephem",))),
}
# Not voters: the rule with ΔT held at today's value, which only finds the ΔT-dependent months.
DELTA_T_COLUMN = "rule_dt_now"


def source_readings(calendar: str) -> dict[str, dict[int, Reading]]:
    """{source: {ordinal: reading}} over span's range of the calendar (absent day: no reading)."""
    days = _span_range(calendar)
    if calendar == "chinese_lunar":
        from .korean_lunar_astro import DELTA_T_NOW
        return {"lunarcalendar": _lunarcalendar(days), "borax": _borax(days), "lunardate": _lunardate(days),
                "lunar_python": _lunar_python(days), "sxtwl": _sxtwl(days),
                "rule_pyephem": _chinese_rule(days), DELTA_T_COLUMN: _chinese_rule(days, DELTA_T_NOW)}
    if calendar == "korean_lunar":
        from .korean_lunar_astro import DELTA_T_NOW
        return {"kasi": _kasi(days), "icu": icu_table("dangi", days.start, days.stop - 1),
                "rule_pyephem": _korean_rule(days), DELTA_T_COLUMN: _korean_rule(days, DELTA_T_NOW)}
    if calendar == "islamic_umm_al_qura":
        return {"hijridate": _hijridate(days), "ummalqura": _ummalqura(days),
                "icu": icu_table("islamic-umalqura", days.start, days.stop - 1)}
    if calendar == "vietnamese_lunar":
        from .korean_lunar_astro import DELTA_T_NOW
        return {"lunar_vn": _lunar_vn(days), "vnlunar": _vnlunar(days), "rule_pyephem": _vietnamese_rule(days),
                DELTA_T_COLUMN: _vietnamese_rule(days, DELTA_T_NOW)}
    raise ValueError(f"no sources for {calendar}")


def voice_readings(calendar: str, readings: dict[str, dict[int, Reading]]) -> dict[str, dict[int, Reading]]:
    """Merge the sources of each voice; they must be identical wherever both have a reading."""
    out = {}
    for voice in VOICES[calendar]:
        merged: dict[int, Reading] = {}
        for s in voice.sources:
            for n, r in readings[s].items():
                if merged.setdefault(n, r) != r:
                    raise AssertionError(f"{voice.name}: {s} differs from the other copies on "
                                         f"{date.fromordinal(n)}; they are not one table")
        out[voice.name] = merged
    return out


def majority(votes: list[Reading]) -> Reading | None:
    """The reading more voices give than any other; None on a tie."""
    top = Counter(votes).most_common(2)
    if not top:
        return None
    if len(top) == 2 and top[0][1] == top[1][1]:
        return None
    return top[0][0]


@dataclass(frozen=True)
class Day:
    ordinal: int
    voices: dict[str, Reading | None]
    delta_t_alt: Reading | None  # the rule with ΔT held at today's value (lunisolar calendars)
    rule: Reading | None         # the rule with PyEphem's ΔT (lunisolar calendars)
    majority: Reading | None
    table: Reading                # the reading of the table span's module reads (before consensus.py)
    dt_dependent: bool            # the rule's reading changes with the future ΔT

    @property
    def disputed(self) -> bool:
        return self.majority is None or self.dt_dependent

    @property
    def reading(self) -> Reading:
        """What span answers: the majority, else the table's reading."""
        return self.majority if self.majority is not None else self.table

    def others(self) -> list[Reading]:
        """The other readings of a disputed day, the most voiced first."""
        pool = [r for r in self.voices.values() if r is not None]
        if self.dt_dependent:
            pool += [self.delta_t_alt, self.rule]
        counts = Counter(r for r in pool if r is not None and r != self.reading)
        return [r for r, _ in counts.most_common()]


def table_reading(calendar: str):
    """The reading of the table span's module reads, without consensus.py's corrections."""
    from . import get_calendar
    cal = get_calendar(calendar)
    raw = getattr(cal, "raw_layout", None)
    if raw is None:
        return cal.from_ordinal
    import bisect

    def read(n: int) -> Reading:
        y = cal.year_of(n)
        for year in (y, y - 1, y + 1):
            try:
                lay = raw(year)
            except ValueError:  # outside the table
                continue
            if lay.start <= n < lay.end:
                m = lay.months[bisect.bisect_right(lay.starts, n) - 1]
                return lay.year, m.number, n - m.start + 1, m.is_leap
        raise AssertionError(date.fromordinal(n))
    return read


def days_of(calendar: str, readings: dict[str, dict[int, Reading]] | None = None) -> list[Day]:
    """Every day where two sources differ or the reading depends on ΔT, in order."""
    readings = readings if readings is not None else source_readings(calendar)
    voices = voice_readings(calendar, readings)
    alt = readings.get(DELTA_T_COLUMN, {})
    rule = readings.get("rule_pyephem", {})
    table = table_reading(calendar)
    out = []
    for n in _span_range(calendar):
        got = {name: v.get(n) for name, v in voices.items()}
        present = [r for r in got.values() if r is not None]
        # every source, merged copies included, for "any two sources differ"
        every = {src[n] for src in readings.values() if n in src}
        dt_dependent = n in alt and n in rule and alt[n] != rule[n]
        if len(every) > 1 or dt_dependent:
            out.append(Day(n, got, alt.get(n), rule.get(n), majority(present), table(n), dt_dependent))
    return out


# ---------------------------------------------------------------------------------------------
# Why a day is disputed, in one line
# ---------------------------------------------------------------------------------------------

_ZONES = {"chinese_lunar": (8, "Beijing"), "korean_lunar": (9, "Korean"), "vietnamese_lunar": (7, "Vietnam")}


def _new_moon_text(calendar: str, n: int) -> str:
    """The new moon (PyEphem) nearest local midnight at the start of day n or n+1."""
    ephem = _import("ephem")
    from datetime import datetime, timedelta
    hours, zone = _ZONES[calendar]
    best = None
    for day in (n, n + 1):
        midnight = datetime.combine(date.fromordinal(day), datetime.min.time()) - timedelta(hours=hours)
        t = ephem.next_new_moon(ephem.Date(midnight - timedelta(days=2)))
        off = (ephem.Date(t).datetime() - midnight).total_seconds()
        if best is None or abs(off) < abs(best):
            best = off
    s = abs(best)
    amount = f"{round(s)} s" if s < 90 else f"{round(s / 60)} min"
    return f"new moon {amount} {'after' if best >= 0 else 'before'} {zone} midnight"


def reason(calendar: str, day: Day, month_first: int) -> str:
    """One line: why this day is disputed."""
    parts = []
    if day.majority is None:
        counts = Counter(r for r in day.voices.values() if r is not None).most_common()
        split = "-".join(str(c) for _, c in counts)
        parts.append(f"sources split {split}")
    if calendar in _ZONES:
        parts.append(_new_moon_text(calendar, month_first))
    if day.dt_dependent:
        parts.append("the day depends on future ΔT")
    elif calendar == "islamic_umm_al_qura" and day.voices.get("ummalqura") is None:
        parts.append("no third source before 1356 AH")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# The files
# ---------------------------------------------------------------------------------------------

def _advances(a: Reading | None, b: Reading | None) -> bool:
    """b is the day after a within the same month (or both are missing)."""
    if a is None or b is None:
        return a is None and b is None
    return a[:2] == b[:2] and a[3] == b[3] and b[2] == a[2] + 1


def csv_rows(calendar: str, days: list[Day]) -> list[dict[str, str]]:
    """Runs of consecutive days in which every column advances by one day within its month: each row
    holds the readings of its first day (the test expands them again, day by day)."""
    names = [v.name for v in VOICES[calendar]]
    lunisolar = calendar in _ZONES
    extra = lunisolar and "rule_pyephem" not in names  # the rule computed, where it is not a voice

    def cols(d: Day) -> list:
        out = [d.voices[v] for v in names]
        if extra:
            out.append(d.rule)
        if lunisolar:
            out.append(d.delta_t_alt)
        out.append(d.reading)
        return out

    def verdict(d: Day) -> str:
        if d.disputed:
            return "disputed: " + ", ".join(why for why, on in (("tie", d.majority is None),
                                                                ("delta_t", d.dt_dependent)) if on)
        return "majority"

    rows, run = [], None
    for d in days:
        c, v = cols(d), verdict(d)
        if run and d.ordinal == run["last"] + 1 and v == run["verdict"] and \
                all(_advances(a, b) for a, b in zip(run["cols_last"], c)):
            run["last"], run["cols_last"] = d.ordinal, c
            continue
        run = {"first": d.ordinal, "last": d.ordinal, "cols": c, "cols_last": c, "verdict": v}
        rows.append(run)
    header = ["first", "last", *names, *(["rule_pyephem"] if extra else []),
              *([DELTA_T_COLUMN] if lunisolar else []), "span", "verdict"]
    return [dict(zip(header, [date.fromordinal(r["first"]).isoformat(), date.fromordinal(r["last"]).isoformat(),
                               *map(written, r["cols"]), r["verdict"]])) for r in rows]


def csv_text(calendar: str, days: list[Day]) -> str:
    rows = csv_rows(calendar, days)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["first", "last"], lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def disputes(calendar: str, days: list[Day]) -> list[tuple]:
    """Runs of disputed days: (first, last, segments, reason), a segment (ordinal, y, m, d, leap) giving
    the other reading from that day on, advancing one day per day."""
    out: list[list] = []
    for d in days:
        if not d.disputed:
            continue
        mine, other = d.reading, d.others()[0]
        run = out[-1] if out and out[-1][1] == d.ordinal - 1 else None
        if run is None or 1 in (mine[2], other[2]):
            # a month starts here in one reading: the month the dispute is about
            why = reason(calendar, d, d.ordinal - min(mine[2], other[2]) + 1)
            if run is not None and why != run[3]:
                run = None
        if run is None:
            out.append([d.ordinal, d.ordinal, [(d.ordinal, *other)], why])
            continue
        run[1] = d.ordinal
        seg = run[2][-1]
        if (seg[1], seg[2], seg[3] + d.ordinal - seg[0], seg[4]) != other:
            run[2].append((d.ordinal, *other))
    return [(a, b, tuple(segs), why) for a, b, segs, why in out]


def _layouts(readings: dict[int, Reading]) -> dict[int, tuple[int, int, str]]:
    """Year rows (start, leap, bits) of the years wholly inside `readings`."""
    months: dict[tuple[int, int, bool], list[int]] = {}
    for n in sorted(readings):
        y, m, d, leap = readings[n]
        months.setdefault((y, m, leap), []).append(n)
    years: dict[int, list] = {}
    for (y, m, leap), ns in months.items():
        years.setdefault(y, []).append((ns[0], m, leap, len(ns), readings[ns[0]][2] == 1))
    out = {}
    for y, ms in years.items():
        ms.sort()
        if not ms[0][4] or ms[0][1] != 1 or ms[0][2]:
            continue  # the year starts before the range
        leap = next((m for _, m, is_leap, _, _ in ms if is_leap), 0)
        out[y] = (ms[0][0], leap, "".join("1" if length == 30 else "0" for *_, length, _ in ms))
    return out


def consensus(calendar: str, days: list[Day]):
    """Where span's reading (the majority) differs from the table its module reads: for the Chinese
    calendar whole year rows, for Umm al-Qura month starts."""
    changed = {d.ordinal: d.reading for d in days if d.reading != d.table}
    if not changed:
        return {}
    if calendar == "chinese_lunar":
        from . import get_calendar
        cal, table = get_calendar(calendar), table_reading(calendar)
        years = {r[0] for r in changed.values()} | {table(n)[0] for n in changed}
        lo = cal.raw_layout(min(years) - 1).start
        hi = cal.raw_layout(max(years) + 1).end
        fixed = _layouts({n: changed.get(n) or table(n) for n in range(lo, hi)})
        return {y: fixed[y] for y in sorted(years)}
    if calendar == "islamic_umm_al_qura":
        return {r[:2]: n for n, r in sorted(changed.items()) if r[2] == 1}
    raise AssertionError(f"{calendar}: the majority differs from the table; no correction kind for it")


def render_consensus(results: dict[str, tuple[dict, list]]) -> str:
    lines = ['"""Generated by `python -m span.calendars.sources --regenerate`: do not edit by hand.',
             "",
             "Where the majority of a calendar's independent sources outvotes the table its module reads, and",
             "where the sources genuinely split (span/calendars/sources.py says how they vote; ORACLES.md lists",
             "every case). tests/test_calendar_consensus.py recomputes this file from the sources.",
             '"""', ""]
    chinese = results["chinese_lunar"][0]
    lines.append("# Chinese lunar years that differ from LunarCalendar's table: (ordinal of the 1st day of month 1,")
    lines.append("# leap month or 0, month lengths with the leap month after its regular month, '1' = 30 days).")
    lines.append("CHINESE_LUNAR_YEARS = {")
    lines += [f"    {y}: {row!r},  # {date.fromordinal(row[0]).isoformat()}" for y, row in chinese.items()]
    lines.append("}")
    lines.append("")
    uq = results["islamic_umm_al_qura"][0]
    lines.append("# Umm al-Qura months whose first day differs from hijridate's table: (AH year, month) -> ordinal.")
    lines.append("UMM_AL_QURA_MONTH_STARTS = {")
    lines += [f"    {key!r}: {n},  # {date.fromordinal(n).isoformat()}" for key, n in uq.items()]
    lines.append("}")
    lines.append("")
    lines.append("# Disputed days per calendar: (first ordinal, last ordinal, segments, reason); a segment")
    lines.append("# (ordinal, year, month, day, leap) is the other reading from that day on, one day per day.")
    lines.append("DISPUTES = {")
    for calendar in CALENDARS:
        lines.append(f"    {calendar!r}: (")
        for first, last, segs, why in results[calendar][1]:
            span_text = f"{date.fromordinal(first)} … {date.fromordinal(last)}"
            lines.append(f"        ({first}, {last}, {segs!r},  # {span_text}")
            lines.append(f"         {why!r}),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def build(calendar: str, readings=None):
    days = days_of(calendar, readings)
    return days, consensus(calendar, days), disputes(calendar, days)


def regenerate() -> None:
    os.makedirs(DATA_DIR, exist_ok=True)
    results = {}
    for calendar in CALENDARS:
        days, fixes, disp = build(calendar)
        results[calendar] = (fixes, disp)
        with open(csv_path(calendar), "w", newline="") as f:
            f.write(csv_text(calendar, days))
        print(f"{calendar}: {len(days)} days where sources differ, {sum(d.disputed for d in days)} disputed, "
              f"{len(fixes)} corrections", file=sys.stderr)
    with open(os.path.join(HERE, "consensus.py"), "w") as f:
        f.write(render_consensus(results))


if __name__ == "__main__" and "--regenerate" in sys.argv:
    regenerate()
