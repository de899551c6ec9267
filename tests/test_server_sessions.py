"""MCP sessions over streamable HTTP under abuse (issue 21): clients that send `initialize` and vanish,
sessions left idle, and event streams held open against the connection cap.

Each test starts a real `span-server --transport streamable-http` on 127.0.0.1 (helpers from
test_server_hardening.py). The memory figure before/after is in benchmarks/bench_http.py.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest

from test_server_hardening import PROTOCOL, _answered, _env, span_server

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "abandoning-client", "version": "0"}}}


def abandon(srv, count: int, threads: int = 4) -> list[str]:
    """`count` clients that each open a connection, initialize a session and go away (no
    notifications/initialized, no DELETE); returns the session ids in the order they were made."""
    ids: list[tuple[float, str]] = []
    failures: list = []

    def run(n: int) -> None:
        for _ in range(n):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            try:
                r, body = srv.post(conn, INIT)
                if r.status != 200:
                    failures.append((r.status, body[:100]))
                else:
                    ids.append((time.monotonic(), r.getheader("mcp-session-id")))
            finally:
                conn.close()

    workers = [threading.Thread(target=run, args=(count // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not failures, failures[:3]
    return [sid for _, sid in sorted(ids)]


def status_of(srv, session: str) -> int:
    """The HTTP status a request in `session` gets (404: the session is closed)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        r, _ = srv.post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        return r.status
    finally:
        conn.close()


def fresh_client_works(srv) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        sid = srv.session(conn)
        return _answered(srv.call(conn, sid))
    finally:
        conn.close()


def hold_event_stream(srv, session: str) -> socket.socket:
    """GET /mcp in `session`: the standalone SSE stream, which the server keeps open (our tools never
    send on it). Returns the socket once the response head has arrived."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    head = "".join(f"{k}: {v}\r\n" for k, v in srv.headers(session).items() if k != "Content-Type")
    s.sendall(f"GET /mcp HTTP/1.1\r\n{head}\r\n".encode().replace(b"application/json, ", b""))
    first = s.recv(4096)
    assert first.startswith(b"HTTP/1.1 200") and b"text/event-stream" in first, first[:200]
    return s


def test_three_thousand_abandoned_sessions_stay_bounded():
    """Done-when: 3,000 clients that initialize and vanish grow the server by at most 60 MB (before:
    +127 MB, and nothing was ever freed); the oldest sessions were closed (404), the newest still
    answer, and a new client still works."""
    with span_server(token=None) as srv:
        assert fresh_client_works(srv)
        time.sleep(0.3)
        base = srv.rss_mb()
        ids = abandon(srv, 3000)
        time.sleep(1.5)
        grown = srv.rss_mb() - base
        assert fresh_client_works(srv)
        assert status_of(srv, ids[0]) == 404 and status_of(srv, ids[1000]) == 404
        assert status_of(srv, ids[-1]) == 202
        err = srv.stderr()
    assert grown <= 60, f"RSS grew by {grown:.1f} MB"
    assert "least recently used idle session(s) to stay within --max-sessions 1000" in err
    assert "Traceback" not in err


def test_the_least_recently_used_idle_session_is_the_one_closed():
    """--max-sessions 20: with 20 open, a 21st closes the session whose last request is the oldest; a
    session used a moment ago survives although it was opened first."""
    with span_server("--max-sessions", "20", token=None) as srv:
        ids = abandon(srv, 20, threads=1)
        assert status_of(srv, ids[0]) == 202  # the first session is now the most recently used
        [newest] = abandon(srv, 1, threads=1)
        assert status_of(srv, ids[1]) == 404  # the least recently used one went
        assert [status_of(srv, sid) for sid in (ids[0], *ids[2:], newest)] == [202] * 20
        assert fresh_client_works(srv)  # closes ids[2], the least recently used now


def test_sessions_holding_a_stream_are_not_closed_at_the_cap():
    """A session with a request in flight (here its GET event stream) is never the one closed: with
    every session busy, a new session gets the SDK's 503 and the busy ones keep working."""
    with span_server("--max-sessions", "3", token=None) as srv:
        ids = abandon(srv, 3, threads=1)
        streams = [hold_event_stream(srv, sid) for sid in ids]
        try:
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            r, body = srv.post(conn, INIT)
            assert r.status == 503 and b"Too many open sessions" in body
            assert [status_of(srv, sid) for sid in ids] == [202] * 3
        finally:
            for s in streams:
                s.close()
        time.sleep(0.5)  # the streams' sessions are idle again: the next newcomer closes one
        assert fresh_client_works(srv)


def _closed(s: socket.socket) -> bool:
    """True when the server has ended this held stream (EOF or reset), waiting up to 2 s."""
    s.settimeout(2)
    try:
        while chunk := s.recv(4096):
            if b"0\r\n\r\n" in chunk:  # the chunked stream's end
                return True
        return True
    except socket.timeout:
        return False
    except OSError:
        return True


def test_held_event_streams_do_not_lock_out_a_new_client():
    """Done-when (issue 21, item 5): with every one of --max-connections 16 slots held by a GET event
    stream (before: each newcomer got 503), a new client still gets in: the stream held longest is
    closed for it, not a newer one; an idle keep-alive connection would have gone first."""
    with span_server("--max-connections", "16", token=None) as srv:
        ids = abandon(srv, 16, threads=1)
        streams = [hold_event_stream(srv, sid) for sid in ids[:15]]
        idle = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        idle.request("GET", "/health", headers={"Host": f"127.0.0.1:{srv.port}"})
        assert idle.getresponse().read()  # the 16th slot: an idle keep-alive connection
        try:
            assert fresh_client_works(srv)  # sheds the idle connection, not a stream
            assert not any(_closed(s) for s in streams[:2])
            streams.append(hold_event_stream(srv, ids[15]))  # all 16 slots are streams now
            assert fresh_client_works(srv)
            assert _closed(streams[0]) and not _closed(streams[1])
            assert status_of(srv, ids[0]) == 202  # the session lives on; its client may open a new stream
            time.sleep(1.2)
            err = srv.stderr()
            assert "closed 1 event stream(s) held longest to stay within --max-connections 16" in err
            assert "refused" not in err and "Traceback" not in err
        finally:
            idle.close()
            for s in streams:
                s.close()


def test_an_idle_session_expires_and_a_fresh_one_works():
    """Done-when: with --session-idle-timeout 2, a session idle for 5 s answers 404 (the spec's signal to
    initialize again) and a fresh one works; a session used every second stays open."""
    with span_server("--session-idle-timeout", "2", token=None) as srv:
        assert "sessions idle at most 2 s" in srv.stderr()
        idle, busy = abandon(srv, 2, threads=1)
        for _ in range(5):
            time.sleep(1.0)
            assert status_of(srv, busy) == 202
        assert status_of(srv, idle) == 404
        assert fresh_client_works(srv)


def test_session_limits_from_flags_and_environment():
    from span_toolkit.server.transport.limits import LimitError, resolve_limits

    env = {"SPAN_SERVER_MAX_SESSIONS": "50", "SPAN_SERVER_SESSION_IDLE_TIMEOUT": "60"}
    lim = resolve_limits({"max_sessions": "70"}, env, nofile=1024)
    assert (lim.max_sessions, lim.session_idle_timeout) == (70, 60.0)
    lim = resolve_limits({}, {}, nofile=1024)
    assert (lim.max_sessions, lim.session_idle_timeout) == (1000, 300.0)
    with pytest.raises(LimitError, match="--max-sessions / SPAN_SERVER_MAX_SESSIONS must be a whole number"):
        resolve_limits({"max_sessions": "0"}, {}, nofile=1024)
    with pytest.raises(LimitError, match="SPAN_SERVER_SESSION_IDLE_TIMEOUT"):
        resolve_limits({}, {"SPAN_SERVER_SESSION_IDLE_TIMEOUT": "forever"}, nofile=1024)


def test_session_limits_in_help_and_in_the_startup_line():
    import subprocess
    import sys

    from test_server_hardening import ROOT

    r = subprocess.run([sys.executable, "-m", "span_toolkit.server", "--help"], capture_output=True, text=True, timeout=30,
                       cwd=ROOT, env=_env())
    for word in ("--session-idle-timeout", "SPAN_SERVER_SESSION_IDLE_TIMEOUT", "--max-sessions",
                 "SPAN_SERVER_MAX_SESSIONS", "least recently used", "404"):
        assert word in r.stdout, word
    with span_server("--max-sessions", "7", token=None,
                     env={"SPAN_SERVER_SESSION_IDLE_TIMEOUT": "42"}) as srv:
        assert "7 sessions idle at most 42 s" in srv.stderr()
    from span_toolkit.server.transport.limits import HttpLimits

    assert "sessions" not in HttpLimits().describe(sessions=False)  # --stateless-http: none to limit


def test_an_sdk_without_the_session_table_falls_back_with_one_warning(caplog):
    from span_toolkit.server.transport.sessions import bound_sessions

    class Elsewhere:  # what a renamed SDK manager would look like to us
        max_sessions = 10

    manager = Elsewhere()
    assert bound_sessions(manager) is False and type(manager) is Elsewhere
    assert "503" in caplog.text


# ------------------------------------------------------------------------------------------ issue 33, finding 4
def _big(kind: str, n: int = 50_000) -> dict:
    """An ~800 KB message of `kind`: a notification, a tools/call with 50,000 extra argument keys, a ping."""
    params = {f"k{i}": i for i in range(n)}
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": "notifications/initialized", "params": params}
    if kind == "call":
        return {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "list_calendars", "arguments": params}}
    return {"jsonrpc": "2.0", "id": 6, "method": "ping", "params": params}


def test_an_idle_session_keeps_no_body():
    """15 sessions that each send one ~800 KB body (a notification, a call, a ping) and go idle grow the
    server by at most 0.5 MB a session (before: +7.4 MB a session, the last message kept parsed)."""
    import json

    assert 780_000 < len(json.dumps(_big("call"))) < 900_000
    with span_server(token=None) as srv:
        assert fresh_client_works(srv)
        warm = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)  # one big body before the baseline:
        srv.post(warm, _big("notification"), srv.session(warm))               # the allocator's own growth
        warm.close()
        time.sleep(0.5)
        base = srv.rss_mb()
        for i in range(15):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            try:
                sid = srv.session(conn)
                r, body = srv.post(conn, _big(("notification", "call", "ping")[i % 3]), sid)
                assert r.status in (200, 202), body[:200]
            finally:
                conn.close()
        time.sleep(1.5)
        grown = srv.rss_mb() - base
        assert fresh_client_works(srv)
    assert grown / 15 <= 0.5, f"RSS grew by {grown:.1f} MB for 15 sessions"
