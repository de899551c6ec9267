"""Peak memory of a stratified sample over many evaluation dates (issue 21): `span-client generate
--sample 100` over 400 consecutive dates, with and without every written date format, each in a fresh
process. The sample is drawn from the plan (every instance counted by its strata, only the chosen ones
built), so memory grows with the number of strata, not of instances.

    python benchmarks/bench_sample_memory.py                  # 400 dates, --sample 100
    python benchmarks/bench_sample_memory.py --dates 1950-01-01..1950-02-19 --formats-only

Target: peak RSS <= 200 MB for --sample 100 over 400 dates. Peak RSS is the child's ru_maxrss.
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

ROOT = Path(__file__).resolve().parent.parent
TARGET_MB = 200.0


def measure(dates: str, sample: int, extra: list[str]) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, lines written) of one generate run in a fresh process."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "s.jsonl"
        cmd = [sys.executable, "-c", "import resource, sys; from span_toolkit.client.cli import main; rc = main(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(rc)",
               "generate", "--dates", dates, "--sample", str(sample), "--out", str(out), *extra]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        secs = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"generate failed: {r.stderr.strip()}")
        peak_kib = int(r.stderr.strip().splitlines()[-1])
        return secs, peak_kib / 1024.0, len(out.read_text().splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dates", default="1950-01-01..1951-02-04", help="a range of evaluation dates (default: 400)")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--formats-only", action="store_true", help="only the run with --date-formats")
    args = ap.parse_args()
    cases = [("paper protocol", []), ("--polar-negatives --extended", ["--polar-negatives", "--extended"]),
             ("--date-formats (~10x the instances)", ["--date-formats"])]
    if args.formats_only:
        cases = cases[-1:]
    print(f"generate --dates {args.dates} --sample {args.sample}")
    for label, extra in cases:
        secs, mb, n = measure(args.dates, args.sample, extra)
        verdict = "ok" if mb <= TARGET_MB else f"OVER the {TARGET_MB:.0f} MB target"
        print(f"  {label:38s} {secs:7.1f} s   peak RSS {mb:6.1f} MB   {n} lines   {verdict}")


if __name__ == "__main__":
    main()
