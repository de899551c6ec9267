"""What real model servers do to a run (issue "Real models in the loop"): a wrong or dead URL, an endpoint
that dies mid-run, a context that is too small, a token-protected MCP server, runaway replies, no TTY."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from tests.fakes.helpers import write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeOpenAI, Slow, Status, Text

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "token-for-tests-0123456789"
OVERFLOW = ("This model's maximum context length is 4096 tokens. However, you requested {n} tokens "
            "({m} in the messages, 512 in the completion). Please reduce the length of the messages or completion.")


def _eval(base_url: str, out: Path, inst: Path, *extra: str, model: str = "openai-compatible/m") -> list[str]:
    return ["eval", "--model", model, "--base-url", base_url, "--instances", str(inst),
            "--out", str(out), "--quiet", "--retry-base-delay", "0.05", *extra]


@pytest.fixture
def inst(tmp_path) -> Path:
    return write_jsonl(tmp_path / "instances.jsonl", toy_instances(12))


@pytest.mark.parametrize("url,needle", [("http://127.0.0.1:9/v1", "127.0.0.1:9"),
                                        ("http://no-such-host.invalid/v1", "no-such-host.invalid")])
def test_unreachable_endpoint_fails_within_10s_naming_the_url(tmp_path, inst, capsys, url, needle):
    t = time.monotonic()
    rc = main(_eval(url, tmp_path / "run", inst))
    took = time.monotonic() - t
    err = capsys.readouterr().err.strip()
    assert rc == 1 and took < 10, (rc, took, err)
    assert len(err.splitlines()) == 1 and needle in err and "Traceback" not in err, err
    assert not (tmp_path / "run" / "results.jsonl").exists() or not (tmp_path / "run" / "results.jsonl").read_text()


def test_unknown_model_fails_fast(tmp_path, inst, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # openai/ needs one (from the environment, as recommended)
    with FakeOpenAI(lambda b, i: Text("x")) as fake:
        fake.models = ["gpt-real"]
        rc = main(_eval(fake.base_url, tmp_path / "run", inst, model="openai/gpt-typo"))
        assert fake.requests == []
    err = capsys.readouterr().err
    assert rc == 1 and "gpt-typo" in err and fake.base_url in err, err


def test_endpoint_that_dies_mid_run_stops_within_30s_and_keeps_results(tmp_path, inst, capsys):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.providers", "openai", "always_yes", "--latency", "0.3"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    out = tmp_path / "run"
    many = write_jsonl(tmp_path / "many.jsonl", toy_instances(200))
    import threading

    killed: list[float] = []

    def killer():
        while (out / "results.jsonl").exists() is False or (out / "results.jsonl").read_text().count("\n") < 6:
            time.sleep(0.05)
        proc.kill()
        killed.append(time.monotonic())

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    rc = main(_eval(url, out, many, "--concurrency", "2", "--retry-base-delay", "0.5"))
    stopped = time.monotonic()
    proc.wait()
    err = capsys.readouterr().err
    assert rc == 1, err
    assert killed and stopped - killed[0] < 30, stopped - killed[0]
    assert "stopped answering" in err and "resume with: span-client eval" in err and url in err
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(lines) >= 6 and len(lines) < 200
    assert sum(l["stop_reason"] == "error" for l in lines) <= 4  # in-flight ones are dropped, not recorded


def test_context_overflow_is_not_retried_and_stops_the_run(tmp_path, inst, capsys):
    def policy(body, i):
        n = 4000 + 17 * i
        return Status(400, {"error": {"message": OVERFLOW.format(n=n + 512, m=n), "type": "invalid_request_error",
                                      "code": "context_length_exceeded"}})

    with FakeOpenAI(policy) as fake:
        rc = main(_eval(fake.base_url, tmp_path / "run", inst, "--concurrency", "1"))
        assert len(fake.requests) == 3  # one each: an overflow is never re-sent
    err = capsys.readouterr().err
    assert rc == 1 and "overflowed the model's context" in err and "larger context" in err
    lines = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert [l["error_kind"] for l in lines] == ["context_overflow"] * 3
    assert all("maximum context length" in l["error"] for l in lines)


def test_timed_out_request_is_resent_at_most_once(tmp_path, inst, capsys):
    with FakeOpenAI(lambda b, i: Slow(5, Text("Final answer: Yes"))) as fake:
        rc = main(_eval(fake.base_url, tmp_path / "run", write_jsonl(tmp_path / "one.jsonl", toy_instances(1)),
                        "--timeout", "0.5", "--max-retries", "6"))
        assert len(fake.requests) == 2
    [line] = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert rc == 1 and line["stop_reason"] == "error" and line["error_kind"] == "timeout" and line["retries"] == 1


def test_reply_cut_at_max_tokens_is_recorded_as_such(tmp_path, inst):
    def policy(body, i):
        return Text("Final answer: Yes " + "again " * 50, output_tokens=2048, finish="length")

    with FakeOpenAI(policy) as fake:
        main(_eval(fake.base_url, tmp_path / "run", write_jsonl(tmp_path / "one.jsonl", toy_instances(1))))
    [line] = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert line["stop_reason"] == "max_tokens" and line["provider_stop_reason"] == "length"


def test_plain_progress_lines_without_a_tty(tmp_path, inst):
    with FakeOpenAI(lambda b, i: Text("Final answer: Yes")) as fake:
        env = dict(os.environ, PYTHONPATH=str(ROOT), SPAN_PROGRESS_EVERY="0")
        args = [a for a in _eval(fake.base_url, tmp_path / "run", inst) if a != "--quiet"]
        r = subprocess.run([sys.executable, "-m", "span_toolkit.client.cli", *args], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=120)
    assert re.search(r"span-client: openai-compatible/m: \d+/12 done, 0 errors", r.stderr), r.stderr


@contextlib.contextmanager
def _span_server(env_token: str | None):
    env = {k: v for k, v in os.environ.items() if k != "SPAN_SERVER_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    if env_token:
        env["SPAN_SERVER_TOKEN"] = env_token
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.server", "--transport", "streamable-http", "--port", "0",
                             "--log-level", "WARNING"], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            m = re.search(r"streamable HTTP on (http://\S+)", proc.stderr.readline())
            url = m.group(1) if m else None
        assert url
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_token_protected_server_with_and_without_the_token(tmp_path, monkeypatch, capsys):
    with _span_server(TOKEN) as url:
        base = ["eval", "--model", "reference", "--with-tools", "--server-url", url, "--date", "2025-07-01",
                "--sample", "6", "--quiet"]
        monkeypatch.delenv("SPAN_SERVER_TOKEN", raising=False)
        t = time.monotonic()
        rc = main([*base, "--out", str(tmp_path / "a")])
        err = capsys.readouterr().err
        assert rc == 1 and time.monotonic() - t < 10
        assert "401" in err and "SPAN_SERVER_TOKEN" in err and "--server-token" in err, err
        monkeypatch.setenv("SPAN_SERVER_TOKEN", TOKEN)
        assert main([*base, "--out", str(tmp_path / "b")]) == 0
        monkeypatch.delenv("SPAN_SERVER_TOKEN")
        assert main([*base, "--out", str(tmp_path / "c"), "--server-token", TOKEN]) == 0
        summary = json.loads((tmp_path / "c" / "summary.json").read_text())
        assert summary["accuracy"] == 1.0 and summary["n"] == 6
        run = json.loads((tmp_path / "c" / "run.json").read_text())
        assert TOKEN not in json.dumps(run)  # the token is never written down
        r = subprocess.run([sys.executable, "-m", "span_toolkit.client.cli", "tools", "call", "search_calendar",
                            "calendar=gregorian", "year=2025", "month=7", "day=1", "--server-url", url],
                           cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT), SPAN_SERVER_TOKEN=TOKEN),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "Tuesday" in r.stdout, r.stderr
