"""`span-client report RUN_DIR… --out DIR`: the paper's breakdowns, significance tests and figures."""

from ..report.command import configure, run


__all__ = ["configure", "run"]
