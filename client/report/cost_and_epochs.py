"""The report's view of a run at scale: several attempts per instance (``--epochs``: mean accuracy, pass@k,
pass^k, overall and per breakdown) and what the run cost (USD per arm and per instance, requests sent,
replies served by the cache, requests answered through a Batch API).

The rest of the report compares arms instance by instance, so it reads one attempt per instance (the
first); this section is where every attempt counts."""

from __future__ import annotations

from typing import Any

from ..passk import attempt_of, epoch_breakdown, epoch_metrics
from ..pricing import format_usd, judge_spend
from .loading import Series

DIMS = ("reasoning_type", "question_format", "direction", "eval_date")


def _cost(attempts: list[dict]) -> dict[str, Any]:
    costs = [a.get("cost_usd") for a in attempts]
    known = [c for c in costs if isinstance(c, (int, float)) and not isinstance(c, bool)]
    n_ids = len({a["id"] for a in attempts})
    recorded = any("cost_usd" in a for a in attempts)
    total = sum(known) if known else (0.0 if recorded else None)
    complete = recorded and len(known) == len(attempts)
    return {
        "recorded": recorded,  # runs before cost accounting have no cost_usd: unknown, not free
        "usd": total if complete else None,
        "usd_known_part": total,
        "n_attempts_unknown_cost": len(attempts) - len(known),
        "usd_per_instance": (total / n_ids) if complete and n_ids else None,
        "requests": sum(int(a.get("requests") or 0) for a in attempts),
        "batch_requests": sum(int(a.get("batch_requests") or 0) for a in attempts),
        "cache_hits": sum(int(a.get("cache_hits") or 0) for a in attempts),
        "judge": judge_spend(attempts),
    }


def scale_block(s: Series) -> dict[str, Any]:
    attempts = s.attempts or s.records
    k = max((attempt_of(a) for a in attempts), default=1)
    block: dict[str, Any] = {"label": s.label, "model": s.model, "mode": s.mode, "epochs": k,
                             "cost": _cost(attempts)}
    if k > 1:
        block["attempts"] = {"overall": epoch_metrics(attempts, k),
                             "by": {d: epoch_breakdown(attempts, k, d) for d in DIMS}}
    return block


def _usd_cell(c: dict) -> str:
    if c["usd"] is not None:
        return format_usd(c["usd"])
    return f"unknown ({format_usd(c['usd_known_part'])} known)" if c["usd_known_part"] else "unknown"


def _p(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def render(blocks: list[dict]) -> list[str]:
    """The report.md lines of this section (none when no run recorded costs or attempts)."""
    out: list[str] = []
    if any(b["cost"]["recorded"] for b in blocks):
        out.append("## Cost\n")
        judged = any(b["cost"]["judge"] for b in blocks)
        out.append("USD billed for the model's requests, from the token counts the provider returned and the "
                   "run's price (`run.json`: `price`); replies served by the response cache cost nothing, Batch "
                   "API requests are billed at the batch price. *unknown*: no price for the model (give "
                   "`--price-in/--price-out`) or a reply without token counts."
                   + (" *Judge USD*: the LLM judge's requests (requests sent / answered by the cache), priced "
                      "from the table; *–*: the run had no LLM judge." if judged else "") + "\n")
        rows = []
        for b in blocks:
            c = b["cost"]
            rows.append([b["label"], _usd_cell(c), format_usd(c["usd_per_instance"]), str(c["requests"]),
                         str(c["batch_requests"]), str(c["cache_hits"])])
            if judged:
                j = c["judge"]
                rows[-1].append(f"{_usd_cell(j)} ({j['requests']} / {j['cache_hits']})" if j else "–")
        out.append(_table(["Series", "USD", "USD / instance", "Requests sent", "Batch requests", "Cache hits",
                           *(["Judge USD"] if judged else [])], rows))
        out.append("")
    multi = [b for b in blocks if b.get("attempts")]
    if multi:
        out.append("## Several attempts per instance (--epochs)\n")
        out.append("Mean accuracy over every scored attempt; pass@k: the chance that at least one of k attempts "
                   "is right (the unbiased estimator of Chen et al. 2021); pass^k: the chance that all k are "
                   "(τ-bench). Instances with fewer than k scored attempts (errors) are left out of pass@k and "
                   "pass^k and counted.\n")
        rows = [[b["label"], str(b["epochs"]), _p(a["mean_accuracy"]), _p(a["pass_at_k"]), _p(a["pass_hat_k"]),
                 f"{a['n_instances_with_k']}/{a['n_instances']}"]
                for b in multi for a in [b["attempts"]["overall"]]]
        out.append(_table(["Series", "k", "Mean accuracy", "pass@k", "pass^k", "Instances with k attempts"], rows))
        out.append("")
        for dim in DIMS:
            levels = sorted({lv for b in multi for lv in b["attempts"]["by"][dim]})
            if len(levels) < 2:
                continue
            out.append(f"### pass@k / pass^k by {dim.replace('_', ' ')}\n")
            rows = [[lv, *[_cell(b["attempts"]["by"][dim].get(lv)) for b in multi]] for lv in levels]
            out.append(_table([dim, *[b["label"] for b in multi]], rows))
            out.append("")
    return out


def insert_section(md: str, blocks: list[dict]) -> str:
    """report.md with this section before the significance tests (after the accuracy breakdowns)."""
    section = render(blocks)
    if not section:
        return md
    text = "\n".join(section) + "\n"
    at = md.find("\n## Significance")
    return md + "\n" + text if at < 0 else md[: at + 1] + text + md[at + 1:]


def _cell(m: dict | None) -> str:
    if not m:
        return "–"
    return f"{_p(m['mean_accuracy'])} · {_p(m['pass_at_k'])} · {_p(m['pass_hat_k'])}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)
