"""The Time Agent solver (the SPAN paper's method): the model writes Python that calls ``search_calendar``
in a ```python block, the sandbox runs it (never in this process), the printed output goes back, and the
model answers. A run that fails is shown to the model with its error while code runs are left
(``max_runs``: one run plus one retry by default); a reply without a code block is the final answer —
except the first: a model that answers at once, without a program, is reminded once to write one
(``code_reminder``), and an answer given without any code having run is recorded as such
(``answered_without_code``)."""

from __future__ import annotations

import time
from typing import Any

from ..providers.base import Provider, ProviderError
from ..retry import EndpointDown
from ..sandbox import Sandbox
from .timeagent_messages import build_system_prompt, extract_code, no_code_message, result_message
from .base import LENGTH_STOPS, Outcome, Requester, direct_request

DEFAULT_MAX_RUNS = 2


class TimeAgentSolver:
    mode = "time_agent"

    def __init__(self, provider: Provider, *, sandbox: Sandbox, max_runs: int = DEFAULT_MAX_RUNS,
                 request: Requester = direct_request, timeout: float | None = None):
        self.provider = provider
        self.sandbox = sandbox
        self.max_runs = max_runs
        self.request = request
        self.timeout = timeout
        self.system = build_system_prompt(sandbox.limits)

    async def solve(self, question: str) -> Outcome:
        started = time.monotonic()
        provider = self.provider
        messages = provider.initial_messages(question)
        out = Outcome(messages=[{"role": "system", "content": self.system}], code_reminder=False)
        runs = 0
        try:
            while True:
                out.turns += 1
                reply, retries = await self.request(
                    lambda: provider.generate(self.system, messages, None, self.timeout))
                out.retries += retries
                out.add_usage(reply)
                messages.append(reply.assistant_message)
                out.provider_stop_reason = reply.stop_reason
                code = extract_code(reply.text)
                if code is None and out.turns == 1:
                    # the paper's agent always writes a program: a first reply without one is reminded once
                    out.code_reminder = True
                    messages.append({"role": "user", "content": no_code_message()})
                    continue
                if code is None:
                    out.final_answer = reply.text or ""
                    out.stop_reason = "max_tokens" if reply.stop_reason in LENGTH_STOPS else "answered"
                    out.answered_without_code = not out.code_runs
                    break
                if runs >= self.max_runs:
                    out.stop_reason = "max_turns"  # still writing code when the runs are spent
                    out.final_answer = reply.text
                    break
                result = await self.sandbox.run(code)
                runs += 1
                out.code_runs.append({"turn": out.turns, "code": code, **result.as_dict()})
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

    def describe(self) -> dict[str, Any]:
        return {"kind": self.sandbox.kind, "isolation": self.sandbox.isolation,
                "limits": self.sandbox.limits.as_dict(), "max_runs": self.max_runs}
