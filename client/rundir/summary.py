"""summary.json: the counts over a run folder's results (written at the end of every run and re-judge)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .counts import ActionTally, FormatTally, Tally, one_word_warning

# A with-tools run in which fewer instances than this share used a tool did not measure the tools.
MIN_TOOL_USE_SHARE = 0.1
CHARS_PER_TOKEN = 4.0  # the stated estimate when a provider reports no usage (English text, JSON schemas)


def summarize(records: Iterable[dict], model: str | None = None, mode: str | None = None,
              ids: set[str] | None = None) -> dict:
    """Counts over result lines; with ``ids``, only the lines of those instances (the current set)."""
    tally = Tally()
    formats = FormatTally()
    actions = ActionTally()
    stop_reasons: Counter = Counter()
    errors_by_kind: Counter = Counter()
    per_judge: dict[str, Counter] = {}
    pairs: list[tuple[str | None, str | None]] = []
    forms: Counter = Counter()
    with_calls = code_failed = n_code = prompt_tokens = requests = prompt_chars = char_requests = 0
    for r in records:  # streamed: a run's lines with their transcripts can be hundreds of MB
        if ids is not None and r["id"] not in ids:
            continue
        tally.add(r)
        formats.add(r)
        model = model or r.get("model")
        mode = mode or r.get("mode")
        stop_reasons[r.get("stop_reason")] += 1
        if r.get("stop_reason") == "error":
            errors_by_kind[r.get("error_kind") or "other"] += 1
        verdicts = r.get("verdicts") or {}
        for judge, v in verdicts.items():
            per_judge.setdefault(judge, Counter())[v.get("verdict")] += 1
        if verdicts.get("rules") and verdicts.get("llm"):
            pairs.append((verdicts["rules"].get("verdict"), verdicts["llm"].get("verdict")))
        calls = r.get("tool_calls") or []
        if any(call_kind(t) != "unparsed" for t in calls):
            with_calls += 1
        for t in calls:
            forms[call_kind(t)] += 1
        actions.add(r)
        runs = r.get("code_runs") or []
        n_code += bool(runs)
        code_failed += any(x.get("exit_reason") != "ok" for x in runs)
        tokens = (r.get("usage") or {}).get("input_tokens")
        answered_requests = (r.get("turns") or 0) - (r.get("stop_reason") == "error")  # a failed one has no usage
        if tokens is not None and answered_requests > 0:
            prompt_tokens += tokens
            requests += answered_requests
        if r.get("prompt_chars") and r.get("turns"):
            prompt_chars += r["prompt_chars"]
            char_requests += r["turns"]
    c = tally.result()
    for judge, keys in (("rules", ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")), ("llm", ("CORRECT", "INCORRECT", "UNSCORED"))):
        if judge in per_judge:
            for k in keys:
                per_judge[judge].setdefault(k, 0)
    out = {"model": model, "mode": mode, "n": c["n"], "n_scored": c["n_scored"], "n_correct": c["n_correct"],
           "accuracy": c["accuracy"], "n_errors": c["n_errors"], "n_unscored": c["n_unscored"],
           "n_judge_errors": c["n_judge_errors"],
           "stop_reasons": dict(stop_reasons),
           "per_judge": {j: dict(v) for j, v in per_judge.items()}, "agreement": _agreement(pairs),
           # as the provider counted them; and the size of what was sent, with the usual ~4 characters per token
           "prompt_tokens_per_request": round(prompt_tokens / requests, 1) if requests else None,
           "prompt_chars_per_request": round(prompt_chars / char_requests, 1) if char_requests else None,
           "prompt_tokens_per_request_estimate": (round(prompt_chars / char_requests / CHARS_PER_TOKEN, 1)
                                                  if char_requests else None),
           "warnings": []}
    by_format = formats.result()
    if by_format["content"]["n"] or by_format["polar"]["n"]:
        out["by_format"] = by_format
        warning = one_word_warning(by_format)
        if warning:
            out["warnings"].append(warning)
    if errors_by_kind:
        out["errors_by_kind"] = dict(errors_by_kind)
    if c["n_disputed"]:  # gold that depends on a day the calendar's independent sources dispute
        out["disputed"] = {"n": c["n_disputed"], "n_correct": c["n_disputed_correct"]}
    if mode == "with_tools":
        out["tool_calls"] = {"native": forms["native"], "text": forms["text"], "unparsed": forms["unparsed"],
                             "instances_with_calls": with_calls}
        # the loop guard: repeated calls not run again, and the final requests without tools it made
        out["loop_guard"] = actions.loop_guard()
        answered = c["n"] - c["n_errors"]
        if answered and with_calls < MIN_TOOL_USE_SHARE * answered:
            out["warnings"].append(
                f"the model called a tool in only {with_calls} of {answered} answered instances: this 'with tools' "
                f"run mostly measured the bare model. Likely causes: the server does not pass the tools to the "
                f"model (llama-cpp-python's function-calling chat formats drop them without tool_choice), the "
                f"model writes calls in a form the client does not parse (see tool_calls.unparsed), or "
                f"--tool-calls native hides text-form calls")
    if mode == "time_agent":
        out["code_runs"] = {"instances_with_code": n_code, "instances_with_failed_code": code_failed,
                            "answers_without_code": actions.answers_without_code,
                            "code_reminders": actions.code_reminders}
    return out


def call_kind(call: dict) -> str:
    """native | text | unparsed (an attempt that could not be run: its form says how it was written)."""
    form = str(call.get("form") or "native")
    if call.get("unusable") or form.endswith("unparsed"):
        return "unparsed"
    return "text" if form.startswith("text") else "native"


def _agreement(pairs: list[tuple]) -> dict | None:
    """The judges' own agreement (UNSCORED pairs left out; a degenerate kappa is null), or None."""
    if not pairs:
        return None
    from ..judges.agreement import judge_agreement

    result = judge_agreement([a for a, _ in pairs], [b for _, b in pairs])
    return result if result.get("n") else None
