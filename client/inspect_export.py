"""A SPAN run folder as an inspect_ai log, so ``inspect view`` shows its transcripts; and the two things
the inspect task (``span_toolkit``) shares with it: the breakdown metadata a sample carries and how a
SPAN verdict becomes an inspect Score.

Needs the optional extra (``pip install 'span-toolkit[inspect]'``); :func:`require_inspect` says so in one
line when it is missing. Records are read through :mod:`client.rundir` only.

Every result line becomes one sample: the question as input, the gold display form as target, the whole
exchange as messages (Anthropic, OpenAI or the scripted agents' format, tool calls and their results kept
as tool calls), the final answer as output, the primary judge's verdict as the score (``C`` / ``I`` /
``N``; an error line or an UNSCORED verdict is an unscored score, which inspect's metrics leave out, as
SPAN's own accuracy does), the breakdowns as metadata, tool calls and code runs in the sample store. The
log's accuracy is SPAN's (:func:`client.rundir.count`). A run with ``--epochs K`` becomes K samples per
instance, told apart by their epoch as inspect does, with pass@K and pass^K beside the mean accuracy.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .passk import attempt_of, epoch_metrics
from .providers.thinking import split_thinking, thinking_in_message
from .rundir import RunFolder, RunFolderError, count

SCORER = "span_judge"
TASK = "span_toolkit/span"
MODE_ARG = {"unaided": "unaided", "with_tools": "tools", "time_agent": "time_agent"}  # run mode -> task mode
VALUES = {"CORRECT": "C", "INCORRECT": "I", "NOT_ATTEMPTED": "N"}  # inspect's CORRECT/INCORRECT/NOANSWER
BREAKDOWNS = ("eval_date", "reasoning_type", "question_format", "direction", "source_calendar",
              "target_calendar", "template_id")


class ExportError(Exception):
    """The export cannot be done as asked (message: what to do instead, one line)."""


def require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise ExportError("inspect_ai is not installed; install the extra: pip install 'span-toolkit[inspect]'") \
            from None


def sample_metadata(instance: dict) -> dict[str, Any]:
    """The breakdowns ``inspect view`` filters on (the paper's: date, type, format, direction, calendars,
    template; plus the date format when the instance was written in another one)."""
    meta = {k: instance.get(k) for k in BREAKDOWNS}
    variables = instance.get("variables") or {}
    if isinstance(variables, dict):
        meta["date_format"] = variables.get("date_format", "paper")
        if variables.get("festival"):
            meta["festival"] = variables["festival"]
    return meta


def score_of(line: dict) -> Any:
    """The inspect Score of a judged result line (``verdicts`` / ``primary_judge`` as client.scorer fills)."""
    from inspect_ai.scorer import Score

    verdicts = line.get("verdicts") or {}
    primary = line.get("primary_judge") or "rules"
    v = verdicts.get(primary) if isinstance(verdicts.get(primary), dict) else {}
    meta = {"primary_judge": primary, "verdicts": verdicts}
    verdict = v.get("verdict")
    explanation = v.get("reason") or v.get("raw")
    if line.get("stop_reason") == "error" or line.get("error"):
        return Score.unscored(reason="error", explanation=f"not scored: {line.get('error') or 'error'}",
                              metadata=meta)
    if verdict not in VALUES:
        return Score.unscored(reason="unscored", answer=v.get("extracted"),
                              explanation=explanation or "the judge gave no verdict", metadata=meta)
    return Score(value=VALUES[verdict], answer=v.get("extracted"), explanation=explanation, metadata=meta)


# ----------------------------------------------------------------------------------- messages

def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(b.get("text", b.get("content")) if isinstance(b, dict) else b) for b in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _arguments(raw: Any) -> tuple[dict, str | None]:
    if isinstance(raw, dict):
        return raw, None
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except ValueError as e:
            return {}, f"arguments are not JSON ({e}): {raw[:200]}"
        if isinstance(value, dict):
            return value, None
    return {}, f"arguments are not an object: {str(raw)[:200]}"


def _tool_call(c: dict) -> Any:
    from inspect_ai.tool import ToolCall

    fn = c.get("function") if isinstance(c.get("function"), dict) else None  # OpenAI Chat shape
    name = (fn or c).get("name") or "?"
    args, problem = _arguments((fn or c).get("arguments", c.get("input")))
    return ToolCall(id=str(c.get("id") or ""), function=name, arguments=args, parse_error=problem)


def _tool_message(text: str, call_id: str | None, names: dict, is_error: bool) -> Any:
    from inspect_ai.model import ChatMessageTool
    from inspect_ai.tool import ToolCallError

    return ChatMessageTool(content=text, tool_call_id=call_id, function=names.get(call_id),
                           error=ToolCallError("unknown", text) if is_error else None)


def _reasoning(message: dict) -> list:
    """An assistant message's thinking as inspect's ContentReasoning: Anthropic thinking blocks (signature kept)
    and redacted blocks, an OpenAI-compatible reasoning field, thinking tags or harmony channels in the text."""
    from inspect_ai.model import ContentReasoning

    content = message.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")
                                         for b in content):
        out = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "thinking":
                out.append(ContentReasoning(reasoning=b.get("thinking") or "", signature=b.get("signature")))
            elif isinstance(b, dict) and b.get("type") == "redacted_thinking":
                out.append(ContentReasoning(reasoning=b.get("data") or "", redacted=True))
        return out
    text, _, form, _ = thinking_in_message(message)
    return [ContentReasoning(reasoning=text)] if form is not None and text else []


def chat_messages(messages: list, model: str) -> list:
    """inspect ChatMessages from a result line's ``messages`` (any of the client's provider formats)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ContentText

    out: list = []
    names: dict[str, str] = {}  # tool call id -> tool name, for the tool messages
    for m in messages:
        if not isinstance(m, dict):
            continue
        role, content = m.get("role"), m.get("content")
        if role == "system":
            out.append(ChatMessageSystem(content=_text(content)))
        elif role == "assistant":
            calls = [_tool_call(c) for c in (m.get("tool_calls") or []) if isinstance(c, dict)]
            reasoning = _reasoning(m)  # the thinking as inspect carries it: reasoning content, not answer text
            if isinstance(content, list):  # Anthropic blocks
                calls += [_tool_call(b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
                content = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
            for c in calls:
                names[c.id] = c.function
            text = _text(content)
            if reasoning:
                split = split_thinking(text)
                answer = (split.answer or "") if split.thinking is not None else text
                body: Any = [*reasoning, *([ContentText(text=answer)] if answer else [])]
            else:
                body = text
            out.append(ChatMessageAssistant(content=body, tool_calls=calls or None, model=model, source="generate"))
        elif role == "tool":
            out.append(_tool_message(_text(content), m.get("tool_call_id"), names, bool(m.get("is_error"))))
        elif role == "user" and isinstance(content, list):  # Anthropic: tool results travel as a user turn
            texts = []
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out.append(_tool_message(_text(b.get("content")), b.get("tool_use_id"), names,
                                             bool(b.get("is_error"))))
                else:
                    texts.append(_text([b]))
            if any(t.strip() for t in texts):
                out.append(ChatMessageUser(content="\n".join(texts)))
        elif role == "user":
            out.append(ChatMessageUser(content=_text(content)))
    return out


# ----------------------------------------------------------------------------------- the log

def _model_name(info: Any) -> str:
    is_llm = (info.provider or {}).get("is_llm", True)
    return info.model if is_llm or "/" in info.model else f"span/{info.model}"


def _sample(rec: dict, model: str) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage

    usage = rec.get("usage") or {}
    model_usage = {}
    if usage.get("input_tokens") is not None or usage.get("output_tokens") is not None:
        i, o = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
        reasoning = usage.get("reasoning_tokens")
        model_usage = {model: ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o,
                                         reasoning_tokens=reasoning if isinstance(reasoning, int) else None)}
    meta = {**sample_metadata(rec), "mode": rec.get("mode"), "stop_reason": rec.get("stop_reason"),
            "turns": rec.get("turns"), "retries": rec.get("retries")}
    for key in ("error_kind", "notes", "provider_stop_reason", "thinking_cut", "prompt_echo"):
        if rec.get(key):
            meta[key] = rec[key]
    store = {"span_tool_calls": rec.get("tool_calls") or [], "span_code_runs": rec.get("code_runs") or []}
    error = rec.get("error") if rec.get("error") or rec.get("stop_reason") == "error" else None
    return EvalSample(
        id=str(rec["id"]), epoch=attempt_of(rec), input=str(rec.get("question") or ""),
        target=str(rec.get("answer") or ""),
        messages=chat_messages(rec.get("messages") or [], model),
        output=ModelOutput.from_content(model, rec.get("final_answer") or ""),
        scores={SCORER: score_of(rec)}, metadata=meta, store=store, model_usage=model_usage,
        total_time=rec.get("latency_s"),
        error=EvalError(message=str(error or "error"), traceback="", traceback_ansi="")
        if error is not None or rec.get("stop_reason") == "error" else None)


def _when(text: str | None) -> str:
    if text:
        return text
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_to_log(run_dir: str | Path) -> Any:
    """The inspect EvalLog of a finished run folder (every result line a sample)."""
    require_inspect()
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalPlan, EvalPlanStep, EvalResults
    from inspect_ai.log import EvalScore, EvalSpec, EvalStats

    folder = RunFolder(run_dir)
    if not folder.path.is_dir():
        raise ExportError(f"no such run folder: {folder.path}")
    info = folder.read_info()
    if info is None or not folder.has_results():
        raise ExportError(f"{folder.path} is not a finished run folder (needs run.json and results.jsonl "
                          f"from `span-client eval --out`)")
    model = _model_name(info)
    records, left_out = [], []
    for line in folder.read_lines():
        if line.obj is not None:
            records.append(line.obj)
        else:  # not a result record (or cut off by a killed writer): named in the log and by the command
            left_out.append(line.lineno)
    if not records:
        raise ExportError(f"{folder.results_path} has no result lines to export")
    samples = [_sample(r, model) for r in records]
    counts = count(records)
    metrics = {"accuracy": EvalMetric(name="accuracy", value=counts["accuracy"] if counts["accuracy"] is not None
                                      else float("nan"))}
    for key in ("n_scored", "n_correct", "n_errors", "n_not_attempted"):
        metrics[key] = EvalMetric(name=key, value=counts[key])
    epochs = max(info.epochs or 1, *(s.epoch for s in samples))
    if epochs > 1:
        attempts = epoch_metrics(records, epochs)
        for key, name in (("pass_at_k", f"pass_at_{epochs}"), ("pass_hat_k", f"pass_hat_{epochs}")):
            value = attempts[key]
            metrics[name] = EvalMetric(name=name, value=float("nan") if value is None else value)
    ids = list(dict.fromkeys(s.id for s in samples))  # each instance once, in run order
    mode = MODE_ARG.get(info.mode, info.mode)
    spec = EvalSpec(
        created=_when(info.started_at), task=TASK, task_args={"mode": mode},
        dataset=EvalDataset(name="span", samples=len(ids), sample_ids=ids),
        model=model, config=EvalConfig(epochs=epochs if epochs > 1 else None),
        packages={"span-toolkit": (info.versions or {}).get("span-toolkit", "")},
        metadata={"span_run": info.to_dict(), "exported_from": str(folder.path),
                  "span_lines_left_out": left_out})
    interrupted = bool(info.interrupted) or bool(info.stopped)
    return EvalLog(
        status="cancelled" if interrupted else "success", eval=spec,
        plan=EvalPlan(name="span", steps=[EvalPlanStep(solver=f"span-client eval ({info.mode})")]),
        results=EvalResults(total_samples=len(samples), completed_samples=len(samples),
                            scores=[EvalScore(name=SCORER, scorer=SCORER, scored_samples=counts["n_scored"],
                                              unscored_samples=counts["n"] - counts["n_scored"], metrics=metrics)]),
        stats=EvalStats(started_at=_when(info.started_at), completed_at=_when(info.ended_at)),
        samples=samples)


def export_inspect(run_dir: str | Path, out: str | Path) -> tuple[Path, Any]:
    """Write the run's inspect log to ``out`` (``.eval``, or ``.json`` for plain JSON); (path, log)."""
    log = run_to_log(run_dir)
    from inspect_ai.log import write_eval_log

    path = Path(out)
    if path.suffix not in (".eval", ".json"):
        raise ExportError(f"--out {out}: name the file .eval (inspect's log format) or .json")
    if path.parent and not path.parent.is_dir():
        raise ExportError(f"--out {out}: folder {path.parent} does not exist")
    try:
        write_eval_log(log, str(path), format="eval" if path.suffix == ".eval" else "json")
    except OSError as e:
        raise ExportError(f"cannot write {out}: {e.strerror or e}") from None
    return path, log


__all__ = ["BREAKDOWNS", "ExportError", "RunFolderError", "SCORER", "chat_messages", "export_inspect",
           "require_inspect", "run_to_log", "sample_metadata", "score_of"]
