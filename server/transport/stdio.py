"""stdio: the SDK's transport, with an answer for every line that is not a JSON-RPC message.

The SDK's stdio reader turns a line it cannot parse into an exception on its read stream, and the
session drops that (logged at DEBUG only), so a client with a framing bug would wait forever for an
answer. Here each such line is answered on stdout, as JSON-RPC 2.0 says:

    not JSON (a binary line too: it is read as UTF-8 with replacement)   -32700 Parse error
    JSON but not a message object (a batch, a number, an object that is
    neither request, notification nor response)                          -32600 Invalid Request

with "id": null unless the object carries a usable id, then reading goes on. Each bad line is logged
once, its echo cut to ECHO_CHARS. A blank line is no message and is skipped without an answer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from .logcap import ECHO_CHARS, cap

logger = logging.getLogger("span.server.stdio")

MAX_ECHOED_ID_CHARS = 200  # an id longer than any real client's is answered as null, not echoed back


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
        shown = repr(line.rstrip("\r\n")) if isinstance(line, str) else repr(exc)
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


class AnsweringReadStream:
    """The SDK's stdio read stream without its exception items: each is answered on the write stream."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream

    @property
    def last_context(self) -> Any:  # the sender's contextvars, which the SDK's loop restores per message
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._inner.receive()  # anyio.EndOfStream at the end of input
            if not isinstance(item, Exception):
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


@asynccontextmanager
async def answering_stdio_server() -> AsyncIterator[tuple[AnsweringReadStream, Any]]:
    """`mcp.server.stdio.stdio_server()` (which keeps stdout for the protocol), answering bad lines."""
    async with stdio_server() as (read_stream, write_stream):
        yield AnsweringReadStream(read_stream, write_stream), write_stream
