"""Every bad input a user can give span-client: exit 2, one line on stderr that says what is wrong and
what is valid, no traceback, nothing lost or overwritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from span_toolkit.client.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _instances(tmp: Path, n: int = 3, **extra) -> Path:
    from span_toolkit.span.benchmark import generate_sample, parse_eval_date

    items = [dict(i, **extra) for i in generate_sample([parse_eval_date("2025-07-01")], n, seed=1)]
    p = tmp / "instances.jsonl"
    p.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return p


def _no_gold(tmp: Path) -> Path:
    p = _instances(tmp)
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    for x in lines:
        x.pop("gold"), x.pop("answer")
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return p


def _latin1(tmp: Path) -> Path:
    p = tmp / "latin1.jsonl"
    p.write_bytes('{"id": "a", "question": "caf\u00e9"}\n'.encode("latin-1"))
    return p


def _corrupt_results(tmp: Path) -> Path:
    """A finished baseline run whose results.jsonl has a broken line in the middle."""
    inst = _instances(tmp)
    run = tmp / "run"
    assert main(["eval", "--model", "baseline", "--instances", str(inst), "--out", str(run), "--quiet"]) == 0
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    lines.insert(1, "{this is not json\n")
    (run / "results.jsonl").write_text("".join(lines))
    return inst


CASES = [
    # (name, argv with {tmp}, setup(tmp) -> None, needle in the message)
    ("out under /proc", ["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "2",
                         "--out", "/proc/span-run"], None, "cannot write the run folder"),
    ("out is a file", ["eval", "--model", "baseline", "--date", "2025-07-01", "--out", "{tmp}/f"],
     lambda t: (t / "f").write_text("x"), "is not a folder"),
    ("non-UTF-8 instances", ["eval", "--model", "baseline", "--instances", "{tmp}/latin1.jsonl", "--out", "{tmp}/r"],
     _latin1, "not UTF-8"),
    ("instances is a folder", ["eval", "--model", "baseline", "--instances", "{tmp}", "--out", "{tmp}/r"],
     None, "is a folder"),
    ("sample larger than the set", ["eval", "--model", "baseline", "--instances", "{tmp}/instances.jsonl",
                                    "--sample", "50", "--out", "{tmp}/r"], _instances, "larger than the 3"),
    ("sample larger than a date", ["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "5000",
                                   "--out", "{tmp}/r"], None, "larger than the 1780"),
    ("instances without gold", ["eval", "--model", "baseline", "--instances", "{tmp}/instances.jsonl",
                                "--out", "{tmp}/r"], _no_gold, "no gold answer"),
    ("corrupt line mid results", ["eval", "--model", "baseline", "--instances", "{tmp}/instances.jsonl",
                                  "--out", "{tmp}/run"], _corrupt_results, "--force-resume"),
    ("bad --date value", ["eval", "--model", "baseline", "--date", "2025-13-45", "--out", "{tmp}/r"], None,
     "--date"),
    ("date out of range", ["eval", "--model", "baseline", "--date", "1800-07-01", "--out", "{tmp}/r"], None,
     "1905-03-21"),
    ("unknown option", ["eval", "--model", "baseline", "--date", "2025-07-01", "--out", "{tmp}/r", "--frobnicate"],
     None, "unrecognized arguments"),
    ("generate overwrite", ["generate", "--date", "2025-07-01", "--out", "{tmp}/g.jsonl"],
     lambda t: (t / "g.jsonl").write_text("keep me\n"), "--force"),
    ("judge key hint", ["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--out", "{tmp}/r",
                        "--judge-model", "openai/gpt-x"], None, "--judge-api-key"),
    ("judge not a folder", ["judge", "{tmp}/nothing"], None, "is not a folder"),
    ("judge corrupt line mid results", ["judge", "{tmp}/run"], _corrupt_results, "(line 2) and not a cut-off"),
    ("sandbox process renamed", ["eval", "--model", "reference-code", "--time-agent", "--date", "2025-07-01",
                                 "--out", "{tmp}/r", "--sandbox", "process"], None, "now called 'unsafe-process'"),
    ("unknown command", ["evaluate"], None, "commands: generate, eval"),
    ("server token without url", ["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01",
                                  "--out", "{tmp}/r", "--server-token", "x" * 20], None, "--server-url"),
    ("time agent and tools", ["eval", "--model", "baseline", "--with-tools", "--time-agent", "--date",
                              "2025-07-01", "--out", "{tmp}/r"], None, "not allowed with"),
    # issue 33, finding 5
    ("instance nested 100,000 deep", ["eval", "--model", "baseline", "--instances", "{tmp}/deep.jsonl", "--out",
                                      "{tmp}/r"], lambda t: (t / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n"),
     "nests arrays or objects too deeply"),
    ("base url [::1", ["eval", "--model", "openai-compatible/x", "--base-url", "http://[::1", "--date",
                       "2025-07-01", "--out", "{tmp}/r"], None, "expected an http:// or https:// URL"),
    ("judge base url [::1", ["eval", "--model", "baseline", "--judge-model", "openai-compatible/j",
                             "--judge-base-url", "http://[::1", "--date", "2025-07-01", "--out", "{tmp}/r"], None,
     "expected an http:// or https:// URL"),
    ("judge command base url [::1", ["judge", "{tmp}", "--judge-model", "openai-compatible/j",
                                     "--judge-base-url", "http://[::1"], None, "expected an http:// or https:// URL"),
    ("base url bad port", ["eval", "--model", "openai-compatible/x", "--base-url", "http://h:99999/v1", "--date",
                           "2025-07-01", "--out", "{tmp}/r"], None, "Port out of range"),
    ("concurrency 3,000,000", ["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "5",
                               "--concurrency", "3000000", "--out", "{tmp}/r"], None, "from 1 to 1024"),
    ("epochs 10^9", ["eval", "--model", "baseline", "--date", "2025-07-01", "--epochs", "1000000000",
                     "--out", "{tmp}/r"], None, "from 1 to 1000"),
    ("tools --args nested 10,000 deep", ["tools", "call", "search_calendar", "--args",
                                         '{"a":' * 10_000 + "1" + "}" * 10_000], None,
     "nests arrays or objects too deeply"),
]


@pytest.mark.parametrize("name,argv,setup,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_input_one_line_exit_2(tmp_path, capsys, monkeypatch, name, argv, setup, needle):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    if setup:
        setup(tmp_path)
        capsys.readouterr()
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    try:
        rc = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    except SystemExit as e:  # argparse's own errors exit from inside
        rc = e.code
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert needle in err, err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p in before}
    assert after == before  # nothing overwritten or lost


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "span_toolkit.client.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60, **kw)


def test_no_command_lists_the_commands():
    r = _cli()
    assert r.returncode == 2
    for name in ("generate", "eval", "judge", "report", "tools", "demo"):
        assert name in r.stderr


def test_piping_into_head_is_not_an_error():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = f"{sys.executable} -m span_toolkit.client.cli generate --date 2025-07-01 --out - | head -c 100 >/dev/null"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=60)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
    r = subprocess.run(["bash", "-c", f"{sys.executable} -m span_toolkit.client.cli eval --help | head -1"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("usage:") and "Traceback" not in r.stderr


def test_tools_call_options_before_pairs():
    r = _cli("tools", "call", "search_calendar", "--json", "calendar=gregorian", "year=2025", "month=7", "day=1")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["weekday"] == "Tuesday"


def test_corrupt_line_is_set_aside_with_force_resume(tmp_path, capsys):
    inst = _corrupt_results(tmp_path)
    run = tmp_path / "run"
    assert main(["eval", "--model", "baseline", "--instances", str(inst), "--out", str(run), "--quiet",
                 "--force-resume"]) == 0
    assert (run / "results.corrupt").read_text() == "{this is not json\n"
    ids = [json.loads(x)["id"] for x in (run / "results.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 3


def test_judge_sets_a_corrupt_line_aside_with_force_resume(tmp_path, capsys):
    _corrupt_results(tmp_path)
    run = tmp_path / "run"
    assert main(["judge", str(run), "--force-resume"]) == 0
    assert (run / "results.corrupt").read_text() == "{this is not json\n"
    ids = [json.loads(x)["id"] for x in (run / "results.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 3
    assert json.loads((run / "summary.json").read_text())["n"] == 3
    assert oct((run / "results.corrupt").stat().st_mode & 0o777) == oct(0o600)
