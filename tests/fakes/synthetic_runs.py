"""Synthetic run folders in the results.jsonl format of .notes/CONTRACTS.md (for tests and benchmarks).

Correctness is drawn with a chosen probability per instance, so statistics have known answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from span_toolkit.span import CALENDAR_NAMES

OTHERS = tuple(c for c in CALENDAR_NAMES if c != "gregorian")


def instances(n: int, eval_dates=("2025-07-01",), seed: int = 0) -> list[dict]:
    """n instances per evaluation date, cycling through every combination of reasoning type,
    question format, direction and calendar pair."""
    out = []
    for date in eval_dates:
        for i in range(n):
            other = OTHERS[i % 5]
            direction = ("gregorian_to_other", "other_to_gregorian")[(i // 5) % 2]
            fmt = ("content", "polar")[(i // 10) % 2]
            rtype = ("date", "festival")[(i // 20) % 2]
            src, tgt = (("gregorian", other) if direction == "gregorian_to_other"
                        else (other, "gregorian"))
            if fmt == "polar":
                gold = bool(i % 3)
                answer = "Yes" if gold else "No"
            elif tgt == "islamic":
                from span_toolkit.span import CalendarDate
                d = CalendarDate.from_ordinal("islamic", 739429 + (37 * i) % 18000)
                gold = d.as_dict()
                answer = d.display()
            else:
                gold = {"calendar": tgt, "year": 2025, "month": 1 + i % 12, "day": 1 + i % 28,
                        "is_leap_month": False}
                answer = f"{gold['year']}-{gold['month']}-{gold['day']}"
            out.append({"id": f"{date}-{i:06d}", "eval_date": date, "reasoning_type": rtype,
                        "question_format": fmt, "direction": direction, "source_calendar": src,
                        "target_calendar": tgt, "template_id": f"t{i % 7}",
                        "variables": {"unit": "days", "offset": i % 30, "sense": "later"},
                        "question": f"synthetic question {i}", "code": "", "answer": answer,
                        "gold": gold})
    return out


def results(insts: list[dict], model: str, mode: str, p_correct: float | Callable[[dict], float],
            seed: int = 0, *, llm_judge: bool = False, n_errors: int = 0, n_unscored: int = 0,
            n_not_attempted: int = 0, fixed: dict[str, bool] | None = None,
            tokens: int = 120, umm_al_qura_ids: set[str] | None = None) -> list[dict]:
    """One result line per instance.  The first n_errors lines are provider errors (correct null),
    the next n_unscored are UNSCORED llm verdicts (correct null, primary judge llm for them), the
    next n_not_attempted have a NOT_ATTEMPTED rules verdict (correct false).  Islamic-target
    content instances in umm_al_qura_ids are answered (wrongly) with the Umm al-Qura date of the
    gold's Gregorian day."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, inst in enumerate(insts):
        p = p_correct(inst) if callable(p_correct) else p_correct
        ok = bool(rng.random() < p)
        if fixed and inst["id"] in fixed:
            ok = fixed[inst["id"]]
        rec = dict(inst)
        answer = inst["answer"] if ok else "I am not sure, maybe 1999-1-1"
        if umm_al_qura_ids and inst["id"] in umm_al_qura_ids and isinstance(inst["gold"], dict):
            from span_toolkit.span import CalendarDate, get_calendar
            h = CalendarDate.from_ordinal("islamic_umm_al_qura", CalendarDate.from_dict(inst["gold"]).ordinal)
            answer = f"{h.day} {get_calendar('islamic').month_names[h.month]} {h.year}"
            ok = (h.year, h.month, h.day) == tuple(inst["gold"][k] for k in ("year", "month", "day"))
        rules = {"verdict": "CORRECT" if ok else "INCORRECT", "extracted": answer, "reason": ""}
        rec.update({"mode": mode, "model": model, "messages": [{"role": "user", "content": "q"}],
                    "tool_calls": [], "final_answer": answer, "stop_reason": "answered",
                    "usage": {"input_tokens": 300, "output_tokens": tokens + (k % 50)},
                    "latency_s": 0.01, "retries": 0, "error": None,
                    "verdicts": {"rules": rules}, "primary_judge": "rules", "correct": ok})
        if llm_judge:
            flip = rng.random() < 0.05
            rec["verdicts"]["llm"] = {"verdict": "CORRECT" if ok != flip else "INCORRECT",
                                      "raw": "", "attempts": 1}
        if k < n_errors:
            rec.update({"final_answer": None, "stop_reason": "error", "error": "HTTP 529 overloaded",
                        "correct": None, "usage": {"input_tokens": None, "output_tokens": None}})
            rec["verdicts"] = {"rules": {"verdict": "NOT_ATTEMPTED", "extracted": None,
                                         "reason": "no answer"}}
            rec["primary_judge"] = "rules"
        elif k < n_errors + n_unscored:
            rec["verdicts"]["llm"] = {"verdict": "UNSCORED", "raw": "???", "attempts": 3}
            rec["primary_judge"] = "llm"
            rec["correct"] = None
        elif k < n_errors + n_unscored + n_not_attempted:
            rec["verdicts"]["rules"] = {"verdict": "NOT_ATTEMPTED", "extracted": None, "reason": ""}
            rec["final_answer"] = "I cannot answer that."
            rec["correct"] = False
        rows.append(rec)
    return rows


def write_run(folder: str | Path, rows: list[dict], *, truncate_last: bool = False) -> Path:
    """A run folder in the real layout (client.rundir), optionally with a cut-off last line."""
    from span_toolkit.client.rundir import RunFolder, RunInfo, summarize

    run = RunFolder(folder)
    run.create()
    text = "".join(json.dumps(r) + "\n" for r in rows)
    if truncate_last and rows:
        text = text[:-1]
        text = text[: len(text) - max(5, len(json.dumps(rows[-1])) // 2)]
    run.results_path.write_text(text, encoding="utf-8")
    model = rows[0]["model"] if rows else "unknown"
    mode = rows[0]["mode"] if rows else "unknown"
    run.write_info(RunInfo(model=model, mode=mode, judges={"rules": "span_toolkit.client.judges.rules"}, primary_judge="rules",
                           started_at="", ended_at=""))
    run.write_summary(summarize(rows, model, mode))
    return run.path
