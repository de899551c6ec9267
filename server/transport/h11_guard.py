"""GuardedH11Protocol: uvicorn's h11 protocol with deadlines, a body limit, TCP_NODELAY and shedding.

Per connection one deadline runs for its current phase, set when the phase starts and never pushed
back by further bytes (so trickling a header line every few seconds does not keep a slot forever):

    head   request line + headers, from the connection or the first byte after an idle gap
    body   the whole request body, from the end of the head
    idle   keep-alive wait for the next request
    app    the request is complete and the application is answering: no deadline, never shed
    stream the answer to a GET is an event stream (MCP's standalone stream): no deadline, shed only
           when no connection is waiting
    linger an error answer was sent; the rest of the request is read and dropped until the client
           closes, LINGER_SECONDS pass or LINGER_BYTES arrive (closing at once would reset the
           connection and the client would lose the answer)

A body over the limit is answered 413 before it is buffered: at once from Content-Length, or once
the bytes counted so far from a chunked body pass it. A head over 16 KiB (h11's limit for an
incomplete one) is answered 431 however it arrives. Written against uvicorn 0.54 / h11 0.16.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

from .guard import ConnectionGuard

LINGER_SECONDS = 2.0
LINGER_BYTES = 16 * 1024 * 1024
SHEDDABLE = frozenset({"head", "body", "idle", "linger"})
ANSWERS = {
    413: b"request body too large\n",
    431: b"request header too large\n",
    400: b"invalid HTTP request\n",
}


class _Rejected(h11.RemoteProtocolError):
    """Raised inside h11's event loop so that uvicorn stops handling the request and calls send_400_response."""


class _WatchedConnection(h11.Connection):
    """h11.Connection that shows every event to the protocol (which may reject the request), and holds
    every request head to the size limit.

    h11 enforces `max_incomplete_event_size` only while a head is incomplete, so a head of any size that
    arrives in one piece would pass. Counting the bytes h11 has consumed (fed minus still buffered) at
    each message boundary gives the head's exact size however it arrived."""

    def __init__(self, protocol: GuardedH11Protocol, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_incomplete_event_size)
        self._protocol = protocol
        self.max_head_bytes = max_incomplete_event_size
        self._fed = 0
        self._message_start = 0  # bytes consumed when the current request's head began

    def receive_data(self, data: bytes) -> None:
        self._fed += len(data)
        super().receive_data(data)

    def _consumed(self) -> int:
        return self._fed - len(self._receive_buffer)  # h11 0.16 keeps unparsed bytes there

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            kind = "head_too_large" if exc.error_status_hint == 431 else "bad_request"
            self._protocol.rejection = (exc.error_status_hint, kind)
            raise
        if isinstance(event, h11.Request) and self._consumed() - self._message_start > self.max_head_bytes:
            self._protocol.rejection = (431, "head_too_large")
            raise _Rejected("request header too large", error_status_hint=431)
        if isinstance(event, h11.EndOfMessage):
            self._message_start = self._consumed()
        self._protocol.on_h11_event(event)
        return event

    def send(self, event: Any) -> Any:
        if isinstance(event, h11.Response):
            self._protocol.on_response_head(event)
        return super().send(event)


class _ClientWarnings:
    """uvicorn's protocol logger, with the warnings a client can trigger at will counted, not printed."""

    def __init__(self, logger: Any, guard: ConnectionGuard) -> None:
        self._logger = logger
        self._guard = guard

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if msg.startswith("Invalid HTTP request"):  # counted by send_400_response with its real status
            return
        if msg.startswith("Unsupported upgrade"):
            self._guard.log.count("upgrade")
            return
        if msg.startswith("No supported WebSocket library"):
            return
        self._logger.warning(msg, *args, **kwargs)

    def error(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if isinstance(kwargs.get("exc_info"), asyncio.CancelledError):
            # A request cancelled by the graceful-shutdown timeout: uvicorn already logged one line for
            # all of them, a traceback each adds nothing.
            self._logger.debug("request cancelled: %s", kwargs["exc_info"])
            return
        self._logger.error(msg, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


def _content_length(headers: Any) -> int | None:
    for name, value in headers:
        if name == b"content-length":
            return int(value)  # h11 has checked it is digits
    return None


class GuardedH11Protocol(H11Protocol):
    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], _loop: Any = None, *,
                 guard: ConnectionGuard) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.guard = guard
        self.limits = guard.limits
        size = config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.conn = _WatchedConnection(self, size)
        self.logger = _ClientWarnings(self.logger, guard)  # type: ignore[assignment]
        self.phase = "new"
        self.phase_since = time.monotonic()
        self.rejection: tuple[int, str] | None = None
        self._deadline: Any = None
        self._body_bytes = 0
        self._method = b""
        self._discarded = 0
        self._shed = False
        self._timeouts = {"head": self.limits.header_timeout, "body": self.limits.body_timeout,
                          "idle": self.limits.keep_alive_timeout, "linger": LINGER_SECONDS}

    # -- connection lifecycle -----------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; one accepted from a
            # pre-bound socket created with proto 0 has none, and then every response's second write
            # waits ~40 ms for the client's delayed ACK.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.guard.register(self)
        self._enter("head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        self.guard.unregister(self, self._shed)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.phase == "linger":
            self._discarded += len(data)
            if self._discarded > max(LINGER_BYTES, 2 * self.limits.max_body_bytes):
                self.transport.abort()
            return
        if self.phase == "idle":
            self._enter("head")
        super().data_received(data)

    @property
    def sheddable(self) -> bool:
        return self.phase in SHEDDABLE and not self._shed and not self.transport.is_closing()

    @property
    def streaming(self) -> bool:
        return self.phase == "stream" and not self._shed and not self.transport.is_closing()

    def shed(self) -> None:
        self._shed = True
        self._cancel_deadline()
        self.transport.abort()

    def shutdown(self) -> None:
        if self.phase == "app" and self.cycle is not None and not self.cycle.response_complete:
            super().shutdown()  # let the answer finish (within the graceful-shutdown timeout)
        else:
            self._cancel_deadline()
            self.transport.close()

    def timeout_keep_alive_handler(self) -> None:
        # The "idle" deadline does this job; uvicorn's own timer is left to expire harmlessly.
        pass

    # -- phases and deadlines -----------------------------------------------------------------
    def _enter(self, phase: str) -> None:
        if phase == self.phase:
            return  # same phase: the running deadline stands
        self._cancel_deadline()
        self.phase, self.phase_since = phase, time.monotonic()
        timeout = self._timeouts.get(phase)
        if timeout:
            self._deadline = self.loop.call_later(timeout, self._expire, phase)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, phase: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if phase == "idle":
            self.transport.close()
            return
        if phase in ("head", "body"):
            self.guard.log.count(f"{phase}_timeout")
        self.transport.abort()

    def on_h11_event(self, event: Any) -> None:
        max_body = self.limits.max_body_bytes
        if isinstance(event, h11.Request):
            self._body_bytes = 0
            self._method = event.method
            length = _content_length(event.headers)
            if length is not None and length > max_body:
                self.rejection = (413, "too_large")
                raise _Rejected("request body too large", error_status_hint=413)
            chunked = any(name == b"transfer-encoding" for name, _ in event.headers)
            self._enter("body" if length or chunked else "app")
        elif isinstance(event, h11.Data):
            self._body_bytes += len(event.data)
            if self._body_bytes > max_body:
                self.rejection = (413, "too_large")
                raise _Rejected("request body too large", error_status_hint=413)
        elif isinstance(event, h11.EndOfMessage):
            # Answered before the body was read (e.g. 401): the connection is idle again now.
            self._enter("idle" if self.conn.our_state is h11.DONE else "app")

    def on_response_head(self, event: h11.Response) -> None:
        # A GET answered with an event stream is MCP's standalone stream: held open for as long as the
        # client likes, so it is the last thing shed at the connection cap (never a request in progress).
        if self._method == b"GET" and self.phase == "app" and any(
                name == b"content-type" and value.startswith(b"text/event-stream") for name, value in event.headers):
            self._enter("stream")

    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.DONE:
            self._enter("idle")
        super().on_response_complete()

    # -- rejections ---------------------------------------------------------------------------
    def send_400_response(self, msg: str) -> None:
        """uvicorn calls this for any h11 RemoteProtocolError, ours (413) included."""
        status, kind = self.rejection or (400, "bad_request")
        self.rejection = None
        self.guard.log.count(kind)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if cycle.response_started:
                self.transport.abort()
                return
            # The application is still reading this body: it sees a disconnect and its answer is dropped.
            cycle.disconnected = True
            cycle.message_event.set()
        body = ANSWERS.get(status, ANSWERS[400])
        head = (f"HTTP/1.1 {status} {STATUS_PHRASES.get(status, b'').decode()}\r\n"
                f"content-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
                "connection: close\r\n\r\n").encode()
        self.transport.write(head + body)
        self._enter("linger")
        self.flow.resume_reading()
        if self.transport.can_write_eof():
            self.transport.write_eof()
