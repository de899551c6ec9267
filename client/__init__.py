"""SPAN evaluation client: ``span-client`` (eval, judge, tools, demo, generate, report)."""

from __future__ import annotations

__all__ = ["__version__"]

try:  # pragma: no cover - depends on installation
    from importlib.metadata import version as _version

    __version__ = _version("span-toolkit")
except Exception:  # pragma: no cover
    __version__ = "0+unknown"
