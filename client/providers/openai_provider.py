"""OpenAI Chat Completions adapter: ``openai/<model>`` and ``openai-compatible/<model>`` (vLLM, Ollama,
llama.cpp ``llama-server``, LM Studio — anything serving ``/v1/chat/completions``)."""

from __future__ import annotations

from typing import Any

from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec, decode_arguments
from .errors import provider_error


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

    def config(self) -> dict:
        return {"label": self.label, "is_llm": True, "api": "chat.completions", "temperature": self.temperature,
                "max_tokens": self.max_tokens, "base_url": self.base_url}

    def initial_messages(self, question: str) -> list[dict]:
        return [{"role": "user", "content": question}]

    def tool_definitions(self, tools: list[ToolSpec]) -> list[dict]:
        return to_openai_tools(tools)

    def request_body(self, system: str, messages: list[dict], tools: list[dict] | None,
                     tool_choice: str | None = None) -> dict[str, Any]:
        """The Chat Completions request body (also one line of a Batch API input file). With tools, the
        tool_choice is "auto" unless said."""
        body: dict[str, Any] = {"model": self.model, "messages": [{"role": "system", "content": system}, *messages]}
        if self.temperature is not None:  # None (--temperature none): reasoning models reject any temperature
            body["temperature"] = self.temperature
        # OpenAI's own API wants max_completion_tokens; compatible servers still speak max_tokens.
        body["max_tokens" if self.compatible else "max_completion_tokens"] = self.max_tokens
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
        try:
            resp = await self.client.chat.completions.create(**kwargs)
        except (sdk.APIError, ValueError, TypeError) as e:  # TypeError/ValueError: an undecodable body
            raise provider_error(e, sdk, api="OpenAI", schema="Chat Completions", endpoint=self.endpoint,
                                 timeout=timeout) from e
        return _reply(resp, compatible=self.compatible)

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
    native: dict[str, Any] = {"role": "assistant", "content": msg.content}
    if native_calls:
        native["tool_calls"] = native_calls
        if compatible and msg.content is None:
            native["content"] = ""  # llama-cpp-python answers a 500 validation error to content null
    usage = getattr(resp, "usage", None)
    return ModelReply(text=msg.content, tool_calls=calls, stop_reason=choice.finish_reason,
                      assistant_message=native,
                      input_tokens=getattr(usage, "prompt_tokens", None),
                      output_tokens=getattr(usage, "completion_tokens", None))
