"""`span-client report`: the paper's analyses (breakdowns, significance, tokens, figures) for runs."""

from .command import configure, run

__all__ = ["configure", "run"]
