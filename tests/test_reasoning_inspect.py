"""Thinking in inspect (issue 30): `export --format inspect` and the inspect task carry a model's thinking as
inspect_ai does — reasoning content beside the answer text, never as the answer; read back with inspect_ai."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ContentReasoning, ContentText  # noqa: E402
from inspect_ai.model import ModelOutput  # noqa: E402

from span_toolkit.client.inspect_export import export_inspect  # noqa: E402
from span_toolkit.client.providers.anthropic_provider import AnthropicProvider  # noqa: E402
from span_toolkit.client.providers.openai_provider import OpenAIProvider  # noqa: E402
from span_toolkit.client.runner import run_eval  # noqa: E402
from span_toolkit.client.spec import RunSpec  # noqa: E402
from span_toolkit.scorer import answer_of  # noqa: E402
from tests.fakes.helpers import write_jsonl  # noqa: E402
from tests.fakes.instances import toy_instances  # noqa: E402
from tests.fakes.providers import first_user_text  # noqa: E402
from tests.fakes.thinking import FakeThinkingAnthropic, FakeThinkingOpenAI, Thought  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
N = 6
ANSWERS = {i["question"]: i["answer"] for i in toy_instances(N)}


def policy(body, index):
    return Thought(thinking="Draft: Final answer: 1999-1-1", text=f"It is {ANSWERS[first_user_text(body)]}.",
                   reasoning_tokens=33)


def _run(provider, tmp):
    spec = RunSpec(model=provider.label, out_dir=tmp / "run", instances_file=write_jsonl(tmp / "t.jsonl",
                   toy_instances(N)), preflight=False, quiet=True)

    async def go():
        try:
            return await run_eval(spec, provider=provider)
        finally:
            await provider.aclose()
    return asyncio.run(go())


@pytest.mark.parametrize("kind", ["tags", "reasoning_content", "anthropic"])
def test_export_carries_the_thinking_as_reasoning_content(tmp_path, kind):
    if kind == "anthropic":
        with FakeThinkingAnthropic(policy) as fake:
            _run(AnthropicProvider("c", api_key="k", base_url=fake.base_url, timeout=10), tmp_path)
    else:
        with FakeThinkingOpenAI(policy, form=kind) as fake:
            _run(OpenAIProvider("q", api_key="k", base_url=fake.base_url, compatible=True, timeout=10), tmp_path)
    path, _ = export_inspect(tmp_path / "run", tmp_path / "run.eval")
    log = read_eval_log(str(path))
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    for sample in log.samples:
        (reply,) = [m for m in sample.messages if isinstance(m, ChatMessageAssistant)]
        reasoning = [c for c in reply.content if isinstance(c, ContentReasoning)]
        assert [r.reasoning for r in reasoning] == ["Draft: Final answer: 1999-1-1"]
        assert "1999" not in reply.text and reply.text.startswith("It is")
        assert "1999" not in sample.output.completion
        assert sample.model_usage[next(iter(sample.model_usage))].reasoning_tokens == 33
        if kind == "anthropic":
            assert reasoning[0].signature


def _output(content, stop="stop") -> ModelOutput:
    return ModelOutput(model="m", choices=[ChatCompletionChoice(
        message=ChatMessageAssistant(content=content, model="m"), stop_reason=stop)])


def test_the_inspect_scorer_reads_the_answer_not_the_thinking():
    assert answer_of(_output([ContentReasoning(reasoning="Final answer: No"), ContentText(text="Yes")])) == ("Yes", False)
    assert answer_of(_output("<think>Final answer: No</think>\nYes")) == ("Yes", False)
    assert answer_of(_output([ContentReasoning(reasoning="Final answer: No, wait")], "max_tokens")) == (None, True)
    assert answer_of(_output("<think>Final answer: No, wait", "max_tokens")) == (None, True)
    assert answer_of(_output("Final answer: No", "max_tokens")) == ("Final answer: No", False)
