"""What ``--model`` names, parsed once into a :class:`ModelRef`: a provider model (``PROVIDER/MODEL``,
client.providers.registry) or one of the offline scripted agents (client.agents); and the
:class:`Provider` that answers for it."""

from __future__ import annotations

from .agents import SCRIPTED, SCRIPTED_MODELS
from .providers import ModelRef, ModelSpecError, Provider, make_provider
from .providers.registry import KIND_NAMES, KINDS, examples, provider_ref

__all__ = ["ModelRef", "ModelSpecError", "SCRIPTED_MODELS", "check_mode", "make_model", "parse_model",
           "provider_choices"]


def provider_choices() -> str:
    """``anthropic/<model>, openai/<model>, openai-compatible/<model> (needs --base-url)`` for help texts."""
    return ", ".join(f"{k.name}/<model>" + (" (needs --base-url)" if k.needs_base_url else "") for k in KINDS.values())


def parse_model(spec: str | ModelRef) -> ModelRef:
    """``"anthropic/claude-x"`` -> ModelRef(anthropic, "claude-x"); ``"reference"`` -> ModelRef(None,
    "reference"); anything else: ModelSpecError saying what is valid."""
    if isinstance(spec, ModelRef):
        return spec
    text = (spec or "").strip()
    if text in SCRIPTED:
        return ModelRef(None, text)
    ref = provider_ref(text)
    if ref is None:
        raise ModelSpecError(
            f"--model must be PROVIDER/MODEL with PROVIDER one of {', '.join(KIND_NAMES)} (e.g. {examples()}), "
            f"or one of the offline scripted agents {', '.join(SCRIPTED_MODELS)}; got {spec!r}")
    return ref


def check_mode(ref: ModelRef, mode: str) -> None:
    """A scripted agent answers in one arm only (ModelSpecError naming the flag to add or drop)."""
    if ref.is_llm:
        return
    agent = SCRIPTED[ref.model]
    if agent.mode != mode:
        raise ModelSpecError(f"--model {ref.model} {agent.needs} (offline scripted agents: reference --with-tools, "
                             f"reference-code --time-agent, baseline unaided)")


def make_model(spec: str | ModelRef, **provider_options) -> Provider:
    """The provider of an LLM reference (:func:`client.providers.make_provider`'s options), or the scripted
    agent itself (it takes no options: no key, no endpoint)."""
    ref = parse_model(spec)
    if not ref.is_llm:
        agent = SCRIPTED[ref.model]()
        agent.ref = ref
        return agent
    return make_provider(ref, **provider_options)
