"""stdio under garbage (issue 21): `python -m span_toolkit.server` as a real subprocess on pipes.

A line that is not JSON gets -32700 with "id": null, JSON that is not a message object gets -32600,
each answered at once (the client does not have to close stdin to hear it), and the server goes on
to answer the next call; each bad line costs one short log line on stderr.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_calendar", "arguments": {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}}}


class StdioServer:
    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", *args], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err)
        self._buffer = b""

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def send_json(self, message: dict) -> None:
        self.send(json.dumps(message).encode())

    def read(self, timeout: float = 20.0) -> dict:
        """The next stdout line, waiting at most `timeout` s (stdin stays open)."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            assert left > 0, f"no answer within {timeout} s; stdout so far {self._buffer[:200]!r}"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                assert chunk, f"the server closed stdout: {self.stderr()[-500:]}"
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def quiet(self, seconds: float = 0.5) -> bool:
        """True when nothing arrives on stdout for `seconds`."""
        return not self._buffer and not select.select([self.proc.stdout.fileno()], [], [], seconds)[0]

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.err.close()


@pytest.fixture
def stdio():
    srv = StdioServer()
    yield srv
    srv.close()


def _error(reply: dict) -> tuple[object, int]:
    assert reply["jsonrpc"] == "2.0" and "result" not in reply, reply
    return reply["id"], reply["error"]["code"]


BAD_LINES = [
    # (line, expected id, expected code)
    (b"this is not json", None, -32700),
    (b"\xff\xfe\x00\x9c binary \x80", None, -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', None, -32700),                 # cut short
    (b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}]', None, -32600),              # a batch
    (b"42", None, -32600),
    (b'"initialize"', None, -32600),
    (b'{"jsonrpc": "2.0", "id": 9, "method": 12}', 9, -32600),                       # an id to answer to
    (b'{"jsonrpc": "2.0", "method": "tools/list", "params": 5}', None, -32600),
]


def test_garbage_gets_an_answer_and_the_next_call_works(stdio):
    """Done-when: each garbage line is answered at once (-32700 or -32600, id null unless the object has
    one) and the server still answers the next call, before and after initialize."""
    for line, rid, code in BAD_LINES[:3]:  # before the session even starts
        stdio.send(line)
        assert _error(stdio.read()) == (rid, code), line
    stdio.send_json(INIT)
    assert stdio.read()["result"]["serverInfo"]["name"] == "span"
    stdio.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for line, rid, code in BAD_LINES[3:]:
        stdio.send(line)
        assert _error(stdio.read()) == (rid, code), line
    stdio.send(b"")  # a blank line is no message: skipped without an answer
    stdio.send(b"   \r")
    assert stdio.quiet()
    stdio.send_json(CALL)
    reply = stdio.read()
    assert reply["id"] == 2 and reply["result"]["structuredContent"]["weekday"] == "Tuesday"
    assert stdio.proc.poll() is None
    warnings = [ln for ln in stdio.stderr().splitlines() if "span.server.stdio" in ln]
    assert len(warnings) == len(BAD_LINES)  # one line per bad input, none for blank lines
    assert sum("-32700" in w for w in warnings) == 3 and sum("-32600" in w for w in warnings) == 5


def test_a_megabyte_of_garbage_is_not_echoed(stdio):
    """A 1 MB line that is not JSON, and 1 MB of JSON that is not a request: each answer and each log
    line stays under 400 bytes, and the server answers a call after them."""
    stdio.send(b"x" * 1_000_000)
    first = stdio.read()
    stdio.send(json.dumps({"jsonrpc": "2.0", "id": "y" * 1_000_000, "method": 3}).encode())
    second = stdio.read()
    for reply, code in ((first, -32700), (second, -32600)):
        assert _error(reply) == (None, code)  # a megabyte id is not echoed back either
        assert len(json.dumps(reply)) < 400
    stdio.send_json(INIT)
    assert stdio.read()["id"] == 1
    lines = [ln for ln in stdio.stderr().splitlines() if "span.server.stdio" in ln]
    assert len(lines) == 2 and max(len(ln.encode()) for ln in lines) < 400, lines
    assert "Traceback" not in stdio.stderr()


def _peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to read the peak RSS")
def test_a_huge_line_is_refused_unread_and_memory_stays_flat(stdio):
    """A 256 MB line with no newline until its end (the SDK's own reader kept it whole: a 200 MB line took
    the server to 820 MB) is answered -32600 as too long, read in pieces and dropped: the peak RSS grows by
    less than 32 MB, and the next call is answered."""
    stdio.send_json(INIT)
    assert stdio.read()["id"] == 1
    before = _peak_rss_kib(stdio.proc.pid)
    chunk = b"[" * (1 << 20)
    for _ in range(256):
        stdio.proc.stdin.write(chunk)
    stdio.send(b"]")
    rid, code = _error(reply := stdio.read(timeout=60))
    assert (rid, code) == (None, -32600) and "over 1048576 bytes" in reply["error"]["message"], reply
    assert "--max-body-bytes" in reply["error"]["message"]
    growth_mib = (_peak_rss_kib(stdio.proc.pid) - before) / 1024
    assert growth_mib < 32, f"peak RSS grew {growth_mib:.0f} MiB on one long line"
    stdio.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
    stdio.send_json(CALL)
    assert stdio.read()["result"]["structuredContent"]["weekday"] == "Tuesday"
    lines = [ln for ln in stdio.stderr().splitlines() if "span.server.stdio" in ln]
    assert len(lines) == 1 and "268435458 bytes" in lines[0], lines  # 256 MiB, "]" and the newline


def test_the_line_limit_is_max_body_bytes():
    """--max-body-bytes caps a stdio line too: a valid request one byte over it is refused unread, one
    that fits is answered; a bad value stops the server with one line before it reads anything."""
    srv = StdioServer("--max-body-bytes", "2048")
    try:
        srv.send_json(INIT)
        assert srv.read()["id"] == 1
        srv.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
        padded = dict(CALL, id=3, params=dict(CALL["params"], _meta={"pad": ""}))
        padded["params"]["_meta"]["pad"] = "p" * (2049 - len(json.dumps(padded)))  # 2,049 bytes and the newline
        srv.send_json(padded)
        assert _error(srv.read()) == (None, -32600)
        srv.send_json(CALL)
        assert srv.read()["id"] == 2
    finally:
        srv.close()
    bad = subprocess.run([sys.executable, "-m", "span_toolkit.server", "--max-body-bytes", "12"], cwd=ROOT, input=b"",
                         capture_output=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr.decode().strip().splitlines() == [
        "span-server: error: --max-body-bytes / SPAN_SERVER_MAX_BODY_BYTES must be a whole number of bytes from "
        "1024 to 2147483648, got '12' (--max-body-bytes)"]


@pytest.mark.parametrize("closed", ["stdin", "stdout"])
def test_a_closed_stdin_or_stdout_is_one_line_not_a_traceback(closed):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    shell = f"exec {sys.executable} -m span_toolkit.server " + ("<&-" if closed == "stdin" else ">&-")
    r = subprocess.run(["sh", "-c", shell], cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.decode().strip().splitlines() == [
        "span-server: error: stdin or stdout is closed: under stdio the MCP host talks to span-server over both "
        "(or serve HTTP: --transport streamable-http)"]


def test_fd_0_is_off_the_protocol_pipe_while_serving(stdio):
    """The server reads the pipe through a private duplicate and points fd 0 at /dev/null (the SDK does so
    for the stdin it reads itself), so a handler or child reading stdin cannot eat protocol bytes."""
    stdio.send_json(INIT)
    assert stdio.read()["id"] == 1
    assert os.readlink(f"/proc/{stdio.proc.pid}/fd/0") == "/dev/null"
    stdio.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
    stdio.send_json(CALL)
    assert stdio.read()["id"] == 2


# ------------------------------------------------------------------------------------------ issue 33, finding 6
def _piped_session() -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, CALL]
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    proc.stdin.close()  # end of input right after the call, as `printf … | span-server` does
    return proc


def test_end_of_input_drains_every_request_already_read():
    """50 of 50 sessions that write initialize, initialized and a call, then close stdin, get the call's
    answer (the SDK cancels handlers still running at end of input; the server now waits for them)."""
    answered = 0
    for _ in range(10):  # 5 at a time
        procs = [_piped_session() for _ in range(5)]
        for p in procs:
            out = p.stdout.read()
            p.wait(timeout=120)
            p.stdout.close()
            ids = [json.loads(x).get("id") for x in out.decode().splitlines() if x.strip()]
            answered += 2 in ids
            assert p.returncode == 0
    assert answered == 50


async def test_the_drain_is_bounded():
    """A request that never gets its answer holds the end of input back DRAIN_SECONDS at most."""
    import anyio

    from span_toolkit.server.transport.stdio import AnsweringReadStream

    class Inner:
        def __init__(self):
            self.items = []

        async def receive(self):
            if self.items:
                return self.items.pop(0)
            raise anyio.EndOfStream

    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCRequest, JSONRPCResponse

    inner = Inner()
    inner.items.append(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/call")))
    reader = AnsweringReadStream(inner, None)
    reader.drain_seconds = 0.3
    await reader.receive()
    t = time.monotonic()
    with pytest.raises(anyio.EndOfStream):
        await reader.receive()
    assert 0.25 < time.monotonic() - t < 2
    reader.pending.add(("int", 8))
    reader.answered(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=8, result={})))
    reader.answered(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=7, result={})))
    assert reader.pending == set()


def test_a_line_nested_too_deeply_is_told_so(stdio):
    """JSON nested 5,000 levels deep is JSON, just too deep to read: the answer says that (it said "not
    JSON"), and the server reads on."""
    stdio.send(b"[" * 5000 + b"]" * 5000)
    reply = stdio.read()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert "too deeply" in reply["error"]["message"] and "not JSON" not in reply["error"]["message"]
    stdio.send_json(INIT)
    assert stdio.read()["result"]["serverInfo"]["name"] == "span"
