"""What defines a run in run.json: the settings a resume must match (another model or mode is always
refused; other differences need --force-resume), and the versions it ran with."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from span_toolkit import prompts
from .providers.registry import SDK_PACKAGES
from .rundir import RunFolderError, RunInfo
from .spec import RunSpec

PROMPTS_BY_MODE = {"unaided": ["system_unaided.md"],
                   "with_tools": ["system_tools.md", "tool_repeat.md", "tools_final_turn.md"]}


def run_settings(spec: RunSpec, provider: Any, scorer: Any, source: dict | None, mcp_target: Any = None) -> dict:
    """The settings that define a run (recorded in run.json; a resume must match them). ``source`` says
    what the instances are (client.dataset.Instances.source)."""
    cfg = spec
    pc = provider.config()
    if cfg.mode == "time_agent":
        from .solvers.timeagent_messages import prompt_files

        names = list(prompt_files())
    else:
        names = list(PROMPTS_BY_MODE[cfg.mode])
    if scorer.llm is not None:
        names.append("judge_llm.md")
    hashes = prompts.hashes()
    settings = {"model": provider.label, "mode": cfg.mode,
                "instances": source, "temperature": pc.get("temperature"), "max_tokens": pc.get("max_tokens"),
                "base_url": pc.get("base_url"), "max_turns": cfg.turns if cfg.mode != "unaided" else None,
                "tools_server": None, "judge_model": scorer.describe().get("llm"),
                "prompt_hashes": {name: hashes.get(name) for name in names}}
    if cfg.mode == "with_tools":
        settings["tools_server"] = cfg.server_url or ("in-process" if mcp_target is not None else "stdio")
        if cfg.offered_tools() is not None:
            settings["tools"] = sorted(cfg.offered_tools())
        if cfg.tool_calls != "auto":
            settings["tool_calls"] = cfg.tool_calls
            if cfg.tool_calls == "text":
                settings["prompt_hashes"]["tools_in_prompt.md"] = hashes.get("tools_in_prompt.md")
    if cfg.mode == "time_agent":
        settings["sandbox"] = cfg.sandbox
    return settings


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.update(_flat(v, key))
        else:
            out[key] = v
    return out


def _short(v: Any) -> str:
    if isinstance(v, str) and v.startswith("sha256:"):
        return v[:19]  # enough of a content hash to tell two apart
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def settings_differences(prev: dict, now: dict) -> list[str]:
    """Human-readable "key: before -> now" for every setting that differs."""
    a, b = _flat(prev), _flat(now)
    diffs = []
    for key in sorted(set(a) | set(b), key=lambda k: (k.split(".")[0] not in ("instances",), k)):
        if a.get(key) != b.get(key):
            diffs.append(f"{key} {_short(a.get(key))} -> {_short(b.get(key))}")
    return diffs


def check_resume(prev: RunInfo | None, out_dir: Path, model: str, mode: str, settings: dict,
                 force: bool = False) -> list[str]:
    """The setting differences accepted with --force-resume (refused otherwise; another model or mode is
    always refused)."""
    if prev is None:
        return []
    if prev.model != model or prev.mode != mode:
        raise RunFolderError(f"{out_dir} holds a run of {prev.model} ({prev.mode}), not {model} ({mode}); "
                             f"use another --out")
    if not isinstance(prev.settings, dict):
        return []  # a run folder from before settings were recorded: model and mode only
    diffs = settings_differences(prev.settings, settings)
    if diffs and not force:
        raise RunFolderError(f"{out_dir} holds a run with other settings ({'; '.join(diffs)}); re-run with the "
                             f"same arguments, use another --out, or add --force-resume to continue it anyway")
    return diffs


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("span-toolkit", *SDK_PACKAGES, "mcp"):  # the SDKs: anthropic, openai
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out
