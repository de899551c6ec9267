"""What a sandboxed snippet may use (Limits) and what came out of it (ExecResult)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

# How snippets are confined (docs/sandbox.md). "auto" is the first strong mode
# that works here; the strong modes hide the host's files, processes and sockets; "unsafe-process" does
# not, and is never chosen unless asked for by name.
KINDS = ("auto", "bwrap", "namespaces", "unsafe-process")
STRONG_KINDS = ("bwrap", "namespaces")

# Why a run ended. "ok" and "error" are the snippet's own doing (exit status 0 / non-zero, an
# uncaught exception); every other reason is a limit or the sandbox itself.
EXIT_REASONS = ("ok", "error", "timeout", "cpu", "memory", "output_limit", "killed", "sandbox_error")

MAX_CODE_BYTES = 100_000


class SandboxError(RuntimeError):
    """The sandbox could not be set up (bad limits, no mode available); not a snippet's failure."""


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 10.0          # killed (with its whole process group) after this
    cpu_seconds: int = 5                # RLIMIT_CPU: SIGKILL at this
    memory_bytes: int = 512 * 2**20     # RLIMIT_AS (address space, so includes the interpreter's ~60 MB)
    file_size_bytes: int = 1 * 2**20    # RLIMIT_FSIZE: largest file it may write
    max_processes: int = 1              # RLIMIT_NPROC of its uid: 1 = itself only, no fork, no thread
    max_output_bytes: int = 64 * 1024   # stdout + stderr together; killed once exceeded
    max_open_files: int = 64            # RLIMIT_NOFILE

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise SandboxError(f"sandbox limit {f.name} must be a positive number, got {v!r}")
        if self.memory_bytes < 64 * 2**20:
            raise SandboxError(f"sandbox limit memory_bytes must be at least 64 MiB (the interpreter and "
                               f"span need ~60 MB of address space), got {self.memory_bytes}")
        if self.max_open_files < 8:
            raise SandboxError(f"sandbox limit max_open_files must be at least 8, got {self.max_open_files}")

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT_LIMITS = Limits()


@dataclass
class ExecResult:
    stdout: str
    stderr: str
    exit_reason: str                    # one of EXIT_REASONS
    returncode: int | None              # exit status, or -signal when killed by a signal
    seconds: float                      # wall time from request to exit, as the client saw it
    truncated: bool = False             # output stopped at max_output_bytes
    cpu_seconds: float | None = None    # user + system CPU of the snippet's process
    kind: str = "auto"                  # the mode that ran it (bwrap, namespaces, unsafe-process)
    isolation: dict = field(default_factory=dict)  # what this run actually had (uid drop, netns, ...)

    @property
    def ok(self) -> bool:
        return self.exit_reason == "ok"

    def as_dict(self) -> dict:
        return asdict(self)
