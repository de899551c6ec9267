"""Calendar facts have one home, the registry (span/calendars/__init__.py): no code or data file counts the
calendars by hand ("eleven calendars", "the paper's six and five more") or lists them by hand ("julian,
coptic, ethiopian"); texts that need them derive them (span.calendars.prose, server.manifest). So adding a
calendar is its module, one registry line and its tests — nothing else goes stale.

Scanned: every file git tracks or would track (code, prompts, server.json, pyproject), except the calendar
package itself, recorded real-model replies (tests/fixtures: what a model was sent then) and the prose
docs. Counts are looked for everywhere else, tests included; lists outside tests (tests list calendars as
their data). "six" is the SPAN paper's fixed set of calendars (the protocol), not a count of the registry.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from span_toolkit.span import ALL_CALENDAR_NAMES, CALENDAR_NAMES, get_calendar
from span_toolkit.span.calendars import prose

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".json", ".md", ".toml", ".cjs", ".sh", ".txt", ".yml", ".yaml", ".cfg"}
EXEMPT_DIRS = ("span/calendars/", "tests/fixtures/", "docs/", "build/", "benchmarks/results/")
# server.json is generated from the registry (tests/test_server_json.py checks it is the derived form)
EXEMPT_FILES = {"README.md", "CHANGELOG.md", "tests/test_calendar_facts.py", "mkdocs.yml", "server.json"}
# Reviewed: lists that state a fact of those few calendars, not the registry's calendars.
FACTS = {
    ("span/festivals.py", "Gregorian, Julian, Coptic, Ethiopian"),   # the calendars with a "Christmas"
    ("pyproject.toml", "Japanese era, ROC, Thai Buddhist era (proleptic), Bahá'í"),   # what these oracles check
}

_WORDS = [prose.number_word(n) for n in range(100)]
# Two, three or four calendars are the items of a question or a pair/triple of them, not a registry count.
_NUMBER = "|".join(sorted((re.escape(w) for w in _WORDS[5:] if w != "six"), key=len, reverse=True)) + \
    r"|[1-9]\d+|[5789]"
_ADJ = r"(?:(?:more|other|further|extra|additional|supported|new|non-Gregorian)\s+)?"
COUNT = re.compile(rf"\b(?:(?P<n>{_NUMBER})\s+{_ADJ}calendars\b"
                   rf"|six\b[^\n]{{0,80}}?\band\s+(?P<more>{_NUMBER}|one|two|three|four)\s+more\b)", re.I)


# every way a calendar is named in text (canonical name, title, title without its bracket) -> the calendar
_CANONICAL = {written.lower(): name for name in ALL_CALENDAR_NAMES
              for written in (name, get_calendar(name).title, re.sub(r"\s*\(.*?\)", "", get_calendar(name).title))
              if written}


def _names() -> list[str]:
    return sorted(_CANONICAL, key=len, reverse=True)


_NAME = "(?:" + "|".join(re.escape(n) for n in _names()) + ")"
_SEP = r"(?:\s*\([^()\n]{0,40}\))?[\"'`]?\s*(?:,\s*(?:and|or)\b|,|;|/|\band\b|\bor\b)\s*[\"'`]?"
LIST = re.compile(rf"(?<![\w-]){_NAME}(?![\w-])(?:{_SEP}{_NAME}(?![\w-])){{2,}}", re.I)
_ONE = re.compile(rf"(?<![\w-]){_NAME}(?![\w-])", re.I)
_PAPER = {n.lower() for c in CALENDAR_NAMES for n in (c, get_calendar(c).title)}


_CONTINUED = re.compile(r"(?P<q>[\"'])[ \t]*\n\s*[fFrRbB]?(?P=q)")


def _joined(text: str) -> str:
    """Adjacent string literals split over lines ("... eleven "\n    "calendars ...") read as one."""
    return _CONTINUED.sub("", text)


def hand_counts(text: str) -> list[str]:
    """Phrases that count calendars by hand (any number but the paper's six)."""
    return [m.group(0) for m in COUNT.finditer(_joined(text))]


def hand_lists(text: str) -> list[str]:
    """Runs of calendar names that name three or more beyond the paper's six, or the paper's six and any
    other (a list of the paper's six alone is the protocol's, e.g. the prompts; one or two others beside
    some of them are facts of those calendars)."""
    out = []
    for m in LIST.finditer(_joined(text)):
        named = {n.lower() for n in _ONE.findall(m.group(0))}
        beyond = {_CANONICAL[n] for n in named - _PAPER}
        paper = {_CANONICAL[n] for n in named & _PAPER}
        if len(beyond) >= 3 or (beyond and paper >= set(CALENDAR_NAMES)):   # the paper's six "and more"
            out.append(m.group(0))
    return out


def _tree() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    files = []
    for rel in sorted(set(listed)):
        if rel in EXEMPT_FILES or rel.startswith(EXEMPT_DIRS) or Path(rel).suffix not in SUFFIXES:
            continue
        if "egg-info" in rel or not (ROOT / rel).is_file():
            continue
        files.append(ROOT / rel)
    return files


# --------------------------------------------------------------------------------------------------
# the detectors detect
# --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Exact date tools for eleven calendars: ...",
    "across 11 calendars",
    "the SPAN paper's six (Gregorian, ...) and five more",
    "the five calendars beyond the paper",
    "Seventeen supported calendars",
    'description="... across eleven "\n                    "calendars: the SPAN paper\'s six"',   # split literals
])
def test_a_hand_written_count_is_caught(text):
    assert hand_counts(text), text


@pytest.mark.parametrize("text", [
    "gregorian, chinese_lunar, islamic, hebrew, shaka, persian, julian, coptic",
    "and Julian, Coptic, Ethiopian, Umm al-Qura and Korean lunar.",
    '["julian", "coptic", "korean_lunar"]',
    "Hebrew, Islamic (tabular), Julian, Coptic or Korean lunar",
    '"Calendars: the SPAN paper\'s six (gregorian, chinese_lunar, islamic, hebrew, shaka, persian) and julian, "\n'
    '    "coptic, ethiopian, islamic_umm_al_qura, korean_lunar (aliases such as"',
])
def test_a_hand_written_list_is_caught(text):
    assert hand_lists(text), text


@pytest.mark.parametrize("text", [
    "You answer questions about dates in six calendars: Gregorian, Chinese lunar, Islamic (Hijri), Hebrew, "
    "Shaka (Indian national) and Persian (Solar Hijri).",      # the paper's six, by the protocol
    "Julian = Old Style, Gregorian month names. Shaka = Indian national calendar",   # prose about calendars
    'targets e.g. ["julian", "korean_lunar"]',                 # an example, not a list of them all
    "the six calendars every result carries",
    "two calendars apart; three calendars of one question",
    "chinese_lunar (2057, 2097), korean_lunar (2051, 2074) and islamic_umm_al_qura",   # facts of two others
])
def test_what_is_not_a_hand_written_fact(text):
    assert not hand_counts(text) and not hand_lists(text), text


def test_the_derived_words_follow_the_registry():
    assert prose.count_text() == f"{prose.number_word(len(ALL_CALENDAR_NAMES))} calendars"
    text = prose.paper_and_more()
    assert all(get_calendar(n).title in text for n in ALL_CALENDAR_NAMES)
    assert prose.paper_and_more(canonical=True).startswith(f"the SPAN paper's six ({', '.join(CALENDAR_NAMES)})")
    assert [prose.number_word(n) for n in (0, 11, 17, 20, 21, 99, 100)] == \
        ["zero", "eleven", "seventeen", "twenty", "twenty-one", "ninety-nine", "100"]
    assert prose.listing(["a"]) == "a" and prose.listing(["a", "b", "c"], "or") == "a, b or c"


# --------------------------------------------------------------------------------------------------
# the tree holds none
# --------------------------------------------------------------------------------------------------

def test_no_file_counts_the_calendars_by_hand():
    found = [f"{p.relative_to(ROOT)}: {hit!r}" for p in _tree()
             for hit in hand_counts(p.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "count calendars from the registry (span.calendars.prose), not by hand:\n" + "\n".join(found)


def test_no_file_lists_the_calendars_by_hand():
    found = [f"{p.relative_to(ROOT)}: {hit!r}" for p in _tree() if not str(p.relative_to(ROOT)).startswith("tests/")
             for hit in hand_lists(p.read_text(encoding="utf-8", errors="replace"))
             if (str(p.relative_to(ROOT)), " ".join(hit.split())) not in FACTS]
    assert not found, ("name the calendars from the registry (span.calendars: ALL_CALENDAR_NAMES, prose), not by "
                       "hand:\n" + "\n".join(found))


def test_the_model_facing_texts_name_every_calendar():
    from span_toolkit.server.__main__ import build_parser
    from span_toolkit.server.app import INSTRUCTIONS
    from span_toolkit.server.tools import CONVENTIONS

    count = prose.count_text()
    helptext = " ".join(build_parser().format_help().split())
    for text in (INSTRUCTIONS, helptext):
        assert count in text and all(get_calendar(n).title in text for n in ALL_CALENDAR_NAMES)
    assert all(n in CONVENTIONS for n in ALL_CALENDAR_NAMES)
