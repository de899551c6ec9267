"""stdio: the SDK's transport, with an answer for every line that is not a JSON-RPC message.

The SDK's stdio reader turns a line it cannot parse into an exception on its read stream, and the
session drops that (logged at DEBUG only), so a client with a framing bug would wait forever for an
answer. Here each such line is answered on stdout, as JSON-RPC 2.0 says:

    not JSON (a binary line too: it is read as UTF-8 with replacement)   -32700 Parse error
    JSON but not a message object (a batch, a number, an object that is
    neither request, notification nor response)                          -32600 Invalid Request

    longer than the line limit (--max-body-bytes, 1 MiB by default)     -32600 Invalid Request

with "id": null unless the object carries a usable id, then reading goes on. Each bad line is logged
once, its echo cut to ECHO_CHARS. A blank line is no message and is skipped without an answer.

stdin is read here, not by the SDK, because its reader keeps a whole line in memory however long it
is: one 200 MB line without a newline took the process to 820 MB. A line over the limit is read on
in 64 KiB pieces and thrown away, and what reaches the SDK in its place is a marker only this process
can write (a random token), answered as too long.

End of input drains (AnsweringReadStream): every request read before it is answered before the server
exits, within DRAIN_SECONDS (30 s), as a shell pipe expects.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager, suppress
from typing import Any, BinaryIO

import anyio

from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse
from pydantic import ValidationError

from .limits import MAX_BODY_BYTES
from .logcap import ECHO_CHARS, cap

logger = logging.getLogger("span.server.stdio")

MAX_ECHOED_ID_CHARS = 200  # an id longer than any real client's is answered as null, not echoed back
DEFAULT_MAX_LINE_BYTES = MAX_BODY_BYTES  # --max-body-bytes' default (transport/limits.py)
DISCARD_CHUNK = 64 * 1024
# Not JSON (so the SDK hands it on as a parse failure) and unguessable (so no client can forge it).
OVERSIZED = f"\x00span-oversized-line-{secrets.token_hex(16)} "


class CappedLines:
    """stdin as an async iterator of text lines of at most `max_bytes` bytes each (the SDK's reader
    takes any async iterable of str); a longer line becomes the OVERSIZED marker with its size."""

    def __init__(self, buffer: BinaryIO, max_bytes: int) -> None:
        self._buffer = buffer
        self._max = max_bytes

    def _read_line(self) -> str | None:
        data = self._buffer.readline(self._max + 1)
        if not data:
            return None
        if len(data) > self._max and not data.endswith(b"\n"):
            size = len(data)
            while not data.endswith(b"\n"):
                data = self._buffer.readline(DISCARD_CHUNK)
                if not data:
                    break
                size += len(data)
            return f"{OVERSIZED}{size} {self._max}"
        return data.decode("utf-8", errors="replace")

    def __aiter__(self) -> CappedLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._read_line)
        if line is None:
            raise StopAsyncIteration
        return line


def _kind(value: Any) -> str:
    return {list: "a batch (JSON array)", dict: "an object", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _parsed(errors: list[dict[str, Any]]) -> Any:
    """The JSON value a line held, as the validation errors carry it. Each error's location starts with
    the message type (request, notification, response, error) it was checked against: a value that is
    no object fails each type whole (location of length 1), and an object lacks a field some type
    requires (a 'missing' error, whose input is the object itself, at length 2)."""
    for e in errors:
        if len(e.get("loc", ())) <= 1 or (e.get("type") == "missing" and len(e["loc"]) == 2):
            return e.get("input")
    return None


def _usable_id(value: Any) -> str | int | None:
    rid = value.get("id") if isinstance(value, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        return None
    return rid if not isinstance(rid, str) or len(rid) <= MAX_ECHOED_ID_CHARS else None


def answer_for(exc: Exception) -> JSONRPCError | None:
    """The JSON-RPC error for a line the SDK could not read as a message (None for a blank line), and
    one log line saying what came in."""
    errors = exc.errors(include_url=False) if isinstance(exc, ValidationError) else []
    if not errors or errors[0].get("type") == "json_invalid":
        line = errors[0].get("input") if errors else None
        if isinstance(line, str) and not line.strip():
            return None
        if isinstance(line, str) and line.startswith(OVERSIZED):
            size, limit = line[len(OVERSIZED):].split()
            logger.warning("answered -32600 to a line of %s bytes (limit %s); it was not read", size, limit)
            return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
                code=INVALID_REQUEST, message=f"Invalid Request: the line is over {limit} bytes and was not read "
                                              "(span-server --max-body-bytes raises the limit)"))
        shown = repr(line.rstrip("\r\n")) if isinstance(line, str) else repr(exc)
        if errors and "recursion limit" in str(errors[0].get("msg", "")):
            logger.warning("answered -32700 to a line nested too deeply: %s", cap(shown, ECHO_CHARS))
            return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
                code=PARSE_ERROR, message="Parse error: the line nests arrays or objects too deeply to be read; "
                                          "send one JSON-RPC message per line, nested at most a few hundred levels"))
        logger.warning("answered -32700 to a line that is not JSON: %s", cap(shown, ECHO_CHARS))
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
            code=PARSE_ERROR, message="Parse error: the line is not JSON; send one JSON-RPC message per line"))
    value = _parsed(errors)
    if isinstance(value, list):
        message = "Invalid Request: a batch (JSON array) is not supported; send one JSON-RPC message per line"
    elif isinstance(value, dict):
        message = ('Invalid Request: not a JSON-RPC 2.0 message (a request needs "jsonrpc": "2.0", a string '
                   '"method" and an "id"; params, if given, an object)')
    else:
        message = f"Invalid Request: {_kind(value)} is not a JSON-RPC message; send one JSON object per line"
    try:
        echo = json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError):
        echo = repr(value)
    logger.warning("answered -32600 to %s: %s", _kind(value), cap(echo, ECHO_CHARS))
    return JSONRPCError(jsonrpc="2.0", id=_usable_id(value), error=ErrorData(code=INVALID_REQUEST, message=message))


DRAIN_SECONDS = 30.0  # at end of input, how long the requests already read may take to be answered


class AnsweringReadStream:
    """The SDK's stdio read stream without its exception items: each is answered on the write stream.

    End of input drains: the SDK's dispatcher cancels every handler still running when its read stream
    ends, so a client that writes its requests and closes stdin (``… | span-server``) lost the answers
    still being computed. Here the end of input reaches the SDK only once every request read before it
    has been answered (seen going out through ``TrackingWriteStream``), or after DRAIN_SECONDS."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream
        self.pending: set[Any] = set()  # ids of requests read and not answered yet
        self.drain_seconds = DRAIN_SECONDS

    def answered(self, message: Any) -> None:
        m = getattr(message, "message", message)
        if isinstance(m, (JSONRPCResponse, JSONRPCError)):
            self.pending.discard(_id_key(m.id))

    async def _drain(self) -> None:
        with anyio.move_on_after(self.drain_seconds):
            while self.pending:
                await anyio.sleep(0.005)
        if self.pending:
            logger.warning("end of input: %d request(s) still unanswered after %.0f s; exiting without them",
                           len(self.pending), self.drain_seconds)

    @property
    def last_context(self) -> Any:  # the sender's contextvars, which the SDK's loop restores per message
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            try:
                item = await self._inner.receive()  # anyio.EndOfStream at the end of input
            except anyio.EndOfStream:
                await self._drain()
                raise
            if not isinstance(item, Exception):
                if isinstance(item.message, JSONRPCRequest):
                    self.pending.add(_id_key(item.message.id))
                return item
            answer = answer_for(item)
            if answer is not None:
                await self._write.send(SessionMessage(answer))

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


def _id_key(rid: Any) -> tuple[str, Any]:
    return (type(rid).__name__, rid)  # 1 and "1" are different ids


class TrackingWriteStream:
    """The SDK's stdio write stream, telling the read side which requests have been answered."""

    def __init__(self, inner: Any, reader: AnsweringReadStream) -> None:
        self._inner = inner
        self._reader = reader

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        self._reader.answered(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> TrackingWriteStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


@contextmanager
def _protocol_stdin() -> Iterator[BinaryIO]:
    """The protocol's pipe, read from a private duplicate of fd 0 while fd 0 itself points at /dev/null, as
    the SDK does for the stdin it reads itself (a stream handed to it skips that): a handler or a child
    process that reads stdin gets end-of-file instead of protocol bytes. fd 0 is restored on exit; the
    duplicate is never closed (a reader thread may still block on it)."""
    try:
        import fcntl

        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        null = os.open(os.devnull, os.O_RDONLY)
    except (ImportError, OSError):  # no fcntl or no descriptors to spare: read fd 0 where it is
        yield sys.stdin.buffer
        return
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        with suppress(OSError):
            os.dup2(private, 0)


@asynccontextmanager
async def answering_stdio_server(max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                                 stdin: BinaryIO | None = None) -> AsyncIterator[tuple[AnsweringReadStream, Any]]:
    """`mcp.server.stdio.stdio_server()` (which keeps stdout for the protocol), reading capped lines
    from stdin and answering bad ones."""
    with ExitStack() as stack:
        source = stdin if stdin is not None else stack.enter_context(_protocol_stdin())
        lines = CappedLines(source, max_line_bytes)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            reader = AnsweringReadStream(read_stream, write_stream)
            yield reader, TrackingWriteStream(write_stream, reader)
