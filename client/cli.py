"""``span-client``: eval, judge, tools, demo (here) and generate, report (lazily imported from their owners)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from .argtypes import nonneg_float as _nonneg_float
from .argtypes import nonneg_int as _nonneg_int
from .argtypes import positive_float as _positive_float
from .argtypes import positive_int as _positive_int

LAZY_COMMANDS = {
    "generate": ("client.generate_cmd", "generate SPAN instances to JSONL for one date, a list or a range"),
    "report": ("client.report.command", "report accuracy breakdowns, confidence intervals and figures for runs"),
}


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


# --------------------------------------------------------------------------------------------- helpers
def _iso_date(text: str) -> str:
    """One evaluation date (YYYY-MM-DD), validated by the generator (supported range)."""
    dates = _dates_arg(text)
    if len(dates) != 1:
        raise argparse.ArgumentTypeError(f"expected one date as YYYY-MM-DD, got {text!r} (use --dates for several)")
    return dates[0]


def _dates_arg(text: str) -> list[str]:
    """Dates via the generator's parser: a date, a comma list, a range 1960-07-01..2060-07-01/5y, or 'paper'."""
    try:
        from span.benchmark import parse_dates_spec
    except ImportError as e:
        raise argparse.ArgumentTypeError(f"cannot read dates: span.benchmark is not available ({e})") from None
    try:
        return [d.isoformat() for d in parse_dates_spec(text)]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _temperature(text: str):
    """A number >= 0, or 'none' (send no temperature: reasoning models reject one)."""
    if text.strip().lower() == "none":
        return "none"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'none', got {text!r}")
    return value


def _print_err(msg: str) -> None:
    print(f"span-client: error: {msg}", file=sys.stderr)


# --------------------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="span-client",
        description="SPAN cross-calendar temporal reasoning: evaluate models unaided and with the calendar MCP "
                    "tools, judge runs, query the tools.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    # eval ------------------------------------------------------------------------------------------
    ev = sub.add_parser("eval", help="ask a model every instance, unaided or with the MCP tools; judge; write a run folder",
                        description="Evaluate a model on SPAN instances. Re-running with the same --out resumes: "
                                    "finished instances are skipped, failed ones are asked again.",
                        epilog="exit status: 0 every instance answered and judged; 1 some instances failed "
                               "(recorded as errors, not wrong answers; re-run to retry), some answers are unscored "
                               "because the judge request failed (re-run to re-judge them), the run was stopped "
                               "early (401/403/404 from the model or the judge, or 5 identical non-retryable errors "
                               "in a row: what is not asked yet stays unasked, re-run to resume) or the MCP server "
                               "could not be reached; 2 bad input, or an --out folder holding a run with other "
                               "settings.")
    ev.add_argument("--model", required=True, metavar="PROVIDER/MODEL",
                    help="anthropic/<model>, openai/<model>, openai-compatible/<model> (needs --base-url), or the "
                         "offline agents 'reference' (tools only; not an LLM) and 'baseline' (unaided floor; not an LLM)")
    ev.add_argument("--base-url", metavar="URL", help="API base URL (openai-compatible: e.g. http://localhost:8000/v1)")
    ev.add_argument("--api-key", metavar="KEY", help="API key (default: ANTHROPIC_API_KEY / OPENAI_API_KEY)")
    ev.add_argument("--temperature", type=_temperature, default=None, metavar="T|none",
                    help="sampling temperature (default: 0 for OpenAI/compatible, as the paper's greedy decoding; "
                         "not sent to Anthropic unless given, its Messages API has no sampling parameters). "
                         "'none' sends no temperature: reasoning models (OpenAI o-series, gpt-5) reject "
                         "temperature 0 and need it; they also spend hidden reasoning tokens out of --max-tokens, "
                         "so raise --max-tokens for them")
    ev.add_argument("--max-tokens", type=_positive_int, default=2048, metavar="N", help="max output tokens per model request")
    ev.add_argument("--with-tools", action="store_true", help="offer the span MCP tools and run the agent loop")
    ev.add_argument("--server-url", metavar="URL", help="MCP server URL (streamable HTTP); default: start span-server over stdio")
    ev.add_argument("--max-turns", type=_positive_int, default=8, metavar="N", help="max model requests per instance (default 8)")
    ev.add_argument("--concurrency", type=_positive_int, default=8, metavar="N", help="instances in flight (default 8)")
    ev.add_argument("--timeout", type=_positive_float, default=120.0, metavar="SECONDS", help="seconds per model request (default 120)")
    ev.add_argument("--max-retries", type=_nonneg_int, default=6, metavar="N",
                    help="retries per request on 429/5xx/connection errors/timeouts (default 6)")
    ev.add_argument("--retry-base-delay", type=_nonneg_float, default=1.0, metavar="SECONDS",
                    help="first backoff in seconds, doubled each retry, with jitter; Retry-After wins (default 1)")
    ev.add_argument("--max-retry-wait", type=_positive_float, default=60.0, metavar="SECONDS",
                    help="longest wait before a retry: backoff and a server's Retry-After are capped to it (default 60)")
    ev.add_argument("--out", required=True, type=Path, metavar="DIR", help="run folder (created; re-run to resume)")
    ev.add_argument("--force-resume", action="store_true",
                    help="resume an --out folder even though it was started with other settings (instances, "
                         "temperature, max tokens/turns, base URL, tools server, judge model, prompts); by default "
                         "that is refused, as it would mix two runs in one summary (another model or mode is always "
                         "refused)")
    src = ev.add_mutually_exclusive_group(required=True)
    src.add_argument("--instances", type=Path, metavar="FILE", help="instances JSONL from `span-client generate`")
    src.add_argument("--date", type=_iso_date, metavar="YYYY-MM-DD", help="generate the instances of one evaluation date (YYYY-MM-DD)")
    src.add_argument("--dates", type=_dates_arg, metavar="SPEC",
                     help="several dates: comma list, range (1960-07-01..2060-07-01/5y) or 'paper' (the 21 paper dates)")
    ev.add_argument("--sample", type=_positive_int, metavar="N",
                    help="evaluate a stratified random sample of N instances")
    ev.add_argument("--seed", type=int, default=0, metavar="S", help="seed for --sample (default 0)")
    ev.add_argument("--judge-model", metavar="PROVIDER/MODEL", help="LLM judge PROVIDER/MODEL (paper Appendix E prompt); rules judge always runs")
    ev.add_argument("--judge-base-url", metavar="URL", help="base URL for the judge model")
    ev.add_argument("--judge-api-key", metavar="KEY", help="API key for the judge model")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(func=cmd_eval)

    # judge -----------------------------------------------------------------------------------------
    jd = sub.add_parser("judge", help="re-judge an existing run folder without asking the model again")
    jd.add_argument("run_dir", type=Path, help="run folder written by `span-client eval`")
    jd.add_argument("--judge-model", help="LLM judge PROVIDER/MODEL (default: rules judge only, earlier LLM verdicts kept)")
    jd.add_argument("--judge-base-url", help="base URL for the judge model")
    jd.add_argument("--judge-api-key", help="API key for the judge model")
    jd.add_argument("--concurrency", type=_positive_int, default=8)
    jd.add_argument("--timeout", type=_positive_float, default=120.0)
    jd.add_argument("--max-retries", type=_nonneg_int, default=6)
    jd.add_argument("--retry-base-delay", type=_nonneg_float, default=1.0)
    jd.add_argument("--max-retry-wait", type=_positive_float, default=60.0, metavar="SECONDS",
                    help="longest wait before a retry; a longer Retry-After is capped to it (default 60)")
    jd.set_defaults(func=cmd_judge)

    # tools -----------------------------------------------------------------------------------------
    tl = sub.add_parser("tools", help="list the MCP server's tools or call one (no LLM involved)")
    tsub = tl.add_subparsers(dest="tools_command", metavar="{list,call}")
    tsub.required = True
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server-url", help="MCP server URL (streamable HTTP); default: start span-server over stdio")
    common.add_argument("--json", action="store_true", help="print JSON")
    tls = tsub.add_parser("list", parents=[common], help="list tools")
    tls.set_defaults(func=cmd_tools_list)
    tlc = tsub.add_parser("call", parents=[common], help="call a tool",
                          description="Call a tool: --args '{\"calendar\":\"hebrew\",\"year\":5785,"
                                      "\"festival_name\":\"Passover\"}' or key=value pairs (values parsed as JSON "
                                      "when they can be, else strings). Exit 1 with the tool's message on an error.")
    tlc.add_argument("name", help="tool name, e.g. search_calendar")
    tlc.add_argument("pairs", nargs="*", metavar="key=value", help="arguments as key=value pairs")
    tlc.add_argument("--args", dest="args_json", help="arguments as one JSON object")
    tlc.set_defaults(func=cmd_tools_call)

    # demo ------------------------------------------------------------------------------------------
    dm = sub.add_parser("demo", help="offline end-to-end: generate a date's instances, run baseline (unaided) and "
                                     "reference (with tools), report the difference")
    dm.add_argument("--out", required=True, type=Path, help="folder for the instances, both runs and the report")
    dm.add_argument("--date", type=_iso_date, default="2025-07-01", help="evaluation date (default 2025-07-01)")
    dm.add_argument("--sample", type=_positive_int, help="only a random sample of N instances")
    dm.add_argument("--seed", type=int, default=0)
    dm.add_argument("--concurrency", type=_positive_int, default=8)
    dm.add_argument("--server-url", help="MCP server URL; default: start span-server over stdio")
    dm.add_argument("--no-figures", action="store_true", help="skip the report's PNG figures")
    dm.add_argument("--quiet", action="store_true")
    dm.set_defaults(func=cmd_demo)

    for name, (_, help_text) in LAZY_COMMANDS.items():
        p = sub.add_parser(name, help=help_text, add_help=False, prefix_chars="\0")
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=None)
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def _run_lazy(name: str, rest: list[str]) -> int:
    module_name = LAZY_COMMANDS[name][0]
    try:
        import importlib

        module = importlib.import_module(module_name)
    except ImportError as e:
        _print_err(f"`span-client {name}` is not available in this installation ({e})")
        return 2
    p = argparse.ArgumentParser(prog=f"span-client {name}", description=LAZY_COMMANDS[name][1])
    module.configure(p)
    args = p.parse_args(rest)
    return int(module.run(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.func is None:
        return _run_lazy(args.command, list(args.rest))
    try:
        return int(args.func(args) or 0)
    except UsageError as e:
        _print_err(str(e))
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted; re-run the same command to resume", file=sys.stderr)
        return 130


# --------------------------------------------------------------------------------------------- eval
def _provider(spec: str, **kw):
    from .providers import ModelSpecError, make_provider

    try:
        return make_provider(spec, **kw)
    except ModelSpecError as e:
        raise UsageError(str(e)) from None


def _retry(args) -> "Any":
    from .runner import RetryPolicy

    return RetryPolicy(max_retries=args.max_retries, base_delay=args.retry_base_delay, timeout=args.timeout,
                       max_delay=getattr(args, "max_retry_wait", 60.0))


def _judging(args, retry) -> Any:
    from .runner import Judging, make_ask

    try:
        if not args.judge_model:
            return Judging(), None
        jp = _provider(args.judge_model, base_url=args.judge_base_url, api_key=args.judge_api_key, temperature=None,
                       max_tokens=1024, timeout=args.timeout)
        if not jp.is_llm:
            raise UsageError(f"--judge-model must be an LLM (PROVIDER/MODEL), not the offline agent {args.judge_model!r}")
        return Judging(make_ask(jp, retry, args.timeout), judge_model=jp.label), jp
    except ImportError as e:
        raise UsageError(f"the judges are not available in this installation ({e})") from None


def _safe_args(args) -> dict:
    out = {}
    for k, v in vars(args).items():
        if k in ("func",) or callable(v):
            continue
        if "api_key" in k:
            v = "***" if v else None
        out[k] = str(v) if isinstance(v, Path) else v
    return out


def _load_instances(args):
    """(instances iterable, total, source). Without --sample they are streamed, so memory stays flat.
    ``source`` says what the instances are (recorded in run.json; a resume must match it)."""
    from .runner import (count_instances_file, file_sha256, iter_instances_file, read_instances_file,
                         sample_instances, stream_generated)

    sampling = {"sample": args.sample, "seed": args.seed if args.sample else None}
    if args.instances:
        if args.sample:
            items = sample_instances(read_instances_file(args.instances), args.sample, args.seed)
            total = len(items)
        else:
            total = count_instances_file(args.instances)
            items = iter_instances_file(args.instances)
        return items, total, {"kind": "file", "sha256": file_sha256(args.instances), **sampling}
    dates = [args.date] if args.date else args.dates
    items, total = stream_generated(dates, args.sample, args.seed)
    return items, total, {"kind": "dates", "dates": list(dates), **sampling}


def cmd_eval(args) -> int:
    from .providers import parse_model, ModelSpecError
    from .runner import EvalConfig, RunError, RunStopped, run_eval

    try:
        kind, _ = parse_model(args.model)
    except ModelSpecError as e:
        raise UsageError(str(e)) from None
    if kind == "reference" and not args.with_tools:
        raise UsageError("--model reference answers only by calling the MCP tools: add --with-tools "
                         "(use --model baseline for the unaided floor)")
    if kind == "baseline" and args.with_tools:
        raise UsageError("--model baseline is the unaided floor and never calls tools: drop --with-tools "
                         "(use --model reference with the tools)")
    if args.server_url and not args.with_tools:
        raise UsageError("--server-url only makes sense with --with-tools")
    if args.judge_base_url and not args.judge_model:
        raise UsageError("--judge-base-url needs --judge-model")
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")
    retry = _retry(args)
    provider = _provider(args.model, base_url=args.base_url, api_key=args.api_key, temperature=args.temperature,
                         max_tokens=args.max_tokens, timeout=args.timeout)
    try:
        judging, judge_provider = _judging(args, retry)
        instances, total, source = _load_instances(args)
        cfg = EvalConfig(model=provider.label, out_dir=args.out, with_tools=args.with_tools,
                         server_url=args.server_url, max_turns=args.max_turns, concurrency=args.concurrency,
                         timeout=args.timeout, quiet=args.quiet, args=_safe_args(args), source=source,
                         force_resume=args.force_resume)
        summary = asyncio.run(_eval_and_close(cfg, provider, instances, total, judging, retry, judge_provider))
    except RunError as e:
        raise UsageError(str(e)) from None
    except RunStopped as e:
        if e.summary is not None:
            _print_summary(e.summary, args.out, quiet=False)
        _print_err(str(e))
        return 1
    except _mcp_error() as e:
        _print_err(str(e))
        return 1
    _print_summary(summary, args.out, quiet=False)
    return 1 if (summary["n_errors"] or summary.get("n_judge_errors")) else 0


def _mcp_error():
    from .mcp_tools import MCPConnectionError

    return MCPConnectionError


async def _eval_and_close(cfg, provider, instances, total, judging, retry, judge_provider):
    from .runner import run_eval

    try:
        return await run_eval(cfg, provider, instances, total, judging, retry)
    finally:
        await provider.aclose()
        if judge_provider is not None:
            await judge_provider.aclose()


def _print_summary(summary: dict, out_dir: Path, quiet: bool = False) -> None:
    acc = summary.get("accuracy")
    acc_s = f"{100 * acc:.2f}%" if acc is not None else "n/a"
    line = (f"{summary.get('model')} [{summary.get('mode')}]: accuracy {acc_s} "
            f"({summary['n_correct']}/{summary['n_scored']} scored, {summary.get('n_unscored', 0)} unscored, "
            f"{summary['n']} instances, {summary['n_errors']} errors)")
    print(line)
    agreement = summary.get("agreement")
    if agreement:
        k = agreement.get("cohen_kappa")
        print(f"judge agreement (rules vs llm): {100 * agreement['raw_agreement']:.1f}% over {agreement['n']}, "
              f"Cohen's kappa {k:.3f}" if k is not None else
              f"judge agreement (rules vs llm): {100 * agreement['raw_agreement']:.1f}% over {agreement['n']}")
    if summary["n_errors"]:
        print(f"{summary['n_errors']} instances failed (recorded as errors, not as wrong answers); "
              f"re-run the same command to retry them", file=sys.stderr)
    if summary.get("n_judge_errors"):
        print(f"{summary['n_judge_errors']} answers are unscored because the judge request failed; re-run the same "
              f"command to re-judge them (the model is not asked again)", file=sys.stderr)
    print(f"results: {out_dir / 'results.jsonl'}  summary: {out_dir / 'summary.json'}")


# --------------------------------------------------------------------------------------------- judge
def cmd_judge(args) -> int:
    from .runner import RunError, RunStopped, rejudge

    if not args.run_dir.is_dir():
        raise UsageError(f"{args.run_dir} is not a folder")
    if args.judge_base_url and not args.judge_model:
        raise UsageError("--judge-base-url needs --judge-model")
    retry = _retry(args)
    judging, jp = _judging(args, retry)

    async def go():
        try:
            return await rejudge(args.run_dir, judging, args.concurrency)
        finally:
            if jp is not None:
                await jp.aclose()

    try:
        summary = asyncio.run(go())
    except RunError as e:
        raise UsageError(str(e)) from None
    except RunStopped as e:
        _print_err(str(e))
        return 1
    _print_summary(summary, args.run_dir)
    return 1 if summary.get("n_judge_errors") else 0


# --------------------------------------------------------------------------------------------- tools
def _tool_arguments(args) -> dict:
    out: dict[str, Any] = {}
    if args.args_json:
        try:
            value = json.loads(args.args_json)
        except ValueError as e:
            raise UsageError(f"--args is not valid JSON: {e}") from None
        if not isinstance(value, dict):
            raise UsageError("--args must be a JSON object, e.g. '{\"calendar\": \"hebrew\", \"year\": 5785}'")
        out.update(value)
    for pair in args.pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected key=value, got {pair!r}")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


async def _with_mcp(server_url: str | None, fn):
    import tempfile

    from .mcp_tools import MCPConnectionError, MCPTools

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            async with MCPTools(server_url, errlog=errlog) as mcp:
                return await fn(mcp)
        except MCPConnectionError as e:
            errlog.seek(0)
            tail = errlog.read()[-2000:].strip()
            raise MCPConnectionError(f"{e}" + (f"\n--- server stderr ---\n{tail}" if tail else "")) from None


def cmd_tools_list(args) -> int:
    from .mcp_tools import MCPConnectionError

    async def go(mcp):
        return mcp.tools

    try:
        tools = asyncio.run(_with_mcp(args.server_url, go))
    except MCPConnectionError as e:
        _print_err(str(e))
        return 1
    if args.json:
        print(json.dumps([{"name": t.name, "title": t.title, "description": t.description,
                           "input_schema": t.input_schema, "output_schema": t.output_schema} for t in tools],
                         indent=2, ensure_ascii=False))
        return 0
    for t in tools:
        title = f" — {t.title}" if t.title else ""
        print(f"{t.name}{title}")
        desc = " ".join((t.description or "").split())
        if desc:
            first = desc.split(". ")[0].rstrip(".") + "."
            print(f"    {first if len(first) <= 200 else first[:197] + '...'}")
        props = (t.input_schema or {}).get("properties", {})
        required = set((t.input_schema or {}).get("required", []))
        if props:
            print("    arguments: " + ", ".join(f"{k}{'' if k in required else '?'}" for k in props))
    return 0


def cmd_tools_call(args) -> int:
    from .mcp_tools import MCPConnectionError

    arguments = _tool_arguments(args)

    async def go(mcp):
        return await mcp.call(args.name, arguments)

    try:
        text, is_error, structured = asyncio.run(_with_mcp(args.server_url, go))
    except MCPConnectionError as e:
        _print_err(str(e))
        return 1
    if is_error:
        if args.json:
            print(json.dumps({"error": text}, ensure_ascii=False))
        print(f"span-client: {args.name}: {text}", file=sys.stderr)
        return 1
    value: Any = structured if structured is not None else text
    if args.json:
        if structured is None:
            try:
                value = json.loads(text)
            except ValueError:
                value = {"text": text}
        print(json.dumps(value, indent=2, ensure_ascii=False))
    elif structured is not None:
        _print_tree(structured)
    else:
        print(text)
    return 0


def _print_tree(value: Any, indent: int = 0) -> None:
    pad = "  " * indent
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict) and "display" in v and "calendar" in v:
                print(f"{pad}{k}: {v['display']}  ({v.get('numeric', '')})")
            elif isinstance(v, (dict, list)) and v:
                print(f"{pad}{k}:")
                _print_tree(v, indent + 1)
            else:
                print(f"{pad}{k}: {_scalar(v)}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                print(f"{pad}-")
                _print_tree(v, indent + 1)
            else:
                print(f"{pad}- {_scalar(v)}")
    else:
        print(f"{pad}{_scalar(value)}")


def _scalar(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


# --------------------------------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    from .judges import rules  # noqa: F401 - fail early with a clear message if the judges are missing
    from .runner import EvalConfig, Judging, RetryPolicy, RunError, RunStopped, generate_instances, run_eval

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    spec = {"date": args.date, "sample": args.sample, "seed": args.seed if args.sample else None}
    demo_json = out / "demo.json"
    if demo_json.exists():  # a demo folder resumes only the same demo: never mix two dates or samples
        try:
            prev = json.loads(demo_json.read_text(encoding="utf-8"))
        except ValueError:
            prev = None
        if prev != spec:
            raise UsageError(f"--out {out} holds the demo of {_demo_label(prev)}, not {_demo_label(spec)}; "
                             f"use another --out (or the same --date/--sample/--seed to resume it)")
    try:
        instances = generate_instances([args.date], args.sample, args.seed)
    except RunError as e:
        raise UsageError(str(e)) from None
    out.mkdir(parents=True, exist_ok=True)
    from .runner import atomic_write_json, atomic_write_text

    atomic_write_json(demo_json, spec)
    inst_path = out / f"instances-{args.date}.jsonl"
    atomic_write_text(inst_path, "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances))
    print(f"{len(instances)} instances for {args.date} -> {inst_path}")
    runs = [("baseline", False, out / "baseline-unaided"), ("reference", True, out / "reference-with_tools")]
    summaries = {}
    for model, tools, run_dir in runs:
        provider = _provider(model)
        cfg = EvalConfig(model=model, out_dir=run_dir, with_tools=tools, server_url=args.server_url,
                         concurrency=args.concurrency, quiet=args.quiet, timeout=60.0,
                         args={"command": "demo", "model": model, "with_tools": tools, "date": args.date,
                               "sample": args.sample, "seed": args.seed, "instances": str(inst_path)},
                         source={"kind": "dates", "dates": [args.date], "sample": args.sample,
                                 "seed": args.seed if args.sample else None})
        try:
            summaries[model] = asyncio.run(run_eval(cfg, provider, instances, len(instances), Judging(),
                                                    RetryPolicy(max_retries=0)))
        except RunError as e:
            raise UsageError(str(e)) from None
        except RunStopped as e:
            _print_err(str(e))
            return 1
        except _mcp_error() as e:
            _print_err(str(e))
            return 1
        _print_summary(summaries[model], run_dir)
    rc = _demo_report(out, [r[2] for r in runs], ["--no-figures"] if args.no_figures else [])
    b, r = summaries["baseline"], summaries["reference"]
    fmt = lambda s: f"{100 * s['accuracy']:.2f}%" if s.get("accuracy") is not None else "n/a"  # noqa: E731
    print(f"\nSPAN {args.date}: baseline (unaided, not an LLM) {fmt(b)}  ->  reference agent with the MCP tools "
          f"(not an LLM) {fmt(r)}")
    return 1 if (b["n_errors"] or r["n_errors"] or rc) else 0


def _demo_label(spec: Any) -> str:
    if not isinstance(spec, dict):
        return "an unreadable demo.json"
    text = str(spec.get("date"))
    if spec.get("sample"):
        text += f" (sample {spec['sample']}, seed {spec.get('seed')})"
    else:
        text += " (all instances)"
    return text


def _demo_report(out: Path, run_dirs: list[Path], extra: list[str]) -> int:
    try:
        import importlib

        module = importlib.import_module(LAZY_COMMANDS["report"][0])
    except ImportError as e:
        print(f"(report skipped: `span-client report` is not available: {e})", file=sys.stderr)
        return 0
    p = argparse.ArgumentParser(prog="span-client report")
    module.configure(p)
    report_dir = out / "report"
    try:
        # offline: the agents are not LLMs, so tiktoken counts (which download a file) add nothing here
        rargs = p.parse_args([*map(str, run_dirs), "--out", str(report_dir), "--no-tiktoken", *extra])
    except SystemExit:
        print("(report skipped: could not build the report command's arguments)", file=sys.stderr)
        return 0
    return int(module.run(rargs) or 0)
