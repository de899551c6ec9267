"""`span-client demo`: the whole pipeline offline, no API key — generate one date's instances, ask the
scripted agents (baseline unaided, reference with the MCP tools, reference-code as a Time Agent), report."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .. import dataset
from ..mcp_tools import TOKEN_ENV
from ..report.command import write_report
from ..rundir import atomic_write_json, atomic_write_text
from ..sandbox import KINDS
from ..sandbox.trusted import trusted_code_kind
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
    dm.add_argument("--sandbox", choices=KINDS, default="auto",
                    help="sandbox of the reference-code arm (default auto: a strong mode, or, where none works, "
                         "unsafe-process, since its programs are the toolkit's own, not a model's)")
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
        # the demo's one GenerationRequest (the paper's protocol; its sample), the same the runs below generate
        request = common.generation_request(args, sample=args.sample, seed=args.seed if args.sample else 0)
        instances = dataset.generate_list([args.date], request)
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
    with polar_warning_once():
        return _run_all(args, out, inst_path, token, request)


def _run_all(args, out: Path, inst_path: Path, token: str | None, request: Any) -> int:
    summaries = {}
    kind, note = trusted_code_kind(getattr(args, "sandbox", "auto"))
    if note:
        print(f"span-client demo: {note}", file=sys.stderr)
    runs = [r for r in RUNS if kind is not None or r[1] != "time_agent"]
    for model, mode, name in runs:
        tools = mode == "with_tools"
        spec = RunSpec(model=model, out_dir=out / name, mode=mode, dates=(args.date,), sample=args.sample,
                       seed=args.seed, generation=request, server_url=args.server_url if tools else None,
                       server_token=token if tools else None, concurrency=args.concurrency, quiet=args.quiet,
                       timeout=60.0, max_retries=0, sandbox=kind or "auto",
                       command={"command": "demo", "model": model, "mode": mode, "date": args.date,
                                "sample": args.sample, "seed": args.seed, "instances": str(inst_path)})
        rc, summaries[model] = execute(spec)
        if rc:
            return rc
    # the paper's output-token figure (o200k_base), offline: the encoding file ships in a package
    rc = write_report([out / name for _, _, name in runs], out / "report", with_figures=not args.no_figures)
    fmt = lambda s: f"{100 * s['accuracy']:.2f}%" if s.get("accuracy") is not None else "n/a"  # noqa: E731
    line = (f"\nSPAN {args.date}: baseline (unaided, not an LLM) {fmt(summaries['baseline'])}  ->  reference agent "
            f"with the MCP tools (not an LLM) {fmt(summaries['reference'])}")
    if "reference-code" in summaries:
        line += f"; reference-code agent as a Time Agent (not an LLM) {fmt(summaries['reference-code'])}"
    print(line)
    return 1 if rc else 0


# the one-word warning of a run's summary (client.rundir.counts.one_word_warning), as `eval` prints it
# ("WARNING: …") and as the report does ("warning: <run>: …")
_POLAR_WARNING = re.compile(r'^(?:WARNING|warning): (?:[^\n]*?: )?\d+ of \d+ polar answers are "(?:Yes|No)" ')
_PREFIXES = ("WARNING: ", "warning: ")


class _PolarWarningOnce:
    """stderr, with the polar-answer warning let through once: the demo's instances follow the paper's
    protocol (every polar gold is "Yes"), so each of its runs and the report would say the same thing."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.pending = ""
        self.shown = False
        self.held = 0

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, _, self.pending = self.pending.partition("\n")
            if _POLAR_WARNING.match(line):
                if self.shown:
                    self.held += 1
                    continue
                self.shown = True
            self.inner.write(line + "\n")
        if self.pending and not any(p.startswith(self.pending[:len(p)]) for p in _PREFIXES):
            self.inner.write(self.pending)  # progress lines ("\r…") go out at once
            self.pending = ""
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close_out(self) -> None:
        if self.pending:
            self.inner.write(self.pending)
            self.pending = ""
        if self.held:
            self.inner.write(f"span-client: the polar-answer warning above also applies to {self.held} more of the "
                             f"demo's runs and report lines (printed once; each summary.json keeps its own)\n")
        self.inner.flush()


@contextmanager
def polar_warning_once() -> Iterator[None]:
    wrapped = _PolarWarningOnce(sys.stderr)
    sys.stderr = wrapped
    try:
        yield
    finally:
        sys.stderr = wrapped.inner
        wrapped.close_out()
