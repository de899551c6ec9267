"""Everything the report computes, as one JSON-serialisable dict (written as summary.json)."""

from __future__ import annotations

import datetime as _dt
from collections import defaultdict

import numpy as np

from span_toolkit.span import CALENDAR_NAMES, get_calendar
from span_toolkit.span.benchmark import families

from . import answers, cost_and_epochs, stats, tokens as tok_mod, validity
from .loading import Series

CALENDAR_ORDER = tuple(CALENDAR_NAMES)  # the paper's order, from the calendar core
CAL_SHORT = {name: get_calendar(name).title for name in CALENDAR_ORDER}

DIMENSIONS = {
    "eval_date": "Evaluation date",
    "reasoning_type": "Reasoning type",
    "question_format": "Question format",
    "direction": "Direction",
    "pair": "Source → target",
}
LEVEL_ORDER = {  # the paper's levels first; the extended tasks (generate --extended) after them
    "reasoning_type": families.REASONING_TYPES,
    "question_format": families.QUESTION_FORMATS,
    "direction": families.DIRECTIONS,
}
LEVEL_LABEL = {
    "date": "Date-based", "festival": "Festival-based", "content": "Content question",
    "polar": "Polar question", "gregorian_to_other": "Gregorian → others",
    "other_to_gregorian": "Others → Gregorian", "ordering": "Event ordering (extended)",
    "duration": "Duration (extended)", "choice": "Choice question", "numeric": "Number of days",
    "cross_calendar": "Across two calendars",
}
# (dimension, level A, level B): difference reported is accuracy(A) - accuracy(B), as in Appendix C
COMPARISONS = (
    ("reasoning_type", "festival", "date", "Festival vs date"),
    ("question_format", "polar", "content", "Polar vs content"),
    ("direction", "gregorian_to_other", "other_to_gregorian", "Gregorian→others vs others→Gregorian"),
)


def level_of(rec: dict, dim: str) -> str:
    if dim == "pair":
        return f"{rec.get('source_calendar')}→{rec.get('target_calendar')}"
    v = rec.get(dim)
    return "unknown" if v is None else str(v)


def pair_label(level: str) -> str:
    a, _, b = level.partition("→")
    return f"{CAL_SHORT.get(a, a)} → {CAL_SHORT.get(b, b)}"


def level_label(dim: str, level: str) -> str:
    if dim == "pair":
        return pair_label(level)
    return LEVEL_LABEL.get(level, level)


def sort_levels(dim: str, levels) -> list[str]:
    levels = list(levels)
    if dim in LEVEL_ORDER:
        order = LEVEL_ORDER[dim]
        return sorted(levels, key=lambda x: (order.index(x) if x in order else 99, x))
    if dim == "pair":
        def k(x):
            a, _, b = x.partition("→")
            if "gregorian" not in (a, b):  # extended tasks: neither side Gregorian
                return (2, CALENDAR_ORDER.index(a) if a in CALENDAR_ORDER else 99, x)
            g2o = a == "gregorian"
            other = b if g2o else a
            return (0 if g2o else 1, CALENDAR_ORDER.index(other) if other in CALENDAR_ORDER else 99, x)
        return sorted(levels, key=k)
    return sorted(levels)


def _group(records, keyfn) -> dict:
    out: dict = defaultdict(list)
    for r in records:
        out[keyfn(r)].append(r)
    return out


def _correct_array(records) -> np.ndarray:
    return np.fromiter((1.0 if r["correct"] else 0.0 for r in records
                        if r.get("correct") in (True, False)), dtype=float)


def _series_block(s: Series) -> dict:
    recs = s.records
    by = {}
    for dim in DIMENSIONS:
        g = _group(recs, lambda r, d=dim: level_of(r, d))
        by[dim] = {lv: stats.count(g[lv]) for lv in sort_levels(dim, g)}
    by_date_and = {}
    dates = _group(recs, lambda r: level_of(r, "eval_date"))
    for dim in ("reasoning_type", "question_format", "direction"):
        by_date_and[dim] = {}
        for d in sorted(dates):
            g = _group(dates[d], lambda r, dd=dim: level_of(r, dd))
            by_date_and[dim][d] = {lv: stats.count(g[lv]) for lv in sort_levels(dim, g)}
    tokens = {"provider": tok_mod.provider_output_tokens(recs),
              "tiktoken": tok_mod.tiktoken_output_tokens(recs),
              "by_eval_date": {d: {"provider": tok_mod.provider_output_tokens(dates[d]),
                                   "tiktoken": tok_mod.tiktoken_output_tokens(dates[d])}
                               for d in sorted(dates)}}
    reasoning = tok_mod.reasoning_output_tokens(recs)
    if reasoning is not None:  # a thinking model: its reasoning tokens apart from the visible ones
        tokens["reasoning"] = reasoning
    return {"model": s.model, "mode": s.mode, "label": s.label, "sources": s.sources,
            "n_instances": len(recs), "eval_dates": sorted(dates),
            "overall": stats.count(recs), "by": by, "by_date_and": by_date_and, "tokens": tokens}


def crosstab(series_list: list[Series]) -> list[dict]:
    rows = []
    keys = ("eval_date", "reasoning_type", "question_format", "direction", "source_calendar",
            "target_calendar")
    for s in series_list:
        g = _group(s.records, lambda r: tuple(str(r.get(k)) for k in keys))
        for k in sorted(g):
            c = stats.count(g[k])
            c.pop("ci95", None)
            rows.append({"model": s.model, "mode": s.mode, **dict(zip(keys, k)), **c})
    return rows


def significance(series_list: list[Series], n_resamples: int, seed: int) -> list[dict]:
    out = []
    for s in series_list:
        for dim, a, b, name in COMPARISONS:
            g = _group(s.records, lambda r, d=dim: level_of(r, d))
            label = f"{s.model}|{s.mode}|{dim}|{a}-{b}"
            res = stats.bootstrap_unpaired(_correct_array(g.get(a, [])), _correct_array(g.get(b, [])),
                                           label=label, n_resamples=n_resamples, seed=seed)
            out.append({"model": s.model, "mode": s.mode, "comparison": name, "dimension": dim,
                        "a": a, "b": b, **res.as_dict()})
    return out


MODE_NAMES = {"unaided": "unaided", "with_tools": "with tools", "time_agent": "Time Agent"}
# the arms compared pairwise: (the aided arm, the arm it is compared with)
ARM_PAIRS = (("with_tools", "unaided"), ("time_agent", "unaided"), ("time_agent", "with_tools"))


def arm_pairs(series_list: list[Series]) -> list[tuple[Series, Series, str]]:
    """(arm A series, arm B series, pairing) for every pair of modes in ARM_PAIRS -- the same model when it
    ran both; an A series whose model has no B run is compared with every B series whose model has no A
    run (e.g. the offline demo: reference with tools vs baseline unaided)."""
    pairs = []
    for mode_a, mode_b in ARM_PAIRS:
        arm_a = [s for s in series_list if s.mode == mode_a]
        arm_b = [s for s in series_list if s.mode == mode_b]
        b_models, a_models = {s.model for s in arm_b}, {s.model for s in arm_a}
        for a in arm_a:
            if a.model in b_models:
                pairs.append((a, next(x for x in arm_b if x.model == a.model), "same model"))
            else:
                pairs.extend((a, b, "different models") for b in arm_b if b.model not in a_models)
    return pairs


def paired_arms(series_list: list[Series], n_resamples: int, seed: int,
                warnings: list[str]) -> list[dict]:
    out = []
    for t, u, how in arm_pairs(series_list):
        name_a, name_b = MODE_NAMES.get(t.mode, t.mode), MODE_NAMES.get(u.mode, u.mode)
        tmap = {r["id"]: r for r in t.records}
        umap = {r["id"]: r for r in u.records}
        common = sorted(set(tmap) & set(umap))
        only_t, only_u = len(tmap) - len(common), len(umap) - len(common)
        if only_t or only_u:
            warnings.append(f"paired comparison {t.label} vs {u.label}: different instance sets "
                            f"({len(common)} in common, {only_t} only in {t.label}, {only_u} only in {u.label}); "
                            f"paired on the {len(common)} common instances")
        both = [i for i in common if tmap[i].get("correct") in (True, False)
                and umap[i].get("correct") in (True, False)]
        a = np.array([1.0 if tmap[i]["correct"] else 0.0 for i in both])
        b = np.array([1.0 if umap[i]["correct"] else 0.0 for i in both])
        label = f"paired|{t.model}|{t.mode}|{u.model}|{u.mode}"
        res = stats.bootstrap_paired(a, b, label=label, n_resamples=n_resamples, seed=seed)
        mcn = stats.mcnemar_paired(a, b)   # exact test on the discordant pairs; no resampling floor
        title = (f"{t.model}: {name_a} vs {name_b}" if how == "same model"
                 else f"{t.model} ({name_a}) vs {u.model} ({name_b}) — different models, paired by instance id")
        out.append({"comparison": title, "pairing": how,
                    "arm_a": {"model": t.model, "mode": t.mode}, "arm_b": {"model": u.model, "mode": u.mode},
                    "n_common": len(common), "n_only_a": only_t, "n_only_b": only_u,
                    "n_unscored_in_either": len(common) - len(both),
                    "n_a_right_b_wrong": int(np.sum((a == 1) & (b == 0))),
                    "n_b_right_a_wrong": int(np.sum((a == 0) & (b == 1))),
                    "n_both_right": int(np.sum((a == 1) & (b == 1))),
                    "n_both_wrong": int(np.sum((a == 0) & (b == 0))),
                    **mcn, **res.as_dict()})
    return out


def code_runs(series_list: list[Series]) -> list[dict]:
    """Time Agent series: how often the model's code failed to run (the first run, and every run)."""
    rows = []
    for s in series_list:
        if s.mode != "time_agent":
            continue
        n = with_code = first_failed = never_ok = runs = failed_runs = 0
        reasons: dict[str, int] = {}
        for r in s.records:
            n += 1
            cr = r.get("code_runs") or []
            if not cr:
                continue
            with_code += 1
            first_failed += cr[0].get("exit_reason") != "ok"
            never_ok += not any(x.get("exit_reason") == "ok" for x in cr)
            for x in cr:
                runs += 1
                if x.get("exit_reason") != "ok":
                    failed_runs += 1
                    reasons[x.get("exit_reason")] = reasons.get(x.get("exit_reason"), 0) + 1
        rows.append({"model": s.model, "mode": s.mode, "n": n, "n_with_code": with_code,
                     "n_first_run_failed": first_failed, "n_no_successful_run": never_ok, "n_runs": runs,
                     "n_failed_runs": failed_runs, "failed_by_reason": reasons,
                     "first_run_failure_rate": first_failed / with_code if with_code else None})
    return rows


def instance_sets(series_list: list[Series], warnings: list[str]) -> dict:
    sets = {s.label: s.ids for s in series_list}
    if not sets:
        return {}
    union = set().union(*sets.values())
    inter = set.intersection(*sets.values())
    same = all(len(v) == len(union) for v in sets.values())
    if not same:
        warnings.append("the series do not cover the same instances ("
                        + ", ".join(f"{k}: {len(v)}" for k, v in sets.items())
                        + f"; {len(inter)} in all of them): accuracies compare different "
                          f"instance sets; paired comparisons use the intersection")
    return {"identical": same, "n_union": len(union), "n_intersection": len(inter),
            "per_series": {k: len(v) for k, v in sets.items()}}


def agreement(series_list: list[Series]) -> list[dict]:
    rows = []
    by_model = _group([r for s in series_list for r in s.records], lambda r: str(r.get("model")))
    for model in sorted(by_model):
        a = stats.judge_agreement(by_model[model])
        if a:
            rows.append({"model": model, **a})
    if len(rows) > 1:
        a = stats.judge_agreement([r for s in series_list for r in s.records])
        if a:
            rows.insert(0, {"model": "all", **a})
    return rows


def analyse(series_list: list[Series], *, n_resamples: int, seed: int,
            tokenizer: tok_mod.Tokenizer, warnings: list[str]) -> dict:
    for s in series_list:
        tok_mod.attach_tiktoken_counts(s.records, tokenizer)
    sets = instance_sets(series_list, warnings)
    return {
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "settings": {"n_resamples": n_resamples, "seed": seed,
                     "accuracy": "n_correct / n_scored; unscored (correct=null) excluded "
                                 "from the denominator and counted separately",
                     "tiktoken": {"encoding": tok_mod.ENCODING, "available": tokenizer.available,
                                  "reason": tokenizer.reason or None}},
        "instance_sets": sets,
        "series": [_series_block(s) for s in series_list],
        "significance": significance(series_list, n_resamples, seed),
        "paired": paired_arms(series_list, n_resamples, seed, warnings),
        "code_runs": code_runs(series_list),
        "answers": answers.answer_figures(series_list),
        "agreement": agreement(series_list),
        "validity": validity.umm_al_qura_check(series_list),
        "scale": [cost_and_epochs.scale_block(s) for s in series_list],
    }
