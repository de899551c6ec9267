"""MCP server performance, loopback only; prints figures (not a test).

1. stdio: round-trip latency of one tool call through the SDK Client to `python -m server`, interleaved
   call by call with the same Client calling a floor server it builds itself (a minimal MCPServer with one
   typed tool, same SDK, also over stdio); p50, p99 of both and the p50 ratio. Target: ratio <= 1.2.
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

# The floor: a minimal MCPServer with one typed tool on the same SDK, run the same way (stdio, its own
# process). Its round trip is what the SDK and the pipe cost with no tool work at all.
FLOOR_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("floor")

@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b

server.run("stdio")
"""
FLOOR_CALL = ("add", {"a": 2, "b": 3})


def _span_params(log_level: str):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "span_toolkit.server", "--log-level", log_level],
                                 cwd=str(ROOT), env=env())


def _floor_params():
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-c", FLOOR_SERVER], cwd=str(ROOT), env=env())


def _child_pids() -> dict[int, str]:
    """This process's children (Linux /proc) with their command lines."""
    out = {}
    for task in Path("/proc/self/task").glob("*"):
        try:
            pids = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in pids:
            try:
                out[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                pass
    return out


async def stdio_latency(n: int, warmup: int, mode: str, mixed: bool, log_level: str = "INFO") -> dict:
    """Round trips through the SDK Client to span-server and to the floor server, interleaved call by call
    (the order inside each pair alternates) so that both see the same machine load; both server processes
    run throughout. Also CPU per call, which a busy machine disturbs much less than wall time: the client
    process's CPU time during each call (p50) plus the server process's CPU over the run divided by n."""
    from contextlib import AsyncExitStack

    from mcp import Client

    calls = ALT_CALLS if mixed else [CALL]
    lat: dict[str, list[float]] = {"span": [], "floor": []}
    cpu: dict[str, list[float]] = {"span": [], "floor": []}
    errors = 0
    async with AsyncExitStack() as stack:
        before = set(_child_pids())
        clients = {"span": await stack.enter_async_context(Client(_span_params(log_level), mode=mode))}
        span_pids = set(_child_pids()) - before
        clients["floor"] = await stack.enter_async_context(Client(_floor_params(), mode=mode))
        floor_pids = set(_child_pids()) - before - span_pids
        pids = {"span": span_pids, "floor": floor_pids}
        server_cpu0 = {}
        for i in range(warmup + n):
            if i == warmup:
                server_cpu0 = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
            order = ("span", "floor") if i % 2 == 0 else ("floor", "span")
            for who in order:
                name, args = calls[i % len(calls)] if who == "span" else FLOOR_CALL
                c0, t0 = time.process_time(), time.perf_counter()
                r = await clients[who].call_tool(name, args)
                t1, c1 = time.perf_counter(), time.process_time()
                if i >= warmup:
                    lat[who].append(t1 - t0)
                    cpu[who].append(c1 - c0)
                    errors += bool(r.is_error)
        server_cpu = {k: (sum(cpu_seconds(p) for p in v) - server_cpu0[k]) / n for k, v in pids.items()}
    out = {"n": n, "mode": mode, "mixed": mixed, "log_level": log_level, "errors": errors}
    for key in lat:
        out[key] = {"p50_ms": pct(lat[key], 50) * 1e3, "p99_ms": pct(lat[key], 99) * 1e3,
                    "mean_ms": statistics.fmean(lat[key]) * 1e3,
                    "client_cpu_p50_ms": pct(cpu[key], 50) * 1e3, "server_cpu_ms": server_cpu[key] * 1e3}
        out[key]["cpu_ms"] = out[key]["client_cpu_p50_ms"] + out[key]["server_cpu_ms"]
    out["ratio_p50"] = out["span"]["p50_ms"] / out["floor"]["p50_ms"]
    out["ratio_cpu"] = out["span"]["cpu_ms"] / out["floor"]["cpu_ms"]
    return out


class _RawStdio:
    """A bare JSON-RPC client on a server's pipes (2025-11-25 handshake): what the server and the pipe
    cost, without the SDK client's own per-call work (parsing, output-schema validation)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.rpc({"method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
        self.rpc({"method": "notifications/initialized"}, notify=True)

    def rpc(self, msg: dict, notify: bool = False) -> dict | None:
        msg = {"jsonrpc": "2.0", **msg}
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        while not notify:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == msg["id"]:
                return reply
        return None

    def call(self, name: str, arguments: dict) -> bool:
        reply = self.rpc({"method": "tools/call", "params": {"name": name, "arguments": arguments}})
        return "error" in reply or bool(reply["result"].get("isError"))

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def stdio_latency_raw(n: int, warmup: int, log_level: str = "INFO") -> dict:
    """span-server and the floor through bare JSON-RPC clients, interleaved as in stdio_latency."""
    servers = {"span": _RawStdio([sys.executable, "-m", "span_toolkit.server", "--log-level", log_level]),
               "floor": _RawStdio([sys.executable, "-c", FLOOR_SERVER])}
    lat: dict[str, list[float]] = {"span": [], "floor": []}
    errors = 0
    try:
        for i in range(warmup + n):
            for who in (("span", "floor") if i % 2 == 0 else ("floor", "span")):
                t0 = time.perf_counter()
                errors += servers[who].call(*(CALL if who == "span" else FLOOR_CALL))
                if i >= warmup:
                    lat[who].append(time.perf_counter() - t0)
    finally:
        for s in servers.values():
            s.close()
    out = {"n": n, "errors": errors}
    for key, values in lat.items():
        out[key] = {"p50_ms": pct(values, 50) * 1e3, "p99_ms": pct(values, 99) * 1e3}
    out["ratio_p50"] = out["span"]["p50_ms"] / out["floor"]["p50_ms"]
    return out


# ---------------------------------------------------------------------------------------------
# HTTP throughput
# ---------------------------------------------------------------------------------------------

def start_http(flags: list[str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", "--transport", "streamable-http", "--port", "0",
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
    ap.add_argument("--log-level", default="INFO", help="span-server --log-level for the stdio runs (default "
                    "INFO, what `span-client eval --with-tools` starts)")
    ap.add_argument("--skip-stdio", action="store_true")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--json", action="store_true", help="also print one JSON line with all figures")
    args = ap.parse_args(argv)

    print(f"span-server benchmark (loopback only) {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, load avg {os.getloadavg()[0]:.2f}")
    figures: dict = {}
    if not args.skip_stdio:
        for mixed in (False, True):
            r = asyncio.run(stdio_latency(args.stdio_calls, args.warmup, args.mode, mixed, args.log_level))
            label = "mixed tools" if mixed else CALL[0]
            figures[f"stdio_{'mixed' if mixed else 'single'}"] = r
            verdict = "OK" if r["ratio_p50"] <= 1.2 else "MISSED"
            s_, f_ = r["span"], r["floor"]
            print(f"stdio  {label:16s} n={r['n']} span p50={s_['p50_ms']:.2f} ms p99={s_['p99_ms']:.2f} ms | "
                  f"floor p50={f_['p50_ms']:.2f} ms p99={f_['p99_ms']:.2f} ms | ratio p50 {r['ratio_p50']:.2f} "
                  f"errors={r['errors']}  [SDK Client, interleaved, server --log-level {args.log_level}; "
                  f"target ratio<=1.2: {verdict}]")
            print(f"       CPU per call: span {s_['cpu_ms']:.2f} ms (client {s_['client_cpu_p50_ms']:.2f} + server "
                  f"{s_['server_cpu_ms']:.2f}) | floor {f_['cpu_ms']:.2f} ms (client {f_['client_cpu_p50_ms']:.2f} + "
                  f"server {f_['server_cpu_ms']:.2f}) | ratio {r['ratio_cpu']:.2f}  [less sensitive to machine load]")
        r = stdio_latency_raw(args.stdio_calls, args.warmup, args.log_level)
        figures["stdio_raw"] = r
        s_, f_ = r["span"], r["floor"]
        print(f"stdio  {CALL[0]:16s} n={r['n']} span p50={s_['p50_ms']:.2f} ms p99={s_['p99_ms']:.2f} ms | "
              f"floor p50={f_['p50_ms']:.2f} ms p99={f_['p99_ms']:.2f} ms | ratio p50 {r['ratio_p50']:.2f} "
              f"errors={r['errors']}  [bare JSON-RPC client: the servers and the pipe only]")
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
