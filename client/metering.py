"""What each attempt at an instance cost: the requests really sent (live or through a Batch API), the
replies served by the response cache, and the tokens billed.

The runner opens an :func:`attempt_scope` around each attempt; the provider wrappers count into it.
Context variables follow asyncio tasks, so every concurrently running instance has its own meter. The
wrappers stack ``CachingProvider(MeteredProvider(provider))``: a cache hit never reaches the meter's
provider, so the tokens it records were billed (a cached reply keeps the usage of the request that
produced it, for the record, but costs nothing again).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterator

from .pricing import Price
from .providers.base import ModelReply, Provider
from .providers.wrapper import WrappedProvider


@dataclass
class AttemptMeter:
    requests: int = 0        # sent live
    batch_requests: int = 0  # answered through a Batch API
    cache_hits: int = 0      # answered by the response cache: nothing sent
    input_tokens: int = 0    # billed (cache hits excluded)
    output_tokens: int = 0
    batch_input_tokens: int = 0
    batch_output_tokens: int = 0
    tokens_unknown: bool = False  # a billed reply did not say how many tokens it used

    def cost(self, price: Price | None) -> float | None:
        """USD billed for this attempt; None when the price or a billed token count is unknown."""
        if self.requests + self.batch_requests == 0:
            return 0.0  # nothing was sent (all from the cache): nothing to pay, whatever the price
        if price is None or self.tokens_unknown:
            return None
        return (price.cost(self.input_tokens, self.output_tokens)
                + price.cost(self.batch_input_tokens, self.batch_output_tokens, batch=True))

    def fields(self, price: Price | None) -> dict[str, Any]:
        """The result-line fields of this attempt."""
        out: dict[str, Any] = {"requests": self.requests, "cache_hits": self.cache_hits}
        if self.batch_requests:
            out["batch_requests"] = self.batch_requests
        cost = self.cost(price)
        out["cost_usd"] = round(cost, 8) if cost is not None else None
        return out


_epoch: ContextVar[int] = ContextVar("span_epoch", default=1)
_meter: ContextVar[AttemptMeter | None] = ContextVar("span_meter", default=None)


@contextlib.contextmanager
def attempt_scope(epoch: int = 1) -> Iterator[AttemptMeter]:
    """Every model request made inside belongs to attempt ``epoch`` (part of the cache and batch key) and
    is counted in the yielded meter."""
    meter = AttemptMeter()
    t1, t2 = _epoch.set(epoch), _meter.set(meter)
    try:
        yield meter
    finally:
        _epoch.reset(t1)
        _meter.reset(t2)


def current_epoch() -> int:
    return _epoch.get()


def current_meter() -> AttemptMeter | None:
    return _meter.get()


class MeteredProvider(WrappedProvider):
    """Counts every reply of the wrapped provider as billed: live, or through a Batch API (``batch=True``:
    billed at the batch discount)."""

    def __init__(self, inner: Provider, *, batch: bool = False):
        super().__init__(inner)
        self.batch = batch

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        return self._count(await self.inner.generate(system, messages, tools, timeout))

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        return self._count(await self.inner.generate_without_tools(system, messages, tools, timeout))

    def _count(self, reply: ModelReply) -> ModelReply:
        meter = _meter.get()
        if meter is not None:
            if reply.input_tokens is None or reply.output_tokens is None:
                meter.tokens_unknown = True
            if self.batch:
                meter.batch_requests += 1
                meter.batch_input_tokens += reply.input_tokens or 0
                meter.batch_output_tokens += reply.output_tokens or 0
            else:
                meter.requests += 1
                meter.input_tokens += reply.input_tokens or 0
                meter.output_tokens += reply.output_tokens or 0
        return reply
