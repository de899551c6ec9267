"""One generation request: everything that decides which instances are generated, as one typed value.

Built once where a request enters (``span-client generate``, ``span-client eval``/``demo``, the inspect
task, a test or a Python caller) and handed whole to the generator (``generate.generate``) and to every
task family (``family.TaskFamily.plan``/``build``):

    from <the core>.benchmark import GenerationRequest, generate 
    request = GenerationRequest(families=("paper", "extended"), islamic_convention="umm_al_qura")
    for inst in generate([date(2025, 7, 1)], request):
        ...

``GenerationRequest()`` is the SPAN paper's protocol: the paper family alone, the tabular Islamic
calendar, the paper's non-Gregorian calendars, every polar answer "Yes", the paper's date format,
all instances. Every field is checked when the request is made; a bad value is a GeneratorError whose
one line says what is valid.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Iterable

from ..calendars import ALL_CALENDAR_NAMES, get_calendar
from ..errors import CalendarError
from .errors import GeneratorError
from .protocol import ISLAMIC_CALENDAR, NON_GREGORIAN, check_convention
from . import registry

PAPER_FAMILIES: tuple[str, ...] = ("paper",)


def _family_names() -> tuple[str, ...]:
    return registry.FAMILY_MODULES  # each family is named as its package (families.py checks)


def check_families(names: Any) -> tuple[str, ...]:
    """Family names (a tuple, a list, or "paper,extended") -> a tuple in registry order, without repeats;
    an unknown name is a GeneratorError listing the valid ones."""
    if isinstance(names, str):
        names = [n for n in (p.strip() for p in names.split(",")) if n]
    try:
        given = [str(n).strip().lower() for n in names]
    except TypeError:
        raise GeneratorError(f"families must be a list of names, got {names!r:.60}; valid: "
                             f"{', '.join(_family_names())}") from None
    valid = _family_names()
    unknown = [n for n in given if n not in valid]
    if unknown:
        raise GeneratorError(f"unknown task famil{'ies' if len(unknown) > 1 else 'y'} "
                             f"{', '.join(repr(n[:40]) for n in unknown[:3])}; valid families: {', '.join(valid)}")
    if not given:
        raise GeneratorError(f"no task family given; valid families: {', '.join(valid)}")
    return tuple(n for n in valid if n in given)


def check_family_options(options: Any) -> dict:
    """{"<family>_<option>": value} (JSON values; "dateaug_ambiguous=true" strings from a command line are
    read too) -> a plain dict in key order; a name that is no registered family's is an error."""
    if isinstance(options, str):
        options = [options]
    if not isinstance(options, dict):
        out = {}
        for item in options or ():
            name, sep, value = str(item).partition("=")
            low = value.strip().lower()
            out[name.strip()] = (True if not sep or low == "true" else False if low == "false"
                                 else int(low) if low.lstrip("-").isdigit() else value.strip())
        options = out
    valid = _family_names()
    for key, value in options.items():
        if not isinstance(key, str) or not any(key.startswith(f"{f}_") and len(key) > len(f) + 1 for f in valid):
            raise GeneratorError(f"family option {str(key)[:40]!r} is not named <family>_<option>; families: "
                                 f"{', '.join(valid)}")
        if not isinstance(value, (bool, int, float, str)) or value is None:
            raise GeneratorError(f"family option {key}: a value must be true/false, a number or text, got "
                                 f"{value!r:.40}")
    return dict(sorted(options.items()))


def _choosable() -> tuple[str, ...]:
    # the Umm al-Qura calendar is the Islamic side under islamic_convention="umm_al_qura", not a side of its own
    other_side = {"gregorian", *ISLAMIC_CALENDAR.values()} - {"islamic"}
    return tuple(c for c in ALL_CALENDAR_NAMES if c not in other_side)


def check_calendars(names: Any) -> tuple[str, ...]:
    """Calendar names (aliases accepted; a tuple, a list, or "hebrew,julian") -> canonical names in registry
    order, without repeats; each must be a non-Gregorian calendar of the registry."""
    if isinstance(names, str):
        names = [n for n in (p.strip() for p in names.split(",")) if n]
    valid = _choosable()
    words = f"valid: {', '.join(valid)} (the paper's: {', '.join(NON_GREGORIAN)})"
    try:
        items = list(names)
    except TypeError:
        raise GeneratorError(f"calendars must be a list of calendar names, got {names!r:.60}; {words}") from None
    out: set[str] = set()
    for n in items:
        try:
            name = get_calendar(n).name
        except CalendarError:
            raise GeneratorError(f"unknown calendar {str(n)[:40]!r} in calendars; {words}") from None
        if name == "gregorian":
            raise GeneratorError(f"calendars names the non-Gregorian side of each question; gregorian is always "
                                 f"the other side; {words}")
        if name not in valid:
            raise GeneratorError(f"{name} is not chosen with calendars: it is the Islamic side under "
                                 f"islamic_convention=umm_al_qura; {words}")
        out.add(name)
    if not out:
        raise GeneratorError(f"no calendar given in calendars; {words}")
    return tuple(c for c in ALL_CALENDAR_NAMES if c in out)


@dataclass(frozen=True)
class GenerationRequest:
    """Which instances to generate (every field at its default: the SPAN paper's protocol)."""

    families: tuple[str, ...] = PAPER_FAMILIES  # task families by name (registry.FAMILY_MODULES), in its order
    islamic_convention: str = "tabular"         # tabular (the paper's) | umm_al_qura (the Islamic side on Saudi
                                                # Arabia's civil calendar; families other than paper keep tabular)
    calendars: tuple[str, ...] = NON_GREGORIAN  # the paper family's non-Gregorian sides (Gregorian is the other)
    polar_negatives: bool = False               # half of the polar questions get a near-miss date (gold "No")
    date_formats: bool = False                  # every instance also in its source calendar's other written forms
    exclude_disputed: bool = False              # leave out instances whose gold depends on a disputed day
    seed: Any = 0                               # for polar negatives, the extended draws and the sample
    sample: int | None = None                   # a stratified sample of N instances instead of all
    # a family's own options, named "<family>_<option>" (e.g. dateaug_ambiguous); read by that family only
    family_options: dict = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "families", check_families(self.families))
        object.__setattr__(self, "islamic_convention", check_convention(self.islamic_convention))
        object.__setattr__(self, "calendars", check_calendars(self.calendars))
        for name in ("polar_negatives", "date_formats", "exclude_disputed"):
            if not isinstance(getattr(self, name), bool):
                raise GeneratorError(f"{name} must be true or false, got {getattr(self, name)!r:.40}")
        object.__setattr__(self, "family_options", check_family_options(self.family_options))
        if self.sample is not None and (isinstance(self.sample, bool) or not isinstance(self.sample, int)
                                        or self.sample < 1):
            raise GeneratorError(f"sample must be a positive number of instances, got {self.sample!r:.40}")

    @classmethod
    def of(cls, request: "GenerationRequest | None" = None, **changes: Any) -> "GenerationRequest":
        """A request from keyword fields (``GenerationRequest.of(polar_negatives=True, seed=5)``), or
        `request` with some fields changed; an unknown field is a GeneratorError naming the valid ones."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise GeneratorError(f"unknown generation option{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(unknown)}; valid: {', '.join(sorted(names))}")
        return replace(request, **changes) if request is not None else cls(**changes)

    def with_families(self, extra: Iterable[str]) -> "GenerationRequest":
        """This request with more families (``--extended`` is ``with_families(["extended"])``)."""
        return replace(self, families=(*self.families, *extra))

    @property
    def is_paper(self) -> bool:
        """Exactly the paper's protocol (sampling aside)?"""
        return replace(self, seed=0, sample=None) == GenerationRequest()

    @property
    def non_gregorian(self) -> tuple[str, ...]:
        """The paper family's non-Gregorian calendars under the Islamic convention (Islamic swapped)."""
        return tuple(ISLAMIC_CALENDAR[self.islamic_convention] if c == "islamic" else c for c in self.calendars)

    def recorded(self) -> dict:
        """What differs from the paper's protocol, as a run folder or a log records it (the paper: {})."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            if value != default:
                out[f.name] = list(value) if isinstance(value, tuple) else dict(value) if isinstance(value, dict) else value
        return out


__all__ = ["GenerationRequest", "PAPER_FAMILIES", "check_families", "check_calendars"]
