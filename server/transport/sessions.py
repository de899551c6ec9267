"""MCP sessions over streamable HTTP: closed when idle, and at most `max_sessions` of them.

The SDK's session manager closes a session once no request has been in flight for
`session_idle_timeout` seconds (an open GET event stream counts as one); its id then answers 404,
the MCP spec's signal to initialize again. At `max_sessions` the SDK refuses every new session with
503. That is the wrong way round for the sessions that fill a public server: a client that sends
`initialize` and vanishes leaves a session behind (about 42 KB of memory each), and 1,000 of them
would lock every newcomer out until they expire. So at the cap a new session here closes the least
recently used idle one instead; only when every session has a request in flight does the SDK's 503
stand.

The SDK builds its manager inside `MCPServer.streamable_http_app()` with no hook for its class, and
the one behaviour changed here is a method of it: `bound_sessions` gives the instance this subclass
(which adds no state of its own). Written against mcp 2.3; if a later 2.x renames the session table
it falls back to the SDK's own 503 with one warning, rather than failing.
"""

from __future__ import annotations

import logging
import math
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from .logcap import ThrottledLog

logger = logging.getLogger("span.server.http")

# What the subclass relies on in the SDK's manager (mcp 2.3: streamable_http_manager.py).
_SDK_NAMES = ("_handle_stateful_request", "_admit_session", "_server_instances", "_session_owners",
              "max_sessions")


class ReleasingReadStream:
    """A session's read stream that lets go of each message once the next one is asked for.

    The SDK's receive loop keeps the message it dispatched last (its loop variable, and the stream's
    ``last_context``) until another arrives: the parsed JSON-RPC message and, in its metadata, the
    Starlette request with its body and parsed JSON cached. For an idle session that was its whole last
    body, kept for as long as the session lives (+7.4 MB for an 800 KB body of 50,000 keys). By the time
    the loop asks for the next message it has handed the last one's parts to their handler (which keeps
    what it needs), so here the message is emptied then."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._last: SessionMessage | None = None

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    def _release(self) -> None:
        last, self._last = self._last, None
        if last is not None:
            last.message = _RELEASED
            last.metadata = None
            with suppress(AttributeError):
                self._inner.last_context = None

    async def receive(self) -> Any:
        self._release()
        item = await self._inner.receive()
        if isinstance(item, SessionMessage):
            self._last = item
        return item

    def __aiter__(self) -> "ReleasingReadStream":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._release()
        self._inner.close()

    async def aclose(self) -> None:
        self._release()
        await self._inner.aclose()

    async def __aenter__(self) -> "ReleasingReadStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


_RELEASED = JSONRPCNotification(jsonrpc="2.0", method="span/released")


def releasing(transport: Any) -> None:
    """Make ``transport.connect()`` hand out a ReleasingReadStream (an instance attribute over the method)."""
    connect = transport.connect

    @asynccontextmanager
    async def connect_releasing():
        async with connect() as (read_stream, write_stream):
            yield ReleasingReadStream(read_stream), write_stream

    transport.connect = connect_releasing


class LruSessionManager(StreamableHTTPSessionManager):
    """StreamableHTTPSessionManager whose session cap closes the least recently used idle session.

    The SDK's session table (a dict: id -> transport) is kept in order of use: a request for a session
    moves it to the end, so the first idle session in the table is the least recently used one."""

    evictions: ThrottledLog

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
        transport = self._server_instances.pop(session_id, None) if session_id else None
        if transport is not None:
            self._server_instances[session_id] = transport
        await super()._handle_stateful_request(scope, receive, send)

    def _admit_session(self, requestor: Any) -> Any:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._close_least_recently_used()
        transport = super()._admit_session(requestor)
        if transport is not None and hasattr(transport, "connect"):
            releasing(transport)
        return transport

    def _close_least_recently_used(self) -> bool:
        """Close the least recently used session that has no request in flight; False when all have one.

        The transport keeps its idle deadline infinite while a request is in flight (an open GET stream
        included); a session not started yet has no idle scope. Both count as busy."""
        for session_id, transport in self._server_instances.items():
            scope = transport.idle_scope
            if scope is not None and scope.deadline != math.inf:
                break
        else:
            return False
        del self._server_instances[session_id]  # its id answers 404 from now on
        self._session_owners.pop(session_id, None)
        # Ends the session's server task as its idle timeout would; the task then terminates the transport.
        scope.cancel()
        self.evictions.count("session_evicted")
        return True


def bound_sessions(manager: StreamableHTTPSessionManager) -> bool:
    """Make the SDK's manager close the least recently used idle session at its cap (see above).
    Returns False, after one warning, when this SDK version lacks what that needs."""
    if not all(hasattr(manager, name) for name in _SDK_NAMES):
        logger.warning("this mcp version's session manager is not the one span-server was written against: "
                       "at --max-sessions a new session gets 503 instead of closing the least recently used one")
        return False
    manager.__class__ = LruSessionManager
    manager.evictions = ThrottledLog({
        "session_evicted": "closed {n} least recently used idle session(s) to stay within --max-sessions "
                           f"{manager.max_sessions}",
    })
    return True
