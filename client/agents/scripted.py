"""Scripted models: offline agents that are *not* LLMs (so they live here, not in client.providers, which holds
the LLM APIs). They stand where a model would, behind the provider interface, so they run through the very
same solvers (prompt, tool loop, scoring) as a real model.

* ``reference`` — a deterministic agent that reads a SPAN question with ``span.benchmark.parse_question``
  and answers it **only** from the MCP tools' results: ``date_arithmetic`` for date questions,
  ``search_calendar`` for festival questions, and for polar questions a comparison of the tool's date with
  the question's expected date. It proves the tools suffice for every instance.
* ``reference-code`` — the same for the Time Agent: it writes Python calling ``search_calendar`` (from the
  parsed question, never the instance's code or gold), the sandbox runs it, it answers with what was printed.
* ``baseline`` — a trivial unaided answerer that shows the floor: "Yes" to every polar question and the
  question's reference date copied as the answer to every content question (ordering: the items as
  written; duration: 0 days).

Their conversation uses a neutral message format (user / assistant with ``tool_calls`` / tool).
"""

from __future__ import annotations

import uuid

from span_toolkit.span.benchmark import family_of, parse_question

from ..solvers import timeagent_messages as messages_of_time_agent
from ..providers.base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec


def _question(messages: list[dict]) -> str:
    for m in messages:
        if m.get("role") == "user":
            return m["content"]
    raise ProviderError("offline agent: no question in the conversation", retryable=False)


def _parse(question: str):
    try:
        return parse_question(question)
    except Exception as e:  # noqa: BLE001 - any parse failure is this instance's error, never an answer
        raise ProviderError(f"offline agent could not parse the question: {e}", retryable=False) from e


class _Offline(Provider):
    is_llm = False
    mode = ""   # the one arm the agent answers in (unaided | with_tools | time_agent)
    needs = ""  # what to say when it is run in another arm

    def initial_messages(self, question: str) -> list[dict]:
        return [{"role": "user", "content": question}]

    def tool_definitions(self, tools: list[ToolSpec]) -> list[dict]:
        return [{"name": t.name} for t in tools]

    def tool_result_messages(self, results: list[ToolResult]) -> list[dict]:
        return [{"role": "tool", "tool_call_id": r.call.id, "content": r.content, "is_error": r.is_error,
                 "structured": r.structured} for r in results]

    def config(self) -> dict:
        return {"label": self.label, "is_llm": False, "description": self.description}

    @staticmethod
    def _final(text: str) -> ModelReply:
        return ModelReply(text=text, tool_calls=[], stop_reason="end_turn",
                          assistant_message={"role": "assistant", "content": text})


class ReferenceAgent(_Offline):
    label = "reference"
    mode = "with_tools"
    needs = "answers only by calling the MCP tools: add --with-tools"
    description = ("deterministic offline reference agent (not an LLM): parses the question and answers "
                   "only from the MCP tools' results")

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        if not tools:
            raise ProviderError("the reference agent answers only through the MCP tools; run it with --with-tools",
                                retryable=False)
        offered = {t["name"] for t in tools}
        q = _parse(_question(messages))
        family = family_of(q)
        try:
            calls = family.reference_calls(q)
        except ValueError as e:
            raise ProviderError(f"reference agent: {e}", retryable=False) from e
        results = [m for m in messages if m.get("role") == "tool"]
        if not results:
            return self._calls([ToolCall(id="ref_" + uuid.uuid4().hex[:12], name=c["name"], arguments=c["arguments"])
                                for c in calls], offered)
        last = results[-len(calls):]
        failed = next((r for r in last if r.get("is_error")), None)
        if failed is not None:
            raise ProviderError(f"reference agent: tool call failed: {failed['content']}", retryable=False)
        try:
            return self._final(family.reference_answer(q, [r.get("structured") for r in last]))
        except (ValueError, KeyError, TypeError) as e:
            raise ProviderError(f"reference agent: {e}", retryable=False) from e

    @staticmethod
    def _calls(calls: list[ToolCall], offered: set[str]) -> ModelReply:
        """A reply asking for ``calls`` (each must be a tool the server offers)."""
        missing = sorted({c.name for c in calls} - offered)
        if missing:
            raise ProviderError(f"reference agent: the server offers no {missing[0]!r} tool", retryable=False)
        return ModelReply(text=None, tool_calls=calls, stop_reason="tool_use",
                          assistant_message={"role": "assistant", "content": None, "tool_calls": [
                              {"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]})


class BaselineAgent(_Offline):
    label = "baseline"
    mode = "unaided"
    needs = "is the unaided floor and never calls tools: drop --with-tools/--time-agent"
    description = ("trivial offline baseline (not an LLM): answers 'Yes' to every polar question and copies "
                   "the question's reference date as the answer to every content question")

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        q = _parse(_question(messages))
        return self._final(family_of(q).baseline_answer(q))


class ReferenceCodeAgent(_Offline):
    label = "reference-code"
    mode = "time_agent"
    needs = "answers only by writing code for the sandbox: add --time-agent"
    description = ("deterministic offline code-writing agent (not an LLM): parses the question, writes Python "
                   "that calls search_calendar, and answers from what the sandbox printed")

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        question = _question(messages)
        users = [m for m in messages if m.get("role") == "user"]
        if len(users) == 1:
            try:
                code = program_for(question)
            except Exception as e:  # noqa: BLE001 - a question it cannot read is this instance's error
                raise ProviderError(f"reference-code agent could not write code: {e}", retryable=False) from e
            return self._final("```python\n" + code + "```")
        stdout = messages_of_time_agent.stdout_from_message(users[-1]["content"])
        if not stdout.strip():
            raise ProviderError(f"reference-code agent: its program failed: {users[-1]['content'][:300]}",
                                retryable=False)
        return self._final(final_answer(stdout))


def program_for(question: str) -> str:
    """The reference-code agent's program for a question, written from the question text alone."""
    q = parse_question(question)
    return family_of(q).reference_program(q)


def final_answer(stdout: str) -> str:
    """The scripted code agent's final reply: the last line its program printed."""
    lines = [ln.strip() for ln in (stdout or "").splitlines() if ln.strip()]
    if not lines:
        raise ValueError("the program printed nothing, so there is no answer to give")
    return f"Final answer: {lines[-1]}"


SCRIPTED = {"reference": ReferenceAgent, "reference-code": ReferenceCodeAgent, "baseline": BaselineAgent}


def make(name: str) -> Provider:
    return SCRIPTED[name]()
