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
    thinking = ThinkingTally()
    agent = AgentTally()
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
        thinking.add(r)
        agent.add(r)
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
                            "code_reminders": actions.code_reminders, **agent.result()}
        out["warnings"].extend(agent.warnings(actions.answers_without_code, c["n"] - c["n_errors"]))
    if mode == "with_tools":
        echoes = agent.prompt_echoes
        if echoes:
            out["warnings"].append(prompt_echo_warning(echoes))
    reasoning = thinking.result()
    if reasoning is not None:
        out["reasoning"] = reasoning
        if reasoning["thinking_cut"]:
            out["warnings"].append(thinking_cut_warning(reasoning["thinking_cut"], c["n"] - c["n_errors"]))
    return out


class ThinkingTally:
    """A thinking model's figures: instances whose replies thought, replies that ran out of tokens while
    thinking (no answer), and the reasoning tokens apart from the visible ones (as the provider reported them,
    else counted offline: ``usage.reasoning_tokens_source``)."""

    def __init__(self) -> None:
        self.n = self.with_thinking = self.cut = self.redacted = 0
        self.reasoning = self.output = self.output_known = self.reported_lines = self.counted_lines = 0
        self.chars = 0

    def add(self, r: dict) -> None:
        self.n += 1
        entries = r.get("thinking") or []
        usage = r.get("usage") or {}
        if entries:
            self.with_thinking += 1
            self.chars += sum(int(t.get("chars") or 0) for t in entries if isinstance(t, dict))
            self.redacted += sum(int(t.get("redacted") or 0) for t in entries if isinstance(t, dict))
        self.cut += bool(r.get("thinking_cut"))
        rt = usage.get("reasoning_tokens")
        if isinstance(rt, int) and not isinstance(rt, bool):
            self.reasoning += rt
            if usage.get("reasoning_tokens_source") == "provider":
                self.reported_lines += 1
            else:
                self.counted_lines += 1
            if isinstance(usage.get("output_tokens"), int):
                self.output += usage["output_tokens"]
                self.output_known += 1

    def result(self) -> dict | None:
        if not (self.with_thinking or self.cut or self.reported_lines or self.counted_lines):
            return None  # a model that does not think: the summary is as it always was
        return {"instances_with_thinking": self.with_thinking, "thinking_cut": self.cut,
                "thinking_chars": self.chars, "redacted_blocks": self.redacted,
                "reasoning_tokens": self.reasoning, "lines_reported_by_provider": self.reported_lines,
                "lines_counted_offline": self.counted_lines,
                # of the lines with both counts: the output tokens, and those that were not thinking
                "output_tokens": self.output if self.output_known else None,
                "visible_output_tokens": max(0, self.output - self.reasoning) if self.output_known else None}


def reasoning_line(summary: dict) -> str | None:
    """The console's line on a thinking model's tokens (None for a model that does not think)."""
    r = summary.get("reasoning")
    if not r:
        return None
    how = []
    if r["lines_reported_by_provider"]:
        how.append(f"{r['lines_reported_by_provider']} instances as the provider reported them")
    if r["lines_counted_offline"]:
        how.append(f"{r['lines_counted_offline']} counted offline")
    visible = (f"; {r['visible_output_tokens']:,} visible of {r['output_tokens']:,} output tokens"
               if r.get("output_tokens") is not None else "")
    return (f"reasoning: {r['instances_with_thinking']} instances thought; {r['reasoning_tokens']:,} reasoning tokens"
            + (f" ({', '.join(how)})" if how else "") + visible
            + (f"; {r['thinking_cut']} ran out of tokens while thinking (no answer)" if r["thinking_cut"] else ""))


def thinking_cut_warning(n_cut: int, n_answered: int) -> str:
    return (f"{n_cut} of {n_answered} instances ran out of output tokens while thinking: no answer (graded "
            f"NOT_ATTEMPTED, never INCORRECT; result lines have thinking_cut); raise --max-tokens (reasoning "
            f"models often need 8,192 to 32,768) and re-run into a new --out")


def prompt_echo_warning(n: int) -> str:
    return (f"{n} final answers only repeated the client's own prompt (e.g. \"No attempts are left to run code\"): "
            f"recorded as no answer (prompt_echo), never read as yes/no or a date")


class AgentTally:
    """The Time Agent that never answers: instances stopped at the code-run limit still writing code (no
    answer), identical programs caught and not run again, and answers that only repeated the prompt."""

    def __init__(self) -> None:
        self.stopped_at_limit = self.repeats_caught = self.instances_with_repeats = 0
        self.final_turns = self.final_turn_answers = self.prompt_echoes = 0

    def add(self, r: dict) -> None:
        self.prompt_echoes += bool(r.get("prompt_echo"))
        if r.get("mode") not in (None, "time_agent"):
            return
        if r.get("stop_reason") == "max_turns" and not r.get("final_answer"):
            self.stopped_at_limit += 1
        self.repeats_caught += r.get("repeats_caught") or 0
        self.instances_with_repeats += bool(r.get("repeats_caught"))
        if r.get("final_turn"):
            self.final_turns += 1
            self.final_turn_answers += bool(r.get("final_answer")) and r.get("stop_reason") != "error"

    def result(self) -> dict:
        return {"stopped_at_limit": self.stopped_at_limit, "program_repeats_caught": self.repeats_caught,
                "instances_with_program_repeats": self.instances_with_repeats,
                "final_requests_without_code": self.final_turns, "final_request_answers": self.final_turn_answers,
                "prompt_echoes": self.prompt_echoes}

    def warnings(self, answers_without_code: int, n_answered: int) -> list[str]:
        out = []
        if self.stopped_at_limit:
            out.append(f"{self.stopped_at_limit} of {n_answered} instances stopped at the code-run limit still writing "
                       f"code: no answer (graded NOT_ATTEMPTED; a program's text is never judged). Small models do "
                       f"this; raise --max-turns only if the programs were improving")
        if self.repeats_caught:
            out.append(f"{self.repeats_caught} programs identical to one already run were caught and not run again "
                       f"(in {self.instances_with_repeats} instances)")
        if answers_without_code:
            out.append(f"{answers_without_code} of {n_answered} answers were given without any program having run "
                       f"(the Time Agent's method was not followed there)")
        if self.prompt_echoes:
            out.append(prompt_echo_warning(self.prompt_echoes))
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
