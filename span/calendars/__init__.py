"""The calendar registry. Adding a calendar: one module with a `CALENDAR`, and one line below."""

import re
import unicodedata
from functools import lru_cache
from importlib import import_module

from ..errors import CalendarError
from .base import MAX_ORDINAL, MIN_ORDINAL, Calendar
# One line per calendar: its module (holding `CALENDAR`), or "module:NAME" for a second calendar of a
# module. The order is the order of every listing; the paper's six come first.
_CALENDARS = (
    "gregorian",
    "chinese_lunar",
    "islamic",
    "hebrew",
    "shaka",
    "persian",
    "julian",
    "coptic",
    "ethiopian",
    "islamic_umm_al_qura",
    "korean_lunar",
    "vietnamese_lunar",
    "japanese_era",
    "roc",
    "thai_buddhist",
    "thai_buddhist:PROLEPTIC",
    "bahai",
)


def _load(entry: str) -> Calendar:
    module, _, attribute = entry.partition(":")
    return getattr(import_module(f".{module}", __name__), attribute or "CALENDAR")


REGISTRY: dict[str, Calendar] = {c.name: c for c in map(_load, _CALENDARS)}

# The SPAN paper's six calendars: the benchmark, its result keys and the client iterate over these.
CALENDAR_NAMES: tuple[str, ...] = tuple(REGISTRY)[:6]
# Every calendar the core converts (the six, then the ones added beyond the paper).
ALL_CALENDAR_NAMES: tuple[str, ...] = tuple(REGISTRY)
EXTRA_CALENDAR_NAMES: tuple[str, ...] = ALL_CALENDAR_NAMES[6:]


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    # accents folded and any apostrophe ignored: "Bahá'í" == "Bahá’í" == "bahai", "Âm lịch" == "am lich"
    name = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    name = name.replace("đ", "d").replace("Đ", "D")
    return re.sub(r"[\s_\-'’‘ʻʼ]+", " ", name.strip().lower()).removesuffix(" calendar").strip()


_ALIASES = {_key(a): c.name for c in REGISTRY.values() for a in (c.name, *c.aliases)}


def get_calendar(name: str) -> Calendar:
    """Resolve a calendar name or alias (case-insensitive) to its calendar."""
    if isinstance(name, Calendar):
        return name
    if not isinstance(name, str) or not name.strip():
        raise CalendarError(f"calendar name must be a non-empty string, got {name!r:.60}; "
                            f"valid calendars: {', '.join(ALL_CALENDAR_NAMES)}")
    canonical = _ALIASES.get(_key(name))
    if canonical is None:
        raise CalendarError(f"unknown calendar {name!r:.60}; valid calendars: {', '.join(ALL_CALENDAR_NAMES)} "
                            f"(aliases such as 'lunar', 'chinese', 'hijri', 'jewish', 'saka', "
                            f"'jalali', 'umm al-qura', 'ethiopic', 'korean' are accepted)")
    return REGISTRY[canonical]


def canonical_name(name: str) -> str:
    return get_calendar(name).name


__all__ = ["REGISTRY", "CALENDAR_NAMES", "ALL_CALENDAR_NAMES", "EXTRA_CALENDAR_NAMES", "Calendar",
           "get_calendar", "canonical_name", "MIN_ORDINAL", "MAX_ORDINAL"]
