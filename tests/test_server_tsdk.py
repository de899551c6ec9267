"""The server through the TypeScript MCP SDK's Client over stdio (tests/tsdk_check.cjs): every tool's
structuredContent passes the SDK's own outputSchema validation (Ajv), every schema compiles under Ajv's
strict mode, and the published calendar pattern accepts every listed alias (ECMA-262 regex semantics).

Needs node and `npm install @modelcontextprotocol/sdk` in SPAN_TSDK_PREFIX (default .ci/tsdk); skipped
otherwise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PREFIX = Path(os.environ.get("SPAN_TSDK_PREFIX", ROOT / ".ci" / "tsdk"))
PKG_JSON = PREFIX / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
SCRIPT = ROOT / "tests" / "tsdk_check.cjs"


def _why_unavailable() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (the TypeScript SDK check needs Node.js)"
    if not PKG_JSON.exists():
        return f"@modelcontextprotocol/sdk not installed in {PREFIX} (npm install --prefix {PREFIX} @modelcontextprotocol/sdk)"
    return None


_REASON = _why_unavailable()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def test_typescript_sdk_client_validates_every_result():
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    r = subprocess.run(["node", str(SCRIPT), str(PREFIX), "--", sys.executable, "-m", "span_toolkit.server", "--log-level",
                        "WARNING"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert len(out["calls"]) == 7
    for call in out["calls"]:
        assert call["ok"] and call["validated"], call
    assert all(v == "ok" for v in out["strict"].values()), out["strict"]
    bad = set(out["bad_spellings"])
    wrong = {s: ok for s, ok in out["spellings"].items() if ok == (s in bad)}
    assert not wrong, wrong
    assert len(out["spellings"]) > 100
