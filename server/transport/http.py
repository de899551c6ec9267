"""The streamable-HTTP application and its runner: the SDK's MCP app behind a body limit and the bearer
token, served by uvicorn with the connection guards.

The limits (transport/limits.py: head/body deadlines, body size, connection cap, keep-alive, shutdown)
are enforced on the wire by transport/h11_guard.py and transport/guard.py; who may call is
transport/security.py.
"""

from __future__ import annotations

import functools
import sys

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from . import StartupError
from .limits import HttpLimits
from .security import BearerTokenMiddleware, HttpSecurity


class BodyLimitMiddleware:
    """Reads a request body whole (at most `max_bytes`) before the application sees the request.

    The SDK reads every POST body whole anyway (and has its own size limit, set to the same value);
    reading it here first means a client that disconnects or times out mid-body is dropped quietly,
    instead of the SDK logging a ClientDisconnect traceback. GuardedH11Protocol already enforces the same limit on
    the wire; this layer keeps it when the app is served some other way.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        length = headers.get("content-length")
        if length is None and "transfer-encoding" not in headers:
            await self.app(scope, receive, send)
            return
        if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left mid-body: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body: bytes | None = b"".join(chunks)
        del chunks
        downstream: Receive | None = receive

        async def replay() -> dict:
            nonlocal body
            if body is not None:
                message, body = {"type": "http.request", "body": body, "more_body": False}, None
                return message
            if downstream is None:  # the request is over
                return {"type": "http.disconnect"}
            return await downstream()

        try:
            await self.app(scope, replay, send)
        finally:
            # The SDK keeps the request of a session's last message (with this `replay`) until the next
            # one arrives: without the cut, an abandoned session would hold its closed connection's
            # protocol, parser and buffers too.
            downstream = None

    async def _too_large(self, send: Send) -> None:
        body = b"request body too large\n"
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def build_http_app(server, security: HttpSecurity, *, host: str, path: str = "/mcp",
                   json_response: bool = False, stateless_http: bool = False,
                   limits: HttpLimits = HttpLimits()) -> ASGIApp:
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=path, json_response=json_response, stateless_http=stateless_http,
        transport_security=security.transport_security, host=host, max_request_body_size=limits.max_body_bytes,
        session_idle_timeout=limits.session_idle_timeout, max_sessions=limits.max_sessions)
    if not stateless_http:
        from .sessions import bound_sessions

        bound_sessions(server.session_manager)
    app = BodyLimitMiddleware(app, limits.max_body_bytes)
    if security.token:  # outermost: no body is read for a request without the token
        app = BearerTokenMiddleware(app, security.token)
    return app


def url_for(host: str, port: int, path: str) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}{path}"


def run_http(server, security: HttpSecurity, *, host: str, port: int, path: str = "/mcp",
             json_response: bool = False, stateless_http: bool = False, log_level: str = "INFO",
             access_log: bool = False, limits: HttpLimits | None = None) -> None:
    """Serve with uvicorn until interrupted. Port 0 picks a free port; the URL goes to stderr."""
    limits = limits or HttpLimits()
    app = build_http_app(server, security, host=host, path=path, json_response=json_response,
                         stateless_http=stateless_http, limits=limits)

    def announce(bound_port: int) -> None:
        print(f"span-server: streamable HTTP on {url_for(host, bound_port, path)} "
              f"(health: {url_for(host, bound_port, '/health')}; {security.describe()}; "
              f"{limits.describe(sessions=not stateless_http)})",
              file=sys.stderr, flush=True)

    serve_app(app, host=host, port=port, limits=limits, log_level=log_level, access_log=access_log,
              on_listening=announce)


def serve_app(app: ASGIApp, *, host: str, port: int, limits: HttpLimits, log_level: str = "INFO",
              access_log: bool = False, on_listening=None) -> None:
    """Run an ASGI app under uvicorn with the guards of transport/guard.py and transport/h11_guard.py."""
    import uvicorn

    from .guard import ConnectionGuard, GuardedListener, GuardedServer
    from .h11_guard import GuardedH11Protocol

    guard = ConnectionGuard(limits)
    # h11 and the plain asyncio loop on purpose: the guards hook into both (uvloop accepts in C,
    # httptools has no h11 events), so installing either package must not switch them off.
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), access_log=access_log,
                            lifespan="on", log_config=None, loop="asyncio", ws="none",
                            http=functools.partial(GuardedH11Protocol, guard=guard),
                            timeout_keep_alive=limits.keep_alive_timeout,
                            timeout_graceful_shutdown=limits.shutdown_timeout)
    try:
        sock = config.bind_socket()
    except SystemExit as exc:  # uvicorn exits on bind errors after logging them
        raise StartupError(f"cannot listen on {host}:{port} (address in use or not available)") from exc
    listener = GuardedListener.wrap(sock, guard)
    listener.listen(config.backlog)  # connections queue from now on, so the URL announced is usable at once
    if on_listening is not None:
        on_listening(listener.getsockname()[1])
    GuardedServer(config, guard).run(sockets=[listener])
