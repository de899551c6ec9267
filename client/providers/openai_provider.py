"""OpenAI Chat Completions adapter: ``openai/<model>`` and ``openai-compatible/<model>`` (vLLM, Ollama,
llama.cpp ``llama-server``, LM Studio — anything serving ``/v1/chat/completions``)."""

from __future__ import annotations

from typing import Any

from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec, decode_arguments
from .errors import provider_error
from .thinking import EFFORTS, LENGTH_STOPS, REASONING_FIELDS, ReasoningSettingError, split_thinking

# request keys the SDK's create() does not take: sent through extra_body (a Batch API line has them in the body)
_EXTRA_KEYS = ("chat_template_kwargs",)


def to_openai_tools(tools: list[ToolSpec]) -> list[dict]:
    """MCP tools in the Chat Completions ``tools`` format."""
    return [{"type": "function",
             "function": {"name": t.name, "description": t.description or t.title or t.name,
                          "parameters": t.input_schema or {"type": "object", "properties": {}}}} for t in tools]


class OpenAIProvider(Provider):
    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, temperature: float | None = 0.0,
                 max_tokens: int = 2048, timeout: float | None = None, compatible: bool = False):
        import openai

        self._sdk = openai
        self.model = model
        self.compatible = compatible
        self.final_turn_keeps_tools = not compatible
        self.label = f"{'openai-compatible' if compatible else 'openai'}/{model}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.base_url = base_url
        self.endpoint = base_url or "https://api.openai.com/v1"
        kwargs: dict[str, Any] = {"api_key": api_key, "max_retries": 0}
        if base_url:
            kwargs["base_url"] = base_url
        if timeout:
            kwargs["timeout"] = timeout
        self.client = openai.AsyncOpenAI(**kwargs)
        self.reasoning_effort: str | None = None
        self.thinking_budget: int | None = None

    def config(self) -> dict:
        out = {"label": self.label, "is_llm": True, "api": "chat.completions", "temperature": self.temperature,
               "max_tokens": self.max_tokens, "base_url": self.base_url}
        # only when given: a run without them keeps its cache keys and settings
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        if self.thinking_budget is not None:
            out["thinking_budget"] = self.thinking_budget
        return out

    def set_reasoning(self, effort: str | None, budget: int | None) -> list[str]:
        """``reasoning_effort`` goes in the request (OpenAI; passed through to compatible servers, which vLLM
        and llama.cpp read for gpt-oss); OpenAI's reasoning models reject a temperature, so none is sent.
        ``--thinking-budget`` is for compatible servers only: the chat template's switch
        (``chat_template_kwargs: {"enable_thinking": N > 0}``, Qwen3 and the like); the number itself is not a
        limit they enforce."""
        notes: list[str] = []
        if effort is not None:
            if effort not in EFFORTS:
                raise ReasoningSettingError(f"--reasoning-effort must be one of {', '.join(EFFORTS)}; got {effort!r}")
            self.reasoning_effort = effort
            if not self.compatible and self.temperature is not None:
                notes.append(f"{self.label}: no temperature sent with --reasoning-effort {effort} (OpenAI reasoning "
                             f"models reject one; it was {self.temperature:g})")
                self.temperature = None
        if budget is not None:
            if not self.compatible:
                raise ReasoningSettingError(f"--thinking-budget is for Anthropic models and OpenAI-compatible servers "
                                            f"(their enable_thinking switch); OpenAI models take --reasoning-effort "
                                            f"{'|'.join(EFFORTS)}")
            if budget < 0:
                raise ReasoningSettingError(f"--thinking-budget must be a whole number >= 0 (0: thinking off); got {budget}")
            self.thinking_budget = budget
            notes.append(f"{self.label}: --thinking-budget {budget} sent as chat_template_kwargs.enable_thinking="
                         f"{'true' if budget else 'false'} (compatible servers switch thinking on or off; the number "
                         f"is no limit there: bound it with --max-tokens)")
        return notes

    def initial_messages(self, question: str) -> list[dict]:
        return [{"role": "user", "content": question}]

    def tool_definitions(self, tools: list[ToolSpec]) -> list[dict]:
        return to_openai_tools(tools)

    def request_body(self, system: str, messages: list[dict], tools: list[dict] | None,
                     tool_choice: str | None = None) -> dict[str, Any]:
        """The Chat Completions request body (also one line of a Batch API input file). With tools, the
        tool_choice is "auto" unless said."""
        body: dict[str, Any] = {"model": self.model,
                                "messages": [{"role": "system", "content": system}, *_echoed(messages)]}
        if self.temperature is not None:  # None (--temperature none): reasoning models reject any temperature
            body["temperature"] = self.temperature
        # OpenAI's own API wants max_completion_tokens; compatible servers still speak max_tokens.
        body["max_tokens" if self.compatible else "max_completion_tokens"] = self.max_tokens
        if self.reasoning_effort is not None:
            body["reasoning_effort"] = self.reasoning_effort
        if self.thinking_budget is not None:
            body["chat_template_kwargs"] = {"enable_thinking": self.thinking_budget > 0}
        if tools:
            body["tools"] = tools
            # "auto" said explicitly: llama-cpp-python's function-calling formats leave the tools out of the
            # prompt when a request names no tool_choice
            body["tool_choice"] = tool_choice or "auto"
        return body

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        return await self._complete(self.request_body(system, messages, tools), timeout)

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        if not self.final_turn_keeps_tools or not tools:
            # compatible servers render the tools into the prompt whatever tool_choice says (llama-cpp-python
            # with the GGUF's own template, vLLM by default): only leaving them out keeps a model from calling
            return await self._complete(self.request_body(system, messages, None), timeout)
        return await self._complete(self.request_body(system, messages, tools, "none"), timeout)

    async def _complete(self, kwargs: dict[str, Any], timeout) -> ModelReply:
        sdk = self._sdk
        if timeout:
            kwargs["timeout"] = timeout
        extra = {k: kwargs.pop(k) for k in _EXTRA_KEYS if k in kwargs}
        if extra:
            kwargs["extra_body"] = extra
        try:
            resp = await self.client.chat.completions.create(**kwargs)
        except (sdk.APIError, ValueError, TypeError) as e:  # TypeError/ValueError: an undecodable body
            err = provider_error(e, sdk, api="OpenAI", schema="Chat Completions", endpoint=self.endpoint,
                                 timeout=timeout)
            raise _reasoning_refused(err, self.reasoning_effort, self.thinking_budget) from e
        return self._cut_while_thinking(_reply(resp, compatible=self.compatible))

    def _cut_while_thinking(self, reply: ModelReply) -> ModelReply:
        """With thinking switched on (--thinking-budget N > 0), a reply cut at the token limit with no thinking
        tag and no reasoning field at all is thinking: the chat template opened <think> in the prompt (R1
        distills, QwQ, Qwen3 thinking models) and the reply ended before its </think>. It has no answer."""
        if (self.thinking_budget and reply.thinking_form is None and reply.stop_reason in LENGTH_STOPS
                and not reply.tool_calls and (reply.text or "").strip()):
            reply.reasoning, reply.text, reply.thinking_form, reply.thinking_open = reply.text, "", "tags", True
        return reply

    def reply_from_body(self, body: Any) -> ModelReply:
        """A chat.completion object as JSON (a Batch API output line's ``response.body``) as a reply."""
        if not isinstance(body, dict):
            raise ProviderError("malformed reply from the OpenAI Batch API: the body is not an object",
                                retryable=False)
        from openai.types.chat import ChatCompletion

        return _reply(ChatCompletion.construct(**body), compatible=self.compatible)  # leniently, as the SDK does

    def tool_result_messages(self, results: list[ToolResult]) -> list[dict]:
        # Chat Completions has no is_error flag: the error text itself tells the model.
        return [{"role": "tool", "tool_call_id": r.call.id,
                 "content": ("ERROR: " + r.content) if r.is_error else r.content} for r in results]

    async def aclose(self) -> None:
        await self.client.close()


def _reply(resp: Any, compatible: bool = False) -> ModelReply:
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
        raise ProviderError("malformed reply from the OpenAI endpoint: no choices[0].message", retryable=False)
    choice = choices[0]
    msg = choice.message
    calls: list[ToolCall] = []
    native_calls: list[dict] = []
    for tc in getattr(msg, "tool_calls", None) or []:
        fn = getattr(tc, "function", None)
        if fn is None:
            continue
        raw = fn.arguments
        args, err = decode_arguments(raw)
        calls.append(ToolCall(id=tc.id, name=fn.name, arguments=args, raw_arguments=raw, error=err))
        echoed = raw if isinstance(raw, str) else ""
        if compatible and (err is not None or not echoed.strip()):
            # vLLM & co. json.loads the history's arguments in their chat templates: undecodable arguments
            # would turn the next request into a 400. Echo an empty object; the error tool result tells the
            # model its JSON was invalid, and the run log keeps the raw string (tool_calls[].arguments).
            echoed = "{}"
        native_calls.append({"id": tc.id, "type": "function", "function": {"name": fn.name, "arguments": echoed}})
    content = msg.content
    native: dict[str, Any] = {"role": "assistant", "content": content}
    for key in REASONING_FIELDS:  # a reasoning parser's field (DeepSeek, llama.cpp, vLLM): kept for the record
        value = _field(msg, key)
        if isinstance(value, str) and value:
            native[key] = value
            break
    split = split_thinking(content)  # thinking tags or harmony channels in the content (no parser on the server)
    text = split.answer if split.thinking is not None else content
    if native_calls:
        native["tool_calls"] = native_calls
        if compatible and msg.content is None:
            native["content"] = ""  # llama-cpp-python answers a 500 validation error to content null
    usage = getattr(resp, "usage", None)
    reply = ModelReply(text=text, tool_calls=calls, stop_reason=choice.finish_reason,
                       assistant_message=native,
                       input_tokens=getattr(usage, "prompt_tokens", None),
                       output_tokens=getattr(usage, "completion_tokens", None))
    reported = getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None)
    if isinstance(reported, int) and not isinstance(reported, bool) and (reported > 0 or reply.has_thinking):
        reply.reasoning_tokens = reported  # a model that does not think reports 0: left out, lines unchanged
    return reply


def _field(obj: Any, key: str) -> Any:
    """A field the SDK's model does not declare (it keeps extra fields), or a dict's key."""
    if isinstance(obj, dict):
        return obj.get(key)
    value = getattr(obj, key, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(key)
    return value


def _echoed(messages: list[dict]) -> list[dict]:
    """The messages as sent: an assistant message's reasoning field goes back only with its tool calls (the
    thinking of a tool-calling turn belongs to the same answer: DeepSeek's thinking mode with tools and the
    Qwen3 templates want it; a finished turn's reasoning must not be sent again: DeepSeek's API refuses it)."""
    if not any(m.get("role") == "assistant" and any(k in m for k in REASONING_FIELDS) for m in messages):
        return messages
    out = []
    for m in messages:
        if m.get("role") == "assistant" and not m.get("tool_calls") and any(k in m for k in REASONING_FIELDS):
            m = {k: v for k, v in m.items() if k not in REASONING_FIELDS}
        out.append(m)
    return out


_REASONING_WORDS = ("reasoning", "thinking", "enable_thinking", "chat_template_kwargs")


def _reasoning_refused(err: ProviderError, effort: str | None, budget: int | None) -> ProviderError:
    """A 400 that names the reasoning setting we sent: the run stops at once (kind ``reasoning_rejected``),
    with the server's reason and the values we can send."""
    if err.status != 400 or (effort is None and budget is None):
        return err
    text = str(err).lower()
    if not any(w in text for w in _REASONING_WORDS):
        return err
    said = f"--reasoning-effort {effort}" if effort is not None else f"--thinking-budget {budget}"
    return ProviderError(f"{err} (the server refused {said}; valid --reasoning-effort values: {', '.join(EFFORTS)}, "
                         f"as the model supports; or leave the option out)", retryable=False, status=err.status,
                         kind="reasoning_rejected")
