"""What every solver returns, and the request hook through which it asks a model (retries live there)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Awaitable, Callable, Protocol

from ..providers.base import ModelReply
from ..providers.thinking import LENGTH_STOPS, REASONING_FIELDS, split_thinking

# request(factory) -> (reply, retries used); raises ProviderError when the request failed for good.
Requester = Callable[[Callable[[], Awaitable[ModelReply]]], Awaitable[tuple[ModelReply, int]]]

__all__ = ["LENGTH_STOPS", "Outcome", "Requester", "Solver", "direct_request", "prompt_echo"]
THINKING_CUT_NOTE = ("the reply ran out of output tokens while thinking: no answer (not a wrong one); "
                     "raise --max-tokens")


async def direct_request(factory: Callable[[], Awaitable[ModelReply]]) -> tuple[ModelReply, int]:
    return await factory(), 0


@dataclass
class Outcome:
    """One instance, asked: the exchange, the final answer (None unless the model answered) and why it
    stopped (answered | max_turns | max_tokens | error)."""

    messages: list[dict]
    tool_calls: list[dict] = field(default_factory=list)
    code_runs: list[dict] = field(default_factory=list)
    final_answer: str | None = None
    stop_reason: str = "error"
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float = 0.0
    retries: int = 0
    turns: int = 0
    error: str | None = None
    error_kind: str | None = None  # context_overflow, connection, auth, ... (client.preflight.classify)
    provider_stop_reason: str | None = None  # the last reply's own stop/finish reason (e.g. "length")
    error_status: int | None = None  # HTTP status of a failed request (the runner stops on 401/403/404)
    error_retryable: bool | None = None
    notes: list[str] = field(default_factory=list)  # what the client did about the reply (deduped calls…)
    prompt_chars: int = 0  # characters sent over all requests (system, tool definitions, messages)
    # the tool loop's guard (with tools): calls identical to an earlier one of this instance, not run again;
    # why one last request without tools was made ("repeats" | "max_turns"), None when there was none
    repeats_caught: int | None = None
    final_turn: str | None = None
    # the Time Agent: reminded once to write a program; answered without any code having run
    code_reminder: bool | None = None
    answered_without_code: bool | None = None
    # the model's thinking, one entry per reply that thought ({turn, form, chars, text, reasoning_tokens,
    # redacted}): kept for inspection, never judged; the final reply ran out of tokens while thinking
    thinking: list[dict] = field(default_factory=list)
    thinking_cut: bool | None = None
    prompt_echo: str | None = None  # a "final answer" that only repeated the client's own prompt (not an answer)
    keep_thinking_text: bool = True

    def usage(self) -> dict:
        out: dict[str, Any] = {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}
        if self.thinking:  # reasoning tokens apart: reported by the provider, else counted offline
            reported = [t["reasoning_tokens"] for t in self.thinking if t.get("reasoning_tokens") is not None]
            if len(reported) == len(self.thinking):
                out["reasoning_tokens"], out["reasoning_tokens_source"] = sum(reported), "provider"
            else:
                counted, how = count_tokens([t.get("_text", "") for t in self.thinking
                                             if t.get("reasoning_tokens") is None])
                out["reasoning_tokens"] = sum(reported) + counted
                out["reasoning_tokens_source"] = how if not reported else f"provider and {how}"
        return out

    def add_usage(self, reply: ModelReply) -> None:
        if reply.input_tokens is not None:
            self.input_tokens = (self.input_tokens or 0) + reply.input_tokens
        if reply.output_tokens is not None:
            self.output_tokens = (self.output_tokens or 0) + reply.output_tokens
        if reply.has_thinking or reply.reasoning_tokens:
            entry: dict[str, Any] = {"turn": self.turns, "form": reply.thinking_form,
                                     "chars": len(reply.reasoning or "")}
            if reply.reasoning_tokens is not None:
                entry["reasoning_tokens"] = reply.reasoning_tokens
            if reply.redacted_thinking:
                entry["redacted"] = reply.redacted_thinking
            if reply.thinking_open:
                entry["unfinished"] = True
            entry["_text"] = reply.reasoning or ""
            self.thinking.append(entry)

    def take_answer(self, reply: ModelReply) -> None:
        """The reply as the final answer: its answer part only (never its thinking). A reply that ran out of
        tokens while thinking has none; a "final answer" that only repeats the client's own prompt is none."""
        if reply.thinking_cut:
            self.final_answer, self.stop_reason, self.thinking_cut = None, "max_tokens", True
            self.notes.append(f"turn {self.turns}: {THINKING_CUT_NOTE}")
            return
        self.final_answer = reply.text if reply.text is not None else ""
        self.stop_reason = "max_tokens" if reply.stop_reason in LENGTH_STOPS else "answered"
        echoed = prompt_echo(self.final_answer)
        if echoed:
            self.prompt_echo, self.final_answer = echoed, None
            self.notes.append(f"turn {self.turns}: the final answer {echoed!r} only repeats the client's own "
                              f"prompt: not an answer")

    def fields(self) -> dict:
        """The result-line fields of this outcome (client.rundir.ResultLine)."""
        messages = self.messages if self.keep_thinking_text else [without_thinking(m) for m in self.messages]
        out = {"messages": messages, "tool_calls": self.tool_calls, "final_answer": self.final_answer,
               "stop_reason": self.stop_reason, "turns": self.turns,
               "provider_stop_reason": self.provider_stop_reason, "usage": self.usage(),
               "latency_s": self.latency_s, "retries": self.retries, "error": self.error}
        if self.code_runs:
            out["code_runs"] = self.code_runs
        if self.error_kind:
            out["error_kind"] = self.error_kind
        if self.notes:
            out["notes"] = self.notes
        if self.prompt_chars:
            out["prompt_chars"] = self.prompt_chars
        for key in ("repeats_caught", "final_turn", "code_reminder", "answered_without_code", "thinking_cut",
                    "prompt_echo"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.thinking:
            out["thinking"] = [{**{k: v for k, v in t.items() if k != "_text"},
                                **({"text": t["_text"]} if self.keep_thinking_text and t["_text"] else {})}
                               for t in self.thinking]
        return out


def without_thinking(message: Any) -> Any:
    """A recorded message with its thinking text left out (``--drop-thinking``): reasoning fields dropped,
    thinking tags and harmony analysis taken out of the content, Anthropic thinking blocks emptied (their
    type and signature kept). A copy: the conversation itself is never changed."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return message
    out = {k: v for k, v in message.items() if k not in REASONING_FIELDS}
    content = out.get("content")
    if isinstance(content, list):
        out["content"] = [{**b, "thinking": ""} if isinstance(b, dict) and b.get("type") == "thinking" else
                          {**b, "data": ""} if isinstance(b, dict) and b.get("type") == "redacted_thinking" else b
                          for b in content]
    elif isinstance(content, str):
        split = split_thinking(content)
        if split.thinking is not None:
            out["content"] = split.answer or ""
    return out


# ------------------------------------------------------------------------------------ reasoning tokens
_TOKENIZER: list = []


def count_tokens(texts: list[str]) -> tuple[int, str]:
    """Tokens in ``texts`` where a server reported none: tiktoken o200k_base when it loads (as the report's
    output-token figures), else the stated estimate of 4 characters per token. (count, how it was counted)"""
    if not _TOKENIZER:
        from ..report.tokens import load_tokenizer

        _TOKENIZER.append(load_tokenizer(timeout_s=2.0))
    tok = _TOKENIZER[0]
    texts = [t for t in texts if t]
    if not texts:
        return 0, "o200k_base" if tok.available else "estimate: 4 characters per token"
    if tok.available:
        return sum(tok.count_many(texts)), "o200k_base"
    return sum(round(len(t) / 4) for t in texts), "estimate: 4 characters per token"


# ------------------------------------------------------------------------- the client's own words echoed
_FINAL = re.compile(r"final\s+answer\s*\**\s*:\s*\**\s*(.+?)\s*$", re.I | re.M)
_WORDS = re.compile(r"[a-z']+")
MIN_ECHO_WORDS = 4


@lru_cache(maxsize=1)
def _prompt_words() -> str:
    from span_toolkit import prompts

    texts = [prompts.load(n) for n in prompts.names() if n != "judge_llm.md"]
    return " " + " ".join(" ".join(_WORDS.findall(t.lower())) for t in texts) + " "


def prompt_echo(answer: str | None) -> str | None:
    """The answer line when it only repeats words of the client's own prompts ("Final answer: No attempts
    are left to run code."), else None. A line with a digit (a date) or of fewer than four words is never an
    echo: the prompts' examples hold dates, and "Yes" / "No" are answers."""
    if not answer:
        return None
    found = _FINAL.findall(answer)
    line = (found[-1] if found else answer.strip()).strip().strip("*_`\"'").strip()
    if not line or any(ch.isdigit() for ch in line) or "\n" in line:
        return None
    words = _WORDS.findall(line.lower())
    if len(words) < MIN_ECHO_WORDS:
        return None
    return line if f" {' '.join(words)} " in _prompt_words() else None


class Solver(Protocol):
    """How a model is asked one instance: ``await solver.solve(question) -> Outcome`` (never raises for an
    instance's own failure: that is an Outcome with stop_reason "error")."""

    mode: str             # unaided | with_tools | time_agent
    resources: dict[str, Any]  # what it holds for the run (MCP server, sandbox), recorded in run.json

    async def solve(self, question: str) -> Outcome: ...
