"""Reasoning models (issue 30): the judges read the answer, never the thinking — through the real SDKs against
fake servers speaking each wire form a thinking model's reply comes in (tests/fakes/thinking.py: hand-made from
the providers' documented formats)."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import pytest

from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from span_toolkit.client.providers.thinking import split_thinking
from span_toolkit.client.runner import run_eval
from span_toolkit.client.spec import RunSpec
from span_toolkit.span.benchmark.generate import generate_sample
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.providers import first_user_text
from tests.fakes.thinking import FakeThinkingAnthropic, FakeThinkingOpenAI, Text, Thought

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

N = 40


@pytest.fixture(scope="module")
def instances() -> list[dict]:
    return list(generate_sample([date(2025, 7, 1)], N, seed=5, polar_negatives=True))


def wrong_draft(inst: dict) -> str:
    """What the scratchpad drafts: the other word for a polar question, a wrong date for a content one."""
    if inst["question_format"] == "polar":
        return "Final answer: No" if inst["answer"] == "Yes" else "Final answer: Yes"
    return "Final answer: 1999-1-1"


def scratchpad(inst: dict) -> str:
    """A thinking model's scratchpad: drafts in every form a judge or a parser could mistake for the answer."""
    return ("Let me work this out step by step.\n"
            f"First guess. {wrong_draft(inst)}\n"
            "Hmm, let me check with a program:\n```python\nprint('No')\n```\n"
            "or I could call the tool: <tool_call>\n{\"name\": \"date_arithmetic\", \"arguments\": "
            "{\"calendar\": \"gregorian\", \"year\": 1999, \"month\": 1, \"day\": 1, \"days\": 1}}\n</tool_call>\n"
            "Final answer: No\nWait, that is wrong. Yes, 1999-1-1 again... no. Let me settle it.")


def plainly(inst: dict) -> str:
    """The right answer, stated plainly after the thinking (no "Final answer:" line: the scratchpad's drafted
    ones are the only ones in the reply)."""
    if inst["question_format"] == "polar":
        return f"{inst['answer']}."
    return f"The date is {inst['answer']}."


def thinking_policy(by_question: dict[str, dict], reasoning_tokens: int | None = 250):
    def policy(body: dict, index: int):
        inst = by_question[first_user_text(body)]
        return Thought(thinking=scratchpad(inst), text=plainly(inst), reasoning_tokens=reasoning_tokens)
    return policy


def run(spec_kw: dict, provider, instances, tmp: Path, **kw) -> tuple[dict, list[dict]]:
    path = write_jsonl(tmp / "instances.jsonl", instances)
    spec = RunSpec(model=provider.label, out_dir=tmp / "run", instances_file=path, concurrency=4, preflight=False,
                   quiet=True, **spec_kw)
    summary = asyncio.run(_run(spec, provider, **kw))
    return summary, read_results(tmp / "run" / "results.jsonl")


async def _run(spec, provider, **kw):
    try:
        return await run_eval(spec, provider=provider, **kw)
    finally:
        await provider.aclose()


def openai_compatible(fake, **kw) -> OpenAIProvider:
    return OpenAIProvider("qwen3", api_key="k", base_url=fake.base_url, compatible=True, timeout=10, **kw)


def anthropic(fake, **kw) -> AnthropicProvider:
    return AnthropicProvider("claude-think", api_key="k", base_url=fake.base_url, timeout=10, **kw)


# ------------------------------------------------------------------------------------------- the split
@pytest.mark.parametrize("text,answer,thinking,open_ended", [
    ("Final answer: Yes", "Final answer: Yes", None, False),
    ("<think>\nFinal answer: No\n</think>\n\nFinal answer: Yes", "Final answer: Yes", "Final answer: No", False),
    ("draft No\n</think>\nFinal answer: Yes", "Final answer: Yes", "draft No", False),  # template opened the tag
    ("<think>\nstill thinking: Final answer: No", "", "still thinking: Final answer: No", True),
    ("<think></think>\n\nFinal answer: Yes", "Final answer: Yes", "", False),  # thinking switched off (Qwen3)
    ("<|channel|>analysis<|message|>No?<|end|><|start|>assistant<|channel|>final<|message|>Final answer: Yes"
     "<|return|>", "Final answer: Yes", "No?", False),
    ("<|channel|>analysis<|message|>No? maybe", None, "No? maybe", True),
    # a reply that is only an opening tag: no answer, thinking begun and never closed
    ("<think>", "", "", True),
    # thinking tags written inside a code fence are code, not tags: nothing is taken out of the program
    ("<think>x</think>\n```python\nprint('</think>')\n```\nFinal answer: Yes",
     "```python\nprint('</think>')\n```\nFinal answer: Yes", "x", False),
    ("```python\ns = '</think>'\nprint(s)\n```\nFinal answer: Yes",
     "```python\ns = '</think>'\nprint(s)\n```\nFinal answer: Yes", None, False),
    # a tag only mentioned after the answer began is text: a model that does not think keeps its answer
    ("I could use a `<think>` tag. Final answer: Yes", "I could use a `<think>` tag. Final answer: Yes", None, False),
    ("Final answer: Yes\n\nNote: models use <think> tags.", "Final answer: Yes\n\nNote: models use <think> tags.",
     None, False),
    # thinking after thinking, never closed: still thinking
    ("<think>x</think>\n<think>y", "", "x\n\ny", True),
    # a thinking tag nested in the thinking: the thinking ends where the outer one closes
    ("<think>a <think>No</think> still No</think>\nFinal answer: Yes", "Final answer: Yes",
     "a <think>No</think> still No", False),
    # an opening tag only mentioned inside the thinking, closed once: the thinking ends at that close
    ("<think>I will not write <think> again.</think>\nFinal answer: Yes", "Final answer: Yes",
     "I will not write <think> again.", False),
    # an unclosed fence inside the thinking does not hide its closing tag
    ("<think>\n```python\nprint(1)\n</think>\nFinal answer: Yes", "Final answer: Yes", "```python\nprint(1)", False),
])
def test_split_thinking(text, answer, thinking, open_ended):
    s = split_thinking(text)
    assert (s.answer, s.thinking, s.open_ended) == (answer, thinking, open_ended)


# ------------------------------------------------------------------ the judges read only the final answer
@pytest.mark.parametrize("form", ["tags", "tags-no-open", "reasoning_content", "reasoning", "harmony"])
def test_a_model_that_drafts_wrong_answers_while_thinking_scores_what_it_answers(tmp_path, instances, form):
    by_q = {i["question"]: i for i in instances}
    with FakeThinkingOpenAI(thinking_policy(by_q), form=form) as fake:
        summary, lines = run({}, openai_compatible(fake), instances, tmp_path)
    assert summary["n"] == N and summary["accuracy"] >= 0.95, summary
    assert summary["accuracy"] == 1.0
    for line in lines:
        assert "1999" not in line["final_answer"] and "Final answer" not in line["final_answer"]
        (t,) = line["thinking"]
        assert t["chars"] > 100 and "Final answer: No" in t["text"]  # kept for inspection
        assert line["usage"]["reasoning_tokens"] == 250 and line["usage"]["reasoning_tokens_source"] == "provider"
    assert summary["reasoning"]["instances_with_thinking"] == N
    assert summary["reasoning"]["reasoning_tokens"] == 250 * N  # what the provider reported
    assert summary["reasoning"]["visible_output_tokens"] == (300 - 250) * N


def test_anthropic_thinking_blocks_are_never_judged(tmp_path, instances):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        return Thought(thinking=scratchpad(inst), text=plainly(inst), redacted=1,
                       reasoning_tokens=260)

    with FakeThinkingAnthropic(policy) as fake:
        summary, lines = run({"thinking_budget": 2048}, anthropic(fake), instances, tmp_path)
        bodies = [r["body"] for r in fake.requests]
    assert summary["accuracy"] == 1.0 and summary["n"] == N
    assert all(b["thinking"] == {"type": "enabled", "budget_tokens": 2048} for b in bodies)
    assert all(b["max_tokens"] > 2048 and "temperature" not in b for b in bodies)
    line = lines[0]
    assert line["thinking"][0]["redacted"] == 1 and line["thinking"][0]["form"] == "anthropic"
    assert summary["reasoning"]["reasoning_tokens"] == 260 * N and summary["reasoning"]["redacted_blocks"] == N
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["settings"]["thinking_budget"] == 2048 and info["provider"]["thinking_budget"] == 2048
    assert any("max_tokens raised" in n for n in info["reasoning_notes"])


# ------------------------------------------------------------------------- cut off while thinking
@pytest.mark.parametrize("form", ["tags", "reasoning_content", "harmony", "anthropic"])
def test_a_reply_cut_off_while_thinking_is_no_answer_never_incorrect(tmp_path, instances, form):
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if index % 2:
            return Thought(thinking=scratchpad(inst), text=None, finish="length")
        return Thought(thinking="short", text=plainly(inst))

    if form == "anthropic":
        with FakeThinkingAnthropic(policy) as fake:
            summary, lines = run({}, anthropic(fake), instances, tmp_path)
    else:
        with FakeThinkingOpenAI(policy, form=form) as fake:
            summary, lines = run({}, openai_compatible(fake), instances, tmp_path)
    cut = [x for x in lines if x.get("thinking_cut")]
    assert len(cut) == N // 2
    for x in cut:
        assert x["final_answer"] is None and x["stop_reason"] == "max_tokens"
        assert x["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED"  # never INCORRECT from the scratchpad
        assert x["thinking"][0]["chars"] > 100
    assert summary["reasoning"]["thinking_cut"] == N // 2
    assert summary["n_correct"] == N // 2
    assert any("ran out of output tokens while thinking" in w and "--max-tokens" in w for w in summary["warnings"])


def test_a_template_opened_thinking_cut_off_is_no_answer_when_thinking_is_switched_on(tmp_path, instances):
    """The chat template opened <think> in the prompt (R1 distills, QwQ, Qwen3 thinking models) and the reply
    was cut before its </think>: no tag at all in it. With --thinking-budget N > 0 the client knows the model
    thinks, so the cut reply is thinking, never an answer to judge (it drafts wrong answers)."""
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        if index % 2:
            return Thought(thinking=scratchpad(inst), text=None, finish="length")
        return Thought(thinking="short", text=plainly(inst))

    with FakeThinkingOpenAI(policy, form="tags-no-open") as fake:
        summary, lines = run({"thinking_budget": 1}, openai_compatible(fake), instances, tmp_path)
    cut = [x for x in lines if x.get("thinking_cut")]
    assert len(cut) == N // 2 and summary["reasoning"]["thinking_cut"] == N // 2
    assert all(x["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED" and x["final_answer"] is None for x in cut)
    assert all(x["thinking"][0]["unfinished"] and "First guess" in x["thinking"][0]["text"] for x in cut)
    assert summary["n_correct"] == N // 2 and all(x["correct"] for x in lines if not x.get("thinking_cut"))


def test_a_template_opened_cut_served_by_the_response_cache_is_still_cut_while_thinking(tmp_path, instances,
                                                                                       monkeypatch):
    """The same through the CLI, twice with --cache: the second run, all from the cache, counts the same cuts."""
    from span_toolkit.client.cli import main

    some = instances[:6]
    by_q = {i["question"]: i for i in some}
    path = write_jsonl(tmp_path / "i.jsonl", some)
    monkeypatch.setenv("OPENAI_API_KEY", "k")

    def policy(body, index):
        inst = by_q[first_user_text(body)]
        return Thought(thinking=scratchpad(inst), text=None, finish="length")

    with FakeThinkingOpenAI(policy, form="tags-no-open") as fake:
        for out in ("a", "b"):
            assert main(["eval", "--model", "openai-compatible/r1", "--base-url", fake.base_url, "--instances",
                         str(path), "--out", str(tmp_path / out), "--no-preflight", "--quiet", "--thinking-budget",
                         "1", "--cache", "--cache-dir", str(tmp_path / "cache")]) == 0
        assert fake.count == 6  # the second run was served by the cache
    for out in ("a", "b"):
        lines = read_results(tmp_path / out / "results.jsonl")
        assert all(x["thinking_cut"] and x["verdicts"]["rules"]["verdict"] == "NOT_ATTEMPTED" for x in lines), out


def test_a_model_that_does_not_think_keeps_its_lines_and_summary(tmp_path, instances):
    by_q = {i["question"]: i for i in instances}
    with FakeThinkingOpenAI(lambda body, i: Text(f"Final answer: {by_q[first_user_text(body)]['answer']}")) as fake:
        summary, lines = run({}, openai_compatible(fake), instances, tmp_path)
        body = fake.requests[0]["body"]
    assert summary["accuracy"] == 1.0 and "reasoning" not in summary
    assert not any(k in lines[0] for k in ("thinking", "thinking_cut", "prompt_echo"))
    assert set(lines[0]["usage"]) == {"input_tokens", "output_tokens"}
    assert not any(k in body for k in ("reasoning_effort", "chat_template_kwargs", "thinking"))


def test_a_model_that_does_not_think_but_mentions_a_think_tag_keeps_its_answers(tmp_path, instances):
    """A thinking tag mentioned after the answer began, or written in a code fence, is the answer's text: the
    answers stay answers (no thinking recorded), as before thinking was split off."""
    by_q = {i["question"]: i for i in instances}

    def policy(body, index):
        gold = by_q[first_user_text(body)]["answer"]
        if index % 2:
            return Text(f"I could wrap notes in a `<think>` tag, but here it is plainly.\nFinal answer: {gold}")
        return Text(f"```python\nsep = '</think>'\n```\nFinal answer: {gold}")

    with FakeThinkingOpenAI(policy) as fake:
        summary, lines = run({}, openai_compatible(fake), instances, tmp_path)
    assert summary["accuracy"] == 1.0 and "reasoning" not in summary
    assert not any("thinking" in x for x in lines)


@pytest.mark.parametrize("form", ["tags", "reasoning_content", "anthropic"])
def test_drop_thinking_keeps_sizes_and_tokens_but_no_thinking_text(tmp_path, instances, form):
    by_q = {i["question"]: i for i in instances[:8]}
    policy = thinking_policy(by_q)
    if form == "anthropic":
        with FakeThinkingAnthropic(policy) as fake:
            summary, lines = run({"drop_thinking": True}, anthropic(fake), instances[:8], tmp_path)
    else:
        with FakeThinkingOpenAI(policy, form=form) as fake:
            summary, lines = run({"drop_thinking": True}, openai_compatible(fake), instances[:8], tmp_path)
    assert summary["accuracy"] == 1.0
    for line in lines:
        (t,) = line["thinking"]
        assert t["chars"] > 100 and "text" not in t and t["reasoning_tokens"] == 250
        assert "First guess" not in json.dumps(line)  # in neither `thinking` nor `messages`


def test_the_llm_judge_reads_the_answer_and_a_thinking_judge_is_judged_by_its_verdict(tmp_path, instances):
    """The LLM judge is sent the model's answer, never its scratchpad; a judge that thinks is read by its
    verdict after the thinking, and one cut off while thinking gives no verdict (UNSCORED after its re-asks),
    never the one it drafted."""
    from span_toolkit.client.scorer import make_scorer

    some = instances[:6]
    by_q = {i["question"]: i for i in some}
    judged: list[str] = []

    def judge(body, index):
        user = body["messages"][-1]["content"]
        judged.append(user)
        if "[cut]" in user:  # no instance says this: the cut-off judge below
            return Thought(thinking='Draft: {"accuracy": 1}', text=None, finish="length")
        return Thought(thinking='Maybe {"accuracy": 0}? No.', text='{"accuracy": 1}')

    with FakeThinkingOpenAI(thinking_policy(by_q), form="tags") as model, \
            FakeThinkingOpenAI(judge, form="tags") as judge_server:
        path = write_jsonl(tmp_path / "i.jsonl", some)
        spec = RunSpec(model="openai-compatible/qwen3", out_dir=tmp_path / "run", instances_file=path,
                       preflight=False, quiet=True, judge_model="openai-compatible/judge",
                       judge_base_url=judge_server.base_url, judge_api_key="k")
        summary = asyncio.run(_run(spec, openai_compatible(model)))
        assert summary["per_judge"]["llm"]["CORRECT"] == 6
        assert judged and not any("First guess" in u for u in judged)

        async def cut_judge():
            scorer = make_scorer("openai-compatible/judge", base_url=judge_server.base_url, api_key="k", timeout=10)
            try:
                return await scorer.llm.judge("[cut] question", "Yes.", "Yes")
            finally:
                await scorer.aclose()
        verdict = asyncio.run(cut_judge())
    assert verdict.verdict == "UNSCORED"
