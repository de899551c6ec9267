"""Anthropic Messages API adapter (``anthropic/<model>``)."""

from __future__ import annotations

import json
from typing import Any

from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec
from .errors import provider_error
from .thinking import MIN_ANTHROPIC_BUDGET, ReasoningSettingError, split_thinking


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict]:
    """MCP tools in the Messages API ``tools`` format."""
    return [{"name": t.name, "description": t.description or t.title or t.name,
             "input_schema": t.input_schema or {"type": "object", "properties": {}}} for t in tools]


class AnthropicProvider(Provider):
    final_turn_keeps_tools = True

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, temperature: float | None = None,
                 max_tokens: int = 2048, timeout: float | None = None):
        import anthropic

        self._sdk = anthropic
        self.model = model
        self.label = f"anthropic/{model}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        kwargs: dict[str, Any] = {"api_key": api_key, "max_retries": 0}
        if base_url:
            kwargs["base_url"] = base_url
        if timeout:
            kwargs["timeout"] = timeout
        self.client = anthropic.AsyncAnthropic(**kwargs)
        self.base_url = base_url
        self.endpoint = base_url or "https://api.anthropic.com"
        self.thinking_budget: int | None = None

    def config(self) -> dict:
        out = {"label": self.label, "is_llm": True, "api": "messages", "temperature": self.temperature,
               "max_tokens": self.max_tokens, "base_url": self.base_url}
        if self.thinking_budget is not None:  # only when given: a run without it keeps its cache keys
            out["thinking_budget"] = self.thinking_budget
        return out

    def set_reasoning(self, effort: str | None, budget: int | None) -> list[str]:
        """Extended thinking: ``thinking: {"type": "enabled", "budget_tokens": N}`` (N >= 1024 and below
        max_tokens, which is raised to N + the answer's --max-tokens when it is not above N; the temperature
        must stay at its default, so none is sent); 0 sends ``{"type": "disabled"}``."""
        if effort is not None:
            raise ReasoningSettingError(f"--reasoning-effort is for OpenAI reasoning models and compatible servers; "
                                        f"Anthropic models think with --thinking-budget N (N >= {MIN_ANTHROPIC_BUDGET}, "
                                        f"or 0 for no thinking)")
        if budget is None:
            return []
        if budget != 0 and budget < MIN_ANTHROPIC_BUDGET:
            raise ReasoningSettingError(f"--thinking-budget for Anthropic must be at least {MIN_ANTHROPIC_BUDGET} "
                                        f"tokens (or 0 for no thinking); got {budget}")
        self.thinking_budget = budget
        notes = []
        if budget and self.max_tokens <= budget:
            raised = budget + self.max_tokens
            notes.append(f"{self.label}: max_tokens raised from {self.max_tokens} to {raised} (Anthropic needs "
                         f"max_tokens above --thinking-budget {budget}; {self.max_tokens} are left for the answer)")
            self.max_tokens = raised
        if budget and self.temperature is not None:
            notes.append(f"{self.label}: no temperature sent with extended thinking (Anthropic requires its default; "
                         f"it was {self.temperature:g})")
            self.temperature = None
        return notes

    def initial_messages(self, question: str) -> list[dict]:
        return [{"role": "user", "content": question}]

    def tool_definitions(self, tools: list[ToolSpec]) -> list[dict]:
        return to_anthropic_tools(tools)

    def request_body(self, system: str, messages: list[dict], tools: list[dict] | None,
                     tool_choice: dict | None = None) -> dict[str, Any]:
        """The Messages request parameters (also the ``params`` of one Message Batches request)."""
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "system": system,
                                "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.thinking_budget is not None:
            body["thinking"] = ({"type": "enabled", "budget_tokens": self.thinking_budget} if self.thinking_budget
                                else {"type": "disabled"})
        if tools:
            body["tools"] = tools
            if tool_choice:
                body["tool_choice"] = tool_choice
        return body

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        return await self._create(self.request_body(system, messages, tools), timeout)

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        # the tools stay: the Messages API refuses tool_use / tool_result blocks in a request without them
        return await self._create(self.request_body(system, messages, tools, {"type": "none"} if tools else None),
                                  timeout)

    async def _create(self, kwargs: dict[str, Any], timeout) -> ModelReply:
        sdk = self._sdk
        if "temperature" in kwargs:
            # The Messages API of anthropic 2.x has no sampling parameters; send one only when asked for.
            kwargs["extra_body"] = {"temperature": kwargs.pop("temperature")}
        if timeout:
            kwargs["timeout"] = timeout
        try:
            resp = await self.client.messages.create(**kwargs)
        except (sdk.APIError, ValueError, TypeError) as e:  # TypeError/ValueError: an undecodable body
            err = provider_error(e, sdk, api="Anthropic", schema="Messages", endpoint=self.endpoint,
                                 timeout=timeout)
            if self.thinking_budget is not None and err.status == 400 and "thinking" in str(err).lower():
                err = ProviderError(f"{err} (the server refused --thinking-budget {self.thinking_budget}; valid: 0, "
                                    f"or at least {MIN_ANTHROPIC_BUDGET} and below --max-tokens, on a model with "
                                    f"extended thinking)", retryable=False, status=400, kind="reasoning_rejected")
            raise err from e
        return _reply(resp)

    def reply_from_message(self, message: Any) -> ModelReply:
        """A Message (a Message Batches ``succeeded`` result) as a reply."""
        return _reply(message)

    def tool_result_messages(self, results: list[ToolResult]) -> list[dict]:
        blocks = []
        for r in results:
            block = {"type": "tool_result", "tool_use_id": r.call.id, "content": r.content}
            if r.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]

    async def aclose(self) -> None:
        await self.client.close()


def _reply(resp: Any) -> ModelReply:
    content = getattr(resp, "content", None)
    if not isinstance(content, list):
        raise ProviderError("malformed reply from the Anthropic endpoint: no content list", retryable=False)
    texts: list[str] = []
    calls: list[ToolCall] = []
    native: list[dict] = []
    for block in content:
        btype = getattr(block, "type", None)
        if btype == "text":
            texts.append(block.text)
            native.append({"type": "text", "text": block.text})
        elif btype == "tool_use":
            args = block.input if isinstance(block.input, dict) else None
            err = None if args is not None else f"tool input must be a JSON object, got {block.input!r}"
            calls.append(ToolCall(id=block.id, name=block.name, arguments=args, error=err,
                                  raw_arguments=None if args is not None else json.dumps(block.input)))
            native.append({"type": "tool_use", "id": block.id, "name": block.name,
                           "input": block.input if isinstance(block.input, dict) else {}})
        elif btype == "thinking":  # must be echoed back unchanged
            native.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
        elif btype == "redacted_thinking":
            native.append({"type": "redacted_thinking", "data": block.data})
    usage = getattr(resp, "usage", None)
    text = "\n".join(texts) if texts else None
    split = split_thinking(text)  # an Anthropic-compatible server that leaves thinking tags in the text
    if split.thinking is not None:
        text = split.answer
    reply = ModelReply(text=text, tool_calls=calls, stop_reason=getattr(resp, "stop_reason", None),
                       assistant_message={"role": "assistant", "content": native},
                       input_tokens=getattr(usage, "input_tokens", None),
                       output_tokens=getattr(usage, "output_tokens", None))
    reported = getattr(getattr(usage, "output_tokens_details", None), "thinking_tokens", None)
    if isinstance(reported, int) and not isinstance(reported, bool) and (reported > 0 or reply.has_thinking):
        reply.reasoning_tokens = reported
    return reply
