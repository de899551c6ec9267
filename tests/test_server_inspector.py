"""Acceptance through a real MCP client nobody here wrote: the MCP Inspector CLI (npm
@modelcontextprotocol/inspector, pinned 2.12.0), installed by .ci/inspector.sh into .ci/node/.

Exit codes: 0 on success, 5 when the tool returns isError (or is unknown), 6 for --strict schema errors.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_server_transports import D, _env, http_server

ROOT = Path(__file__).resolve().parent.parent
PINNED = "2.12.0"
PREFIX = Path(os.environ.get("SPAN_INSPECTOR_PREFIX", ROOT / ".ci" / "node"))
CLI = PREFIX / "node_modules" / ".bin" / "mcp-inspector"
PKG_JSON = PREFIX / "node_modules" / "@modelcontextprotocol" / "inspector" / "package.json"


def _why_unavailable() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (the Inspector CLI needs Node.js; run .ci/inspector.sh where it is)"
    if not CLI.exists() or not PKG_JSON.exists():
        return f"MCP Inspector CLI not installed in {PREFIX} (run .ci/inspector.sh)"
    version = json.loads(PKG_JSON.read_text())["version"]
    if version != PINNED:
        return f"MCP Inspector {version} found in {PREFIX}, tests need the pinned {PINNED} (run .ci/inspector.sh)"
    return None


_REASON = _why_unavailable()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

# (no server flags after the target: the Inspector would take --log-level as its own option)
STDIO_TARGET = [sys.executable, "-m", "span_toolkit.server"]


def inspector(tmp_path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    # Keep the Inspector's catalog (~/.mcp-inspector) out of the user's home.
    env = _env(MCP_CATALOG_PATH=str(tmp_path / "mcp.json"), HOME=str(tmp_path))
    return subprocess.run([str(CLI), "--cli", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def _stdio(*method_args: str) -> list[str]:
    return [*STDIO_TARGET, "--cwd", str(ROOT), "-e", f"PYTHONPATH={ROOT}", *method_args]


def test_inspector_stdio_tools_list_strict(tmp_path):
    r = inspector(tmp_path, *_stdio("--method", "tools/list", "--strict"))
    assert r.returncode == 0, r.stderr
    tools = {t["name"]: t for t in json.loads(r.stdout)["tools"]}
    assert set(tools) == {"search_calendar", "date_arithmetic", "date_difference", "list_calendars", "today"}
    for t in tools.values():
        assert t["annotations"]["readOnlyHint"] is True and t["annotations"]["openWorldHint"] is False
        assert t["outputSchema"]["type"] == "object" and t["title"]
    from span_toolkit.server.tools import CALENDAR_PATTERN
    assert tools["search_calendar"]["inputSchema"]["properties"]["calendar"]["pattern"] == CALENDAR_PATTERN


def test_inspector_stdio_tools_call_ok(tmp_path):
    args = json.dumps({"calendar": "Chinese Lunar", "year": 2023, "month": 2, "day": 15, "is_lunar_leap_month": True})
    r = inspector(tmp_path, *_stdio("--method", "tools/call", "--tool-name", "search_calendar",
                                    "--tool-args-json", args))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out.get("isError") in (None, False)
    assert out["structuredContent"]["chinese_lunar"]["display"] == "2023-leap2-15"
    assert "chinese_lunar: 2023-leap2-15 (leap month)" in out["content"][0]["text"].splitlines()


def test_inspector_stdio_tools_call_is_error_exits_5(tmp_path):
    args = json.dumps({"calendar": "hebrew", "year": 5785, "month": 13, "day": 1})
    r = inspector(tmp_path, *_stdio("--method", "tools/call", "--tool-name", "search_calendar",
                                    "--tool-args-json", args))
    assert r.returncode == 5, (r.stdout, r.stderr)
    assert "tool_is_error" in r.stderr
    assert "not a leap year" in r.stdout + r.stderr


def test_inspector_http(tmp_path):
    with http_server() as (_, url, _port):
        r = inspector(tmp_path, url, "--method", "tools/list")
        assert r.returncode == 0, r.stderr
        from span_toolkit.server.tools import TOOLS
        assert [t["name"] for t in json.loads(r.stdout)["tools"]] == list(TOOLS)
        r = inspector(tmp_path, url, "--method", "tools/call", "--tool-name", "date_arithmetic",
                      "--tool-args-json", json.dumps({**D, "calendar": "islamic", "year": 1447, "months": 1,
                                                      "day": 30, "month": 1}))
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)["structuredContent"]
        assert out["result"]["islamic"]["display"] == "29 Safar 1447" and out["clamped"] is True
        r = inspector(tmp_path, url, "--method", "tools/call", "--tool-name", "no_such_tool",
                      "--tool-args-json", "{}")
        assert r.returncode == 5
