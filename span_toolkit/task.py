"""``inspect eval span_toolkit/span``: the SPAN benchmark as an inspect_ai task.

    inspect eval span_toolkit/span -T date=2025-07-01 -T mode=tools --model span/reference --limit 5

Modes, as in ``span-client eval``: ``unaided`` (the bare model), ``tools`` (the calendar tools of
``span-server`` through inspect's MCP support, over stdio), ``time_agent`` (the paper's Time Agent: the
model writes Python, the ``span`` sandbox runs it). The system prompts are the project's own
(``prompts/``); the scorer is the project's judges (:mod:`span_toolkit.scorer`)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from span_toolkit import prompts
from inspect_ai import Task, task
from inspect_ai.model import ChatMessageSystem
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver, use_tools
from inspect_ai.util import SandboxEnvironmentSpec

from ._client import EVAL_TOOLS, SANDBOX_KINDS
from span_toolkit.span import benchmark

from .dataset import date_spec, instances, span_dataset
from .sandbox import SpanSandboxConfig
from .scorer import span_judge
from .timeagent import DEFAULT_MAX_RUNS, time_agent

MODES = ("unaided", "tools", "time_agent")
DEFAULT_MAX_TURNS = 8  # tool turns, as span-client eval --with-tools


@solver
def system_prompt(text: str) -> Solver:
    """Put ``text`` first as the system message, verbatim (inspect's system_message() would treat braces
    in it as template fields)."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = [ChatMessageSystem(content=text)] + [
            m for m in state.messages if not isinstance(m, ChatMessageSystem)]
        return state

    return solve


def server_command() -> tuple[str, list[str]]:
    """How to start span-server over stdio: the console script installed beside this interpreter (a venv
    need not be on PATH), else the one on PATH, else this interpreter running the server module."""
    here = Path(sys.executable).parent / ("span-server.exe" if os.name == "nt" else "span-server")
    if here.is_file():
        return str(here), []
    found = shutil.which("span-server")
    if found:
        return found, []
    return sys.executable, ["-m", "span_toolkit.server"]


def calendar_tools(tools: Any = None) -> Any:
    from inspect_ai.tool import mcp_server_stdio, mcp_tools

    command, args = server_command()
    # the stdio client passes only a default environment: keep a PYTHONPATH the eval runs with, so the
    # server is the same code as the client
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    server = mcp_server_stdio(name="span-server", command=command, args=args, env=env)
    names = "all" if tools == "all" else list(EVAL_TOOLS if tools is None else
                                               ([tools] if isinstance(tools, str) else tools))
    return mcp_tools(server, tools=names)


@task
def span(date: Any = None, mode: str = "unaided", sample: int | None = None, seed: int = 0,
         polar_negatives: bool = False, date_formats: bool = False, extended: bool = False,
         families: Any = None, calendars: Any = None, islamic_convention: str = "tabular", instances_file: str | None = None, max_turns: int | None = None,
         tools: Any = None, sandbox: str = "auto", judge_model: str | None = None) -> Task:
    """SPAN cross-calendar temporal reasoning (Miao et al.), generated fresh for any evaluation date.

    Args:
        date: evaluation date(s): 2025-07-01, a comma list, START..END[/STEP], or 'paper' (the 21 dates).
        mode: unaided | tools (the MCP calendar tools) | time_agent (code in the span sandbox).
        sample: a stratified sample of N instances instead of all.
        seed: seed for sample and polar_negatives.
        polar_negatives: half of the polar questions get a near-miss date (gold "No").
        date_formats: also every instance with its reference date in other written formats.
        extended: add the ordering and duration tasks (344 per date): shorthand for families=paper,extended.
        families: task families, comma-separated (default paper; span.benchmark.FAMILY_MODULES lists them).
        calendars: the non-Gregorian calendars of the paper's questions (default: the paper's five).
        islamic_convention: tabular (the paper's) or umm_al_qura.
        instances_file: a JSONL file from `span-client generate` instead of date.
        max_turns: tool turns (tools, default 8) or program runs (time_agent, default 2).
        tools: tool names to offer (default: search_calendar, date_arithmetic, list_calendars; 'all').
        sandbox: auto | bwrap | namespaces | unsafe-process, the isolation of the Time Agent's programs
            (client.sandbox; auto refuses to run where neither bubblewrap nor namespaces work).
        judge_model: an inspect model for the paper's LLM judge (then primary; rules judge beside it).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if sandbox not in SANDBOX_KINDS:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, got {sandbox!r}")
    if max_turns is not None and int(max_turns) < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    if instances_file:
        items = instances(instances_file=instances_file, date=date, sample=sample, seed=seed)
    else:  # the task's one GenerationRequest (seeded only where a seed matters: the paper's protocol stays exact)
        request = benchmark.GenerationRequest(
            families=families if families is not None else "paper", islamic_convention=islamic_convention,
            **({"calendars": calendars} if calendars is not None else {}), polar_negatives=bool(polar_negatives),
            date_formats=bool(date_formats), sample=sample,
            seed=seed if (polar_negatives or date_formats or sample is not None) else 0)
        items = instances(date, request.with_families(["extended"]) if extended else request)
    name = f"span {date_spec(date)}" if instances_file is None else f"span {Path(instances_file).name}"
    options: dict[str, Any] = {}
    if mode == "unaided":
        plan = [system_prompt(prompts.load("system_unaided.md")), generate()]
        options["turn_limit"] = 1
    elif mode == "tools":
        turns = int(max_turns or DEFAULT_MAX_TURNS)
        plan = [system_prompt(prompts.load("system_tools.md")), use_tools(calendar_tools(tools)),
                generate(tool_calls="loop")]
        options["turn_limit"] = turns + 1  # the tool turns, then the answer
    else:
        plan = [time_agent(max_runs=int(max_turns or DEFAULT_MAX_RUNS))]
        options["sandbox"] = SandboxEnvironmentSpec("span", SpanSandboxConfig(kind=sandbox))
    return Task(dataset=span_dataset(items, name), solver=plan, scorer=span_judge(judge_model=judge_model),
                metadata={"mode": mode, "date": None if date is None else date_spec(date)},
                version=1, **options)
