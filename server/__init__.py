"""The SPAN MCP server: exact cross-calendar date tools over stdio and streamable HTTP.

`from span_toolkit.server.app import build_server` gives the MCPServer; `span-server` / `python -m span_toolkit.server` runs it.
Names are loaded lazily so that `span-server --help` and startup errors do not pay for importing the SDK.
"""

from __future__ import annotations

from .version import DIST_NAME, server_version

__all__ = ["DIST_NAME", "build_server", "server_version"]


def __getattr__(name: str):
    if name == "build_server":
        from .app import build_server

        return build_server
    raise AttributeError(name)
