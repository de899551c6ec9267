"""``span-client``: the command line. Builds the parser from client.commands, runs one subcommand, and turns
every failure a user can cause into one line on stderr (exit 2), never a traceback.

Flow of an evaluation (see the README's "How it fits together"): dataset (client.dataset) -> solver
(client.solvers, asking a provider from client.providers, with the MCP tools from client.mcp_tools or the
sandbox of client.sandbox) -> scorer (client.scorer, client.judges) -> run folder (client.rundir) -> report
(client.report).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from typing import Sequence

from .commands import COMMANDS, EVAL_EXTRA_MODULES, NEEDS_EVAL_EXTRA
from .commands import common
from .commands.common import UsageError, one_line_errors, print_err
from .commands.tools import reorder_call_args

def _version() -> str:
    from . import __version__

    return __version__


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, just that subcommand is configured (its module alone is imported)."""
    parser = one_line_errors(argparse.ArgumentParser(
        prog="span-client",
        description="SPAN cross-calendar temporal reasoning: generate instances, evaluate models unaided, with the "
                    "calendar MCP tools or as the paper's Time Agent, judge, report, and query the tools."))
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, summary) in COMMANDS.items():
        p = one_line_errors(sub.add_parser(name, help=summary, description=summary))
        p.prog = f"span-client {name}"
        if only is None or name == only:
            module = importlib.import_module(module_name)
            module.configure(p)
            p.set_defaults(func=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    common.INVOKED[:] = argv
    if not argv or argv[0] not in COMMANDS and not argv[0].startswith("-"):
        parser = build_parser()
        if argv:
            print_err(f"unknown command {argv[0]!r}; commands: {', '.join(COMMANDS)}")
        else:
            parser.print_help(sys.stderr)
        return 2
    command = argv[0] if argv[0] in COMMANDS else None
    if command in NEEDS_EVAL_EXTRA and "-h" not in argv and "--help" not in argv:
        missing = [m for m in EVAL_EXTRA_MODULES if importlib.util.find_spec(m) is None]
        if missing:
            print_err(f"span-client {command} needs the evaluation extra ({', '.join(missing)} not installed): "
                      "pip install 'span-toolkit[eval]'")
            return 2
    argv = reorder_call_args(argv)
    try:
        args = build_parser(command).parse_args(argv)
        if getattr(args, "func", None) is None:
            build_parser().print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except UsageError as e:
        print_err(str(e))
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted; re-run the same command to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `span-client … | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
