"""Bounded log lines: whatever a client sends, what reaches stderr stays small.

A client controls tool names, arguments and headers, and the SDK and uvicorn log some of them
(e.g. "Unknown tool …", the whole JSON-RPC message at DEBUG). So every record passes through
`CapFilter` (each %-argument to ECHO_CHARS, the rendered message to MESSAGE_CHARS) and
`CapFormatter` (each traceback line to TRACE_LINE_CHARS and the traceback to its last TRACE_CHARS).
And what a client can make happen at will (a shed connection, a 413, a closed session) is counted by a
`ThrottledLog` and logged as one summary line per second, not one line per event.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

ECHO_CHARS = 80
MESSAGE_CHARS = 1500
TRACE_LINE_CHARS = 300
TRACE_CHARS = 6000
ELLIPSIS = "…"
HTTP_LOG = logging.getLogger("span.server.http")


def cap(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut marked with … and how much was left out."""
    if len(text) <= limit:
        return text
    note = f"{ELLIPSIS}[{len(text) - limit} more chars]"
    return text[: max(0, limit - len(note))] + note


def _cap_arg(arg: Any) -> Any:
    # Numbers keep their type so %d / %.2f still work; anything else is shown as text.
    if isinstance(arg, (int, float)) or arg is None:
        return arg
    if isinstance(arg, (bytes, bytearray)):
        arg = bytes(arg[: ECHO_CHARS * 4])
        return arg if len(arg) <= ECHO_CHARS else cap(repr(arg), ECHO_CHARS)
    try:
        text = arg if isinstance(arg, str) else str(arg)
    except Exception:  # noqa: BLE001 - a broken __str__ must not lose the log line
        return f"<unprintable {type(arg).__name__}>"
    return arg if len(text) <= ECHO_CHARS else cap(text, ECHO_CHARS)


class CapFilter(logging.Filter):
    """Cut long %-arguments and long rendered messages; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            if isinstance(record.args, Mapping):
                record.args = {k: _cap_arg(v) for k, v in record.args.items()}
            else:
                record.args = tuple(_cap_arg(a) for a in record.args)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string: let logging report it as usual
            return True
        if len(message) > MESSAGE_CHARS:
            record.msg, record.args = cap(message, MESSAGE_CHARS), None
        return True


class CapFormatter(logging.Formatter):
    """A Formatter whose tracebacks keep their last TRACE_CHARS characters, each line at most TRACE_LINE_CHARS."""

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        text = "\n".join(cap(line, TRACE_LINE_CHARS) for line in super().formatException(ei).splitlines())
        if len(text) > TRACE_CHARS:
            text = f"{ELLIPSIS}[traceback start cut]\n" + text[-TRACE_CHARS:]
        return text

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return cap(stack_info, TRACE_CHARS)


class ThrottledLog:
    """Client-caused events (shed, refused, timed out, rejected) counted and logged as one line per interval."""

    def __init__(self, describe: dict[str, str], interval: float = 1.0, logger: logging.Logger = HTTP_LOG) -> None:
        self._describe = describe  # kind -> text with {n}
        self._logger = logger
        self._interval = interval
        self._counts: Counter[str] = Counter()
        self._last = -interval
        self._pending: asyncio.TimerHandle | None = None
        self.total: Counter[str] = Counter()

    def count(self, kind: str) -> None:
        self._counts[kind] += 1
        self.total[kind] += 1
        if self._pending is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # outside the loop (tests): report at once
                self.flush()
                return
            delay = max(0.0, self._last + self._interval - time.monotonic())
            self._pending = loop.call_later(delay, self.flush)

    def flush(self) -> None:
        self._pending = None
        if not self._counts:
            return
        parts = [self._describe.get(kind, kind + " x{n}").format(n=n) for kind, n in sorted(self._counts.items())]
        self._counts.clear()
        self._last = time.monotonic()
        # One preformatted message, no %-arguments: the log cap would shorten an argument this long.
        self._logger.warning("clients: " + "; ".join(parts).replace("%", "%%"))
