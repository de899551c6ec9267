"""What the subcommands share: the one-line usage error, argument types, the date cap, secret flags, and
the printed summary of a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..providers.registry import is_placeholder_key
from ..rundir import RunFolder


# the arguments span-client was started with (set by client.cli.main): the resume command repeats them
INVOKED: list[str] = []


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


# More evaluation dates than this is refused unless asked for (--max-dates): a typo in a range
# (1906-01-01..2094-01-01/1d is 68,667 dates, 122 M instances) must not start hours of work.
MAX_DATES = 500


def check_date_count(dates: list, cap: int, n_instances: int, approximate: bool = False) -> None:
    from span_toolkit.span.benchmark import GeneratorError

    if len(dates) > cap:
        many = f"{'about ' if approximate else ''}{n_instances:,} instances"
        raise GeneratorError(f"{len(dates):,} evaluation dates ({many}) is more than --max-dates "
                             f"{cap:,}; use a larger step (e.g. /1m, /1y) or fewer dates, or raise --max-dates to "
                             f"{len(dates)} if you mean it")


def add_generation_arguments(parser, *, note: str = "") -> None:
    """The options of a GenerationRequest (span.benchmark.request) as flags, the same for every command that
    generates: --families (with --extended as shorthand), --calendars, --islamic-convention,
    --polar-negatives, --date-formats, --exclude-disputed. `note` is said in each help (e.g. "with
    --date/--dates: "). Read them back with generation_request(args)."""
    from span_toolkit.span.benchmark import (FAMILIES, ISLAMIC_CONVENTIONS, NON_GREGORIAN, UQ_MAX_EVAL_DATE,
                                             UQ_MIN_EVAL_DATE)

    listed = "; ".join(f"{name}: {fam.summary}" for name, fam in FAMILIES.items())
    parser.add_argument("--families", metavar="NAMES",
                        help=f"{note}task families to generate, comma-separated (default: paper). {listed}")
    parser.add_argument("--extended", action="store_true",
                        help=f"{note}shorthand for adding 'extended' to --families: the tasks beyond the paper "
                             f"(cross-calendar ordering and duration questions); the paper's instances stay exactly "
                             f"as they are")
    parser.add_argument("--calendars", metavar="NAMES",
                        help=f"{note}the non-Gregorian calendars the paper family's questions pair with Gregorian, "
                             f"comma-separated (default: the paper's {', '.join(NON_GREGORIAN)}); any calendar of "
                             f"`span-client tools list_calendars`")
    parser.add_argument("--islamic-convention", choices=ISLAMIC_CONVENTIONS, default="tabular",
                        help=f"{note}the calendar of the Islamic side of every question: tabular (the paper's "
                             f"arithmetic Islamic calendar; default) or umm_al_qura (Saudi Arabia's civil calendar, "
                             f"questions say 'Islamic (Umm al-Qura)'; evaluation dates {UQ_MIN_EVAL_DATE.isoformat()} "
                             f".. {UQ_MAX_EVAL_DATE.isoformat()})")
    parser.add_argument("--polar-negatives", action="store_true",
                        help=f"{note}give half of the polar questions a near-miss expected date (gold 'No'); "
                             f"default: the paper's protocol, every polar answer 'Yes'")
    parser.add_argument("--date-formats", action="store_true",
                        help=f"{note}also every instance with its reference date in the other written formats of its "
                             f"calendar (ISO, DD/MM/YYYY, MM/DD/YYYY, compact digits, month names ...)")
    parser.add_argument("--family-option", action="append", metavar="NAME[=VALUE]", dest="family_options",
                        help=f"{note}a task family's own option, named <family>_<option> (repeatable; a bare "
                             f"NAME is true), e.g. dateaug_ambiguous; the family's page says which it has")
    parser.add_argument("--exclude-disputed", action="store_true",
                        help=f"{note}leave out the instances whose gold depends on a day the calendar's independent "
                             f"sources dispute (default: keep them, marked with 'disputed': the other reading and why)")


GENERATION_FLAGS = {"--families": "families", "--extended": "extended", "--calendars": "calendars",
                    "--islamic-convention": "islamic_convention", "--polar-negatives": "polar_negatives",
                    "--date-formats": "date_formats", "--exclude-disputed": "exclude_disputed",
                    "--family-option": "family_options"}


def generation_request(args, **fields):
    """The GenerationRequest the command line asks for, built once (fields such as seed and sample given by
    the caller). Bad values raise GeneratorError with one line saying what is valid."""
    from span_toolkit.span.benchmark import GenerationRequest

    families = args.families if getattr(args, "families", None) is not None else "paper"
    request = GenerationRequest(
        families=families, islamic_convention=getattr(args, "islamic_convention", "tabular"),
        **({"calendars": args.calendars} if getattr(args, "calendars", None) is not None else {}),
        polar_negatives=bool(getattr(args, "polar_negatives", False)),
        date_formats=bool(getattr(args, "date_formats", False)),
        exclude_disputed=bool(getattr(args, "exclude_disputed", False)),
        family_options=getattr(args, "family_options", None) or {}, **fields)
    return request.with_families(["extended"]) if getattr(args, "extended", False) else request


def generation_flags_given(args) -> list[str]:
    """The generation flags given on this command line (they mean nothing with an --instances file)."""
    given = []
    for flag, dest in GENERATION_FLAGS.items():
        value = getattr(args, dest, None)
        if value not in (None, False, "tabular"):
            given.append(flag)
    return given


def add_cache_arguments(group, what: str) -> None:
    """--cache and --cache-dir, the same for eval and judge; ``what`` says which requests are cached."""
    group.add_argument("--cache", action="store_true",
                       help=f"answer {what} seen before from the response cache instead of asking again, in any run "
                            f"folder; errors are never cached")
    group.add_argument("--cache-dir", type=Path, metavar="DIR",
                       help="the response cache's folder (implies --cache; default $XDG_CACHE_HOME/span-toolkit or "
                            "~/.cache/span-toolkit)")


def print_err(msg: str) -> None:
    print(f"span-client: error: {msg}", file=sys.stderr)


def print_warning(msg: str) -> None:
    print(f"span-client: warning: {msg}", file=sys.stderr)


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """argparse's own errors (missing, unknown or bad values) as one line on stderr, exit 2 — not the whole
    usage text."""

    def error(message: str):
        sys.stderr.write(f"{parser.prog}: error: {message} (see {parser.prog} --help)\n")
        sys.exit(2)

    parser.error = error  # type: ignore[method-assign]
    return parser


def iso_date(text: str) -> str:
    """One evaluation date (YYYY-MM-DD), validated by the generator (supported range)."""
    found = dates_arg(text)
    if len(found) != 1:
        raise argparse.ArgumentTypeError(f"expected one date as YYYY-MM-DD, got {text!r} (use --dates for several)")
    return found[0]


def dates_arg(text: str) -> list[str]:
    """Dates via the generator's parser: a date, a comma list, a range 1960-07-01..2060-07-01/5y, or 'paper'."""
    from span_toolkit.span.benchmark import parse_dates_spec

    try:
        return [d.isoformat() for d in parse_dates_spec(text)]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def temperature(text: str):
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


# flags that carry a secret -> the environment variable to use instead
SECRET_FLAGS = {"api_key": ("--api-key", "OPENAI_API_KEY or ANTHROPIC_API_KEY (by provider)"),
                "judge_api_key": ("--judge-api-key", "OPENAI_API_KEY or ANTHROPIC_API_KEY (by provider)"),
                "server_token": ("--server-token", "SPAN_SERVER_TOKEN")}


def warn_secret_flags(args) -> None:
    """A key given as a flag is in this process's command line, which every local process can read
    (/proc/<pid>/cmdline, ps): say so once per flag, and what to use instead."""
    for dest, (flag, env) in SECRET_FLAGS.items():
        value = getattr(args, dest, None)
        if value and not (dest != "server_token" and is_placeholder_key(value)):  # --api-key none: no secret
            print(f"span-client: warning: {flag} puts the secret on the command line, where every process on "
                  f"this machine can read it; set {env} in the environment instead", file=sys.stderr)


def mask_secret_flags(argv: list[str]) -> list[str]:
    """argv with the values of secret flags replaced by '***' (for anything printed or recorded)."""
    flags = {flag for flag, _ in SECRET_FLAGS.values()}
    out, hide = [], False
    for a in argv:
        if hide:
            out.append("***")
            hide = False
        elif a in flags:
            out.append(a)
            hide = True
        elif a.split("=", 1)[0] in flags and "=" in a:
            out.append(a.split("=", 1)[0] + "=***")
        else:
            out.append(a)
    return out


def recorded_args(args) -> dict:
    """The parsed command line as run.json records it: secrets only say whether they were given."""
    out = {}
    for k, v in vars(args).items():
        if k in ("func",) or callable(v):
            continue
        if "api_key" in k or "token" in k:
            v = "***" if v else None
        out[k] = str(v) if isinstance(v, Path) else v
    return out


def print_summary(summary: dict, out_dir: Path) -> None:
    acc = summary.get("accuracy")
    acc_s = f"{100 * acc:.2f}%" if acc is not None else "n/a"
    print(f"{summary.get('model')} [{summary.get('mode')}]: accuracy {acc_s} "
          f"({summary['n_correct']}/{summary['n_scored']} scored, {summary.get('n_unscored', 0)} unscored, "
          f"{summary['n']} instances, {summary['n_errors']} errors)")
    by_format = summary.get("by_format")
    if by_format:  # content and polar apart, and how many polar answers were "Yes"
        def acc(part: dict) -> str:
            a = part.get("accuracy")
            return f"{100 * a:.1f}% ({part['n_correct']}/{part['n_scored']})" if a is not None else "n/a"

        pa = by_format.get("polar_answers") or {}
        yes, gold = pa.get("yes_share"), pa.get("gold_yes_share")
        print(f"content {acc(by_format['content'])}, polar {acc(by_format['polar'])}"
              + (f"; \"Yes\" in {100 * yes:.0f}% of polar answers" if yes is not None else "")
              + (f" ({100 * gold:.0f}% of polar golds are \"Yes\")" if gold is not None and yes is not None else ""))
    agreement = summary.get("agreement")
    if agreement:
        k = agreement.get("cohen_kappa")
        print(f"judge agreement (rules vs llm): {100 * agreement['raw_agreement']:.1f}% over {agreement['n']}"
              + (f", Cohen's kappa {k:.3f}" if k is not None else ""))
    if summary.get("prompt_chars_per_request"):
        counted = summary.get("prompt_tokens_per_request")
        print(f"prompt per request: {summary['prompt_chars_per_request']:,.0f} characters"
              + (f", {counted:,.0f} tokens as the provider counted them" if counted else
                 f", ~{summary['prompt_tokens_per_request_estimate']:,.0f} tokens at ~4 characters per token"))
    calls = summary.get("tool_calls")
    if calls:
        print(f"tool calls: {calls['native']} native, {calls['text']} written as text, {calls['unparsed']} "
              f"unusable; {calls['instances_with_calls']} instances used a tool")
    guard = summary.get("loop_guard")
    if guard:
        print(f"loop guard: {guard['repeats_caught']} repeated calls not run again ({guard['instances_with_repeats']} "
              f"instances); {guard['final_turns']} final requests without tools, {guard['final_turn_answers']} "
              f"answered")
    runs = summary.get("code_runs")
    if runs:
        print(f"code runs: {runs['instances_with_code']} instances ran code, {runs['instances_with_failed_code']} "
              f"with a failed execution"
              + (f"; {runs['answers_without_code']} answers without any code run ({runs['code_reminders']} "
                 f"reminded to write a program)" if "answers_without_code" in runs else ""))
    disputed = summary.get("disputed")
    if disputed:
        print(f"{disputed['n']} instances depend on a day the calendar's sources dispute ({disputed['n_correct']} "
              f"answered as the gold says; README 'How correctness is checked'); --exclude-disputed leaves them out")
    for w in summary.get("warnings") or []:
        print(f"WARNING: {w}", file=sys.stderr)
    if summary["n_errors"]:
        kinds = summary.get("errors_by_kind") or {}
        detail = f" ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))})" if kinds else ""
        print(f"{summary['n_errors']} instances failed{detail} (recorded as errors, not as wrong answers); "
              f"re-run the same command to retry them", file=sys.stderr)
    if summary.get("n_judge_errors"):
        print(f"{summary['n_judge_errors']} answers are unscored because the judge request failed; re-run the same "
              f"command to re-judge them (the model is not asked again)", file=sys.stderr)
    folder = RunFolder(out_dir)
    from ..scale import figures_text

    for line in figures_text(summary):  # attempts (--epochs), cost, requests sent and cache hits
        print(line)
    print(f"results: {folder.results_path}  summary: {folder.summary_path}")
