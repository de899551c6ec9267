"""Model providers behind one small async interface (see :mod:`client.providers.base`).

``make_provider("anthropic/claude-x" | "openai/gpt-x" | "openai-compatible/<m>")``, or one of the offline
scripted models (``reference``, ``reference-code``, ``baseline``: :mod:`client.providers.scripted`), which
stand where an LLM would.
"""

from __future__ import annotations

import os

from .base import ModelReply, Provider, ProviderError, ToolCall, ToolResult, ToolSpec

__all__ = ["ModelReply", "Provider", "ProviderError", "ToolCall", "ToolResult", "ToolSpec", "make_provider",
           "parse_model", "ModelSpecError", "SCRIPTED_MODELS", "NO_TEMPERATURE"]

SCRIPTED_MODELS = ("reference", "reference-code", "baseline")  # client.providers.scripted
NO_TEMPERATURE = "none"  # --temperature none: send no temperature at all (reasoning models reject one)
PROVIDERS = ("anthropic", "openai", "openai-compatible")


class ModelSpecError(ValueError):
    """Bad --model / key / base URL combination (a one-line message for the user)."""


def parse_model(spec: str) -> tuple[str, str | None]:
    """``"anthropic/claude-x"`` -> ("anthropic", "claude-x"); ``"reference"`` -> ("reference", None)."""
    spec = (spec or "").strip()
    if spec in SCRIPTED_MODELS:
        return spec, None
    provider, sep, model = spec.partition("/")
    if not sep or not model or provider not in PROVIDERS:
        raise ModelSpecError(
            f"--model must be PROVIDER/MODEL with PROVIDER one of {', '.join(PROVIDERS)} "
            f"(e.g. anthropic/claude-sonnet-4-5, openai/gpt-4o, openai-compatible/qwen2.5), "
            f"or one of the offline scripted agents {', '.join(SCRIPTED_MODELS)}; got {spec!r}")
    return provider, model


def make_provider(spec: str, *, base_url: str | None = None, api_key: str | None = None,
                  temperature: float | str | None = None, max_tokens: int = 2048, timeout: float | None = None,
                  key_option: str = "--api-key") -> Provider:
    """``key_option`` is the command-line option the missing-key message names (the judge's is
    --judge-api-key)."""
    provider, model = parse_model(spec)
    if model is None:
        from .scripted import make

        return make(provider)
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
            raise ModelSpecError(f"ANTHROPIC_API_KEY is not set (or pass {key_option})")
        from .anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, api_key=key, base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL"),
                                 temperature=temperature, max_tokens=max_tokens, timeout=timeout)
    from .openai_provider import OpenAIProvider

    if temperature is None and not send_none:
        temperature = 0.0  # greedy, as the paper (None: no temperature sent)

    if provider == "openai":
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelSpecError(f"OPENAI_API_KEY is not set (or pass {key_option})")
        return OpenAIProvider(model, api_key=key, base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                              temperature=temperature, max_tokens=max_tokens, timeout=timeout)
    if not base_url:
        raise ModelSpecError(f"openai-compatible models need {key_option.replace('api-key', 'base-url')} "
                             f"(e.g. http://localhost:8000/v1)")
    key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
    return OpenAIProvider(model, api_key=key, base_url=base_url, temperature=temperature,
                          max_tokens=max_tokens, timeout=timeout, compatible=True)
