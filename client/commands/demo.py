"""`span-client demo`: the whole pipeline offline, no API key — generate one date's instances, ask the
scripted agents (baseline unaided, reference with the MCP tools, reference-code as a Time Agent), report."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .. import dataset
from ..mcp_tools import TOKEN_ENV
from ..report.command import write_report
from ..rundir import atomic_write_json, atomic_write_text
from ..spec import RunSpec
from . import common
from .argtypes import positive_int
from .eval import execute


# (model, mode, run folder name)
RUNS = [("baseline", "unaided", "baseline-unaided"), ("reference", "with_tools", "reference-with_tools"),
        ("reference-code", "time_agent", "reference-code-time_agent")]


def configure(dm: argparse.ArgumentParser) -> None:
    dm.add_argument("--out", required=True, type=Path, help="folder for the instances, the runs and the report")
    dm.add_argument("--date", type=common.iso_date, default="2025-07-01", help="evaluation date (default 2025-07-01)")
    dm.add_argument("--sample", type=positive_int, help="only a random sample of N instances")
    dm.add_argument("--seed", type=int, default=0)
    dm.add_argument("--concurrency", type=positive_int, default=8)
    dm.add_argument("--server-url", help="MCP server URL; default: start span-server over stdio")
    dm.add_argument("--server-token", metavar="TOKEN",
                    help=f"bearer token for --server-url (default: the {TOKEN_ENV} environment variable)")
    dm.add_argument("--no-figures", action="store_true", help="skip the report's PNG figures")
    dm.add_argument("--quiet", action="store_true")


def _label(spec: Any) -> str:
    if not isinstance(spec, dict):
        return "an unreadable demo.json"
    text = str(spec.get("date"))
    return text + (f" (sample {spec['sample']}, seed {spec.get('seed')})" if spec.get("sample") else " (all instances)")


def run(args) -> int:
    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise common.UsageError(f"--out {out} exists and is not a folder")
    if args.server_token and not args.server_url:
        raise common.UsageError("--server-token goes with --server-url (the stdio server needs no token)")
    spec = {"date": args.date, "sample": args.sample, "seed": args.seed if args.sample else None}
    demo_json = out / "demo.json"
    if demo_json.exists():  # a demo folder resumes only the same demo: never mix two dates or samples
        try:
            prev = json.loads(demo_json.read_text(encoding="utf-8"))
        except ValueError:
            prev = None
        if prev != spec:
            raise common.UsageError(f"--out {out} holds the demo of {_label(prev)}, not {_label(spec)}; use another "
                                    f"--out (or the same --date/--sample/--seed to resume it)")
    try:
        instances = dataset.generate_list([args.date], args.sample, args.seed)
    except dataset.DatasetError as e:
        raise common.UsageError(str(e)) from None
    try:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(demo_json, spec)
    except OSError as e:
        raise common.UsageError(f"cannot write the demo folder {out}: {e.strerror or e}") from None
    inst_path = out / f"instances-{args.date}.jsonl"
    atomic_write_text(inst_path, "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances))
    print(f"{len(instances)} instances for {args.date} -> {inst_path}")
    token = args.server_token or (os.environ.get(TOKEN_ENV) if args.server_url else None)
    summaries = {}
    for model, mode, name in RUNS:
        tools = mode == "with_tools"
        spec = RunSpec(model=model, out_dir=out / name, mode=mode, dates=(args.date,), sample=args.sample,
                       seed=args.seed, server_url=args.server_url if tools else None,
                       server_token=token if tools else None, concurrency=args.concurrency, quiet=args.quiet,
                       timeout=60.0, max_retries=0,
                       command={"command": "demo", "model": model, "mode": mode, "date": args.date,
                                "sample": args.sample, "seed": args.seed, "instances": str(inst_path)})
        rc, summaries[model] = execute(spec)
        if rc:
            return rc
    # offline: the scripted agents are not LLMs, so tiktoken counts (which download a file) add nothing here
    rc = write_report([out / name for _, _, name in RUNS], out / "report", with_figures=not args.no_figures,
                      with_tiktoken=False)
    fmt = lambda s: f"{100 * s['accuracy']:.2f}%" if s.get("accuracy") is not None else "n/a"  # noqa: E731
    line = (f"\nSPAN {args.date}: baseline (unaided, not an LLM) {fmt(summaries['baseline'])}  ->  reference agent "
            f"with the MCP tools (not an LLM) {fmt(summaries['reference'])}")
    if "reference-code" in summaries:
        line += f"; reference-code agent as a Time Agent (not an LLM) {fmt(summaries['reference-code'])}"
    print(line)
    return 1 if rc else 0
