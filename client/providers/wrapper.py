"""A provider standing in front of another: everything is the wrapped provider's except what a subclass
overrides (``generate`` and ``generate_without_tools``, for the response cache, the meter and the Batch
API)."""

from __future__ import annotations

from typing import Any

from .base import ModelReply, Provider


class WrappedProvider(Provider):
    def __init__(self, inner: Provider):
        self.inner = inner
        self.label = inner.label
        self.is_llm = inner.is_llm
        self.final_turn_keeps_tools = inner.final_turn_keeps_tools

    def __getattr__(self, name: str) -> Any:  # model, base_url, client, request_body … (pre-flight, batches)
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    def initial_messages(self, question: str) -> list[dict]:
        return self.inner.initial_messages(question)

    def tool_definitions(self, tools):
        return self.inner.tool_definitions(tools)

    def tool_result_messages(self, results):
        return self.inner.tool_result_messages(results)

    def config(self) -> dict:
        # the same settings as the wrapped provider: run.json and a resume do not change with a wrapper
        return self.inner.config()

    def set_reasoning(self, effort, budget) -> list[str]:
        return self.inner.set_reasoning(effort, budget)

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        return await self.inner.generate(system, messages, tools, timeout)

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        return await self.inner.generate_without_tools(system, messages, tools, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()
