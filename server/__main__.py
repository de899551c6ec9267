"""`span-server` / `python -m span_toolkit.server`: run the SPAN MCP server over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import logging
import sys

from span_toolkit.span.calendars import prose as _prose

from . import tools as _tools
from .version import server_version
from .transport.limits import SPECS, LimitError, resolve_limits, resolve_stdio_line_limit

# Light imports only: the SDK (and the calendar core) load after the arguments are checked, so
# --help, --version and startup errors answer at once.
TOKEN_ENV = "SPAN_SERVER_TOKEN"
ALLOWED_HOSTS_ENV = "SPAN_SERVER_ALLOWED_HOSTS"
ALLOWED_ORIGINS_ENV = "SPAN_SERVER_ALLOWED_ORIGINS"

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _default_text(spec) -> str:
    if spec.default is None:
        return "the file limit minus 64, at most 4096"
    return f"{spec.default}" if spec.kind is int else f"{spec.default:g}"


def _limits_text() -> str:
    lines = []
    for spec in SPECS:
        default = f"{_default_text(spec)} {spec.unit}" if spec.default is not None else _default_text(spec)
        lines.append(f"  {spec.flag:<23} {spec.env:<33} default {default}")
    return "\n".join(lines)


LIMITS_TEXT = _limits_text()

EPILOG = f"""\
transports:
  stdio (default)   the MCP host starts span-server and talks over stdin/stdout; only protocol
                    messages go to stdout, logs go to stderr. --host/--port are not used.
  streamable-http   serve http://HOST:PORT/mcp (MCP endpoint) and /health (JSON status).

security (streamable-http):
  On a loopback host (127.0.0.1, localhost, ::1) DNS-rebinding protection is on: requests whose
  Host header is not 127.0.0.1:*, localhost:* or [::1]:* get HTTP 421.
  On any other host (e.g. 0.0.0.0) the server starts only when both are set:
    --allowed-hosts (or {ALLOWED_HOSTS_ENV}): the Host headers clients use,
        e.g. mcp.example.com (any port) or mcp.example.com:8443 (that port only)
    {TOKEN_ENV}: a bearer token (>= 16 characters) that clients send as
        "Authorization: Bearer <token>" (/health needs none)
  {TOKEN_ENV} is honoured on loopback too when set.

limits (streamable-http; flag, else environment variable, else default; under stdio only
--max-body-bytes applies, as the longest line read):
{LIMITS_TEXT}
  A client that trickles bytes cannot extend a deadline. At the connection limit the connection
  that has waited longest without a complete request is closed (then the longest-held event
  stream); client misbehaviour is logged as at most one summary line per second. Long values are
  cut in log lines (80 characters each). A closed session's id gets 404: the client initializes
  again. --stateless-http has no sessions.

examples:
  span-server                                   # stdio, for Claude Desktop / VS Code
  span-server --transport streamable-http --port 8000
  {TOKEN_ENV}=... span-server --transport streamable-http --host 0.0.0.0 \\
      --allowed-hosts mcp.example.com
  npx @modelcontextprotocol/inspector@2.12.0 --cli span-server --method tools/list
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="span-server",
        # the calendars counted and named from the registry (span.calendars.prose)
        description=f"SPAN MCP server: exact conversions, festivals and date arithmetic across "
                    f"{_prose.count_text()}: {_prose.paper_and_more()}. "
                    f"Tools: {', '.join(_tools.TOOLS)}.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio",
                        help="how MCP clients connect (default: stdio)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="streamable-http: address to bind (default: 127.0.0.1; a non-loopback address "
                             f"needs --allowed-hosts and {TOKEN_ENV})")
    parser.add_argument("--port", type=int, default=8000,
                        help="streamable-http: port to bind (default: 8000; 0 picks a free port, printed on "
                             "stderr)")
    parser.add_argument("--path", default="/mcp", help="streamable-http: MCP endpoint path (default: /mcp)")
    parser.add_argument("--allowed-hosts", action="append", metavar="HOST[:PORT][,...]",
                        help="streamable-http: Host header values to accept besides the loopback names "
                             f"(repeatable or comma-separated; default from {ALLOWED_HOSTS_ENV})")
    parser.add_argument("--allowed-origins", action="append", metavar="ORIGIN[,...]",
                        help="streamable-http: Origin header values to accept (default: http(s):// plus each "
                             f"allowed host; or {ALLOWED_ORIGINS_ENV})")
    parser.add_argument("--stateless-http", action="store_true",
                        help="streamable-http: no sessions (each request stands alone; easier to scale out)")
    parser.add_argument("--json-response", action=argparse.BooleanOptionalAction, default=True,
                        help="streamable-http: answer each POST with one JSON body (default); "
                             "--no-json-response answers with an SSE stream instead. The tools never stream, "
                             "and JSON costs the server less per call")
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="INFO", type=str.upper,
                        help="log level for stderr (default: INFO)")
    parser.add_argument("--access-log", action="store_true",
                        help="streamable-http: log every HTTP request (to stderr)")
    limits = parser.add_argument_group("limits (streamable-http; --max-body-bytes also caps a stdio line)")
    for spec in SPECS:
        default = _default_text(spec)
        metavar = {"bytes": "BYTES", "connections": "N", "sessions": "N"}.get(spec.unit, "SECONDS")
        limits.add_argument(spec.flag, dest=spec.name, metavar=metavar,
                            help=f"{spec.help} (default: {default}; or {spec.env})")
    parser.add_argument("--version", action="version", version=f"span-server {server_version()}")
    return parser


def configure_logging(level: str) -> None:
    # Plain lines on stderr, set up before the server so the SDK's basicConfig does not add its own
    # handler. stdout belongs to the protocol under stdio.
    # Every record is capped (long echoed values cut to 80 characters, the message to 1.5 KB): clients
    # choose tool names and arguments, and the SDK logs some of them.
    from .transport.logcap import CapFilter, CapFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(CapFormatter("span-server %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(CapFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.log_level)
    # Checked before the heavy imports below, so a bad value answers at once.
    try:
        if args.transport == "streamable-http":
            limits = resolve_limits({spec.name: getattr(args, spec.name) for spec in SPECS})
        else:
            line_limit = resolve_stdio_line_limit(args.max_body_bytes)
    except LimitError as exc:
        print(f"span-server: error: {exc}", file=sys.stderr)
        return 2
    from .transport import StartupError

    try:
        if args.transport == "stdio":
            if sys.stdin is None or sys.stdout is None:
                raise StartupError("stdin or stdout is closed: under stdio the MCP host talks to span-server over "
                                   "both (or serve HTTP: --transport streamable-http)")
            from .app import build_server

            server = build_server(log_level=args.log_level)
            server.stdio_max_line_bytes = line_limit
            server.run("stdio")  # SpanServer.run_stdio_async: lines that are no message get an error
            return 0
        from .transport.http import run_http
        from .transport.security import resolve_security

        if not 0 <= args.port <= 65535:
            raise StartupError(f"--port must be 0–65535, got {args.port}")
        if not args.path.startswith("/"):
            raise StartupError(f"--path must start with '/', got {args.path!r}")
        security = resolve_security(args.host, args.allowed_hosts, args.allowed_origins)
        from .app import build_server

        server = build_server(log_level=args.log_level)
        run_http(server, security, host=args.host, port=args.port, path=args.path,
                 json_response=args.json_response, stateless_http=args.stateless_http,
                 log_level=args.log_level, access_log=args.access_log, limits=limits)
        return 0
    except StartupError as exc:
        print(f"span-server: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
