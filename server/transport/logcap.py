"""Bounded log lines: whatever a client sends, what reaches stderr stays small.

A client controls tool names, arguments and headers, and the SDK and uvicorn log some of them
(e.g. "Unknown tool …", the whole JSON-RPC message at DEBUG). So every record passes through
`CapFilter` (each %-argument to ECHO_CHARS, the rendered message to MESSAGE_CHARS) and
`CapFormatter` (each traceback line to TRACE_LINE_CHARS and the traceback to its last TRACE_CHARS).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

ECHO_CHARS = 80
MESSAGE_CHARS = 1500
TRACE_LINE_CHARS = 300
TRACE_CHARS = 6000
ELLIPSIS = "…"


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
