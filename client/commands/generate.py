"""`span-client generate`: SPAN benchmark instances as JSON Lines.

    span-client generate --date 2025-07-01 --out instances.jsonl
    span-client generate --dates 1960-07-01..2060-07-01/5y --out paper.jsonl      # the paper's 21 dates
    span-client generate --dates paper --sample 200 --seed 1 --out -              # stratified sample to stdout
    span-client generate --date 2025-07-01 --islamic-convention umm_al_qura --out uq.jsonl   # Saudi calendar
    span-client generate --date 2025-07-01 --families paper,extended --out all.jsonl   # + ordering/duration
    span-client generate --date 2025-07-01 --calendars hebrew,julian --out hj.jsonl    # other calendar sides

The options become one GenerationRequest (span.benchmark.request), built here once and handed whole to
the generator.

Bad input (unreadable or out-of-range date, empty range, bad option value, more dates than --max-dates)
prints one line on stderr and exits with status 2; a file is written to a temporary name and renamed only
when complete, so a failed, interrupted (Ctrl-C) or terminated (SIGTERM) run leaves nothing behind.
"""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import tempfile

from span_toolkit.span.benchmark import (MAX_EVAL_DATE, MIN_EVAL_DATE, UQ_MAX_EVAL_DATE, UQ_MIN_EVAL_DATE,
                                         GeneratorError, check_request_date, count_instances, parse_dates_spec)
from span_toolkit.span.benchmark.jsonl import iter_lines

from .argtypes import any_int, positive_int
from .common import MAX_DATES, add_generation_arguments, check_date_count, generation_request, one_line_errors



_positive_int = positive_int
_int = any_int


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Generate the SPAN benchmark (the paper's 12 question-code templates; 1,780 instances per "
        "evaluation date, gold answers by executing each instance's code) as JSON Lines. "
        f"Supported evaluation dates: {MIN_EVAL_DATE.isoformat()} .. {MAX_EVAL_DATE.isoformat()} "
        f"({UQ_MIN_EVAL_DATE.isoformat()} .. {UQ_MAX_EVAL_DATE.isoformat()} with --islamic-convention umm_al_qura).")
    # argparse's own errors (missing/unknown/bad values) also become one line on stderr, exit 2
    one_line_errors(parser)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--date", metavar="YYYY-MM-DD", help="one evaluation date (Gregorian), e.g. 2025-07-01")
    which.add_argument("--dates", metavar="SPEC",
                       help="several dates: a comma list (1990-07-01,2025-07-01), a range START..END[/STEP] "
                            "with STEP Nd, Nw, Nm or Ny (1960-07-01..2060-07-01/5y; default 1d), or 'paper' "
                            "(July 1 of every fifth year 1960-2060, the paper's 21 dates)")
    parser.add_argument("--out", "-o", default="-", metavar="PATH",
                        help="output JSONL file, or - for standard output (default)")
    parser.add_argument("--sample", type=_positive_int, metavar="N",
                        help="write a stratified sample of N instances (every direction, reasoning type, "
                             "question format and date format represented) instead of all")
    parser.add_argument("--seed", type=_int, default=0, metavar="S",
                        help="seed for --sample and --polar-negatives (default 0)")
    add_generation_arguments(parser)
    parser.add_argument("--force", action="store_true", help="overwrite --out if the file exists")
    parser.add_argument("--max-dates", type=_positive_int, default=MAX_DATES, metavar="N",
                        help=f"refuse more evaluation dates than this (default {MAX_DATES:,}: each date is 1,780 "
                             f"instances, ~3 MB of JSON Lines; raise it for a bigger range on purpose)")
    parser.add_argument("--jobs", "-j", type=_positive_int, default=1, metavar="N",
                        help="worker processes (whole dates per worker; output identical for any N; default 1)")


def _lines(request, dates, jobs: int):
    return iter_lines(dates, request, jobs=jobs)


def run(args) -> int:
    try:
        request = generation_request(args, seed=args.seed, sample=args.sample)  # the one request, built once
        dates = parse_dates_spec(args.date if args.date is not None else args.dates,
                                 islamic_convention=request.islamic_convention)
        if not dates:
            raise GeneratorError("the date range contains no dates")
        if args.date is not None and len(dates) != 1:
            raise GeneratorError(f"--date takes one date, got {args.date!r}; use --dates for lists and ranges")
        total = count_instances(dates[:1], request) * len(dates)
        check_date_count(dates, args.max_dates, total, request.date_formats)
        for d in dates:
            check_request_date(d, request)
    except GeneratorError as exc:
        print(f"span-client generate: error: {exc}", file=sys.stderr)
        return 2
    if args.sample is not None and args.sample >= total:
        print(f"span-client generate: note: --sample {args.sample} is not fewer than the {total:,} instances of "
              f"{'this date' if len(dates) == 1 else 'these dates'}: all of them are written", file=sys.stderr)
    # standard output by name is standard output (it may be a pipe, which has no path to write a file beside)
    out = "-" if args.out in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1") else args.out
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        if out == "-":
            try:
                for line in _lines(request, dates, args.jobs):
                    sys.stdout.write(line + "\n")
                sys.stdout.flush()
            except BrokenPipeError:  # e.g. piped into `head`
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            return 0
        # A symlink is written through (the file it names is replaced, the link stays), and the temporary
        # file goes beside that file, so the final rename never crosses file systems.
        target = os.path.realpath(out)
        directory = os.path.dirname(target)
        if not os.path.isdir(directory):
            print(f"span-client generate: error: output directory {directory!r} does not exist", file=sys.stderr)
            return 2
        if os.path.isdir(target):
            print(f"span-client generate: error: --out {out!r} is a directory", file=sys.stderr)
            return 2
        kind = _not_a_file(target)
        if kind:
            # the rename below would put a regular file where the device was (as root: /dev/null for everyone)
            print(f"span-client generate: error: --out {out!r} is {kind}, not a regular file; give a file path, or "
                  f"--out - to write to standard output", file=sys.stderr)
            return 2
        if os.path.exists(target) and not args.force:
            print(f"span-client generate: error: --out {out!r} exists; add --force to overwrite it, or choose "
                  f"another file", file=sys.stderr)
            return 2
        # mkstemp creates it 0600, and so it stays: instances hold the gold answers (a model's code must not
        # find them; share the file on purpose with chmod)
        fd, tmp = tempfile.mkstemp(prefix=".span-generate-", suffix=".jsonl.part", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                for line in _lines(request, dates, args.jobs):
                    f.write(line + "\n")
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return 0
    except GeneratorError as exc:
        print(f"span-client generate: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"span-client generate: error: cannot write {out!r}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("span-client generate: interrupted; nothing written", file=sys.stderr)
        return 130
    except _Terminated:
        print("span-client generate: terminated (SIGTERM); nothing written", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)


def _not_a_file(path: str) -> str | None:
    """What ``path`` is when it exists and is not a regular file (a device, a FIFO, a socket), else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file"


class _Terminated(BaseException):
    """SIGTERM, raised where the generator is, so the partial file is removed on the way out."""


def _terminated(_signum, _frame):
    raise _Terminated()


def main(argv=None) -> int:
    from . import COMMANDS

    parser = argparse.ArgumentParser(prog="span-client generate", description=COMMANDS["generate"][1])
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
