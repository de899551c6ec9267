"""What one evaluation run is, as one typed value: built once from the command line
(``client.commands.eval``), or in Python, and handed whole to the runner.

    from span_toolkit.client.spec import RunSpec
    from span_toolkit.client.runner import run_eval
    summary = asyncio.run(run_eval(RunSpec(model="reference", mode="with_tools", out_dir=Path("runs/ref"),
                                           dates=("2025-07-01",), sample=20)))

Secrets (``api_key``, ``judge_api_key``, ``server_token``) are held here for the run and never recorded:
``recorded()`` is what run.json keeps of the spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

MODES = ("unaided", "with_tools", "time_agent")
TOOL_CALL_MODES = ("auto", "native", "text")
SECRETS = ("api_key", "judge_api_key", "server_token")
DEFAULT_MAX_TURNS = {"unaided": 1, "with_tools": 8, "time_agent": 2}


@dataclass(frozen=True)
class RunSpec:
    # who is asked, how
    model: str
    out_dir: Path
    mode: str = "unaided"                     # unaided | with_tools | time_agent
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float | str | None = None    # None: the provider's default; "none": send no temperature
    max_tokens: int = 2048
    reasoning_effort: str | None = None       # OpenAI reasoning_effort (passed through to compatible servers)
    thinking_budget: int | None = None        # Anthropic thinking.budget_tokens; compatible: enable_thinking
    drop_thinking: bool = False               # record no thinking text (sizes and tokens still)
    # the instances: a file, or generated for evaluation dates (ISO strings)
    instances_file: Path | None = None
    dates: tuple[str, ...] = ()
    sample: int | None = None
    seed: int = 0
    generation: Any = None                    # with dates: a span.benchmark.GenerationRequest (None: the paper's)
    # the arm's means
    server_url: str | None = None             # with_tools: streamable HTTP; None: span-server over stdio
    server_token: str | None = field(default=None, repr=False)
    tools: tuple[str, ...] | str | None = None  # with_tools: offered tools; None: the evaluation set; "all"
    tool_calls: str = "auto"                  # auto | native | text
    sandbox: str = "auto"                     # time_agent: client.sandbox.KINDS
    max_turns: int | None = None              # None: DEFAULT_MAX_TURNS of the mode
    # pacing and failures
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 6
    retry_base_delay: float = 1.0
    max_retry_wait: float = 60.0
    preflight: bool = True
    # judging
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_api_key: str | None = field(default=None, repr=False)
    # at scale (client.scale): attempts per instance, the response cache, prices and a spend limit, Batch APIs
    epochs: int = 1
    cache: bool = False
    cache_dir: Path | None = None             # None: the user's cache folder (client.cache.default_cache_dir)
    price_in: float | None = None             # USD per million tokens, replacing the price table's
    price_out: float | None = None
    budget: float | None = None               # USD: stop asking once the run's spend reaches it
    batch: bool = False                       # unaided: through the provider's Batch API
    batch_poll: float = 30.0                  # seconds between a batch's status checks
    # the run folder
    force_resume: bool = False
    quiet: bool = False
    command: dict[str, Any] = field(default_factory=dict)  # how it was asked for (run.json "args"; no secrets)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.tool_calls not in TOOL_CALL_MODES:
            raise ValueError(f"tool_calls must be one of {', '.join(TOOL_CALL_MODES)}, got {self.tool_calls!r}")
        if (self.instances_file is None) == (not self.dates):
            raise ValueError("give either instances_file or dates")
        if not isinstance(self.epochs, int) or self.epochs < 1:
            raise ValueError(f"epochs must be a whole number >= 1, got {self.epochs!r}")
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        if self.cache_dir is not None:
            object.__setattr__(self, "cache_dir", Path(self.cache_dir))
            object.__setattr__(self, "cache", True)  # --cache-dir turns the cache on: run.json says so
        object.__setattr__(self, "dates", tuple(self.dates))
        if self.tools is not None and self.tools != "all":
            object.__setattr__(self, "tools", tuple(self.tools))

    def offered_tools(self) -> tuple[str, ...] | None:
        """The MCP tools offered to the model (None: every tool the server lists)."""
        if self.tools == "all":
            return None
        if self.tools:
            return tuple(self.tools)
        from span_toolkit.server.tools import EVAL_TOOLS  # what every SPAN question needs, ~1,000 tokens of definitions

        return tuple(EVAL_TOOLS)

    @property
    def ref(self):
        """``model`` parsed, once (client.models.ModelRef: the provider kind and model id, or an offline
        scripted agent); ModelSpecError for a name that is neither."""
        ref = self.__dict__.get("_ref")
        if ref is None:
            from .models import parse_model

            ref = parse_model(self.model)
            object.__setattr__(self, "_ref", ref)
        return ref

    def generation_request(self):
        """The GenerationRequest of `dates`, with this run's sample (and its seed, which then seeds the
        generation too, as `span-client generate --sample --seed` does)."""
        from span_toolkit.span.benchmark import GenerationRequest

        return GenerationRequest.of(self.generation, sample=self.sample, seed=self.seed if self.sample else 0)

    @property
    def turns(self) -> int:
        """Model requests per instance with tools, code runs per instance as a Time Agent."""
        return self.max_turns or DEFAULT_MAX_TURNS[self.mode]

    def recorded(self) -> dict[str, Any]:
        """The spec as run.json keeps it: secrets only say whether they were given."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in SECRETS:
                v = "***" if v else None
            if f.name == "generation":
                v = v.recorded() if v is not None else {}
            out[f.name] = str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v
        return {**out, "command": dict(self.command)}
