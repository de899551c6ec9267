"""`span-client export RUN_DIR --format inspect --out FILE`: a run folder as an inspect_ai log, so
`inspect view` shows every instance's transcript (needs the extra: pip install 'span-toolkit[inspect]')."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import common

FORMATS = ("inspect",)


def configure(ex: argparse.ArgumentParser) -> None:
    ex.add_argument("run_dir", type=Path, help="run folder written by `span-client eval`")
    ex.add_argument("--format", choices=FORMATS, default="inspect",
                    help="inspect: an inspect_ai log (.eval, or .json for plain JSON); the default")
    ex.add_argument("--out", "-o", required=True, type=Path, metavar="FILE",
                    help="the log file to write, e.g. logs/span-run.eval (`inspect view --log-dir logs`)")
    ex.add_argument("--force", action="store_true", help="overwrite --out if it exists")


def run(args) -> int:
    from ..inspect_export import ExportError, RunFolderError, export_inspect, require_inspect
    from ..rundir import RunFolder

    if args.out.exists() and not args.force:
        raise common.UsageError(f"--out {args.out} exists; add --force to overwrite it, or choose another file")
    made: list[Path] = []
    try:
        require_inspect()
        made = _make_parent(args.out)
        path, log = export_inspect(args.run_dir, args.out)
    except (ExportError, RunFolderError) as e:
        for folder in reversed(made):  # nothing written: leave no empty folders behind
            try:
                folder.rmdir()
            except OSError:
                break
        raise common.UsageError(str(e)) from None
    score = log.results.scores[0]
    acc = score.metrics["accuracy"].value
    left_out = (log.eval.metadata or {}).get("span_lines_left_out") or []
    if left_out:
        shown = ", ".join(map(str, left_out[:10])) + (" …" if len(left_out) > 10 else "")
        common.print_warning(f"{len(left_out)} line(s) of {RunFolder(args.run_dir).results_path} are not result "
                             f"records and are not in the log (line {shown}); `span-client judge` names them too")
    print(f"wrote {path}: {len(log.samples)} samples ({score.scored_samples} scored), accuracy "
          + (f"{acc:.2%}" if acc == acc else "n/a") + f"; open it with: inspect view --log-dir {path.parent or '.'}")
    return 0


def _make_parent(out: Path) -> list[Path]:
    """``--out logs/x.eval`` into a ``logs/`` that does not exist yet: made, with its parents; the folders
    made, outermost first."""
    missing = [p for p in (out.parent, *out.parent.parents) if not p.exists()][::-1]
    for p in (out.parent, *out.parent.parents):
        if p.exists():
            if not p.is_dir():
                raise common.UsageError(f"--out {out}: {p} exists and is not a folder")
            break
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise common.UsageError(f"--out {out}: cannot create the folder {out.parent}: {e.strerror or e}") from None
    return missing
