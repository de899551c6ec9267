"""The report of reasoning models and of Time Agents that never answer (issue 30): reasoning tokens apart from
the visible ones, answers cut off while thinking counted apart with the advice, the Time Agent's stops at the
limit and repeated programs, and every warning the eval summary gave (e.g. a model that never called a tool)."""

from __future__ import annotations

import asyncio

import pytest

from span_toolkit.client.providers.openai_provider import OpenAIProvider
from span_toolkit.client.report.command import write_report
from span_toolkit.client.runner import run_eval
from span_toolkit.client.spec import RunSpec
from tests.fakes.helpers import write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeOpenAI, Text, first_user_text
from tests.fakes.thinking import FakeThinkingOpenAI, Thought

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

N = 12


def _run(fake, tmp, name, capsys=None, **kw) -> dict:
    path = write_jsonl(tmp / "toy.jsonl", toy_instances(N))
    provider = OpenAIProvider("m", api_key="k", base_url=fake.base_url, compatible=True, timeout=10)
    spec = RunSpec(model=provider.label, out_dir=tmp / name, instances_file=path, preflight=False, concurrency=2,
                   **kw)

    async def go():
        try:
            return await run_eval(spec, provider=provider, mcp_target=_mcp() if kw.get("mode") == "with_tools"
                                  else None)
        finally:
            await provider.aclose()
    return asyncio.run(go())


def _mcp():
    from span_toolkit.server.app import build_server

    return build_server()


def test_the_report_shows_reasoning_tokens_cut_offs_agent_stops_and_every_summary_warning(tmp_path, capsys):
    answers = {i["question"]: i["answer"] for i in toy_instances(N)}

    def thinker(body, index):
        if "[toy 1]" in first_user_text(body) or "[toy 2]" in first_user_text(body):
            return Thought(thinking="Final answer: No. Hmm, let me think longer", text=None, finish="length")
        return Thought(thinking="Final answer: No?", text=f"{answers[first_user_text(body)]}.", reasoning_tokens=120)

    with FakeThinkingOpenAI(thinker, form="tags") as fake:
        summary = _run(fake, tmp_path, "thinker")
    console = capsys.readouterr().err
    assert "reasoning: 12 instances thought" in console and "2 ran out of tokens while thinking" in console
    assert summary["reasoning"]["thinking_cut"] == 2
    with FakeOpenAI(lambda body, i: Text("```python\nprint('No')\n```")) as fake:
        _run(fake, tmp_path, "agent", mode="time_agent", sandbox="unsafe-process")
    with FakeOpenAI(lambda body, i: Text(f"Final answer: {answers[first_user_text(body)]}")) as fake:
        tools = _run(fake, tmp_path, "notools", mode="with_tools")
    assert any("called a tool in only 0" in w for w in tools["warnings"])

    rc = write_report([tmp_path / "thinker", tmp_path / "agent", tmp_path / "notools"], tmp_path / "report",
                      with_figures=False, with_tiktoken=False, quiet=True)
    md = (tmp_path / "report" / "report.md").read_text()
    assert rc == 0
    assert "Reasoning tokens: mean / median (n)" in md and "Visible output tokens" in md
    assert "2 of 12" in md and "Raise `--max-tokens`" in md
    assert "called a tool in only 0" in md  # the eval summary's warning, kept
    assert "stopped at the code-run limit" in md and "ran out of output tokens while thinking" in md
    assert "Stopped at the limit" in md
    row = next(line for line in md.splitlines() if line.startswith("| openai-compatible/m") and "Reminded" not in line
               and line.count("|") == 7)
    assert row.split("|")[4].strip() == str(N)  # every agent instance stopped at the limit
