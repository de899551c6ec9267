"""The one small async interface every model provider implements.

A provider keeps the conversation in its own wire format (``messages`` is a list of native message
dicts, so the recorded exchange is exactly what was sent) and exposes:

* ``initial_messages(question)`` — the first user turn;
* ``tool_definitions(tools)`` — MCP tool descriptions converted to the provider's tool format;
* ``await generate(system, messages, tools, timeout)`` — one model request, returning a :class:`ModelReply`
  (text, tool calls, usage and the native assistant message to append) or raising :class:`ProviderError`;
* ``tool_result_messages(results)`` — the native message(s) that carry tool results back.

Retries are *not* done here (the SDKs are built with ``max_retries=0``): the runner owns the only retry
layer, driven by :attr:`ProviderError.retryable` and :attr:`ProviderError.retry_after`
(client.providers.errors says what each failure is).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from .errors import ProviderError
from .thinking import LENGTH_STOPS, ReasoningSettingError, thinking_in_message

__all__ = ["ModelReply", "Provider", "ProviderError", "ToolCall", "ToolResult", "ToolSpec", "decode_arguments"]


@dataclass
class ToolSpec:
    """A tool as listed by the MCP server (provider-neutral)."""

    name: str
    description: str
    input_schema: dict
    title: str | None = None
    output_schema: dict | None = None


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict | None  # None when the model's arguments could not be decoded
    raw_arguments: str | None = None  # what the model sent, when it was a string (OpenAI)
    error: str | None = None  # why the arguments are unusable


@dataclass
class ToolResult:
    call: ToolCall
    content: str  # the text a model reads
    is_error: bool
    structured: Any = None  # the tool's typed result (MCP structuredContent), for scripted agents and logs


@dataclass
class ModelReply:
    text: str | None
    tool_calls: list[ToolCall]
    stop_reason: str | None
    assistant_message: dict
    input_tokens: int | None = None
    output_tokens: int | None = None
    raw: Any = field(default=None, repr=False)
    # the model's thinking, kept apart from ``text`` (the answer: all a judge, the text tool-call parser and the
    # Time Agent's code reader ever see); read back out of ``assistant_message`` when not given (client.providers
    # .thinking), so a reply served by the response cache keeps it
    reasoning: str | None = None
    reasoning_tokens: int | None = None  # as the provider reported them (None: not reported)
    redacted_thinking: int = 0           # Anthropic redacted_thinking blocks (encrypted: no text)
    thinking_form: str | None = None     # anthropic | reasoning_content | reasoning | tags | harmony
    thinking_open: bool = False          # the reply ended inside its thinking (never closed)

    def __post_init__(self) -> None:
        if self.reasoning is None and self.thinking_form is None:
            text, redacted, form, open_ended = thinking_in_message(self.assistant_message)
            if form is not None:
                self.reasoning, self.redacted_thinking, self.thinking_form = text, redacted, form
                self.thinking_open = open_ended
            elif self._template_opened_cut():
                self.reasoning, self.thinking_form, self.thinking_open = self.assistant_message["content"], "tags", True

    def _template_opened_cut(self) -> bool:
        """A reply stored with no answer although its content has text, no tag and no tool call, cut at the
        token limit: one the provider read as cut while thinking (thinking switched on, the tag opened by the
        chat template), served again by the response cache."""
        message = self.assistant_message if isinstance(self.assistant_message, dict) else {}
        content = message.get("content")
        return (self.text == "" and self.stop_reason in LENGTH_STOPS and not self.tool_calls
                and not message.get("tool_calls") and isinstance(content, str) and bool(content.strip()))

    @property
    def has_thinking(self) -> bool:
        return bool(self.reasoning) or self.redacted_thinking > 0 or self.thinking_open

    @property
    def thinking_cut(self) -> bool:
        """The reply ran out of output tokens while thinking: it has no answer (not a wrong one)."""
        return (self.stop_reason in LENGTH_STOPS and not self.tool_calls and not (self.text or "").strip()
                and self.has_thinking)


class Provider(ABC):
    """Base class. ``label`` is what results record as ``model`` (e.g. ``anthropic/claude-x``)."""

    label: str
    is_llm: bool = True
    final_turn_keeps_tools: bool = False  # generate_without_tools sends the tools with tool_choice "none"

    @abstractmethod
    def initial_messages(self, question: str) -> list[dict]: ...

    @abstractmethod
    def tool_definitions(self, tools: list[ToolSpec]) -> list[dict]: ...

    @abstractmethod
    async def generate(self, system: str, messages: list[dict], tools: list[dict] | None,
                       timeout: float | None) -> ModelReply: ...

    @abstractmethod
    def tool_result_messages(self, results: list[ToolResult]) -> list[dict]: ...

    async def generate_without_tools(self, system: str, messages: list[dict], tools: list[dict] | None,
                                     timeout: float | None) -> ModelReply:
        """One request in which the model may not call a tool (the tool loop's final turn). ``tools`` are the
        definitions offered so far. By default they are left out of the request; a provider whose API has a
        ``tool_choice`` of "none" keeps them and forbids calls instead (a history of tool calls may need them)."""
        return await self.generate(system, messages, None, timeout)

    @staticmethod
    def add_user_text(messages: list[dict], text: str) -> None:
        """Append ``text`` for the model to read next: to the last user message when there is one (tool
        results sent as a user message, Anthropic's tool_result blocks), else as a new user message (after
        OpenAI's ``role: tool`` results). Roles keep alternating either way."""
        last = messages[-1] if messages else None
        if last is not None and last.get("role") == "user":
            content = last.get("content")
            if isinstance(content, str):
                last["content"] = content + "\n\n" + text
                return
            if isinstance(content, list):
                content.append({"type": "text", "text": text})
                return
        messages.append({"role": "user", "content": text})

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass

    def config(self) -> dict:
        """Settings recorded in run.json."""
        return {"label": self.label, "is_llm": self.is_llm}

    def set_reasoning(self, effort: str | None, budget: int | None) -> list[str]:
        """Apply ``--reasoning-effort`` / ``--thinking-budget`` (None: not given). Returns one-line notes on what
        the provider needed alongside (a temperature left out, max_tokens raised); raises
        :class:`ReasoningSettingError` (one line, saying what is valid) for a value this provider cannot take."""
        if effort is None and budget is None:
            return []
        raise ReasoningSettingError(f"--reasoning-effort and --thinking-budget go with an LLM (anthropic/…, openai/…, "
                                    f"openai-compatible/…); {self.label} is an offline scripted agent")


def decode_arguments(raw: Any) -> tuple[dict | None, str | None]:
    """Decode tool arguments (a JSON string from OpenAI, a dict from Anthropic)."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or raw == "":
        return {}, None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as e:
        return None, f"invalid JSON in tool arguments ({e.__class__.__name__}: {e})"
    if not isinstance(value, dict):
        return None, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, None
