"""What every solver returns, and the request hook through which it asks a model (retries live there)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol

from ..providers.base import ModelReply

# request(factory) -> (reply, retries used); raises ProviderError when the request failed for good.
Requester = Callable[[Callable[[], Awaitable[ModelReply]]], Awaitable[tuple[ModelReply, int]]]

# provider stop reasons that mean "cut at the output-token limit"
LENGTH_STOPS = ("length", "max_tokens")


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

    def usage(self) -> dict:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}

    def add_usage(self, reply: ModelReply) -> None:
        if reply.input_tokens is not None:
            self.input_tokens = (self.input_tokens or 0) + reply.input_tokens
        if reply.output_tokens is not None:
            self.output_tokens = (self.output_tokens or 0) + reply.output_tokens

    def fields(self) -> dict:
        """The result-line fields of this outcome (client.rundir.ResultLine)."""
        out = {"messages": self.messages, "tool_calls": self.tool_calls, "final_answer": self.final_answer,
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
        for key in ("repeats_caught", "final_turn", "code_reminder", "answered_without_code"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


class Solver(Protocol):
    """How a model is asked one instance: ``await solver.solve(question) -> Outcome`` (never raises for an
    instance's own failure: that is an Outcome with stop_reason "error")."""

    mode: str             # unaided | with_tools | time_agent
    resources: dict[str, Any]  # what it holds for the run (MCP server, sandbox), recorded in run.json

    async def solve(self, question: str) -> Outcome: ...
