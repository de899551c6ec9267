"""`span-client report`: the paper's analyses (breakdowns, significance, tokens, figures) for runs.

The command lives in client.report.command (`configure(parser)`, `run(args) -> int`); these
wrappers import it lazily so that `python -m client.report.command` runs cleanly.
"""


def configure(parser) -> None:
    from .command import configure as _configure
    _configure(parser)


def run(args) -> int:
    from .command import run as _run
    return _run(args)


__all__ = ["configure", "run"]
