"""Re-judging a run folder without asking the model again: the answers whose LLM verdict is UNSCORED
because the judge *request* failed (on resume), or every answer (``span-client judge``)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from pathlib import Path

from span_toolkit import prompts
from .rundir import (ResultLine, RunFolder, RunFolderError, RunInfo, judge_request_failed, summarize,
                     verdict_correct)
from .scale import summary_figures
from .scorer import Scorer


class JudgeStopped(Exception):
    """The judge refused us for good (401/403/404): nothing was rewritten."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


async def rejudge_failed_requests(folder: RunFolder, scorer: Scorer, concurrency: int = 8) -> int:
    """Re-judge (without asking the model) the lines whose LLM verdict is UNSCORED because the judge request
    failed; rewrite results.jsonl atomically. Returns how many were re-judged."""
    if scorer.llm is None or not folder.has_results():
        return 0
    lines: list[dict | ResultLine] = list(folder.records())
    todo = [i for i, line in enumerate(lines) if line.get("stop_reason") != "error" and judge_request_failed(line)]
    if not todo:
        return 0
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(i: int) -> None:
        async with sem:
            if not scorer.fatal:
                lines[i] = await scorer.judge(ResultLine.model_validate(lines[i]))

    await asyncio.gather(*(one(i) for i in todo))
    folder.rewrite_results(lines)
    return len(todo)


async def rejudge(out_dir: Path, scorer: Scorer, concurrency: int = 8, *, force: bool = False) -> dict:
    """Re-judge every line of an existing run without asking the model; rewrite results atomically. A line
    that is not a result record is refused, or with ``force`` set aside in results.corrupt (never dropped)."""
    folder = RunFolder(out_dir)
    if not folder.has_results():
        raise RunFolderError(f"{out_dir} has no results.jsonl; is it a span-client eval run folder?")
    with folder.lock():
        folder.set_aside_corrupt(force=force)
        info = folder.read_info()
        lines = list(folder.records())
        sem = asyncio.Semaphore(max(1, concurrency))
        keep_llm = scorer.llm is None
        prev_primary = info.primary_judge if info else None

        async def one(line: dict) -> ResultLine:
            record = ResultLine.model_validate(line)
            async with sem:
                if scorer.fatal:
                    return record
                old = record.verdicts
                await scorer.judge(record)
                if keep_llm and "llm" in old and record.stop_reason != "error":
                    # no --judge-model now: keep the earlier LLM verdicts, and the run's primary judge
                    record.verdicts = {**record.verdicts, "llm": old["llm"]}
                    if prev_primary == "llm":
                        record.primary_judge = "llm"
                        record.correct = verdict_correct(old["llm"].verdict)
                return record

        judged = [r.to_dict() for r in await asyncio.gather(*(one(line) for line in lines))]
        if scorer.fatal:  # nothing rewritten: the earlier verdicts stay as they were
            raise JudgeStopped(f"stopped: {scorer.fatal}; results.jsonl was left unchanged")
        folder.rewrite_results(judged)
        judges, primary = scorer.describe(), scorer.primary
        if keep_llm and any("llm" in (line.get("verdicts") or {}) for line in judged):
            judges["llm"] = (info.judges if info else {}).get("llm")
            primary = prev_primary or primary
        if info is None:
            info = RunInfo(model=str(judged[0].get("model")) if judged else "unknown",
                           mode=str(judged[0].get("mode")) if judged else "unknown", format_version=1)
        info.judges, info.primary_judge = judges, primary
        info.rejudged_at = _now()
        info.prompt_hashes = prompts.hashes()
        folder.write_info(info)
        summary = summarize(judged, info.model, info.mode)
        summary.update(summary_figures(judged, info.epochs or 1, info.price))  # what eval wrote besides the counts
        folder.write_summary(summary)
        return summary
