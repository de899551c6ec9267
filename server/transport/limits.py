"""Resource limits of the streamable-HTTP server: defaults, flags, environment variables, checks.

Each limit comes from its flag, else its environment variable, else the default below. A bad value
is a StartupError with one line naming the flag/variable and what is valid. Pure: no sockets here.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Mapping
from dataclasses import dataclass

# Descriptors kept back from the connection cap for everything else the process opens (listening
# socket, epoll, self-pipe, stdio, files imported or read lazily): accept() must never hit EMFILE.
FD_RESERVE = 64
# Beyond a few thousand connections an MCP calendar server is better scaled out than made wider;
# each idle connection still costs memory.
MAX_CONNECTIONS_CEILING = 4096
MIN_CONNECTIONS = 16
# The largest request body (HTTP) and the longest line (stdio) by default.
MAX_BODY_BYTES = 1024 * 1024


class LimitError(ValueError):
    """A limit given on the command line or in the environment is not valid (one line)."""


@dataclass(frozen=True)
class Spec:
    name: str      # attribute of HttpLimits
    flag: str
    env: str
    kind: type     # int or float
    default: float | int | None  # None: computed (max_connections)
    minimum: float
    maximum: float
    unit: str
    help: str


SPECS = (
    Spec("max_body_bytes", "--max-body-bytes", "SPAN_SERVER_MAX_BODY_BYTES", int, MAX_BODY_BYTES, 1024, 2 ** 31,
         "bytes", "largest request body; bigger ones get 413 before they are read (under stdio: the "
                  "longest line, answered -32600 unread)"),
    Spec("header_timeout", "--header-timeout", "SPAN_SERVER_HEADER_TIMEOUT", float, 10.0, 0.5, 3600,
         "seconds", "deadline for a whole request head (request line + headers), counted from the "
                    "connection or its first byte; bytes trickled in do not extend it"),
    Spec("body_timeout", "--body-timeout", "SPAN_SERVER_BODY_TIMEOUT", float, 30.0, 0.5, 3600,
         "seconds", "deadline for a whole request body, counted from the end of the head"),
    Spec("keep_alive_timeout", "--keep-alive-timeout", "SPAN_SERVER_KEEP_ALIVE_TIMEOUT", float, 5.0, 0.1, 3600,
         "seconds", "how long an idle keep-alive connection waits for its next request"),
    Spec("max_connections", "--max-connections", "SPAN_SERVER_MAX_CONNECTIONS", int, None, MIN_CONNECTIONS,
         10 ** 6, "connections", "open connections at most; beyond it the connection that has waited "
                                 "longest without a complete request is closed"),
    Spec("shutdown_timeout", "--shutdown-timeout", "SPAN_SERVER_SHUTDOWN_TIMEOUT", float, 5.0, 0.0, 600,
         "seconds", "on SIGTERM/SIGINT, how long running requests may finish before they are cancelled; "
                    "the process exits at most 3 s after that in any case"),
    Spec("session_idle_timeout", "--session-idle-timeout", "SPAN_SERVER_SESSION_IDLE_TIMEOUT", float, 300.0, 1,
         86400, "seconds", "an MCP session with no request in flight for this long is closed; its id then "
                           "gets 404 and the client starts a new session"),
    Spec("max_sessions", "--max-sessions", "SPAN_SERVER_MAX_SESSIONS", int, 1000, 1, 10 ** 6, "sessions",
         "open MCP sessions at most; a new one beyond it closes the least recently used idle session"),
)


@dataclass(frozen=True)
class HttpLimits:
    max_body_bytes: int = MAX_BODY_BYTES
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    max_connections: int = 1000
    shutdown_timeout: float = 5.0
    session_idle_timeout: float = 300.0
    max_sessions: int = 1000

    def describe(self, sessions: bool = True) -> str:
        text = (f"limits: body {self.max_body_bytes} bytes, {self.max_connections} connections, head "
                f"{_num(self.header_timeout)} s, body {_num(self.body_timeout)} s, keep-alive "
                f"{_num(self.keep_alive_timeout)} s, shutdown {_num(self.shutdown_timeout)} s")
        if sessions:
            text += f", {self.max_sessions} sessions idle at most {_num(self.session_idle_timeout)} s"
        return text


def _num(x: float) -> str:
    return f"{x:g}"


def file_limit() -> int | None:
    """The soft RLIMIT_NOFILE, or None when unlimited."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def connection_ceiling(nofile: int | None) -> int:
    """The most connections the file limit allows with FD_RESERVE descriptors kept back."""
    return 10 ** 6 if nofile is None else nofile - FD_RESERVE


def default_max_connections(nofile: int | None) -> int:
    return min(MAX_CONNECTIONS_CEILING, connection_ceiling(nofile))


def _parse(spec: Spec, raw: str, source: str) -> float | int:
    text = raw.strip().replace("_", "")
    valid = (f"{spec.flag} / {spec.env} must be a whole number of {spec.unit} from {int(spec.minimum)} to "
             f"{int(spec.maximum)}" if spec.kind is int else
             f"{spec.flag} / {spec.env} must be a number of {spec.unit} from {spec.minimum:g} to {spec.maximum:g}")
    try:
        value = spec.kind(text)
    except ValueError:
        raise LimitError(f"{valid}, got {raw[:40]!r} ({source})") from None
    if value != value or not spec.minimum <= value <= spec.maximum:  # NaN fails too
        raise LimitError(f"{valid}, got {raw[:40]!r} ({source})")
    return value


def _given(spec: Spec, flag: str | None, environ: Mapping[str, str]) -> float | int | None:
    """The flag's value, else the environment variable's, else None; LimitError if invalid."""
    raw, source = flag, spec.flag
    if raw is None and environ.get(spec.env, "").strip():
        raw, source = environ[spec.env], spec.env
    return None if raw is None else _parse(spec, str(raw), source)


def resolve_stdio_line_limit(flag: str | None = None, environ: Mapping[str, str] | None = None) -> int:
    """The longest stdio line read, in bytes: --max-body-bytes, else its variable, else its default.
    The only limit stdio has (one client, one pipe), resolved without the HTTP-only ones."""
    spec = next(s for s in SPECS if s.name == "max_body_bytes")
    value = _given(spec, flag, os.environ if environ is None else environ)
    return int(spec.default if value is None else value)


def resolve_limits(flags: dict[str, str | None] | None = None, environ: dict[str, str] | None = None,
                   nofile: int | None = -1) -> HttpLimits:
    """Flags (attribute name -> raw string or None) over environment over defaults; LimitError if invalid."""
    flags = flags or {}
    environ = os.environ if environ is None else environ
    nofile = file_limit() if nofile == -1 else nofile
    values: dict[str, float | int] = {}
    for spec in SPECS:
        value = _given(spec, flags.get(spec.name), environ)
        if value is not None:
            values[spec.name] = value
    ceiling = connection_ceiling(nofile)
    if ceiling < MIN_CONNECTIONS:
        raise LimitError(f"the file limit (ulimit -n) is {nofile}; span-server needs at least "
                         f"{MIN_CONNECTIONS + FD_RESERVE} (raise it with `ulimit -n 4096`)")
    if "max_connections" in values:
        if values["max_connections"] > ceiling:
            raise LimitError(f"--max-connections / SPAN_SERVER_MAX_CONNECTIONS is {values['max_connections']} but the "
                             f"file limit (ulimit -n) of {nofile} allows at most {ceiling} ({FD_RESERVE} descriptors "
                             "are kept for the server itself); raise `ulimit -n` or lower it")
    else:
        values["max_connections"] = default_max_connections(nofile)
    return HttpLimits(**values)
