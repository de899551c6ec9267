"""Running at scale, through the whole eval path (``client.runner.run_eval`` with a ``RunSpec``, as
``span-client eval`` runs it: solver, judge, run folder) against the loopback fakes with the real
``openai`` / ``anthropic`` SDKs, unaided:

1. **Response cache** — N instances asked live (each reply after a fixed latency L, C in flight) into a
   fresh cache folder, then the same N again into a *new* run folder over the same cache: requests sent,
   wall time, and whether the results are the same.
2. **Batch vs live** — the same N instances once live (C in flight, latency L each) and once with
   ``--batch`` (one upload and create, a status check every ``--poll`` seconds while the fake keeps the
   batch in progress for ``--polls`` checks, then the results read back): wall time and HTTP calls. The
   fake answers a batch as soon as it has been polled enough: what this measures is the client's side
   (collecting, uploading, polling, reading and judging N answers), not a provider's queue, which takes
   minutes to 24 hours.

    python benchmarks/bench_scale.py [--n 400] [--latency 0.05] [--concurrency 8] [--polls 3] [--poll 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import replace
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from span_toolkit.client.runner import run_eval  # noqa: E402
from span_toolkit.client.spec import RunSpec  # noqa: E402
from tests.fakes.batches import FakeAnthropicBatch, FakeOpenAIBatch  # noqa: E402
from tests.fakes.helpers import write_jsonl  # noqa: E402
from tests.fakes.instances import toy_instances  # noqa: E402
from tests.fakes.providers import Text, first_user_text  # noqa: E402

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}


def oracle(items):
    by_q = {i["question"]: i for i in items}
    return lambda body, index: Text(f"Final answer: {by_q[first_user_text(body)]['answer']}")


def results(folder: Path) -> dict:
    with open(folder / "results.jsonl", encoding="utf-8") as f:
        return {(r["id"], r.get("epoch", 1)): (r["final_answer"], r["correct"]) for r in map(json.loads, f)}


def timed_run(spec: RunSpec) -> tuple[float, dict]:
    t = time.perf_counter()
    summary = asyncio.run(run_eval(spec))
    return time.perf_counter() - t, summary


def bench_cache(f: Path, tmp: Path, a) -> None:
    items = toy_instances(a.n)
    with FakeOpenAIBatch(oracle(items), latency=a.latency, record=False) as fake:
        base = RunSpec(model=MODELS["openai"], base_url=fake.base_url, api_key="bench", instances_file=f,
                       out_dir=tmp / "cache-run1", cache_dir=tmp / "cache", concurrency=a.concurrency, quiet=True)
        rows = []
        for label, out in (("first run", tmp / "cache-run1"), ("repeated run", tmp / "cache-run2")):
            before = fake.count
            secs, summary = timed_run(replace(base, out_dir=out))
            rows.append((label, fake.count - before, secs, summary))
    same = results(tmp / "cache-run1") == results(tmp / "cache-run2")
    print(f"cache: {a.n} instances, unaided, latency {a.latency} s, concurrency {a.concurrency}")
    for label, sent, secs, summary in rows:
        print(f"  {label:13s} requests sent {sent:5d}   cache hits {summary['cache_hits']:5d}   wall {secs:6.2f} s")
    saved = rows[0][1] - rows[1][1]
    print(f"  requests saved on the repeated run: {saved}/{rows[0][1]} ({100 * saved / max(1, rows[0][1]):.0f} %); "
          f"same results: {same}")


def bench_batch(f: Path, tmp: Path, a) -> None:
    items = toy_instances(a.n)
    print(f"batch vs live: {a.n} instances, unaided; live: latency {a.latency} s, concurrency {a.concurrency}; "
          f"batch: in progress for {a.polls} status checks {a.poll} s apart")
    for kind, cls in (("openai", FakeOpenAIBatch), ("anthropic", FakeAnthropicBatch)):
        with cls(oracle(items), latency=a.latency, record=False, polls=a.polls) as fake:
            spec = RunSpec(model=MODELS[kind], base_url=fake.base_url, api_key="bench", instances_file=f,
                           out_dir=tmp / f"{kind}-live", concurrency=a.concurrency, quiet=True)
            t_live, _ = timed_run(spec)
            n_live = fake.count
            t_batch, _ = timed_run(replace(spec, out_dir=tmp / f"{kind}-batch", batch=True, batch_poll=a.poll))
            same = results(tmp / f"{kind}-live") == results(tmp / f"{kind}-batch")
            waited = a.polls * a.poll
            print(f"  {kind:9s} live {t_live:6.2f} s ({n_live} requests)   batch {t_batch:6.2f} s "
                  f"({len(fake.batch_calls)} HTTP calls, {fake.count - n_live} live requests; {t_batch - waited:.2f} s "
                  f"besides the {waited:g} s of waiting)   same results: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--latency", type=float, default=0.05, help="seconds per live reply (default 0.05)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--polls", type=int, default=3, help="status checks the fake batch stays in progress for")
    ap.add_argument("--poll", type=float, default=0.5, help="seconds between status checks (default 0.5)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        f = write_jsonl(Path(tmp) / "instances.jsonl", toy_instances(a.n))
        bench_cache(f, Path(tmp), a)
        bench_batch(f, Path(tmp), a)


if __name__ == "__main__":
    main()
