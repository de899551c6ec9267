"""The inspect_ai task and the export, timed.

Task: ``inspect eval span_toolkit/span`` in-process with each scripted agent in its mode on the same
stratified sample (``-T sample=N -T seed=S``), wall time per arm and per sample. In ``tools`` mode inspect
opens one MCP session per sample, so every sample starts its own ``span-server`` over stdio; that start,
not the tool call, is most of a tools sample's time.

Export: ``span-client export RUN --format inspect`` of existing run folders (e.g. the demo's), wall time,
file size and the process's peak RSS (the export holds the run's samples in memory to write the log).

    python benchmarks/bench_inspect.py [--sample 30] [--seed 3] [--date 2025-07-01]
    python benchmarks/bench_inspect.py --skip-task --export span-demo/reference-with_tools ...
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARMS = [("span/baseline", "unaided"), ("span/reference", "tools"), ("span/reference-code", "time_agent")]
EXPORT = """
import resource, sys, time
from span_toolkit.client.cli import main
t = time.perf_counter()
code = main(["export", sys.argv[1], "--format", "inspect", "--out", sys.argv[2], "--force"])
print("EXPORT", code, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def bench_task(date: str, sample: int, seed: int) -> None:
    import span_toolkit._registry  # noqa: F401
    from inspect_ai import eval as inspect_eval
    from span_toolkit.task import span

    print(f"inspect eval span_toolkit/span -T date={date} -T sample={sample} -T seed={seed} (cpus: {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f})")
    with tempfile.TemporaryDirectory() as logs:
        for model, mode in ARMS:
            t = time.perf_counter()
            log = inspect_eval(span(date=date, mode=mode, sample=sample, seed=seed), model=model, log_dir=logs,
                               display="none")[0]
            wall = time.perf_counter() - t
            acc = log.results.scores[0].metrics["accuracy"].value if log.results else float("nan")
            print(f"  {model:22} {mode:11} {log.status:8} {len(log.samples)} samples  {wall:6.1f} s  "
                  f"{wall / max(1, len(log.samples)):5.2f} s/sample  accuracy {acc:.3f}")


def bench_export(runs: list[str]) -> None:
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory() as out:
        for run in runs:
            target = Path(out) / (Path(run).name + ".eval")
            proc = subprocess.run([sys.executable, "-c", EXPORT, run, str(target)], capture_output=True, text=True,
                                  env=env)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("EXPORT")), None)
            if line is None:
                print(f"  {run}: failed: {proc.stderr.strip()[-300:]}")
                continue
            _, code, secs, rss_kb = line.split()
            print(f"  export {run}: exit {code}, {float(secs):.1f} s, {target.stat().st_size / 2**20:.1f} MiB, "
                  f"peak RSS {int(rss_kb) / 1024:.0f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--date", default="2025-07-01")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--skip-task", action="store_true")
    ap.add_argument("--export", nargs="*", default=[], metavar="RUN_DIR")
    args = ap.parse_args()
    if not args.skip_task:
        bench_task(args.date, args.sample, args.seed)
    if args.export:
        bench_export(args.export)


if __name__ == "__main__":
    main()
