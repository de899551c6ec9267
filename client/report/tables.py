"""report.md and the CSV files, from the analysis dict."""

from __future__ import annotations

import csv
from pathlib import Path

from . import answers
from .analysis import COMPARISONS, DIMENSIONS, level_label
from .formatting import cell, md_table, mode_label, num, pct, signed
from .stats import FEW_DISCORDANT, format_kappa, format_p


# ------------------------------------------------------------------------------------------ CSV
def write_csv(path: Path, rows: list[dict], fields: list[str] | None = None) -> None:
    fields = fields or (list(rows[0]) if rows else ["empty"])
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})


_COUNT_FIELDS = ["n", "n_scored", "n_correct", "n_unscored", "n_errors", "n_not_attempted",
                 "n_max_turns", "accuracy", "ci95_low", "ci95_high"]


def _flat(c: dict) -> dict:
    d = dict(c)
    ci = d.pop("ci95", None) or [None, None]
    d["ci95_low"], d["ci95_high"] = ci
    return d


def write_csvs(out: Path, rep: dict, crosstab_rows: list[dict]) -> list[str]:
    files = []

    def put(name, rows, fields=None):
        write_csv(out / name, rows, fields)
        files.append(name)

    put("accuracy_overall.csv",
        [{"model": s["model"], "mode": s["mode"], **_flat(s["overall"])} for s in rep["series"]],
        ["model", "mode", *_COUNT_FIELDS])
    rows = []
    for s in rep["series"]:
        for dim in DIMENSIONS:
            for lv, c in s["by"][dim].items():
                rows.append({"model": s["model"], "mode": s["mode"], "dimension": dim, "level": lv,
                             **_flat(c)})
    put("accuracy_by.csv", rows, ["model", "mode", "dimension", "level", *_COUNT_FIELDS])
    put("crosstab.csv", crosstab_rows,
        ["model", "mode", "eval_date", "reasoning_type", "question_format", "direction",
         "source_calendar", "target_calendar", *_COUNT_FIELDS[:-2]])
    sig_fields = ["model", "mode", "comparison", "a", "b", "n_a", "n_b", "mean_a", "mean_b",
                  "mean_difference", "ci_low", "ci_high", "p_value", "n_resamples", "seed", "note"]
    put("significance.csv", rep["significance"], sig_fields)
    paired_rows = [{**p, "model_a": p["arm_a"]["model"], "mode_a": p["arm_a"]["mode"],
                    "model_b": p["arm_b"]["model"], "mode_b": p["arm_b"]["mode"]} for p in rep["paired"]]
    put("paired_arms.csv", paired_rows,
        ["comparison", "pairing", "model_a", "mode_a", "model_b", "mode_b", "n_common",
         "n_only_a", "n_only_b", "n_unscored_in_either", "n_a", "mean_a", "mean_b",
         "mean_difference", "ci_low", "ci_high", "p_value", "mcnemar_p", "n_discordant",
         "few_discordant", "n_a_right_b_wrong", "n_b_right_a_wrong",
         "n_both_right", "n_both_wrong", "n_resamples", "seed", "note"])
    if rep.get("answers"):
        put("answers_by_format.csv", [answers.csv_row(a) for a in rep["answers"]],
            ["model", "mode", "content_n_scored", "content_n_correct", "content_accuracy", "polar_n_scored",
             "polar_n_correct", "polar_accuracy", "polar_yes", "polar_no", "polar_neither", "polar_yes_share",
             "polar_gold_yes_share", "repeats_caught", "final_turns", "final_turn_answers", "answers_without_code",
             "code_reminders", *(["stopped_at_limit", "program_repeats_caught"]
                                 if any("agent" in a for a in rep["answers"]) else [])])
    if rep.get("code_runs"):
        put("time_agent_code_runs.csv", [{k: v for k, v in r.items() if k != "failed_by_reason"}
                                         for r in rep["code_runs"]],
            ["model", "mode", "n", "n_with_code", "n_first_run_failed", "n_no_successful_run", "n_runs",
             "n_failed_runs", "first_run_failure_rate"])
    trows = []
    for s in rep["series"]:
        t = s["tokens"]
        for date, tt in [("all", t), *t["by_eval_date"].items()]:
            trows.append({"model": s["model"], "mode": s["mode"], "eval_date": date,
                          "provider_n": tt["provider"]["n"], "provider_mean": tt["provider"]["mean"],
                          "provider_median": tt["provider"]["median"],
                          "tiktoken_n": tt["tiktoken"]["n"], "tiktoken_mean": tt["tiktoken"]["mean"],
                          "tiktoken_median": tt["tiktoken"]["median"]})
    put("output_tokens.csv", trows)
    if rep["agreement"]:
        put("judge_agreement.csv", rep["agreement"],
            ["model", "n", "n_agree", "raw_agreement", "cohen_kappa", "kappa_source",
             "n_llm_unscored", "rules_correct", "llm_correct"])
    if rep["validity"].get("rows"):
        put("validity_umm_al_qura.csv", rep["validity"]["rows"],
            ["model", "mode", "n_islamic_target_content", "n_wrong", "n_matches_umm_al_qura",
             "share_of_wrong", "n_tabular_equals_uaq", "n_matches_gold", "n_no_date_found",
             "n_outside_umm_al_qura_range", "n_other"])
    return files


# ------------------------------------------------------------------------------------- markdown
def render_markdown(rep: dict, figures: list[tuple[str, str]], csv_files: list[str],
                    inputs: list[str], errors: list[str], warnings: list[str],
                    figure_notes: list[str] | None = None) -> str:
    S = rep["series"]
    out: list[str] = []
    w = out.append
    w("# SPAN evaluation report\n")
    w(f"Generated {rep['generated_at']} by `span-client report` from "
      f"{len(inputs)} run folder(s). Bootstrap: {rep['settings']['n_resamples']:,} resamples, "
      f"seed {rep['settings']['seed']}.\n")
    if errors or warnings:
        w("## Input problems\n")
        for e in errors:
            w(f"- **unusable:** {e}")
        for x in warnings:
            w(f"- warning: {x}")
        w("")

    w("## Runs\n")
    w(md_table(["Model", "Mode", "Instances", "Evaluation dates", "Run folder(s)"],
               [[s["model"], mode_label(s["mode"]), str(s["n_instances"]),
                 _dates_text(s["eval_dates"]), "<br>".join(f"`{x}`" for x in s["sources"])]
                for s in S], "llrll"))
    w("")

    w("## Overall accuracy\n")
    w("Accuracy = correct / scored. *Unscored* answers (an UNSCORED primary verdict: the judge could not "
      "grade them) and *errors* (provider errors: no answer) are left out of the denominator, not counted "
      "as wrong; *not attempted* are answers the judge found no final answer in (scored as wrong); *max "
      "turns* are tool loops that hit the turn limit. 95% CI: Wilson interval.\n")
    several = [b for b in rep.get("scale") or [] if b.get("attempts")]
    if several:
        w("**Several attempts per instance** (`--epochs`): "
          + "; ".join(f"{b['label']} {b['epochs']} attempts, mean accuracy over all of them "
                      f"{pct(b['attempts']['overall']['mean_accuracy'])}" for b in several)
          + ". This table and every comparison below read **attempt 1** of each instance, so that arms and "
            "models meet on the same footing; every attempt counts in the section *Several attempts per "
            "instance* (mean, pass@k, pass^k).\n")
    w(md_table(["Model", "Mode", "Accuracy", "95% CI", "Correct / scored", "Unscored", "Errors",
                "Not attempted", "Max turns"],
               [[s["model"], mode_label(s["mode"]), pct(s["overall"]["accuracy"]),
                 _ci(s["overall"]), f"{s['overall']['n_correct']}/{s['overall']['n_scored']}",
                 str(s["overall"]["n_unscored"]), str(s["overall"]["n_errors"]),
                 str(s["overall"]["n_not_attempted"]), str(s["overall"]["n_max_turns"])]
                for s in S], "llrrrrrrr"))
    w("")
    disputed = [s for s in S if s["overall"].get("n_disputed")]
    if disputed:
        w("Instances whose gold depends on a day the calendar's independent sources dispute (span.disputes; "
          "README \"How correctness is checked\"): "
          + "; ".join(f"{s['model']} ({mode_label(s['mode'])}) {s['overall']['n_disputed']}, "
                      f"{s['overall']['n_disputed_correct']} answered as the gold says" for s in disputed)
          + ". `generate --exclude-disputed` leaves them out.\n")

    answers.render(w, rep.get("answers") or [])

    for dim, title in DIMENSIONS.items():
        levels: list[str] = []
        for s in S:
            for lv in s["by"][dim]:
                if lv not in levels:
                    levels.append(lv)
        if dim == "pair":
            from .analysis import sort_levels
            levels = sort_levels("pair", levels)
        w(f"## Accuracy by {title.lower()}\n")
        w("Each cell: accuracy (correct/scored)" + (", [unscored]" if any(
            s["by"][dim].get(lv, {}).get("n_unscored") for s in S for lv in levels) else "") + ".\n")
        w(md_table([title, *[s["label"] for s in S]],
                   [[level_label(dim, lv), *[cell(s["by"][dim].get(lv)) for s in S]]
                    for lv in levels]))
        w("")
    w("The full model × mode × evaluation date × reasoning type × question format × direction × "
      "source × target crosstab is in [`crosstab.csv`](crosstab.csv).\n")

    w("## Significance (bootstrap, as in the paper's Appendix C)\n")
    w(f"Unpaired bootstrap over instances, {rep['settings']['n_resamples']:,} resamples: mean "
      "difference = accuracy(A) − accuracy(B) on scored answers; 95% percentile confidence "
      "interval; two-sided p-value from resampling both groups out of the pooled answers (no "
      "difference), p = (1 + #|null| ≥ |observed|) / (1 + resamples).\n")
    rows = []
    for r in rep["significance"]:
        rows.append([r["model"], mode_label(r["mode"]), r["comparison"],
                     f"{pct(r['mean_a'])} vs {pct(r['mean_b'])}" if r["mean_a"] is not None
                     and r["mean_b"] is not None else "n/a",
                     signed(r["mean_difference"]), _ci_pair(r), format_p(r["p_value"]),
                     f"{r['n_a']} / {r['n_b']}"])
    w(md_table(["Model", "Mode", "A vs B", "Accuracy A vs B", "Mean difference", "95% CI",
                "p-value", "n A / n B"], rows, "lllrrrrr"))
    w("")

    w("## The arms compared (paired by instance)\n")
    if not rep["paired"]:
        w("No two arms (unaided, with tools, Time Agent) to compare.\n")
    else:
        w("Each pair of arms present — with tools vs unaided, Time Agent vs unaided, Time Agent vs with "
          "tools — paired bootstrap over the instances both runs scored (same instance ids): mean "
          "difference = accuracy of arm A − accuracy of arm B; 95% percentile CI; two-sided "
          "bootstrap p-value from the centred differences. Exact McNemar p-value: two-sided "
          "binomial test of the discordant pairs (right in one run only) against 1/2 — it does not "
          "floor at 1/(1 + resamples) as the bootstrap p-value does when every discordant pair "
          f"favours one side. Fewer than {FEW_DISCORDANT} discordant pairs are flagged: both "
          "p-values are then unreliable. When the two runs come from different models the "
          "row says so: the difference is then between two systems, not the effect of tools on one "
          "model.\n")
        rows = []
        for p in rep["paired"]:
            mp = format_p(p.get("mcnemar_p"))
            if p.get("few_discordant"):
                mp += " (few discordant pairs: p-values unreliable)"
            rows.append([p["comparison"], str(p["n_a"]), pct(p["mean_a"]), pct(p["mean_b"]),
                         signed(p["mean_difference"]), _ci_pair(p), format_p(p["p_value"]), mp,
                         f"{p['n_a_right_b_wrong']} / {p['n_b_right_a_wrong']}",
                         f"{p['n_only_a']} / {p['n_only_b']} / {p['n_unscored_in_either']}"])
        w(md_table(["Comparison (A vs B)", "Paired n", "Accuracy A", "Accuracy B", "Mean difference (A − B)",
                    "95% CI", "Bootstrap p-value", "McNemar exact p-value", "Only A right / only B right",
                    "Left out: only in A / only in B / unscored"], rows, "lrrrrrrrrr"))
        w("")
    if rep.get("code_runs"):
        w("## Time Agent: did the model's code run?\n")
        w("Each model-written program runs in the sandbox (a separate, limited process). *First run failed*: "
          "the first program of an instance ended with an error, a limit or no output; *no successful run*: "
          "no program of the instance ran cleanly.\n")
        rows = [[r["model"], str(r["n_with_code"]), f"{r['n_first_run_failed']} ({pct(r['first_run_failure_rate'])})",
                 str(r["n_no_successful_run"]), f"{r['n_failed_runs']} / {r['n_runs']}",
                 ", ".join(f"{k} {v}" for k, v in sorted(r["failed_by_reason"].items())) or "—"]
                for r in rep["code_runs"]]
        w(md_table(["Model", "Instances with code", "First run failed", "No successful run",
                    "Failed runs / runs", "Failures by reason"], rows, "lrrrrl"))
        w("")

    w("## Output tokens per answer\n")
    tk = rep["settings"]["tiktoken"]
    if tk["available"]:
        w(f"*tiktoken* column: the final answer text tokenised with `{tk['encoding']}` as in the "
          "paper (Figure 2 right). *Provider* column: `usage.output_tokens` as reported by the "
          "provider — with tools it covers every turn of the tool loop, not only the final answer.\n")
    else:
        w(f"tiktoken `{tk['encoding']}` counts: **unavailable** — {tk['reason']}. *Provider* column: "
          "`usage.output_tokens` as reported by the provider (with tools: every turn of the loop).\n")
    rows = []
    for s in S:
        t = s["tokens"]
        rows.append([s["model"], mode_label(s["mode"]), _tok(t["provider"]),
                     _tok(t["tiktoken"]) if tk["available"] else "unavailable"])
    w(md_table(["Model", "Mode", "Provider output tokens: mean / median (n)",
                f"tiktoken {tk['encoding']}: mean / median (n)"], rows, "llrr"))
    w("")
    thinking = [s for s in S if s["tokens"].get("reasoning")]
    if thinking:
        w("Thinking models: *reasoning* tokens as the provider reported them (OpenAI "
          "`completion_tokens_details.reasoning_tokens`, Anthropic `output_tokens_details.thinking_tokens`), else "
          "the recorded thinking counted offline (*counted by*); *visible* = output tokens minus reasoning tokens. "
          "Providers bill reasoning tokens as output tokens, so cost and `--budget` include them (once). The "
          "thinking is kept in the result lines (`thinking`) and never judged; *ran out while thinking*: replies "
          "cut at `--max-tokens` before any answer (graded NOT_ATTEMPTED, never INCORRECT).\n")
        rows = []
        for s in thinking:
            r = s["tokens"]["reasoning"]
            rows.append([s["model"], mode_label(s["mode"]), _tok(r["reasoning"]), _tok(r["visible"]),
                         ", ".join(r["sources"]) or "—", f"{r['thinking_cut']} of {r['n']}"])
        w(md_table(["Model", "Mode", "Reasoning tokens: mean / median (n)", "Visible output tokens: mean / median (n)",
                    "Counted by", "Ran out of tokens while thinking"], rows, "llrrlr"))
        w("")
        if any(s["tokens"]["reasoning"]["thinking_cut"] for s in thinking):
            w("- **Raise `--max-tokens`** for the series with answers cut off while thinking: reasoning models "
              "often need 8,192 to 32,768 output tokens per request (see docs/reasoning-models.md).\n")

    w("## Judge agreement (rules vs LLM judge, as in the paper's Appendix B)\n")
    if not rep["agreement"]:
        w("Not available: no run has both rule and LLM verdicts (run `span-client eval` with "
          "`--judge-model` to get the LLM judge).\n")
    else:
        w("On answers both judges scored; rules NOT_ATTEMPTED counts as not correct, LLM UNSCORED "
          "is left out (computed by `client.judges.agreement`). Cohen's κ is undefined when both "
          "judges give every answer the same label.\n")
        w(md_table(["Model", "Agreement", "Cohen's κ", "n", "LLM unscored"],
                   [[a["model"], f"{num(a['raw_agreement'], 3)} ({a['n_agree']}/{a['n']})",
                     format_kappa(a["cohen_kappa"]) if a["n"] else "n/a", str(a["n"]),
                     str(a["n_llm_unscored"])]
                    for a in rep["agreement"]], "lrrrr"))
        w("")

    w("## Benchmark validity: Islamic answers that follow Umm al-Qura\n")
    v = rep["validity"]
    w("SPAN's gold Islamic dates use the arithmetic (tabular) calendar; Saudi Arabia's Umm al-Qura "
      "calendar differs from it by a day on most days. For content questions with an Islamic "
      "target judged wrong, the model's date is compared with the Umm al-Qura date of the gold's "
      "Gregorian day.\n")
    if not v.get("available"):
        w(f"Not computed: {v.get('note')}.\n")
    else:
        rows = [[r["model"], mode_label(r["mode"]), str(r["n_islamic_target_content"]),
                 str(r["n_wrong"]), str(r["n_matches_umm_al_qura"]), pct(r["share_of_wrong"]),
                 str(r["n_tabular_equals_uaq"]), str(r["n_no_date_found"]),
                 str(r["n_outside_umm_al_qura_range"]), str(r["n_matches_gold"]), str(r["n_other"])]
                for r in v["rows"]]
        w(md_table(["Model", "Mode", "Islamic-target content", "Judged wrong",
                    "= Umm al-Qura date", "Share of wrong", "Tabular = Umm al-Qura that day",
                    "No date found", "Outside Umm al-Qura range", "= gold (judge disagrees)",
                    "Other"], rows, "llrrrrrrrrr"))
        w(f"\n{v['note']}. Umm al-Qura covers 1924-08-01 to 2077-11-16 (the calendar core's islamic_umm_al_qura, from hijridate's table).\n")
        ex = [e for r in v["rows"] for e in r["examples"]][:5]
        if ex:
            w(md_table(["Instance", "Gregorian day", "Gold (tabular)", "Umm al-Qura", "Answer"],
                       [[e["id"], e["gregorian"], e["gold_tabular"], e["umm_al_qura"], e["answer"]]
                        for e in ex], "lllll"))
            w("")

    if figures:
        w("## Figures\n")
        for n in figure_notes or []:
            w(f"*{n[0].upper() + n[1:]}.*\n")
        for fname, caption in figures:
            w(f"**{caption}**\n")
            w(f"![{caption}]({fname})\n")

    w("## Files\n")
    w("- `summary.json`: everything above, for machines")
    for f in csv_files:
        w(f"- [`{f}`]({f})")
    w("")
    return "\n".join(out)


def _dates_text(dates: list[str]) -> str:
    if len(dates) <= 3:
        return ", ".join(dates)
    return f"{len(dates)} dates, {dates[0]} … {dates[-1]}"


def _ci(c: dict) -> str:
    ci = c.get("ci95")
    return f"[{pct(ci[0])}, {pct(ci[1])}]" if ci else "n/a"


def _ci_pair(r: dict) -> str:
    if r.get("ci_low") is None:
        return "n/a" + (f" ({r['note']})" if r.get("note") else "")
    return f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"


def _tok(t: dict) -> str:
    if not t["n"]:
        return "not reported"
    return f"{t['mean']:.1f} / {t['median']:.0f} ({t['n']})"


__all__ = ["render_markdown", "write_csvs", "COMPARISONS"]
