"""span-server as a process: --help, startup errors, stdio (python -m server and the console script),
streamable HTTP on 127.0.0.1 with an ephemeral port (health, tools, Host-header rejection, bearer token)."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import httpx2
from span_toolkit import span
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token-0123456789abcdef"
D = {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPAN_SERVER_TOKEN", "SPAN_SERVER_ALLOWED_HOSTS", "SPAN_SERVER_ALLOWED_ORIGINS")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "span_toolkit.server", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env or _env())


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def test_help_documents_everything():
    r = run_cli("--help")
    assert r.returncode == 0
    for word in ("--transport", "stdio", "streamable-http", "--host", "127.0.0.1", "--port", "--allowed-hosts",
                 "SPAN_SERVER_TOKEN", "/health", "421", "--stateless-http", "--json-response", "--log-level"):
        assert word in r.stdout, word


def test_version_flag():
    from span_toolkit.server.app import server_version
    r = run_cli("--version")
    assert r.returncode == 0 and server_version() in r.stdout


@pytest.mark.parametrize("args,env,words", [
    (["--host", "0.0.0.0"], {}, ["not a loopback address", "--allowed-hosts", "SPAN_SERVER_TOKEN"]),
    (["--host", "0.0.0.0", "--allowed-hosts", "mcp.example.com"], {}, ["SPAN_SERVER_TOKEN"]),
    (["--host", "0.0.0.0"], {"SPAN_SERVER_TOKEN": TOKEN}, ["--allowed-hosts"]),
    (["--host", "0.0.0.0", "--allowed-hosts", "*"], {"SPAN_SERVER_TOKEN": TOKEN}, ["'*'"]),
    ([], {"SPAN_SERVER_TOKEN": "short"}, ["at least 16 characters"]),
    (["--port", "70000"], {}, ["--port"]),
])
def test_startup_errors_are_one_line(args, env, words):
    r = run_cli("--transport", "streamable-http", *args, env=_env(**env))
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("span-server: error:"), r.stderr
    for w in words:
        assert w in lines[0]
    assert r.stdout == ""


@pytest.mark.parametrize("host,hosts,allowed,refused", [
    ("127.0.0.1", None, ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"], ["evil.example", "127.0.0.2:8000"]),
    ("127.0.0.2", None, ["127.0.0.2:8000", "127.0.0.2", "localhost:1"], ["evil.example:8000"]),
    ("::1", None, ["[::1]:8000"], ["evil.example"]),
    ("127.0.0.1", ["app.test"], ["app.test", "app.test:8000", "127.0.0.1:9"], ["evil.example"]),
    ("0.0.0.0", ["a.test:8443,b.test"], ["a.test:8443", "b.test", "b.test:1"], ["a.test", "127.0.0.1:8000"]),
])
def test_resolve_security_always_explicit(monkeypatch, host, hosts, allowed, refused):
    from mcp.server.transport_security import TransportSecurityMiddleware

    from span_toolkit.server.transport.security import resolve_security

    monkeypatch.setenv("SPAN_SERVER_TOKEN", TOKEN)
    monkeypatch.delenv("SPAN_SERVER_ALLOWED_HOSTS", raising=False)
    sec = resolve_security(host, hosts)
    assert sec.transport_security.enable_dns_rebinding_protection and sec.token == TOKEN
    check = TransportSecurityMiddleware(sec.transport_security)
    for h in allowed:
        assert check._validate_host(h), h
    for h in refused:
        assert not check._validate_host(h), h


def test_resolve_security_env_hosts(monkeypatch):
    from span_toolkit.server.transport import StartupError
    from span_toolkit.server.transport.security import resolve_security

    monkeypatch.delenv("SPAN_SERVER_TOKEN", raising=False)
    monkeypatch.setenv("SPAN_SERVER_ALLOWED_HOSTS", "mcp.example.com")
    with pytest.raises(StartupError, match="SPAN_SERVER_TOKEN"):
        resolve_security("0.0.0.0")
    monkeypatch.setenv("SPAN_SERVER_TOKEN", TOKEN)
    sec = resolve_security("0.0.0.0")
    assert "mcp.example.com" in sec.transport_security.allowed_hosts
    assert "https://mcp.example.com" in sec.transport_security.allowed_origins


def test_bad_transport_rejected_by_argparse():
    r = run_cli("--transport", "sse")
    assert r.returncode == 2 and "invalid choice" in r.stderr


# --------------------------------------------------------------------------------------------
# stdio
# --------------------------------------------------------------------------------------------

async def _exercise(client: Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == {"search_calendar", "date_arithmetic", "date_difference", "list_calendars", "today"}
    r = await client.call_tool("search_calendar", {"calendar": "lunar", "year": 2025, "festival_name": "Spring Festival"})
    assert not r.is_error and r.structured_content["gregorian"]["numeric"] == "2025-1-29"
    r = await client.call_tool("date_arithmetic", {**D, "weeks": -2})
    assert not r.is_error and r.structured_content["result"]["gregorian"]["numeric"] == "2025-6-17"
    r = await client.call_tool("date_difference", {"start": D, "end": {**D, "year": 2026}})
    assert not r.is_error and r.structured_content["days"] == 365
    r = await client.call_tool("search_calendar", {"calendar": "hebrew", "year": 5785, "month": 13, "day": 1})
    assert r.is_error and "not a leap year" in r.content[0].text
    r = await client.call_tool("list_calendars", {})
    assert not r.is_error and len(r.structured_content["calendars"]) == len(span.ALL_CALENDAR_NAMES)
    assert client.server_info.name == "span"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_python_m_server(mode):
    params = StdioServerParameters(command=sys.executable, args=["-m", "span_toolkit.server"], cwd=str(ROOT), env=_env())
    async with Client(params, mode=mode) as client:
        await _exercise(client)


async def test_stdio_console_script():
    exe = shutil.which("span-server")
    if exe is None:
        pytest.skip("console script span-server not on PATH (pip install -e . installs it)")
    async with Client(StdioServerParameters(command=exe, args=["--log-level", "DEBUG"], env=_env())) as client:
        await _exercise(client)


def test_stdio_stdout_carries_only_protocol():
    """Raw JSON-RPC over the pipe: every stdout line is a JSON-RPC message, logs (DEBUG) go to stderr."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "search_calendar", "arguments": {"calendar": "mayan", "year": 1}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search_calendar", "arguments": D}},
    ]
    errlog = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", "--log-level", "DEBUG"], cwd=ROOT, env=_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, text=True)
    try:
        replies = {}
        for m in msgs:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
            if "id" in m:
                while True:
                    line = proc.stdout.readline()
                    assert line, "server closed stdout"
                    msg = json.loads(line)  # would fail on any non-protocol output
                    assert msg["jsonrpc"] == "2.0"
                    if msg.get("id") == m["id"]:
                        replies[m["id"]] = msg
                        break
        proc.stdin.close()  # end of input: the server exits
        rest = proc.stdout.read()
        proc.wait(timeout=20)
        errlog.seek(0)
        err = errlog.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errlog.close()
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert replies[1]["result"]["serverInfo"]["name"] == "span"
    from span_toolkit.server.tools import TOOLS
    assert [t["name"] for t in replies[2]["result"]["tools"]] == list(TOOLS)
    assert replies[3]["result"]["isError"] is True and "unknown calendar" in replies[3]["result"]["content"][0]["text"]
    assert replies[4]["result"]["structuredContent"]["gregorian"]["numeric"] == "2025-7-1"
    assert "DEBUG" in err  # the logs went to stderr
    assert proc.returncode == 0


# --------------------------------------------------------------------------------------------
# streamable HTTP
# --------------------------------------------------------------------------------------------

@contextmanager
def http_server(*args: str, env: dict[str, str] | None = None, host: str = "127.0.0.1"):
    """Start span-server on an ephemeral port; yield (base_url, mcp_url) once /health answers."""
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", "--transport", "streamable-http", "--host", host,
                             "--port", "0", "--log-level", "WARNING", *args],
                            cwd=ROOT, env=env or _env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.search(r"streamable HTTP on (http://\S+)", line)
            if m:
                url = m.group(1)
        assert url, f"server did not start: rc={proc.poll()}"
        port = int(re.search(r":(\d+)/", url).group(1))
        base = f"http://127.0.0.1:{port}"
        while time.monotonic() < deadline:
            try:
                status, body = _get(port, "/health")
                if status == 200:
                    break
            except OSError:
                time.sleep(0.05)
        yield base, f"{base}/mcp", port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _get(port: int, path: str, headers: dict | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "raw", "version": "0"}}})


def _post_init(port: int, host_header: str, extra: dict | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/mcp", body=INIT, headers={
            "Host": host_header, "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **(extra or {})})
        r = conn.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def loopback_server():
    with http_server() as urls:
        yield urls


def test_http_health(loopback_server):
    from span_toolkit.server.app import server_version
    _, _, port = loopback_server
    status, body = _get(port, "/health")
    assert status == 200
    data = json.loads(body)
    assert data["status"] == "ok" and data["version"] == server_version()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http_tools(loopback_server, mode):
    _, url, _ = loopback_server
    async with Client(url, mode=mode) as client:
        await _exercise(client)


def test_http_host_header_rejected(loopback_server):
    _, _, port = loopback_server
    status, body = _post_init(port, "evil.example")
    assert status == 421 and "Invalid Host header" in body
    status, _ = _post_init(port, f"evil.example:{port}")
    assert status == 421
    status, _ = _post_init(port, f"127.0.0.1:{port}")
    assert status == 200
    status, _ = _post_init(port, f"localhost:{port}", {"Origin": "http://evil.example"})
    assert status == 403


async def test_http_token_and_allowed_hosts_on_all_interfaces():
    """--host 0.0.0.0 with --allowed-hosts and SPAN_SERVER_TOKEN: the Host header list and the token are
    both enforced (raw requests and the SDK client with an Authorization header); /health stays open."""
    env = _env(SPAN_SERVER_TOKEN=TOKEN)
    with http_server("--allowed-hosts", "span.test,127.0.0.1", env=env, host="0.0.0.0") as (_, url, port):
        assert _get(port, "/health")[0] == 200
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert _post_init(port, f"span.test:{port}")[0] == 401                      # no token
        assert _post_init(port, f"span.test:{port}", {"Authorization": "Bearer wrong-token-xxxxxxxx"})[0] == 401
        assert _post_init(port, f"span.test:{port}", {"Authorization": TOKEN})[0] == 401  # no scheme
        assert _post_init(port, f"span.test:{port}", auth)[0] == 200
        assert _post_init(port, "span.test", auth)[0] == 200                         # behind a proxy, no port
        assert _post_init(port, f"localhost:{port}", auth)[0] == 421                 # not an allowed host
        assert _post_init(port, f"evil.example:{port}", auth)[0] == 421

        http = httpx2.AsyncClient(headers=auth, timeout=30)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            r = await client.call_tool("search_calendar", D)
            assert not r.is_error and r.structured_content["weekday"] == "Tuesday"


async def test_http_stateless_sse():
    """The non-default modes together: no sessions, SSE-streamed answers."""
    with http_server("--stateless-http", "--no-json-response") as (_, url, _):
        for mode in ("auto", "legacy"):
            async with Client(url, mode=mode) as client:
                r = await client.call_tool("date_arithmetic", {**D, "days": 1})
                assert r.structured_content["result"]["gregorian"]["numeric"] == "2025-7-2"


def test_help_names_every_calendar():
    """`span-server --help` says how many calendars there are and names each (it once named six of them);
    the count is the registry's, in words."""
    import re

    from span_toolkit import span
    from span_toolkit.server.__main__ import build_parser

    text = " ".join(build_parser().format_help().split())
    from span_toolkit.span.calendars.prose import number_word

    assert f"{number_word(len(span.ALL_CALENDAR_NAMES))} calendars" in text
    for name in span.ALL_CALENDAR_NAMES:
        title = span.get_calendar(name).title
        words = re.sub(r"[()]", " ", title).split()
        assert all(w.lower() in text.lower() for w in words), title
