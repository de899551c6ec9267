"""MCP server performance, loopback only; prints figures (not a test).

1. stdio: round-trip latency of one tool call through the SDK Client to `python -m server`
   (p50, p99 over n calls after a warm-up). Target: p50 <= 2 ms.
2. streamable HTTP: throughput with N concurrent SDK clients (each its own MCP session) against
   `span-server --transport streamable-http` on 127.0.0.1 (calls/s, errors, latency).
   Target: >= 500 calls/s with 0 errors at 32 concurrent clients.
   The load can be spread over several client processes (--client-procs) so that the Python
   client itself is not the bottleneck; the server is always one process.

    python benchmarks/bench_server.py                      # 1000 stdio calls; 32 HTTP clients x 5 s, raw + SDK
    python benchmarks/bench_server.py --http-variants all  # also compare SSE responses / stateless modes
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CALL = ("search_calendar", {"calendar": "gregorian", "year": 2025, "month": 7, "day": 1})
ALT_CALLS = [
    CALL,
    ("date_arithmetic", {"calendar": "hebrew", "year": 5785, "month": 4, "day": 5, "days": -10}),
    ("search_calendar", {"calendar": "chinese_lunar", "year": 2025, "festival_name": "Mid-Autumn Festival"}),
    ("date_difference", {"start": {"calendar": "gregorian", "year": 2025, "month": 1, "day": 1},
                         "end": {"calendar": "islamic", "year": 1447, "month": 1, "day": 1}}),
]
VARIANTS = {  # server flags; span-server answers with JSON bodies by default
    "default": [],
    "sse": ["--no-json-response"],
    "stateless": ["--stateless-http"],
    "stateless+sse": ["--stateless-http", "--no-json-response"],
}


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("SPAN_SERVER_")}
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


# ---------------------------------------------------------------------------------------------
# stdio latency
# ---------------------------------------------------------------------------------------------

async def stdio_latency(n: int, warmup: int, mode: str, mixed: bool) -> dict:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "server", "--log-level", "WARNING"],
                                   cwd=str(ROOT), env=env())
    calls = ALT_CALLS if mixed else [CALL]
    lat: list[float] = []
    errors = 0
    async with Client(params, mode=mode) as client:
        for i in range(warmup):
            await client.call_tool(*calls[i % len(calls)])
        for i in range(n):
            name, args = calls[i % len(calls)]
            t0 = time.perf_counter()
            r = await client.call_tool(name, args)
            lat.append(time.perf_counter() - t0)
            errors += bool(r.is_error)
    return {"n": n, "mode": mode, "mixed": mixed, "errors": errors, "p50_ms": pct(lat, 50) * 1e3,
            "p99_ms": pct(lat, 99) * 1e3, "mean_ms": statistics.fmean(lat) * 1e3}


def stdio_latency_raw(n: int, warmup: int) -> dict:
    """The same round trip with a bare JSON-RPC client on the pipes (2025-11-25 handshake): what the
    server and the pipe cost, without the SDK client's own per-call work (parsing, schema validation)."""
    proc = subprocess.Popen([sys.executable, "-m", "server", "--log-level", "WARNING"], cwd=ROOT, env=env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def rpc(msg: dict) -> dict | None:
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()
        if "id" not in msg:
            return None
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == msg["id"]:
                return reply

    try:
        rpc({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
        rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
        lat, errors = [], 0
        for i in range(warmup + n):
            msg = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                   "params": {"name": CALL[0], "arguments": CALL[1]}}
            t0 = time.perf_counter()
            reply = rpc(msg)
            if i >= warmup:
                lat.append(time.perf_counter() - t0)
                errors += "error" in reply or bool(reply["result"].get("isError"))
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"n": n, "errors": errors, "p50_ms": pct(lat, 50) * 1e3, "p99_ms": pct(lat, 99) * 1e3,
            "mean_ms": statistics.fmean(lat) * 1e3}


# ---------------------------------------------------------------------------------------------
# HTTP throughput
# ---------------------------------------------------------------------------------------------

def start_http(flags: list[str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "server", "--transport", "streamable-http", "--port", "0",
                             "--log-level", "WARNING", *flags], cwd=ROOT, env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        m = re.search(r"streamable HTTP on (http://\S+)", line)
        if m:
            # keep draining stderr so the server never blocks on a full pipe
            import threading
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1)
    proc.kill()
    raise RuntimeError("span-server did not start")


class RawClient:
    """A minimal streamable-HTTP MCP client: one keep-alive HTTP/1.1 connection on asyncio streams,
    2025-11-25 handshake, hand-built requests. It costs a small fraction of the SDK Client's CPU per call,
    so on a small machine the figure reflects the server rather than the load generator."""

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        u = urlsplit(url)
        self.host, self.port, self.path = u.hostname, u.port or 80, u.path or "/"
        self.headers: dict[str, str] = {}
        self.next_id = 0
        self.reader = self.writer = None

    async def _request(self, method: str, body: bytes | None) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = [f"{method} {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                "Accept: application/json, text/event-stream", "Content-Type: application/json"]
        head += [f"{k}: {v}" for k, v in self.headers.items()]
        body = body or b""
        head.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding") == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                data = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(data[:-2])
            payload = b"".join(chunks)
        else:
            payload = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection") == "close":
            self.writer.close()
            self.writer = None
        return status, headers, payload

    async def _rpc(self, msg: dict) -> dict | None:
        status, headers, payload = await self._request("POST", json.dumps(msg).encode())
        if status >= 400:
            raise RuntimeError(f"HTTP {status}: {payload[:200]!r}")
        if "mcp-session-id" in headers:
            self.headers["mcp-session-id"] = headers["mcp-session-id"]
        if "id" not in msg:
            return None
        if headers.get("content-type", "").startswith("text/event-stream"):
            for line in payload.decode().splitlines():
                if line.startswith("data:"):
                    data = json.loads(line[5:])
                    if data.get("id") == msg["id"]:
                        return data
            raise RuntimeError("no response in the SSE stream")
        return json.loads(payload)

    async def initialize_session(self) -> None:
        init = await self._rpc({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
        self.headers["mcp-protocol-version"] = init["result"]["protocolVersion"]
        await self._rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call_tool(self, name: str, arguments: dict) -> dict:
        self.next_id += 1
        reply = await self._rpc({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                                 "params": {"name": name, "arguments": arguments}})
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]

    async def aclose(self) -> None:
        try:
            if "mcp-session-id" in self.headers:
                await self._request("DELETE", None)
        except Exception:  # noqa: BLE001
            pass
        if self.writer is not None:
            self.writer.close()


async def _client_loop(url: str, mode: str, kind: str, stop_at: list, start_evt: asyncio.Event,
                       out: dict) -> None:
    from contextlib import AsyncExitStack

    from mcp import Client

    try:
        async with AsyncExitStack() as stack:
            if kind == "raw":
                client = RawClient(url)
                stack.push_async_callback(client.aclose)
                await client.initialize_session()
                def is_error(r):
                    return bool(r.get("isError"))
            else:
                client = await stack.enter_async_context(Client(url, mode=mode))
                def is_error(r):
                    return r.is_error
            await client.call_tool(*CALL)  # warm-up, and the session exists before the clock starts
            out["ready"] += 1
            await start_evt.wait()
            while time.perf_counter() < stop_at[0]:
                t0 = time.perf_counter()
                try:
                    r = await client.call_tool(*CALL)
                    if is_error(r):
                        out["errors"] += 1
                    else:
                        out["ok"] += 1
                        out["lat"].append(time.perf_counter() - t0)
                except Exception as exc:  # noqa: BLE001 - counted and reported
                    out["errors"] += 1
                    out["exc"] = repr(exc)[:200]
    except Exception as exc:  # noqa: BLE001
        out["errors"] += 1
        out["exc"] = repr(exc)[:200]


async def _run_clients(url: str, clients: int, seconds: float, mode: str, kind: str, barrier) -> dict:
    out = {"ok": 0, "errors": 0, "lat": [], "ready": 0, "exc": None}
    stop_at = [float("inf")]
    start_evt = asyncio.Event()
    tasks = [asyncio.create_task(_client_loop(url, mode, kind, stop_at, start_evt, out)) for _ in range(clients)]
    while out["ready"] + out["errors"] < clients:
        await asyncio.sleep(0.01)
    if barrier is not None:
        await asyncio.to_thread(barrier.wait)
    t0 = time.perf_counter()
    stop_at[0] = t0 + seconds
    start_evt.set()
    await asyncio.gather(*tasks)
    out["elapsed"] = time.perf_counter() - t0
    return out


def _proc_main(url, clients, seconds, mode, kind, barrier, queue) -> None:
    queue.put(asyncio.run(_run_clients(url, clients, seconds, mode, kind, barrier)))


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (Linux /proc), or nan elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def http_throughput(url: str, clients: int, seconds: float, mode: str, kind: str, procs: int,
                    server_pid: int) -> dict:
    cpu0 = cpu_seconds(server_pid)
    if procs <= 1:
        parts = [asyncio.run(_run_clients(url, clients, seconds, mode, kind, None))]
    else:
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(procs)
        queue = ctx.Queue()
        per = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
        ps = [ctx.Process(target=_proc_main, args=(url, k, seconds, mode, kind, barrier, queue)) for k in per]
        for p in ps:
            p.start()
        parts = [queue.get(timeout=seconds + 120) for _ in ps]
        for p in ps:
            p.join(timeout=30)
    server_cpu = cpu_seconds(server_pid) - cpu0  # includes session setup/teardown: an upper bound
    ok = sum(p["ok"] for p in parts)
    errors = sum(p["errors"] for p in parts)
    lat = [x for p in parts for x in p["lat"]]
    elapsed = max(p["elapsed"] for p in parts)
    exc = next((p["exc"] for p in parts if p["exc"]), None)
    return {"clients": clients, "procs": max(procs, 1), "mode": mode, "kind": kind, "seconds": elapsed, "ok": ok,
            "server_cpu_ms_per_call": server_cpu / ok * 1e3 if ok else None,
            "errors": errors, "calls_per_s": ok / elapsed if elapsed else 0.0,
            "p50_ms": pct(lat, 50) * 1e3 if lat else None, "p99_ms": pct(lat, 99) * 1e3 if lat else None,
            "example_error": exc}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stdio-calls", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=5.0, help="HTTP measuring window per variant")
    ap.add_argument("--client-procs", type=int, default=1,
                    help="client processes sharing the N clients (default 1: all in this process; more "
                         "helps the SDK clients on a machine with spare cores)")
    ap.add_argument("--http-variants", default="default",
                    help=f"comma list of {', '.join(VARIANTS)} or 'all'")
    ap.add_argument("--mode", default="auto", choices=("auto", "legacy"), help="SDK client protocol mode")
    ap.add_argument("--client-kind", default="raw,sdk",
                    help="HTTP load generator(s): raw (minimal httpx2 JSON-RPC client), sdk (mcp.Client); "
                         "comma list")
    ap.add_argument("--skip-stdio", action="store_true")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--json", action="store_true", help="also print one JSON line with all figures")
    args = ap.parse_args(argv)

    print(f"span-server benchmark (loopback only); python {sys.version.split()[0]}, cpus {os.cpu_count()}, "
          f"load avg {os.getloadavg()[0]:.2f}")
    figures: dict = {}
    if not args.skip_stdio:
        for mixed in (False, True):
            r = asyncio.run(stdio_latency(args.stdio_calls, args.warmup, args.mode, mixed))
            label = "mixed tools" if mixed else CALL[0]
            figures[f"stdio_{'mixed' if mixed else 'single'}"] = r
            verdict = "OK" if r["p50_ms"] <= 2.0 else "MISSED"
            print(f"stdio  {label:16s} n={r['n']} p50={r['p50_ms']:.2f} ms p99={r['p99_ms']:.2f} ms "
                  f"mean={r['mean_ms']:.2f} ms errors={r['errors']}  [SDK Client; target p50<=2 ms: {verdict}]")
        r = stdio_latency_raw(args.stdio_calls, args.warmup)
        figures["stdio_raw"] = r
        verdict = "OK" if r["p50_ms"] <= 2.0 else "MISSED"
        print(f"stdio  {CALL[0]:16s} n={r['n']} p50={r['p50_ms']:.2f} ms p99={r['p99_ms']:.2f} ms "
              f"mean={r['mean_ms']:.2f} ms errors={r['errors']}  [bare JSON-RPC client; target p50<=2 ms: {verdict}]")
    if not args.skip_http:
        names = list(VARIANTS) if args.http_variants == "all" else args.http_variants.split(",")
        for name in names:
            for kind in args.client_kind.split(","):
                proc, url = start_http(VARIANTS[name])
                try:
                    r = http_throughput(url, args.clients, args.seconds, args.mode, kind, args.client_procs,
                                        proc.pid)
                finally:
                    proc.terminate()
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                figures[f"http_{name}_{kind}"] = r
                verdict = "OK" if r["calls_per_s"] >= 500 and r["errors"] == 0 else "MISSED"
                p50 = f"{r['p50_ms']:.1f}" if r["p50_ms"] is not None else "-"
                p99 = f"{r['p99_ms']:.1f}" if r["p99_ms"] is not None else "-"
                cpu = r["server_cpu_ms_per_call"]
                cap = f"server CPU {cpu:.2f} ms/call (~{1000 / cpu:.0f} calls/s per core)" if cpu else ""
                print(f"http   {name:15s} {kind:3s} clients={r['clients']} (in {r['procs']} procs) "
                      f"{r['calls_per_s']:.0f} calls/s ok={r['ok']} errors={r['errors']} p50={p50} ms "
                      f"p99={p99} ms over {r['seconds']:.1f} s; {cap}  [target >=500 calls/s, 0 errors: {verdict}]")
                if r["example_error"]:
                    print(f"       example error: {r['example_error']}")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
