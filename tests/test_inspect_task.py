"""The inspect_ai task ``span_toolkit/span``: each mode with its scripted agent (as inspect model providers),
offline; the breakdowns as sample metadata; the project's sandbox as inspect sandbox; bad arguments."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

import span_toolkit._registry  # noqa: E402,F401  (registers what the entry point registers)
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import (ChatMessageAssistant, ChatMessageTool, ChatMessageUser, GenerateConfig,  # noqa: E402
                              ModelAPI, ModelOutput, get_model, modelapi)
from inspect_ai.tool import ToolCall, ToolCallError  # noqa: E402

from span_toolkit.client.inspect_export import BREAKDOWNS  # noqa: E402
from span_toolkit.providers import ScriptedAPI, to_neutral  # noqa: E402
from span_toolkit.sandbox import SpanSandboxConfig, SpanSandboxEnvironment, program_of  # noqa: E402
from span_toolkit.task import span  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARMS = [("span/baseline", "unaided"), ("span/reference", "tools"), ("span/reference-code", "time_agent")]


def _run(tmp_path, model, **task_args):
    # the task object, not its name: in a checkout, a setuptools *.egg-info at the root (which `pip install
    # -e` leaves) hides the installed metadata inspect reads the package namespace from, so the name
    # span_toolkit/span resolves only where the package is installed (tests/test_packaging.py runs it so)
    limit = task_args.pop("limit", None)
    logs = inspect_eval(span(**task_args), model=model, limit=limit, log_dir=str(tmp_path / "logs"), display="none")
    assert len(logs) == 1
    return logs[0]


@pytest.mark.parametrize("model,mode", ARMS)
def test_each_mode_with_its_scripted_agent_scores_five_samples(tmp_path, model, mode):
    log = _run(tmp_path, model, date="2025-07-01", mode=mode, limit=5)
    assert log.status == "success", log.error
    assert len(log.samples) == 5
    values = [s.scores["span_judge"].value for s in log.samples]
    assert all(v in ("C", "I", "N") for v in values), values  # every sample judged
    if model != "span/baseline":
        assert values == ["C"] * 5, [(s.id, s.output.completion, s.error) for s in log.samples]
    acc = log.results.scores[0].metrics["accuracy"].value
    assert acc == values.count("C") / 5
    for s in log.samples:
        assert set(BREAKDOWNS) <= set(s.metadata), s.metadata
        assert s.metadata["eval_date"] == "2025-07-01"
        assert s.target == s.metadata["instance"]["answer"]


def test_tools_mode_calls_span_server_and_records_the_calls(tmp_path):
    log = _run(tmp_path, "span/reference", date="2025-07-01", mode="tools", limit=1)
    msgs = log.samples[0].messages
    calls = [c for m in msgs if isinstance(m, ChatMessageAssistant) for c in (m.tool_calls or [])]
    results = [m for m in msgs if isinstance(m, ChatMessageTool)]
    assert [c.function for c in calls] == ["date_arithmetic"]
    assert results and results[0].error is None and "gregorian:" in results[0].text
    assert log.eval.task_args["mode"] == "tools"


def test_time_agent_runs_programs_in_the_span_sandbox(tmp_path):
    log = _run(tmp_path, "span/reference-code", date="2025-07-01", mode="time_agent", limit=2)
    assert log.eval.sandbox is not None and log.eval.sandbox.type == "span"
    for s in log.samples:
        runs = s.store["span_code_runs"]
        assert len(runs) == 1 and runs[0]["exit_reason"] == "ok" and "search_calendar" in runs[0]["code"]
        events = [e for e in s.events if e.event == "sandbox" and e.action == "exec"]
        assert len(events) == 1 and events[0].result == 0
        assert s.store["span_stop_reason"] == "answered"


def test_a_stratified_sample_covers_every_family_and_the_breakdown_metrics(tmp_path):
    args = dict(date="2025-07-01", sample=30, seed=3, extended=True, polar_negatives=True)
    code = _run(tmp_path, "span/reference-code", mode="time_agent", **args)
    assert code.status == "success"
    assert [s.scores["span_judge"].value for s in code.samples] == ["C"] * 30
    kinds = {s.metadata["reasoning_type"] for s in code.samples}
    assert kinds == {"date", "festival", "ordering", "duration"}
    polar = [s for s in code.samples if s.metadata["question_format"] == "polar"]
    assert {s.metadata["instance"]["answer"] for s in polar} == {"Yes", "No"}  # polar negatives reached the task
    base = _run(tmp_path, "span/baseline", mode="unaided", **args)
    metrics = base.results.scores[0].metrics
    assert {"accuracy", "stderr", "content", "polar", "ordering", "duration"} <= set(metrics)
    assert metrics["content"].value == 0.0 < metrics["polar"].value  # the floor: "Yes" scores only on polar


def test_bad_task_arguments_say_what_is_valid():
    with pytest.raises(ValueError, match="mode must be one of unaided, tools, time_agent"):
        span(date="2025-07-01", mode="tool")
    with pytest.raises(ValueError, match="is not a valid date"):
        span(date="2025-13-45")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        span(date="yesterday")
    with pytest.raises(ValueError, match="-T date=2025-07-01"):
        span()
    with pytest.raises(ValueError, match="sandbox must be one of"):
        span(date="2025-07-01", mode="time_agent", sandbox="docker")
    with pytest.raises(ValueError, match="sample must be a positive number"):
        span(date="2025-07-01", sample=0)
    with pytest.raises(ValueError, match="larger than"):
        span(date="2025-07-01", sample=5000)


def test_dates_arrive_in_every_form_inspect_parses(tmp_path):
    from datetime import date

    assert len(span(date=date(2025, 7, 1), sample=3).dataset) == 3  # -T date=2025-07-01 is a YAML date
    assert len(span(date=["2025-07-01", "2030-07-01"], sample=4).dataset) == 4  # a comma list is a list
    assert {s.metadata["eval_date"] for s in span(date="2025-07-01,2030-07-01", sample=4).dataset} == {
        "2025-07-01", "2030-07-01"}


def test_reference_agent_without_tools_is_an_error_that_names_the_mode():
    api = ScriptedAPI("reference")

    async def go():
        return await api.generate([ChatMessageUser(content='Today\'s date on the Gregorian calendar is "2025-7-1". '
                                                           'What was the Chinese lunar calendar date 1 days ago?')],
                                  [], "auto", GenerateConfig())

    import asyncio

    with pytest.raises(RuntimeError, match="-T mode=tools"):
        asyncio.run(go())
    with pytest.raises(ValueError, match="valid: .*span/baseline"):
        ScriptedAPI("gpt-9")


def test_tool_results_reach_the_agent_as_text_and_errors_as_errors():
    text = "gregorian: 2025-6-30\nchinese_lunar: 2025-6-6\nweekday: Monday"
    _, msgs = to_neutral([
        ChatMessageUser(content="q"),
        ChatMessageAssistant(content="", tool_calls=[ToolCall(id="a", function="search_calendar", arguments={})]),
        ChatMessageTool(content=text, tool_call_id="a", function="search_calendar"),
        ChatMessageTool(content="", tool_call_id="b", function="search_calendar",
                        error=ToolCallError("unknown", "unknown calendar 'klingon'")),
        ChatMessageTool(content="chinese_lunar: not a date", tool_call_id="c", function="search_calendar")])
    assert msgs[2]["structured"]["chinese_lunar"] == {"year": 2025, "month": 6, "day": 6, "is_leap_month": False,
                                                      "display": "2025-6-6"}
    assert msgs[3]["is_error"] and "klingon" in msgs[3]["content"] and msgs[3]["structured"] is None
    assert msgs[4]["structured"] is None  # unreadable: the agent finds no date rather than a guess


def test_token_counts_never_load_tiktoken(monkeypatch):
    """inspect's default count downloads o200k_base; the scripted providers must never reach it."""
    import tiktoken

    def refuse(*a, **k):
        raise ConnectionError("no network: tiktoken tried to download its encoding")

    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    import asyncio

    model = get_model("span/reference")
    assert asyncio.run(model.count_tokens("x" * 400)) == 100
    assert asyncio.run(model.count_tokens([ChatMessageUser(content="y" * 40)])) >= 10
    with pytest.raises(ConnectionError):  # the control: inspect's default path does reach tiktoken
        asyncio.run(ModelAPI.count_text_tokens(model.api, "x"))


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


OFFLINE_SCRIPT = textwrap.dedent("""
    import sys
    import span_toolkit._registry
    from inspect_ai import eval as inspect_eval
    model, mode, log_dir = sys.argv[1:4]
    from span_toolkit.task import span
    log = inspect_eval(span(date="2025-07-01", mode=mode), model=model, limit=2, log_dir=log_dir,
                       display="none")[0]
    errors = [s.error.message for s in log.samples if s.error]
    print(log.status, len(log.samples), sum(1 for s in log.samples if "span_judge" in (s.scores or {})),
          (log.error.message if log.error else "") + "|".join(errors))
""")


@pytest.mark.skipif(not _unshare_works(), reason="needs `unshare -n` (root or user namespaces) to cut the network")
@pytest.mark.parametrize("model,mode", ARMS + [("mockllm/model", "unaided")])
def test_runs_with_the_network_unreachable(tmp_path, model, mode):
    """In a network namespace of its own (no route anywhere) and an empty tiktoken cache: the scripted
    providers finish; inspect's mockllm, the control, fails on the download (so the cut is real)."""
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(["unshare", "-n", sys.executable, "-c", OFFLINE_SCRIPT, model, mode, str(tmp_path / "l")],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    status, n, scored, problems = (proc.stdout.strip().splitlines()[-1].split(" ", 3) + [""])[:4]
    if model == "mockllm/model":
        assert status == "error" and "o200k_base" in problems, proc.stdout[-1000:]
    else:
        assert (status, n, scored) == ("success", "2", "2"), proc.stdout[-1000:]


@modelapi(name="spantestjudge")
class _JudgeAPI(ModelAPI):
    """A judge model for the test: answers every judge prompt with a fixed verdict, counts no tokens."""

    def __init__(self, model_name, base_url=None, api_key=None, config=GenerateConfig(), **kw):
        super().__init__(model_name, base_url, api_key, [], config)
        self.prompts: list[str] = []

    async def generate(self, input, tools, tool_choice, config):
        return ModelOutput.from_content(model="spantestjudge/" + self.model_name,
                                        content='{"accuracy": 0}' if self.model_name == "no" else '{"accuracy": 1}')

    async def count_text_tokens(self, text):
        return len(text)


def test_the_paper_llm_judge_is_primary_when_a_judge_model_is_given(tmp_path):
    log = _run(tmp_path, "span/reference", date="2025-07-01", mode="tools", limit=2, judge_model="spantestjudge/no")
    for s in log.samples:
        score = s.scores["span_judge"]
        assert score.metadata["primary_judge"] == "llm"
        assert score.metadata["verdicts"]["rules"]["verdict"] == "CORRECT"  # the rules judge ran beside it
        assert score.metadata["verdicts"]["llm"]["verdict"] == "INCORRECT" and score.value == "I"


# ------------------------------------------------------------------------------------ the span sandbox

def test_program_of_reads_the_commands_solvers_and_inspects_python_tool_send():
    assert program_of(["python3", "-"], "print(1)") == "print(1)"
    assert program_of(["python", "-c", "print(2)"], None) == "print(2)"
    assert program_of(["bash", "--login", "-c", "python3 -"], b"print(3)") == "print(3)"
    assert program_of(["/usr/bin/python3"], "x") == "x"
    assert program_of(["ls", "/"], None) is None
    assert program_of(["python3", "script.py"], None) is None
    assert program_of(["bash", "--login", "-c", "rm -rf /"], None) is None


async def test_sandbox_environment_runs_python_only_and_keeps_no_files(monkeypatch):
    from inspect_ai.util import SandboxUserUnsupportedError

    monkeypatch.setenv("SPAN_TEST_SECRET", "do-not-leak")

    cfg = SpanSandboxConfig(slots=1)
    await SpanSandboxEnvironment.task_init("t", cfg)
    try:
        envs = await SpanSandboxEnvironment.sample_init("t", cfg, {})
        box = envs["default"]
        r = await box.exec(["python3", "-"], input='print(search_calendar("gregorian", 2025, 7, 1)["hebrew_date"])')
        assert r.success and r.stdout.strip() == "5785-4-5"
        r = await box.exec(["ls", "/"])
        assert not r.success and r.returncode == 127 and "Python programs only" in r.stderr
        r = await box.exec(["python3", "-c", "while True: pass"], timeout=1)
        assert not r.success and box.runs[-1].exit_reason in ("timeout", "cpu")
        r = await box.exec(["python3", "-c", "import os; print(sorted(os.environ))"], env={"A": "1"})
        assert r.success and "SPAN_TEST_SECRET" not in r.stdout and "'A'" not in r.stdout  # the eval's stays out
        with pytest.raises(PermissionError, match="keeps no files"):
            await box.write_file("a.txt", "x")
        with pytest.raises(FileNotFoundError, match="keeps no files"):
            await box.read_file("a.txt")
        with pytest.raises(SandboxUserUnsupportedError):
            await box.exec(["python3", "-c", "1"], user="root")
        assert [x.exit_reason for x in box.runs][:1] == ["ok"]
    finally:
        await SpanSandboxEnvironment.task_cleanup("t", cfg, True)
    assert cfg not in SpanSandboxEnvironment._pools


def test_an_instances_file_from_span_client_generate(tmp_path):
    from span_toolkit.client.cli import main as cli_main

    f = tmp_path / "i.jsonl"
    assert cli_main(["generate", "--date", "2025-07-01", "--sample", "6", "--out", str(f)]) == 0
    assert len(span(instances_file=str(f)).dataset) == 6
    assert len(span(instances_file=str(f), sample=2).dataset) == 2
    with pytest.raises(ValueError, match="either date or instances"):
        span(date="2025-07-01", instances_file=str(f))
    with pytest.raises(ValueError, match="no such file"):
        span(instances_file=str(tmp_path / "missing.jsonl"))
