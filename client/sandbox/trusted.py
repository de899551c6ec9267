"""Which sandbox mode runs *trusted* code (the demo's scripted reference-code agent, written by this
toolkit, not by a model): the strong mode ``auto`` finds when there is one, else ``unsafe-process`` with a
note saying so. A model's code never comes through here: ``eval --time-agent`` keeps refusing to run
without a strong mode."""

from __future__ import annotations

import asyncio
import sys

from .limits import SandboxError
from .pool import Sandbox


async def _try(kind: str) -> None:
    async with Sandbox(kind):
        pass


def trusted_code_kind(requested: str) -> tuple[str | None, str | None]:
    """(mode, note): the mode to run trusted code with, or None when no mode runs here at all; a note to
    print when the mode is not what was asked for."""
    if requested != "auto":
        return requested, None
    if sys.platform != "linux":
        return None, (f"the Time Agent's sandbox needs Linux (this is {sys.platform}); the reference-code arm "
                      f"is skipped")
    try:
        asyncio.run(_try("auto"))
        return "auto", None
    except SandboxError as e:
        reason = "; ".join(getattr(e, "reasons", None) or [str(e)])
        return "unsafe-process", (f"no sandbox isolates here ({reason}); the reference-code agent's programs are "
                                  f"trusted code written by this toolkit, not a model's, so they run with "
                                  f"--sandbox unsafe-process (eval --time-agent with a model still refuses)")
