"""Putting the scale pieces around one run: the provider stack (response cache, meter, Batch API answers),
the attempts a run still owes (``--epochs``, resumed per attempt), the batch phase of ``--batch``, and
the run's figures (spend, cache hits, mean / pass@k / pass^k) for the summary and the console."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Iterator

from .batch import BatchAnsweredProvider, BatchDriver, Collected, CollectingProvider, backend_for
from .budget import BudgetError, check_budget
from .cache import CachingProvider, ResponseCache
from .metering import MeteredProvider, attempt_scope
from .passk import attempt_of, epoch_metrics
from .pricing import Price, PriceError, format_usd, judge_spend, resolve_price
from .providers.base import ModelReply, Provider, ProviderError
from .providers.registry import ModelRef, ModelSpecError
from .rundir.batches import BatchRecords

BATCH_REFUSAL = ("--batch answers the unaided arm only: a with-tools or Time Agent instance needs the model's "
                 "reply before it can send its next request, and a batch answers everything at once, up to 24 h "
                 "later; run that arm without --batch")


def check_scale(spec: Any, ref: ModelRef) -> Price | None:
    """The scale options of a run (``RunSpec``) checked against its model, once for both ways in: ``eval``
    checks every model before the first runs, the runner a spec built in Python. The model's price (None:
    unknown, or an offline scripted agent); ModelSpecError: one line, before anything is written."""
    if spec.batch:
        if spec.mode != "unaided":
            raise ModelSpecError(BATCH_REFUSAL)
        if not ref.is_llm:
            raise ModelSpecError(f"--batch goes with a model behind a Batch API (openai/…, anthropic/…); "
                                 f"{ref.label} is an offline scripted agent, which answers at once")
        if ref.kind.batch_api is None:
            raise ModelSpecError(f"--batch: {ref.label} has no Batch API; run it without --batch")
        if spec.budget is not None:
            raise ModelSpecError("--budget cannot bound a --batch run: a batch is submitted whole and billed when it "
                                 "ends; drop one of them")
    if not ref.is_llm:
        if spec.budget is not None and not spec.judge_model:
            raise ModelSpecError(f"--budget bounds what a model's requests cost; {ref.label} is an offline scripted "
                                 f"agent, which costs nothing (nor is there an LLM judge to pay): drop --budget")
        return None
    try:
        price = resolve_price(ref, spec.price_in, spec.price_out)
        check_budget(spec.budget, price, ref.label)
    except (PriceError, BudgetError) as e:
        raise ModelSpecError(str(e)) from None
    return price


def provider_stack(provider: Provider, *, cache: ResponseCache | None = None,
                   batch_answers: dict[str, ModelReply | ProviderError] | None = None,
                   keep: Callable[[ModelReply], bool] | None = None) -> Provider:
    """``CachingProvider(MeteredProvider(provider or its batch answers))`` — scripted agents as they are
    (they cost nothing and answer instantly). ``keep``: which replies the cache may store (default all)."""
    if not provider.is_llm:
        return provider
    inner: Provider = provider
    if batch_answers is not None:
        inner = MeteredProvider(BatchAnsweredProvider(provider, batch_answers), batch=True)
    else:
        inner = MeteredProvider(provider)
    if cache is not None:
        inner = CachingProvider(inner, cache, keep=keep)
    return inner


def _usd(line: Any) -> float:
    """What one line billed: the model's requests and the LLM judge's (unknown parts count 0)."""
    if not isinstance(line, dict):
        return 0.0
    costs = (line.get("cost_usd"), line.get("judge_cost_usd"))
    return sum(c for c in costs if isinstance(c, (int, float)) and not isinstance(c, bool))


def spent_in(folder: Any) -> float:
    """USD already billed for a run folder's attempts (the model's and the judge's requests): its results
    and the failed attempts set aside in errors.jsonl (a failed attempt may have paid for requests before
    it failed)."""
    total = sum(_usd(line) for line in folder.records())
    try:
        with open(folder.errors_path, encoding="utf-8") as f:
            for raw in f:
                try:
                    total += _usd(json.loads(raw))
                except ValueError:
                    continue
    except OSError:
        pass
    return total


def attempts_to_do(instances: Iterable[dict], epochs: int, done: set[tuple[str, int]]
                   ) -> Iterator[tuple[dict, int]]:
    """(instance, attempt) pairs not yet in the run folder, attempt 1 of every instance first (a run stopped
    early has every instance's first answer before any second one)."""
    pending: list[dict] = []
    for inst in instances:
        if (str(inst["id"]), 1) not in done:
            yield inst, 1
        if epochs > 1:
            pending.append(inst)
    for e in range(2, epochs + 1):
        for inst in pending:
            if (str(inst["id"]), e) not in done:
                yield inst, e


async def collect_batch(provider: Provider, solve: Callable[[Provider, dict], Awaitable[Any]],
                        todo: Iterable[tuple[dict, int]], folder: Path, *, poll_every: float,
                        say: Callable[[str], None], sleep: Callable[[float], Awaitable[None]] | None = None,
                        cache: ResponseCache | None = None) -> dict[str, ModelReply | ProviderError]:
    """The batch phase of ``--batch``: run the solver over the attempts with a provider that only records
    the request it would send (the same code builds it as in a live run), drop those the cache already
    answers, submit the rest through the provider's Batch API (or resume waiting for the batch an earlier
    run submitted) and return every answer by request key."""
    collecting = CollectingProvider(provider)
    for inst, epoch in todo:
        with attempt_scope(epoch):
            try:
                await solve(collecting, inst)
            except Collected:
                pass
    bodies = collecting.bodies
    if cache is not None:
        bodies = {k: b for k, b in bodies.items() if cache.get(k) is None}
    if not bodies:
        return {}
    owner = {"model": provider.label, "endpoint": getattr(provider, "endpoint", None)}
    kw = {"sleep": sleep} if sleep is not None else {}
    driver = BatchDriver(backend_for(provider), BatchRecords(folder), owner, poll_every=poll_every, say=say, **kw)
    return await driver.collect(bodies)


# The fields run_figures reads: a caller streaming a large run keeps only these of each line.
SCALE_FIELDS = ("id", "epoch", "correct", "requests", "batch_requests", "cache_hits", "cost_usd", "judge_requests",
                "judge_cache_hits", "judge_cost_usd")


def summary_figures(lines: list[dict], epochs_asked: int, price: dict | None) -> dict[str, Any]:
    """:func:`run_figures` with k the most attempts asked now or before: the summary's scale fields, written
    by ``eval`` and again by ``judge``."""
    k = max([epochs_asked, *(attempt_of(ln) for ln in lines)])  # a folder asked more often before keeps its pass@k
    return run_figures(lines, k, price)


def run_figures(lines: Iterable[dict], epochs: int, price: dict | None) -> dict[str, Any]:
    """The summary's scale fields: spend, requests, cache hits and (``--epochs`` > 1) mean / pass@k / pass^k.
    ``price`` as run.json records it (:meth:`Price.describe`)."""
    lines = list(lines)
    metered = [ln for ln in lines if "requests" in ln or "cache_hits" in ln]
    out: dict[str, Any] = {}
    if metered:
        costs = [ln.get("cost_usd") for ln in metered]
        known = [c for c in costs if isinstance(c, (int, float)) and not isinstance(c, bool)]
        n_ids = len({ln.get("id") for ln in metered})
        out["cost"] = {
            "usd": sum(known) if len(known) == len(metered) else None,
            "usd_known_part": sum(known),
            "usd_per_instance": sum(known) / n_ids if len(known) == len(metered) and n_ids else None,
            "n_unknown": len(metered) - len(known),
            "price": price,
        }
        out["requests"] = sum(int(ln.get("requests") or 0) for ln in metered)
        out["batch_requests"] = sum(int(ln.get("batch_requests") or 0) for ln in metered)
        out["cache_hits"] = sum(int(ln.get("cache_hits") or 0) for ln in metered)
    judge = judge_spend(lines)
    if judge:
        out["judge_cost"] = judge
    if epochs > 1:
        out["epochs"] = epoch_metrics(lines, epochs)
    return out


def figures_text(fig: dict[str, Any]) -> list[str]:
    """Console lines for :func:`run_figures`."""
    out = []
    e = fig.get("epochs")
    if e:
        k = e["k"]
        pct = (lambda x: "–" if x is None else f"{100 * x:.2f}%")
        out.append(f"attempts: {k} per instance; mean accuracy {pct(e['mean_accuracy'])}, pass@{k} "
                   f"{pct(e['pass_at_k'])}, pass^{k} {pct(e['pass_hat_k'])} ({e['n_instances_with_k']}/"
                   f"{e['n_instances']} instances with {k} scored attempts)")
    c = fig.get("cost")
    if c:
        if c["usd"] is not None:
            spend = f"{format_usd(c['usd'])} ({format_usd(c['usd_per_instance'])} per instance)"
        elif c["price"] is None:
            spend = "unknown (no price for this model: --price-in/--price-out)"
        else:
            spend = f"unknown for {c['n_unknown']} attempts ({format_usd(c['usd_known_part'])} known)"
        out.append(f"cost: {spend}; requests sent {fig['requests']}"
                   + (f", through the Batch API {fig['batch_requests']}" if fig.get("batch_requests") else "")
                   + f", answered by the cache {fig['cache_hits']}")
    j = fig.get("judge_cost")
    if j:
        spend = format_usd(j["usd"]) if j["usd"] is not None else (
            f"unknown (judge not in the price table; {j['n_unknown']} lines)" if not j["usd_known_part"]
            else f"unknown for {j['n_unknown']} lines ({format_usd(j['usd_known_part'])} known)")
        out.append(f"LLM judge cost: {spend}; requests sent {j['requests']}, answered by the cache {j['cache_hits']}")
    return out
