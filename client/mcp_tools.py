"""One MCP connection per run: start ``span-server`` over stdio (``sys.executable -m server``) or connect to
``--server-url`` over streamable HTTP (with a bearer token when the server wants one); list its tools;
call them. Provider-specific tool formats live with the providers."""

from __future__ import annotations

import json
import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import IO, Any

from .providers.base import ToolSpec

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TOKEN_ENV = "SPAN_SERVER_TOKEN"  # the variable span-server reads: one name on both sides
CONNECT_TIMEOUT = 10.0


class MCPConnectionError(RuntimeError):
    """The MCP server could not be started or reached, or the connection broke during a call."""


def stdio_parameters():
    from mcp import StdioServerParameters

    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p),
           "PYTHONUNBUFFERED": "1"}
    return StdioServerParameters(command=sys.executable, args=["-m", "span_toolkit.server", "--transport", "stdio"], env=env)


class MCPTools:
    """``async with MCPTools(server_url=None) as mcp: mcp.tools; await mcp.call(name, args)``.

    ``target`` may also be an in-process ``MCPServer`` object (tests). Server stderr goes to ``errlog`` (a
    file) so its logging never mixes with our output. ``only`` limits the tools offered to a model (the
    others stay callable by name from the shell)."""

    def __init__(self, server_url: str | None = None, *, target: Any = None, errlog: IO[str] | None = None,
                 call_timeout: float | None = 60.0, token: str | None = None, only: tuple[str, ...] | None = None):
        self.server_url = server_url
        self.target = target
        self.errlog = errlog
        self.call_timeout = call_timeout
        self.token = token
        self.only = only
        self.tools: list[ToolSpec] = []
        self.all_tools: list[ToolSpec] = []
        self._stack: AsyncExitStack | None = None
        self._last_status: int | None = None
        self.client = None

    @property
    def description(self) -> str:
        if self.target is not None:
            return "in-process"
        return self.server_url or f"stdio: {sys.executable} -m server"

    def _connection(self) -> Any:
        from mcp.client.stdio import stdio_client

        if self.target is not None:
            return self.target
        if self.server_url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            async def remember(response) -> None:  # the SDK reports a refusal without its status
                self._last_status = response.status_code

            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            http = httpx2.AsyncClient(headers=headers, timeout=self.call_timeout,
                                      event_hooks={"response": [remember]})
            self._stack.push_async_callback(http.aclose)
            return streamable_http_client(self.server_url, http_client=http)
        return stdio_client(stdio_parameters(), errlog=self.errlog or sys.stderr)

    async def __aenter__(self) -> "MCPTools":
        import asyncio

        from mcp import Client

        self._stack = AsyncExitStack()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                self.client = await self._stack.enter_async_context(Client(self._connection()))
                self.all_tools = await self._list()
        except BaseException as e:
            await self._stack.aclose()
            if isinstance(e, Exception):
                raise MCPConnectionError(self._connect_message(e)) from None
            raise
        self.tools = [t for t in self.all_tools if self.only is None or t.name in self.only]
        missing = sorted(set(self.only or ()) - {t.name for t in self.tools})
        if missing:
            await self.__aexit__(None, None, None)
            raise MCPConnectionError(f"the MCP server ({self.description}) has no tool {', '.join(missing)}; "
                                     f"it offers {', '.join(t.name for t in self.all_tools)}")
        return self

    def _connect_message(self, e: BaseException) -> str:
        text = _describe(e)
        where = f"could not connect to the MCP server ({self.description})"
        if isinstance(e, TimeoutError) or "TimeoutError" in text:
            return f"{where}: no answer within {CONNECT_TIMEOUT:.0f} s"
        if self._last_status == 401 or "401" in text or "Unauthorized" in text:
            hint = (f"the server wants a bearer token: set {TOKEN_ENV} or pass --server-token" if not self.token
                    else f"the server refused the token given (--server-token / {TOKEN_ENV})")
            return f"{where}: 401 Unauthorized; {hint}"
        if self._last_status is not None and self._last_status >= 400:
            return f"{where}: HTTP {self._last_status} ({text})"
        return f"{where}: {text}"

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
        if texts:
            return "\n".join(texts), False, structured  # the server's own text form is what a model reads
        if structured is not None:
            return json.dumps(structured, ensure_ascii=False), False, structured
        return "", False, None


def _describe(e: BaseException) -> str:
    # anyio/mcp may wrap the real cause in an ExceptionGroup
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    msg = str(e) or e.__class__.__name__
    return f"{e.__class__.__name__}: {msg}" if e.__class__.__name__ not in msg else msg
