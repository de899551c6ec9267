"""Solvers: how a model is asked one instance. ``open_solver`` builds the one a run needs, with the
resources it holds for the run's lifetime (an MCP connection, a sandbox):

* ``unaided`` — the bare model (:class:`ChatSolver` without tools);
* ``with_tools`` — the MCP tool-calling loop (:class:`ChatSolver` with tools), native or text-form calls;
* ``time_agent`` — the paper's code-writing agent (:class:`TimeAgentSolver`): the model writes Python that
  calls ``search_calendar``, a sandbox runs it, the model answers from its output.

Every solver is a :class:`Solver`: ``await solver.solve(question) -> Outcome``. The scripted models
(client.agents.scripted) stand where an LLM would and go through the same solvers.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import IO, Any, AsyncIterator

from span_toolkit import prompts
from ..providers.base import Provider
from ..spec import RunSpec
from .base import Outcome, Requester, Solver, direct_request
from .chat import ChatSolver

__all__ = ["ChatSolver", "Outcome", "Requester", "Solver", "direct_request", "open_solver"]


@asynccontextmanager
async def open_solver(cfg: RunSpec, provider: Provider, request: Requester, errlog: IO[str] | None = None,
                      mcp_target: Any = None) -> AsyncIterator[Solver]:
    """The solver for ``cfg.mode``; ``solver.resources`` describes what it holds (for run.json).
    ``mcp_target``: an in-process MCP server instead of span-server (tests, benchmarks)."""
    keep = not getattr(cfg, "drop_thinking", False)  # --drop-thinking: no thinking text in the record
    if cfg.mode == "with_tools":
        from ..mcp_tools import MCPTools

        async with MCPTools(cfg.server_url, target=mcp_target, errlog=errlog, token=cfg.server_token,
                            only=cfg.offered_tools()) as mcp:
            solver = ChatSolver(provider, system=prompts.load("system_tools.md"), tools=mcp,
                                max_turns=cfg.turns, request=request, timeout=cfg.timeout,
                                tool_calls=cfg.tool_calls, keep_thinking=keep)
            solver.resources = {"mcp": {"server": mcp.description, "tools": [t.name for t in mcp.tools]}}
            yield solver
    elif cfg.mode == "time_agent":
        import os

        from ..sandbox import Sandbox
        from .timeagent import TimeAgentSolver

        slots = max(1, min(cfg.concurrency, os.cpu_count() or 1))
        async with Sandbox(cfg.sandbox, concurrency=slots) as sandbox:
            solver = TimeAgentSolver(provider, sandbox=sandbox, max_runs=cfg.turns, request=request,
                                     timeout=cfg.timeout, keep_thinking=keep)
            solver.resources = {"sandbox": solver.describe()}
            yield solver
    else:
        solver = ChatSolver(provider, system=prompts.load("system_unaided.md"), tools=None,
                            max_turns=cfg.turns, request=request, timeout=cfg.timeout, keep_thinking=keep)
        solver.resources = {}
        yield solver
