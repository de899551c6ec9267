"""The paper's Time Agent as an inspect solver: the model writes Python calling ``search_calendar`` in a
```python block, the ``span`` sandbox runs it (never this process), the printed output goes back as the
next user message, and a reply without a code block is the answer. The prompts and messages are the
ones ``span-client eval --time-agent`` uses (``client.solvers.timeagent_messages``); at most ``max_runs`` programs run
(one run plus one retry by default), and a reply still holding code after that is the answer as written.

Every run is an inspect sandbox event (``inspect view`` shows the program and its output); the detailed
results (exit reason, limits, isolation) are kept in the sample store under ``span_code_runs``."""

from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import sandbox

from ._client import timeagent
from .sandbox import SpanSandboxEnvironment

DEFAULT_MAX_RUNS = 2


@solver
def time_agent(max_runs: int = DEFAULT_MAX_RUNS) -> Solver:
    if max_runs < 1:
        raise ValueError(f"max_runs must be at least 1, got {max_runs}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        box = sandbox()
        span_box = box.as_type(SpanSandboxEnvironment)
        limits = span_box.pool.limits
        state.messages = [m for m in state.messages if not isinstance(m, ChatMessageSystem)]
        state.messages.insert(0, ChatMessageSystem(content=timeagent.build_system_prompt(limits)))
        runs: list[dict] = []
        stop = "answered"
        turn = 0
        while True:
            turn += 1
            state = await generate(state, tool_calls="none")
            if state.completed:
                stop = "limit"
                break
            code = timeagent.extract_code(state.output.completion)
            if code is None:
                break
            if len(runs) >= max_runs:
                stop = "max_turns"  # still writing code when the runs are spent
                break
            await box.exec(["python3", "-"], input=code)  # through inspect: logged as a sandbox event
            result = span_box.runs[-1]
            runs.append({"turn": turn, "code": code, **result.as_dict()})
            state.messages.append(ChatMessageUser(content=timeagent.result_message(
                result, turns_left=max_runs - len(runs), limits=limits)))
        state.store.set("span_code_runs", runs)
        state.store.set("span_stop_reason", stop)
        return state

    return solve
