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
from typing import Any

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from .logcap import ThrottledLog

logger = logging.getLogger("span.server.http")

# What the subclass relies on in the SDK's manager (mcp 2.3: streamable_http_manager.py).
_SDK_NAMES = ("_handle_stateful_request", "_admit_session", "_server_instances", "_session_owners",
              "max_sessions")


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
        return super()._admit_session(requestor)

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
