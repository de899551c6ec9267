"""Run-folder safety against fake providers: resumes with other settings are refused, failing judges are
counted and re-judged, fatal provider errors stop the run, --temperature none, --max-retry-wait, and the
summary's judge agreement."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from span_toolkit.client.cli import main
from span_toolkit.client.retry import RetryPolicy
from span_toolkit.client.rundir import RunFolder, summarize as _summarize


def summarize(path, **kw):
    return _summarize(RunFolder(path).records(), **kw)
from span_toolkit.client.providers.base import ProviderError
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeOpenAI, Status, Text, first_user_text


def oracle(instances):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        return Text(f"Final answer: {by_q[first_user_text(body)]['answer']}")

    return policy


def judge_ok(body, index):
    return Text('{"accuracy": 1}')


def eval_args(fake, out: Path, inst_file: Path, *extra, model="openai/gpt-test"):
    return ["eval", "--model", model, "--base-url", fake.base_url, "--api-key", "k", "--instances", str(inst_file),
            "--out", str(out), "--quiet", "--retry-base-delay", "0.01", *extra]


def judge_args(judge) -> list[str]:
    return ["--judge-model", "openai/judge-test", "--judge-base-url", judge.base_url, "--judge-api-key", "k"]


@pytest.fixture
def toy(tmp_path):
    items = toy_instances(9)
    return items, write_jsonl(tmp_path / "instances.jsonl", items)


def one_line_error(capsys) -> str:
    """The one error line (the warning that --api-key is on the command line may precede it)."""
    lines = capsys.readouterr().err.strip().splitlines()
    err = "\n".join(l for l in lines if not l.startswith("span-client: warning: --"))
    assert len(err.splitlines()) == 1 and err.startswith("span-client: error:"), err
    return err


# ------------------------------------------------------------------------------------ 1. other settings
def test_resume_with_other_dates_is_refused_unless_forced(tmp_path, capsys):
    out = tmp_path / "r1"
    base = ["eval", "--model", "baseline", "--sample", "12", "--out", str(out), "--quiet"]
    assert main([*base, "--date", "2025-07-01"]) == 0
    capsys.readouterr()
    assert main([*base, "--date", "2030-07-01"]) == 2
    err = one_line_error(capsys)
    assert "instances.dates" in err and "2025-07-01" in err and "2030-07-01" in err and "--force-resume" in err
    assert len(read_results(out / "results.jsonl")) == 12  # nothing was mixed in
    # --force-resume: allowed, recorded, and the summary counts only the current instance set
    assert main([*base, "--date", "2030-07-01", "--force-resume"]) == 0
    assert len(read_results(out / "results.jsonl")) == 24
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == 12
    assert "12 instances" in capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["instances"]["dates"] == ["2030-07-01"]
    assert "instances.dates" in run["forced_resumes"][0]["differences"][0]
    # a different sample size or seed is another run as well
    assert main([*base[:4], "7", *base[5:], "--date", "2030-07-01"]) == 2
    assert "instances.sample" in one_line_error(capsys)


def test_resume_with_other_temperature_judge_or_file_is_refused(tmp_path, toy, capsys):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle(items)) as fake, FakeOpenAI(judge_ok) as judge:
        assert main(eval_args(fake, out, f)) == 0
        capsys.readouterr()
        fake.requests.clear()
        assert main(eval_args(fake, out, f, "--temperature", "0.7")) == 2
        assert "temperature 0.0 -> 0.7" in one_line_error(capsys)
        assert main(eval_args(fake, out, f, *judge_args(judge))) == 2
        assert "judge_model null -> \"openai/judge-test\"" in one_line_error(capsys)
        assert main(eval_args(fake, out, f, "--max-tokens", "100")) == 2
        assert "max_tokens 2048 -> 100" in one_line_error(capsys)
        changed = write_jsonl(tmp_path / "instances.jsonl", [dict(items[0], answer="2025-8-2")] + items[1:])
        assert main(eval_args(fake, out, changed)) == 2
        assert "instances.sha256" in one_line_error(capsys)
        assert fake.requests == [] and judge.requests == []  # a refused resume asks nothing
        # the same settings again (another path to the same content) resume fine
        write_jsonl(tmp_path / "copy.jsonl", items)
        assert main(eval_args(fake, out, tmp_path / "copy.jsonl")) == 0
    assert len(read_results(out / "results.jsonl")) == 9


def test_demo_refuses_a_folder_of_another_date_or_sample(tmp_path, capsys, monkeypatch):
    from span_toolkit.client.dataset import load

    calls = []

    async def fake_run_eval(spec):
        calls.append(load(spec).source)
        return {"model": spec.model, "mode": "x", "n": 0, "n_scored": 0, "n_correct": 0, "accuracy": None,
                "n_errors": 0}

    monkeypatch.setattr("span_toolkit.client.commands.eval.run_eval", fake_run_eval)
    monkeypatch.setattr("span_toolkit.client.commands.demo.write_report", lambda *a, **k: 0)
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--sample", "6", "--quiet"]) == 0
    assert calls[0] == {"kind": "dates", "dates": ["2025-07-01"], "sample": 6, "seed": 0}
    capsys.readouterr()
    assert main(["demo", "--out", str(out), "--sample", "6", "--date", "2030-07-01", "--quiet"]) == 2
    err = one_line_error(capsys)
    assert "2025-07-01 (sample 6, seed 0)" in err and "2030-07-01" in err and "another --out" in err
    assert main(["demo", "--out", str(out), "--sample", "5", "--quiet"]) == 2
    assert not (out / "instances-2030-07-01.jsonl").exists()
    assert main(["demo", "--out", str(out), "--sample", "6", "--quiet"]) == 0  # the same demo resumes


# ------------------------------------------------------------------------------------ 2. failing judge
def test_failing_judge_is_unscored_exit_1_and_rejudged_on_resume(tmp_path, toy, capsys):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle(items)) as fake, FakeOpenAI(lambda b, i: Status(500)) as judge:
        rc = main(eval_args(fake, out, f, "--max-retries", "0", *judge_args(judge)))
        judge_port = judge.port
    assert rc == 1
    captured = capsys.readouterr()
    assert "0/0 scored, 9 unscored" in captured.out and "re-judge" in captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored"] == 0 and summary["n_unscored"] == 9 and summary["n_judge_errors"] == 9
    assert summary["n_errors"] == 0
    for l in read_results(out / "results.jsonl"):
        assert l["stop_reason"] == "answered" and l["correct"] is None
        assert l["verdicts"]["llm"]["verdict"] == "UNSCORED" and "500" in l["verdicts"]["llm"]["error"]
    # resume with the judge back: re-judged without asking the model again
    with FakeOpenAI(oracle(items), port=fake.port) as fake2, FakeOpenAI(judge_ok, port=judge_port) as judge2:
        rc = main(eval_args(fake2, out, f, "--max-retries", "0", *judge_args(judge2)))
    assert rc == 0
    assert fake2.requests == [] and len(judge2.requests) == 9
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored"] == 9 and summary["n_unscored"] == 0 and summary["n_judge_errors"] == 0
    lines = read_results(out / "results.jsonl")
    assert len(lines) == 9 and all(l["correct"] is True for l in lines)


def test_unreadable_verdict_is_unscored_but_not_a_judge_failure(tmp_path, toy):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle(items)) as fake, FakeOpenAI(lambda b, i: Text("no idea")) as judge:
        assert main(eval_args(fake, out, f, *judge_args(judge))) == 0  # the judge answered: nothing to retry
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_unscored"] == 9 and summary["n_judge_errors"] == 0


def test_judge_401_stops_the_run(tmp_path, toy, capsys):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle(items)) as fake, FakeOpenAI(lambda b, i: Status(401)) as judge:
        rc = main(eval_args(fake, out, f, "--concurrency", "1", *judge_args(judge)))
        ports = fake.port, judge.port
    assert rc == 1
    err = capsys.readouterr().err
    assert "stopped: the LLM judge openai/judge-test refused the request" in err and "401" in err
    assert "8 instances not asked" in err
    assert len(fake.requests) == 1 and len(judge.requests) == 1
    assert len(read_results(out / "results.jsonl")) == 1
    # resume: the one answer is re-judged (not re-asked) and the 8 others are asked
    with FakeOpenAI(oracle(items), port=ports[0]) as fake2, FakeOpenAI(judge_ok, port=ports[1]) as judge2:
        assert main(eval_args(fake2, out, f, "--concurrency", "1", *judge_args(judge2))) == 0
    assert len(fake2.requests) == 8 and len(judge2.requests) == 9
    assert all(l["correct"] is True for l in read_results(out / "results.jsonl"))


def test_judge_subcommand_with_a_401_judge_leaves_the_run_unchanged(tmp_path, toy, capsys):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(oracle(items)) as fake:
        assert main(eval_args(fake, out, f)) == 0
    before = (out / "results.jsonl").read_bytes()
    with FakeOpenAI(lambda b, i: Status(403)) as judge:
        assert main(["judge", str(out), "--concurrency", "1", *judge_args(judge)]) == 1
    assert "403" in capsys.readouterr().err and len(judge.requests) == 1
    assert (out / "results.jsonl").read_bytes() == before


# ------------------------------------------------------------------------------------ 3. fatal provider errors
@pytest.mark.parametrize("code", [401, 404])
def test_model_401_or_404_stops_the_run_and_resume_continues(tmp_path, toy, capsys, code):
    items, f = toy
    out = tmp_path / "run"
    with FakeOpenAI(lambda b, i: Status(code)) as fake:
        rc = main(eval_args(fake, out, f, "--concurrency", "2"))
    assert rc == 1
    err = capsys.readouterr().err
    assert f"stopped: openai/gpt-test: OpenAI API error {code}" in err and "re-run the same command" in err
    assert 1 <= len(fake.requests) <= 2  # the in-flight ones only, not every instance
    lines = read_results(out / "results.jsonl")
    assert len(lines) == len(fake.requests)
    assert all(l["stop_reason"] == "error" and l["correct"] is None and l["final_answer"] is None for l in lines)
    assert json.loads((out / "run.json").read_text())["stopped"]
    with FakeOpenAI(oracle(items), port=fake.port) as fake2:
        assert main(eval_args(fake2, out, f, "--concurrency", "2")) == 0
    assert len(fake2.requests) == 9
    assert all(l["correct"] is True for l in read_results(out / "results.jsonl"))


def test_identical_400s_stop_after_five(tmp_path, toy, capsys):
    items, f = toy
    body = {"error": {"message": "Unsupported parameter: 'temperature' is not supported with this model.",
                      "type": "invalid_request_error", "param": "temperature", "code": "unsupported_parameter"}}
    with FakeOpenAI(lambda b, i: Status(400, body)) as fake:
        rc = main(eval_args(fake, tmp_path / "run", f, "--concurrency", "1"))
    assert rc == 1
    assert len(fake.requests) == 5
    err = capsys.readouterr().err
    assert "5 consecutive identical errors" in err and "Unsupported parameter" in err
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert len(lines) == 5 and all(l["stop_reason"] == "error" for l in lines)


def test_different_400s_do_not_stop_the_run(tmp_path, toy):
    items, f = toy
    with FakeOpenAI(lambda b, i: Status(400, {"error": {"message": f"bad request: {['alpha', 'beta', 'gamma'][i % 3]} field invalid"}})) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--concurrency", "1")) == 1
    assert len(fake.requests) == 9


# ------------------------------------------------------------------------------------ 4. --temperature none
def test_temperature_none_sends_no_temperature(tmp_path, toy, capsys):
    items, f = toy
    with FakeOpenAI(oracle(items)) as fake:
        assert main(eval_args(fake, tmp_path / "run", f, "--temperature", "none")) == 0
    assert all("temperature" not in r["body"] for r in fake.requests)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["settings"]["temperature"] is None
    with pytest.raises(SystemExit):
        main(eval_args(fake, tmp_path / "run2", f, "--temperature", "hot"))
    assert "a number >= 0 or 'none'" in capsys.readouterr().err


def test_help_documents_the_new_flags(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for needle in ("--force-resume", "--max-retry-wait", "T|none", "reasoning models", "--max-tokens"):
        assert needle in text, needle


# ------------------------------------------------------------------------------------ 6. --max-retry-wait
def test_max_retry_wait_caps_retry_after(tmp_path):
    items = toy_instances(1)
    f = write_jsonl(tmp_path / "i.jsonl", items)
    answer = oracle(items)

    def policy(body, index):
        return Status(429, None, {"retry-after": "30"}) if index == 0 else answer(body, index)

    with FakeOpenAI(policy) as fake:
        t0 = time.monotonic()
        assert main(eval_args(fake, tmp_path / "run", f, "--max-retry-wait", "0.2")) == 0
        assert time.monotonic() - t0 < 10
    gap = fake.requests[1]["t"] - fake.requests[0]["t"]
    assert 0.18 <= gap < 5


async def test_retry_policy_honours_a_long_retry_after_under_a_higher_cap():
    waits = []

    async def fake_sleep(s):
        waits.append(s)

    calls = iter([ProviderError("429", retryable=True, retry_after=100.0), "ok"])

    async def factory():
        v = next(calls)
        if isinstance(v, Exception):
            raise v
        return v

    assert await RetryPolicy(max_delay=120.0, sleep=fake_sleep).call(factory) == ("ok", 1)
    assert waits == [100.0]


# ------------------------------------------------------------------------------------ 7. agreement
def test_summary_agreement_is_the_judges_own(tmp_path):
    def line(i, rules, llm):
        return {"id": f"x{i}", "stop_reason": "answered", "primary_judge": "llm",
                "correct": {"CORRECT": True, "INCORRECT": False}.get(llm),
                "verdicts": {"rules": {"verdict": rules}, "llm": {"verdict": llm}}}

    write_jsonl(tmp_path / "results.jsonl", [line(0, "CORRECT", "CORRECT"), line(1, "CORRECT", "CORRECT"),
                                             line(2, "UNSCORED", "CORRECT"), line(3, "CORRECT", "UNSCORED")])
    agreement = summarize(tmp_path)["agreement"]
    # UNSCORED on either side is left out; all-agree on one label: kappa undefined -> null
    assert agreement == {"n": 2, "raw_agreement": 1.0, "cohen_kappa": None}
    write_jsonl(tmp_path / "results.jsonl", [line(0, "CORRECT", "CORRECT"), line(1, "NOT_ATTEMPTED", "INCORRECT"),
                                             line(2, "INCORRECT", "CORRECT")])
    from span_toolkit.client.judges.agreement import judge_agreement

    s = summarize(tmp_path)
    assert s["agreement"] == judge_agreement(["CORRECT", "NOT_ATTEMPTED", "INCORRECT"],
                                             ["CORRECT", "INCORRECT", "CORRECT"])
    assert s["n_unscored"] == 0
    assert summarize(tmp_path, ids={"x0"})["n"] == 1


def test_eval_out_is_never_a_folder_of_other_files(tmp_path, capsys):
    """--out onto a folder that holds other files (think `--out .` or `--out /tmp`) is refused before anything
    is written and its mode is left alone; an empty shared folder (sticky, 1777) is used without locking
    others out; an empty folder of one's own is made 0700; a run folder resumes."""
    import os
    import stat

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "notes.txt").write_text("someone else's\n")
    args = ["eval", "--model", "baseline", "--date", "2025-07-01", "--sample", "3", "--quiet"]
    assert main([*args, "--out", str(shared)]) == 2
    assert "holds other files (notes.txt) and is no run folder" in capsys.readouterr().err
    assert sorted(p.name for p in shared.iterdir()) == ["notes.txt"]
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    (shared / "notes.txt").unlink()
    assert main([*args, "--out", str(shared)]) == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777  # shared: not locked, its files are 0600
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in shared.iterdir() if p.is_file())
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    assert main([*args, "--out", str(mine)]) == 0
    assert stat.S_IMODE(mine.stat().st_mode) == 0o700
    assert main([*args, "--out", str(mine)]) == 0  # the same run again: resumes
    home = tmp_path / "home"  # only dotfiles, as a home folder: not empty for this purpose
    (home / ".ssh").mkdir(parents=True)
    (home / ".bashrc").write_text("x")
    os.chmod(home, 0o755)
    assert main([*args, "--out", str(home)]) == 2
    assert "holds other files (.bashrc, .ssh)" in capsys.readouterr().err
    assert stat.S_IMODE(home.stat().st_mode) == 0o755 and sorted(p.name for p in home.iterdir()) == [".bashrc", ".ssh"]
