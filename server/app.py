"""build_server(): the SPAN MCP server (tools, argument checks, error messages, /health)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from . import server_version
from . import tools as _tools

logger = logging.getLogger("span.server")

SERVER_NAME = "span"

INSTRUCTIONS = (
    "Exact date tools for six calendars (Gregorian, Chinese lunar, Islamic tabular, Hebrew, Shaka, "
    "Persian). Use search_calendar to convert a date or find a festival's date, date_arithmetic to add "
    "or subtract days/weeks/months/years in any calendar, date_difference to count days between two "
    "dates, and list_calendars for names, month numbers and festivals. Do the calendar math with these "
    "tools instead of estimating. " + _tools.RANGE_TEXT
)

# Argument names models commonly use (the paper's own code calls search_calendar(calendar=..., event=...)),
# mapped to the published names. Only applied where the target parameter exists.
KEY_ALIASES = {
    "calendar_name": "calendar",
    "event": "festival_name",
    "festival": "festival_name",
    "is_leap_month": "is_lunar_leap_month",
    "leap_month": "is_lunar_leap_month",
    "is_leap": "is_lunar_leap_month",
}
# Keys of span.models.DateInfo that are output-only: a DateInfo from a result may be passed back as a date.
DATEINFO_OUTPUT_KEYS = ("month_name", "display", "numeric")
DATE_OBJECT_PARAMS = {"date_difference": ("start", "end")}

ANNOTATIONS = dict(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline `$defs` references (our input models are not recursive): some MCP hosts do not resolve $ref."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = dict(walk(defs[ref.removeprefix("#/$defs/")]))
                rest = {k: walk(v) for k, v in node.items() if k != "$ref"}
                return {**target, **rest}
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(x) for x in node]
        return node

    return walk(schema)


def _close_objects(schema: Any) -> None:
    """additionalProperties: false on every object schema (unknown arguments are rejected anyway)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" and "properties" in schema:
            schema.setdefault("additionalProperties", False)
        for v in schema.values():
            _close_objects(v)
    elif isinstance(schema, list):
        for v in schema:
            _close_objects(v)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_validation_error(tool: str, exc: ValidationError) -> str:
    """One readable line per problem, e.g. `year: Input should be a valid integer (got 'abc')`."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        kind = err.get("type", "")
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        if kind == "missing":
            parts.append(f"{loc}: required argument missing")
        elif kind == "extra_forbidden":
            parts.append(f"{loc}: unexpected argument")
        elif kind == "value_error":  # our own validators: the message already names the value
            parts.append(f"{loc}: {msg}")
        else:
            parts.append(f"{loc}: {msg} (got {_short(err.get('input'))})")
    return f"invalid arguments for {tool}: " + "; ".join(parts)


class SpanServer(MCPServer):
    """MCPServer whose tool errors always carry a message a model can act on."""

    def __init__(self, *args: Any, tools: list[Tool] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, tools=tools, **kwargs)
        self._schemas = {t.name: t.parameters for t in tools or ()}

    def _normalize(self, name: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties", {})
        out: dict[str, Any] = {}
        for key, value in arguments.items():
            target = key if key in props else KEY_ALIASES.get(key)
            if target not in props:
                valid = f"valid arguments: {', '.join(props)}" if props else "it takes no arguments"
                raise ToolError(f"unexpected argument {key!r:.60} for {name}; {valid}")
            if target in out and out[target] != value:
                raise ToolError(f"{target!r} given twice (as {key!r} too) with different values; give it once")
            out[target] = value
        for param in DATE_OBJECT_PARAMS.get(name, ()):
            if isinstance(out.get(param), dict):
                out[param] = self._normalize_date_object(name, param, out[param])
        return out

    def _normalize_date_object(self, name: str, param: str, value: dict[str, Any]) -> dict[str, Any]:
        fields = ("calendar", "year", "month", "day", "is_lunar_leap_month")
        out: dict[str, Any] = {}
        for key, v in value.items():
            if key in DATEINFO_OUTPUT_KEYS:
                continue  # a DateInfo passed back from a result: its derived fields carry nothing new
            target = key if key in fields else KEY_ALIASES.get(key)
            if target not in fields:
                raise ToolError(f"unexpected field {key!r} in {param} of {name}; a date has the fields "
                                f"{', '.join(fields)}")
            out[target] = v
        return out

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> CallToolResult:
        schema = self._schemas.get(name)
        if schema is None:
            raise ToolError(f"unknown tool {name!r}; available tools: {', '.join(self._schemas)}")
        if not isinstance(arguments, dict):
            raise ToolError(f"arguments for {name} must be a JSON object")
        arguments = self._normalize(name, arguments, schema)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            # GUARD: an exception other than CalendarError escaped the calendar core or the result
            # models. That is a bug in span/ (report it with these arguments); the model still gets a
            # clear, actionable error instead of the SDK's bare "Error executing tool", and the
            # traceback goes to the log on stderr.
            cause = exc.__cause__
            logger.error("internal error in tool %s with arguments %r", name, arguments, exc_info=cause)
            raise ToolError(
                f"internal error in {name} ({type(cause).__name__}) for these arguments; this is a bug in "
                f"the SPAN calendar core, not in your input. Try an equivalent query (e.g. another calendar "
                f"for the same day) or report it."
            ) from exc
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                # `from` the ValidationError: the SDK then logs only the field names, not the values.
                raise ToolError(format_validation_error(name, exc.__cause__)) from exc.__cause__
            if isinstance(exc.__cause__, ToolError):
                # The SDK prefixes our message with "Error executing tool X: "; send it as the other
                # errors are sent, the message alone, so every error reads the same way.
                raise ToolError(str(exc.__cause__)) from exc.__cause__
            raise


def build_server(*, log_level: str = "INFO") -> SpanServer:
    """The SPAN MCP server with its four tools and a /health route (used by the HTTP transport)."""
    version = server_version()
    tools = []
    for name, fn in _tools.TOOLS.items():
        tool = Tool.from_function(
            fn,
            name=name,
            title=_tools.TITLES[name],
            description=_tools.DESCRIPTIONS[name],
            annotations=ToolAnnotations(title=_tools.TITLES[name], **ANNOTATIONS),
            structured_output=True,
        )
        params = _inline_refs(tool.parameters)
        _close_objects(params)
        tool.parameters = params
        # Inlined output schema too: the same JSON Schema, but clients that re-validate every result
        # (the SDK's ClientSession does, with jsonschema) skip $ref resolution (~20% cheaper here), and
        # hosts that do not resolve $ref can still read it.
        tool.fn_metadata.output_schema = _inline_refs(tool.fn_metadata.output_schema)
        tools.append(tool)
    server = SpanServer(
        SERVER_NAME,
        title="SPAN cross-calendar date tools",
        description="Exact conversions, festivals and date arithmetic in six calendars.",
        instructions=INSTRUCTIONS,
        version=version,
        tools=tools,
        log_level=log_level,
    )

    @server.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:  # noqa: ARG001
        return JSONResponse({"status": "ok", "name": SERVER_NAME, "version": version,
                             "tools": list(_tools.TOOLS)})

    return server
