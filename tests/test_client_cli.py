"""span-client tools (real span-server over stdio and streamable HTTP) and one-line CLI errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-c", "import sys; from span_toolkit.client.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_tools_list_over_stdio():
    r = run_cli("tools", "list", "--json")
    assert r.returncode == 0, r.stderr
    tools = {t["name"]: t for t in json.loads(r.stdout)}
    assert {"search_calendar", "date_arithmetic", "date_difference", "list_calendars"} <= set(tools)
    assert "calendar" in tools["search_calendar"]["input_schema"]["properties"]
    assert tools["date_arithmetic"]["output_schema"]
    r = run_cli("tools", "list")
    assert r.returncode == 0 and re.search(r"^date_arithmetic\b", r.stdout, re.M)
    assert "arguments: calendar, year?, month?, day?" in r.stdout  # year or gregorian_year (issue 32)


def test_tools_call_json_args_and_key_value_pairs():
    r = run_cli("tools", "call", "search_calendar", "--args",
                '{"calendar":"hebrew","year":5785,"festival_name":"Passover"}', "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["gregorian"]["numeric"] == "2025-4-13" and out["hebrew"]["display"] == "15 Nisan 5785"
    r = run_cli("tools", "call", "date_arithmetic", "calendar=gregorian", "year=2025", "month=7", "day=1",
                "weeks=-2")
    assert r.returncode == 0, r.stderr
    assert re.search(r"gregorian: 2025-6-17\b", r.stdout)
    assert "weekday: Tuesday" in r.stdout


def test_tools_call_text_keeps_the_disputed_marker_and_sends_nan_as_text():
    """The plain-text output printed each date's display form only, and so lost the `disputed` marker the
    MCP text, --json and Python carry; `days=NaN` reached the tool as null ("got None")."""
    r = run_cli("tools", "call", "search_calendar", "calendar=gregorian", "year=2057", "month=10", "day=1")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^chinese_lunar: 2057-9-3 .*\[disputed: other reading 2057-9-4: ", r.stdout, re.M)
    assert re.search(r"^gregorian: 2057-10-1  \(2057-10-1\)$", r.stdout, re.M)  # undisputed: as before
    r = run_cli("tools", "call", "date_arithmetic", "calendar=gregorian", "year=2025", "month=1", "day=1", "days=NaN")
    assert r.returncode == 1 and "got 'NaN'" in r.stderr
    r = run_cli("tools", "call", "date_arithmetic", "calendar=gregorian", "year=2025", "month=1", "day=1", "days=1e999")
    assert r.returncode == 1 and "got '1e999'" in r.stderr  # an overflowing float went as null too
    r = run_cli("tools", "call", "date_arithmetic", "--args",
                '{"calendar": "gregorian", "year": 2025, "month": 1, "day": 1, "days": NaN}')
    assert r.returncode == 2 and "--args is not valid JSON: NaN is not a JSON number" in r.stderr


def test_tools_call_error_result_exits_1_with_the_tools_message():
    r = run_cli("tools", "call", "date_arithmetic", "--args",
                '{"calendar":"hebrew","year":5784,"month":2,"day":30,"days":1}')
    assert r.returncode == 1
    assert r.stdout == ""
    [line] = r.stderr.strip().splitlines()
    assert line.startswith("span-client: date_arithmetic: ") and "30" in line
    r = run_cli("tools", "call", "no_such_tool", "x=1")
    assert r.returncode == 1 and "no_such_tool" in r.stderr


@pytest.mark.parametrize("argv,needle", [
    (["tools", "call", "search_calendar", "--args", "{not json"], "--args is not valid JSON"),
    (["tools", "call", "search_calendar", "--args", "[1, 2]"], "must be a JSON object"),
    (["tools", "call", "search_calendar", "novalue"], "expected key=value"),
    (["eval", "--model", "reference", "--date", "2025-07-01", "--out", "{tmp}/r"], "add --with-tools"),
    (["eval", "--model", "baseline", "--with-tools", "--date", "2025-07-01", "--out", "{tmp}/r"], "drop --with-tools"),
    (["eval", "--model", "gpt-4o", "--date", "2025-07-01", "--out", "{tmp}/r"], "PROVIDER/MODEL"),
    (["eval", "--model", "anthropic/claude-x", "--date", "2025-07-01", "--out", "{tmp}/r"], "ANTHROPIC_API_KEY"),
    (["eval", "--model", "openai-compatible/q", "--date", "2025-07-01", "--out", "{tmp}/r"], "--base-url"),
    (["eval", "--model", "baseline", "--instances", "{tmp}/missing.jsonl", "--out", "{tmp}/r"], "no such file"),
    (["eval", "--model", "baseline", "--date", "2025-07-01", "--out", "{tmp}/r", "--server-url", "http://x"],
     "--server-url only makes sense"),
    (["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--out", "{tmp}/r",
      "--judge-model", "baseline"], "must be an LLM"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, monkeypatch, argv, needle):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rc = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1 and err.startswith("span-client: error:") and needle in err, err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("argv,needle", [
    (["eval", "--model", "baseline", "--date", "2025-13-01", "--out", "x"], "--date"),
    (["eval", "--model", "baseline", "--dates", "2025-07-01..2024-07-01/1y", "--out", "x"], "--dates"),
    (["eval", "--model", "baseline", "--date", "2025-07-01", "--out", "x", "--concurrency", "0"], "an integer from 1 to"),
    (["eval", "--model", "baseline", "--date", "2025-07-01", "--instances", "f", "--out", "x"], "not allowed with"),
    (["eval", "--model", "baseline", "--date", "2025-07-01"], "--out"),
])
def test_argparse_errors_exit_2(capsys, argv, needle):
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert needle in capsys.readouterr().err


def test_tools_over_streamable_http(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", "--transport", "streamable-http", "--port", "0"],
                            cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        url = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and url is None:
            line = proc.stderr.readline()
            m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line or "")
            if m:
                url = m.group(1)
        assert url, "server did not print its URL"
        r = run_cli("tools", "call", "search_calendar", "--server-url", url, "--json", "--args",
                    '{"calendar":"chinese_lunar","year":2025,"festival_name":"Chinese New Year"}')
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["gregorian"]["numeric"] == "2025-1-29"
        # and an eval run through the same server URL
        out = tmp_path / "run"
        r = run_cli("eval", "--model", "reference", "--with-tools", "--server-url", url, "--date", "2025-07-01",
                    "--sample", "12", "--out", str(out), "--quiet")
        assert r.returncode == 0, r.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["n"] == 12 and summary["accuracy"] == 1.0
        assert json.loads((out / "run.json").read_text())["mcp"]["server"] == url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_unreachable_server_url_is_a_clear_error():
    r = run_cli("tools", "list", "--server-url", "http://127.0.0.1:9/mcp")
    assert r.returncode == 1
    assert "could not connect to the MCP server (http://127.0.0.1:9/mcp)" in r.stderr


def test_report_and_generate_are_lazy_subcommands(tmp_path):
    r = run_cli("generate", "--help")
    assert r.returncode == 0 or "not available" in r.stderr
    r = run_cli("report", "--help")
    assert r.returncode == 0 and "RUN_DIR" in r.stdout
