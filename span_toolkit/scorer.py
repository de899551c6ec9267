"""The project's judges as an inspect scorer: the rules judge (the paper's instances, and the ordering and
duration family through ``span.benchmark.extended``'s judge) by way of ``client.scorer.Scorer``; with
``judge_model``, the paper's LLM judge as primary, as in ``span-client eval --judge-model``.

A verdict becomes ``C`` / ``I`` / ``N`` (inspect's CORRECT / INCORRECT / NOANSWER); an UNSCORED verdict
becomes an unscored score, which inspect's metrics leave out, as SPAN's accuracy does. Accuracy is also
reported apart for content and polar questions and per reasoning type: a constant "Yes" scores 100% on
the paper's polar questions, so the overall figure alone can mislead."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Target, accuracy, grouped, scorer, stderr
from inspect_ai.solver import TaskState

from span_toolkit.client.inspect_export import SCORER, score_of
from span_toolkit.client.providers.thinking import split_thinking

from ._client import ResultLine, Scorer


def _asker(judge_model: str):
    model = get_model(judge_model, config=GenerateConfig(temperature=0.0, seed=0))

    async def ask(system: str, user: str) -> str:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser

        out = await model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=user)])
        return answer_of(out)[0] or ""  # a thinking judge: its verdict, not its scratchpad

    return ask


def answer_of(output: Any) -> tuple[str | None, bool]:
    """(the answer a judge reads, whether the reply ran out of tokens while thinking) of an inspect ModelOutput:
    its text without reasoning content (inspect keeps that apart) and without thinking tags or harmony channels
    a server left in it; None when it was cut off while thinking (no answer, never a wrong one)."""
    if output is None:
        return "", False
    completion = output.completion or ""
    split = split_thinking(completion)
    text = (split.answer or "") if split.thinking is not None else completion
    message = output.message if getattr(output, "choices", None) else None
    content = getattr(message, "content", None)
    thought = split.thinking is not None or (isinstance(content, list) and any(
        getattr(c, "type", None) == "reasoning" for c in content))
    if output.stop_reason == "max_tokens" and thought and not text.strip():
        return None, True
    return text, False


@scorer(name=SCORER, metrics=[accuracy(), stderr(), grouped(accuracy(), "question_format", all=False),
                              grouped(accuracy(), "reasoning_type", all=False)])
def span_judge(judge_model: str | None = None):
    """Rules judge (and the LLM judge when ``judge_model`` names an inspect model)."""
    judge = Scorer(_asker(judge_model), judge_model=judge_model) if judge_model else Scorer()

    async def score(state: TaskState, target: Target) -> Score:
        instance = dict(state.metadata["instance"])
        answer, cut = answer_of(state.output)
        record = ResultLine.model_validate({**instance, "final_answer": answer,
                                            "stop_reason": "max_tokens" if cut else "answered",
                                            "mode": state.metadata.get("mode", "inspect"), "model": str(state.model),
                                            **({"thinking_cut": True} if cut else {})})
        await judge.judge(record)
        return score_of(record.to_dict())

    return score
