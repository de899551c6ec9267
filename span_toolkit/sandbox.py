"""The project's sandbox (``client.sandbox``) as an inspect_ai sandbox environment named ``span``.

Why an inspect sandbox environment rather than a sandbox opened inside the solver: inspect gives it a
task-wide life (``task_init`` starts the warm slots once, ``task_cleanup`` stops them and removes their
files), so a sample pays a fork per program, not an interpreter start; and every run goes through
inspect's ``exec``, so ``inspect view`` shows each program and its output as a sandbox event.

What it runs: Python programs only, each in a fresh confined process with ``search_calendar`` and
``datetime`` ready (the Time Agent's contract, README "Sandbox"). ``exec`` accepts the forms a solver or
inspect's own ``python()`` tool sends (``python3 -`` with the program on stdin, ``python3 -c CODE``,
``bash --login -c "python3 -"``); any other command is a failed result saying so. No file survives a
program, so ``write_file`` / ``read_file`` refuse with that reason.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Literal

from inspect_ai.util import ExecResult as InspectExecResult
from inspect_ai.util import SandboxEnvironment, SandboxUserUnsupportedError, sandboxenv
from pydantic import BaseModel, ConfigDict, Field

from ._client import SANDBOX_KINDS, Sandbox, SandboxError

_PY = ("python", "python3")
_NO_FILES = ("the span sandbox keeps no files: each program runs alone in a fresh private work dir "
             "that is removed when it ends; print what you need instead")


class SpanSandboxConfig(BaseModel):
    """``sandbox=("span", ...)`` settings: isolation kind (client.sandbox.KINDS; ``auto`` by default: bubblewrap
    or namespaces, never the weaker ``unsafe-process`` unless named) and warm slots."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["auto", "bwrap", "namespaces", "unsafe-process"] = "auto"
    slots: int = Field(default_factory=lambda: max(1, min(2, os.cpu_count() or 1)), ge=1, le=64)


def _config(config: Any) -> SpanSandboxConfig:
    if config is None:
        return SpanSandboxConfig()
    if isinstance(config, SpanSandboxConfig):
        return config
    if isinstance(config, str) and config in SANDBOX_KINDS:
        return SpanSandboxConfig(kind=config)  # type: ignore[arg-type]
    if isinstance(config, dict):
        return SpanSandboxConfig.model_validate(config)
    raise ValueError(f"span sandbox: config must be one of {', '.join(SANDBOX_KINDS)} or "
                     f"SpanSandboxConfig(kind=..., slots=...), got {config!r:.80}")


def program_of(cmd: list[str], input: str | bytes | None) -> str | None:
    """The Python program an ``exec`` command runs, or None when it is not one this sandbox runs."""
    if isinstance(input, bytes):
        input = input.decode("utf-8", "replace")
    if len(cmd) == 4 and cmd[:3] == ["bash", "--login", "-c"] and cmd[3].split() in (["python3", "-"],
                                                                                       ["python", "-"]):
        return input or ""
    if not cmd or os.path.basename(cmd[0]) not in _PY:
        return None
    if cmd[1:] in ([], ["-"]):
        return input or ""
    if len(cmd) == 3 and cmd[1] == "-c":
        return cmd[2]
    return None


@sandboxenv(name="span")
class SpanSandboxEnvironment(SandboxEnvironment):
    """One sample's view of the task's shared :class:`client.sandbox.Sandbox`. ``runs`` keeps the
    detailed result (exit reason, limits hit, isolation) of every program this sample ran."""

    _pools: dict[SpanSandboxConfig, Sandbox] = {}

    def __init__(self, pool: Sandbox) -> None:
        super().__init__()
        self.pool = pool
        self.runs: list[Any] = []  # client.sandbox.ExecResult, in order

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return SpanSandboxConfig.model_validate(config)

    @classmethod
    def _pool(cls, config: Any) -> Sandbox:
        cfg = _config(config)
        pool = cls._pools.get(cfg)
        if pool is None:
            try:
                pool = Sandbox(cfg.kind, concurrency=cfg.slots)
            except SandboxError as e:
                raise RuntimeError(f"span sandbox: {e}") from None
            cls._pools[cfg] = pool
        return pool

    @classmethod
    async def task_init(cls, task_name: str, config: Any) -> None:
        await cls._pool(config).start()

    @classmethod
    async def sample_init(cls, task_name: str, config: Any, metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        pool = cls._pool(config)
        await pool.start()  # already started by task_init; also serves a caller that skipped it
        return {"default": cls(pool)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: Any, environments: dict[str, SandboxEnvironment],
                             interrupted: bool) -> None:
        return None  # nothing outlives a program: each ran in its own process and work dir

    @classmethod
    async def task_cleanup(cls, task_name: str, config: Any, cleanup: bool) -> None:
        pool = cls._pools.pop(_config(config), None)
        if pool is not None:
            await pool.close()

    @classmethod
    async def cli_cleanup(cls, id: str | None) -> None:
        return None  # slots live in the eval's own process and end with it

    async def run(self, code: str, timeout: float | None = None) -> Any:
        """Run one program; the detailed result (client.sandbox.ExecResult), also kept in ``runs``. A
        ``timeout`` shorter than the sandbox's wall-clock limit replaces it for this program."""
        limits = self.pool.limits
        if timeout is not None and 0 < timeout < limits.wall_seconds:
            limits = dataclasses.replace(limits, wall_seconds=float(timeout))
        result = await self.pool.run(code, limits)
        self.runs.append(result)
        return result

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> InspectExecResult[str]:
        # cwd and env are not taken: the program's environment is scrubbed and its work dir private on
        # purpose (model-written code never sees the eval's variables or files)
        if user is not None:
            raise SandboxUserUnsupportedError(f"the span sandbox runs every program as its own slot user; "
                                              f"it cannot run as {user!r}")
        code = program_of(cmd, input)
        if code is None:
            return InspectExecResult(False, 127, "", "the span sandbox runs Python programs only "
                                     "(python3 - with the program on stdin, or python3 -c CODE); "
                                     f"got {' '.join(cmd)[:80]!r}")
        r = await self.run(code, timeout)
        return InspectExecResult(r.ok, r.returncode if r.returncode is not None else 1, r.stdout, r.stderr)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        raise PermissionError(_NO_FILES)

    async def read_file(self, file: str, text: bool = True) -> Any:  # type: ignore[override]
        raise FileNotFoundError(_NO_FILES)
