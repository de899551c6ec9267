"""The Time Agent solver (the SPAN paper's method): the model writes Python that calls ``search_calendar``
in a ```python block, the sandbox runs it (never in this process), the printed output goes back, and the
model answers. A run that fails is shown to the model with its error while code runs are left
(``max_runs``: one run plus one retry by default); a reply without a code block is the final answer —
except the first: a model that answers at once, without a program, is reminded once to write one
(``code_reminder``), and an answer given without any code having run is recorded as such
(``answered_without_code``).

A model that never stops writing code gets no verdict from its programs: a program identical to one already
run is not run again (``repeats_caught``; its earlier result is shown); when the runs are spent, or at the
second repeat, one last request asks for the answer with no program run (``final_turn``: "max_turns" |
"repeats"), and a program in reply to it is no answer (``stop_reason`` "max_turns", ``final_answer`` None),
never the program's text. Programs and answers are read from the reply's answer part only, never from its
thinking (client.providers.thinking)."""

from __future__ import annotations

import time
from typing import Any

from ..providers.base import Provider, ProviderError
from ..retry import EndpointDown
from ..sandbox import Sandbox
from .timeagent_messages import (build_system_prompt, extract_code, final_turn_message, format_execution,
                                 no_code_message, program_key, repeat_message, result_message)
from .base import Outcome, Requester, direct_request

DEFAULT_MAX_RUNS = 2
MAX_REPEATS = 2  # programs identical to one already run, before the last request without code


class TimeAgentSolver:
    mode = "time_agent"

    def __init__(self, provider: Provider, *, sandbox: Sandbox, max_runs: int = DEFAULT_MAX_RUNS,
                 request: Requester = direct_request, timeout: float | None = None, max_repeats: int = MAX_REPEATS,
                 keep_thinking: bool = True):
        self.provider = provider
        self.keep_thinking = keep_thinking  # False (--drop-thinking): the record keeps no thinking text
        self.max_repeats = max_repeats
        self.sandbox = sandbox
        self.max_runs = max_runs
        self.request = request
        self.timeout = timeout
        self.system = build_system_prompt(sandbox.limits)

    async def solve(self, question: str) -> Outcome:
        started = time.monotonic()
        provider = self.provider
        messages = provider.initial_messages(question)
        out = Outcome(messages=[{"role": "system", "content": self.system}], code_reminder=False, repeats_caught=0,
                      keep_thinking_text=self.keep_thinking)
        runs = 0
        made: dict[str, tuple[int, str]] = {}  # a program (normalised) -> (turn it ran in, the result shown)
        try:
            while True:
                out.turns += 1
                final = out.final_turn is not None
                reply, retries = await self.request(
                    lambda: provider.generate(self.system, messages, None, self.timeout))
                out.retries += retries
                out.add_usage(reply)
                messages.append(reply.assistant_message)
                out.provider_stop_reason = reply.stop_reason
                if reply.thinking_cut:  # no answer, and no program: the reply ended inside its thinking
                    out.take_answer(reply)
                    break
                code = extract_code(reply.text)  # the answer part only: a program inside the thinking never runs
                if final:
                    if code is None:
                        out.take_answer(reply)
                        out.answered_without_code = not out.code_runs
                    else:  # a program again, even now: never an answer (its literals are not a verdict)
                        out.stop_reason, out.final_answer = "max_turns", None
                        out.notes.append(f"turn {out.turns}: the reply to the last request (no more code runs) was "
                                         f"a program again: no answer")
                    break
                if code is None and out.turns == 1:
                    # the paper's agent always writes a program: a first reply without one is reminded once
                    out.code_reminder = True
                    messages.append({"role": "user", "content": no_code_message()})
                    continue
                if code is None:
                    out.take_answer(reply)
                    out.answered_without_code = not out.code_runs
                    break
                key = program_key(code)
                repeated = key in made  # the same program again: not run again (as the tools arm's repeated calls)
                if repeated:
                    out.repeats_caught += 1
                    out.notes.append(f"turn {out.turns}: the program of turn {made[key][0]} again, not run again")
                if runs >= self.max_runs:  # still writing code when the runs are spent: one last request
                    self._final_turn(out, messages, "max_turns")
                    continue
                if out.repeats_caught >= self.max_repeats:
                    self._final_turn(out, messages, "repeats")
                    continue
                if repeated:
                    messages.append({"role": "user", "content": repeat_message(*made[key])})
                    continue
                result = await self.sandbox.run(code)
                runs += 1
                out.code_runs.append({"turn": out.turns, "code": code, **result.as_dict()})
                made[key] = (out.turns, format_execution(result, self.sandbox.limits))
                messages.append({"role": "user", "content": result_message(
                    result, turns_left=self.max_runs - runs, limits=self.sandbox.limits)})
        except ProviderError as e:
            out.stop_reason, out.error, out.final_answer = "error", str(e), None
            out.error_kind = getattr(e, "kind", None)
            out.error_status, out.error_retryable = getattr(e, "status", None), e.retryable
            out.retries += getattr(e, "retries", 0)
        except EndpointDown:
            raise
        except Exception as e:  # noqa: BLE001 - a bug is this instance's error, never an answer
            out.stop_reason, out.error, out.final_answer = "error", f"internal error: {e.__class__.__name__}: {e}", None
        out.messages.extend(messages)
        out.latency_s = round(time.monotonic() - started, 4)
        return out

    def _final_turn(self, out: Outcome, messages: list[dict], why: str) -> None:
        """One last request in which no program will run (prompts/time_agent_final_turn.md)."""
        out.final_turn = why
        messages.append({"role": "user", "content": final_turn_message(self.max_runs)})
        out.notes.append(f"turn {out.turns}: " + (f"{out.repeats_caught} programs repeated" if why == "repeats"
                                                  else f"all {self.max_runs} code runs used")
                         + "; one last request for the answer, no code run")

    def describe(self) -> dict[str, Any]:
        return {"kind": self.sandbox.kind, "isolation": self.sandbox.isolation,
                "limits": self.sandbox.limits.as_dict(), "max_runs": self.max_runs}
