"""The scale pieces put together around the unaided solver, through the real SDKs against the loopback
fakes: a batch phase that sends no live request and answers every attempt, the cache in front of it, the
attempts a run still owes, and the run's figures."""

from __future__ import annotations

import pytest

from span_toolkit import prompts
from span_toolkit.client.cache import ResponseCache
from span_toolkit.client.metering import attempt_scope
from span_toolkit.client.pricing import resolve_price
from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from span_toolkit.client.scale import attempts_to_do, collect_batch, figures_text, provider_stack, run_figures
from span_toolkit.client.solvers.chat import ChatSolver
from tests.fakes.batches import FakeAnthropicBatch, FakeOpenAIBatch
from tests.fakes.instances import toy_instances
from tests.fakes.providers import Text, first_user_text

ITEMS = toy_instances(5)
BY_Q = {i["question"]: i for i in ITEMS}


def oracle(body, index):
    return Text(f"Final answer: {BY_Q[first_user_text(body)]['answer']}", input_tokens=1000, output_tokens=100)


async def solve(provider, inst):
    return await ChatSolver(provider, system=prompts.load("system_unaided.md"), tools=None).solve(inst["question"])


async def _no_sleep(_):
    return None


def _provider(kind, fake):
    if kind == "openai":
        return OpenAIProvider("gpt-4o-mini", api_key="test", base_url=fake.base_url)
    return AnthropicProvider("claude-haiku-4-5", api_key="test", base_url=fake.base_url)


@pytest.mark.parametrize("kind,fake_cls", [("openai", FakeOpenAIBatch), ("anthropic", FakeAnthropicBatch)])
async def test_batch_phase_answers_every_attempt_without_a_live_request(kind, fake_cls, tmp_path):
    with fake_cls(oracle, polls=2) as fake:
        p = _provider(kind, fake)
        todo = list(attempts_to_do(ITEMS, 2, set()))
        said: list[str] = []
        answers = await collect_batch(p, solve, todo, tmp_path, poll_every=0, say=said.append, sleep=_no_sleep)
        assert len(answers) == 10  # 5 instances x 2 attempts: the epoch is part of each request
        stack = provider_stack(p, batch_answers=answers)
        price = resolve_price(p.label)
        lines = []
        for inst, epoch in todo:
            with attempt_scope(epoch) as meter:
                out = await solve(stack, inst)
            assert out.final_answer == f"Final answer: {inst['answer']}" and out.stop_reason == "answered"
            lines.append({"id": inst["id"], "epoch": epoch, "correct": True, **meter.fields(price)})
        assert fake.count == 0, "a --batch run sent a live request"
        fig = run_figures(lines, 2, price)
        assert fig["batch_requests"] == 10 and fig["requests"] == 0
        # billed at half the price: 10 x (1000 in + 100 out)
        full = 10 * (1000 * price.input_per_mtok + 100 * price.output_per_mtok) / 1e6
        assert fig["cost"]["usd"] == pytest.approx(full / 2)
        assert fig["epochs"]["pass_at_k"] == 1.0
        text = "\n".join(figures_text(fig))
        assert "pass@2 100.00%" in text and "through the Batch API 10" in text
        await p.aclose()


async def test_the_cache_answers_what_it_holds_and_the_batch_the_rest(tmp_path):
    with FakeOpenAIBatch(oracle) as fake:
        p = _provider("openai", fake)
        cache_dir = tmp_path / "cache"
        live = provider_stack(p, cache=ResponseCache(cache_dir))
        for inst in ITEMS[:2]:  # two instances answered live before, into the cache
            with attempt_scope(1):
                await solve(live, inst)
        assert fake.count == 2
        todo = list(attempts_to_do(ITEMS, 1, set()))
        (tmp_path / "run").mkdir()
        answers = await collect_batch(p, solve, todo, tmp_path / "run", poll_every=0, say=lambda s: None,
                                      sleep=_no_sleep, cache=ResponseCache(cache_dir))
        assert len(answers) == 3  # only what the cache did not hold was submitted
        stack = provider_stack(p, cache=ResponseCache(cache_dir), batch_answers=answers)
        hits = 0
        for inst, epoch in todo:
            with attempt_scope(epoch) as meter:
                assert (await solve(stack, inst)).final_answer.endswith(inst["answer"])
            hits += meter.cache_hits
        assert hits == 2 and fake.count == 2
        await p.aclose()


def test_attempts_owed_first_attempts_first_and_resumed_per_attempt():
    items = [{"id": "a"}, {"id": "b"}]
    assert [(i["id"], e) for i, e in attempts_to_do(items, 3, set())] == \
        [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3)]
    done = {("a", 2), ("b", 1)}
    assert [(i["id"], e) for i, e in attempts_to_do(items, 3, done)] == [("a", 1), ("b", 2), ("a", 3), ("b", 3)]


def test_scripted_agents_are_not_wrapped(tmp_path):
    from span_toolkit.client.agents.scripted import make

    baseline = make("baseline")
    assert provider_stack(baseline, cache=ResponseCache(tmp_path)) is baseline


def test_figures_of_an_unknown_price():
    fig = run_figures([{"id": "a", "requests": 1, "cache_hits": 0, "cost_usd": None}], 1, None)
    assert fig["cost"]["usd"] is None and "no price for this model" in figures_text(fig)[0]
    assert run_figures([{"id": "a", "correct": True}], 1, None) == {}  # a run before metering: no figures
