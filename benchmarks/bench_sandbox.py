"""Sandbox start-up and execution cost (client/sandbox) in every mode that runs here, and the scripted code
agent over one date.

Start-up:  a warm zygote per mode (interpreter + span, its root and namespaces, the probe), against the bare
           cost of `import span` in a fresh `python -I -S` and of a fresh bubblewrap sandbox doing the same
           (what every snippet would pay without the zygote).
Execution: wall time of one snippet as the client sees it (request to exit status), p50 / p95, per mode,
           for an empty snippet and for the paper's Appendix F Example 1.
Scripted:  the 1,780 instances of one date, each program run alone in the sandbox (--sandbox, default auto),
           judged by the rules judge, serial and with 2 in flight; with --reference also `span-client eval
           --model reference --with-tools` on the same date, for the ratio.

    python benchmarks/bench_sandbox.py [--runs 200] [--date 2025-07-01] [--sandbox auto] [--reference]
                                       [--skip-scripted] [--compare-with GITREV]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from span_toolkit.client.judges.rules import CORRECT, judge_answer  # noqa: E402
from span_toolkit.client.agents.scripted import final_answer, program_for  # noqa: E402
from span_toolkit.client.sandbox import KINDS, Sandbox, SandboxError, python_paths  # noqa: E402
from span_toolkit.client.sandbox.bwrap import bwrap_argv  # noqa: E402
from span_toolkit.client.sandbox.procs import CHILD_SCRIPT  # noqa: E402
from span_toolkit.client.sandbox.rootfs import runtime_plan  # noqa: E402
from span_toolkit.client.solvers.timeagent_messages import extract_code  # noqa: E402
from span_toolkit.span.benchmark import generate_instances  # noqa: E402

EXAMPLE_1 = ("day = datetime(2020, 7, 1) - timedelta(days=7)\n"
             "converted = search_calendar(calendar=\"gregorian\", year=day.year, month=day.month, day=day.day)\n"
             "print(converted[\"islamic_date\"])\n")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def row(label: str, xs: list[float]) -> None:
    print(f"  {label:44} n={len(xs):4}  p50 {pct(xs, .5) * 1000:8.1f} ms   p95 {pct(xs, .95) * 1000:8.1f} ms")


def import_cost(n: int) -> list[float]:
    code = f"import sys, time; t = time.perf_counter(); sys.path[:0] = {python_paths()!r}; import span; " \
           "print(time.perf_counter() - t)"
    return [float(subprocess.run([sys.executable, "-I", "-S", "-B", "-c", code], capture_output=True, text=True,
                                 check=True).stdout) for _ in range(n)]


def cold_bwrap(n: int) -> list[float]:
    """A fresh bubblewrap sandbox + interpreter + import span per snippet (no zygote), as the client sees it."""
    argv = bwrap_argv(runtime_plan(CHILD_SCRIPT), as_root=os.geteuid() == 0)
    code = f"import sys; sys.path[:0] = {list(runtime_plan(CHILD_SCRIPT).python_paths)!r}; import span"
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([*argv, sys.executable, "-I", "-S", "-B", "-c", code], check=True, capture_output=True)
        out.append(time.perf_counter() - t)
    return out


async def startup(kind: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        sb = Sandbox(kind)
        await sb.start()
        out.append(time.perf_counter() - t)
        await sb.close()
    return out


async def runs(sb: Sandbox, code: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        r = await sb.run(code)
        assert r.ok, r.stderr
        out.append(r.seconds)
    return out


async def scripted(day: date, concurrency: int, kind: str) -> tuple[float, int, int, list[float]]:
    insts = list(generate_instances(day))
    wrong = 0
    secs: list[float] = []
    async with Sandbox(kind, concurrency=concurrency) as sb:
        sem = asyncio.Semaphore(concurrency)

        async def one(inst):
            nonlocal wrong
            async with sem:
                r = await sb.run(extract_code("```python\n" + program_for(inst["question"]) + "```"))
            secs.append(r.seconds)
            if not r.ok or judge_answer(inst, final_answer(r.stdout)).verdict != CORRECT:
                wrong += 1

        t = time.perf_counter()
        await asyncio.gather(*(one(i) for i in insts))
        return time.perf_counter() - t, len(insts), wrong, secs


def reference_eval(day: date) -> float:
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        subprocess.run(["span-client", "eval", "--model", "reference", "--with-tools", "--date", day.isoformat(),
                        "--out", os.path.join(out, "run")], check=True, capture_output=True)
        return time.perf_counter() - t


def sandbox_at(rev: str):
    """client/sandbox as it was at git revision ``rev``, imported as a separate package (its zygote script
    runs from a temporary folder), for a before/after comparison at the same load."""
    import importlib

    d = tempfile.mkdtemp(prefix="span-bench-sandbox-")
    os.chmod(d, 0o755)
    pkg = os.path.join(d, "span_sandbox_at_rev")
    os.mkdir(pkg)
    names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{rev}:client/sandbox"],
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:client/sandbox/{name}"],
                                  capture_output=True, text=True, check=True).stdout
            Path(pkg, name).write_text(text)
    sys.path.insert(0, d)
    return importlib.import_module("span_sandbox_at_rev")


async def compare(rev: str, n: int) -> None:
    """p50 / p95 per snippet, this tree against ``rev``, interleaved in rounds of 20 (same load)."""
    old = sandbox_at(rev)
    for kind in ("bwrap", "namespaces", "unsafe-process"):
        try:
            async with old.Sandbox(kind) as a, Sandbox(kind) as b:
                for label, code in (("empty snippet", "pass"), ("Appendix F example 1", EXAMPLE_1)):
                    xa, xb = [], []
                    for i in range(max(1, n // 20)):  # each goes first in every other round
                        for sb, xs in ((a, xa), (b, xb)) if i % 2 == 0 else ((b, xb), (a, xa)):
                            xs += await runs(sb, code, 20)
                    row(f"{kind}: {label}, at {rev[:10]}", xa)
                    row(f"{kind}: {label}, this tree", xb)
                    print(f"    p50 ratio this tree / {rev[:10]}: {pct(xb, .5) / pct(xa, .5):.3f}")
        except (SandboxError, old.SandboxError) as e:
            print(f"  {kind}: not available here ({e})")


async def main(args) -> None:
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if args.compare_with:
        await compare(args.compare_with, args.runs)
        return
    modes = []
    for kind in KINDS[1:]:
        try:
            async with Sandbox(kind):
                modes.append(kind)
        except SandboxError as e:
            print(f"  {kind}: not available here ({e})")
    print("start-up")
    row("import span in a fresh python -I -S", import_cost(10))
    if "bwrap" in modes:
        row("fresh bwrap + python + import span", cold_bwrap(10))
    for kind in modes:
        row(f"warm zygote start, {kind}", await startup(kind, 5))
    print("execution (warm zygote, one fork per snippet)")
    for kind in modes:
        async with Sandbox(kind) as sb:
            row(f"{kind}: empty snippet", await runs(sb, "pass", args.runs))
            row(f"{kind}: Appendix F example 1", await runs(sb, EXAMPLE_1, args.runs))
            print(f"    isolation: {sb.isolation}")
    if args.skip_scripted:
        return
    day = date.fromisoformat(args.date)
    print(f"scripted code agent, {day}, --sandbox {args.sandbox} (every program alone in the sandbox, judged)")
    totals = {}
    for c in (1, 2):
        el, n, wrong, secs = await scripted(day, c, args.sandbox)
        totals[c] = el
        print(f"  concurrency {c}: {n} instances in {el:6.1f} s ({el / n * 1000:.1f} ms each), wrong {wrong}")
        row(f"  per-run sandbox time, concurrency {c}", secs)
    if args.reference:
        ref = reference_eval(day)
        print(f"  span-client eval --model reference --with-tools: {ref:.1f} s (whole command)")
        for c, el in totals.items():
            print(f"  ratio scripted code agent (concurrency {c}) / reference tool agent: {el / ref:.2f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="snippets per execution measurement (default 200)")
    ap.add_argument("--date", default="2025-07-01", help="evaluation date for the scripted run")
    ap.add_argument("--reference", action="store_true", help="also time span-client eval --model reference")
    ap.add_argument("--skip-scripted", action="store_true", help="only start-up and execution")
    ap.add_argument("--compare-with", metavar="GITREV",
                    help="only: per-snippet time of this tree against client/sandbox at GITREV, interleaved")
    ap.add_argument("--sandbox", choices=KINDS, default="auto", help="mode for the scripted run (default auto)")
    asyncio.run(main(ap.parse_args()))
