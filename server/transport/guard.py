"""Connection accounting for the HTTP server: the connection cap, shedding, throttled client-error logs,
and a uvicorn Server that always exits after SIGTERM/SIGINT.

Why accept() itself is guarded: asyncio accepts up to `backlog` sockets per wake-up before any
protocol sees them, so a cap enforced only in connection_made lets a burst run the process out of
file descriptors, and asyncio then logs a traceback per failed accept(). `GuardedListener.accept`
counts descriptors as they are taken: at the cap, when a newcomer is waiting, it closes the connection
that has waited longest without a complete request (its descriptor is freed on the next loop turn,
when accepting resumes), or if there is none the event stream held longest; when every connection
is busy with a request it answers the newcomer 503 and closes it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import socket
import sys
import threading
from typing import Any, Protocol

import uvicorn

from .limits import HttpLimits
from .logcap import ThrottledLog

logger = logging.getLogger("span.server.http")

# How long after the graceful-shutdown timeout the process is ended regardless (a request that
# ignores cancellation, an application shutdown that hangs).
HARD_EXIT_MARGIN = 3.0
APP_SHUTDOWN_SECONDS = 1.0
REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
           b"content-length: 33\r\nretry-after: 1\r\nconnection: close\r\n\r\nserver busy: too many connections\n")


class GuardedConnection(Protocol):
    """What the guard needs of a connection (h11_guard.GuardedH11Protocol is the real one; the guard does
    not import it, so the protocol can import the guard)."""

    phase_since: float  # when the connection entered its current phase (monotonic seconds)

    @property
    def sheddable(self) -> bool: ...  # waiting: idle, or a request head or body not complete yet

    @property
    def streaming(self) -> bool: ...  # holding an event stream open (GET /mcp): busy, but sheddable last

    def shed(self) -> None: ...


class ConnectionGuard:
    """Shared by the listener and every connection: counts descriptors, picks connections to shed."""

    def __init__(self, limits: HttpLimits) -> None:
        self.limits = limits
        self.cap = limits.max_connections
        self.pending = 0   # accepted, protocol not yet attached (asyncio hands them over a turn later)
        self.closing = 0   # shed by us; their descriptor is freed when connection_lost runs
        self.connections: dict[GuardedConnection, None] = {}
        self.log = ThrottledLog({
            "shed": "closed {n} idle or incomplete connection(s) to stay within --max-connections "
                    f"{self.cap}",
            "shed_stream": "closed {n} event stream(s) held longest to stay within --max-connections "
                           f"{self.cap}",
            "refused": "refused {n} connection(s) with 503 (all " + str(self.cap) + " connections busy)",
            "head_timeout": "closed {n} connection(s) without a complete request head after "
                            f"{limits.header_timeout:g} s",
            "body_timeout": "closed {n} connection(s) without a complete request body after "
                            f"{limits.body_timeout:g} s",
            "too_large": "answered {n} request(s) 413: body over --max-body-bytes " + str(limits.max_body_bytes),
            "bad_request": "answered {n} malformed request(s) 400",
            "head_too_large": "answered {n} request(s) 431: head over the 16 KiB limit",
            "upgrade": "ignored {n} protocol-upgrade request(s)",
            "accept_error": "accept() failed {n} time(s) (out of file descriptors?)",
        })

    @property
    def live(self) -> int:
        return self.pending + len(self.connections)

    def register(self, conn: GuardedConnection) -> None:
        self.pending = max(0, self.pending - 1)
        self.connections[conn] = None

    def unregister(self, conn: GuardedConnection, shed: bool) -> None:
        if conn in self.connections:
            del self.connections[conn]
            if shed:
                self.closing = max(0, self.closing - 1)

    def shed_one(self) -> bool:
        """Close the connection that has waited longest without a complete request, else the event stream
        held longest (MCP lets a server close its GET stream at any time; the client reconnects, and our
        tools never send on it); False if every connection is busy with a request."""
        waiting = [conn for conn in self.connections if conn.sheddable]
        streams = [conn for conn in self.connections if conn.streaming] if not waiting else []
        for candidates, kind in ((waiting, "shed"), (streams, "shed_stream")):
            victim = min(candidates, key=lambda conn: conn.phase_since, default=None)
            if victim is not None:
                self.closing += 1
                victim.shed()
                self.log.count(kind)
                return True
        return False


class GuardedListener(socket.socket):
    """The listening socket, whose accept() keeps open connections within the guard's cap."""

    guard: ConnectionGuard

    @classmethod
    def wrap(cls, sock: socket.socket, guard: ConnectionGuard) -> GuardedListener:
        listener = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        listener.guard = guard
        return listener

    def accept(self) -> tuple[socket.socket, Any]:
        guard = self.guard
        while True:
            if guard.live < guard.cap:
                conn, addr = super().accept()  # BlockingIOError when the backlog is empty ends asyncio's loop
                guard.pending += 1
                return conn, addr
            if guard.closing:
                # A descriptor is being freed; asyncio retries on the next turn (the listener stays readable).
                raise BlockingIOError
            if not self._someone_waiting():
                # asyncio calls accept() again after each success until the backlog is empty: at the cap
                # that last call must not close a connection for a newcomer who is not there.
                raise BlockingIOError
            if guard.shed_one():
                raise BlockingIOError
            conn, _ = super().accept()
            try:
                conn.setblocking(False)
                conn.send(REFUSAL)
            except OSError:
                pass
            finally:
                conn.close()
            guard.log.count("refused")


    def _someone_waiting(self) -> bool:
        poll = select.poll()
        poll.register(self.fileno(), select.POLLIN)
        return bool(poll.poll(0))


class GuardedServer(uvicorn.Server):
    """uvicorn.Server that logs accept() failures without tracebacks and always exits after a signal."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard) -> None:
        super().__init__(config)
        self.guard = guard
        self._watchdog: threading.Timer | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self._loop_exception)
        await super().startup(sockets=sockets)
        # The SDK's session manager can wait at shutdown for requests that never finish (e.g. two
        # in flight with the same JSON-RPC id): give the application shutdown a bound of its own.
        lifespan_shutdown = self.lifespan.shutdown

        async def bounded_shutdown() -> None:
            try:
                await asyncio.wait_for(lifespan_shutdown(), APP_SHUTDOWN_SECONDS)
            except asyncio.TimeoutError:
                logger.warning("application shutdown not finished after %g s; exiting without it",
                               APP_SHUTDOWN_SECONDS)

        self.lifespan.shutdown = bounded_shutdown  # type: ignore[method-assign]

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message", "").startswith("socket.accept()") and isinstance(context.get("exception"), OSError):
            self.guard.log.count("accept_error")
            return
        loop.default_exception_handler(context)

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        if self._watchdog is None:
            delay = self.config.timeout_graceful_shutdown + HARD_EXIT_MARGIN
            self._watchdog = threading.Timer(delay, _hard_exit, args=(sig, delay))
            self._watchdog.daemon = True
            self._watchdog.start()


def _hard_exit(sig: int, delay: float) -> None:
    # From a thread, without logging locks the stuck main thread may hold.
    try:
        os.write(sys.stderr.fileno(), f"span-server: shutdown not finished {delay:g} s after signal {sig}; "
                                      "exiting now\n".encode())
    finally:
        os._exit(128 + sig)
