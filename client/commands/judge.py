"""`span-client judge RUN_DIR`: re-judge a run folder without asking the model again."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from ..cache import CacheError, ResponseCache
from ..providers import ModelSpecError
from ..rejudge import JudgeStopped, rejudge
from ..retry import RetryPolicy
from ..rundir import RunFolderError
from ..scorer import make_scorer
from . import common
from .argtypes import base_url, nonneg_float, nonneg_int, positive_float, positive_int


def configure(jd: argparse.ArgumentParser) -> None:
    jd.add_argument("run_dir", type=Path, help="run folder written by `span-client eval`")
    jd.add_argument("--judge-model", help="LLM judge PROVIDER/MODEL (default: rules judge only, earlier LLM verdicts kept)")
    jd.add_argument("--judge-base-url", type=base_url, metavar="URL", help="base URL for the judge model")
    jd.add_argument("--judge-api-key", help="API key for the judge model (prefer the provider's environment variable: "
                                            "a flag is visible to every local process)")
    jd.add_argument("--force-resume", action="store_true",
                    help="re-judge even though results.jsonl holds lines that are not result records: they are set "
                         "aside in results.corrupt (without it such a folder is refused with their line numbers)")
    common.add_cache_arguments(jd, "an LLM judge request (same judge, settings and text; the cache `eval --cache` "
                                   "uses)")
    jd.add_argument("--concurrency", type=positive_int, default=8)
    jd.add_argument("--timeout", type=positive_float, default=120.0)
    jd.add_argument("--max-retries", type=nonneg_int, default=6)
    jd.add_argument("--retry-base-delay", type=nonneg_float, default=1.0)
    jd.add_argument("--max-retry-wait", type=positive_float, default=60.0, metavar="SECONDS",
                    help="longest wait before a retry; a longer Retry-After is capped to it (default 60)")


def run(args) -> int:
    if not args.run_dir.is_dir():
        raise common.UsageError(f"{args.run_dir} is not a folder (give a run folder written by `span-client eval`)")
    if args.judge_base_url and not args.judge_model:
        raise common.UsageError("--judge-base-url needs --judge-model")
    common.warn_secret_flags(args)
    retry = RetryPolicy(max_retries=args.max_retries, base_delay=args.retry_base_delay, timeout=args.timeout,
                        max_delay=args.max_retry_wait)
    if (args.cache or args.cache_dir) and not args.judge_model:
        raise common.UsageError("--cache holds LLM judge replies: it needs --judge-model (the rules judge asks nobody)")
    try:
        cache = ResponseCache(args.cache_dir) if args.cache or args.cache_dir else None
        scorer = make_scorer(args.judge_model, base_url=args.judge_base_url, api_key=args.judge_api_key,
                             timeout=args.timeout, retry=retry, cache=cache)
    except (ModelSpecError, CacheError) as e:
        raise common.UsageError(str(e)) from None

    async def go():
        try:
            return await rejudge(args.run_dir, scorer, args.concurrency, force=args.force_resume)
        finally:
            await scorer.aclose()

    try:
        summary = asyncio.run(go())
    except RunFolderError as e:
        raise common.UsageError(str(e)) from None
    except JudgeStopped as e:
        common.print_err(str(e))
        return 1
    common.print_summary(summary, args.run_dir)
    return 1 if summary.get("n_judge_errors") else 0
