"""The chat solver: one instance, unaided (bare) or with the MCP tools, through any provider.

Loop: ask the model; if it requests tools, run each distinct call through MCP (unknown tool names,
undecodable arguments and tool failures all become *error results the model can read*), send the results
back, and ask again — until the model answers without tool calls (``answered``), or a request fails for
good (``error``; never turned into an answer).

The loop guard: a call identical to one already made in this instance (same tool, same arguments) is not
run again; its result tells the model it already has that result and should answer. At the second such
repeat, or when ``max_turns`` requests with tools have been made, the client makes **one last request
without tools** (the provider's ``tool_choice: "none"`` where its API has one, else the tools left out; with
``tool_calls="text"`` the tools-in-prompt text is replaced by the instruction to answer) and takes that
reply as the answer — unless it is itself a tool call, which is never an answer (``max_turns``). So a
model that repeats one call forever is judged after at most four requests, and an instance never ends
without an answer merely because its turns ran out.

Tool calls arrive natively (the provider's tool-call field) or, from open models served without a tool
parser, written in the reply text (:mod:`client.textcalls`); ``tool_calls`` = auto | native | text says
which are honoured. With ``text`` the tools are described in the system prompt instead of the API's
``tools`` field (for servers whose chat template drops them), and only text calls count. A reply that is
nothing but tool calls is never taken as the answer.

A thinking model's thinking (``<think>``, a reasoning field, Anthropic thinking blocks: client.providers.thinking)
is never read for calls or taken as the answer: ``reply.text`` is the answer part alone, so a call the model
only considered while thinking is never run, and a reply cut off while thinking has no answer."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from span_toolkit import prompts
from ..mcp_tools import MCPConnectionError, MCPTools
from ..providers.base import ModelReply, Provider, ProviderError, ToolCall, ToolResult
from ..retry import EndpointDown
from ..textcalls import parse_text_calls, render_text_results
from .base import Outcome, Requester, direct_request

TOOL_CALL_MODES = ("auto", "native", "text")
MAX_CALLS_PER_TURN = 8
MAX_REPEATS = 2  # repeated calls an instance may make before its final request without tools
PROMPT_REPEAT = "tool_repeat.md"
PROMPT_FINAL_TURN = "tools_final_turn.md"
REPEAT_ERROR_MARKER = "=== AFTER AN ERROR ==="
REPEAT_RESULT_CHARS = 1500  # of the earlier result shown again with a repeat
_FINAL_LINE = re.compile(r"final\s+answer\s*\**\s*:", re.I)


def _call_key(call: ToolCall) -> str:
    args = call.arguments if call.arguments is not None else call.raw_arguments
    return call.name + "\0" + json.dumps(args, sort_keys=True, default=str)


def dedupe_calls(calls: list[ToolCall], cap: int = MAX_CALLS_PER_TURN) -> tuple[list[ToolCall], int, int]:
    """(the distinct calls in order, at most ``cap``; how many repeats were dropped; how many over the cap)."""
    seen: set[str] = set()
    kept: list[ToolCall] = []
    repeats = over = 0
    for c in calls:
        key = _call_key(c)
        if key in seen:
            repeats += 1
        elif len(kept) >= cap:
            over += 1
        else:
            seen.add(key)
            kept.append(c)
    return kept, repeats, over


class ChatSolver:
    """``await ChatSolver(provider, system=..., tools=mcp_or_None).solve(question) -> Outcome``."""

    def __init__(self, provider: Provider, *, system: str, tools: MCPTools | None = None, max_turns: int = 8,
                 request: Requester = direct_request, timeout: float | None = None, tool_calls: str = "auto",
                 max_calls_per_turn: int = MAX_CALLS_PER_TURN, max_repeats: int = MAX_REPEATS,
                 keep_thinking: bool = True):
        if tool_calls not in TOOL_CALL_MODES:
            raise ValueError(f"tool_calls must be one of {', '.join(TOOL_CALL_MODES)}, got {tool_calls!r}")
        self.provider = provider
        self.keep_thinking = keep_thinking  # False (--drop-thinking): the record keeps no thinking text
        self.system = system
        self.tools = tools
        self.max_turns = max_turns
        self.request = request
        self.timeout = timeout
        self.tool_call_mode = tool_calls
        self.max_calls_per_turn = max_calls_per_turn
        self.max_repeats = max_repeats
        self.mode = "with_tools" if tools is not None else "unaided"
        self._defs = provider.tool_definitions(tools.tools) if tools is not None else None
        self._known = {t.name for t in tools.tools} if tools is not None else set()
        self._final_instruction = prompts.load(PROMPT_FINAL_TURN).strip()
        # the final turn keeps the system prompt (a cached prefix stays valid) unless the tools are in it
        self._final_system = system
        if tools is not None and tool_calls == "text":
            # calls only in the text: the tools are described in the system prompt (Hermes style), not sent
            # through the API, whose tools many chat templates drop without a word
            self.system = system + "\n\n" + tools_in_prompt(tools.tools)
            self._final_system = system + "\n\n" + self._final_instruction
            self._defs = None
        # what every request repeats (for the prompt-size figure)
        self._fixed_chars = len(self.system) + _defs_chars(self._defs)
        self._final_fixed_chars = len(self._final_system) + (
            _defs_chars(self._defs) if getattr(provider, "final_turn_keeps_tools", False) else 0)

    async def solve(self, question: str) -> Outcome:
        started = time.monotonic()
        provider = self.provider
        messages = provider.initial_messages(question)
        out = Outcome(messages=[{"role": "system", "content": self.system}], keep_thinking_text=self.keep_thinking)
        if self.tools is not None:
            out.repeats_caught = 0
        made: dict[str, tuple[int, str, bool]] = {}  # call key -> (turn, the result shown, whether an error)
        try:
            while True:
                out.turns += 1
                final = out.final_turn is not None
                fixed = self._final_fixed_chars if final else self._fixed_chars
                out.prompt_chars += fixed + len(
                    json.dumps(messages, separators=(",", ":"), ensure_ascii=False, default=str))
                if final:
                    reply, retries = await self.request(lambda: provider.generate_without_tools(
                        self._final_system, messages, self._defs, self.timeout))
                else:
                    reply, retries = await self.request(
                        lambda: provider.generate(self.system, messages, self._defs, self.timeout))
                out.retries += retries
                out.add_usage(reply)
                messages.append(reply.assistant_message)
                out.provider_stop_reason = reply.stop_reason
                if final:
                    if self._is_a_call(reply):
                        out.stop_reason = "max_turns"  # a call, even now: never an answer
                        out.notes.append(f"turn {out.turns}: the reply to the final request without tools was "
                                         f"a tool call again, not an answer")
                    else:
                        out.take_answer(reply)  # the answer part only; none when cut off while thinking
                    break
                calls, form, problems, note = self._calls_of(reply)
                if note:
                    out.notes.append(f"turn {out.turns}: {note}")
                if not calls and not problems:
                    out.take_answer(reply)
                    break
                kept, repeats, over = dedupe_calls(calls, self.max_calls_per_turn)
                if repeats or over:
                    out.notes.append(f"turn {out.turns}: {len(calls)} {form} calls, ran {len(kept)} distinct"
                                     + (f", {repeats} repeats dropped" if repeats else "")
                                     + (f", {over} over the cap of {self.max_calls_per_turn} dropped" if over else ""))
                results, problems, caught = await self._answer_calls(kept, problems, made, out.turns, form, out)
                messages.extend(self._result_messages(form, results, problems))
                if caught:
                    out.repeats_caught += caught
                    out.notes.append(f"turn {out.turns}: {caught} call(s) identical to an earlier one, not run again")
                if out.repeats_caught >= self.max_repeats:
                    out.final_turn = "repeats"
                elif out.turns >= self.max_turns:
                    out.final_turn = "max_turns"
                if out.final_turn is not None:
                    provider.add_user_text(messages, self._final_instruction)
                    out.notes.append(f"turn {out.turns}: " + (
                        f"{out.repeats_caught} repeated calls" if out.final_turn == "repeats"
                        else f"--max-turns {self.max_turns} reached") + "; one last request without tools")
        except ProviderError as e:
            out.stop_reason = "error"
            out.error = str(e)
            out.error_kind = getattr(e, "kind", None)
            out.final_answer = None
            out.error_status = getattr(e, "status", None)
            out.error_retryable = e.retryable
            out.retries += getattr(e, "retries", 0)
        except MCPConnectionError as e:
            out.stop_reason = "error"
            out.error = str(e)
            out.error_kind = "mcp"
            out.final_answer = None
        except EndpointDown:
            raise  # the run's failure, not this instance's: the runner stops
        except Exception as e:  # noqa: BLE001 - a bug or unexpected failure is this instance's error, not an answer
            out.stop_reason = "error"
            out.error = f"internal error: {e.__class__.__name__}: {e}"
            out.final_answer = None
        out.messages.extend(messages)
        out.latency_s = round(time.monotonic() - started, 4)
        return out

    async def _answer_calls(self, kept: list[ToolCall], problems: list[dict], made: dict[str, tuple[int, str, bool]],
                            turn: int, form: str, out: Outcome) -> tuple[list[ToolResult], list[dict], int]:
        """Run the calls not made before in this instance; answer the repeats (and repeated unusable attempts)
        with their earlier result instead. Returns (results in call order, problems, repeats caught)."""
        fresh = [c for c in kept if _call_key(c) not in made]
        ran = iter(await asyncio.gather(*(self._run_call(c) for c in fresh)))
        results: list[ToolResult] = []
        caught = 0
        for call in kept:
            key = _call_key(call)
            if key in made:
                caught += 1
                results.append(ToolResult(call=call, content=repeat_text(*made[key]), is_error=False))
                continue
            res, record = next(ran)
            record["turn"] = turn
            record["form"] = form
            out.tool_calls.append(record)
            made[key] = (turn, res.content, res.is_error)
            results.append(res)
        answered = []
        for p in problems:
            key = "\0unusable\0" + str(p.get("name")) + "\0" + str(p.get("text"))
            if key in made:
                caught += 1
                answered.append({**p, "error": p["error"] + f" (You sent this same call in turn {made[key][0]}.)"})
                continue
            made[key] = (turn, p["error"], True)
            out.tool_calls.append({"id": None, "name": p.get("name"), "arguments": p.get("text"),
                                   "result": p["error"], "is_error": True, "turn": turn,
                                   "form": p.get("form", "text:unparsed"), "unusable": True})
            answered.append(p)
        return results, answered, caught

    # ------------------------------------------------------------------------------------------ calls
    def _is_a_call(self, reply: ModelReply) -> bool:
        """Whether a reply to the final request (no tools) is a tool call after all: a native call, or a call
        written in the text (in any tool-call mode) with no "Final answer:" line after it."""
        if reply.tool_calls:
            return True
        text = reply.text or ""
        parsed = parse_text_calls(text, self._known, max_calls=self.max_calls_per_turn)
        if not parsed.found:
            return False
        last = max(x.position for x in [*parsed.calls, *parsed.unparsed])
        return not _FINAL_LINE.search(text, last)

    def _calls_of(self, reply: ModelReply) -> tuple[list[ToolCall], str, list[dict], str | None]:
        """(calls, their form, unusable call attempts, a note on what was left out)."""
        if reply.tool_calls:
            if self.tool_call_mode == "text":
                return [], "native", [], None
            return reply.tool_calls, "native", [], None
        if self.tools is None or self.tool_call_mode == "native" or not reply.text:
            return [], "native", [], None
        parsed = parse_text_calls(reply.text, self._known, max_calls=self.max_calls_per_turn)
        calls = [ToolCall(id=f"text_{i}", name=c.name, arguments=c.arguments) for i, c in enumerate(parsed.calls)]
        problems = [{"name": p.name, "text": p.text, "error": p.error, "form": p.form} for p in parsed.unparsed]
        form = parsed.calls[0].form if parsed.calls else (parsed.unparsed[0].form if parsed.unparsed else "text")
        return calls, form, problems, parsed.note()

    def _result_messages(self, form: str, results: list[ToolResult], problems: list[dict]) -> list[dict]:
        if form == "native":  # text attempts are only parsed when a reply has no native calls
            return self.provider.tool_result_messages(results)
        return [{"role": "user", "content": render_text_results(form, results, problems)}]

    async def _run_call(self, call: ToolCall) -> tuple[ToolResult, dict]:
        record: dict[str, Any] = {"id": call.id, "name": call.name,
                                  "arguments": call.arguments if call.arguments is not None else call.raw_arguments,
                                  "result": None, "is_error": True}
        if call.error:
            text = f"Invalid arguments for tool {call.name!r}: {call.error}. Send the arguments as one JSON object."
        elif self.tools is None:
            text = f"No tools are available in this conversation (the model asked for {call.name!r})."
        elif call.name not in self._known:
            text = f"Unknown tool {_clip(call.name)!r}. Available tools: {', '.join(sorted(self._known))}."
        else:
            text, is_error, structured = await self.tools.call(call.name, call.arguments)
            record["is_error"] = is_error
            record["result"] = structured if structured is not None else text
            return ToolResult(call=call, content=text, is_error=is_error, structured=structured), record
        record["result"] = text
        return ToolResult(call=call, content=text, is_error=True), record


def tools_in_prompt(tools: list) -> str:
    """The tool descriptions for a model that calls tools in its text (prompts/tools_in_prompt.md)."""
    lines = "\n".join(json.dumps({"name": t.name, "description": t.description, "parameters": t.input_schema},
                                 ensure_ascii=False, separators=(",", ":")) for t in tools)
    return prompts.load("tools_in_prompt.md").replace("<<TOOLS>>", lines).strip()


def repeat_text(turn: int, result: str, is_error: bool = False) -> str:
    """What a call the model already made in ``turn`` gets instead of running again (prompts/tool_repeat.md:
    its earlier result, and "answer now" — or, after an error, "change the arguments or answer")."""
    ok, _, failed = prompts.load(PROMPT_REPEAT).partition(REPEAT_ERROR_MARKER)
    shown = result if len(result) <= REPEAT_RESULT_CHARS else result[:REPEAT_RESULT_CHARS - 1] + "…"
    return (failed if is_error else ok).replace("<<TURN>>", str(turn)).replace("<<RESULT>>", shown).strip()


def _defs_chars(defs: list[dict] | None) -> int:
    return len(json.dumps(defs, separators=(",", ":"), ensure_ascii=False)) if defs else 0


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
