"""The project's judges as an inspect scorer: the rules judge (the paper's instances, and the ordering and
duration family through ``span.benchmark.extended``'s judge) by way of ``client.scorer.Scorer``; with
``judge_model``, the paper's LLM judge as primary, as in ``span-client eval --judge-model``.

A verdict becomes ``C`` / ``I`` / ``N`` (inspect's CORRECT / INCORRECT / NOANSWER); an UNSCORED verdict
becomes an unscored score, which inspect's metrics leave out, as SPAN's accuracy does. Accuracy is also
reported apart for content and polar questions and per reasoning type: a constant "Yes" scores 100% on
the paper's polar questions, so the overall figure alone can mislead."""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Target, accuracy, grouped, scorer, stderr
from inspect_ai.solver import TaskState

from span_toolkit.client.inspect_export import SCORER, score_of

from ._client import ResultLine, Scorer


def _asker(judge_model: str):
    model = get_model(judge_model, config=GenerateConfig(temperature=0.0, seed=0))

    async def ask(system: str, user: str) -> str:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser

        out = await model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=user)])
        return out.completion

    return ask


@scorer(name=SCORER, metrics=[accuracy(), stderr(), grouped(accuracy(), "question_format", all=False),
                              grouped(accuracy(), "reasoning_type", all=False)])
def span_judge(judge_model: str | None = None):
    """Rules judge (and the LLM judge when ``judge_model`` names an inspect model)."""
    judge = Scorer(_asker(judge_model), judge_model=judge_model) if judge_model else Scorer()

    async def score(state: TaskState, target: Target) -> Score:
        instance = dict(state.metadata["instance"])
        record = ResultLine.model_validate({**instance, "final_answer": state.output.completion if state.output else "",
                                            "stop_reason": "answered", "mode": state.metadata.get("mode", "inspect"),
                                            "model": str(state.model)})
        await judge.judge(record)
        return score_of(record.to_dict())

    return score
