"""Streamable-HTTP hardening figures (issue 13), loopback only; prints figures (not a test).

Plays the attacks of tests/test_server_hardening.py with its helpers, against the current server
("guarded") and, with --baseline, against the pre-hardening runner (plain uvicorn on a pre-bound
socket, no log cap, no body limit; rebuilt in BASELINE below) for before/after figures:

1. keep-alive: p50/p90 of tools/call on one reused connection (target p50 < 10 ms)
2. slow heads: N connections trickling a header line every 2 s against a server with a file limit
   of 1,024; latency of a legitimate tools/call at 8, 9, 10, 11 s; stderr growth (target < 2 s, < 100 KB)
3. bodies: 40 concurrent 4 MiB bodies: statuses, RSS before/peak/after (target 413s, growth < 200 MB)
4. shutdown: SIGTERM with stuck requests (same JSON-RPC id): seconds to exit (target <= 10 s;
   waits at most 20 s)
5. abandoned sessions (issue 21): N clients that send `initialize` and vanish: RSS growth, seconds,
   stderr growth, and whether a new client still works (target <= 60 MB for 3,000); with the defaults,
   then with the SDK's own defaults (--max-sessions 10000 --session-idle-timeout 1800: no cap reached,
   nothing closed for 30 min)

    python benchmarks/bench_http.py               # current server
    python benchmarks/bench_http.py --baseline    # current, then the pre-hardening runner
    python benchmarks/bench_http.py --only sessions [--baseline] [--sessions 3000]
    python benchmarks/bench_http.py --only bodies  # 6. idle sessions after one 800 KB body each (issue 33)
"""

from __future__ import annotations

import argparse
import http.client
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from test_server_hardening import (  # noqa: E402
    MIB, Trickler, _post_big, _raise_own_file_limit, _stuck_requests, span_server)
from test_server_sessions import abandon, fresh_client_works  # noqa: E402

BASELINE = r'''
import sys, uvicorn
import span_toolkit.server.transport.http as h, server.transport.logcap as logcap
from span_toolkit.server.transport.security import BearerTokenMiddleware
logcap.CapFilter.filter = lambda self, record: True

def run_http(server, security, *, host, port, path="/mcp", json_response=False, stateless_http=False,
             log_level="INFO", access_log=False, limits=None):
    app = server.streamable_http_app(streamable_http_path=path, json_response=json_response,
                                     stateless_http=stateless_http,
                                     transport_security=security.transport_security, host=host)
    if security.token:
        app = BearerTokenMiddleware(app, security.token)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), access_log=access_log,
                            lifespan="on", log_config=None)
    sock = config.bind_socket()
    sock.listen(config.backlog)
    print(f"span-server: streamable HTTP on {h.url_for(host, sock.getsockname()[1], path)}", file=sys.stderr,
          flush=True)
    uvicorn.Server(config).run(sockets=[sock])

h.run_http = run_http
from span_toolkit.server.__main__ import main
sys.exit(main(sys.argv[1:]))
'''


CURRENT = ("-m", "span_toolkit.server")
SDK_DEFAULTS = ("--max-sessions", "10000", "--session-idle-timeout", "1800")


def keep_alive(launcher, calls: int) -> str:
    with span_server(launcher=launcher) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        sid = srv.session(conn)
        for i in range(5):
            srv.call(conn, sid, id_=100 + i)
        times = []
        for i in range(calls):
            start = time.perf_counter()
            srv.call(conn, sid, id_=200 + i)
            times.append(time.perf_counter() - start)
    times.sort()
    return (f"keep-alive: {calls} sequential tools/call on one connection: "
            f"p50 {statistics.median(times) * 1000:.2f} ms, p90 {times[int(len(times) * 0.9)] * 1000:.2f} ms")


def slow_heads(launcher, count: int) -> str:
    _raise_own_file_limit(count + 300)
    with span_server(nofile=1024, launcher=launcher) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        sid = srv.session(conn)
        conn.close()
        before = srv.stderr_size()
        results = []
        with Trickler(srv.port, count, every=2.0) as attack:
            t0 = time.monotonic()
            for due in (8.0, 9.0, 10.0, 11.0):
                time.sleep(max(0.0, t0 + due - time.monotonic()))
                start = time.monotonic()
                try:
                    legit = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
                    srv.call(legit, sid, id_=int(due))
                    legit.close()
                    results.append(f"{time.monotonic() - start:.3f} s")
                except (OSError, AssertionError) as exc:
                    results.append(f"failed after {time.monotonic() - start:.1f} s ({type(exc).__name__})")
            connects, closed = attack.connects, attack.closed_by_server
        grown = srv.stderr_size() - before
        tracebacks = srv.stderr().count("Traceback")
    return (f"slow heads: {count} trickling connections, file limit 1024: legit tools/call at 8/9/10/11 s: "
            f"{', '.join(results)}; attacker connects {connects}, closed by server {closed}; stderr "
            f"+{grown / 1024:.1f} KB, {tracebacks} tracebacks")


def bodies(launcher, chunked: bool) -> str:
    with span_server(launcher=launcher) as srv:
        base = peak = srv.rss_mb()
        results: list = []
        threads = [threading.Thread(target=_post_big, args=(srv.port, 4 * MIB, chunked, results, srv.token))
                   for _ in range(40)]
        start = time.monotonic()
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, srv.rss_mb())
            time.sleep(0.02)
        elapsed = time.monotonic() - start
        time.sleep(1.0)
        after = srv.rss_mb()
    statuses: dict = {}
    for status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    kind = "chunked" if chunked else "Content-Length"
    return (f"bodies: 40 x 4 MiB ({kind}) in {elapsed:.1f} s: statuses {statuses}; RSS {base:.0f} -> peak "
            f"{peak:.0f} -> {after:.0f} MB 1 s later")


def shutdown(launcher) -> str:
    with span_server(launcher=launcher) as srv:
        sid = srv.session()
        socks = _stuck_requests(srv, sid)
        start = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        try:
            srv.proc.wait(timeout=20)
            outcome = f"exited after {time.monotonic() - start:.1f} s (rc {srv.proc.returncode})"
        except subprocess.TimeoutExpired:
            outcome = "still running 20 s after SIGTERM (killed)"
        for s in socks:
            s.close()
    return f"shutdown: SIGTERM with stuck requests: {outcome}"


def abandoned_sessions(launcher, count: int, flags: tuple[str, ...] = ()) -> str:
    with span_server(*flags, token=None, launcher=launcher) as srv:
        assert fresh_client_works(srv)
        time.sleep(0.3)
        base, err = srv.rss_mb(), srv.stderr_size()
        start = time.monotonic()
        abandon(srv, count)
        elapsed = time.monotonic() - start
        time.sleep(1.5)
        after = srv.rss_mb()
        works = fresh_client_works(srv)
        logged = srv.stderr_size() - err
    shown = " ".join(flags) or "defaults"
    return (f"abandoned sessions ({shown}): {count} in {elapsed:.1f} s: RSS {base:.0f} -> {after:.0f} MB "
            f"(+{after - base:.1f} MB); a new client {'works' if works else 'FAILS'}; stderr +{logged / 1024:.0f} KB")


def session_bodies(launcher, count: int) -> str:
    """Issue 33: `count` sessions that each send one ~800 KB body (50,000 keys) and go idle."""
    from test_server_sessions import _big

    with span_server(token=None, launcher=launcher) as srv:
        warm = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        srv.post(warm, _big("notification"), srv.session(warm))  # the allocator's first growth, not a session's
        warm.close()
        time.sleep(0.5)
        base = srv.rss_mb()
        for i in range(count):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            srv.post(conn, _big(("notification", "call", "ping")[i % 3]), srv.session(conn))
            conn.close()
        time.sleep(1.5)
        after = srv.rss_mb()
    return (f"idle sessions after an 800 KB body each: {count}: RSS {base:.0f} -> {after:.0f} MB "
            f"(+{(after - base) / count:.2f} MB a session)")


def run(name: str, launcher, args) -> None:
    print(f"== {name}", flush=True)
    print("  " + keep_alive(launcher, args.calls), flush=True)
    print("  " + bodies(launcher, chunked=False), flush=True)
    print("  " + bodies(launcher, chunked=True), flush=True)
    print("  " + shutdown(launcher), flush=True)
    print("  " + abandoned_sessions(launcher, args.sessions), flush=True)
    print("  " + session_bodies(launcher, 15), flush=True)
    if launcher == CURRENT:
        print("  " + abandoned_sessions(launcher, args.sessions, SDK_DEFAULTS), flush=True)
    print("  " + slow_heads(launcher, args.connections), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", action="store_true", help="also measure the pre-hardening runner")
    ap.add_argument("--calls", type=int, default=200, help="sequential keep-alive calls (default 200)")
    ap.add_argument("--connections", type=int, default=1100, help="trickling connections (default 1100)")
    ap.add_argument("--sessions", type=int, default=3000, help="abandoned sessions (default 3000)")
    ap.add_argument("--only", choices=("sessions", "bodies"), help="run only this measurement")
    args = ap.parse_args(argv)
    if args.only == "bodies":
        print("  " + session_bodies(CURRENT, 15), flush=True)
        print("  " + session_bodies(CURRENT, 60), flush=True)
        return 0
    if args.only == "sessions":
        print("  " + abandoned_sessions(CURRENT, args.sessions), flush=True)
        print("  " + abandoned_sessions(CURRENT, args.sessions, SDK_DEFAULTS), flush=True)
        if args.baseline:
            print("  " + abandoned_sessions(("-c", BASELINE), args.sessions) + " [pre-hardening runner]", flush=True)
        return 0
    run("guarded (current)", CURRENT, args)
    if args.baseline:
        run("baseline (pre-hardening runner)", ("-c", BASELINE), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
