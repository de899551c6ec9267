"""Running an evaluation: dataset, concurrency, the one retry layer, judging, the run folder.

Run folder (``--out DIR``): ``results.jsonl`` (append-only, one line per instance, schema in
.notes/CONTRACTS.md), ``run.json``, ``summary.json``, ``errors.jsonl`` (error lines superseded by a resumed
run, kept for the record) and ``server.log`` (the stdio MCP server's stderr).

Resume: re-running with the same ``--out`` skips every instance already answered; a truncated last line
(a killed writer) is dropped; error lines are moved to ``errors.jsonl`` and those instances run again;
answers whose LLM verdict is UNSCORED because the judge *request* failed are re-judged (the model is not
asked again). run.json records the settings that define the run (``run_settings``); resuming with other
settings is refused unless ``force_resume``. A 401/403/404 from the model or the judge, or
``MAX_IDENTICAL_ERRORS`` identical non-retryable 4xx errors in a row, stop the run (:class:`RunStopped`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import platform
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Iterator

from .providers.base import Provider, ProviderError

RESULTS = "results.jsonl"
RUN = "run.json"
SUMMARY = "summary.json"
ERRORS = "errors.jsonl"

PROMPT_UNAIDED = "system_unaided.md"
PROMPT_TOOLS = "system_tools.md"


class RunError(Exception):
    """A problem the user must fix (bad input file, mismatched run folder...): one line, exit code 2."""


class RunStopped(Exception):
    """The run was stopped early because every further request would fail the same way (bad key, unknown
    model, a parameter the endpoint rejects, a judge that refuses us). What was written is kept; instances not
    asked yet stay unasked, so re-running the same command resumes. Carries the summary written so far."""

    def __init__(self, message: str, summary: dict | None = None):
        super().__init__(message)
        self.summary = summary


FATAL_STATUS = {401, 403, 404}  # bad key, no access, unknown model/route: every request will fail
MAX_IDENTICAL_ERRORS = 5  # stop after this many consecutive identical non-retryable 4xx errors


# --------------------------------------------------------------------------------------------- prompts
def load_prompt(name: str) -> str:
    return resources.files("prompts").joinpath(name).read_text(encoding="utf-8")


def prompt_hashes() -> dict[str, str]:
    out = {}
    for entry in sorted(resources.files("prompts").iterdir(), key=lambda p: p.name):
        if entry.name.endswith((".md", ".txt")):
            out[entry.name] = "sha256:" + hashlib.sha256(entry.read_bytes()).hexdigest()
    return out


# --------------------------------------------------------------------------------------------- retries
@dataclass
class RetryPolicy:
    """The only retry layer (the SDK clients are built with ``max_retries=0``).

    Retries retryable :class:`ProviderError` s (429, 5xx, connection errors, timeouts) up to
    ``max_retries`` times with exponential backoff and full jitter, waiting at least the server's
    Retry-After when it sent one (capped at ``max_delay``, ``--max-retry-wait``: a longer Retry-After is
    cut to it)."""

    max_retries: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    timeout: float | None = None  # hard per-request guard on top of the SDK's own timeout
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.max_delay, self.base_delay * (2 ** attempt))
        wait = self.rng.uniform(backoff / 2, backoff)  # jitter, never below half the backoff
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_delay))
        return wait

    async def call(self, factory: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
        attempt = 0
        while True:
            try:
                if self.timeout:
                    try:
                        result = await asyncio.wait_for(factory(), self.timeout + 1.0)
                    except asyncio.TimeoutError:
                        raise ProviderError(f"request timed out after {self.timeout}s", retryable=True) from None
                else:
                    result = await factory()
                return result, attempt
            except ProviderError as e:
                if not e.retryable or attempt >= self.max_retries:
                    if e.retryable:
                        e.args = (f"{e.args[0]} (gave up after {attempt} retries)",)
                    e.retries = attempt  # type: ignore[attr-defined]
                    raise
                await self.sleep(self.delay(attempt, e.retry_after))
                attempt += 1


# --------------------------------------------------------------------------------------------- dataset
def _instance_lines(p: Path) -> Iterator[tuple[int, dict]]:
    with p.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise RunError(f"--instances {p}: line {n} is not JSON ({e})") from None
            if not isinstance(obj, dict) or "id" not in obj or "question" not in obj:
                raise RunError(f"--instances {p}: line {n} is not a SPAN instance (needs at least 'id' and 'question')")
            yield n, obj


def count_instances_file(path: str | Path) -> int:
    """Validate every line of an instances file (so a bad file fails before any model is asked) and count."""
    p = Path(path)
    if not p.is_file():
        raise RunError(f"--instances: no such file: {p}")
    n = sum(1 for _ in _instance_lines(p))
    if not n:
        raise RunError(f"--instances {p}: no instances in the file")
    return n


def iter_instances_file(path: str | Path) -> Iterator[dict]:
    """Stream the instances of a file (memory stays flat in the number of instances)."""
    for _, obj in _instance_lines(Path(path)):
        yield obj


def read_instances_file(path: str | Path) -> list[dict]:
    count_instances_file(path)
    return list(iter_instances_file(path))


def generate_instances(dates: list[str], sample: int | None = None, seed: int = 0) -> list[dict]:
    """Instances for the given evaluation dates from the generator's library (span.benchmark); with
    ``sample``, its stratified sample (only the chosen instances are built)."""
    items, _ = stream_generated(dates, sample, seed)
    return list(items)


def stream_generated(dates: list[str], sample: int | None = None, seed: int = 0) -> tuple[Iterator[dict], int]:
    """(instances as a stream, how many) for the given evaluation dates; the generator builds them lazily so
    memory stays flat in the number of dates."""
    try:
        from span import benchmark
    except ImportError as e:
        raise RunError(f"cannot generate instances: span.benchmark is not available ({e}); use --instances FILE")
    try:
        days = [benchmark.parse_eval_date(d) if isinstance(d, str) else d for d in dates]
        if sample is not None:
            chosen = [_as_dict(i) for i in benchmark.generate_sample(days, sample, seed=seed)]
            return iter(chosen), len(chosen)
        total = sum(1 for d in days for _ in benchmark.plan_instances(d))
    except ValueError as e:  # GeneratorError / CalendarError: the message says what is valid
        raise RunError(f"cannot generate instances: {e}") from None

    def items() -> Iterator[dict]:
        try:
            for inst in benchmark.generate_many(days):
                yield _as_dict(inst)
        except ValueError as e:
            raise RunError(f"cannot generate instances: {e}") from None

    return items(), total


def _as_dict(item: Any) -> dict:
    if isinstance(item, dict):
        return item
    for attr in ("to_dict", "as_dict", "model_dump"):
        f = getattr(item, attr, None)
        if callable(f):
            return f()
    import dataclasses

    if dataclasses.is_dataclass(item):
        return dataclasses.asdict(item)
    raise TypeError(f"cannot turn {type(item).__name__} into an instance dict")


def sample_instances(items: list[dict], n: int | None, seed: int) -> list[dict]:
    """A sample of N instances kept in file order: the generator's stratified sampler when the instances
    carry its fields, else a seeded uniform sample."""
    if n is None or n >= len(items):
        return items
    try:
        from span.benchmark import sample_instances as stratified

        return stratified(items, n, seed)
    except (ImportError, KeyError, TypeError):
        idx = sorted(random.Random(seed).sample(range(len(items)), n))
        return [items[i] for i in idx]


# --------------------------------------------------------------------------------------------- run folder
def read_lines(path: Path) -> Iterator[dict]:
    """Complete JSON lines of a results file; a truncated last line (no newline) is skipped."""
    if not path.exists():
        return
    with path.open("rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # a writer was killed mid-line
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict) and "id" in obj:
                yield obj


def atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def prepare_results(out_dir: Path) -> set[str]:
    """Make results.jsonl resumable and return the ids already finished (not errors).

    Error lines, a truncated tail and undecodable lines are removed by an atomic rewrite (error lines are
    appended to errors.jsonl first), so appending afterwards never duplicates an id."""
    path = out_dir / RESULTS
    if not path.exists():
        return set()
    done: set[str] = set()
    needs_rewrite = False
    with path.open("rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                needs_rewrite = True
                break
            try:
                obj = json.loads(raw)
            except ValueError:
                needs_rewrite = True
                continue
            if not isinstance(obj, dict) or "id" not in obj:
                needs_rewrite = True
            elif obj.get("stop_reason") == "error" or obj["id"] in done:
                needs_rewrite = True
            else:
                done.add(obj["id"])
    if needs_rewrite:
        tmp = path.with_name(f".{RESULTS}.tmp{os.getpid()}")
        kept: set[str] = set()
        with path.open("rb") as src, tmp.open("wb") as dst, (out_dir / ERRORS).open("ab") as err:
            for raw in src:
                if not raw.endswith(b"\n"):
                    break
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(obj, dict) or "id" not in obj:
                    continue
                if obj.get("stop_reason") == "error":
                    err.write(raw)
                    continue
                if obj["id"] in kept:
                    continue
                kept.add(obj["id"])
                dst.write(raw)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(tmp, path)
    return done


# --------------------------------------------------------------------------------------------- judging
class Judging:
    """Rules judge always; LLM judge when an ``ask`` callable is given. Primary = llm if present."""

    def __init__(self, ask: Callable[[str, str], Awaitable[str]] | None = None, judge_model: str | None = None,
                 max_attempts: int = 3):
        from .judges import rules

        self._rules = rules
        self.judge_model = judge_model
        self.llm = None
        if ask is not None:
            from .judges.llm import LLMJudge

            self.llm = LLMJudge(ask, max_attempts=max_attempts)
        self.primary = "llm" if self.llm is not None else "rules"
        self.fatal: str | None = None  # set when the judge endpoint refuses us for good (401/403/404)

    def describe(self) -> dict:
        d: dict[str, Any] = {"rules": "client.judges.rules"}
        if self.llm is not None:
            d["llm"] = self.judge_model
        return d

    async def judge(self, line: dict) -> dict:
        """Fill ``verdicts``, ``primary_judge`` and ``correct`` of a results line (in place)."""
        line["primary_judge"] = self.primary
        if line.get("stop_reason") == "error":
            line["verdicts"] = {}
            line["correct"] = None
            return line
        answer = line.get("final_answer")
        try:
            rv = self._rules.judge_answer(line, answer)
            rules = {"verdict": _v(rv, "verdict"), "extracted": _v(rv, "extracted"), "reason": _v(rv, "reason")}
        except Exception as e:  # noqa: BLE001 - a judge bug must not stop the run or grade the answer
            rules = {"verdict": "UNSCORED", "extracted": None,
                     "reason": f"rules judge failed: {e.__class__.__name__}: {e} (re-judge with `span-client judge`)"}
        verdicts: dict[str, Any] = {"rules": rules}
        if self.llm is not None:
            verdicts["llm"] = await self._llm_verdict(line, answer)
        line["verdicts"] = verdicts
        line["correct"] = verdict_correct(verdicts[self.primary]["verdict"])
        return line

    async def _llm_verdict(self, line: dict, answer: str | None) -> dict:
        if not answer or not answer.strip():
            return {"verdict": "INCORRECT", "raw": "(no final answer; the judge was not asked)", "attempts": 0}
        try:
            lv = await self.llm.judge(line.get("question", ""), answer, str(line.get("answer", "")))
        except ProviderError as e:
            if getattr(e, "status", None) in FATAL_STATUS and self.fatal is None:
                self.fatal = f"the LLM judge {self.judge_model} refused the request: {e}"
            # "error" marks a failed judge *request* (not an unreadable verdict): re-judged on resume
            return {"verdict": "UNSCORED", "raw": f"judge request failed: {e}", "attempts": 0, "error": str(e)}
        return {"verdict": _v(lv, "verdict"), "raw": _v(lv, "raw"), "attempts": _v(lv, "attempts")}


def _first_cause(e: BaseException) -> BaseException:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def _v(obj: Any, name: str) -> Any:
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return getattr(value, "value", value)  # enums -> their string


def judge_request_failed(line: dict) -> bool:
    """True when the line's LLM verdict is UNSCORED because the judge request failed (not because the judge's
    reply was unreadable): such lines are re-judged on resume."""
    v = (line.get("verdicts") or {}).get("llm")
    if not isinstance(v, dict) or v.get("verdict") != "UNSCORED":
        return False
    return bool(v.get("error")) or str(v.get("raw") or "").startswith("judge request failed")


def verdict_correct(verdict: str | None) -> bool | None:
    if verdict == "CORRECT":
        return True
    if verdict in ("INCORRECT", "NOT_ATTEMPTED"):
        return False
    return None  # UNSCORED / missing


def make_ask(provider: Provider, retry: RetryPolicy, timeout: float | None) -> Callable[[str, str], Awaitable[str]]:
    """The ``ask(system, user) -> text`` callable for the LLM judge (the provider runs at temperature 0)."""

    async def ask(system: str, user: str) -> str:
        reply, _ = await retry.call(lambda: provider.generate(system, provider.initial_messages(user), None, timeout))
        return reply.text or ""

    return ask


# --------------------------------------------------------------------------------------------- summary
def summarize(out_dir: Path, model: str | None = None, mode: str | None = None,
              ids: set[str] | None = None) -> dict:
    """Counts over results.jsonl; with ``ids``, only the lines of those instances (the current instance set)."""
    n = n_scored = n_correct = n_errors = n_unscored = n_judge_errors = 0
    per_judge: dict[str, dict[str, int]] = {}
    rules_v: list[str | None] = []
    llm_v: list[str | None] = []
    stop_reasons: dict[str, int] = {}
    for line in read_lines(out_dir / RESULTS):
        if ids is not None and line["id"] not in ids:
            continue
        n += 1
        model = model or line.get("model")
        mode = mode or line.get("mode")
        stop_reasons[line.get("stop_reason")] = stop_reasons.get(line.get("stop_reason"), 0) + 1
        if line.get("stop_reason") == "error":
            n_errors += 1
        elif line.get("correct") is None:
            n_unscored += 1  # answered, but the primary verdict is UNSCORED
            primary = line.get("primary_judge") or "rules"
            if primary == "llm" and judge_request_failed(line):
                n_judge_errors += 1
        if line.get("correct") is not None:
            n_scored += 1
            n_correct += bool(line["correct"])
        verdicts = line.get("verdicts") or {}
        for judge, v in verdicts.items():
            counts = per_judge.setdefault(judge, {})
            counts[v.get("verdict")] = counts.get(v.get("verdict"), 0) + 1
        r, l = verdicts.get("rules"), verdicts.get("llm")
        if r and l:
            rules_v.append(r.get("verdict"))
            llm_v.append(l.get("verdict"))
    for judge, keys in (("rules", ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")), ("llm", ("CORRECT", "INCORRECT", "UNSCORED"))):
        if judge in per_judge:
            for k in keys:
                per_judge[judge].setdefault(k, 0)
    return {"model": model, "mode": mode, "n": n, "n_scored": n_scored, "n_correct": n_correct,
            "accuracy": (n_correct / n_scored) if n_scored else None, "n_errors": n_errors,
            "n_unscored": n_unscored, "n_judge_errors": n_judge_errors,
            "stop_reasons": stop_reasons, "per_judge": per_judge, "agreement": _agreement(rules_v, llm_v)}


def _agreement(rules_verdicts: list, llm_verdicts: list) -> dict | None:
    """The judges' own agreement (client.judges.agreement.judge_agreement: UNSCORED pairs left out, a
    degenerate kappa is null), or None when no pair is left."""
    if not rules_verdicts:
        return None
    from .judges.agreement import judge_agreement

    out = judge_agreement(rules_verdicts, llm_verdicts)
    return out if out.get("n") else None


# --------------------------------------------------------------------------------------------- progress
class Progress:
    def __init__(self, total: int, done: int, enabled: bool, label: str):
        self.enabled = enabled
        self.total, self.done = total, done
        self.correct = self.scored = self.errors = 0
        self.started = time.monotonic()
        self._bar = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, \
                TimeElapsedColumn

            from rich.console import Console

            self._bar = RichProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("acc {task.fields[acc]}"), TextColumn("err {task.fields[err]}"),
                                     TextColumn("{task.fields[rate]}/s"), TimeElapsedColumn(),
                                     console=Console(stderr=True), transient=False)
            self._task = self._bar.add_task(label, total=total, completed=done, acc="-", err=0, rate="-")

    def __enter__(self):
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc):
        if self._bar:
            self._bar.stop()

    def update(self, line: dict, new: int) -> None:
        self.done += 1
        if line.get("stop_reason") == "error":
            self.errors += 1
        if line.get("correct") is not None:
            self.scored += 1
            self.correct += bool(line["correct"])
        if self._bar:
            elapsed = max(time.monotonic() - self.started, 1e-9)
            acc = f"{100 * self.correct / self.scored:.1f}%" if self.scored else "-"
            self._bar.update(self._task, completed=self.done, acc=acc, err=self.errors,
                             rate=f"{new / elapsed:.1f}")


# --------------------------------------------------------------------------------------------- eval
@dataclass
class EvalConfig:
    model: str
    out_dir: Path
    with_tools: bool = False
    server_url: str | None = None
    max_turns: int = 8
    concurrency: int = 8
    timeout: float | None = 120.0
    quiet: bool = False
    args: dict = field(default_factory=dict)
    mcp_target: Any = None  # in-process MCP server object (tests/benchmarks only)
    # what the instances are: {"file", "sha256", "sample", "seed"} or {"dates", "sample", "seed"} (run.json)
    source: dict | None = None
    force_resume: bool = False  # resume a run folder even if it was started with other settings


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("span-toolkit", "anthropic", "openai", "mcp"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


class RunLock:
    """An exclusive lock on a run folder (released by the OS even if the process is killed), so two
    commands never append to the same results.jsonl."""

    def __init__(self, out_dir: Path):
        self.path = out_dir / ".lock"
        self._f = None

    def __enter__(self) -> "RunLock":
        import fcntl

        self._f = self.path.open("a")
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._f.close()
            raise RunError(f"another span-client command is using {self.path.parent}; wait for it or use "
                           f"another --out") from None
        return self

    def __exit__(self, *exc) -> None:
        if self._f:
            self._f.close()


def run_settings(cfg: EvalConfig, provider: Provider, judging: "Judging") -> dict:
    """The settings that define a run (recorded in run.json; a resume must match them)."""
    pc = provider.config()
    prompt_names = [PROMPT_TOOLS if cfg.with_tools else PROMPT_UNAIDED]
    if judging.llm is not None:
        from .judges.llm import PROMPT_FILE

        prompt_names.append(PROMPT_FILE)
    hashes = prompt_hashes()
    server = None
    if cfg.with_tools:
        server = cfg.server_url or ("in-process" if cfg.mcp_target is not None else "stdio")
    return {"model": provider.label, "mode": "with_tools" if cfg.with_tools else "unaided",
            "instances": cfg.source, "temperature": pc.get("temperature"), "max_tokens": pc.get("max_tokens"),
            "base_url": pc.get("base_url"), "max_turns": cfg.max_turns if cfg.with_tools else None,
            "tools_server": server, "judge_model": judging.describe().get("llm"),
            "prompt_hashes": {name: hashes.get(name) for name in prompt_names}}


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.update(_flat(v, key))
        else:
            out[key] = v
    return out


def _short(v: Any) -> str:
    if isinstance(v, str) and v.startswith("sha256:"):
        return v[:19]  # enough of a content hash to tell two apart
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def settings_differences(prev: dict, now: dict) -> list[str]:
    """Human-readable "key: before -> now" for every setting that differs."""
    a, b = _flat(prev), _flat(now)
    diffs = []
    for key in sorted(set(a) | set(b), key=lambda k: (k.split(".")[0] not in ("instances",), k)):
        if a.get(key) != b.get(key):
            diffs.append(f"{key} {_short(a.get(key))} -> {_short(b.get(key))}")
    return diffs


def check_run_folder(out_dir: Path, model: str, mode: str, settings: dict | None = None,
                     force: bool = False) -> tuple[dict | None, list[str]]:
    """(the previous run.json or None, the setting differences accepted with --force-resume).

    Another model or mode is always refused; other differing settings are refused unless ``force``."""
    run_path = out_dir / RUN
    if not run_path.exists():
        return None, []
    try:
        prev = json.loads(run_path.read_text(encoding="utf-8"))
    except ValueError:
        raise RunError(f"{run_path} is not valid JSON; use another --out") from None
    if prev.get("model") != model or prev.get("mode") != mode:
        raise RunError(f"{out_dir} holds a run of {prev.get('model')} ({prev.get('mode')}), not {model} ({mode}); "
                       f"use another --out")
    if settings is None or not isinstance(prev.get("settings"), dict):
        return prev, []  # a run folder from before settings were recorded: model and mode only
    diffs = settings_differences(prev["settings"], settings)
    if diffs and not force:
        raise RunError(f"{out_dir} holds a run with other settings ({'; '.join(diffs)}); re-run with the same "
                       f"arguments, use another --out, or add --force-resume to continue it anyway")
    return prev, diffs


async def run_eval(cfg: EvalConfig, provider: Provider, instances: Iterable[dict], total: int,
                   judging: "Judging", retry: RetryPolicy) -> dict:
    cfg.out_dir.mkdir(parents=True, exist_ok=True)
    with RunLock(cfg.out_dir):
        return await _run_eval(cfg, provider, instances, total, judging, retry)


async def rejudge_failed_requests(out_dir: Path, judging: "Judging", concurrency: int = 8) -> int:
    """Re-judge (without asking the model) the lines whose LLM verdict is UNSCORED because the judge request
    failed; rewrite results.jsonl atomically. Returns how many were re-judged."""
    path = out_dir / RESULTS
    if judging.llm is None or not path.exists():
        return 0
    lines = list(read_lines(path))
    todo = [i for i, l in enumerate(lines) if l.get("stop_reason") != "error" and judge_request_failed(l)]
    if not todo:
        return 0
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(i: int) -> None:
        async with sem:
            if judging.fatal:
                return
            line = dict(lines[i])
            await judging.judge(line)
            lines[i] = line

    await asyncio.gather(*(one(i) for i in todo))
    atomic_write_text(path, "".join(json.dumps(l, ensure_ascii=False, default=str) + "\n" for l in lines))
    return len(todo)


async def _run_eval(cfg: EvalConfig, provider: Provider, instances: Iterable[dict], total: int,
                    judging: "Judging", retry: RetryPolicy) -> dict:
    from .agent import solve

    mode = "with_tools" if cfg.with_tools else "unaided"
    out_dir = cfg.out_dir
    settings = run_settings(cfg, provider, judging)
    prev, forced = check_run_folder(out_dir, provider.label, mode, settings, cfg.force_resume)
    done = prepare_results(out_dir)
    if prev is not None:
        n_rejudged = await rejudge_failed_requests(out_dir, judging, cfg.concurrency)
        if judging.fatal:
            raise RunStopped(f"stopped: {judging.fatal}; nothing else was asked; fix it and re-run the same command")
    else:
        n_rejudged = 0
    system = load_prompt(PROMPT_TOOLS if cfg.with_tools else PROMPT_UNAIDED)
    run_info: dict[str, Any] = {
        "model": provider.label, "mode": mode, "judges": judging.describe(), "primary_judge": judging.primary,
        "provider": provider.config(), "args": cfg.args, "settings": settings, "versions": _versions(),
        "prompt_hashes": prompt_hashes(),
        "system_prompt": PROMPT_TOOLS if cfg.with_tools else PROMPT_UNAIDED,
        "started_at": (prev or {}).get("started_at") or _now(), "ended_at": None,
        "resumed_at": [*((prev or {}).get("resumed_at") or []), *([_now()] if prev else [])],
        "n_instances": total, "n_already_done": len(done), "n_rejudged": n_rejudged,
    }
    forced_before = (prev or {}).get("forced_resumes") or []
    if forced or forced_before:
        run_info["forced_resumes"] = [*forced_before, *([{"at": _now(), "differences": forced}] if forced else [])]
    ids: set[str] = set()  # the current instance set (summary counts only these)

    def tracked() -> Iterator[dict]:
        for inst in instances:
            ids.add(inst["id"])
            yield inst

    source = tracked()
    todo: Iterator[dict] = (inst for inst in source if inst["id"] not in done)
    seen: set[str] = set(done)
    stop: list[str] = []  # why the run stops early (first reason wins)
    last_error: dict[str, Any] = {"key": None, "count": 0}

    def check_stop(line: dict, status: int | None, retryable: bool | None) -> None:
        if stop:
            return
        if judging.fatal:
            stop.append(judging.fatal)
            return
        if line.get("stop_reason") != "error":
            last_error.update(key=None, count=0)
            return
        if status in FATAL_STATUS:
            stop.append(f"{provider.label}: {line.get('error')}")
            return
        if status is not None and 400 <= status < 500 and not retryable:
            key = (status, line.get("error"))
            last_error["count"] = last_error["count"] + 1 if last_error["key"] == key else 1
            last_error["key"] = key
            if last_error["count"] >= MAX_IDENTICAL_ERRORS:
                stop.append(f"{provider.label}: {MAX_IDENTICAL_ERRORS} consecutive identical errors: {line.get('error')}")
        else:
            last_error.update(key=None, count=0)

    async def body(mcp) -> None:
        if mcp is not None:
            run_info["mcp"] = {"server": mcp.description, "tools": [t.name for t in mcp.tools]}
        atomic_write_json(out_dir / RUN, run_info)
        interactive = not cfg.quiet and sys.stderr.isatty()
        results_f = (out_dir / RESULTS).open("a", encoding="utf-8")
        new = 0
        try:
            with Progress(total, len(done), interactive, provider.label) as progress:
                async def worker() -> None:
                    nonlocal new
                    for inst in todo:
                        if stop:
                            break  # not asked: stays unasked, a resume asks it
                        if inst["id"] in seen:
                            continue  # duplicate id in the input
                        seen.add(inst["id"])
                        line, status, retryable = await _one(inst)
                        results_f.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
                        results_f.flush()
                        new += 1
                        progress.update(line, new)
                        check_stop(line, status, retryable)

                async def _one(inst: dict) -> tuple[dict, int | None, bool | None]:
                    outcome = await solve(provider, inst["question"], system=system, tools=mcp,
                                          max_turns=cfg.max_turns, request=retry.call, timeout=cfg.timeout)
                    line = dict(inst)
                    line.update({"mode": mode, "model": provider.label, "messages": outcome.messages,
                                 "tool_calls": outcome.tool_calls, "final_answer": outcome.final_answer,
                                 "stop_reason": outcome.stop_reason, "turns": outcome.turns,
                                 "provider_stop_reason": outcome.provider_stop_reason,
                                 "usage": outcome.usage(), "latency_s": outcome.latency_s,
                                 "retries": outcome.retries, "error": outcome.error})
                    return await judging.judge(line), outcome.error_status, outcome.error_retryable

                try:
                    async with asyncio.TaskGroup() as tg:  # one failure cancels the other workers
                        for _ in range(max(1, cfg.concurrency)):
                            tg.create_task(worker())
                except BaseExceptionGroup as eg:
                    raise _first_cause(eg) from None
        finally:
            results_f.close()

    if cfg.with_tools:
        from .mcp_tools import MCPTools

        with (out_dir / "server.log").open("a", encoding="utf-8") as errlog:
            async with MCPTools(cfg.server_url, target=cfg.mcp_target, errlog=errlog) as mcp:
                await body(mcp)
    else:
        await body(None)
    for _ in source:  # a stopped run: still learn the whole instance set (ids only)
        pass
    summary = summarize(out_dir, provider.label, mode, ids)
    run_info["ended_at"] = _now()
    if stop:
        run_info["stopped"] = stop[0]
    atomic_write_json(out_dir / RUN, run_info)
    atomic_write_json(out_dir / SUMMARY, summary)
    if stop:
        n_left = len(ids - seen)
        raise RunStopped(f"stopped: {stop[0]} ({n_left} instance{'s' if n_left != 1 else ''} not asked; fix it "
                         f"and re-run the same command to resume)", summary)
    return summary


# --------------------------------------------------------------------------------------------- re-judge
async def rejudge(out_dir: Path, judging: Judging, concurrency: int = 8) -> dict:
    """Re-judge every line of an existing run without asking the model; rewrite results atomically."""
    if not (out_dir / RESULTS).exists():
        raise RunError(f"{out_dir} has no {RESULTS}; is it a span-client eval run folder?")
    with RunLock(out_dir):
        return await _rejudge(out_dir, judging, concurrency)


async def _rejudge(out_dir: Path, judging: Judging, concurrency: int) -> dict:
    path = out_dir / RESULTS
    if not path.exists():
        raise RunError(f"{out_dir} has no {RESULTS}; is it a span-client eval run folder?")
    lines = list(read_lines(path))  # judging may be async (LLM): bounded by the semaphore below
    sem = asyncio.Semaphore(max(1, concurrency))
    keep_llm = judging.llm is None
    run_path = out_dir / RUN
    run_info = json.loads(run_path.read_text(encoding="utf-8")) if run_path.exists() else {}
    prev_primary = run_info.get("primary_judge")

    async def one(line: dict) -> dict:
        async with sem:
            if judging.fatal:
                return line
            old = line.get("verdicts") or {}
            await judging.judge(line)
            if keep_llm and "llm" in old and line.get("stop_reason") != "error":
                # no --judge-model now: keep the earlier LLM verdicts, and the run's primary judge
                line["verdicts"]["llm"] = old["llm"]
                if prev_primary == "llm":
                    line["primary_judge"] = "llm"
                    line["correct"] = verdict_correct(old["llm"].get("verdict"))
            return line

    judged = await asyncio.gather(*(one(dict(l)) for l in lines))
    if judging.fatal:  # nothing rewritten: the earlier verdicts stay as they were
        raise RunStopped(f"stopped: {judging.fatal}; {RESULTS} was left unchanged")
    atomic_write_text(path, "".join(json.dumps(l, ensure_ascii=False, default=str) + "\n" for l in judged))
    judges = judging.describe()
    primary = judging.primary
    if keep_llm and any("llm" in (l.get("verdicts") or {}) for l in judged):
        judges["llm"] = (run_info.get("judges") or {}).get("llm")
        primary = prev_primary or primary
    run_info.update({"judges": judges, "primary_judge": primary, "rejudged_at": _now(),
                     "prompt_hashes": prompt_hashes()})
    atomic_write_json(run_path, run_info)
    summary = summarize(out_dir, run_info.get("model"), run_info.get("mode"))
    atomic_write_json(out_dir / SUMMARY, summary)
    return summary
