"""A sandbox for model-written Python (the Time Agent's code): never the client's own interpreter.

    from span_toolkit.client.sandbox import Limits, Sandbox, run_code
    async with Sandbox("auto", concurrency=2) as sb:
        r = await sb.run('print(search_calendar("gregorian", 2025, 7, 1)["hebrew_date"])')
        r.stdout, r.exit_reason          # '5785-4-5\\n', 'ok'

Modes, what each enforces and what is only discouraged: docs/sandbox.md.
"""

from .bwrap import bwrap_status
from .limits import (DEFAULT_LIMITS, EXIT_REASONS, KINDS, MAX_CODE_BYTES, STRONG_KINDS, ExecResult, Limits,
                     SandboxError)
from .rootfs import python_paths
from .pool import Sandbox, emergency_cleanup, run_code

__all__ = ["DEFAULT_LIMITS", "EXIT_REASONS", "KINDS", "MAX_CODE_BYTES", "STRONG_KINDS", "ExecResult", "Limits",
           "Sandbox", "SandboxError", "bwrap_status", "emergency_cleanup", "python_paths", "run_code"]
