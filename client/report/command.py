"""`span-client report RUN_DIR [RUN_DIR ...] --out REPORT_DIR`

Exit status: 0 report written; 2 unusable input (a folder that is not a run, an empty results file,
...). When some folders are usable and others are not, the report is written for the usable ones,
the problems are listed at the top of report.md, and the exit status is still 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..rundir import run_files_in
from . import analysis, cost_and_epochs, dateaug, figures, tables
from .loading import RunInputError, group_series, load_run
from .stats import DEFAULT_SEED, N_RESAMPLES
from .tokens import load_tokenizer

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Build the paper's results section for evaluation runs: accuracy "
                          "breakdowns, bootstrap significance, paired tests between the arms (unaided, with tools, Time Agent), "
                          "output tokens, judge agreement, an Umm al-Qura validity check; writes "
                          "report.md, summary.json, CSVs and PNG figures.")
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                        help="run folders written by `span-client eval` (each with results.jsonl)")
    parser.add_argument("--out", required=True, metavar="REPORT_DIR",
                        help="folder to write report.md, summary.json, *.csv and *.png into")
    parser.add_argument("--resamples", type=int, default=N_RESAMPLES,
                        help=f"bootstrap resamples (default {N_RESAMPLES:,}, as in the paper)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"bootstrap seed (default {DEFAULT_SEED})")
    parser.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    parser.add_argument("--no-tiktoken", action="store_true",
                        help="do not try to load tiktoken o200k_base (token counts: provider only)")
    parser.add_argument("--tiktoken-timeout", type=float, default=5.0, metavar="SECONDS",
                        help="give up loading the o200k_base encoding after this long (it downloads "
                             "its file on first use; default 5)")
    parser.add_argument("--quiet", action="store_true", help="print only problems")


def _say(quiet: bool, msg: str) -> None:
    if not quiet:
        print(msg)


def summary_warnings(run) -> list[str]:
    """The warnings of a run's own summary.json (a model that never called a tool, answers cut off while
    thinking, a Time Agent stopped at its code-run limit …), each with its run folder; the one-word warning,
    which the report works out again per series, is left to that."""
    said = (run.summary or {}).get("warnings") or []
    return [f"{run.label}: {w}" for w in said if isinstance(w, str) and "polar answers are" not in w]


def run(args) -> int:
    return write_report(args.run_dirs, args.out, resamples=args.resamples, seed=args.seed,
                        with_figures=not args.no_figures, with_tiktoken=not args.no_tiktoken,
                        tiktoken_timeout=args.tiktoken_timeout, quiet=args.quiet)


def write_report(run_dirs: list, out: str | Path, *, resamples: int = N_RESAMPLES, seed: int = DEFAULT_SEED,
                 with_figures: bool = True, with_tiktoken: bool = True, tiktoken_timeout: float = 5.0,
                 quiet: bool = False) -> int:
    """The report of ``run_dirs`` written into ``out``; the exit status (module docstring)."""
    t0 = time.perf_counter()
    if resamples < 100:
        print("error: --resamples must be at least 100", file=sys.stderr)
        return EXIT_BAD_INPUT
    errors: list[str] = []
    warnings: list[str] = []
    runs = []
    for d in run_dirs:
        try:
            r = load_run(d)
        except RunInputError as exc:
            errors.append(str(exc))
            print(f"error: {exc}", file=sys.stderr)
            continue
        runs.append(r)
        warnings.extend(r.warnings)
        warnings.extend(summary_warnings(r))  # every warning the eval summary gave is kept
    if not runs:
        print("error: no usable run folder; nothing to report (a run folder holds results.jsonl "
              "written by `span-client eval`)", file=sys.stderr)
        return EXIT_BAD_INPUT

    series, w = group_series(runs)
    warnings.extend(w)
    tokenizer = load_tokenizer(timeout_s=tiktoken_timeout, enabled=with_tiktoken)
    rep = analysis.analyse(series, n_resamples=resamples, seed=seed,
                           tokenizer=tokenizer, warnings=warnings)

    out = Path(out)
    held = run_files_in(out)
    if held:  # the report writes summary.json too: it must never overwrite a run's own files
        print(f"error: --out {out} holds a run's files ({', '.join(held)}); write the report to another folder "
              f"(e.g. {out / 'report'})", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"error: cannot create the report folder {out}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    csv_files = tables.write_csvs(out, rep, analysis.crosstab(series))
    figs: list[tuple[str, str]] = []
    notes: list[str] = []
    if with_figures:
        figs, notes = figures.make_figures(rep, out)
    for x in warnings:
        print(f"warning: {x}", file=sys.stderr)
    for a in rep["answers"]:
        if a["one_word_warning"]:
            print(f"warning: {a['label']}: {a['one_word_warning']}", file=sys.stderr)

    inputs = [str(r.path) for r in runs]
    md = tables.render_markdown(rep, figs, csv_files, [str(d) for d in run_dirs], errors, warnings,
                                notes)
    md = cost_and_epochs.insert_section(md, rep.get("scale") or [])
    md, rep["dateaug"] = dateaug.add_section(md, series, resamples=resamples, seed=seed)  # Date Fragments
    (out / "report.md").write_text(md, encoding="utf-8")
    rep.update({"inputs": inputs, "unusable_inputs": errors, "warnings": warnings,
                "figures": [f for f, _ in figs], "figure_notes": notes, "csv_files": csv_files,
                "elapsed_s": round(time.perf_counter() - t0, 3)})
    (out / "summary.json").write_text(json.dumps(rep, indent=2, ensure_ascii=False, default=str),
                                      encoding="utf-8")

    _say(quiet, f"report: {out / 'report.md'}  ({len(series)} model/mode series, "
               f"{sum(len(s.records) for s in series)} results, {len(figs)} figures, "
               f"{time.perf_counter() - t0:.1f} s)")
    several = {b["label"]: b for b in rep.get("scale") or [] if b.get("attempts")}
    for s in rep["series"]:
        o = s["overall"]
        b = several.get(s["label"])
        epochs = (f"; attempt 1 of {b['epochs']}, mean over all {tables.pct(b['attempts']['overall']['mean_accuracy'])}"
                  if b else "")
        _say(quiet, f"  {s['label']}: {tables.pct(o['accuracy'])} ({o['n_correct']}/{o['n_scored']} "
                   f"scored, {o['n_unscored']} unscored, {o['n_errors']} errors{epochs})")
    for n in notes:
        _say(quiet, f"  note: {n}")
    for p in rep["paired"]:
        _say(quiet, f"  paired: {p['comparison']}: {tables.signed(p['mean_difference'])} "
                   f"{tables._ci_pair(p)} {tables.format_p(p['p_value'])}, McNemar exact "
                   f"{tables.format_p(p.get('mcnemar_p'))} (n={p['n_a']}, "
                   f"{p.get('n_discordant')} discordant"
                   f"{'; few: p-values unreliable' if p.get('few_discordant') else ''})")
    return EXIT_BAD_INPUT if errors else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="span-client report")
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
