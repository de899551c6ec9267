"""The dateaug section of the report (the Date Fragments paper's breakdowns): accuracy by period, by date
form and by fragmentation bucket, and Pearson's r between the fragmentation ratio F and correctness with a
bootstrap interval (the paper: r = -0.61 over periods, -0.42 over forms).

The report keeps few fields of each result in memory (client.report.loading); this section reads the
variables of the dateaug results itself, from each run folder's results.jsonl.

F of an instance is the mean F of its date strings: the value recorded in the instance
(``span-client fragmentation --annotate``: ``fragmentation`` {tokenizer: {"F"}}, the first tokenizer) or,
when none is recorded, computed now with o200k_base (the paper's GPT-4o encoding; offline).

r is computed three ways, each over the section's own points:
  * instances: F against 0/1 correctness of every scored instance (point-biserial r), with a bootstrap
    interval (instances resampled, the report's seed and resample count);
  * periods: the mean F against the accuracy of each (series, period) point (the paper's Figure 3);
  * forms: likewise per (series, form) (the paper's Figure 4);
  the last two with a bootstrap interval too: each series' instances resampled, the points recomputed.
r is "n/a" where F does not vary (OpenAI's encodings cut a numeric form the same way in every year).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..rundir import RunFolder
from .stats import derive_rng

REASONING_TYPES = ("format_switch", "date_arithmetic")
PERIODS = ("past", "near_past", "present", "future")
BUCKETS = ((0.0, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.5), (0.5, 1.01))
DEFAULT_TOKENIZER = "o200k_base"


def _variables(sources: list[str]) -> dict[str, dict]:
    """id -> {"variables", "fragmentation"} of the dateaug results in these run folders."""
    out: dict[str, dict] = {}
    for src in sources:
        try:
            for rec in RunFolder(Path(src)).records():
                if isinstance(rec, dict) and rec.get("reasoning_type") in REASONING_TYPES and rec.get("id") not in out:
                    out[rec["id"]] = {"variables": rec.get("variables") or {},
                                      "fragmentation": rec.get("fragmentation")}
        except Exception:  # noqa: BLE001 - an unreadable folder was reported by the loader already
            continue
    return out


class _F:
    """F per instance: recorded, else computed with o200k_base (cached per string)."""

    def __init__(self) -> None:
        self.tokenizer = None
        self.reason = ""
        self.used: set[str] = set()
        self._cache: dict[tuple[str, str | None], float] = {}

    def __call__(self, extra: dict) -> float | None:
        rec = extra.get("fragmentation")
        if isinstance(rec, dict) and rec:
            name, val = next(iter(rec.items()))
            if isinstance(val, dict) and isinstance(val.get("F"), (int, float)):
                self.used.add(f"{name} (recorded)")
                return float(val["F"])
        v = extra["variables"] if isinstance(extra.get("variables"), dict) else {}
        strings = v.get("date_strings") or []
        if not isinstance(strings, list) or not strings or not all(isinstance(x, str) for x in strings):
            return None                                   # none, or not date strings: no F for this instance
        forms = v.get("formats") or [v.get("format")] * len(strings)
        if not isinstance(forms, list) or len(forms) != len(strings):
            forms = [None] * len(strings)
        forms = [f if isinstance(f, str) else None for f in forms]
        if self.tokenizer is None and not self.reason:
            try:
                from ..tokenizers import TokenizerError, get_tokenizer

                self.tokenizer = get_tokenizer(DEFAULT_TOKENIZER)
            except (TokenizerError, ImportError) as exc:
                self.reason = str(exc)
        if self.tokenizer is None:
            return None
        from ..date_fragmentation import fragmentation_of

        fs = []
        for s, fm in zip(strings, forms):
            key = (s, fm)
            if key not in self._cache:
                self._cache[key] = fragmentation_of(s, self.tokenizer, fm).F
            fs.append(self._cache[key])
        self.used.add(f"{DEFAULT_TOKENIZER} (computed)")
        return sum(fs) / len(fs)


def pearson(x, y) -> float | None:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def bootstrap_r(x, y, n_resamples: int, seed: int, label: str) -> tuple[float | None, float | None]:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if pearson(x, y) is None:
        return None, None
    rng = derive_rng(seed, "dateaug-r/" + label)
    rs = []
    n = len(x)
    for _ in range(n_resamples):
        idx = rng.integers(0, n, n)
        r = pearson(x[idx], y[idx])
        if r is not None:
            rs.append(r)
    if not rs:
        return None, None
    return float(np.percentile(rs, 2.5)), float(np.percentile(rs, 97.5))


def _masked_r(x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of x against the same row of y over the columns where mask holds (NaN where
    fewer than 3 points or either side does not vary)."""
    n = mask.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.where(mask, x, 0).sum(axis=1) / n
        my = np.where(mask, y, 0).sum(axis=1) / n
        dx = np.where(mask, x - mx[:, None], 0)
        dy = np.where(mask, y - my[:, None], 0)
        sxx, syy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1)
        r = (dx * dy).sum(axis=1) / np.sqrt(sxx * syy)
    r[(n < 3) | (sxx <= 1e-24) | (syy <= 1e-24)] = np.nan
    return r


def bootstrap_points_r(groups: list[tuple], n_resamples: int, seed: int, label: str
                       ) -> tuple[float | None, float | None]:
    """95 % interval of the r over (series, group) points — mean F against accuracy per period or per form,
    as the paper's Figures 3 and 4 — with each series' instances resampled (with replacement) and the points
    recomputed. `groups`: per series (F, correct, membership), membership an (instances x groups) 0/1 array
    of the groups that series has points for."""
    if not groups or sum(m.shape[1] for _, _, m in groups) < 3:
        return None, None
    rng = derive_rng(seed, "dateaug-r-points/" + label)
    rs = []
    chunk = max(1, min(n_resamples, 2_000_000 // max(len(f) for f, _, _ in groups)))
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        xs, ys, ms = [], [], []
        for fv, cv, mem in groups:
            n = len(fv)
            idx = rng.integers(0, n, (size, n)) + (np.arange(size) * n)[:, None]
            w = np.bincount(idx.ravel(), minlength=size * n).reshape(size, n).astype(float)  # resample counts
            cnt = w @ mem
            with np.errstate(invalid="ignore", divide="ignore"):
                xs.append((w @ (mem * fv[:, None])) / cnt)
                ys.append((w @ (mem * cv[:, None])) / cnt)
            ms.append(cnt > 0)
        r = _masked_r(np.hstack(xs), np.hstack(ys), np.hstack(ms))
        rs.extend(r[~np.isnan(r)].tolist())
        done += size
    if not rs:
        return None, None
    return float(np.percentile(rs, 2.5)), float(np.percentile(rs, 97.5))


def _acc(rows: list[tuple]) -> dict:
    n = len(rows)
    k = sum(1 for r in rows if r[1])
    return {"n": n, "correct": k, "accuracy": k / n if n else None}


def analyse(series, *, resamples: int = 10_000, seed: int = 0) -> dict | None:
    """The section's figures, or None when no series holds a dateaug result."""
    extra = _variables([src for s in series for src in s.sources])
    if not extra:
        return None
    f_of = _F()
    out_series = []
    period_points, form_points = [], []
    period_groups, form_groups = [], []     # per series (F, correct, membership) for the points' bootstrap
    for s in series:
        rows = []   # (F, correct, period, forms, reasoning_type)
        for r in s.records:
            e = extra.get(r.get("id"))
            if e is None or r.get("reasoning_type") not in REASONING_TYPES or not isinstance(r.get("correct"), bool):
                continue
            v = e["variables"]
            rows.append((f_of(e), r["correct"], v.get("period"), tuple(v.get("formats") or ()), r["reasoning_type"]))
        if not rows:
            continue
        by_period = {p: _acc([x for x in rows if x[2] == p]) for p in PERIODS}
        forms = sorted({f for x in rows for f in x[3]})
        by_form = {f: _acc([x for x in rows if f in x[3]]) for f in forms}
        by_type = {t: _acc([x for x in rows if x[4] == t]) for t in REASONING_TYPES}
        with_f = [x for x in rows if x[0] is not None]
        by_bucket = {}
        for lo, hi in BUCKETS:
            sel = [x for x in with_f if lo <= x[0] < hi]
            if sel:
                by_bucket[f"{lo:.1f}-{min(hi, 1.0):.1f}"] = _acc(sel)
        fx, cy = [x[0] for x in with_f], [1.0 if x[1] else 0.0 for x in with_f]
        r = pearson(fx, cy)
        lo, hi = bootstrap_r(fx, cy, resamples, seed, s.label)
        held_p, held_f = [], []
        for p in PERIODS:
            sel = [x for x in with_f if x[2] == p]
            if sel:
                period_points.append((float(np.mean([x[0] for x in sel])), _acc(sel)["accuracy"]))
                held_p.append(p)
        for f in forms:
            sel = [x for x in with_f if f in x[3]]
            if sel:
                form_points.append((float(np.mean([x[0] for x in sel])), _acc(sel)["accuracy"]))
                held_f.append(f)
        if with_f:
            fv, cv = np.asarray(fx, float), np.asarray(cy, float)
            period_groups.append((fv, cv, np.array([[x[2] == p for p in held_p] for x in with_f], float)
                                  .reshape(len(with_f), len(held_p))))
            form_groups.append((fv, cv, np.array([[f in x[3] for f in held_f] for x in with_f], float)
                                .reshape(len(with_f), len(held_f))))
        out_series.append({"label": s.label, "overall": _acc(rows), "by_type": by_type, "by_period": by_period,
                           "by_format": by_form, "by_f_bucket": by_bucket,
                           "mean_F": float(np.mean(fx)) if fx else None,
                           "pearson_r": r, "pearson_r_ci95": [lo, hi], "n_with_F": len(with_f)})
    if not out_series:
        return None
    return {"series": out_series,
            "pearson_r_periods": pearson(*zip(*period_points)) if len(period_points) >= 3 else None,
            "pearson_r_forms": pearson(*zip(*form_points)) if len(form_points) >= 3 else None,
            "pearson_r_periods_ci95": list(bootstrap_points_r(period_groups, resamples, seed, "periods"))
            if len(period_points) >= 3 and pearson(*zip(*period_points)) is not None else [None, None],
            "pearson_r_forms_ci95": list(bootstrap_points_r(form_groups, resamples, seed, "forms"))
            if len(form_points) >= 3 and pearson(*zip(*form_points)) is not None else [None, None],
            "n_period_points": len(period_points), "n_form_points": len(form_points),
            "F_source": sorted(f_of.used) or None, "F_unavailable": f_of.reason or None,
            "resamples": resamples}


def _pct(a: dict) -> str:
    return "n/a" if not a or a.get("accuracy") is None else f"{100 * a['accuracy']:.1f}% ({a['correct']}/{a['n']})"


def _r(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{0.0 if abs(x) < 0.005 else x:+.2f}"        # no "-0.00" from rounding noise


def render(sec: dict) -> str:
    lines = ["## Date fragmentation and DateAugBench (dateaug family)", "",
             "Accuracy by period and by date form, by fragmentation bucket, and Pearson's r between the "
             "fragmentation ratio F and correctness (docs/date-fragments.md). F from: "
             + (", ".join(sec["F_source"]) if sec["F_source"] else f"unavailable ({sec['F_unavailable']})") + ".", ""]
    lines += ["| series | overall | format_switch | date_arithmetic | " + " | ".join(PERIODS) + " |",
              "|---|---|---|---|" + "---|" * len(PERIODS)]
    for s in sec["series"]:
        lines.append(f"| {s['label']} | {_pct(s['overall'])} | {_pct(s['by_type']['format_switch'])} | "
                     f"{_pct(s['by_type']['date_arithmetic'])} | "
                     + " | ".join(_pct(s["by_period"][p]) for p in PERIODS) + " |")
    forms = sorted({f for s in sec["series"] for f in s["by_format"]})
    lines += ["", "By date form (a format-switching question counts under both of its forms):", "",
              "| form | " + " | ".join(s["label"] for s in sec["series"]) + " |",
              "|---|" + "---|" * len(sec["series"])]
    for f in forms:
        lines.append(f"| {f} | " + " | ".join(_pct(s["by_format"].get(f)) for s in sec["series"]) + " |")
    buckets = [f"{lo:.1f}-{min(hi, 1.0):.1f}" for lo, hi in BUCKETS]
    lines += ["", "By fragmentation bucket (mean F of the instance's date strings):", "",
              "| series | mean F | " + " | ".join(buckets) + " | r (instances) | 95% CI |",
              "|---|---|" + "---|" * len(buckets) + "---|---|"]
    for s in sec["series"]:
        ci = s["pearson_r_ci95"]
        mean_f = "n/a" if s["mean_F"] is None else f"{s['mean_F']:.3f}"
        lines.append(f"| {s['label']} | {mean_f} | "
                     + " | ".join(_pct(s["by_f_bucket"].get(b)) for b in buckets)
                     + f" | {_r(s['pearson_r'])} | "
                     + ("n/a" if ci[0] is None else f"[{_r(ci[0])}, {_r(ci[1])}]") + " |")
    def ci(key: str) -> str:
        lo, hi = sec.get(key) or (None, None)
        return "" if lo is None else f" [{_r(lo)}, {_r(hi)}]"

    lines += ["", f"Pearson r of mean F against accuracy over (series, period) points: {_r(sec['pearson_r_periods'])}"
                  f"{ci('pearson_r_periods_ci95')} (n={sec['n_period_points']}; the paper: -0.61); over (series, form) "
                  f"points: {_r(sec['pearson_r_forms'])}{ci('pearson_r_forms_ci95')} (n={sec['n_form_points']}; the "
                  f"paper: -0.42). 95% intervals: {sec['resamples']:,} bootstrap resamples of each series' instances "
                  f"(the points recomputed from each resample).", ""]
    return "\n".join(lines)


def add_section(md: str, series, *, resamples: int = 10_000, seed: int = 0) -> tuple[str, dict | None]:
    """The report's Markdown with the dateaug section appended (unchanged when no run holds dateaug
    results), and the section's figures for summary.json."""
    sec = analyse(series, resamples=resamples, seed=seed)
    if sec is None:
        return md, None
    return md.rstrip("\n") + "\n\n" + render(sec), sec

