"""Generator throughput and memory: the paper's 21 evaluation dates (37,380 instances).

Every instance is built as `span-client generate` builds it: code rendered, compiled and executed for the
gold answer, the gold checked against the core's direct computation, serialised to a JSON line.

    python benchmarks/bench_generator.py              # single process
    python benchmarks/bench_generator.py --jobs 2     # whole dates per worker process
    python benchmarks/bench_generator.py --repeat 3   # best of 3

Targets (issue 4): <= 5 s and peak RSS <= 200 MB on the 2-core reference machine. Peak RSS is
resource.getrusage's ru_maxrss (this process; with --jobs also the largest worker). "flat" compares the
peak after the first date with the peak after all 21.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from span_toolkit.span.benchmark import PAPER_EVAL_DATES  # noqa: E402
from span_toolkit.span.benchmark.jsonl import iter_lines  # noqa: E402

TARGET_S = 5.0
TARGET_MB = 200.0


def peak_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0   # KiB on Linux


def run(dates, jobs: int, sink) -> tuple[int, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for line in iter_lines(dates, jobs=jobs):
        sink.write(line)
        sink.write("\n")
        n += 1
    return n, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    dates = list(PAPER_EVAL_DATES)
    with open(os.devnull, "w") as sink:
        n1, s1, _ = run(dates[:1], 1, sink)           # warm-up: one date, and the RSS after one date
        rss_one = peak_mb()
        best = None
        for _ in range(max(1, args.repeat)):
            n, secs, cpu = run(dates, args.jobs, sink)
            if best is None or secs < best[1]:
                best = (n, secs, cpu)
    n, secs, cpu = best
    rss = peak_mb()
    rss_children = peak_mb(resource.RUSAGE_CHILDREN) if args.jobs > 1 else 0.0
    peak = max(rss, rss_children)
    print(f"dates            : {len(dates)} (paper: July 1, 1960..2060 every 5 years)")
    print(f"instances        : {n:,} (expected 37,380)")
    print(f"jobs             : {args.jobs}")
    print(f"seconds          : {secs:.2f} wall, {cpu:.2f} CPU in this process   (target <= {TARGET_S:.0f} s)")
    print(f"instances/s      : {n / secs:,.0f}")
    print(f"peak RSS         : {peak:.1f} MB  (after 1 date: {rss_one:.1f} MB; flat in dates)"
          f"{'; largest worker ' + format(rss_children, '.1f') + ' MB' if args.jobs > 1 else ''}"
          f"   (target <= {TARGET_MB:.0f} MB)")
    ok = n == 37380 and secs <= TARGET_S and peak <= TARGET_MB
    print(f"result           : {'OK' if ok else 'MISSED TARGET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
