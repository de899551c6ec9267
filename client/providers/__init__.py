"""Model providers behind one small async interface (see :mod:`client.providers.base`).

``make_provider("anthropic/claude-x" | "openai/gpt-x" | "openai-compatible/<m>")``; what differs between
the kinds lives in :mod:`.registry` (key, base URL, factory, prices, Batch API, pre-flight). The offline
scripted agents, which stand where an LLM would, are not providers: client.agents (client.models builds
either from a ``--model``).
"""

from __future__ import annotations

from . import registry
from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec
from .registry import KIND_NAMES, NO_TEMPERATURE, ModelRef, ModelSpecError, ProviderKind

__all__ = ["ModelReply", "Provider", "ProviderError", "ToolCall", "ToolResult", "ToolSpec", "make_provider",
           "ModelRef", "ModelSpecError", "ProviderKind", "NO_TEMPERATURE", "KIND_NAMES", "parse_provider_model"]


def parse_provider_model(spec: str | ModelRef, *, option: str = "--model") -> ModelRef:
    """``"anthropic/claude-x"`` -> ModelRef(anthropic, "claude-x"), or ModelSpecError (one line)."""
    if isinstance(spec, ModelRef):
        return spec
    ref = registry.provider_ref(spec)
    if ref is None:
        raise ModelSpecError(f"{option} must be an LLM given as PROVIDER/MODEL with PROVIDER one of "
                             f"{', '.join(KIND_NAMES)} (e.g. {registry.examples()}); got {spec!r}")
    return ref


def make_provider(spec: str | ModelRef, *, base_url: str | None = None, api_key: str | None = None,
                  temperature: float | str | None = None, max_tokens: int = 2048, timeout: float | None = None,
                  key_option: str = "--api-key") -> Provider:
    """The provider of an LLM (``PROVIDER/MODEL``). ``key_option`` is the command-line option the
    missing-key message names (the judge's is --judge-api-key)."""
    option = "--judge-model" if key_option.startswith("--judge") else "--model"
    return registry.make_provider(parse_provider_model(spec, option=option), base_url=base_url, api_key=api_key,
                                  temperature=temperature, max_tokens=max_tokens, timeout=timeout,
                                  key_option=key_option)
