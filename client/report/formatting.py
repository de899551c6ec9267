"""How the report writes numbers and tables (shared by report.md's sections)."""

from __future__ import annotations


def pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{100 * x:.{digits}f}%"


def num(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def signed(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:+.{digits}f}"


def cell(c: dict | None) -> str:
    """'45.2% (113/250)' plus what is outside the denominator."""
    if not c or not c.get("n"):
        return "–"
    s = f"{pct(c['accuracy'])} ({c['n_correct']}/{c['n_scored']})"
    extra = []
    if c.get("n_unscored"):
        extra.append(f"{c['n_unscored']} unscored")
    if extra:
        s += " [" + ", ".join(extra) + "]"
    return s


def md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    esc = lambda x: str(x).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    align = align or ("l" + "r" * (len(header) - 1))
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in align]
    lines = ["| " + " | ".join(esc(h) for h in header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def mode_label(mode: str) -> str:
    return mode.replace("_", " ")
