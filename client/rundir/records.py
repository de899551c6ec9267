"""Typed records of a run folder (pydantic). Unknown fields are kept (``extra="allow"``), so a record read
and written back is unchanged, and a folder written by a newer minor revision loses nothing.

Format versions: 1 = the first released layout (run.json had no ``format_version``); 2 = adds
``format_version``, the ``time_agent`` mode with ``code_runs``, the per-call ``form`` of tool calls
and ``tool_call_counts`` / ``interrupted`` in the summary. Version 1 folders are read (and resumed)
as they are: every version-2 addition is optional.

Added within version 2, all optional (absent in older folders, which read as before): a result line's
``epoch`` (the attempt, 1..K under ``--epochs``; absent means 1), ``requests`` / ``batch_requests`` /
``cache_hits`` / ``cost_usd`` (what the attempt sent and cost), ``judge_requests`` / ``judge_cache_hits`` /
``judge_cost_usd`` (the same for the LLM judge); run.json's ``price`` and ``epochs``; the
summary's ``cost``, ``requests``, ``batch_requests``, ``cache_hits`` and ``epochs``; and the folder's
``batches.json`` (client.rundir.batches).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
MODES = ("unaided", "with_tools", "time_agent")


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class ToolCallRecord(_Record):
    """One tool call the model made and what came back. ``form`` says how it arrived: ``native`` (the
    provider's tool-call field) or ``text:<dialect>`` (written in the reply text, parsed by the client)."""

    id: str | None = None
    name: str | None = None
    arguments: Any = None
    result: Any = None
    is_error: bool = True
    turn: int | None = None
    form: str = "native"
    unusable: bool | None = None  # an attempt that could not be run (invalid JSON, cut off …): never executed


class CodeRun(_Record):
    """One execution of model-written code in the sandbox (Time Agent)."""

    turn: int
    code: str
    stdout: str = ""
    stderr: str = ""
    exit_reason: str
    returncode: int | None = None
    seconds: float = 0.0
    cpu_seconds: float | None = None
    truncated: bool = False
    kind: str | None = None  # process | bwrap


class JudgeVerdict(_Record):
    """One judge's grade of a final answer. The rules judge fills ``extracted`` and ``reason``; the LLM
    judge ``raw`` (its reply) and ``attempts``; ``error`` says the judge *request* failed (re-judged on
    resume)."""

    verdict: str  # CORRECT | INCORRECT | NOT_ATTEMPTED | UNSCORED
    extracted: str | None = None
    reason: str | None = None
    raw: str | None = None
    attempts: int | None = None
    error: str | None = None


class Usage(_Record):
    input_tokens: int | None = None
    output_tokens: int | None = None


class ResultLine(_Record):
    """One instance's result: the instance's own fields (as generated) plus how it was asked and judged."""

    # the instance (span.benchmark JSONL fields; only id and question are required of a user's file)
    id: str
    question: str
    eval_date: str | None = None
    reasoning_type: str | None = None
    question_format: str | None = None
    direction: str | None = None
    source_calendar: str | None = None
    target_calendar: str | None = None
    template_id: str | None = None
    variables: dict[str, Any] | None = None
    code: str | None = None
    answer: Any = None
    gold: Any = None
    # the attempt
    mode: str
    model: str
    messages: list[Any] = []
    tool_calls: list[ToolCallRecord] = []
    code_runs: list[CodeRun] = []
    final_answer: str | None = None
    stop_reason: str  # answered | max_turns | max_tokens | error
    turns: int = 0
    provider_stop_reason: str | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    retries: int = 0
    error: str | None = None
    error_kind: str | None = None
    notes: list[str] = []  # what the client did about a reply (repeated calls dropped, …)
    prompt_chars: int | None = None  # characters sent over all requests of this instance
    # with tools: calls identical to an earlier one of the instance (not run again), and why one last request
    # without tools was made ("repeats" | "max_turns"; absent when none was)
    repeats_caught: int | None = None
    final_turn: str | None = None
    # Time Agent: the first reply had no program and the model was reminded once; the final answer came
    # without any code having run
    code_reminder: bool | None = None
    answered_without_code: bool | None = None
    # at scale (client.scale): the attempt (1..K, --epochs; absent: 1), what it sent and what it cost (USD;
    # None: no price for the model, or a reply without token counts)
    epoch: int | None = None
    requests: int | None = None
    batch_requests: int | None = None
    cache_hits: int | None = None
    cost_usd: float | None = None
    # what the LLM judge's requests for this line sent and cost, every judging of it added up (eval, the
    # re-judging of a resume, `span-client judge`); only with an LLM judge
    judge_requests: int | None = None
    judge_cache_hits: int | None = None
    judge_cost_usd: float | None = None
    # the judgement
    verdicts: dict[str, JudgeVerdict] = {}
    primary_judge: str | None = None
    correct: bool | None = None


class RunInfo(_Record):
    """run.json: what was run, how, and when."""

    format_version: int = FORMAT_VERSION
    model: str
    mode: str
    judges: dict[str, Any] = {}
    primary_judge: str | None = None
    provider: dict[str, Any] = {}
    args: dict[str, Any] = {}
    settings: dict[str, Any] | None = None
    versions: dict[str, Any] = {}
    prompt_hashes: dict[str, Any] = {}
    system_prompt: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    resumed_at: list[str] = []
    n_instances: int | None = None
    n_already_done: int | None = None
    n_rejudged: int | None = None
    stopped: str | None = None
    interrupted: bool | None = None
    price: dict[str, Any] | None = None  # USD per million tokens used for cost_usd (client.pricing.Price)
    epochs: int | None = None


class Summary(_Record):
    """summary.json: counts over results.jsonl (see :func:`client.rundir.counts.count`)."""

    model: str | None = None
    mode: str | None = None
    n: int = 0
    n_scored: int = 0
    n_correct: int = 0
    accuracy: float | None = None
    n_errors: int = 0
    n_unscored: int = 0
    n_judge_errors: int = 0
    stop_reasons: dict[str, int] = {}
    per_judge: dict[str, dict[str, int]] = {}
    agreement: dict[str, Any] | None = None
