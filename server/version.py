"""The server's version: the installed package's (what serverInfo.version and server.json say)."""

from __future__ import annotations

from importlib import metadata

DIST_NAME = "span-toolkit"


def server_version() -> str:
    """The installed package version, or a marker when running from a source tree."""
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "0.0.0+source"
