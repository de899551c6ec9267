"""`span-client generate`: output, determinism, and bad input (one stderr line, exit 2, no file left)."""

import argparse
import json
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

import span_toolkit.client.commands.generate as cmd
import span_toolkit.span.benchmark.evaldates as gen
from span_toolkit.span import CalendarError
from span_toolkit.span.benchmark import MAX_EVAL_DATE, MIN_EVAL_DATE, ExecutionError, GoldMismatchError, generate_instances

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*argv) -> int:
    parser = argparse.ArgumentParser(prog="span-client generate")
    cmd.configure(parser)
    try:
        return cmd.run(parser.parse_args(list(argv)))
    except SystemExit as exc:      # argparse errors
        return exc.code


def read(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_one_date_to_file(tmp_path):
    out = tmp_path / "instances.jsonl"
    assert run_cli("--date", "2025-07-01", "--out", str(out)) == 0
    rows = read(out)
    assert len(rows) == 1780 and rows == list(generate_instances(date(2025, 7, 1)))
    assert [p.name for p in tmp_path.iterdir()] == ["instances.jsonl"]          # no temp file left
    assert oct(out.stat().st_mode & 0o777) == oct(0o600)                       # gold: its owner's only


def test_range_list_and_stdout(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert run_cli("--dates", "1960-07-01..1970-07-01/5y", "--out", str(out)) == 0
    rows = read(out)
    assert len(rows) == 3 * 1780 and [r["eval_date"] for r in rows[::1780]] == ["1960-07-01", "1965-07-01", "1970-07-01"]
    assert run_cli("--dates", "1960-07-01,2060-07-01", "--sample", "30", "--seed", "4", "--out", "-") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 30 and {json.loads(x)["eval_date"] for x in lines} == {"1960-07-01", "2060-07-01"}


def test_byte_identical_runs_and_jobs(tmp_path):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    args = ["--dates", "2020-07-01,2025-07-01,2030-07-01", "--polar-negatives", "--seed", "3"]
    assert run_cli(*args, "--out", str(a)) == 0
    assert run_cli(*args, "--out", str(b)) == 0
    assert run_cli(*args, "--jobs", "2", "--out", str(c)) == 0
    assert a.read_bytes() == b.read_bytes() == c.read_bytes()


def test_options_flow_through(tmp_path):
    out = tmp_path / "o.jsonl"
    assert run_cli("--date", "2025-07-01", "--polar-negatives", "--date-formats", "--out", str(out)) == 0
    rows = read(out)
    assert len(rows) > 1780 and {r["variables"]["date_format"] for r in rows} > {"paper"}
    assert {r["answer"] for r in rows if r["question_format"] == "polar"} == {"Yes", "No"}


BAD = [
    ["--date", "2025-13-01"],
    ["--date", "yesterday"],
    ["--date", "1900-01-01"],
    ["--date", (MIN_EVAL_DATE - timedelta(days=1)).isoformat()],
    ["--date", (MAX_EVAL_DATE + timedelta(days=1)).isoformat()],
    ["--dates", "2025-07-01..2024-07-01"],
    ["--dates", "2025-07-01..2026-07-01/0y"],
    ["--dates", "2025-07-01..2026-07-01/5q"],
    ["--dates", "2025-07-01,,2026-07-01"],
    ["--dates", "2090-07-01..2099-07-01/1y"],
    ["--date", "2025-07-01", "--sample", "0"],
    ["--date", "2025-07-01", "--sample", "many"],
    ["--date", "2025-07-01", "--seed", "x"],
    ["--date", "2025-07-01", "--jobs", "0"],
    ["--date", "2025-07-01", "--dates", "paper"],
    ["--date", "2025-07-01..2025-07-03"],
    [],
    ["--date", "2025-07-01", "--bogus"],
]


@pytest.mark.parametrize("argv", BAD, ids=lambda a: " ".join(a) or "none")
def test_bad_input_one_line_exit_2_no_file(tmp_path, argv):
    out = tmp_path / "x.jsonl"
    proc = subprocess.run([sys.executable, "-m", "span_toolkit.client.commands.generate", *argv, "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], proc.stderr
    assert proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_bad_input_keeps_existing_file(tmp_path):
    out = tmp_path / "keep.jsonl"
    out.write_text("old\n")
    assert run_cli("--date", "1800-01-01", "--out", str(out)) == 2
    assert out.read_text() == "old\n"


def test_failure_mid_run_leaves_no_partial_file(tmp_path, monkeypatch):
    out = tmp_path / "partial.jsonl"

    def explode(eval_date, request):
        yield from list(generate_instances(eval_date, request))[:10]
        raise GoldMismatchError("boom")

    monkeypatch.setattr("span_toolkit.span.benchmark.jsonl.generate_instances", explode)
    with pytest.raises(GoldMismatchError):
        run_cli("--date", "2025-07-01", "--out", str(out))
    assert list(tmp_path.iterdir()) == []


def test_missing_output_directory(tmp_path, capsys):
    assert run_cli("--date", "2025-07-01", "--out", str(tmp_path / "no" / "such" / "x.jsonl")) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def _fails(d: date) -> bool:
    try:
        for _ in generate_instances(d, polar_negatives=True):
            pass
    except (CalendarError, ExecutionError):
        return True
    return False


def test_eval_date_range_is_tight(monkeypatch):
    """MIN/MAX_EVAL_DATE are the first/last dates whose instances all stay in 1900-01-01..2100-12-31."""
    for d in (MIN_EVAL_DATE, MAX_EVAL_DATE):
        assert len(list(generate_instances(d, polar_negatives=True))) == 1780
    monkeypatch.setattr(gen, "MIN_EVAL_DATE", date(1900, 1, 1))
    monkeypatch.setattr(gen, "MAX_EVAL_DATE", date(2100, 12, 31))
    assert _fails(MIN_EVAL_DATE - timedelta(days=1))
    assert _fails(MAX_EVAL_DATE + timedelta(days=1))
    assert not _fails(MIN_EVAL_DATE + timedelta(days=40)) and not _fails(MAX_EVAL_DATE - timedelta(days=40))


def test_huge_range_step_is_not_a_crash():
    from span_toolkit.span.benchmark.evaldates import date_range
    assert date_range(date(2025, 7, 1), date(2026, 7, 1), "99999y") == [date(2025, 7, 1)]
    assert date_range(date(2025, 7, 1), date(2026, 7, 1), "99999w") == [date(2025, 7, 1)]


def test_out_that_is_no_regular_file_is_left_alone(tmp_path, capsys):
    """--out on a device or a FIFO is refused, --force or not: the temporary file would be renamed over it
    (as root, `--out /dev/null --force` left a 0600 regular file where /dev/null was, for everyone)."""
    import os
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    targets = [(fifo, "a FIFO")]
    if os.geteuid() == 0:
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append((device, "a device"))
    for target, kind in targets:
        before = os.stat(target)
        assert run_cli("--date", "2025-07-01", "--sample", "3", "--out", str(target), "--force") == 2
        assert f"is {kind}, not a regular file" in capsys.readouterr().err
        after = os.stat(target)
        assert (after.st_mode, after.st_ino, getattr(after, "st_rdev", 0)) == \
               (before.st_mode, before.st_ino, getattr(before, "st_rdev", 0))
    assert not list(tmp_path.glob(".span-generate-*"))


def test_out_through_a_symlink_writes_the_file_it_names(tmp_path):
    real = tmp_path / "data" / "instances.jsonl"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    assert run_cli("--date", "2025-07-01", "--sample", "4", "--out", str(link), "--force") == 0
    assert link.is_symlink() and link.resolve() == real
    assert len(real.read_text().splitlines()) == 4


def test_a_sample_larger_than_the_instances_says_so(tmp_path, capsys):
    out = tmp_path / "all.jsonl"
    assert run_cli("--date", "2025-07-01", "--sample", "999999", "--out", str(out)) == 0
    assert len(read(out)) == 1780
    assert "--sample 999999 is not fewer than the 1,780 instances of this date: all of them are written" in \
        capsys.readouterr().err


def test_out_dev_stdout_is_standard_output(capsys):
    """`--out /dev/stdout` into a pipe said "No such file or directory" (no folder to write a file beside)."""
    assert run_cli("--date", "2025-07-01", "--sample", "3", "--out", "/dev/stdout") == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
