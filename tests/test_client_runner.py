"""span-client eval end to end against fake providers: judging, retries, timeouts, errors, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from span_toolkit.client.retry import RetryPolicy
from span_toolkit.client.rundir import RunFolder
from span_toolkit.client.providers.base import ProviderError
from span_toolkit.client.providers.errors import retry_after_seconds
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeAnthropic, FakeOpenAI, Malformed, Slow, Status, Text, first_user_text

ROOT = Path(__file__).resolve().parent.parent

LINE_KEYS = {"id", "eval_date", "reasoning_type", "question_format", "direction", "source_calendar",
             "target_calendar", "template_id", "variables", "question", "code", "answer", "gold", "mode", "model",
             "messages", "tool_calls", "final_answer", "stop_reason", "usage", "latency_s", "retries", "error",
             "verdicts", "primary_judge", "correct"}


def oracle_for(instances, wrong: set[str] = frozenset()):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if inst["id"] in wrong:
            return Text("I think it is 1999-1-1.\nFinal answer: 1999-1-1" if inst["question_format"] == "content"
                        else "Final answer: No")
        return Text(f"Working it out...\nFinal answer: {inst['answer']}")

    return policy


def eval_args(fake, out: Path, inst_file: Path, model="anthropic/claude-test", *extra):
    return ["eval", "--model", model, "--base-url", fake.base_url, "--api-key", "k", "--instances", str(inst_file),
            "--out", str(out), "--quiet", "--retry-base-delay", "0.01", *extra]


@pytest.fixture
def toy(tmp_path):
    items = toy_instances(9)
    return items, write_jsonl(tmp_path / "instances.jsonl", items)


def test_unaided_run_writes_contract_lines_and_summary(tmp_path, toy, capsys):
    items, f = toy
    wrong = {items[0]["id"], items[2]["id"]}  # one content, one polar answered wrongly
    with FakeOpenAI(oracle_for(items, wrong)) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, "openai/gpt-test", "--concurrency", "3"))
    assert rc == 0
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert sorted(l["id"] for l in lines) == sorted(i["id"] for i in items)
    for l in lines:
        assert LINE_KEYS <= set(l), LINE_KEYS - set(l)
        assert l["mode"] == "unaided" and l["model"] == "openai/gpt-test" and l["stop_reason"] == "answered"
        assert l["primary_judge"] == "rules" and set(l["verdicts"]) == {"rules"}
        assert l["usage"] == {"input_tokens": 11, "output_tokens": 7} and l["retries"] == 0
        assert l["correct"] is (l["id"] not in wrong)
        assert l["verdicts"]["rules"]["verdict"] == ("INCORRECT" if l["id"] in wrong else "CORRECT")
        assert l["messages"][0]["role"] == "system" and l["messages"][1]["content"] == l["question"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["n"] == 9 and summary["n_scored"] == 9 and summary["n_correct"] == 7
    assert summary["accuracy"] == pytest.approx(7 / 9) and summary["n_errors"] == 0
    assert summary["per_judge"]["rules"] == {"CORRECT": 7, "INCORRECT": 2, "NOT_ATTEMPTED": 0}
    assert summary["agreement"] is None
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["model"] == "openai/gpt-test" and run["mode"] == "unaided" and run["ended_at"]
    assert run["args"]["api_key"] == "***" and "k" not in json.dumps(run["args"]["api_key"])
    assert run["prompt_hashes"]["system_unaided.md"].startswith("sha256:")
    assert "accuracy 77.78%" in capsys.readouterr().out
    # the second run of the same command asks nothing: everything is done
    with FakeOpenAI(oracle_for(items), port=fake.port) as fake2:  # same endpoint: same --base-url
        assert main(eval_args(fake2, tmp_path / "run", f, "openai/gpt-test")) == 0
    assert fake2.requests == []
    assert len(read_results(tmp_path / "run" / "results.jsonl")) == 9


@pytest.mark.parametrize("cls,header,value,wait", [
    (FakeAnthropic, "retry-after-ms", "400", 0.4),
    (FakeOpenAI, "retry-after", "1", 1.0),
])
def test_429_then_success_honours_retry_after(tmp_path, cls, header, value, wait):
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "i.jsonl", items)
    answer = oracle_for(items)

    def policy(body, index):
        if index == 0:
            return Status(429, None, {header: value})
        return answer(body, index)

    model = "anthropic/claude-test" if cls is FakeAnthropic else "openai/gpt-test"
    with cls(policy) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, model, "--max-retries", "3"))
    assert rc == 0
    [line] = read_results(tmp_path / "run" / "results.jsonl")
    assert line["stop_reason"] == "answered" and line["correct"] is True and line["retries"] == 1
    assert len(fake.requests) == 2  # our single retry layer: the SDK did not retry on its own
    gap = fake.requests[1]["t"] - fake.requests[0]["t"]
    assert gap >= wait * 0.95, gap  # base delay is 0.01 s: only Retry-After explains the wait


def test_500s_exhaust_retries_recorded_as_error_then_retried_on_resume(tmp_path, toy, capsys):
    items, f = toy
    bad = items[4]
    good = oracle_for(items)

    def flaky(body, index):
        if first_user_text(body) == bad["question"]:
            return Status(500, {"type": "error", "error": {"type": "api_error", "message": "boom"}})
        return good(body, index)

    out = tmp_path / "run"
    with FakeAnthropic(flaky) as fake:
        rc = main(eval_args(fake, out, f, "anthropic/claude-test", "--max-retries", "2"))
    assert rc == 1
    assert "re-run the same command to retry" in capsys.readouterr().err
    assert sum(first_user_text(r["body"]) == bad["question"] for r in fake.requests) == 3  # 1 + 2 retries
    lines = {l["id"]: l for l in read_results(out / "results.jsonl")}
    err = lines[bad["id"]]
    assert err["stop_reason"] == "error" and err["correct"] is None and err["final_answer"] is None
    assert "500" in err["error"] and "gave up after 2 retries" in err["error"] and err["retries"] == 2
    assert err["verdicts"] == {}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == 9 and summary["n_errors"] == 1 and summary["n_scored"] == 8
    assert summary["accuracy"] == 1.0  # an error is not a wrong answer

    with FakeAnthropic(good, port=fake.port) as fake2:  # same endpoint: same --base-url
        rc = main(eval_args(fake2, out, f, "anthropic/claude-test"))
    assert rc == 0
    assert [first_user_text(r["body"]) for r in fake2.requests] == [bad["question"]]  # only the failed one
    lines = read_results(out / "results.jsonl")
    assert len(lines) == 9 and len({l["id"] for l in lines}) == 9
    assert {l["id"]: l for l in lines}[bad["id"]]["correct"] is True
    old = read_results(out / "errors.jsonl")
    assert [l["id"] for l in old] == [bad["id"]] and old[0]["stop_reason"] == "error"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_errors"] == 0 and summary["n_correct"] == 9
    run = json.loads((out / "run.json").read_text())
    assert len(run["resumed_at"]) == 1


def test_quota_429_is_not_retried(tmp_path):
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "i.jsonl", items)
    quota = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                       "param": None, "code": "insufficient_quota"}}
    with FakeOpenAI(lambda b, i: Status(429, quota, {"retry-after": "0"})) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, "openai/gpt-test", "--max-retries", "4"))
    assert rc == 1 and len(fake.requests) == 1  # waiting does not refill a quota
    [line] = read_results(tmp_path / "run" / "results.jsonl")
    assert line["stop_reason"] == "error" and "quota" in line["error"] and line["correct"] is None


def test_slow_reply_hits_the_timeout(tmp_path):
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "i.jsonl", items)
    with FakeOpenAI(lambda b, i: Slow(3.0, Text("Final answer: too late"))) as fake:
        t0 = time.monotonic()
        rc = main(eval_args(fake, tmp_path / "run", f, "openai/gpt-test", "--timeout", "0.4", "--max-retries", "1"))
        elapsed = time.monotonic() - t0
    assert rc == 1
    [line] = read_results(tmp_path / "run" / "results.jsonl")
    assert line["stop_reason"] == "error" and line["correct"] is None and line["final_answer"] is None
    assert "timed out" in line["error"] and line["retries"] == 1
    assert len(fake.requests) == 2
    assert elapsed < 2.9  # did not wait for the slow reply


def test_malformed_reply_is_an_error_not_retried(tmp_path):
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "i.jsonl", items)
    with FakeAnthropic(lambda b, i: Malformed()) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, "anthropic/claude-test", "--max-retries", "3"))
    assert rc == 1
    [line] = read_results(tmp_path / "run" / "results.jsonl")
    assert line["stop_reason"] == "error" and line["correct"] is None and len(fake.requests) == 1


def test_truncated_last_line_is_ignored_on_resume(tmp_path, toy):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle_for(items)) as fake:
        write_jsonl(tmp_path / "first.jsonl", items[:4])
        assert main(eval_args(fake, out, tmp_path / "first.jsonl", "openai/gpt-test")) == 0
        before = (out / "results.jsonl").read_bytes()
        partial = json.dumps(dict(items[4], stop_reason="answered", correct=True))[:57]
        with open(out / "results.jsonl", "ab") as fh:
            fh.write(partial.encode())  # a writer killed mid-line
        # a bigger instance file than the first run's: resuming it is a deliberate --force-resume
        assert main(eval_args(fake, out, f, "openai/gpt-test", "--force-resume")) == 0
    after = (out / "results.jsonl").read_bytes()
    assert after.startswith(before)  # nothing written before is lost
    lines = read_results(out / "results.jsonl")
    assert sorted(l["id"] for l in lines) == sorted(i["id"] for i in items)
    assert all(l["correct"] for l in lines)
    assert len(fake.requests) == 9


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_run_killed_midway_resumes_without_loss_or_duplicates(tmp_path, sig):
    items = toy_instances(60, prefix="kill")
    f = write_jsonl(tmp_path / "i.jsonl", items)
    out = tmp_path / "run"
    with FakeAnthropic(oracle_for(items), latency=0.05) as fake:
        cmd = [sys.executable, "-c", "import sys; from span_toolkit.client.cli import main; sys.exit(main())",
               *eval_args(fake, out, f, "anthropic/claude-test", "--concurrency", "2")]
        env = dict(os.environ, ANTHROPIC_API_KEY="k", PYTHONPATH=str(ROOT))
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        results = out / "results.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if results.exists() and results.read_bytes().count(b"\n") >= 10:
                break
            time.sleep(0.02)
        proc.send_signal(sig)
        proc.wait(timeout=20)
        if sig == signal.SIGKILL:
            assert proc.returncode == -signal.SIGKILL
        else:  # Ctrl-C: a clean exit that says how to resume
            assert proc.returncode == 130, proc.stderr.read()
            assert b"re-run the same command to resume" in proc.stderr.read()
        written = results.read_bytes()
        complete = written[: written.rfind(b"\n") + 1]
        n_before = complete.count(b"\n")
        assert 10 <= n_before < 60
        asked_before = len(fake.requests)
        assert main(eval_args(fake, out, f, "anthropic/claude-test", "--concurrency", "4")) == 0
    final = results.read_bytes()
    assert final.startswith(complete)  # no loss: every complete line survives byte for byte
    lines = read_results(results)
    ids = [l["id"] for l in lines]
    assert len(ids) == 60 and len(set(ids)) == 60 and set(ids) == {i["id"] for i in items}
    assert all(l["correct"] is True for l in lines)
    # the resumed run asked only for what was not written (the in-flight ones at most twice overall)
    assert len(fake.requests) - asked_before == 60 - n_before
    if sig == signal.SIGINT:
        assert n_before == complete.count(b"\n") and written == complete  # Ctrl-C leaves no partial line


def test_run_folder_of_another_model_is_refused(tmp_path, toy, capsys):
    items, f = toy
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "openai/gpt-test")) == 0
        capsys.readouterr()
        assert main(eval_args(fake, tmp_path / "run", f, "openai/other")) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("span-client: warning: --api-key puts the secret on the command line")
    err = "\n".join(lines[1:])
    assert err.startswith("span-client: error:") and "openai/gpt-test" in err and len(err.splitlines()) == 1


def test_llm_judge_records_both_verdicts_and_agreement(tmp_path, toy):
    items, f = toy
    wrong = {items[0]["id"]}
    by_q = {i["question"]: i for i in items}

    def judge_policy(body, index):
        user = body["messages"][-1]["content"]
        # an honest fake judge: 1 when the gold answer text is at the end of the response
        inst = next(i for q, i in by_q.items() if q in user)
        if inst["id"] == items[1]["id"]:
            return Text("I cannot decide.")  # unparseable every time -> UNSCORED, never INCORRECT
        ok = inst["id"] not in wrong
        return Text('```json\n{"accuracy": %d}\n```' % int(ok))

    out = tmp_path / "run"
    with FakeOpenAI(oracle_for(items, wrong)) as fake, FakeOpenAI(judge_policy) as judge:
        rc = main(eval_args(fake, out, f, "openai/gpt-test", "--judge-model", "openai/judge-test",
                            "--judge-base-url", judge.base_url, "--judge-api-key", "k"))
    assert rc == 0
    lines = {l["id"]: l for l in read_results(out / "results.jsonl")}
    for l in lines.values():
        assert l["primary_judge"] == "llm" and set(l["verdicts"]) == {"rules", "llm"}
    assert lines[items[0]["id"]]["verdicts"]["llm"]["verdict"] == "INCORRECT"
    assert lines[items[0]["id"]]["correct"] is False
    unscored = lines[items[1]["id"]]
    assert unscored["verdicts"]["llm"]["verdict"] == "UNSCORED" and unscored["correct"] is None
    assert unscored["verdicts"]["llm"]["attempts"] == 3
    assert all(r["body"]["temperature"] == 0 for r in judge.requests)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored"] == 8 and summary["n_correct"] == 7
    assert summary["per_judge"]["llm"]["UNSCORED"] == 1
    assert summary["agreement"]["n"] == 8 and summary["agreement"]["raw_agreement"] == 1.0
    run = json.loads((out / "run.json").read_text())
    assert run["judges"]["llm"] == "openai/judge-test" and run["primary_judge"] == "llm"


def test_judge_subcommand_rejudges_without_asking_the_model(tmp_path, toy):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, out, f, "openai/gpt-test")) == 0
    lines = read_results(out / "results.jsonl")
    for l in lines:  # tamper with the verdicts: re-judging must restore them from the recorded answers
        l["verdicts"] = {"rules": {"verdict": "INCORRECT", "extracted": None, "reason": "tampered"}}
        l["correct"] = False
    write_jsonl(out / "results.jsonl", lines)
    assert main(["judge", str(out)]) == 0
    lines = read_results(out / "results.jsonl")
    assert len(lines) == 9 and all(l["correct"] is True for l in lines)
    assert all(l["verdicts"]["rules"]["verdict"] == "CORRECT" for l in lines)
    assert json.loads((out / "summary.json").read_text())["accuracy"] == 1.0
    assert not list(out.glob(".results.jsonl.tmp*"))
    # now with an LLM judge that disagrees everywhere
    with FakeOpenAI(lambda b, i: Text('{"accuracy": 0}')) as judge:
        assert main(["judge", str(out), "--judge-model", "openai/j", "--judge-base-url", judge.base_url, "--judge-api-key", "k"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_correct"] == 0 and summary["agreement"]["raw_agreement"] == 0.0
    assert json.loads((out / "run.json").read_text())["primary_judge"] == "llm"


# ----------------------------------------------------------------------------------------------- units
async def test_retry_policy_backoff_and_retry_after():
    waits = []

    async def fake_sleep(s):
        waits.append(s)

    policy = RetryPolicy(max_retries=3, base_delay=1.0, max_delay=8.0, sleep=fake_sleep)
    calls = iter([ProviderError("429", retryable=True, retry_after=5.0), ProviderError("503", retryable=True),
                  ProviderError("conn", retryable=True), "ok"])

    async def factory():
        v = next(calls)
        if isinstance(v, Exception):
            raise v
        return v

    assert await policy.call(factory) == ("ok", 3)
    assert waits[0] >= 5.0  # Retry-After wins over a 1 s backoff
    assert 1.0 <= waits[1] <= 2.0 and 2.0 <= waits[2] <= 4.0  # exponential, jittered

    async def fatal():
        raise ProviderError("400 bad request", retryable=False)

    waits.clear()
    with pytest.raises(ProviderError) as ei:
        await policy.call(fatal)
    assert waits == [] and ei.value.retries == 0


def test_retry_after_header_parsing():
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_seconds({}) is None


def test_prepare_results_drops_errors_duplicates_and_partial_tail(tmp_path):
    p = tmp_path / "results.jsonl"
    p.write_text(json.dumps({"id": "a", "stop_reason": "answered"}) + "\n"
                 + json.dumps({"id": "b", "stop_reason": "error"}) + "\n"
                 + json.dumps({"id": "a", "stop_reason": "answered"}) + "\n"
                 + '{"id": "c", "stop_')
    assert RunFolder(tmp_path).prepare_resume() == {("a", 1)}  # (id, attempt)
    assert [json.loads(l)["id"] for l in p.read_text().splitlines()] == ["a"]
    assert [json.loads(l)["id"] for l in (tmp_path / "errors.jsonl").read_text().splitlines()] == ["b"]


def test_with_tools_run_through_the_stdio_server(tmp_path, toy):
    from tests.fakes.policies import BENCH_TOOL_ARGS, toy_tool_then_answer

    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(toy_tool_then_answer) as fake:
        rc = main(eval_args(fake, out, f, "openai-compatible/local-model", "--with-tools", "--concurrency", "4"))
    assert rc == 0
    lines = read_results(out / "results.jsonl")
    assert len(lines) == 9 and all(l["correct"] is True for l in lines)
    for l in lines:
        assert l["mode"] == "with_tools" and l["turns"] == 2 and l["usage"] == {"input_tokens": 31, "output_tokens": 22}
        [call] = l["tool_calls"]
        assert call["name"] == "date_arithmetic" and call["arguments"] == BENCH_TOOL_ARGS and not call["is_error"]
        assert call["result"]["result"]["gregorian"]["numeric"] == "2025-7-28"  # 5 Tammuz 5785 + 27 days
        roles = [m["role"] for m in l["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert len(fake.requests) == 18
    tools = {t["function"]["name"] for t in fake.requests[0]["body"]["tools"]}
    assert tools == {"search_calendar", "date_arithmetic", "list_calendars"}  # server.tools.EVAL_TOOLS
    run = json.loads((out / "run.json").read_text())
    assert run["mode"] == "with_tools" and set(run["mcp"]["tools"]) == tools
    assert run["prompt_hashes"]["system_tools.md"].startswith("sha256:")
    assert fake.requests[0]["body"]["messages"][0]["content"].startswith("You answer questions about dates")


def test_a_run_folder_in_use_is_refused(tmp_path, toy, capsys):

    items, f = toy
    out = tmp_path / "run"
    out.mkdir()
    with RunFolder(out).lock(), FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, out, f, "openai/gpt-test")) == 2
    assert "another span-client command is using" in capsys.readouterr().err
    assert fake.requests == [] and not (out / "results.jsonl").exists()
    # once the lock is gone the same command runs; `judge` is refused while another command holds it
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, out, f, "openai/gpt-test")) == 0
    with RunFolder(out).lock():
        assert main(["judge", str(out)]) == 2
    assert "another span-client command is using" in capsys.readouterr().err
