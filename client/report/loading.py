"""Reading run folders for the report, through client.rundir (the layout's one home); only the fields the
report uses are kept in memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..rundir import RunFolder, RunFolderError
from ..passk import attempt_of
from ..rundir.folder import RESULTS

# the fields the report uses; the rest (messages, tool results...) is dropped to keep memory small
_KEEP = ("id", "eval_date", "reasoning_type", "question_format", "direction", "source_calendar",
         "target_calendar", "template_id", "mode", "model", "final_answer", "stop_reason", "usage",
         "error", "verdicts", "primary_judge", "correct", "gold", "answer", "code_runs", "repeats_caught",
         "final_turn", "code_reminder", "answered_without_code", "disputed", "epoch", "thinking_cut", "prompt_echo")
# what the scale section (client.report.cost_and_epochs) reads of every attempt
_ATTEMPT = ("id", "epoch", "correct", "reasoning_type", "question_format", "direction", "eval_date",
            "cost_usd", "requests", "batch_requests", "cache_hits", "judge_requests", "judge_cache_hits",
            "judge_cost_usd")

MODE_ORDER = {"unaided": 0, "with_tools": 1, "time_agent": 2}


class RunInputError(Exception):
    """The folder cannot be used as a run (message says why)."""


@dataclass
class Run:
    path: Path
    meta: dict
    summary: dict | None
    records: list[dict]  # one per instance: its first attempt (the arms are compared instance by instance)
    warnings: list[str] = field(default_factory=list)
    attempts: list[dict] = field(default_factory=list)  # every attempt (--epochs), few fields each

    @property
    def label(self) -> str:
        return str(self.path)


def _slim(obj: dict) -> dict:
    rec = {k: obj[k] for k in _KEEP if k in obj}
    c = rec.get("correct")
    if c is not None and not isinstance(c, bool):  # 0/1 or junk: only true/false/null are scores
        rec["correct"] = bool(c) if c in (0, 1) else None
    if isinstance(rec.get("code_runs"), list):  # the report needs only how each run ended
        rec["code_runs"] = [{"exit_reason": x.get("exit_reason")} for x in rec["code_runs"] if isinstance(x, dict)]
    v = rec.get("verdicts")
    if isinstance(v, dict):  # keep verdict / extracted only
        rec["verdicts"] = {j: {k: x.get(k) for k in ("verdict", "extracted")}
                           for j, x in v.items() if isinstance(x, dict)}
    return rec


def load_run(path: str | Path) -> Run:
    """Load one run folder. Raises RunInputError when nothing usable is in it.

    A truncated last line (a run interrupted while writing) is ignored with a warning; other
    malformed lines are skipped and counted."""
    p = Path(path)
    if not p.exists():
        raise RunInputError(f"{p}: no such folder")
    if p.is_file():
        if p.name == RESULTS:
            p = p.parent
        else:
            raise RunInputError(f"{p}: is a file, not a run folder (expected a folder with {RESULTS})")
    results = p / RESULTS
    if not results.is_file():
        hint = ""
        nested = sorted(x.parent.name for x in p.glob(f"*/{RESULTS}"))
        if nested:
            hint = f"; sub-folders that are runs: {', '.join(nested[:8])}"
        raise RunInputError(f"{p}: not a run folder (no {RESULTS}){hint}")
    warnings: list[str] = []
    folder = RunFolder(p)
    try:
        info = folder.read_info()
    except RunFolderError as exc:
        raise RunInputError(str(exc)) from None
    meta = info.to_dict() if info is not None else {}
    if info is None:
        warnings.append(f"{p}: no run.json; model and mode taken from the result lines")
    summary_rec = folder.read_summary()
    summary = summary_rec.to_dict() if summary_rec is not None else None

    records: list[dict] = []
    attempts: list[dict] = []
    bad: list[int] = []
    truncated = False
    seen: set[tuple[str, int]] = set()
    first: dict[str, int] = {}  # id -> index in records of its lowest attempt so far
    n_dupes = n_no_id = n_lines = 0
    try:
        for line in folder.read_lines():  # streamed: files with full transcripts can be hundreds of MB
            n_lines += 1
            if line.problem == "truncated":
                truncated = True  # cut off while being written
                continue
            if line.problem == "no_id":
                n_no_id += 1
                continue
            if line.problem:
                bad.append(line.lineno)
                continue
            obj = line.obj
            rid = str(obj["id"])
            attempt = attempt_of(obj)
            if (rid, attempt) in seen:
                n_dupes += 1
                continue
            seen.add((rid, attempt))
            rec = _slim(obj)
            rec["id"] = rid
            rec.setdefault("model", meta.get("model") or "unknown")
            rec.setdefault("mode", meta.get("mode") or "unknown")
            att = {k: rec.get(k, obj.get(k)) for k in _ATTEMPT}
            att.update(id=rid, epoch=attempt, model=rec["model"], mode=rec["mode"])
            for key in ("cost_usd", "judge_requests"):  # absent: not recorded (unknown), which None would blur
                if key not in obj:
                    att.pop(key)
            attempts.append(att)
            if rid not in first:
                first[rid] = len(records)
                records.append(rec)
            elif attempt < attempt_of(records[first[rid]]):  # lines come in finishing order
                records[first[rid]] = rec
    except OSError as exc:
        raise RunInputError(f"{results}: unreadable ({exc})") from exc
    if truncated:
        warnings.append(f"{results}: the last line is truncated (run interrupted while writing?); "
                        f"ignored it, {len(records)} complete lines used")
    if bad:
        shown = ", ".join(map(str, bad[:10])) + (" ..." if len(bad) > 10 else "")
        warnings.append(f"{results}: {len(bad)} malformed line(s) skipped (line {shown})")
    if n_no_id:
        warnings.append(f"{results}: {n_no_id} line(s) without an instance id skipped")
    if n_dupes:
        warnings.append(f"{results}: {n_dupes} duplicate instance id(s) (same attempt); the first occurrence kept")
    if not records:
        why = "is empty" if not n_lines else "has no usable result line"
        raise RunInputError(f"{results} {why}")
    missing_correct = sum(1 for r in records if "correct" not in r)
    if missing_correct:
        warnings.append(f"{results}: {missing_correct} line(s) have no 'correct' field; "
                        f"counted as unscored")
    return Run(p, meta, summary, records, warnings, attempts=attempts)


@dataclass
class Series:
    """All results of one model in one mode (possibly from several run folders)."""
    model: str
    mode: str
    records: list[dict]
    sources: list[str]
    attempts: list[dict] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return (self.model, self.mode)

    @property
    def label(self) -> str:
        return f"{self.model} · {self.mode.replace('_', ' ')}"

    @property
    def ids(self) -> set[str]:
        return {r["id"] for r in self.records}


def series_sort_key(key: tuple[str, str]) -> tuple:
    return (key[0], MODE_ORDER.get(key[1], 9), key[1])


def group_series(runs: list[Run]) -> tuple[list[Series], list[str]]:
    """Merge runs into series keyed by (model, mode); a run folder holding several models or modes
    is split.  The same instance id twice in one series (overlapping runs) keeps the first."""
    warnings: list[str] = []
    by_key: dict[tuple[str, str], Series] = {}
    seen: dict[tuple[str, str], set[str]] = {}
    dupes: dict[tuple[str, str], int] = {}
    for run in runs:
        accepted: dict[tuple[str, str], set[str]] = {}
        for rec in run.records:
            key = (str(rec.get("model")), str(rec.get("mode")))
            s = by_key.get(key)
            if s is None:
                s = by_key[key] = Series(key[0], key[1], [], [])
                seen[key] = set()
            if run.label not in s.sources:
                s.sources.append(run.label)
            if rec["id"] in seen[key]:
                dupes[key] = dupes.get(key, 0) + 1
                continue
            seen[key].add(rec["id"])
            s.records.append(rec)
            accepted.setdefault(key, set()).add(rec["id"])
        for a in run.attempts:  # every attempt of the instances this run contributed
            key = (str(a.get("model")), str(a.get("mode")))
            if a["id"] in accepted.get(key, ()):
                by_key[key].attempts.append(a)
    for key, n in dupes.items():
        warnings.append(f"{key[0]} / {key[1]}: {n} instance id(s) appear in more than one run folder; "
                        f"the first occurrence kept")
    return [by_key[k] for k in sorted(by_key, key=series_sort_key)], warnings
