"""`span-client tools list|call`: the MCP server's tools from the shell (no LLM involved)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from typing import Any

from ..mcp_tools import TOKEN_ENV, MCPConnectionError, MCPTools
from . import common



def configure(tl: argparse.ArgumentParser) -> None:
    tsub = tl.add_subparsers(dest="tools_command", metavar="{list,call}")
    tsub.required = True
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument("--server-url", help="MCP server URL (streamable HTTP); default: start span-server over stdio")
    shared.add_argument("--server-token", metavar="TOKEN",
                        help=f"bearer token for --server-url (default: the {TOKEN_ENV} environment variable)")
    shared.add_argument("--json", action="store_true", help="print JSON")
    tls = common.one_line_errors(tsub.add_parser("list", parents=[shared], help="list tools"))
    tls.set_defaults(func=run_list)
    tlc = common.one_line_errors(tsub.add_parser(
        "call", parents=[shared], help="call a tool",
        description="Call a tool: --args '{\"calendar\":\"hebrew\",\"year\":5785,\"festival_name\":\"Passover\"}' "
                    "or key=value pairs (values parsed as JSON when they can be, else strings); options may come "
                    "before or after the pairs. Exit 1 with the tool's message on an error."))
    tlc.add_argument("name", help="tool name, e.g. search_calendar")
    tlc.add_argument("pairs", nargs="*", metavar="key=value", help="arguments as key=value pairs")
    tlc.add_argument("--args", dest="args_json", help="arguments as one JSON object")
    tlc.set_defaults(func=run_call)


def run(args) -> int:  # the subcommand's own func is set by configure
    return args.func(args)


def _arguments(args) -> dict:
    out: dict[str, Any] = {}
    if args.args_json:
        try:
            value = json.loads(args.args_json, parse_constant=_no_constant, parse_float=_finite)
        except ValueError as e:
            raise common.UsageError(f"--args is not valid JSON: {e}") from None
        except RecursionError:
            raise common.UsageError("--args nests arrays or objects too deeply; a tool's arguments are one flat "
                                    "JSON object, e.g. '{\"calendar\": \"hebrew\", \"year\": 5785}'") from None
        if not isinstance(value, dict):
            raise common.UsageError("--args must be a JSON object, e.g. '{\"calendar\": \"hebrew\", \"year\": 5785}'")
        out.update(value)
    for pair in args.pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise common.UsageError(f"expected key=value, got {pair!r}")
        try:
            out[key] = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
        except (ValueError, RecursionError):
            out[key] = raw  # NaN / Infinity too: sent as the text given (JSON has no such numbers)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):  # 1e999: JSON would carry it as null
        raise ValueError(f"{text} is too large for a number")
    return value


def _with_mcp(args, fn):
    token = args.server_token or (os.environ.get(TOKEN_ENV) if args.server_url else None)

    async def go():
        with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
            try:
                async with MCPTools(args.server_url, errlog=errlog, token=token) as mcp:
                    return await fn(mcp)
            except MCPConnectionError as e:
                errlog.seek(0)
                tail = errlog.read()[-2000:].strip()
                raise MCPConnectionError(f"{e}" + (f"\n--- server stderr ---\n{tail}" if tail else "")) from None

    return asyncio.run(go())


def run_list(args) -> int:
    async def go(mcp):
        return mcp.tools

    try:
        tools = _with_mcp(args, go)
    except MCPConnectionError as e:
        common.print_err(str(e))
        return 1
    if args.json:
        print(json.dumps([{"name": t.name, "title": t.title, "description": t.description,
                           "input_schema": t.input_schema, "output_schema": t.output_schema} for t in tools],
                         indent=2, ensure_ascii=False))
        return 0
    for t in tools:
        print(f"{t.name}{f' — {t.title}' if t.title else ''}")
        desc = " ".join((t.description or "").split())
        if desc:
            first = desc.split(". ")[0].rstrip(".") + "."
            print(f"    {first if len(first) <= 200 else first[:197] + '...'}")
        props = (t.input_schema or {}).get("properties", {})
        required = set((t.input_schema or {}).get("required", []))
        if props:
            print("    arguments: " + ", ".join(f"{k}{'' if k in required else '?'}" for k in props))
    return 0


def run_call(args) -> int:
    arguments = _arguments(args)

    async def go(mcp):
        return await mcp.call(args.name, arguments)

    try:
        text, is_error, structured = _with_mcp(args, go)
    except MCPConnectionError as e:
        common.print_err(str(e))
        return 1
    if is_error:
        if args.json:
            print(json.dumps({"error": text}, ensure_ascii=False))
        print(f"span-client: {args.name}: {text}", file=sys.stderr)
        return 1
    if args.json:
        value: Any = structured
        if value is None:
            try:
                value = json.loads(text)
            except ValueError:
                value = {"text": text}
        print(json.dumps(value, indent=2, ensure_ascii=False))
    elif structured is not None:
        _print_tree(structured)
    else:
        print(text)
    return 0


def _print_tree(value: Any, indent: int = 0) -> None:
    pad = "  " * indent
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict) and "display" in v and "calendar" in v:
                disputed = f"  [disputed: {v['disputed']}]" if v.get("disputed") else ""
                print(f"{pad}{k}: {v['display']}  ({v.get('numeric', '')}){disputed}")
            elif isinstance(v, (dict, list)) and v:
                print(f"{pad}{k}:")
                _print_tree(v, indent + 1)
            else:
                print(f"{pad}{k}: {_scalar(v)}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                print(f"{pad}-")
                _print_tree(v, indent + 1)
            else:
                print(f"{pad}- {_scalar(v)}")
    else:
        print(f"{pad}{_scalar(value)}")


def _scalar(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


_VALUE_OPTIONS = {"--args", "--server-url", "--server-token"}


def reorder_call_args(argv: list[str]) -> list[str]:
    """`tools call NAME --json k=v`: argparse stops taking positionals after an option, so move the key=value
    pairs behind the options (values of options that take one stay with them)."""
    if argv[:2] != ["tools", "call"]:
        return argv
    head, opts, pairs = argv[:2], [], []
    rest = argv[2:]
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in _VALUE_OPTIONS and i + 1 < len(rest):
            opts += [a, rest[i + 1]]
            i += 2
            continue
        (opts if a.startswith("-") else pairs).append(a)
        i += 1
    return head + opts + pairs
