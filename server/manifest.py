"""server.json (the MCP registry entry), derived: the package name and version from pyproject.toml, the
calendars it names from the calendar registry. Never edit server.json by hand; regenerate it.

    python -m span_toolkit.server.manifest            # print the derived server.json
    python -m span_toolkit.server.manifest --write    # write it to ./server.json (the repository root)
    python -m span_toolkit.server.manifest --check    # exit 1, with one line, if ./server.json differs

(A development tool: it reads the repository's pyproject.toml, so run it from the repository root, or
give --root.)
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

from span_toolkit.span.calendars import ALL_CALENDAR_NAMES, prose

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
NAME = "io.github.span-toolkit/span-calendars"
TITLE = "SPAN calendar tools"
MAX_DESCRIPTION = 100  # the registry schema's limit


def description() -> str:
    """The registry entry's one line: what the tools do, and the registry's calendars by title, as many
    as fit the schema's 100 characters (then "…"). It states no count: server.json changes with a release,
    not with every calendar added (the server's own instructions and --help count them)."""
    head = "Exact dates, festivals and date arithmetic: "
    names = prose.titles(ALL_CALENDAR_NAMES)
    for k in range(len(names), 0, -1):
        text = head + ", ".join(names[:k]) + ("" if k == len(names) else ", …")
        if len(text) <= MAX_DESCRIPTION:
            return text
    return head.rstrip(": ")


def derive(pyproject: dict) -> dict:
    """server.json as the registry reads it, from the parsed pyproject.toml."""
    project = pyproject["project"]
    return {
        "$schema": SCHEMA,
        "name": NAME,
        "title": TITLE,
        "description": description(),
        "version": project["version"],
        "packages": [{
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": project["name"],
            "version": project["version"],
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
        }],
    }


def render(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def derived_text(root: Path) -> str:
    return render(derive(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m span_toolkit.server.manifest",
                                     description="server.json derived from pyproject.toml and the calendar registry")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="exit 1 if server.json is not the derived form")
    what.add_argument("--write", action="store_true", help="write the derived server.json")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root (default: .)")
    args = parser.parse_args(argv)
    if not (args.root / "pyproject.toml").is_file():
        print(f"manifest: error: no pyproject.toml in {args.root.resolve()}; run from the repository root or give "
              f"--root", file=sys.stderr)
        return 2
    text = derived_text(args.root)
    target = args.root / "server.json"
    if args.write:
        target.write_text(text, encoding="utf-8")
        return 0
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            print(f"manifest: {target} is not the derived form; run python -m span_toolkit.server.manifest --write",
                  file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
