"""Fake servers of models that think before they answer, in each real wire form (hand-made from the providers'
documented formats: no thinking model can be served here, so these are not recordings of one).

* OpenAI-compatible, thinking in the content (vLLM / llama.cpp / Ollama without a reasoning parser):
  ``<think>…</think>answer``; with ``open_tag=False`` the ``<think>`` is left out (the chat template opened it
  in the prompt, as Qwen3 and the DeepSeek-R1 distills do);
* OpenAI-compatible, thinking in ``message.reasoning_content`` (DeepSeek's API, llama.cpp
  ``--reasoning-format deepseek``, vLLM before 0.10) or ``message.reasoning`` (vLLM now);
* gpt-oss served raw (harmony): ``<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final
  <|message|>…<|return|>``;
* Anthropic Messages with extended thinking: ``thinking`` blocks (with a ``signature``) and
  ``redacted_thinking`` blocks before the ``text`` / ``tool_use`` blocks; usage with
  ``output_tokens_details.thinking_tokens``.

The servers enforce the rules the real APIs document, so a client that breaks them gets the same 400:
Anthropic — with thinking enabled, ``budget_tokens`` >= 1024 and < ``max_tokens``, no temperature, and every
assistant turn of a tool loop sent back starting with its thinking blocks, unchanged (signature checked);
OpenAI-compatible (``history="deepseek"``) — a reasoning field on an assistant turn *with* tool calls is
required, on one without tool calls refused.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from .providers import FakeAnthropic, FakeOpenAI, Text, ToolCalls


@dataclass
class Thought:
    """A reply that thinks (``thinking``) and then answers (``text``; None: it never got to answer) and/or calls
    tools (``calls``: (name, arguments) pairs, native). ``finish="length"`` cuts it at the token limit."""

    thinking: str
    text: str | None = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    finish: str = "stop"
    reasoning_tokens: int | None = None  # what usage reports (None: the server reports none)
    redacted: int = 0                    # Anthropic: redacted_thinking blocks after the thinking block
    input_tokens: int = 40
    output_tokens: int = 300


def _signature(text: str) -> str:
    return "sig-" + hashlib.sha256(text.encode()).hexdigest()[:32]


class FakeThinkingOpenAI(FakeOpenAI):
    """``form``: "tags" | "tags-no-open" | "reasoning_content" | "reasoning" | "harmony".
    ``history``: None (anything goes, as vLLM) | "deepseek" (the reasoning field only with tool calls)."""

    def __init__(self, policy, form: str = "tags", history: str | None = None, **kw):
        super().__init__(policy, **kw)
        self.form = form
        self.history = history

    def validate(self, body: dict) -> str | None:
        problem = super().validate(body)
        if problem or self.history != "deepseek":
            return problem
        for i, m in enumerate(body["messages"]):
            if m.get("role") != "assistant":
                continue
            has = any(k in m for k in ("reasoning_content", "reasoning"))
            if m.get("tool_calls") and not has:
                return f"Missing `reasoning_content` field in the assistant message at message index {i}"
            if not m.get("tool_calls") and has:
                return (f"messages[{i}]: the reasoning_content of an earlier turn must not be sent back "
                        f"in the input messages")
        return None

    def render(self, body: dict, reply: Any) -> dict:
        if not isinstance(reply, Thought):
            return super().render(body, reply)
        form = self.form
        message: dict[str, Any] = {"role": "assistant", "refusal": None}
        answer = reply.text or ""
        if form == "tags":
            content = f"<think>\n{reply.thinking}\n" + ("</think>\n\n" + answer if reply.text is not None else "")
        elif form == "tags-no-open":
            content = f"{reply.thinking}\n" + ("</think>\n\n" + answer if reply.text is not None else "")
        elif form == "harmony":
            content = f"<|channel|>analysis<|message|>{reply.thinking}"
            if reply.text is not None:
                content += f"<|end|><|start|>assistant<|channel|>final<|message|>{answer}<|return|>"
        elif form in ("reasoning_content", "reasoning"):
            content = reply.text
            message[form] = reply.thinking
        else:
            raise ValueError(form)
        message["content"] = content
        finish = reply.finish
        if reply.calls:
            message["tool_calls"] = [{"id": "call_" + uuid.uuid4().hex[:20], "type": "function",
                                      "function": {"name": n, "arguments": json.dumps(a)}} for n, a in reply.calls]
            finish = "tool_calls" if reply.finish == "stop" else reply.finish
        usage: dict[str, Any] = {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
                                 "total_tokens": reply.input_tokens + reply.output_tokens}
        if reply.reasoning_tokens is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens,
                                                  "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
                                                  "audio_tokens": 0}
        return {"id": "chatcmpl-" + uuid.uuid4().hex[:20], "object": "chat.completion", "created": int(time.time()),
                "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish,
                                                     "logprobs": None}], "usage": usage}


class FakeThinkingAnthropic(FakeAnthropic):
    """The Messages API with extended thinking, checking what the real API checks."""

    def __init__(self, policy, **kw):
        super().__init__(policy, **kw)
        self.issued: dict[str, str] = {}  # signature -> the thinking text it signs

    def validate(self, body: dict) -> str | None:
        problem = super().validate(body)
        if problem:
            return problem
        thinking = body.get("thinking")
        if not thinking or thinking.get("type") != "enabled":
            return None
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= body["max_tokens"]:
            return "`max_tokens` must be greater than `thinking.budget_tokens`"
        if "temperature" in body and body["temperature"] != 1:
            return "`temperature` may only be set to 1 when thinking is enabled"
        choice = (body.get("tool_choice") or {}).get("type")
        if choice in ("any", "tool"):
            return "Thinking may not be enabled when tool_choice forces tool use."
        msgs = body["messages"]
        for i, m in enumerate(msgs):
            if m.get("role") != "assistant" or not isinstance(m.get("content"), list):
                continue
            blocks = m["content"]
            if any(b.get("type") == "tool_use" for b in blocks):
                if not blocks or blocks[0].get("type") not in ("thinking", "redacted_thinking"):
                    return (f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                            f"`{blocks[0].get('type') if blocks else None}`. When `thinking` is enabled, a final "
                            f"`assistant` message must start with a thinking block")
            for j, b in enumerate(blocks):
                if b.get("type") == "thinking" and self.issued.get(b.get("signature")) != b.get("thinking"):
                    return f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
        return None

    def render(self, body: dict, reply: Any) -> dict:
        if not isinstance(reply, Thought):
            return super().render(body, reply)
        content: list[dict] = []
        sig = _signature(reply.thinking + uuid.uuid4().hex)
        self.issued[sig] = reply.thinking
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": sig})
        for _ in range(reply.redacted):
            content.append({"type": "redacted_thinking", "data": "EmwKAhgBEgy" + uuid.uuid4().hex})
        if reply.text is not None:
            content.append({"type": "text", "text": reply.text})
        for name, args in reply.calls:
            content.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": args})
        stop = "max_tokens" if reply.finish == "length" else ("tool_use" if reply.calls else "end_turn")
        usage: dict[str, Any] = {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}
        if reply.reasoning_tokens is not None:
            usage["output_tokens_details"] = {"thinking_tokens": reply.reasoning_tokens}
        return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant", "model": body["model"],
                "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}


__all__ = ["FakeThinkingAnthropic", "FakeThinkingOpenAI", "Text", "Thought", "ToolCalls"]
