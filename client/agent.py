"""The solver: one instance, unaided or with the MCP tools, through any provider.

Loop: ask the model; if it requests tools, run each call through MCP (unknown tool names, undecodable
arguments and tool failures all become *error results the model can read*), send the results back, and
ask again — until the model answers without tool calls (``answered``), the turn budget is spent
(``max_turns``), or a request fails for good (``error``; never turned into an answer)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from .mcp_tools import MCPConnectionError
from .providers.base import ModelReply, Provider, ProviderError, ToolCall, ToolResult

# request(factory) -> (reply, retries used); raises ProviderError when the request failed for good.
Requester = Callable[[Callable[[], Awaitable[ModelReply]]], Awaitable[tuple[ModelReply, int]]]


async def direct_request(factory: Callable[[], Awaitable[ModelReply]]) -> tuple[ModelReply, int]:
    return await factory(), 0


@dataclass
class Outcome:
    messages: list[dict]
    tool_calls: list[dict] = field(default_factory=list)
    final_answer: str | None = None
    stop_reason: str = "error"
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float = 0.0
    retries: int = 0
    turns: int = 0
    error: str | None = None
    provider_stop_reason: str | None = None  # the last reply's own stop/finish reason (e.g. "length")
    error_status: int | None = None  # HTTP status of a failed request (the runner stops on 401/403/404)
    error_retryable: bool | None = None

    def usage(self) -> dict:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def _add(a: int | None, b: int | None) -> int | None:
    if b is None:
        return a
    return (a or 0) + b


async def solve(provider: Provider, question: str, *, system: str, tools: Any = None, max_turns: int = 8,
                request: Requester = direct_request, timeout: float | None = None) -> Outcome:
    """Run one instance. ``tools`` is a connected :class:`client.mcp_tools.MCPTools` or None (unaided)."""
    started = time.monotonic()
    messages = provider.initial_messages(question)
    out = Outcome(messages=[{"role": "system", "content": system}])
    tool_defs = provider.tool_definitions(tools.tools) if tools is not None else None
    known = {t.name for t in tools.tools} if tools is not None else set()
    try:
        while True:
            out.turns += 1
            reply, retries = await request(lambda: provider.generate(system, messages, tool_defs, timeout))
            out.retries += retries
            out.input_tokens = _add(out.input_tokens, reply.input_tokens)
            out.output_tokens = _add(out.output_tokens, reply.output_tokens)
            messages.append(reply.assistant_message)
            out.provider_stop_reason = reply.stop_reason
            if not reply.tool_calls:
                out.final_answer = reply.text if reply.text is not None else ""
                out.stop_reason = "answered"
                break
            if out.turns >= max_turns:
                out.stop_reason = "max_turns"
                out.error = None
                break
            results = await asyncio.gather(*(_run_call(c, tools, known) for c in reply.tool_calls))
            for res, record in results:
                record["turn"] = out.turns
                out.tool_calls.append(record)
            messages.extend(provider.tool_result_messages([r for r, _ in results]))
    except ProviderError as e:
        out.stop_reason = "error"
        out.error = str(e)
        out.final_answer = None
        out.error_status = getattr(e, "status", None)
        out.error_retryable = e.retryable
        if hasattr(e, "retries"):
            out.retries += e.retries  # type: ignore[attr-defined]
    except asyncio.CancelledError:
        raise
    except MCPConnectionError as e:
        out.stop_reason = "error"
        out.error = str(e)
        out.final_answer = None
    except Exception as e:  # noqa: BLE001 - a bug or unexpected failure is this instance's error, not an answer
        out.stop_reason = "error"
        out.error = f"internal error: {e.__class__.__name__}: {e}"
        out.final_answer = None
    out.messages.extend(messages)
    out.latency_s = round(time.monotonic() - started, 4)
    return out


async def _run_call(call: ToolCall, tools: Any, known: set[str]) -> tuple[ToolResult, dict]:
    record: dict[str, Any] = {"id": call.id, "name": call.name,
                              "arguments": call.arguments if call.arguments is not None else call.raw_arguments,
                              "result": None, "is_error": True}
    if call.error:
        text = f"Invalid arguments for tool {call.name!r}: {call.error}. Send the arguments as one JSON object."
    elif tools is None:
        text = f"No tools are available in this conversation (the model asked for {call.name!r})."
    elif call.name not in known:
        text = f"Unknown tool {call.name!r}. Available tools: {', '.join(sorted(known))}."
    else:
        text, is_error, structured = await tools.call(call.name, call.arguments)
        record["is_error"] = is_error
        record["result"] = structured if structured is not None else text
        return ToolResult(call=call, content=text, is_error=is_error), record
    record["result"] = text
    return ToolResult(call=call, content=text, is_error=True), record
