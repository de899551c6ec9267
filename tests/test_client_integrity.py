"""Time Agent integrity end to end: `span-client eval --time-agent`, started as a real command with the key
on its own command line (``--api-key``) and in its environment, asks an OpenAI-compatible fake on 127.0.0.1
whose "model" writes the cheating programs of tests/fakes/cheats.py (gold search over the file system, key
search over /proc, the audit hook switched off from the program's own frame then a filesystem Unix socket,
an abstract socket, loopback TCP, a signal to an outside process, a write outside), and answers with what
they printed. In every strong mode this machine can run, no program obtains the key or the gold, nothing
reaches the bait, the key is nowhere in the run folder nor in any request body, and the run still ends with
one result line per instance. ``unsafe-process`` is run the same way as the positive control.

Also: the run folder's modes (0700 / 0600), and SIGTERM during an eval (one, then two in a row) leaving no
sandbox folder or process of that eval behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from span_toolkit.span.benchmark import generate_sample, parse_eval_date
from tests.fakes.cheats import Bait, mode_unavailable, programs, sandbox_folders, sandbox_processes
from tests.fakes.providers import FakeOpenAI, Slow, Text, first_user_text

ROOT = Path(__file__).resolve().parent.parent
STRONG = ("auto", "bwrap", "namespaces")


def _client(args: list[str], *, cwd: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "span_toolkit.client.cli", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _env(home: Path, secret: str) -> dict:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "HOME": str(home),
            "LANG": "C.UTF-8", "OPENAI_API_KEY": secret}


def _last_user(body: dict) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


@pytest.fixture
def user_folder():
    """The user's working folder (world-readable, under /tmp, as a careless user's would be): it holds the
    instances file and a home, and is the command's working directory."""
    d = Path(tempfile.mkdtemp(prefix="span-user-"))
    os.chmod(d, 0o755)
    (d / "home").mkdir(mode=0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _cheat_eval(kind: str, folder: Path) -> tuple[subprocess.CompletedProcess, Bait, dict, list[dict], Path]:
    home, run = folder / "home", folder / "run"
    with Bait(extra_dirs=(folder, home)) as bait:
        cheats = programs(bait, hints=(str(folder / "instances.jsonl"), str(run), str(folder)))
        items = list(generate_sample([parse_eval_date("2025-07-01")], len(cheats), seed=11))
        for i in items:
            i["note"] = bait.gold_marker  # in the instances file and, through the instance, the run folder
        by_question = dict(zip((i["question"] for i in items), cheats.values()))
        inst = folder / "instances.jsonl"
        inst.write_text("".join(json.dumps(i) + "\n" for i in items))
        os.chmod(inst, 0o644)  # world-readable on purpose: the sandbox, not the file mode, must hide it

        def cheater(body, index):
            if len([m for m in body["messages"] if m["role"] == "user"]) == 1:
                return Text("```python\n" + by_question[first_user_text(body)] + "```")
            return Text("Final answer: " + _last_user(body)[-3000:])  # whatever it found goes back to the model

        with FakeOpenAI(cheater) as fake:
            proc = _client(["eval", "--model", "openai-compatible/cheater", "--base-url", fake.base_url,
                            "--api-key", bait.secret, "--time-agent", "--sandbox", kind, "--instances", str(inst),
                            "--out", str(run), "--max-turns", "1", "--concurrency", "2", "--quiet"],
                           cwd=folder, env=_env(home, bait.secret))
            out, err = proc.communicate(timeout=240)
            requests = list(fake.requests)
        time.sleep(0.2)
        bait.seen = {"signals": bait.signals(), "connections": bait.connections(), "alive": bait.target_alive(),
                     "planted": (bait.dir / "open" / "planted.txt").exists()
                     or Path("/planted-by-snippet.txt").exists()}
    result = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert not sandbox_folders(proc.pid) and not sandbox_processes(proc.pid)
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(l["id"] for l in lines) == sorted(i["id"] for i in items)  # one line per instance
    runs = {next(n for n, c in cheats.items() if c == l["code_runs"][0]["code"]): l for l in lines}
    return result, bait, runs, requests, run


@pytest.mark.parametrize("kind", STRONG)
def test_a_cheating_model_gets_nothing_through_eval(kind, user_folder):
    why = mode_unavailable(kind)
    if why:
        pytest.skip(f"--sandbox {kind} cannot run here: {why}")
    result, bait, runs, requests, run = _cheat_eval(kind, user_folder)
    assert "--api-key puts the secret on the command line" in result.stderr
    for name, line in runs.items():
        [code_run] = line["code_runs"]
        printed = code_run["stdout"] + code_run["stderr"] + (line["final_answer"] or "")
        assert bait.secret not in printed and bait.gold_marker not in printed, (name, printed[-600:])
        assert "audit hook disarmed" in code_run["stdout"], name  # it was, and that changed nothing
    assert "processes visible: 1\n" in runs["key search over /proc"]["code_runs"][0]["stdout"]
    assert "signalled []" in runs["signal outside"]["code_runs"][0]["stdout"]
    assert bait.seen == {"signals": "", "connections": 0, "alive": True, "planted": False}
    # the key went out only where it must: the Authorization header
    for r in requests:
        assert bait.secret not in json.dumps(r["body"])
    assert any({k.lower(): v for k, v in r["headers"].items()}.get("authorization") == f"Bearer {bait.secret}"
               for r in requests)
    assert bait.secret not in result.stdout + result.stderr
    for p in run.rglob("*"):
        if p.is_file():
            assert bait.secret.encode() not in p.read_bytes(), p
            assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    info = json.loads((run / "run.json").read_text())
    assert info["args"]["api_key"] == "***" and info["sandbox"]["isolation"]["requested"] == kind
    assert info["sandbox"]["kind"] in ("bwrap", "namespaces")


def test_unsafe_process_is_the_positive_control(user_folder):
    """Where the host is visible the same programs find what they hunt: the gold in the world-readable user
    folder and the key on the client's own command line, which is why --api-key warns. The run folder
    itself (0700, masked arguments) still holds no key outside what the programs printed."""
    if os.geteuid() != 0:
        pytest.skip("the control compares with what the root-only layers (uid, network namespace) keep out")
    result, bait, runs, _, run = _cheat_eval("unsafe-process", user_folder)
    assert "--sandbox unsafe-process: the model's code can read every file" in result.stderr
    assert bait.gold_marker in runs["gold search over the file system"]["code_runs"][0]["stdout"]
    assert bait.secret in runs["key search over /proc"]["code_runs"][0]["stdout"]
    assert bait.secret in runs["filesystem unix socket"]["code_runs"][0]["stdout"]
    assert bait.secret not in runs["abstract unix socket"]["code_runs"][0]["stdout"]
    assert bait.secret not in (run / "run.json").read_text()


def test_auto_without_a_strong_mode_stops_with_one_line(tmp_path, capsys, monkeypatch):
    from span_toolkit.client.cli import main
    from span_toolkit.client.sandbox import Sandbox

    monkeypatch.setattr(Sandbox, "_unavailable", lambda self, kind: "not on this machine")
    rc = main(["eval", "--model", "reference-code", "--time-agent", "--date", "2025-07-01", "--sample", "3",
               "--out", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert "apt-get install bubblewrap" in err and "--sandbox unsafe-process" in err


# ---------------------------------------------------------------------------------------- SIGTERM

def _slow_coder(body, index):
    from span_toolkit.client.agents.scripted import final_answer, program_for
    from span_toolkit.client.solvers.timeagent_messages import stdout_from_message

    if len([m for m in body["messages"] if m["role"] == "user"]) == 1:
        return Slow(0.3, Text("```python\n" + program_for(first_user_text(body)) + "```"))
    return Text("Final answer: " + final_answer(stdout_from_message(_last_user(body))))


@pytest.mark.parametrize("signals", [1, 2], ids=["one-sigterm", "two-sigterms"])
@pytest.mark.parametrize("kind", ["auto", "unsafe-process"])
def test_sigterm_during_an_eval_leaves_no_sandbox_behind(kind, signals, tmp_path):
    why = mode_unavailable(kind)
    if why:
        pytest.skip(f"--sandbox {kind} cannot run here: {why}")
    run = tmp_path / "run"
    with FakeOpenAI(_slow_coder) as fake:
        proc = _client(["eval", "--model", "openai-compatible/coder", "--base-url", fake.base_url, "--time-agent",
                        "--sandbox", kind, "--date", "2025-07-01", "--sample", "60", "--concurrency", "2",
                        "--out", str(run), "--quiet"], cwd=tmp_path, env=_env(tmp_path, "sk-unused"))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            results = run / "results.jsonl"
            if results.exists() and len(results.read_text().splitlines()) >= 2:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        if kind == "unsafe-process":
            assert sandbox_folders(proc.pid)  # it made one: the test would prove nothing otherwise
        assert sandbox_processes(proc.pid)
        for _ in range(signals):
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.05)
        out, err = proc.communicate(timeout=60)
    # a second SIGTERM after the run closed its sandbox (only the exit left) finds the default action
    assert proc.returncode == 130 or (signals == 2 and proc.returncode == -signal.SIGTERM), err[-2000:]
    time.sleep(0.3)  # zygotes killed by their parent's death are gone by now
    assert not sandbox_folders(proc.pid)
    assert not sandbox_processes(proc.pid)
    lines = (run / "results.jsonl").read_text().splitlines()
    assert len(lines) >= 2 and all(json.loads(l)["stop_reason"] != "error" for l in lines)


def test_keys_given_as_flags_are_masked_in_what_is_printed():
    from span_toolkit.client.commands import common
    from span_toolkit.client.commands.eval import resume_command

    argv = ["eval", "--api-key", "sk-1", "--judge-api-key=sk-2", "--server-token", "tok", "--out", "r"]
    assert common.mask_secret_flags(argv) == ["eval", "--api-key", "***", "--judge-api-key=***",
                                              "--server-token", "***", "--out", "r"]
    saved = list(common.INVOKED)
    common.INVOKED[:] = argv
    try:
        cmd = resume_command()
    finally:
        common.INVOKED[:] = saved
    assert "sk-1" not in cmd and "sk-2" not in cmd and "tok " not in cmd and "(with your key for ***)" in cmd
