"""span-client eval --time-agent end to end: a fake model that writes code, hostile code from a model,
the scripted code agent, and the three arms side by side in the report."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from span_toolkit.client.agents.scripted import final_answer, program_for
from span_toolkit.client.solvers.timeagent_messages import stdout_from_message
from tests.fakes.cheats import sandbox_folders, sandbox_processes
from tests.fakes.providers import FakeOpenAI, Text, first_user_text

HOSTILE = {
    "infinite loop": "while True:\n    pass\n",
    "memory bomb": "x = []\nwhile True:\n    x.append(bytearray(50_000_000))\n",
    "fork bomb": "import os\nwhile True:\n    os.fork()\n",
    "socket connect": "import socket\ns = socket.create_connection(('127.0.0.1', 22), timeout=2)\nprint('connected')\n",
    "write home": "open('{home}/span-sandbox-escape.txt', 'w').write('x')\nprint('written')\n",
    "read secrets": "import os\nprint(os.environ['OPENAI_API_KEY'])\n",
    "kill parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    "sys.exit": "import sys\nsys.exit(3)\n",
    "print 100 MB": "import sys\nsys.stdout.write('x' * 100_000_000)\n",
}


def _last_user(body: dict) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def coder(body: dict, index: int):
    """A model that writes correct Python for the question, then answers with what it printed."""
    users = [m for m in body["messages"] if m["role"] == "user"]
    if len(users) == 1:
        return Text("I will compute it.\n```python\n" + program_for(first_user_text(body)) + "```")
    return Text("The program printed the answer.\n" + final_answer(stdout_from_message(_last_user(body))))


def _eval(fake, out: Path, *extra: str) -> list[str]:
    return ["eval", "--model", "openai-compatible/coder", "--base-url", fake.base_url, "--api-key", "k",
            "--time-agent", "--out", str(out), "--quiet", *extra]


def _lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def test_a_model_that_writes_correct_code_scores_100_on_200(tmp_path):
    with FakeOpenAI(coder) as fake:
        assert main(_eval(fake, tmp_path / "run", "--date", "2025-07-01", "--sample", "200")) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["n"] == 200 and summary["accuracy"] == 1.0 and summary["mode"] == "time_agent"
    assert summary["code_runs"] == {"instances_with_code": 200, "instances_with_failed_code": 0,
                                    "answers_without_code": 0, "code_reminders": 0, "stopped_at_limit": 0,
                                    "program_repeats_caught": 0, "instances_with_program_repeats": 0,
                                    "final_requests_without_code": 0, "final_request_answers": 0,
                                    "prompt_echoes": 0}
    line = _lines(tmp_path / "run")[0]
    [run] = line["code_runs"]
    assert run["exit_reason"] == "ok" and "search_calendar" in run["code"] and run["stdout"] and run["seconds"] > 0
    assert line["turns"] == 2 and line["final_answer"].startswith("The program printed")
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["sandbox"]["kind"] in ("bwrap", "namespaces") and info["sandbox"]["limits"]["wall_seconds"] > 0
    assert info["sandbox"]["isolation"]["requested"] == "auto" and info["settings"]["sandbox"] == "auto"
    assert info["sandbox"]["isolation"]["pid_namespace"] and info["sandbox"]["isolation"]["private_root"]


def test_hostile_code_is_contained_and_recorded(tmp_path, monkeypatch):
    from span_toolkit.span.benchmark import generate_sample, parse_eval_date

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-must-not-leak")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    os.chmod(tmp_path, 0o755)
    names = list(HOSTILE)
    items = list(generate_sample([parse_eval_date("2025-07-01")], len(names), seed=3))
    home = tmp_path / "home"
    os.chmod(home, 0o777)  # even a world-writable home stays out of reach
    name_of = {i["question"]: n for i, n in zip(items, names)}
    by_question = {q: HOSTILE[n].replace("{home}", str(home)) for q, n in name_of.items()}
    inst = tmp_path / "instances.jsonl"
    inst.write_text("".join(json.dumps(i) + "\n" for i in items))

    def hostile(body, index):
        users = [m for m in body["messages"] if m["role"] == "user"]
        if len(users) == 1:
            return Text("```python\n" + by_question[first_user_text(body)] + "```")
        return Text("Final answer: I could not compute it.")

    t = time.monotonic()
    with FakeOpenAI(hostile) as fake:
        rc = main(_eval(fake, tmp_path / "run", "--instances", str(inst), "--max-turns", "1", "--concurrency", "3"))
    took = time.monotonic() - t
    assert rc == 0 and took < 60, took  # the client lived; every instance was recorded (none is an error)
    lines = {l["question"]: l for l in _lines(tmp_path / "run")}
    reasons = {}
    for q, code in by_question.items():
        name = name_of[q]
        [run] = lines[q]["code_runs"]
        reasons[name] = run["exit_reason"]
        assert run["exit_reason"] != "ok" or name == "print 100 MB", (name, run)
        assert "sk-secret-must-not-leak" not in run["stdout"] + run["stderr"]
        assert lines[q]["correct"] is False
    assert reasons["infinite loop"] in ("cpu", "timeout")
    assert reasons["memory bomb"] == "memory"
    assert reasons["print 100 MB"] == "output_limit"
    assert reasons["sys.exit"] == "error"
    assert not (tmp_path / "home" / "span-sandbox-escape.txt").exists()
    assert not list((tmp_path / "home").iterdir())
    assert not sandbox_folders(os.getpid())  # its own: other sandboxes may run on this machine meanwhile
    assert not sandbox_processes(os.getpid())


def test_scripted_code_agent_and_the_three_arms_in_the_report(tmp_path, capsys):
    common = ["--date", "2025-07-01", "--sample", "120", "--quiet"]
    assert main(["eval", "--model", "reference-code", "--time-agent", "--out", str(tmp_path / "code"), *common]) == 0
    assert main(["eval", "--model", "reference", "--with-tools", "--out", str(tmp_path / "tools"), *common]) == 0
    assert main(["eval", "--model", "baseline", "--out", str(tmp_path / "bare"), *common]) == 0
    summary = json.loads((tmp_path / "code" / "summary.json").read_text())
    assert summary["accuracy"] == 1.0 and summary["n"] == 120
    capsys.readouterr()
    assert main(["report", str(tmp_path / "bare"), str(tmp_path / "tools"), str(tmp_path / "code"),
                 "--out", str(tmp_path / "rep"), "--no-figures", "--no-tiktoken", "--resamples", "200"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "reference-code (Time Agent) vs reference (with tools)" in md
    assert "reference-code (Time Agent) vs baseline (unaided)" in md
    assert "## Time Agent: did the model's code run?" in md
    rep = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert {(p["arm_a"]["mode"], p["arm_b"]["mode"]) for p in rep["paired"]} == {
        ("with_tools", "unaided"), ("time_agent", "unaided"), ("time_agent", "with_tools")}


@pytest.mark.parametrize("argv,needle", [
    (["--model", "reference-code", "--with-tools"], "add --time-agent"),
    (["--model", "reference", "--time-agent"], "add --with-tools"),
])
def test_scripted_agents_refuse_the_wrong_arm(tmp_path, capsys, argv, needle):
    assert main(["eval", *argv, "--date", "2025-07-01", "--out", str(tmp_path / "r")]) == 2
    assert needle in capsys.readouterr().err
