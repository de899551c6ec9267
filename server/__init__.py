"""The SPAN MCP server: exact cross-calendar date tools over stdio and streamable HTTP.

`from server.app import build_server` gives the MCPServer; `span-server` / `python -m server` runs it.
"""

from .app import build_server, server_version

__all__ = ["build_server", "server_version"]
