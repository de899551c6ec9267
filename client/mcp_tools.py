"""One MCP connection per run: start ``span-server`` over stdio (``sys.executable -m server``) or connect
to ``--server-url`` over streamable HTTP; list its tools; call them; convert their schemas to the Anthropic
and OpenAI tool formats."""

from __future__ import annotations

import json
import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import IO, Any

from .providers.base import ToolSpec

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class MCPConnectionError(RuntimeError):
    """The MCP server could not be started or reached, or the connection broke during a call."""


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict]:
    return [{"name": t.name, "description": t.description or t.title or t.name,
             "input_schema": t.input_schema or {"type": "object", "properties": {}}} for t in tools]


def to_openai_tools(tools: list[ToolSpec]) -> list[dict]:
    return [{"type": "function",
             "function": {"name": t.name, "description": t.description or t.title or t.name,
                          "parameters": t.input_schema or {"type": "object", "properties": {}}}} for t in tools]


def stdio_parameters():
    from mcp import StdioServerParameters

    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p),
           "PYTHONUNBUFFERED": "1"}
    return StdioServerParameters(command=sys.executable, args=["-m", "server", "--transport", "stdio"], env=env)


class MCPTools:
    """``async with MCPTools(server_url=None) as mcp: mcp.tools; await mcp.call(name, args)``.

    ``target`` may also be an in-process ``MCPServer`` object (tests).  Server stderr goes to ``errlog``
    (a file) so its logging never mixes with our output."""

    def __init__(self, server_url: str | None = None, *, target: Any = None, errlog: IO[str] | None = None,
                 call_timeout: float | None = 60.0):
        self.server_url = server_url
        self.target = target
        self.errlog = errlog
        self.call_timeout = call_timeout
        self.tools: list[ToolSpec] = []
        self._stack: AsyncExitStack | None = None
        self.client = None

    @property
    def description(self) -> str:
        if self.target is not None:
            return "in-process"
        return self.server_url or f"stdio: {sys.executable} -m server"

    async def __aenter__(self) -> "MCPTools":
        from mcp import Client
        from mcp.client.stdio import stdio_client

        self._stack = AsyncExitStack()
        try:
            if self.target is not None:
                conn = self.target
            elif self.server_url:
                conn = self.server_url
            else:
                conn = stdio_client(stdio_parameters(), errlog=self.errlog or sys.stderr)
            self.client = await self._stack.enter_async_context(Client(conn))
            self.tools = await self._list()
        except BaseException as e:
            await self._stack.aclose()
            if isinstance(e, Exception):
                raise MCPConnectionError(f"could not connect to the MCP server ({self.description}): "
                                         f"{_describe(e)}") from e
            raise
        return self

    async def __aexit__(self, *exc) -> None:
        if self._stack:
            await self._stack.aclose()
            self._stack = None

    async def _list(self) -> list[ToolSpec]:
        out: list[ToolSpec] = []
        cursor = None
        while True:
            res = await self.client.list_tools(cursor=cursor) if cursor else await self.client.list_tools()
            for t in res.tools:
                out.append(ToolSpec(name=t.name, description=t.description or "", input_schema=t.input_schema,
                                    title=getattr(t, "title", None), output_schema=getattr(t, "output_schema", None)))
            cursor = getattr(res, "next_cursor", None)
            if not cursor:
                return out

    def has(self, name: str) -> bool:
        return any(t.name == name for t in self.tools)

    async def call(self, name: str, arguments: dict | None) -> tuple[str, bool, Any]:
        """Call a tool. Returns (text for the model, is_error, structured content or None).

        A tool error (isError) and a JSON-RPC error from a live server come back as error results the model
        can read. A broken connection raises :class:`MCPConnectionError`: that is the run's failure, not
        something to show the model (it would then answer without tools and be graded as if it had them)."""
        from mcp import MCPError

        try:
            res = await self.client.call_tool(name, arguments or {}, read_timeout_seconds=self.call_timeout)
        except MCPError as e:
            return f"tool call failed: {_describe(e)}", True, None
        except Exception as e:  # noqa: BLE001
            raise MCPConnectionError(f"MCP call {name!r} failed ({self.description}): {_describe(e)}") from e
        structured = getattr(res, "structured_content", None)
        texts = [getattr(c, "text", "") for c in (res.content or []) if getattr(c, "type", None) == "text"]
        if res.is_error:
            return ("\n".join(t for t in texts if t) or "the tool reported an error without a message"), True, None
        if structured is not None:
            return json.dumps(structured, ensure_ascii=False), False, structured
        return "\n".join(texts), False, None


def _describe(e: BaseException) -> str:
    # anyio/mcp may wrap the real cause in an ExceptionGroup
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    msg = str(e) or e.__class__.__name__
    return f"{e.__class__.__name__}: {msg}" if e.__class__.__name__ not in msg else msg
