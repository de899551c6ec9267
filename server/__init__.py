"""The SPAN MCP server: exact cross-calendar date tools over stdio and streamable HTTP.

`from server.app import build_server` gives the MCPServer; `span-server` / `python -m server` runs it.
Names are loaded lazily so that `span-server --help` and startup errors do not pay for importing the SDK.
"""

from __future__ import annotations

from importlib import metadata

DIST_NAME = "span-toolkit"

__all__ = ["build_server", "server_version"]


def server_version() -> str:
    """The installed package version (serverInfo.version), or a marker when running from a source tree."""
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "0.0.0+source"


def __getattr__(name: str):
    if name == "build_server":
        from .app import build_server

        return build_server
    raise AttributeError(name)
