"""The provider kinds, in one table: everything that differs between ``anthropic/…``, ``openai/…`` and
``openai-compatible/…`` — the API key's environment variable, the base URL, the default temperature, the
client factory, the price table, the Batch API, the endpoint check (pre-flight) — and the model reference
(:class:`ModelRef`), parsed once from ``PROVIDER/MODEL`` and handed on as a typed value.

No other module branches on a provider's kind: they ask the :class:`ProviderKind` of a reference
(tests/test_provider_registry.py scans client/ for ``== "anthropic"``-style branches). Adding a kind is one
:data:`KINDS` entry here (plus its adapter module when it speaks a new API, and its tests).

Nothing here imports the SDKs at module level: they are imported when a provider or a check is built.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

if TYPE_CHECKING:
    from .base import Provider

NO_TEMPERATURE = "none"  # --temperature none: send no temperature at all (reasoning models reject one)
# what people pass as --api-key to a server that checks none (not a secret: no warning for it)
NOT_A_KEY = frozenset({"none", "empty", "not-needed", "no-key", "dummy", "sk-no-key-required"})
_PING = [{"role": "user", "content": "ping"}]


class ModelSpecError(ValueError):
    """Bad --model / key / base URL combination (a one-line message for the user)."""


@dataclass(frozen=True)
class EndpointCheck:
    """How the pre-flight (client.preflight) asks this kind of endpoint whether it serves the model."""

    default_root: str                 # the API root without --base-url
    models_path: str                  # appended to the root: the models route
    lists_models: bool                # True: GET the list and look for the model (a server you run);
                                      # False: GET the model itself (404: unknown model)
    client: Callable[[str, str | None, float], tuple[Any, type]]  # (root, key, timeout) -> (SDK client, NotFound)
    ping: Callable[[Any, str], Awaitable[Any]]  # one 1-token request (a proxy without the models route)

    def url(self, root: str, model: str) -> str:
        return f"{root}{self.models_path}" + ("" if self.lists_models else f"/{model}")


@dataclass(frozen=True)
class ProviderKind:
    """One provider kind: what ``--model KIND/…`` means."""

    name: str
    sdk: str                          # the SDK's distribution name (run.json records its version)
    key_env: str                      # the API key's environment variable
    key_required: bool                # False: a server you run may check no key
    base_url_env: str | None          # the SDK's own base URL variable, honoured without --base-url
    needs_base_url: bool              # True: there is no default endpoint (a server you run)
    default_temperature: float | None  # None: the API's own default (nothing sent)
    price_table: str | None           # client.pricing.TABLES key; None: no published prices (a server you run)
    batch_discount: float             # the Batch API's price factor (1.0: none known)
    batch_api: str | None             # client.batch.backends.BACKENDS key; None: no Batch API
    check: EndpointCheck
    build: Callable[..., "Provider"]  # (model, *, api_key, base_url, temperature, max_tokens, timeout)
    example: str                      # a model id for messages
    default_base_url: str | None = None  # the endpoint without --base-url (None: the SDK's own)

    def api_key(self, given: str | None, key_option: str = "--api-key") -> str:
        key = given or os.environ.get(self.key_env)
        if key:
            return key
        if self.key_required:
            raise ModelSpecError(f"{self.key_env} is not set (or pass {key_option})")
        return "not-needed"

    def base_url(self, given: str | None, key_option: str = "--api-key") -> str | None:
        url = given or (os.environ.get(self.base_url_env) if self.base_url_env else None) or self.default_base_url
        if self.needs_base_url and not url:
            raise ModelSpecError(f"{self.name} models need {key_option.replace('api-key', 'base-url')} "
                                 f"(e.g. http://localhost:8000/v1)")
        return url


@dataclass(frozen=True)
class ModelRef:
    """What ``--model`` names, parsed once: a provider kind and its model id, or (``kind`` None) one of the
    offline scripted agents (client.agents), whose name is ``model``."""

    kind: ProviderKind | None
    model: str

    @property
    def is_llm(self) -> bool:
        return self.kind is not None

    @property
    def label(self) -> str:
        """What results record as ``model``: ``anthropic/claude-x``, or the scripted agent's name."""
        return f"{self.kind.name}/{self.model}" if self.kind is not None else self.model

    def __str__(self) -> str:
        return self.label


# ------------------------------------------------------------------------------------------ the SDKs
def _anthropic(model: str, **kw: Any) -> "Provider":
    from .anthropic_provider import AnthropicProvider

    return AnthropicProvider(model, **kw)


def _openai(model: str, **kw: Any) -> "Provider":
    from .openai_provider import OpenAIProvider

    return OpenAIProvider(model, **kw)


def _openai_compatible(model: str, **kw: Any) -> "Provider":
    from .openai_provider import OpenAIProvider

    return OpenAIProvider(model, compatible=True, **kw)


def _anthropic_client(root: str, key: str | None, timeout: float) -> tuple[Any, type]:
    import anthropic

    return (anthropic.AsyncAnthropic(api_key=key or "none", base_url=root, max_retries=0, timeout=timeout),
            anthropic.NotFoundError)


def _openai_client(root: str, key: str | None, timeout: float) -> tuple[Any, type]:
    import openai

    return (openai.AsyncOpenAI(api_key=key or "none", base_url=root, max_retries=0, timeout=timeout),
            openai.NotFoundError)


async def _anthropic_ping(client: Any, model: str) -> Any:
    return await client.messages.create(model=model, max_tokens=1, messages=_PING)


async def _openai_ping(client: Any, model: str) -> Any:
    return await client.chat.completions.create(model=model, max_completion_tokens=1, messages=_PING)


_ANTHROPIC_CHECK = EndpointCheck("https://api.anthropic.com", "/v1/models", False, _anthropic_client,
                                 _anthropic_ping)
_OPENAI_CHECK = EndpointCheck("https://api.openai.com/v1", "/models", False, _openai_client, _openai_ping)
_SERVED_CHECK = EndpointCheck("https://api.openai.com/v1", "/models", True, _openai_client, _openai_ping)

# ------------------------------------------------------------------------------------------ the kinds
KINDS: dict[str, ProviderKind] = {k.name: k for k in (
    ProviderKind("anthropic", sdk="anthropic", key_env="ANTHROPIC_API_KEY", key_required=True,
                 base_url_env="ANTHROPIC_BASE_URL", needs_base_url=False, default_temperature=None,
                 price_table="anthropic", batch_discount=0.5, batch_api="message-batches",
                 check=_ANTHROPIC_CHECK, build=_anthropic, example="claude-sonnet-4-5"),
    # greedy decoding (temperature 0), as the paper
    ProviderKind("openai", sdk="openai", key_env="OPENAI_API_KEY", key_required=True,
                 base_url_env="OPENAI_BASE_URL", needs_base_url=False, default_temperature=0.0,
                 price_table="openai", batch_discount=0.5, batch_api="openai-batch",
                 check=_OPENAI_CHECK, build=_openai, example="gpt-4o"),
    # a server you run (vLLM, Ollama, llama.cpp, LM Studio): no prices, no Batch API discount we know of
    ProviderKind("openai-compatible", sdk="openai", key_env="OPENAI_API_KEY", key_required=False,
                 base_url_env=None, needs_base_url=True, default_temperature=0.0,
                 price_table=None, batch_discount=1.0, batch_api="openai-batch",
                 check=_SERVED_CHECK, build=_openai_compatible, example="qwen2.5"),
)}

KIND_NAMES = tuple(KINDS)
SDK_PACKAGES = tuple(dict.fromkeys(k.sdk for k in KINDS.values()))  # anthropic, openai


def kind(name: str | ProviderKind) -> ProviderKind:
    """The kind called ``name`` (ValueError naming the valid ones)."""
    if isinstance(name, ProviderKind):
        return name
    found = KINDS.get(name)
    if found is None:
        raise ValueError(f"kind must be one of {', '.join(KIND_NAMES)}, got {name!r}")
    return found


def examples() -> str:
    return ", ".join(f"{k.name}/{k.example}" for k in KINDS.values())


def provider_ref(text: str) -> ModelRef | None:
    """``"anthropic/claude-x"`` -> ModelRef(anthropic, "claude-x"); None when ``text`` names no provider kind
    (the model id keeps any further ``/``: ``openai-compatible/Qwen/Qwen2.5-7B``)."""
    name, sep, model = (text or "").strip().partition("/")
    if not sep or not model or name not in KINDS:
        return None
    return ModelRef(KINDS[name], model)


def ref_of(provider: Any) -> ModelRef:
    """The reference a provider was built from (its label parsed, for one built some other way)."""
    ref = getattr(provider, "ref", None)
    if isinstance(ref, ModelRef):
        return ref
    return provider_ref(provider.label) or ModelRef(None, provider.label)


def make_provider(ref: ModelRef, *, base_url: str | None = None, api_key: str | None = None,
                  temperature: float | str | None = None, max_tokens: int = 2048, timeout: float | None = None,
                  key_option: str = "--api-key") -> "Provider":
    """The provider of an LLM reference (ModelSpecError: one line naming what is missing)."""
    k = ref.kind
    if k is None:
        raise ModelSpecError(f"{ref.model} is an offline scripted agent, not a provider model")
    send_none = False
    if isinstance(temperature, str):
        if temperature.strip().lower() != NO_TEMPERATURE:
            raise ModelSpecError(f"temperature must be a number >= 0 or 'none', got {temperature!r}")
        send_none, temperature = True, None
    if temperature is None and not send_none:
        temperature = k.default_temperature
    url = k.base_url(base_url, key_option)
    key = k.api_key(api_key, key_option)
    provider = k.build(ref.model, api_key=key, base_url=url, temperature=temperature, max_tokens=max_tokens,
                       timeout=timeout)
    provider.ref = ref
    provider.label = ref.label  # what results record (a kind served by a shared adapter keeps its own name)
    return provider


def is_placeholder_key(value: Any) -> bool:
    """``--api-key none`` and the like: what a server that checks no key is given, not a secret."""
    return isinstance(value, str) and value.strip().lower() in NOT_A_KEY
