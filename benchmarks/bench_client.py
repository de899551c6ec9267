"""Client overhead of ``span-client eval --with-tools``.

A fake provider (stdlib HTTP on 127.0.0.1 in its own process, real Anthropic wire format, driven through
the real ``anthropic`` SDK) answers every request after a fixed latency L. Each instance costs two model
calls (a tool call, then the final answer) and one MCP call to the real span-server over stdio, and is
judged by the rules judge and written to results.jsonl. With C instances in flight the ideal is C/L model
requests per second; the client's overhead is what keeps it below that:

    ratio = measured model requests/s ÷ (C / L)          (target ≥ 0.90)

"steady" counts requests from the first to the last request sent (excludes spawning the MCP server and
the last replies); "end to end" divides by the whole run's wall time.

Memory: the same run with a short latency over growing numbers of instances; the Python heap peak
(tracemalloc) during the run, with the input instances allocated before, must not grow with the number
of instances (results are streamed to disk, nothing per instance is kept).

    python benchmarks/bench_client.py [--latency 0.2] [--concurrency 8 32] [--per-worker 12]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from span_toolkit.client.providers import make_provider  # noqa: E402
from span_toolkit.client.runner import run_eval  # noqa: E402
from span_toolkit.client.spec import RunSpec  # noqa: E402
from span_toolkit.client.dataset import Instances  # noqa: E402
from tests.fakes.instances import toy_instances  # noqa: E402


class FakeProviderProcess:
    def __init__(self, latency: float):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.providers", "anthropic",
                                      "toy_tool_then_answer", "--latency", str(latency), "--no-record"],
                                     cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        self.base_url = self.proc.stdout.readline().strip()
        assert self.base_url.startswith("http://127.0.0.1:"), self.base_url

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def one_run(items: list[dict], concurrency: int, base_url: str, out: Path) -> tuple[float, list[float], dict]:
    provider = make_provider("anthropic/bench", base_url=base_url, api_key="bench", timeout=30)
    starts: list[float] = []
    generate = provider.generate

    async def timed_generate(*a, **kw):
        starts.append(time.perf_counter())
        return await generate(*a, **kw)

    provider.generate = timed_generate  # type: ignore[method-assign]
    spec = RunSpec(model=provider.label, out_dir=out, mode="with_tools", dates=("2025-07-01",),
                   concurrency=concurrency, quiet=True, timeout=30, max_retries=0, preflight=False)
    t0 = time.perf_counter()
    summary = await run_eval(spec, provider=provider, instances=Instances(items, len(items)))
    elapsed = time.perf_counter() - t0
    await provider.aclose()
    return elapsed, starts, summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency", type=float, default=0.2, help="fake provider latency in seconds (default 0.2)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[8, 16, 32])
    ap.add_argument("--per-worker", type=int, default=12, help="instances per concurrent slot (default 12)")
    ap.add_argument("--memory-sizes", type=int, nargs="+", default=[300, 1200, 2400])
    args = ap.parse_args()
    L = args.latency
    ok = True
    ratios: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        fake = FakeProviderProcess(L)
        try:
            print(f"fake provider latency L = {L * 1000:.0f} ms; with tools: 2 model calls + 1 MCP call "
                  f"(span-server over stdio) per instance; {os.cpu_count()} CPUs")
            print(f"{'C':>4} {'instances':>9} {'wall s':>7} {'ideal C/L':>9} {'steady req/s':>12} "
                  f"{'ratio':>6} {'end-to-end req/s':>16} {'ratio':>6}")
            for c in args.concurrency:
                n = c * args.per_worker
                items = toy_instances(n, prefix=f"bench-c{c}")
                elapsed, starts, summary = asyncio.run(one_run(items, c, fake.base_url, tmp / f"run-c{c}"))
                assert summary["n"] == n and summary["accuracy"] == 1.0 and summary["n_errors"] == 0, summary
                assert len(starts) == 2 * n
                ideal = c / L
                # requests sent from the first to the last: 2n-1 intervals; add one L for the last one in flight
                steady = (2 * n) / (starts[-1] - starts[0] + L)
                e2e = 2 * n / elapsed
                ratios[c] = steady / ideal
                print(f"{c:>4} {n:>9} {elapsed:>7.2f} {ideal:>9.1f} {steady:>12.1f} {steady / ideal:>6.3f} "
                      f"{e2e:>16.1f} {e2e / ideal:>6.3f}  {'ok' if steady / ideal >= 0.9 else 'BELOW 0.90'}")
                ok &= steady / ideal >= 0.9
        finally:
            fake.close()

        fake = FakeProviderProcess(0.002)
        try:
            print("\nmemory (L = 2 ms, C = 16): Python heap peak during the run (tracemalloc), input instances "
                  "allocated before")
            print(f"{'instances':>9} {'peak MiB':>9}")
            peaks = []
            for n in args.memory_sizes:
                items = toy_instances(n, prefix=f"mem{n}")
                gc.collect()
                tracemalloc.start()
                base = tracemalloc.get_traced_memory()[0]
                asyncio.run(one_run(items, 16, fake.base_url, tmp / f"mem-{n}"))
                peak = tracemalloc.get_traced_memory()[1] - base
                tracemalloc.stop()
                peaks.append(peak)
                print(f"{n:>9} {peak / 2**20:>9.2f}")
        finally:
            fake.close()
        growth = peaks[-1] / peaks[0]
        size_growth = args.memory_sizes[-1] / args.memory_sizes[0]
        flat = growth < 1.5
        print(f"peak grows x{growth:.2f} for x{size_growth:.0f} instances -> {'flat' if flat else 'NOT flat'}")
        ok &= flat
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"\nload average during the run: {load:.2f} on {os.cpu_count()} CPUs (the fake provider and the MCP "
          f"server share them with the client)")
    print("result:", "PASS (steady ratio >= 0.90 at every C, memory flat)" if ok else
          "FAIL (" + ", ".join(f"C={c}: {r:.3f}" for c, r in ratios.items() if r < 0.9) + ")")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
