"""Model providers behind one small async interface (see :mod:`client.providers.base`).

``make_provider("anthropic/claude-x" | "openai/gpt-x" | "openai-compatible/<m>" | "reference" | "baseline")``
"""

from __future__ import annotations

import os

from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec

__all__ = ["ModelReply", "Provider", "ProviderError", "ToolCall", "ToolResult", "ToolSpec", "make_provider",
           "parse_model", "ModelSpecError", "OFFLINE_AGENTS", "NO_TEMPERATURE"]

OFFLINE_AGENTS = ("reference", "baseline")
NO_TEMPERATURE = "none"  # --temperature none: send no temperature at all (reasoning models reject one)
PROVIDERS = ("anthropic", "openai", "openai-compatible")


class ModelSpecError(ValueError):
    """Bad --model / key / base URL combination (a one-line message for the user)."""


def parse_model(spec: str) -> tuple[str, str | None]:
    """``"anthropic/claude-x"`` -> ("anthropic", "claude-x"); ``"reference"`` -> ("reference", None)."""
    spec = (spec or "").strip()
    if spec in OFFLINE_AGENTS:
        return spec, None
    provider, sep, model = spec.partition("/")
    if not sep or not model or provider not in PROVIDERS:
        raise ModelSpecError(
            f"--model must be PROVIDER/MODEL with PROVIDER one of {', '.join(PROVIDERS)} "
            f"(e.g. anthropic/claude-sonnet-4-5, openai/gpt-4o, openai-compatible/qwen2.5), "
            f"or one of the offline agents {', '.join(OFFLINE_AGENTS)}; got {spec!r}")
    return provider, model


def make_provider(spec: str, *, base_url: str | None = None, api_key: str | None = None,
                  temperature: float | str | None = None, max_tokens: int = 2048, timeout: float | None = None) -> Provider:
    provider, model = parse_model(spec)
    if provider == "reference":
        from .offline import ReferenceAgent

        return ReferenceAgent()
    if provider == "baseline":
        from .offline import BaselineAgent

        return BaselineAgent()
    assert model is not None
    if isinstance(temperature, str):
        if temperature.strip().lower() != NO_TEMPERATURE:
            raise ModelSpecError(f"temperature must be a number >= 0 or 'none', got {temperature!r}")
        send_none = True
        temperature = None
    else:
        send_none = False
    if provider == "anthropic":
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ModelSpecError("ANTHROPIC_API_KEY is not set (or pass --api-key)")
        from .anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, api_key=key, base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL"),
                                 temperature=temperature, max_tokens=max_tokens, timeout=timeout)
    from .openai_provider import OpenAIProvider

    if temperature is None and not send_none:
        temperature = 0.0  # greedy, as the paper (None: no temperature sent)

    if provider == "openai":
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelSpecError("OPENAI_API_KEY is not set (or pass --api-key)")
        return OpenAIProvider(model, api_key=key, base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                              temperature=temperature, max_tokens=max_tokens, timeout=timeout)
    if not base_url:
        raise ModelSpecError("openai-compatible models need --base-url (e.g. http://localhost:8000/v1)")
    key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
    return OpenAIProvider(model, api_key=key, base_url=base_url, temperature=temperature,
                          max_tokens=max_tokens, timeout=timeout, compatible=True)
