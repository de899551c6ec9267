"""Ctrl-C: one SIGINT stops any run within seconds (scripted agents too), keeps every finished result,
says how to resume and exits 130; the resume finishes with nothing lost or duplicated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _start(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "span_toolkit.client.cli", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _wait_for(results: Path, n: int, proc: subprocess.Popen, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while _lines(results) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.05)


@pytest.mark.parametrize("model,mode", [("reference", "--with-tools"), ("baseline", None)])
def test_one_sigint_stops_within_5s_and_resume_completes(tmp_path, model, mode):
    out = tmp_path / "run"
    args = ["eval", "--model", model, *([mode] if mode else []), "--date", "2025-07-01", "--out", str(out),
            "--concurrency", "4"]
    proc = _start(*args)
    _wait_for(out / "results.jsonl", 40, proc)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert took < 5.0, f"took {took:.1f} s to stop"
    assert "resume with: span-client eval" in stderr and "Traceback" not in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and 0 < summary["n"] < 1780
    assert json.loads((out / "run.json").read_text())["interrupted"] is True
    kept = _lines(out / "results.jsonl")
    proc = _start(*args, "--quiet")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    ids = [json.loads(x)["id"] for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 1780 and kept <= 1780
    assert json.loads((out / "summary.json").read_text()).get("interrupted") is None


def test_second_sigint_exits_at_once(tmp_path):
    out = tmp_path / "run"
    proc = _start("eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--out", str(out))
    _wait_for(out / "results.jsonl", 20, proc)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
    lines = (out / "results.jsonl").read_bytes().splitlines()
    assert all(json.loads(x)["id"] for x in lines)  # every kept line is whole
