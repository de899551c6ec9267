"""Running an evaluation: every instance through the solver, scored, appended to the run folder.

Resume: re-running with the same ``--out`` skips every instance already answered (client.rundir handles
truncated lines, error lines and corrupt lines); answers whose LLM verdict is UNSCORED because the judge
*request* failed are re-judged without asking the model again. A resume with other settings is refused
unless ``force_resume``.

The run stops early (:class:`RunStopped`; what is written is kept, what is not asked stays unasked, so the
same command resumes) when every further request would fail the same way: a 401/403/404 from the model or
the judge, ``MAX_IDENTICAL_ERRORS`` identical non-retryable errors in a row, a prompt that overflows the
model's context on every one of the first ``OVERFLOW_STOP`` instances, or a model endpoint that stopped
answering (client.retry.EndpointDown). One SIGINT or SIGTERM stops the run within seconds
(:class:`RunInterrupted`): instances in flight are dropped, not recorded; a second one exits at once (after
removing the sandbox's processes and folders).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator

from span_toolkit import prompts
from . import dataset as _dataset
from .batch import BatchError
from .budget import Budget
from .cache import CacheError, ResponseCache
from .metering import attempt_scope
from .passk import attempt_of
from .models import make_model
from .pricing import Price
from .providers import ModelSpecError, Provider
from .providers.registry import ref_of
from .providers.errors import context_overflow_sizes, error_signature
from .progress import Progress
from .providers.thinking import ReasoningSettingError, reasoning_settings
from .rundir.summary import reasoning_line
from .rejudge import rejudge_failed_requests
from .retry import EndpointDown, RetryPolicy
from .rundir import ResultLine, RunFolder, RunInfo, private_open, summarize
from .scale import (SCALE_FIELDS, attempts_to_do, check_scale, collect_batch, provider_stack, spent_in,
                    summary_figures)
from .scorer import FATAL_STATUS, Scorer, make_scorer
from .settings import check_resume, run_settings, versions
from .solvers import Solver, open_solver
from .spec import RunSpec

MAX_IDENTICAL_ERRORS = 5
OVERFLOW_STOP = 3


class RunStopped(Exception):
    """The run ended early; carries the summary written so far."""

    def __init__(self, message: str, summary: dict | None = None, budget_spent: float | None = None):
        super().__init__(message)
        self.summary = summary
        self.budget_spent = budget_spent  # set when --budget stopped the run: USD spent so far


class RunInterrupted(RunStopped):
    """SIGINT: finished results are on disk; the same command resumes."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class StopRules:
    """Decides, after each finished instance, whether the run must stop (first reason wins)."""

    def __init__(self, label: str, scorer: Scorer):
        self.label, self.scorer = label, scorer
        self.reason: str | None = None
        self._last: str | None = None
        self._same = 0
        self._overflows = 0
        self._any_ok = False

    def after(self, record: ResultLine, status: int | None, retryable: bool | None) -> None:
        if self.reason:
            return
        if self.scorer.fatal:
            self.reason = self.scorer.fatal
            return
        if record.stop_reason != "error":
            self._any_ok, self._last, self._same = True, None, 0
            return
        if status in FATAL_STATUS or record.error_kind == "reasoning_rejected":  # every request would fail
            self.reason = f"{self.label}: {record.error}"
            return
        if record.error_kind == "context_overflow" and not self._any_ok:
            self._overflows += 1
            if self._overflows >= OVERFLOW_STOP:
                sizes = context_overflow_sizes(record.error or "")
                said = (f" (the model's context: {sizes['limit']:,} tokens"
                        + (f"; the prompt: {sizes['prompt']:,}" if "prompt" in sizes else "") + ")"
                        if "limit" in sizes else "")
                self.reason = (f"the prompt overflowed the model's context on each of the first {self._overflows} "
                               f"instances{said} ({record.error}): it does not fit; give the model a larger context "
                               f"(e.g. llama.cpp --n_ctx / -c), lower --max-tokens, or offer fewer tools (--tools)")
                return
        if status is not None and 400 <= status < 500 and not retryable:
            key = f"{status}:{error_signature(record.error)}"
            self._same = self._same + 1 if key == self._last else 1
            self._last = key
            if self._same >= MAX_IDENTICAL_ERRORS:
                self.reason = f"{self.label}: {MAX_IDENTICAL_ERRORS} consecutive identical errors: {record.error}"
        else:
            self._last, self._same = None, 0


def apply_reasoning(spec: RunSpec, provider: Provider) -> list[str]:
    """--reasoning-effort / --thinking-budget set on the provider; the one-line notes on what it needed
    alongside are printed (and kept in run.json). ModelSpecError: a value this provider cannot take."""
    effort, budget = getattr(spec, "reasoning_effort", None), getattr(spec, "thinking_budget", None)
    if effort is None and budget is None:
        return []
    try:
        notes = provider.set_reasoning(effort, budget)
    except ReasoningSettingError as e:
        raise ModelSpecError(str(e)) from None
    for note in notes:
        if not spec.quiet:
            print(f"span-client: note: {note}", file=sys.stderr)
    return notes


def retry_policy(spec: RunSpec) -> RetryPolicy:
    return RetryPolicy(max_retries=spec.max_retries, base_delay=spec.retry_base_delay, timeout=spec.timeout,
                       max_delay=spec.max_retry_wait)


async def run_eval(spec: RunSpec, *, provider: Provider | None = None, instances: _dataset.Instances | None = None,
                   mcp_target: Any = None) -> dict:
    """Run ``spec`` to its summary. What the spec names is built here (the model's provider, the judges,
    the instances); ``provider`` and ``instances`` may be given instead (tests, benchmarks, other
    harnesses), and ``mcp_target`` is an in-process MCP server to use instead of span-server.

    Raises ModelSpecError / DatasetError (bad input, before anything is written), RunFolderError, and
    RunStopped / RunInterrupted (with the summary written so far)."""
    retry = retry_policy(spec)
    own_provider = provider is None
    scorer: Scorer | None = None
    try:
        if provider is None:
            provider = make_model(spec.ref, base_url=spec.base_url, api_key=spec.api_key,
                                  temperature=spec.temperature, max_tokens=spec.max_tokens, timeout=spec.timeout)
        reasoning_notes = apply_reasoning(spec, provider)  # --reasoning-effort / --thinking-budget (#30)
        price, cache = scale_checks(spec, provider)
        scorer = make_scorer(spec.judge_model, base_url=spec.judge_base_url, api_key=spec.judge_api_key,
                             timeout=spec.timeout, retry=retry, cache=cache)
        if spec.budget is not None and scorer.llm is not None and scorer.price is None:
            raise ModelSpecError(f"--budget needs the judge's price too: {scorer.judge_model} is not in the price "
                                 f"table; drop --budget or use a judge the table knows (e.g. openai/gpt-4o-mini)")
        data = instances if instances is not None else _dataset.load(spec)
        folder = RunFolder(spec.out_dir)
        folder.create()
        with folder.lock():
            run = EvalRun(spec, provider, scorer, retry, folder, mcp_target, price=price, cache=cache)
            run.reasoning_notes = reasoning_notes
            with run.signals_handled():
                return await run.run(data)
    finally:
        if own_provider and provider is not None:
            await provider.aclose()
        if scorer is not None:
            await scorer.aclose()


def scale_checks(spec: RunSpec, provider: Provider) -> tuple[Price | None, ResponseCache | None]:
    """The model's price and response cache, and the scale options checked against the run
    (ModelSpecError: one line, before anything is written)."""
    price = check_scale(spec, ref_of(provider))  # the checks `eval` made of the command line, for any spec
    try:
        asks_an_llm = provider.is_llm or spec.judge_model  # the model, or an LLM judge of a scripted agent
        cache = ResponseCache(spec.cache_dir) if (spec.cache or spec.cache_dir) and asks_an_llm else None
    except CacheError as e:
        raise ModelSpecError(str(e)) from None
    return price, cache


class EvalRun:
    def __init__(self, spec: RunSpec, provider: Provider, scorer: Scorer, retry: RetryPolicy, folder: RunFolder,
                 mcp_target: Any = None, price: Price | None = None, cache: ResponseCache | None = None):
        self.spec, self.scorer, self.retry, self.folder = spec, scorer, retry, folder
        self.model = provider  # the model itself; self.provider is what the solver asks (cache, meter, batch)
        self.price, self.cache = price, cache
        self.provider = provider_stack(provider, cache=self.cache)
        self.mcp_target = mcp_target
        self.rules = StopRules(provider.label, scorer)
        self.budget: Budget | None = None
        self.interrupted = False
        self._tasks: list[asyncio.Task] = []
        self.reasoning_notes: list[str] = []

    async def run(self, data: _dataset.Instances) -> dict:
        spec, folder = self.spec, self.folder
        instances, total = data.items, data.total
        settings = run_settings(spec, self.provider, self.scorer, data.source, self.mcp_target)
        settings.update(reasoning_settings(self.provider.config()))  # only when set: older runs resume as before
        prev = folder.read_info()
        forced = check_resume(prev, folder.path, self.provider.label, spec.mode, settings, spec.force_resume)
        done = folder.prepare_resume(force=spec.force_resume)
        n_rejudged = await rejudge_failed_requests(folder, self.scorer, spec.concurrency) if prev else 0
        if self.scorer.fatal:
            raise RunStopped(f"stopped: {self.scorer.fatal}; nothing else was asked; fix it and re-run the same command")
        if spec.preflight and self.provider.is_llm:
            await self._preflight()
        info = RunInfo(model=self.provider.label, mode=spec.mode, judges=self.scorer.describe(),
                       primary_judge=self.scorer.primary, provider=self.provider.config(), args=spec.recorded(),
                       settings=settings, versions=versions(), prompt_hashes=prompts.hashes(),
                       system_prompt=",".join(settings["prompt_hashes"]),
                       started_at=(prev.started_at if prev else None) or _now(),
                       resumed_at=[*(prev.resumed_at if prev else []), *([_now()] if prev else [])],
                       n_instances=total, n_already_done=len(done), n_rejudged=n_rejudged,
                       price=self.price.describe() if self.price else None, epochs=spec.epochs)
        if self.reasoning_notes:
            info.reasoning_notes = list(self.reasoning_notes)
        earlier = (prev.model_extra or {}).get("forced_resumes", []) if prev else []
        if forced or earlier:
            info.forced_resumes = [*earlier, *([{"at": _now(), "differences": forced}] if forced else [])]
        ids: set[str] = set()

        def tracked() -> Iterator[dict]:
            for inst in instances:
                ids.add(inst["id"])
                yield inst

        source = tracked()
        seen: set[tuple[str, int]] = set(done)
        if spec.budget is not None:
            self.budget = Budget(spec.budget, spent=spent_in(folder))
        todo = attempts_to_do(source, spec.epochs, done)
        with private_open(folder.server_log_path, "a") as errlog:
            if spec.batch:
                todo = iter(await self._batch_phase(list(todo), errlog))
            async with open_solver(spec, self.provider, self.retry.call, errlog, self.mcp_target) as solver:
                for key, value in solver.resources.items():
                    setattr(info, key, value)
                folder.write_info(info)
                if self.budget is None or not self.budget.reached:
                    with Progress(total * spec.epochs, len(done), quiet=spec.quiet,
                                  label=self.provider.label) as progress:
                        await self._ask_all(solver, todo, seen, progress)
        for _ in source:  # a stopped run: still learn the whole instance set (ids only)
            pass
        summary = summarize(folder.records(), self.provider.label, spec.mode, ids)
        slim = [{key: r[key] for key in SCALE_FIELDS if key in r} for r in folder.records() if r["id"] in ids]
        summary.update(summary_figures(slim, spec.epochs, info.price))
        attempts = [attempt_of(r) for r in slim]
        info.ended_at = _now()
        if self.rules.reason:
            info.stopped = self.rules.reason
        if self.interrupted:
            info.interrupted = True
            summary["interrupted"] = True
        if self.cache is not None and self.cache.corrupt:  # damaged cache entries: counted and reported (#33)
            info.cache_damaged_entries = self.cache.corrupt
            print(self.cache.report(), file=sys.stderr)
        folder.write_info(info)
        folder.write_summary(summary)
        if summary.get("reasoning") and not spec.quiet:  # a thinking model's tokens apart (#30)
            print(f"span-client: {reasoning_line(summary)}", file=sys.stderr)
        n_left = max(0, len(ids) * spec.epochs - sum(1 for a in attempts if a <= spec.epochs))
        unit = "attempt" if spec.epochs > 1 else "instance"
        left = f"{n_left} {unit}{'s' if n_left != 1 else ''} not asked"
        if self.budget is not None and self.budget.reached and n_left > 0:
            info.stopped = "budget"
            folder.write_info(info)
            raise RunStopped(self.budget.stop_message(n_left, unit), summary, budget_spent=self.budget.spent)
        if self.interrupted:
            raise RunInterrupted(f"interrupted: {summary['n']} results kept, {left}; re-run the same command "
                                 f"to resume", summary)
        if self.rules.reason:
            raise RunStopped(f"stopped: {self.rules.reason} ({left}; fix it and re-run the same command to "
                             f"resume)", summary)
        return summary

    async def _batch_phase(self, todo: list[tuple[dict, int]], errlog: Any) -> list[tuple[dict, int]]:
        """--batch: every attempt's request through the provider's Batch API (or the batch an earlier run
        submitted), then the solver is asked with those answers: no per-request call."""
        spec = self.spec

        async def solve(provider: Provider, inst: dict) -> Any:
            async with open_solver(spec, provider, self.retry.call, errlog, self.mcp_target) as solver:
                return await solver.solve(inst["question"])

        def say(line: str) -> None:
            if not spec.quiet:
                print(f"span-client: {line}", file=sys.stderr)

        wait = asyncio.ensure_future(collect_batch(self.model, solve, todo, self.folder.path,
                                                   poll_every=spec.batch_poll, say=say, cache=self.cache))
        self._tasks = [wait]
        try:
            answers = await wait
        except asyncio.CancelledError:
            if self.interrupted:
                raise RunInterrupted("interrupted while waiting for the batch; it is recorded in the run folder "
                                     "(batches.json): re-run the same command to resume waiting for it") from None
            raise
        except BatchError as e:
            raise RunStopped(f"stopped: {e}") from None
        finally:
            self._tasks = []
        self.provider = provider_stack(self.model, cache=self.cache, batch_answers=answers)
        return todo

    async def _preflight(self) -> None:
        """One cheap request before the first instance: a wrong URL, a dead server, a bad key or an unknown
        model ends the command within seconds instead of failing every instance."""
        from .preflight import check_model_endpoint

        p = self.model
        info = await check_model_endpoint(p.base_url, getattr(p.client, "api_key", None), p.model, ref_of(p).kind)
        if info.warning and not self.spec.quiet:
            print(f"span-client: warning: {info.warning}", file=sys.stderr)

    @contextmanager
    def signals_handled(self) -> Iterator[None]:
        """SIGINT and SIGTERM stop the run (SIGTERM too: the sandbox's clean-up must run), from its start to
        its end, so that a second one, even during the clean-up, still removes the sandbox."""
        loop = asyncio.get_running_loop()
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self._on_sigint)
            handling = True
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread (tests, embedding)
            handling = False
        try:
            yield
        finally:
            if handling:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.remove_signal_handler(sig)

    async def _ask_all(self, solver: Solver, todo: Iterator[tuple[dict, int]], seen: set[tuple[str, int]],
                       progress: Progress) -> None:
        appender = self.folder.appender()
        try:
            self._tasks = [asyncio.create_task(self._worker(solver, todo, seen, progress, appender))
                           for _ in range(max(1, min(self.spec.concurrency, progress.total - progress.done)))]
            results = await asyncio.gather(*self._tasks, return_exceptions=True)
            for r in results:
                if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                    raise r
        finally:
            appender.close()

    def _on_sigint(self) -> None:
        if self.interrupted:
            from .sandbox import emergency_cleanup

            emergency_cleanup()  # no unwinding below: the sandbox's zygotes and folders go now
            os._exit(130)  # a second Ctrl-C: at once (every finished line is already flushed)
        self.interrupted = True
        print("\ninterrupted: stopping; finished results are kept (Ctrl-C again to quit at once)", file=sys.stderr)
        self._cancel_all()

    def _cancel_all(self) -> None:
        current = asyncio.current_task()
        for t in self._tasks:
            if t is not current:
                t.cancel()

    async def _worker(self, solver: Solver, todo: Iterator[tuple[dict, int]], seen: set[tuple[str, int]],
                      progress: Progress, appender: Any) -> None:
        for inst, epoch in todo:
            if self.rules.reason or self.interrupted or (self.budget is not None and self.budget.reached):
                break  # not asked: stays unasked, a resume asks it
            key = (str(inst["id"]), epoch)
            if key in seen:
                continue  # duplicate id in the input
            seen.add(key)
            try:
                with attempt_scope(epoch) as meter:
                    outcome = await solver.solve(inst["question"])
            except EndpointDown as e:
                seen.discard(key)
                self.rules.reason = self.rules.reason or f"the model endpoint stopped answering: {e}"
                self._cancel_all()
                return
            except asyncio.CancelledError:
                seen.discard(key)
                raise
            # the one record this instance's result is, from here to the run folder
            fields = {**inst, "mode": solver.mode, "model": self.provider.label, **outcome.fields()}
            if self.spec.epochs > 1 or epoch > 1:
                fields["epoch"] = epoch
            if self.model.is_llm:
                fields.update(meter.fields(self.price))
            record = ResultLine.model_validate(fields)
            await self.scorer.judge(record)
            appender.write(record)
            progress.update(record)
            self.rules.after(record, outcome.error_status, outcome.error_retryable)
            if self.budget is not None:
                self.budget.add(record.cost_usd)
                if record.judge_requests is not None:
                    self.budget.add(record.judge_cost_usd)
            await asyncio.sleep(0)  # a scripted model never yields: let signals and the other workers in
