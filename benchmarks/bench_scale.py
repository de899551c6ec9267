"""Running at scale against the loopback fakes (real ``openai`` / ``anthropic`` SDKs, unaided solver):

1. **Response cache** — N instances asked live (each reply after a fixed latency L, C in flight) into a
   fresh cache folder, then the same N again as another run over the same cache: requests sent, wall
   time, and whether the answers are the same.
2. **Batch vs live** — the same N instances once live (C in flight, latency L each) and once through the
   provider's Batch API (one upload and create, status checks every ``--poll`` seconds while the fake
   keeps the batch in progress for ``--polls`` checks, then the results read back): wall time and HTTP
   calls. The fake answers a batch as soon as it is polled enough: what this measures is the client's
   side (building, uploading, polling, reading N results), not a provider's queue, which takes minutes to
   24 hours.

    python benchmarks/bench_scale.py [--n 400] [--latency 0.05] [--concurrency 8] [--polls 3] [--poll 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import prompts  # noqa: E402
from client.cache import ResponseCache  # noqa: E402
from client.metering import attempt_scope  # noqa: E402
from client.providers.anthropic_provider import AnthropicProvider  # noqa: E402
from client.providers.openai_provider import OpenAIProvider  # noqa: E402
from client.scale import attempts_to_do, collect_batch, provider_stack  # noqa: E402
from client.solvers.chat import ChatSolver  # noqa: E402
from tests.fakes.batches import FakeAnthropicBatch, FakeOpenAIBatch  # noqa: E402
from tests.fakes.instances import toy_instances  # noqa: E402
from tests.fakes.providers import Text, first_user_text  # noqa: E402


def oracle(items):
    by_q = {i["question"]: i for i in items}
    return lambda body, index: Text(f"Final answer: {by_q[first_user_text(body)]['answer']}")


async def solve(provider, inst):
    return await ChatSolver(provider, system=prompts.load("system_unaided.md"), tools=None).solve(inst["question"])


async def ask_all(provider, items, concurrency: int) -> list[str | None]:
    sem = asyncio.Semaphore(concurrency)

    async def one(inst):
        async with sem:
            with attempt_scope(1):
                return (await solve(provider, inst)).final_answer

    return await asyncio.gather(*(one(i) for i in items))


def make(kind: str, fake):
    if kind == "openai":
        return OpenAIProvider("gpt-4o-mini", api_key="bench", base_url=fake.base_url)
    return AnthropicProvider("claude-haiku-4-5", api_key="bench", base_url=fake.base_url)


async def bench_cache(items, a) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIBatch(oracle(items), latency=a.latency, record=False) as fake:
        rows = []
        for label in ("first run", "repeated run"):
            p = make("openai", fake)
            before = fake.count
            t = time.perf_counter()
            answers = await ask_all(provider_stack(p, cache=ResponseCache(Path(tmp) / "cache")), items, a.concurrency)
            rows.append((label, fake.count - before, time.perf_counter() - t, answers))
            await p.aclose()
        same = rows[0][3] == rows[1][3]
        print(f"cache: {len(items)} instances, unaided, latency {a.latency} s, concurrency {a.concurrency}")
        for label, sent, secs, _ in rows:
            print(f"  {label:13s} requests sent {sent:5d}   wall {secs:7.2f} s")
        saved = rows[0][1] - rows[1][1]
        print(f"  requests saved by the cache on the repeated run: {saved}/{rows[0][1]} "
              f"({100 * saved / max(1, rows[0][1]):.0f} %); same answers: {same}")


async def bench_batch(items, a) -> None:
    print(f"batch vs live: {len(items)} instances, unaided; live latency {a.latency} s, concurrency {a.concurrency}; "
          f"batch in progress for {a.polls} checks {a.poll} s apart")
    for kind, cls in (("openai", FakeOpenAIBatch), ("anthropic", FakeAnthropicBatch)):
        with tempfile.TemporaryDirectory() as tmp, cls(oracle(items), latency=a.latency, record=False,
                                                       polls=a.polls) as fake:
            p = make(kind, fake)
            t = time.perf_counter()
            live = await ask_all(provider_stack(p), items, a.concurrency)
            t_live, n_live = time.perf_counter() - t, fake.count
            t = time.perf_counter()
            todo = list(attempts_to_do(items, 1, set()))
            got = await collect_batch(p, solve, todo, Path(tmp), poll_every=a.poll, say=lambda s: None)
            batched = await ask_all(provider_stack(p, batch_answers=got), items, a.concurrency)
            t_batch = time.perf_counter() - t
            calls = len(fake.batch_calls)
            print(f"  {kind:9s} live {t_live:7.2f} s ({n_live} requests)   batch {t_batch:7.2f} s ({calls} HTTP calls, "
                  f"{fake.count - n_live} live requests; {t_batch - a.polls * a.poll:.2f} s besides the "
                  f"{a.polls * a.poll:g} s of waiting)   same answers: {live == batched}")
            await p.aclose()


async def main_async(a) -> None:
    items = toy_instances(a.n)
    await bench_cache(items, a)
    await bench_batch(items, a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--latency", type=float, default=0.05, help="seconds per live reply (default 0.05)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--polls", type=int, default=3, help="status checks the fake batch stays in progress for")
    ap.add_argument("--poll", type=float, default=0.5, help="seconds between status checks (default 0.5)")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
