"""`span-client eval`: ask a model every instance — unaided, with the MCP tools, or as the paper's Time
Agent — judge, and write a run folder (resumable)."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shlex
import sys
from pathlib import Path

from ..dataset import DatasetError
from ..mcp_tools import TOKEN_ENV, MCPConnectionError
from ..models import ModelRef, ModelSpecError, check_mode, parse_model, provider_choices
from ..multimodel import model_folders, split_models
from ..rundir import RunFolder, RunFolderError
from ..runner import RunInterrupted, RunStopped, run_eval
from ..scale import check_scale
from ..sandbox import KINDS, SandboxError
from ..providers.thinking import EFFORTS
from ..spec import TOOL_CALL_MODES, RunSpec
from . import common
from .argtypes import base_url, concurrency_int, epochs_int, nonneg_float, nonneg_int, positive_float, positive_int


EPILOG = ("exit status: 0 every instance answered and judged; 1 some instances failed (recorded as errors, not "
          "wrong answers; re-run to retry), some answers are unscored because the judge request failed (re-run "
          "to re-judge them), the run was stopped early (401/403/404 from the model or the judge, 5 identical "
          "non-retryable errors in a row, a prompt that overflows the model's context, an endpoint that stopped "
          "answering, --budget reached: what is not asked yet stays unasked, re-run to resume), or the model endpoint or the MCP "
          "server could not be reached; 2 bad input, or an --out folder holding a run with other settings; 130 "
          "interrupted (Ctrl-C; re-run to resume).")


def configure(ev: argparse.ArgumentParser) -> None:
    ev.description = ("Evaluate a model on SPAN instances. Re-running with the same --out resumes: finished "
                      "instances are skipped, failed ones are asked again.")
    ev.epilog = EPILOG
    ev.add_argument("--model", required=True, action="append", metavar="PROVIDER/MODEL",
                    help=f"{provider_choices()}, or the "
                         "offline scripted agents (not LLMs): 'reference' (answers only through the MCP tools; "
                         "--with-tools), 'reference-code' (writes Python for the Time Agent's sandbox; "
                         "--time-agent) and 'baseline' (unaided floor). Repeat it, or give a comma list, for several "
                         "models: they run one after another, each into its own run folder under --out "
                         "(--out/PROVIDER--MODEL), and one report of them all is written to --out/report")
    ev.add_argument("--base-url", type=base_url, metavar="URL", help="API base URL (openai-compatible: e.g. http://localhost:8000/v1)")
    ev.add_argument("--api-key", metavar="KEY",
                    help="API key (default: ANTHROPIC_API_KEY / OPENAI_API_KEY; prefer those: a flag is visible to "
                         "every local process)")
    ev.add_argument("--temperature", type=common.temperature, default=None, metavar="T|none",
                    help="sampling temperature (default: 0 for OpenAI/compatible, as the paper's greedy decoding; "
                         "not sent to Anthropic unless given). 'none' sends no temperature (reasoning models reject "
                         "temperature 0; raise --max-tokens for their hidden reasoning)")
    ev.add_argument("--max-tokens", type=positive_int, default=2048, metavar="N", help="max output tokens per model request")
    ev.add_argument("--reasoning-effort", choices=EFFORTS, default=None, metavar="|".join(EFFORTS),
                    help="reasoning effort of an OpenAI reasoning model (sent as reasoning_effort; passed through to "
                         "OpenAI-compatible servers); no temperature is sent with it to OpenAI. Not set: not sent")
    ev.add_argument("--thinking-budget", type=nonneg_int, default=None, metavar="N",
                    help="Anthropic extended thinking: thinking.budget_tokens N (>= 1024; max_tokens is raised above "
                         "it when needed, temperature left at its default); OpenAI-compatible servers: 0 turns the "
                         "chat template's thinking off, N > 0 on (enable_thinking). Not set: not sent")
    ev.add_argument("--drop-thinking", action="store_true",
                    help="keep no thinking text in results.jsonl (its size and reasoning tokens are still recorded; "
                         "the thinking is never judged either way)")
    how = ev.add_mutually_exclusive_group()
    how.add_argument("--with-tools", action="store_true", help="offer the span MCP tools and run the tool-calling loop")
    how.add_argument("--time-agent", action="store_true",
                     help="the paper's Time Agent: the model writes Python calling search_calendar, a sandbox runs "
                          "it, the model answers from the printed output")
    ev.add_argument("--server-url", metavar="URL", help="MCP server URL (streamable HTTP); default: start span-server over stdio")
    ev.add_argument("--server-token", metavar="TOKEN",
                    help=f"bearer token for --server-url (default: the {TOKEN_ENV} environment variable, the same "
                         f"one span-server reads)")
    ev.add_argument("--tools", metavar="NAME[,NAME…]|all",
                    help="the MCP tools offered to the model (default: the server's evaluation set, "
                         "server.tools.EVAL_TOOLS — what every SPAN question needs, ~1,000 tokens of definitions; "
                         "'all': every tool the server lists)")
    ev.add_argument("--tool-calls", choices=TOOL_CALL_MODES, default="auto",
                    help="which tool calls count: native (the API's tool-call field), text (calls written in the "
                         "reply, as open models served without a tool parser do; the tools are then described in "
                         "the system prompt, Hermes style, instead of the API's tools field, which many chat "
                         "templates drop), or auto (both; default)")
    ev.add_argument("--sandbox", type=sandbox_kind, default="auto", metavar="|".join(KINDS),
                    help="--time-agent: where the model's code runs. auto (default): the first of bwrap (bubblewrap) "
                         "and namespaces (as root, without bwrap) that works here; both show the code nothing of "
                         "this machine but the Python runtime (no files, no other process, no network, no socket); "
                         "when neither works --time-agent stops and says what to install. unsafe-process: a limited "
                         "child process that can still read every file and process command line this user can; "
                         "only when asked for by name")
    ev.add_argument("--max-turns", type=positive_int, default=None, metavar="N",
                    help="max model requests per instance with --with-tools (default 8); with --time-agent, max "
                         "code runs per instance (default 2: one run and one retry after an execution error)")
    ev.add_argument("--concurrency", type=concurrency_int, default=8, metavar="N",
                    help="instances in flight (default 8, at most 1024; never more than the instances to do)")
    ev.add_argument("--timeout", type=positive_float, default=120.0, metavar="SECONDS",
                    help="seconds per model request (default 120); a timed-out request is re-sent at most once")
    ev.add_argument("--max-retries", type=nonneg_int, default=6, metavar="N",
                    help="retries per request on 429/5xx/connection errors (default 6)")
    ev.add_argument("--retry-base-delay", type=nonneg_float, default=1.0, metavar="SECONDS",
                    help="first backoff in seconds, doubled each retry, with jitter; Retry-After wins (default 1)")
    ev.add_argument("--max-retry-wait", type=positive_float, default=60.0, metavar="SECONDS",
                    help="longest wait before a retry: backoff and a server's Retry-After are capped to it (default 60)")
    ev.add_argument("--no-preflight", action="store_true",
                    help="skip the check that the model endpoint answers before the first instance")
    ev.add_argument("--out", required=True, type=Path, metavar="DIR", help="run folder (created; re-run to resume)")
    ev.add_argument("--force-resume", action="store_true",
                    help="resume an --out folder even though it was started with other settings, or holds lines "
                         "that are not result records (set aside in results.corrupt); another model or mode is "
                         "always refused")
    src = ev.add_mutually_exclusive_group(required=True)
    src.add_argument("--instances", type=Path, metavar="FILE", help="instances JSONL from `span-client generate`")
    src.add_argument("--date", type=common.iso_date, metavar="YYYY-MM-DD", help="generate the instances of one evaluation date")
    src.add_argument("--dates", type=common.dates_arg, metavar="SPEC",
                     help="several dates: comma list, range (1960-07-01..2060-07-01/5y) or 'paper' (the 21 paper dates)")
    common.add_generation_arguments(ev, note="with --date/--dates: ")
    ev.add_argument("--max-dates", type=positive_int, default=common.MAX_DATES, metavar="N",
                    help=f"refuse more evaluation dates than this (default {common.MAX_DATES:,})")
    ev.add_argument("--sample", type=positive_int, metavar="N", help="evaluate a stratified random sample of N instances")
    ev.add_argument("--seed", type=int, default=0, metavar="S", help="seed for --sample (default 0)")
    ev.add_argument("--judge-model", metavar="PROVIDER/MODEL",
                    help="LLM judge PROVIDER/MODEL (paper Appendix E prompt); the rules judge always runs")
    ev.add_argument("--judge-base-url", type=base_url, metavar="URL", help="base URL for the judge model")
    ev.add_argument("--judge-api-key", metavar="KEY",
                    help="API key for the judge model (prefer the provider's environment variable)")
    ev.add_argument("--quiet", action="store_true", help="no progress output")
    big = ev.add_argument_group("at scale")
    big.add_argument("--epochs", type=epochs_int, default=1, metavar="K",
                     help="ask every instance K times (give a --temperature above 0); results keep every attempt, and "
                          "the summary and report give the mean accuracy, pass@K and pass^K (default 1)")
    common.add_cache_arguments(big, "a request (same model, settings, messages, tools and attempt; the LLM "
                                    "judge's too)")
    big.add_argument("--price-in", type=nonneg_float, metavar="USD",
                     help="USD per million input tokens (default: the dated price table of the known OpenAI and "
                          "Anthropic models, client/pricing.py; other models have an unknown cost without it)")
    big.add_argument("--price-out", type=nonneg_float, metavar="USD", help="USD per million output tokens")
    big.add_argument("--budget", type=positive_float, metavar="USD",
                     help="stop asking new instances once the run has spent this much (what the run folder already "
                          "holds counts; instances in flight finish); exit 1, and re-running with a larger --budget "
                          "resumes. Needs a price")
    big.add_argument("--batch", action="store_true",
                     help="unaided only: send every request through the provider's Batch API (OpenAI Batch API, "
                          "also with --base-url; Anthropic Message Batches): half the price, answers within 24 h, no "
                          "per-request calls; the batch ids are kept in the run folder, so a stopped client resumes "
                          "waiting for the same batch. Refused with --with-tools / --time-agent (each of their "
                          "requests needs the model's previous reply) and with --budget")
    big.add_argument("--batch-poll", type=positive_float, default=30.0, metavar="SECONDS",
                     help="seconds between a batch's status checks (default 30)")


def sandbox_kind(text: str) -> str:
    if text == "process":
        raise argparse.ArgumentTypeError("'process' is now called 'unsafe-process' (the model's code can read this "
                                         "user's files and other processes' command lines there); the default, "
                                         "auto, hides them")
    if text not in KINDS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(KINDS)}, got {text!r}")
    return text


def _mode(args) -> str:
    return "with_tools" if args.with_tools else "time_agent" if args.time_agent else "unaided"


def _check(args, ref: ModelRef) -> None:
    """The command line's own combinations; the scale options are checked with the spec (scale.check_scale,
    which the runner applies too)."""
    mode = _mode(args)
    try:
        check_mode(ref, mode)
    except ModelSpecError as e:
        raise common.UsageError(str(e)) from None
    for flag, value in (("--server-url", args.server_url), ("--tools", args.tools)):
        if value and mode != "with_tools":
            raise common.UsageError(f"{flag} only makes sense with --with-tools")
    if args.server_token and not args.server_url:
        raise common.UsageError("--server-token goes with --server-url (the stdio server needs no token)")
    if args.judge_base_url and not args.judge_model:
        raise common.UsageError("--judge-base-url needs --judge-model")
    given = common.generation_flags_given(args)
    if given and args.instances:
        raise common.UsageError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --date/--dates (an "
                                "--instances file holds what it holds; make one with `span-client generate`)")
    if args.out.exists() and not args.out.is_dir():
        raise common.UsageError(f"--out {args.out} exists and is not a folder")


def _answers_alike(spec: RunSpec) -> bool:
    """Whether every attempt will get the same answer: a scripted agent, or greedy decoding (temperature 0,
    which OpenAI and compatible models get unless --temperature says otherwise; Anthropic gets its own
    default, which samples)."""
    ref = spec.ref
    if not ref.is_llm or spec.temperature == 0:
        return True
    return spec.temperature is None and ref.kind.default_temperature == 0


def models_of(args) -> list[str]:
    try:
        return split_models(args.model)
    except ModelSpecError as e:
        raise common.UsageError(str(e)) from None


def specs_from_args(args) -> list[RunSpec]:
    """One run per model the command line names (each checked before any runs), each with its folder."""
    models = models_of(args)
    try:
        folders = model_folders(args.out, models)
    except ModelSpecError as e:
        raise common.UsageError(str(e)) from None
    return [spec_from_args(args, m, folders[m]) for m in models]


def spec_from_args(args, model: str | None = None, out: Path | None = None) -> RunSpec:
    """The run the command line asks for (of ``model``, into ``out``), checked."""
    model = model or models_of(args)[0]
    out = out or args.out
    try:
        ref = parse_model(model)
    except ModelSpecError as e:
        raise common.UsageError(str(e)) from None
    _check(args, ref)
    dates = tuple([args.date] if args.date else args.dates or ())
    from span_toolkit.span.benchmark import GeneratorError, count_instances, parse_eval_date

    try:
        generation = common.generation_request(args) if dates else None  # the one request of these dates
        if len(dates) > args.max_dates:
            per_date = count_instances([parse_eval_date(dates[0], generation.islamic_convention)], generation)
            common.check_date_count(dates, args.max_dates, per_date * len(dates))
    except GeneratorError as e:
        raise common.UsageError(str(e)) from None
    tools = None
    if args.tools:
        tools = "all" if args.tools == "all" else tuple(t.strip() for t in args.tools.split(",") if t.strip())
    mode = _mode(args)
    spec = RunSpec(
        model=model, out_dir=out, mode=mode, base_url=args.base_url, api_key=args.api_key,
        temperature=args.temperature, max_tokens=args.max_tokens, instances_file=args.instances, dates=dates,
        reasoning_effort=args.reasoning_effort, thinking_budget=args.thinking_budget,
        drop_thinking=args.drop_thinking,
        sample=args.sample, seed=args.seed, generation=generation, server_url=args.server_url,
        server_token=args.server_token or (os.environ.get(TOKEN_ENV) if args.server_url else None),
        tools=tools, tool_calls=args.tool_calls, sandbox=args.sandbox, max_turns=args.max_turns,
        concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries,
        retry_base_delay=args.retry_base_delay, max_retry_wait=args.max_retry_wait, preflight=not args.no_preflight,
        judge_model=args.judge_model, judge_base_url=args.judge_base_url, judge_api_key=args.judge_api_key,
        epochs=args.epochs, cache=args.cache, cache_dir=args.cache_dir, price_in=args.price_in,
        price_out=args.price_out, budget=args.budget, batch=args.batch, batch_poll=args.batch_poll,
        force_resume=args.force_resume, quiet=args.quiet, command=common.recorded_args(args))
    try:
        check_scale(spec, spec.ref)
    except ModelSpecError as e:
        raise common.UsageError(str(e)) from None
    return spec


def run(args) -> int:
    specs = specs_from_args(args)
    common.warn_secret_flags(args)
    if args.epochs > 1:
        same = [s.model for s in specs if _answers_alike(s)]
        if same:
            common.print_warning(f"--epochs {args.epochs}: {', '.join(same)} will give the same answer every time "
                                 f"(greedy decoding at temperature 0, or an offline scripted agent), so pass@"
                                 f"{args.epochs} and pass^{args.epochs} will equal the accuracy; sample with "
                                 f"--temperature above 0 (e.g. 0.7)")
    if args.time_agent and args.sandbox == "unsafe-process":
        print("span-client: warning: --sandbox unsafe-process: the model's code can read every file and process "
              "command line this user can read (instances, run folders, keys given as flags)", file=sys.stderr)
    if len(specs) == 1:
        return execute(specs[0])[0]
    return execute_several(specs, args.out)


def execute_several(specs: list[RunSpec], out: Path) -> int:
    """Each model's run in turn (one stopping does not stop the next: each has its own endpoint and folder),
    then one report of every run folder that has results; the worst exit status."""
    from ..report.command import write_report

    statuses = []
    for n, spec in enumerate(specs, start=1):
        if not spec.quiet:
            print(f"== {spec.model} ({n}/{len(specs)}) -> {spec.out_dir}")
        try:
            statuses.append(execute(spec)[0])
        except common.UsageError as e:  # this model's run cannot start: say so, go on with the others
            common.print_err(f"{spec.model}: {e}")
            statuses.append(2)
        if statuses[-1] == 130:
            break  # Ctrl-C stops the whole command, not one model
    done = [s.out_dir for s in specs if RunFolder(s.out_dir).has_results()]
    if done:
        rc = write_report(done, out / "report", with_figures=False, quiet=specs[0].quiet)
        if rc == 0 and not specs[0].quiet:
            print(f"report of {len(done)} models: {out / 'report' / 'report.md'}")
    not_run = [s.model for s, st in zip(specs, statuses) if st == 2]
    if not_run:
        common.print_err(f"not run: {', '.join(not_run)} (see above)")
    return max(statuses + [0]) if 130 not in statuses else 130


def execute(spec: RunSpec) -> tuple[int, dict | None]:
    """Run, print the summary; (exit status, summary) — shared with `demo`."""
    from ..preflight import EndpointCheckError

    try:
        summary = asyncio.run(run_eval(spec))
    except (RunFolderError, ModelSpecError, DatasetError, SandboxError) as e:
        raise common.UsageError(str(e)) from None
    except RunInterrupted as e:
        if e.summary is not None:
            common.print_summary(e.summary, spec.out_dir)
        print(f"span-client: {e}\nresume with: {resume_command()}", file=sys.stderr)
        return 130, e.summary
    except RunStopped as e:
        if e.summary is not None:
            common.print_summary(e.summary, spec.out_dir)
        common.print_err(str(e))
        if spec.budget is not None and e.budget_spent is not None:
            # the same --budget would stop again at once; offer more than is spent already (requests in
            # flight may have overshot it), at least twice the budget
            more = math.ceil(max(2 * spec.budget, e.budget_spent + spec.budget) * 1e4) / 1e4
            print(f"resume with a larger budget, e.g.: {resume_command({'--budget': f'{more:g}'})}", file=sys.stderr)
        else:
            print(f"resume with: {resume_command()}", file=sys.stderr)
        return 1, e.summary
    except (MCPConnectionError, EndpointCheckError) as e:
        common.print_err(str(e))
        return 1, None
    common.print_summary(summary, spec.out_dir)
    return (1 if (summary["n_errors"] or summary.get("n_judge_errors")) else 0), summary


def resume_command(replace: dict[str, str] | None = None) -> str:
    """The command as the user typed it (keys masked), with the values of ``replace``'s flags changed."""
    if not common.INVOKED:
        return "the same command" + (" with " + ", ".join(f"{k} {v}" for k, v in replace.items()) if replace else "")
    argv = common.mask_secret_flags(common.INVOKED)
    note = " (with your key for ***)" if argv != common.INVOKED else ""
    for flag, value in (replace or {}).items():
        argv = _with_value(argv, flag, value)
    return "span-client " + " ".join(shlex.quote(a) for a in argv) + note


def _with_value(argv: list[str], flag: str, value: str) -> list[str]:
    """argv with ``flag``'s value replaced, however it was written: ``--budget 1``, ``--budget=1`` or an
    abbreviation argparse accepted (``--budg 1``)."""
    def names_flag(word: str) -> bool:
        return len(word) > 2 and word.startswith("--") and flag.startswith(word)

    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        name, eq, _ = a.partition("=")
        if names_flag(name) and eq:
            out.append(f"{flag}={value}")
        elif names_flag(a) and i + 1 < len(argv):
            out += [flag, value]
            i += 1
        else:
            out.append(a)
        i += 1
    return out
