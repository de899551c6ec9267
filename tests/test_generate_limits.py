"""Generating under abuse (issue 21): a huge range is refused at once, SIGTERM and SIGINT leave no partial
file, a stratified sample is drawn without building what is not chosen, and a report never overwrites a
run folder's files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from span_toolkit.span.benchmark import StratifiedChooser, generate_many, generate_sample, sample_instances
from span_toolkit.span.benchmark.jsonl import encode

ROOT = Path(__file__).resolve().parent.parent


def test_a_huge_range_is_refused_at_once_with_the_count_and_the_option(tmp_path, capsys):
    out = tmp_path / "x.jsonl"
    t0 = time.monotonic()
    assert main(["generate", "--dates", "1906-01-01..2094-01-01/1d", "--out", str(out)]) == 2
    assert time.monotonic() - t0 < 10
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "68,668 evaluation dates (122,229,040 instances)" in err[0] and "--max-dates" in err[0]
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_the_cap_is_an_option(tmp_path):
    out = tmp_path / "x.jsonl"
    assert main(["generate", "--dates", "2025-07-01..2025-07-03", "--max-dates", "2", "--out", str(out)]) == 2
    assert main(["generate", "--dates", "2025-07-01..2025-07-03", "--max-dates", "3", "--sample", "5",
                 "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5


@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_signal_mid_run_leaves_no_partial_file(tmp_path, sig, status, jobs):
    out = tmp_path / "big.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.client.cli", "generate", "--dates", "1960-01-01..1960-12-31",
                             "--jobs", jobs, "--out", str(out)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until it is writing
        parts = [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
        if parts and parts[0].stat().st_size > 100_000:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("generate never started writing")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert list(tmp_path.iterdir()) == [], "partial output left behind"
    assert b"nothing written" in err


def test_sample_from_the_plan_equals_the_sample_of_every_instance():
    days = [date(2025, 7, 1), date(1990, 3, 3)]
    opts = {"polar_negatives": True, "date_formats": True, "families": ("paper", "extended"), "seed": 4}
    streamed = [encode(i) for i in generate_sample(days, 60, **opts)]
    assert streamed == [encode(i) for i in sample_instances(generate_many(days, **opts), 60, seed=4)]


def test_the_chooser_keeps_only_counts():
    """Counting a million items of 100 strata holds 100 counters, not a million of anything."""
    chooser = StratifiedChooser(10, seed=1)
    for i in range(1_000_000):
        chooser.count((f"s{i % 10}", f"t{i % 100}"))
    assert len(chooser._counts) == 100
    chooser.draw()
    picked = sum(chooser.select((f"s{i % 10}", f"t{i % 100}")) for i in range(1_000_000))
    assert picked == 10


def test_eval_samples_an_instances_file_the_same_way_without_reading_it_whole(tmp_path):
    """--instances FILE --sample N picks what the generator's sampler picks."""
    from span_toolkit.client import dataset

    src = tmp_path / "i.jsonl"
    assert main(["generate", "--date", "2025-07-01", "--polar-negatives", "--out", str(src)]) == 0
    items = [json.loads(x) for x in src.read_text().splitlines()]
    got = dataset.sample_file(src, 40, seed=3)
    assert got == sample_instances(items, 40, seed=3)
    plain = tmp_path / "plain.jsonl"  # a user's own file without the generator's fields: uniform, seeded
    plain.write_text("".join(json.dumps({"id": str(i), "question": "q", "answer": "a"}) + "\n" for i in range(50)))
    a = dataset.sample_file(plain, 7, seed=1)
    assert len(a) == 7 and a == dataset.sample_file(plain, 7, seed=1) and a != dataset.sample_file(plain, 7, seed=2)


def test_report_refuses_to_write_into_a_run_folder(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "12", "--out", str(run),
                 "--quiet"]) == 0
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert main(["report", str(run), "--out", str(run), "--no-figures", "--no-tiktoken"]) == 2
    err = capsys.readouterr().err
    assert "holds a run's files" in err and "results.jsonl" in err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    report = tmp_path / "report"  # a report folder is no run: writing a report there again is fine
    for _ in range(2):
        assert main(["report", str(run), "--out", str(report), "--no-figures", "--no-tiktoken", "--quiet"]) == 0
