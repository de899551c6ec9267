"""`span-client eval` at scale, end to end through the real SDKs against the loopback fakes: --cache,
--epochs, several --model, cost and --budget, --batch (and a killed client that resumes its batch)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from tests.fakes.batches import FakeAnthropicBatch, FakeOpenAIBatch
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeOpenAI, Status, Text, first_user_text

ROOT = Path(__file__).resolve().parent.parent


def oracle_for(items, wrong=lambda inst, index: False):
    by_q = {i["question"]: i for i in items}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if wrong(inst, index):
            return Text("Final answer: 1999-1-1" if inst["question_format"] == "content" else "Final answer: No")
        return Text(f"Final answer: {inst['answer']}")

    return policy


def eval_args(fake, out: Path, inst_file: Path, *extra, model="openai/gpt-test"):
    models = [model] if isinstance(model, str) else model
    return ["eval", *itertools.chain.from_iterable(("--model", m) for m in models), "--base-url", fake.base_url,
            "--api-key", "k", "--instances", str(inst_file), "--out", str(out), "--quiet",
            "--retry-base-delay", "0.01", *extra]


@pytest.fixture
def toy(tmp_path):
    items = toy_instances(9)
    return items, write_jsonl(tmp_path / "instances.jsonl", items)


# ------------------------------------------------------------------------------------------------- cache
def test_a_repeated_run_with_the_cache_sends_nothing_and_gets_the_same_results(tmp_path, toy):
    items, f = toy
    cache = tmp_path / "cache"
    with FakeOpenAI(oracle_for(items, lambda inst, i: inst["id"].endswith("3"))) as fake:
        assert main(eval_args(fake, tmp_path / "run1", f, "--cache-dir", str(cache))) == 0
        assert fake.count == 9
        assert main(eval_args(fake, tmp_path / "run2", f, "--cache-dir", str(cache))) == 0
        assert fake.count == 9, "the repeated run sent requests"
    first = {l["id"]: l for l in read_results(tmp_path / "run1" / "results.jsonl")}
    again = {l["id"]: l for l in read_results(tmp_path / "run2" / "results.jsonl")}
    assert {k: (l["final_answer"], l["correct"]) for k, l in again.items()} == \
           {k: (l["final_answer"], l["correct"]) for k, l in first.items()}
    assert all(l["cache_hits"] == 0 and l["requests"] == 1 for l in first.values())
    assert all(l["cache_hits"] == 1 and l["requests"] == 0 and l["cost_usd"] == 0 for l in again.values())
    summary = json.loads((tmp_path / "run2" / "summary.json").read_text())
    assert summary["cache_hits"] == 9 and summary["requests"] == 0


def test_errors_are_not_cached(tmp_path, toy):
    items, f = toy
    bad = items[1]["question"]
    ok = oracle_for(items)

    def policy(body, index):
        return Status(400) if first_user_text(body) == bad and index < 20 else ok(body, index)

    with FakeOpenAI(policy) as fake:
        assert main(eval_args(fake, tmp_path / "run1", f, "--cache")) == 1  # one instance failed
        n = fake.count
        fake.policy = ok
        assert main(eval_args(fake, tmp_path / "run2", f, "--cache")) == 0
        assert fake.count == n + 1  # only the failed one was asked again
    assert all(l["correct"] for l in read_results(tmp_path / "run2" / "results.jsonl"))


@pytest.fixture(autouse=True)
def _private_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))  # --cache without --cache-dir lands here


# ------------------------------------------------------------------------------------------------ epochs
def test_epochs_ask_every_instance_k_times_and_print_pass_at_k(tmp_path, toy, capsys):
    items, f = toy
    # attempt-dependent answers: a request's index decides (every third request is wrong)
    with FakeOpenAI(oracle_for(items, lambda inst, i: i % 3 == 0)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--epochs", "3", "--temperature", "0.7")) == 0
        assert fake.count == 27
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert sorted((l["id"], l["epoch"]) for l in lines) == sorted((i["id"], e) for i in items for e in (1, 2, 3))
    by_id: dict[str, list[bool]] = {}
    for l in lines:
        by_id.setdefault(l["id"], []).append(l["correct"])
    mean = sum(map(sum, by_id.values())) / 27
    p_at = sum(any(v) for v in by_id.values()) / 9  # n = k = 3: pass@3 is "any right", pass^3 "all right"
    p_hat = sum(all(v) for v in by_id.values()) / 9
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["epochs"]["mean_accuracy"] == pytest.approx(mean)
    assert s["epochs"]["pass_at_k"] == pytest.approx(p_at) and s["epochs"]["pass_hat_k"] == pytest.approx(p_hat)
    out = capsys.readouterr().out
    assert f"mean accuracy {100 * mean:.2f}%" in out and f"pass@3 {100 * p_at:.2f}%" in out
    assert f"pass^3 {100 * p_hat:.2f}%" in out


def test_epochs_resume_per_attempt(tmp_path, toy):
    items, f = toy
    ok = oracle_for(items)
    with FakeOpenAI(lambda body, i: Status(400) if i in (4, 13, 22) else ok(body, i)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--epochs", "3")) == 1
        assert fake.count == 27
        fake.policy = ok
        assert main(eval_args(fake, tmp_path / "run", f, "--epochs", "3")) == 0
        assert fake.count == 30  # the three failed attempts only
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert len(lines) == 27 and all(l["correct"] for l in lines)


# ------------------------------------------------------------------------------------------ several models
@pytest.mark.parametrize("form", ["repeated", "comma"])
def test_two_models_two_run_folders_one_report(tmp_path, toy, form):
    items, f = toy
    models = ["openai/gpt-a", "openai/gpt-b"]
    with FakeOpenAI(oracle_for(items)) as fake:
        m = models if form == "repeated" else ",".join(models)
        assert main(eval_args(fake, tmp_path / "runs", f, model=m)) == 0
        asked = {r["body"]["model"] for r in fake.requests}
    assert asked == {"gpt-a", "gpt-b"} and fake.count == 18
    for m in models:
        lines = read_results(tmp_path / "runs" / m.replace("/", "--") / "results.jsonl")
        assert len(lines) == 9 and {l["model"] for l in lines} == {m}
    report = (tmp_path / "runs" / "report" / "report.md").read_text()
    assert "openai/gpt-a" in report and "openai/gpt-b" in report


def test_a_model_named_twice_is_refused_before_anything_runs(tmp_path, toy, capsys):
    items, f = toy
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "runs", f, model=["openai/gpt-a", "openai/gpt-a"])) == 2
        assert fake.count == 0
    assert "given twice" in capsys.readouterr().err


# -------------------------------------------------------------------------------------------- cost, budget
def test_cost_per_instance_and_the_budget_stop_then_resume(tmp_path, toy, capsys):
    items, f = toy
    # 11 input + 7 output tokens per reply at $1,000 per million each: $0.018 per instance
    price = ["--price-in", "1000", "--price-out", "1000"]
    with FakeOpenAI(oracle_for(items)) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, *price, "--budget", "0.05", "--concurrency", "1"))
        assert rc == 1 and fake.count == 3
        err = capsys.readouterr().err
        assert "budget reached: $0.0540 spent of --budget $0.0500" in err and "larger --budget to resume" in err
        resume = next(line for line in err.splitlines() if line.startswith("resume with"))
        assert resume.startswith("resume with a larger budget, e.g.: span-client eval ")
        # the same budget would stop at once, and so would twice it if requests in flight overshot it: at
        # least what is spent plus the budget ($0.054 + $0.05)
        assert " --budget 0.104 " in resume and "0.05" not in resume
        lines = read_results(tmp_path / "run" / "results.jsonl")
        assert len(lines) == 3 and all(l["cost_usd"] == pytest.approx(0.018) for l in lines)
        assert main(eval_args(fake, tmp_path / "run", f, *price, "--budget", "1")) == 0
        assert fake.count == 9
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["cost"]["usd"] == pytest.approx(9 * 0.018) and s["cost"]["usd_per_instance"] == pytest.approx(0.018)


def test_known_models_are_priced_from_the_table(tmp_path, toy):
    items, f = toy
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, model="openai/gpt-4o")) == 0
    line = read_results(tmp_path / "run" / "results.jsonl")[0]
    assert line["cost_usd"] == pytest.approx((11 * 2.5 + 7 * 10) / 1e6)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["price"]["input_per_mtok"] == 2.5 and run["price"]["source"].startswith("table")


def test_a_budget_needs_a_price(tmp_path, toy, capsys):
    items, f = toy
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--budget", "1")) == 2
        assert fake.count == 0
    assert "give --price-in and --price-out" in capsys.readouterr().err


def _judge_args(judge, model="openai/gpt-4o"):
    return ["--judge-model", model, "--judge-base-url", judge.base_url, "--judge-api-key", "k"]


def _always_right(body, index):
    return Text('```json\n{"accuracy": 1}\n```')


def test_the_llm_judge_is_cached_and_its_cost_counted(tmp_path, toy, capsys):
    """With --judge-model the judge's requests go through the same cache (a repeated run sends nothing to
    either endpoint) and are priced on their own line (judge_cost_usd; the summary's judge_cost)."""
    items, f = toy
    cache = ["--cache-dir", str(tmp_path / "cache")]
    per_request = (11 * 2.5 + 7 * 10) / 1e6  # the fake's token counts at the table's gpt-4o price
    with FakeOpenAI(oracle_for(items)) as fake, FakeOpenAI(_always_right) as judge:
        assert main(eval_args(fake, tmp_path / "run1", f, *cache, *_judge_args(judge))) == 0
        assert (fake.count, judge.count) == (9, 9)
        assert "LLM judge cost: $0.0009; requests sent 9, answered by the cache 0" in capsys.readouterr().out
        assert main(eval_args(fake, tmp_path / "run2", f, *cache, *_judge_args(judge))) == 0
        assert (fake.count, judge.count) == (9, 9), "the repeated run asked the model or the judge again"
    first = read_results(tmp_path / "run1" / "results.jsonl")
    again = {l["id"]: l for l in read_results(tmp_path / "run2" / "results.jsonl")}
    for line in first:
        assert (line["judge_requests"], line["judge_cache_hits"]) == (1, 0)
        assert line["judge_cost_usd"] == pytest.approx(per_request)
        twin = again[line["id"]]
        assert (twin["judge_requests"], twin["judge_cache_hits"], twin["judge_cost_usd"]) == (0, 1, 0)
        assert twin["verdicts"]["llm"]["verdict"] == line["verdicts"]["llm"]["verdict"] == "CORRECT"
    s1 = json.loads((tmp_path / "run1" / "summary.json").read_text())
    assert s1["judge_cost"]["usd"] == pytest.approx(9 * per_request) and s1["judge_cost"]["requests"] == 9
    s2 = json.loads((tmp_path / "run2" / "summary.json").read_text())
    assert s2["judge_cost"] == {"usd": 0, "usd_known_part": 0, "n_unknown": 0, "requests": 0, "cache_hits": 9}
    for run in ("run1", "run2"):
        assert main(["report", str(tmp_path / run), "--out", str(tmp_path / f"report-{run}")]) == 0
    assert "| Judge USD |" in (tmp_path / "report-run1" / "report.md").read_text()
    assert "| $0.0009 (9 / 0) |" in (tmp_path / "report-run1" / "report.md").read_text()
    assert "| $0.00 (0 / 9) |" in (tmp_path / "report-run2" / "report.md").read_text()


def test_the_budget_counts_the_judge(tmp_path, toy, capsys):
    """A cheap model ($1 per million tokens: $0.000018 an instance) judged by gpt-4o ($0.0000975 a verdict):
    the model alone would stay under a $0.00029 budget for all 9 instances; with the judge it stops at 3."""
    items, f = toy
    price = ["--price-in", "1", "--price-out", "1"]
    with FakeOpenAI(oracle_for(items)) as fake, FakeOpenAI(_always_right) as judge:
        rc = main(eval_args(fake, tmp_path / "run", f, *price, *_judge_args(judge), "--budget", "0.00029",
                            "--concurrency", "1"))
        assert rc == 1 and fake.count == 3 and judge.count == 3
        assert "budget reached: $0.0003 spent of --budget $0.0003" in capsys.readouterr().err
        # a judge the price table does not know cannot be bounded: refused before anything is asked
        assert main(eval_args(fake, tmp_path / "run2", f, *price, *_judge_args(judge, "openai/judge-test"),
                              "--budget", "1")) == 2
        assert (fake.count, judge.count) == (3, 3)
    assert "--budget needs the judge's price too: openai/judge-test" in capsys.readouterr().err


def test_rejudging_keeps_the_scale_figures_and_can_use_the_cache(tmp_path, toy, capsys):
    """`span-client judge` rewrote summary.json from the counts alone: cost, requests and pass@k were gone
    after a re-judge. They stay, and --cache-dir serves the LLM judge's replies to a second re-judge."""
    items, f = toy
    run = tmp_path / "run"
    with FakeOpenAI(oracle_for(items, lambda inst, i: i % 3 == 0)) as fake:
        assert main(eval_args(fake, run, f, model="openai/gpt-4o", *["--epochs", "2", "--temperature", "0.5"])) == 0
    before = json.loads((run / "summary.json").read_text())
    assert before["epochs"]["k"] == 2 and before["cost"]["usd"] > 0 and before["requests"] == 18
    assert main(["judge", str(run)]) == 0
    after = json.loads((run / "summary.json").read_text())
    for key in ("epochs", "cost", "requests", "cache_hits", "accuracy"):
        assert after[key] == before[key], key
    cache = ["--cache-dir", str(tmp_path / "cache")]
    # two attempts that answered alike are one judge request (the judge's cache key has no epoch)
    distinct = len({(l["question"], l["final_answer"]) for l in read_results(run / "results.jsonl")})
    with FakeOpenAI(_always_right) as judge:
        assert main(["judge", str(run), *_judge_args(judge), *cache]) == 0
        assert judge.count == distinct < 18
        assert main(["judge", str(run), *_judge_args(judge), *cache]) == 0
        assert judge.count == distinct  # the second re-judge asked nothing
    lines = read_results(run / "results.jsonl")
    # each line adds up its judgings: one request in all (or a hit on its twin's), then one hit
    assert sum(l["judge_requests"] for l in lines) == distinct
    assert all(l["judge_requests"] + l["judge_cache_hits"] == 2 for l in lines)
    final = json.loads((run / "summary.json").read_text())
    assert final["judge_cost"]["requests"] == distinct and final["judge_cost"]["cache_hits"] == 36 - distinct
    assert final["judge_cost"]["usd"] == pytest.approx(distinct * (11 * 2.5 + 7 * 10) / 1e6)
    assert final["epochs"]["k"] == 2
    assert main(["judge", str(run), *cache]) == 2
    assert "--cache holds LLM judge replies: it needs --judge-model" in capsys.readouterr().err


def test_epochs_without_sampling_and_budgets_without_cost_are_said(tmp_path, toy, capsys):
    """--epochs K where every attempt answers alike (greedy OpenAI-style decoding, a scripted agent) warns
    that pass@K will be the accuracy; with a sampling temperature it does not. --budget on a scripted
    agent, which costs nothing, is refused."""
    items, f = toy
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "greedy", f, "--epochs", "2")) == 0
        assert "warning: --epochs 2: openai/gpt-test will give the same answer every time" in capsys.readouterr().err
        assert main(eval_args(fake, tmp_path / "sampled", f, "--epochs", "2", "--temperature", "0.7")) == 0
        assert "same answer every time" not in capsys.readouterr().err
    from span_toolkit.client.commands.eval import _answers_alike
    from span_toolkit.client.spec import RunSpec

    def alike(model, temperature):
        return _answers_alike(RunSpec(model=model, out_dir=tmp_path, temperature=temperature, dates=("2025-07-01",)))

    assert alike("anthropic/claude-haiku-4-5", 0) and not alike("anthropic/claude-haiku-4-5", None)
    assert alike("openai-compatible/q", None) and not alike("openai/gpt-4o", 0.7) and alike("reference", 0.7)
    assert main(["eval", "--model", "baseline", "--instances", str(f), "--budget", "1", "--out",
                 str(tmp_path / "b"), "--quiet"]) == 2
    assert "baseline is an offline scripted agent, which costs nothing (nor is there an LLM judge to pay): drop " \
           "--budget" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    with FakeOpenAI(_always_right) as judge:  # with a paid LLM judge there is something to bound
        assert main(["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "4", "--budget", "1",
                     "--out", str(tmp_path / "bj"), "--quiet", *_judge_args(judge)]) == 0
        assert judge.count == 4


def test_an_unreadable_verdict_is_not_cached_so_a_re_judge_can_mend_it(tmp_path):
    """A judge that answers nonsense three times leaves the line UNSCORED; re-judging with --cache asks it
    again (nothing unreadable was stored) and gets the verdict."""
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "one.jsonl", items)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    run = tmp_path / "run"
    with FakeOpenAI(oracle_for(items)) as fake, \
            FakeOpenAI(lambda b, i: Text("Hmm.") if i < 3 else Text('{"accuracy": 1}')) as judge:
        assert main(eval_args(fake, run, f, *cache, *_judge_args(judge))) == 0
        assert read_results(run / "results.jsonl")[0]["verdicts"]["llm"]["verdict"] == "UNSCORED"
        assert judge.count == 3
        assert main(["judge", str(run), *_judge_args(judge), *cache]) == 0
        assert judge.count == 4
    assert read_results(run / "results.jsonl")[0]["verdicts"]["llm"]["verdict"] == "CORRECT"


# -------------------------------------------------------------------------------------------------- batch
def _creates(fake):
    return sum(1 for m, p in fake.batch_calls if m == "POST" and p in ("/v1/batches", "/v1/messages/batches"))


@pytest.mark.parametrize("cls,model", [(FakeOpenAIBatch, "openai/gpt-test"),
                                       (FakeAnthropicBatch, "anthropic/claude-test")])
def test_batch_answers_every_unaided_instance_with_no_live_request(tmp_path, toy, cls, model):
    items, f = toy
    with cls(oracle_for(items), polls=2) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--batch", "--batch-poll", "0.01", model=model)) == 0
        assert fake.count == 0 and _creates(fake) == 1
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert len(lines) == 9 and all(l["correct"] and l["batch_requests"] == 1 and l["requests"] == 0 for l in lines)
    assert (tmp_path / "run" / "batches.json").is_file()


@pytest.mark.parametrize("extra,needle", [
    (["--with-tools"], "--batch answers the unaided arm only"),
    (["--time-agent"], "--batch answers the unaided arm only"),
])
def test_batch_refuses_multi_turn_arms_in_one_line(tmp_path, toy, capsys, extra, needle):
    items, f = toy
    with FakeOpenAIBatch(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--batch", *extra)) == 2
        assert fake.count == 0 and not fake.batch_calls
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert needle in err


def test_batch_with_a_scripted_agent_is_refused(tmp_path, toy, capsys):
    items, f = toy
    assert main(["eval", "--model", "baseline", "--instances", str(f), "--out", str(tmp_path / "r"), "--batch"]) == 2
    assert "scripted" in capsys.readouterr().err


def _batch_client_waiting(fake, run, inst_file) -> tuple[subprocess.Popen, list[str]]:
    """`span-client eval --batch` as its own process, once it has recorded its submitted batch (and its
    arguments, to run it again)."""
    args = eval_args(fake, run, inst_file, "--batch", "--batch-poll", "0.05")
    proc = subprocess.Popen([sys.executable, "-m", "span_toolkit.client.cli", *args], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    batches = run / "batches.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if batches.exists() and json.loads(batches.read_text())["batches"][0].get("id"):
            return proc, args
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the batch was never recorded: " + proc.communicate()[1][-2000:])


def test_a_killed_batch_client_resumes_polling_the_same_batch(tmp_path, toy):
    items, f = toy
    with FakeOpenAIBatch(oracle_for(items), polls=10**6) as fake:  # stays in progress until we say
        proc, args = _batch_client_waiting(fake, tmp_path / "run", f)
        time.sleep(0.2)  # a few status checks
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        fake.polls = 0  # the batch ends at the next status check
        assert main(args) == 0
        assert _creates(fake) == 1, "the resumed client submitted the batch again"
        assert fake.count == 0
    assert len(read_results(tmp_path / "run" / "results.jsonl")) == 9


# ------------------------------------------------------------------------------------------ scripted agents
def test_scripted_agents_keep_working_with_the_new_options(tmp_path, toy):
    items, f = toy
    assert main(["eval", "--model", "baseline", "--instances", str(f), "--out", str(tmp_path / "b"), "--quiet",
                 "--cache", "--epochs", "2"]) in (0, 1)
    lines = read_results(tmp_path / "b" / "results.jsonl")
    assert len(lines) == 18 and all("cost_usd" not in l for l in lines)


def test_a_cache_folder_that_cannot_be_used_is_a_one_line_error(tmp_path, toy, capsys):
    items, f = toy
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with FakeOpenAI(oracle_for(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--cache-dir", str(blocker))) == 2
        assert fake.count == 0
    err = capsys.readouterr().err.strip().splitlines()[-1]  # (after the warning about --api-key)
    assert err.startswith("span-client: error: cache folder") and "not a folder" in err
    assert not (tmp_path / "run").exists()


def test_batch_with_epochs_and_per_line_errors_then_resume(tmp_path, toy):
    items, f = toy
    bad = items[2]["question"]
    ok = oracle_for(items)
    with FakeAnthropicBatch(lambda body, i: Status(400) if first_user_text(body) == bad else ok(body, i)) as fake:
        args = eval_args(fake, tmp_path / "run", f, "--batch", "--batch-poll", "0.01", "--epochs", "2",
                         "--temperature", "0.5", model="anthropic/claude-test")
        assert main(args) == 1  # two attempts failed: recorded as errors, not wrong answers
        lines = read_results(tmp_path / "run" / "results.jsonl")
        errors = [l for l in lines if l["stop_reason"] == "error"]
        assert len(lines) == 18 and len(errors) == 2 and all(l["correct"] is None for l in errors)
        assert all("400" in l["error"] for l in errors)
        fake.policy = ok
        assert main(args) == 0
        assert _creates(fake) == 2 and fake.count == 0  # the second batch held the two failed attempts only
        sizes = [len(r["keys"]) for r in json.loads((tmp_path / "run" / "batches.json").read_text())["batches"]]
        assert sizes == [18, 2]
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert len(lines) == 18 and all(l["correct"] for l in lines)


def test_ctrl_c_while_waiting_for_a_batch_keeps_it_for_the_next_run(tmp_path, toy):
    items, f = toy
    with FakeOpenAIBatch(oracle_for(items), polls=10**6) as fake:
        proc, args = _batch_client_waiting(fake, tmp_path / "run", f)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted while waiting for the batch" in err and "resume with: span-client eval" in err
        assert "Traceback" not in err
        fake.polls = 0
        assert main(args) == 0 and _creates(fake) == 1


def test_the_resume_line_replaces_the_budget_however_it_was_written():
    from span_toolkit.client.commands.eval import _with_value

    assert _with_value(["eval", "--budg", "0.05", "--batch-poll", "3"], "--budget", "0.1") == \
        ["eval", "--budget", "0.1", "--batch-poll", "3"]
    assert _with_value(["eval", "--budget=0.05", "--quiet"], "--budget", "0.1") == ["eval", "--budget=0.1", "--quiet"]
    assert _with_value(["eval", "--base-url", "u"], "--budget", "0.1") == ["eval", "--base-url", "u"]
