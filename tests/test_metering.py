"""The attempt meter: what was sent, what the cache answered, and what it cost (live and batch prices)."""

from __future__ import annotations

import asyncio
import math

from span_toolkit.client.metering import AttemptMeter, MeteredProvider, attempt_scope, current_epoch
from span_toolkit.client.pricing import resolve_price
from span_toolkit.client.providers.base import ModelReply, Provider


class Fixed(Provider):
    label = "openai/gpt-4o"

    def __init__(self, tokens=(1000, 200)):
        self.tokens = tokens

    def initial_messages(self, q):
        return [{"role": "user", "content": q}]

    def tool_definitions(self, tools):
        return []

    def tool_result_messages(self, results):
        return []

    async def generate(self, system, messages, tools, timeout):
        await asyncio.sleep(0)
        return ModelReply(text="Final answer: x", tool_calls=[], stop_reason="stop",
                          assistant_message={"role": "assistant", "content": "x"},
                          input_tokens=self.tokens[0], output_tokens=self.tokens[1])


PRICE = resolve_price("openai/gpt-4o")  # 2.50 / 10.00 per million


async def test_live_and_batch_costs():
    live, batch = MeteredProvider(Fixed()), MeteredProvider(Fixed(), batch=True)
    with attempt_scope(3) as m:
        assert current_epoch() == 3
        await live.generate("s", [], None, None)
        await live.generate("s", [], None, None)
        await batch.generate("s", [], None, None)
    assert (m.requests, m.batch_requests, m.input_tokens, m.batch_input_tokens) == (2, 1, 2000, 1000)
    expect = (2000 * 2.5 + 400 * 10) / 1e6 + (1000 * 2.5 + 200 * 10) / 2e6
    assert math.isclose(m.cost(PRICE), expect)
    f = m.fields(PRICE)
    assert f["requests"] == 2 and f["batch_requests"] == 1 and math.isclose(f["cost_usd"], expect)
    assert current_epoch() == 1  # the scope is closed


async def test_unknown_price_or_tokens_is_unknown_cost_but_nothing_sent_is_free():
    assert AttemptMeter().cost(None) == 0.0  # all from the cache
    with attempt_scope() as m:
        await MeteredProvider(Fixed()).generate("s", [], None, None)
    assert m.cost(None) is None
    with attempt_scope() as m:
        await MeteredProvider(Fixed((None, 5))).generate("s", [], None, None)
    assert m.tokens_unknown and m.cost(PRICE) is None and m.fields(PRICE)["cost_usd"] is None


async def test_concurrent_attempts_have_their_own_meters():
    p = MeteredProvider(Fixed())

    async def one(n):
        with attempt_scope(n) as m:
            for _ in range(n):
                await p.generate("s", [], None, None)
            return m.requests, current_epoch()

    assert await asyncio.gather(*(one(n) for n in (1, 2, 3, 4))) == [(1, 1), (2, 2), (3, 3), (4, 4)]


async def test_outside_a_scope_nothing_is_counted():
    await MeteredProvider(Fixed()).generate("s", [], None, None)  # no meter: no error
