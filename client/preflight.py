"""Fail fast on a wrong model endpoint: :func:`check_model_endpoint` makes one cheap request before the
first instance (``GET …/models`` on an OpenAI-compatible server, ``GET /v1/models/{model}`` on OpenAI and
Anthropic), through the real SDK with ``max_retries=0``. A refused connection, an unknown host, no answer,
401/403 or an unknown model raise :class:`EndpointCheckError`: one line naming the URL and the cause, within
``timeout`` seconds. (The kinds of error are client.providers.errors'.)
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .providers.errors import (UNKNOWN_HOST, body_message, chain_text, classify_provider_error, exception_chain,
                               innermost_message)
from .providers.registry import EndpointCheck, ProviderKind, kind as _kind

DEFAULT_TIMEOUT = 8.0  # the whole check; the budget is 10 s from start to exit


class EndpointCheckError(Exception):
    """The model endpoint cannot be used. ``str(e)`` is one line naming the URL and the cause;
    ``kind`` is a :func:`classify_provider_error` category."""

    def __init__(self, message: str, *, url: str, kind: str, status: int | None = None):
        super().__init__(message)
        self.url = url
        self.kind = kind
        self.status = status


@dataclass
class EndpointInfo:
    """What the check saw. ``warning``: the endpoint answers but something looks wrong (the model is not
    among the ones an OpenAI-compatible server lists — llama.cpp serves its one model under any name,
    vLLM and Ollama answer 404)."""

    url: str
    seconds: float
    models: list[str] | None = None
    warning: str | None = None


async def check_model_endpoint(base_url: str | None, api_key: str | None, model: str, kind: str | ProviderKind, *,
                               timeout: float = DEFAULT_TIMEOUT) -> EndpointInfo:
    """One cheap request to the model endpoint of a provider kind (its name or its
    :class:`~client.providers.registry.ProviderKind`); raises :class:`EndpointCheckError` (one line) on
    failure."""
    kind = _kind(kind)
    how = kind.check
    if kind.needs_base_url and not base_url:
        raise ValueError(f"an {kind.name} endpoint needs a base URL (e.g. http://127.0.0.1:8080/v1)")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    started = time.monotonic()
    root = (base_url or how.default_root).rstrip("/")
    url = how.url(root, model)
    # the SDK import stays outside the budget: on a loaded machine it alone can take seconds. The SDK's own
    # timeout fires first, so that a connect timeout can be told from a read timeout
    client, not_found = how.client(root, api_key, timeout * 0.9)
    try:
        info = await asyncio.wait_for(_check(client, not_found, model, how, url), timeout)
    except EndpointCheckError:
        raise
    except (asyncio.TimeoutError, TimeoutError):
        raise EndpointCheckError(f"model endpoint {url}: no answer within {timeout:g} s (is the server up "
                                 f"and the URL right?)", url=url, kind="timeout") from None
    except Exception as e:  # noqa: BLE001 - every failure becomes the one-line message
        if _connected_but_silent(e):
            # llama-cpp-python answers even GET /models only between generations: a busy server is
            # reachable, so the run goes on and its request timeout applies
            return EndpointInfo(url=url, seconds=round(time.monotonic() - started, 3),
                                warning=f"{url} accepted the connection but did not answer within {timeout:g} s; "
                                        f"going on (a llama-cpp-python server busy with another request answers "
                                        f"nothing until it is done)")
        raise _endpoint_error(e, url, model, kind, timeout) from None
    info.seconds = round(time.monotonic() - started, 3)
    return info


async def _check(client: Any, not_found: type, model: str, how: EndpointCheck, url: str) -> EndpointInfo:
    try:
        if how.lists_models:
            page = await client.models.list()
            ids = [m.id for m in getattr(page, "data", None) or []]
            warning = None
            if ids and model not in ids:
                warning = (f"model {model!r} is not among the models {url} lists ({', '.join(ids[:5])}"
                           f"{', …' if len(ids) > 5 else ''}); llama.cpp answers under any name, vLLM and "
                           f"Ollama will answer 404")
            return EndpointInfo(url=url, seconds=0.0, models=ids, warning=warning)
        try:
            await client.models.retrieve(model)
        except not_found as e:
            if _says_model_unknown(e, model):
                raise
            # a proxy without the models route: ask for one token instead
            await _tiny_request(client, model, how)
        return EndpointInfo(url=url, seconds=0.0)
    finally:
        await client.close()


async def _tiny_request(client: Any, model: str, how: EndpointCheck) -> None:
    try:
        await how.ping(client, model)
    except Exception as e:  # noqa: BLE001
        status = getattr(e, "status_code", None)
        if status is not None and status not in (401, 403, 404):
            return  # it answered (a 400 for max tokens 1, a 429 …): the endpoint and the model exist
        raise


def _connected_but_silent(e: BaseException) -> bool:
    """A timeout after the connection was made (read/write/pool), not while connecting."""
    names = {type(x).__name__ for x in exception_chain(e)}
    return bool(names & {"ReadTimeout", "WriteTimeout", "PoolTimeout"}) and "ConnectTimeout" not in names


def _says_model_unknown(e: Any, model: str) -> bool:
    text = f"{body_message(e)} {e}".lower()
    return "model" in text and ("not_found" in text or "not found" in text or "does not exist" in text
                                or model.lower() in text)


def _endpoint_error(e: BaseException, url: str, model: str, kind: ProviderKind, timeout: float) -> EndpointCheckError:
    category = classify_provider_error(e)
    status = getattr(e, "status_code", None)
    host = urlsplit(url).hostname or url
    if category == "connection":
        chain = list(exception_chain(e))
        if any(isinstance(x, socket.gaierror) for x in chain) or UNKNOWN_HOST.search(chain_text(e)):
            why = f"unknown host {host!r} (check the spelling of the URL)"
        elif any(isinstance(x, ConnectionRefusedError) for x in chain) or "refused" in chain_text(e).lower():
            why = "connection refused (is the model server running on that port?)"
        else:
            why = f"cannot connect ({innermost_message(e)})"
    elif category == "timeout":
        why = f"no answer within {timeout:g} s (is the server up and the URL right?)"
    elif category == "auth":
        why = (f"HTTP {status or ''} {body_message(e) or 'unauthorized'} (check --api-key or "
               f"{kind.key_env})").replace("  ", " ")
    elif category == "not_found":
        if kind.check.lists_models:
            hint = ("; OpenAI-compatible servers serve /v1/models: is '/v1' missing from --base-url?"
                    if not urlsplit(url).path.rstrip("/").endswith("/v1/models") else "")
            why = f"HTTP 404, no models route at this URL{hint}"
        else:
            why = f"model {model!r} not found (HTTP 404: {body_message(e) or 'not found'})"
    else:
        msg = body_message(e) or innermost_message(e)
        why = f"HTTP {status}: {msg}" if status else msg
    return EndpointCheckError(f"model endpoint {url}: {why}", url=url, kind=category, status=status)
