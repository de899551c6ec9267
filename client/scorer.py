"""The scorer: the rules judge always, the paper's LLM judge when a judge model is given (then primary).
Sets ``verdicts``, ``primary_judge`` and ``correct`` of a result record, and what the LLM judge's requests
for it cost (``judge_requests``, ``judge_cache_hits``, ``judge_cost_usd``: the judge goes through the same
response cache and meter as the model, priced from the table)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from .judges import rules
from .judges.llm import LLMJudge, parse_verdict
from .metering import attempt_scope
from .pricing import Price, resolve_price
from .providers import ModelSpecError, Provider, make_provider
from .providers.base import ProviderError
from .retry import RetryPolicy, make_ask
from .rundir import JudgeVerdict, ResultLine, verdict_correct

FATAL_STATUS = {401, 403, 404}  # bad key, no access, unknown model/route: every request will fail


class Scorer:
    def __init__(self, ask: Callable[[str, str], Awaitable[str]] | None = None, judge_model: str | None = None,
                 max_attempts: int = 3, provider: Provider | None = None, price: Price | None = None):
        self.judge_model = judge_model
        self.price = price  # the LLM judge's (None: not in the price table, its cost is unknown)
        self.llm = LLMJudge(ask, max_attempts=max_attempts) if ask is not None else None
        self.primary = "llm" if self.llm is not None else "rules"
        self.fatal: str | None = None  # set when the judge endpoint refuses us for good (401/403/404)
        self._provider = provider  # the LLM judge's endpoint, closed with the scorer

    async def aclose(self) -> None:
        if self._provider is not None:
            await self._provider.aclose()

    def describe(self) -> dict:
        d: dict[str, Any] = {"rules": "span_toolkit.client.judges.rules"}
        if self.llm is not None:
            d["llm"] = self.judge_model
        return d

    async def judge(self, record: ResultLine) -> ResultLine:
        """Set ``verdicts``, ``primary_judge`` and ``correct`` of a result record (in place)."""
        record.primary_judge = self.primary
        if record.stop_reason == "error":
            record.verdicts, record.correct = {}, None
            return record
        answer = record.final_answer
        # the instance's fields (what a family judge reads), not the exchange
        instance = record.model_dump(mode="json", exclude={"messages", "tool_calls", "code_runs", "verdicts"})
        try:
            rv = rules.judge_answer(instance, answer)
            verdict = JudgeVerdict(verdict=rv.verdict, extracted=rv.extracted, reason=rv.reason)
        except Exception as e:  # noqa: BLE001 - a judge bug must not stop the run or grade the answer
            verdict = JudgeVerdict(verdict="UNSCORED", extracted=None, reason=f"rules judge failed: "
                                   f"{e.__class__.__name__}: {e} (re-judge with `span-client judge`)")
        verdicts = {"rules": verdict}
        if self.llm is not None:
            # the judge's own meter (and epoch 1 in the cache key: the same answer gets the same verdict)
            with attempt_scope(1) as meter:
                verdicts["llm"] = await self._llm_verdict(record, answer)
            _add_judge_spend(record, meter.requests, meter.cache_hits, meter.cost(self.price))
        record.verdicts = verdicts
        record.correct = verdict_correct(verdicts[self.primary].verdict)
        return record

    async def _llm_verdict(self, record: ResultLine, answer: str | None) -> JudgeVerdict:
        if not answer or not answer.strip():
            # no answer (cut off while thinking, a Time Agent still writing code, …) is not a wrong one
            return JudgeVerdict(verdict="NOT_ATTEMPTED", raw="(no final answer; the judge was not asked)", attempts=0)
        try:
            lv = await self.llm.judge(record.question, answer, str(record.answer if record.answer is not None else ""))
        except ProviderError as e:
            if getattr(e, "status", None) in FATAL_STATUS and self.fatal is None:
                self.fatal = f"the LLM judge {self.judge_model} refused the request: {e}"
            # "error" marks a failed judge *request* (not an unreadable verdict): re-judged on resume
            return JudgeVerdict(verdict="UNSCORED", raw=f"judge request failed: {e}", attempts=0, error=str(e))
        return JudgeVerdict(verdict=lv.verdict, raw=lv.raw, attempts=lv.attempts)


def _add_judge_spend(record: ResultLine, requests: int, cache_hits: int, usd: float | None) -> None:
    """Add one judging's spend to what earlier judgings of the line spent (a re-judge must not erase what
    the first one paid: --budget counts it on resume). Unknown stays unknown."""
    before = record.judge_requests or 0
    before_usd = (record.judge_cost_usd or 0.0) if before == 0 else record.judge_cost_usd
    record.judge_requests = before + requests
    record.judge_cache_hits = (record.judge_cache_hits or 0) + cache_hits
    record.judge_cost_usd = None if usd is None or before_usd is None else round(before_usd + usd, 8)


def make_scorer(judge_model: str | None, *, base_url: str | None = None, api_key: str | None = None,
                timeout: float | None = None, retry: RetryPolicy | None = None, cache: Any = None) -> Scorer:
    """The rules judge alone, or with the LLM judge ``judge_model`` (PROVIDER/MODEL) as primary, its
    requests through ``cache`` (a ResponseCache, --cache) when given. Raises ModelSpecError for a bad judge
    model (one line)."""
    if not judge_model:
        return Scorer()
    jp = make_provider(judge_model, base_url=base_url, api_key=api_key, temperature=None, max_tokens=1024,
                       timeout=timeout, key_option="--judge-api-key")
    if not jp.is_llm:
        raise ModelSpecError(f"--judge-model must be an LLM (PROVIDER/MODEL), not the offline agent {judge_model!r}")
    from .scale import provider_stack

    # only a readable verdict is worth keeping: an unreadable one is re-asked, now or in a later re-judge
    stack = provider_stack(jp, cache=cache, keep=lambda reply: parse_verdict(reply.text or "") is not None)
    return Scorer(make_ask(stack, retry or RetryPolicy(), timeout), judge_model=jp.label, provider=jp,
                  price=resolve_price(jp.label))
