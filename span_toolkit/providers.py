"""The offline scripted agents as inspect_ai model providers: ``span/baseline``, ``span/reference`` and
``span/reference-code`` (none of them is a language model).

Each wraps the very agent ``span-client eval --model NAME`` uses: inspect's messages are turned into
the agents' neutral message format, their reply back into a :class:`ModelOutput`. What they read is
what a model would read: the question, the tools' result *text* (inspect keeps only the text of an MCP
result, so the calendar lines are read back with :func:`span.models.parse_dates`) and, for the Time
Agent, the sandbox's output message. They never see the sample's target or metadata.

No key, no network: a scripted agent has no tokenizer, so token counts (which inspect asks for only
to trigger context compaction) are estimated from characters instead of inspect's default, which
downloads tiktoken's ``o200k_base`` file on first use.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import (ChatCompletionChoice, ChatMessage, ChatMessageAssistant, ChatMessageSystem,
                              ChatMessageTool, ChatMessageUser, GenerateConfig, ModelAPI, ModelOutput, modelapi)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from span_toolkit.span import ALL_CALENDAR_NAMES
from span_toolkit.span.models import parse_dates

from ._client import ProviderError, scripted

NAMES = tuple(scripted.SCRIPTED)  # baseline, reference, reference-code
CHARS_PER_TOKEN = 4  # the usual English-text estimate; only ever used for compaction triggers


def to_neutral(messages: list[ChatMessage]) -> tuple[str, list[dict]]:
    """(system text, messages in the scripted agents' format) from inspect's messages."""
    system: list[str] = []
    out: list[dict] = []
    for m in messages:
        if isinstance(m, ChatMessageSystem):
            system.append(m.text)
        elif isinstance(m, ChatMessageUser):
            out.append({"role": "user", "content": m.text})
        elif isinstance(m, ChatMessageAssistant):
            calls = [{"id": c.id, "name": c.function, "arguments": c.arguments} for c in (m.tool_calls or [])]
            out.append({"role": "assistant", "content": m.text or None, **({"tool_calls": calls} if calls else {})})
        elif isinstance(m, ChatMessageTool):
            text = m.text
            is_error = m.error is not None
            try:
                structured = None if is_error else parse_dates(text, ALL_CALENDAR_NAMES)
            except ValueError:
                structured = None  # unreadable lines: the agent says it found no date, never guesses
            out.append({"role": "tool", "tool_call_id": m.tool_call_id,
                        "content": m.error.message if is_error and m.error else text,
                        "is_error": is_error, "structured": structured})
    return "\n\n".join(system), out


def to_output(model: str, reply: Any) -> ModelOutput:
    """A scripted agent's ModelReply as inspect's ModelOutput (tool calls kept as tool calls)."""
    calls = [ToolCall(id=c.id, function=c.name, arguments=dict(c.arguments or {})) for c in reply.tool_calls]
    content: Any = reply.text or ""
    if getattr(reply, "has_thinking", False):  # thinking as inspect carries it: reasoning content, not answer text
        from inspect_ai.model import ContentReasoning, ContentText

        content = [ContentReasoning(reasoning=reply.reasoning or "", redacted=not reply.reasoning),
                   *([ContentText(text=reply.text)] if reply.text else [])]
    message = ChatMessageAssistant(content=content, tool_calls=calls or None, model=model, source="generate")
    return ModelOutput(model=model, choices=[ChatCompletionChoice(
        message=message, stop_reason="tool_calls" if calls else "stop")])


class ScriptedAPI(ModelAPI):
    """``--model span/NAME``: one of the scripted agents (``NAME`` in :data:`NAMES`)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in scripted.SCRIPTED:
            raise ValueError(f"unknown scripted agent span/{model_name}; valid: "
                             + ", ".join(f"span/{n}" for n in NAMES))
        self.agent = scripted.make(model_name)

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        system, messages = to_neutral(input)
        offered = [{"name": t.name} for t in tools] or None
        try:
            reply = await self.agent.generate(system, messages, offered, None)
        except ProviderError as e:
            hint = ""
            if self.model_name == "reference" and not tools:
                hint = " (run the span task with -T mode=tools)"
            elif self.model_name == "reference-code" and tools:
                hint = " (run the span task with -T mode=time_agent)"
            raise RuntimeError(f"span/{self.model_name}: {e}{hint}") from None
        return to_output(f"span/{self.model_name}", reply)

    async def count_text_tokens(self, text: str) -> int:
        return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


@modelapi(name="span")
def span_models() -> type[ModelAPI]:
    return ScriptedAPI
