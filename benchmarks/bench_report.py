"""Time `span-client report` on two synthetic runs of N instances each (default 37,380, one full date).

    python benchmarks/bench_report.py [--n 37380] [--dates 1] [--keep DIR]

Writes results.jsonl files in the CONTRACTS.md format (with a few kB of messages per line, like real
runs), then runs the report with 10,000 bootstrap resamples and prints the time of each stage.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from span_toolkit.client.report import command  # noqa: E402
from tests.fakes import synthetic_runs as sy  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=37_380, help="instances per evaluation date")
    ap.add_argument("--dates", type=int, default=1, help="number of evaluation dates")
    ap.add_argument("--keep", help="write the runs and the report here instead of a temp folder")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args()
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench_report_"))
    dates = [f"{1960 + 5 * i}-07-01" for i in range(a.dates)]
    t = time.perf_counter()
    ins = sy.instances(a.n, dates)
    filler = [{"role": "user", "content": "x" * 1500}, {"role": "assistant", "content": "y" * 1500}]
    runs = []
    for model, mode, p, seed in (("baseline", "unaided", 0.35, 1), ("reference", "with_tools", 0.97, 2)):
        rows = sy.results(ins, model, mode, p, seed=seed)
        for r in rows:
            r["messages"] = filler
        runs.append(sy.write_run(base / f"{model}-{mode}", rows))
    size = sum((r / "results.jsonl").stat().st_size for r in runs) / 1e6
    print(f"wrote 2 runs x {len(ins):,} results ({size:.0f} MB) in {time.perf_counter() - t:.1f} s")

    p = argparse.ArgumentParser()
    command.configure(p)
    argv = [*map(str, runs), "--out", str(base / "report"), "--quiet"]
    if a.no_figures:
        argv.append("--no-figures")
    t = time.perf_counter()
    rc = command.run(p.parse_args(argv))
    elapsed = time.perf_counter() - t
    s = json.loads((base / "report" / "summary.json").read_text())
    print(f"report: exit {rc}, {elapsed:.1f} s total for {2 * len(ins):,} results, "
          f"{len(s['significance'])} unpaired + {len(s['paired'])} paired bootstrap tests "
          f"x {s['settings']['n_resamples']:,} resamples, {len(s['figures'])} figures -> "
          f"{base / 'report'}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
