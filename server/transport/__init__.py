"""How MCP clients reach the server: stdio, and streamable HTTP with its guards.

    stdio.py      stdio, answering lines that are not JSON-RPC requests instead of dropping them
    security.py   who may call over HTTP: Host/Origin checks (DNS rebinding), the bearer token
    http.py       the HTTP application (body limit, sessions, security) and its uvicorn runner
    sessions.py   MCP sessions over HTTP: idle timeout and a cap that closes the least recently used
    guard.py      connection accounting: the cap, shedding, throttled client-error logs, exit on signal
    h11_guard.py  per-connection deadlines and size limits on uvicorn's h11 protocol
    limits.py     the HTTP limits: defaults, flags, environment variables, checks (pure)
    logcap.py     bounded log lines (a client chooses what the SDK logs)

Nothing here knows the tools: server.app builds the MCP server, this package carries it.
"""

from __future__ import annotations


class StartupError(Exception):
    """A configuration problem reported as one line before anything is served."""
