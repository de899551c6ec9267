"""build_server(): the SPAN MCP server (tools, argument checks, error messages, /health)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp import MCPError
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND, CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from span_toolkit.span.calendars import prose as _prose

from .version import server_version
from . import tools as _tools

logger = logging.getLogger("span.server")

SERVER_NAME = "span"
CATALOG_URI = "span://calendars"

# Calendar names and counts come from the registry (span.calendars.prose), never written here.
INSTRUCTIONS = (
    f"Exact date tools for {_prose.count_text()}: {_prose.paper_and_more()}. Use search_calendar "
    "to convert a date or find a festival's date, date_arithmetic to add or subtract days/weeks/months/years "
    "in any calendar (both answer in the six and the source calendar, or in the calendars named in "
    "`targets`), date_difference to count days between two dates, and list_calendars for names, month "
    "numbers and festivals; today gives the current date in any calendar for a time zone (and, with a place, "
    "the Hebrew and Islamic dates that roll at sunset). Do the calendar math with these tools instead of "
    "estimating. " + _tools.RANGE_TEXT
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
    "target_calendars": "targets",
    "target": "targets",
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


def _lean(schema: Any) -> Any:
    """The schema without what no validator and no model needs: pydantic's generated `title` on every
    property and definition, `default` (the server applies it), and `anyOf [X, null]` spelled as
    `type: [X, "null"]` (same meaning, a third of the size). `properties` maps are walked by value only,
    so a property that is itself called "title" or "default" stays."""
    if isinstance(schema, list):
        return [_lean(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "default"):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _lean(sub) for name, sub in value.items()}
        else:
            out[key] = _lean(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = next(o for o in options if o != {"type": "null"})
        if isinstance(other.get("type"), str) and "$ref" not in other:
            del out["anyOf"]
            out = {**other, **out, "type": [other["type"], "null"]}
    return out


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


ECHO_LIMIT = _tools.ECHO_LIMIT
_short = _tools.short


# What each argument takes, in words: the second half of every argument-validation message.
_DATE_OBJECT = ("a date object {calendar, year, month, day, optional is_lunar_leap_month}, e.g. "
                '{"calendar": "gregorian", "year": 2025, "month": 7, "day": 1}')
VALID = {
    "calendar": _tools.CALENDAR_WORDS.removeprefix("valid: "),
    "year": f"an integer from {_tools.MIN_YEAR} to {_tools.MAX_YEAR}, the year in that calendar's numbering "
            f"(e.g. 2025, 5785 for hebrew)",
    "month": "a month number from 1 to 13 (13: hebrew Adar II, coptic/ethiopian epagomenal month; bahai 0-19) or "
             "a month name, e.g. 'Shevat', 'Ramadan'",
    "day": "an integer from 1 to 31",
    "is_lunar_leap_month": "true or false",
    "festival_name": "a festival name of that calendar (text, at most 200 characters)",
    "days": f"an integer from -{_tools.MAX_DAYS} to {_tools.MAX_DAYS}",
    "weeks": f"an integer from -{_tools.MAX_WEEKS} to {_tools.MAX_WEEKS}",
    "months": f"an integer from -{_tools.MAX_MONTHS} to {_tools.MAX_MONTHS}",
    "years": f"an integer from -{_tools.MAX_YEARS} to {_tools.MAX_YEARS}",
    "targets": f'a list of calendar names, e.g. ["julian", "korean_lunar"]; {_tools.TARGET_WORDS}',
    "start": _DATE_OBJECT,
    "end": _DATE_OBJECT,
    # the arguments of #31/#32 (their own validators name what is valid; these cover wrong JSON types)
    "era": "an era name (text), e.g. 'Reiwa', 'Heisei', 'Minguo', for japanese_era and roc only; "
           "list_calendars names each calendar's eras",
    "gregorian_year": "an integer from 1900 to 2100 (with festival_name, instead of year)",
    "islamic_adjustment": "an integer from -2 to 2 (days the local Hijri date runs ahead of the table)",
    "anniversary": "'birthday' or 'yahrzeit' (with years >= 1)",
    "names_only": "true or false",
    "timezone": "an IANA time zone name, e.g. 'UTC', 'Asia/Jerusalem'",
    "instant": "an ISO 8601 date-time, e.g. '2025-03-13T23:30:00Z'",
    "latitude": "degrees from -90 to 90 (north positive)",
    "longitude": "degrees from -180 to 180 (east positive)",
    "day_starts": "'midnight' or 'sunset'",
}


def format_validation_error(tool: str, exc: ValidationError) -> str:
    """One line per problem, naming the argument and what it takes, e.g.
    `year: expected an integer, the year in that calendar (e.g. 2025, 5785 for hebrew); got 'abc'`."""
    parts = []
    for err in exc.errors(include_url=False):
        where = tuple(err.get("loc", ()))
        # the innermost argument name in the location: "month" for month.int (a union's branch: shown as
        # "month", once), "year" for start.year, "targets" for targets.0
        at = next((i for i in range(len(where) - 1, -1, -1) if isinstance(where[i], str) and where[i] in VALID), None)
        last = "" if at is None else str(where[at])
        if at is not None and err.get("type") != "value_error":
            where = where[: at + 1] + tuple(p for p in where[at + 1:] if not isinstance(p, str))
        loc = ".".join(str(p) for p in where) or "arguments"
        loc = loc if len(loc) <= ECHO_LIMIT else loc[: ECHO_LIMIT - 1] + "…"
        valid = VALID.get(last, "see the tool's input schema")
        kind = err.get("type", "")
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        if kind == "missing":
            parts.append(f"{loc}: required argument missing ({valid})")
        elif kind == "extra_forbidden":
            parts.append(f"{loc}: unexpected argument")
        elif kind == "value_error":  # our own validators: the message names the value and what is valid
            parts.append(f"{loc}: {_short(msg, 400) if len(msg) > 400 else msg}")
        else:
            parts.append(f"{loc}: expected {valid}; got {_short(err.get('input'))}")
    parts = list(dict.fromkeys(parts))  # a union's branches failing alike say it once
    return f"invalid arguments for {tool}: " + "; ".join(parts[:6]) + ("; …" if len(parts) > 6 else "")


def _json_kind(value: Any) -> str:
    return {str: "a string", list: "an array", bool: "a boolean", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), "an object")


MAX_METHOD_CHARS = 100  # the longest MCP method name is about 40 characters


async def check_call_envelope(ctx: Any, call_next: Any) -> Any:
    """Server middleware: a tools/call whose `name` is not a string or whose `arguments` is not an object
    fails the SDK's params validation before any tool code, as a bare "Invalid request parameters".
    Say which parameter and what it takes instead (same JSON-RPC error code). An unknown method name is
    not echoed whole either (the SDK would return it as the error's data, 1 MB in, 1 MB out)."""
    if isinstance(ctx.method, str) and len(ctx.method) > MAX_METHOD_CHARS:
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=_short(ctx.method))
    if ctx.method == "tools/call" and isinstance(ctx.params, dict):
        name, arguments = ctx.params.get("name"), ctx.params.get("arguments")
        problem = None
        if not isinstance(name, str):
            problem = f"'name' must be a tool name (a string), got {_json_kind(name)}"
        elif arguments is not None and not isinstance(arguments, dict):
            problem = (f"'arguments' for {_short(name)} must be a JSON object of argument names and values, "
                       f"got {_json_kind(arguments)} {_short(arguments)}")
        if problem is not None:
            raise MCPError(code=INVALID_PARAMS, message=f"invalid tools/call request: {problem}")
    return await call_next(ctx)


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


class SpanServer(MCPServer):
    """MCPServer whose tools answer with a compact text (one line per calendar) next to the full
    structuredContent, and whose errors always carry a short message a model can act on."""

    def __init__(self, *args: Any, tools: list[Tool] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, tools=tools, **kwargs)
        self._by_name = {t.name: t for t in tools or ()}
        self._schemas = {t.name: t.parameters for t in tools or ()}

    stdio_max_line_bytes: int | None = None  # None: transport/stdio.py's default (1 MiB)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, with a JSON-RPC error for each line that is not a message or is too long
        (transport/stdio.py) instead of silence."""
        from .transport.stdio import DEFAULT_MAX_LINE_BYTES, answering_stdio_server

        async with answering_stdio_server(self.stdio_max_line_bytes or DEFAULT_MAX_LINE_BYTES) as (
                read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream,
                                            self._lowlevel_server.create_initialization_options())

    def _normalize(self, name: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties", {})
        out: dict[str, Any] = {}
        given_as: dict[str, str] = {}
        for key, value in arguments.items():
            target = key if key in props else KEY_ALIASES.get(key)
            if target not in props:
                valid = f"valid arguments: {', '.join(props)}" if props else "it takes no arguments"
                raise ToolError(f"unexpected argument {_short(key)} for {name}; {valid}")
            if target in out and out[target] != value:
                raise ToolError(f"{target!r} given twice (as {given_as[target]!r} and {key!r}) with different "
                                f"values; give it once")
            out[target] = value
            given_as[target] = key
        for param in DATE_OBJECT_PARAMS.get(name, ()):
            if isinstance(out.get(param), dict):
                out[param] = self._normalize_date_object(name, param, out[param])
        return out

    def _normalize_date_object(self, name: str, param: str, value: dict[str, Any]) -> dict[str, Any]:
        fields = ("calendar", "year", "month", "day", "is_lunar_leap_month", "era")
        out: dict[str, Any] = {}
        for key, v in value.items():
            if key in DATEINFO_OUTPUT_KEYS:
                continue  # a DateInfo passed back from a result: its derived fields carry nothing new
            target = key if key in fields else KEY_ALIASES.get(key)
            if target not in fields:
                raise ToolError(f"unexpected field {_short(key)} in {param} of {name}; a date has the fields "
                                f"{', '.join(fields)}")
            out[target] = v
        return out

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> CallToolResult:
        tool = self._by_name.get(name)
        if tool is None:
            # Answered here rather than raised: the SDK would log the whole name (any size) at INFO.
            logger.info("unknown tool %s", _short(name))
            return _error(f"unknown tool {_short(name)}; available tools: {', '.join(self._by_name)}")
        if not isinstance(arguments, dict):
            raise ToolError(f"arguments for {name} must be a JSON object")
        arguments = self._normalize(name, arguments, self._schemas[name])
        # The SDK's Tool.run would validate the same way, then re-validate the returned model against the
        # output model and render it as indented JSON (~1.3 KB, the text a model reads). Our tools return
        # typed models whose fields are already checked, so the result is dumped once and the text is the
        # model's compact form.
        try:
            kwargs = tool.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            # `from` the ValidationError: the SDK then logs only the field names, not the values.
            raise ToolError(format_validation_error(name, exc)) from exc
        try:
            result = await tool.fn(**kwargs)
        except ToolError:
            raise
        except Exception as exc:
            # GUARD: an exception other than CalendarError escaped the calendar core or the result
            # models. That is a bug in span/ (report it with these arguments); the model still gets a
            # clear, actionable error instead of the SDK's bare "Error executing tool", and the
            # traceback goes to the log on stderr.
            logger.error("internal error in tool %s with arguments %s", name, _short(arguments, 400), exc_info=exc)
            raise ToolError(
                f"internal error in {name} ({type(exc).__name__}) for these arguments; this is a bug in "
                f"the SPAN calendar core, not in your input. Try an equivalent query (e.g. another calendar "
                f"for the same day) or report it."
            ) from exc
        return _tools.render(result)


def build_server(*, log_level: str = "INFO") -> SpanServer:
    """The SPAN MCP server with its tools (server.tools.TOOLS) and a /health route (used by the HTTP transport)."""
    version = server_version()
    tools = []
    for name, fn in _tools.TOOLS.items():
        tool = Tool.from_function(
            fn,
            name=name,
            title=_tools.TITLES[name],
            description=_tools.DESCRIPTIONS[name],
            annotations=ToolAnnotations(**ANNOTATIONS),  # the title is the tool's own, said once
            structured_output=True,
        )
        params = _lean(_inline_refs(tool.parameters))
        _close_objects(params)
        tool.parameters = params
        # Output schemas keep pydantic's $defs (one DateInfo definition instead of seven inline copies:
        # tools/list is a third of the size) and lose only titles and defaults.
        tool.fn_metadata.output_schema = _lean(tool.fn_metadata.output_schema)
        tools.append(tool)
    server = SpanServer(
        SERVER_NAME,
        title="SPAN cross-calendar date tools",
        description=f"Exact conversions, festivals and date arithmetic in {_prose.count_text()}.",
        instructions=INSTRUCTIONS,
        version=version,
        tools=tools,
        log_level=log_level,
        middleware=[check_call_envelope],
    )

    # The reference a model does not need on every request, for hosts that show resources and prompts:
    # the same catalog list_calendars returns, as text.
    @server.resource(CATALOG_URI, name="calendars", title="Calendars, months and festivals",
                     description="Every calendar's aliases, month numbers and names, supported years; every "
                                 "festival with its calendar and rule; the conventions (Hebrew month numbering, "
                                 "lunar leap months, tabular Islamic vs Umm al-Qura).", mime_type="text/plain")
    async def catalog_resource() -> str:
        return (await _tools.list_calendars()).text()

    @server.prompt(name="calendar_conventions", title="SPAN calendar conventions",
                   description="The conventions the tools follow, to put in front of a conversation.")
    def conventions_prompt() -> str:
        return "The SPAN calendar tools follow these conventions. " + _tools.CONVENTIONS

    @server.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:  # noqa: ARG001
        return JSONResponse({"status": "ok", "name": SERVER_NAME, "version": version,
                             "tools": list(_tools.TOOLS)})

    return server
