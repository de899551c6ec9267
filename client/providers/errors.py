"""What went wrong with a model request, in a few kinds: the one taxonomy of provider errors.

* :func:`classify_provider_error` — ``context_overflow`` | ``connection`` | ``auth`` | ``not_found`` |
  ``timeout`` | ``rate_limit`` | ``server`` | ``other`` for an exception or an error message. Context
  overflow is recognised from the texts of llama.cpp, llama-cpp-python, vLLM, Ollama, LM Studio, OpenAI
  and Anthropic.
* :func:`error_signature` — an error message with its numbers and ids replaced, so that "the same error N
  times in a row" also fires when each message embeds its own token counts or request id.
* :func:`provider_error` — an SDK exception (either SDK: both raise the same classes) as a
  :class:`ProviderError` whose ``retryable``, ``retry_after``, ``status`` and ``kind`` the retry layer reads.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from email.utils import parsedate_to_datetime
from typing import Any, Mapping


class ProviderError(Exception):
    """A failed model request. ``retryable`` errors (429, 5xx, connection errors, timeouts) may be retried
    by the runner, waiting at least ``retry_after`` seconds when the server said so."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None,
                 status: int | None = None, kind: str | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.kind = kind  # context_overflow, connection, timeout, auth, … (set by the provider or the retry layer)
        self.retries = 0


def provider_error(e: BaseException, sdk: Any, *, api: str, schema: str, endpoint: str,
                   timeout: float | None) -> ProviderError:
    """An exception of an SDK call as the ProviderError that says what happened (``api``: "OpenAI",
    "Anthropic"; ``schema``: the API whose reply shape was expected)."""
    if isinstance(e, sdk.APIStatusError):
        kind, retryable = status_error_kind(e)
        return ProviderError(f"{api} API error {e.status_code} from {endpoint}: {body_message(e) or e}",
                             retryable=retryable, retry_after=retry_after_seconds(e.response.headers),
                             status=e.status_code, kind=kind)
    if isinstance(e, sdk.APITimeoutError):
        return ProviderError(f"{api} request to {endpoint} timed out after {timeout}s", retryable=True,
                             kind="timeout")
    if isinstance(e, sdk.APIConnectionError):
        return ProviderError(f"cannot reach {endpoint}: {innermost_cause(e)}", retryable=True, kind="connection")
    if isinstance(e, sdk.APIResponseValidationError):
        return ProviderError(f"{api} reply did not match the {schema} schema: {e}", retryable=False)
    return ProviderError(f"malformed reply from the {api} endpoint: {e}", retryable=False)


def body_message(e: Any) -> str:
    """The message of an API error's JSON body ({"error": {"message": ...}} or {"error": "..."}), or ""."""
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return ""


def innermost_cause(e: BaseException) -> str:
    """The innermost cause of an SDK connection error ("Connection refused", "Name or service not known")."""
    seen = set()
    while e.__cause__ is not None and id(e) not in seen:
        seen.add(id(e))
        e = e.__cause__
    text = str(e) or e.__class__.__name__
    return text if len(text) <= 200 else text[:199] + "…"


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Parse ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date) into seconds."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if ra:
        try:
            return max(0.0, float(ra))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(ra).timestamp() - time.time())
            except (TypeError, ValueError, OverflowError):
                return None
    return None


RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}


def status_is_retryable(status: int | None, body: Any = None) -> bool:
    if status is None:
        return False
    if status == 429 and _is_quota_error(body):
        return False  # OpenAI "insufficient_quota": waiting will not help
    return status in RETRYABLE_STATUS or 500 <= status < 600


def status_error_kind(e: Any) -> tuple[str, bool]:
    """(kind, worth re-sending) of an SDK status error: a 429/5xx is re-sent unless the server says the
    request itself is wrong (a prompt over the context, a validation error answered with a 500 as
    llama-cpp-python does)."""
    kind = classify_provider_error(e)
    return kind, (status_is_retryable(e.status_code, getattr(e, "body", None))
                  and kind not in ("context_overflow", "other"))


def _is_quota_error(body: Any) -> bool:
    try:
        text = json.dumps(body)
    except (TypeError, ValueError):
        text = str(body)
    return "insufficient_quota" in text


# ------------------------------------------------------------------------------------ classification
_CONTEXT = re.compile(
    r"maximum context length|context[_ ]length[_ ]exceeded|prompt is too long|exceeds? (?:the )?context window"
    r"|exceed(?:s|ed)? (?:the |its )?(?:maximum |available )?context (?:length|size|window|limit)"
    r"|context window of \d+|input length (?:and `?max_tokens`? )?exceeds?"
    r"|exceed context limit|(?:is )?longer than the maximum model length|too long and exceeds limit"
    r"|context length of only|context overflow|input is too large to process|exceed_context_size"
    r"|(?:number of )?tokens? .{0,40}exceeds? .{0,30}(?:context|n_ctx)|requested tokens \(\d+\) exceed",
    re.IGNORECASE)
UNKNOWN_HOST = re.compile(r"name or service not known|nodename nor servname|getaddrinfo failed|"
                           r"temporary failure in name resolution|no address associated|name resolution",
                           re.IGNORECASE)
_MESSAGE_KINDS: list[tuple[str, re.Pattern]] = [
    ("timeout", re.compile(r"timed? ?out|timeout|deadline exceeded", re.IGNORECASE)),
    ("connection", re.compile(r"connection (?:error|refused|reset|aborted)|connect call failed|all connection "
                              r"attempts failed|server disconnected|remote ?protocol|broken pipe|cannot connect|"
                              r"unreachable|" + UNKNOWN_HOST.pattern, re.IGNORECASE)),
    ("auth", re.compile(r"\b40[13]\b|unauthori[sz]ed|forbidden|invalid (?:x-)?api[ _-]?key|incorrect api key|"
                        r"authentication|permission denied", re.IGNORECASE)),
    ("rate_limit", re.compile(r"\b429\b|rate.?limit|too many requests|insufficient_quota|quota", re.IGNORECASE)),
    ("not_found", re.compile(r"\b404\b|not[ _]found|does not exist|no such model|unknown model", re.IGNORECASE)),
    ("server", re.compile(r"\b5\d\d\b|internal server error|bad gateway|service unavailable|overloaded",
                          re.IGNORECASE)),
]
_VALIDATION_500 = re.compile(r"\b\d+ validation errors?\b|Input should be ", re.IGNORECASE)
_STATUS_IN_TEXT = re.compile(r"(?:error|status|http)(?: code)?[ :]*([1-5]\d\d)\b", re.IGNORECASE)


def classify_provider_error(error: BaseException | str | None) -> str:
    """Sort an exception (SDK error, :class:`client.providers.base.ProviderError`, httpx error …) or an
    error message into ``context_overflow``, ``connection``, ``auth``, ``not_found``, ``timeout``,
    ``rate_limit``, ``server`` or ``other``."""
    if error is None:
        return "other"
    if isinstance(error, str):
        return _classify_text(error, None)
    text = chain_text(error)
    if _CONTEXT.search(text):
        return "context_overflow"
    status = _status(error)
    for x in exception_chain(error):
        name = type(x).__name__
        if isinstance(x, (TimeoutError, asyncio.TimeoutError)) or "Timeout" in name:
            return "timeout"
        if isinstance(x, (ConnectionError, socket.gaierror)) or name in (
                "APIConnectionError", "ConnectError", "RemoteProtocolError", "ReadError", "WriteError",
                "NetworkError", "MCPConnectionError"):
            if status is None:
                return "connection"
    if status is not None:
        return _classify_status(status, text)
    return _classify_text(text, None)


def _classify_status(status: int, text: str) -> str:
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        # llama-cpp-python answers a request its schema rejects with a 500 "N validation errors": resending
        # the same request cannot help, so it is not a server fault
        return "other" if _VALIDATION_500.search(text) else "server"
    if status == 413 and re.search(r"token|context|prompt", text, re.IGNORECASE):
        return "context_overflow"
    return "other"


def _classify_text(text: str, status: int | None) -> str:
    if _CONTEXT.search(text):
        return "context_overflow"
    m = _STATUS_IN_TEXT.search(text)
    if m:
        return _classify_status(int(m.group(1)), text)
    for kind, rx in _MESSAGE_KINDS:
        if rx.search(text):
            return kind
    return "other"


_SIZES = [
    # (pattern, names of the groups in order)
    (re.compile(r"maximum context length is (\d+) tokens.*?(?:you requested|resulted in|your request has) (\d+)"
                r"(?: input)? tokens(?: \((\d+) in the messages, (\d+) in the completion\))?",
                re.IGNORECASE | re.DOTALL), ("limit", "requested", "prompt", "completion")),
    (re.compile(r"requested tokens \((\d+)\) exceed context window of (\d+)", re.IGNORECASE), ("prompt", "limit")),
    (re.compile(r"prompt is too long: (\d+) tokens > (\d+)", re.IGNORECASE), ("prompt", "limit")),
    (re.compile(r"exceed context limit: (\d+) \+ (\d+) > (\d+)", re.IGNORECASE), ("prompt", "completion", "limit")),
    (re.compile(r"prompt \(length (\d+)\) is longer than the maximum model length of (\d+)", re.IGNORECASE),
     ("prompt", "limit")),
    (re.compile(r"prompt \((\d+) tokens\) is too long and exceeds limit of (\d+)", re.IGNORECASE), ("prompt", "limit")),
    (re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)", re.IGNORECASE),
     ("prompt", "limit")),
]


def context_overflow_sizes(message: str) -> dict[str, int]:
    """The token counts a context-overflow message states (keys among ``limit``, ``prompt``,
    ``requested``, ``completion``); empty when it states none."""
    for rx, names in _SIZES:
        m = rx.search(message or "")
        if m:
            return {k: int(v) for k, v in zip(names, m.groups()) if v is not None}
    return {}


_IDS = re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*\b")
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
_SPACES = re.compile(r"\s+")


def error_signature(message: str | BaseException | None) -> str:
    """``message`` with ids (request/call ids, hex) and numbers replaced by placeholders and spaces folded:
    two errors of the same cause give the same signature even when they embed their own token counts."""
    text = str(message or "")
    text = _IDS.sub(_id_or_keep, text)
    text = _NUMBERS.sub("N", text)
    return _SPACES.sub(" ", text).strip()


def _id_or_keep(m: re.Match) -> str:
    token = m.group(0)
    # keep words with a digit that are not ids (HTTP/1.1, gpt-4o, o200k …): ids are long
    return "ID" if len(token) >= 12 else token


# --------------------------------------------------------------------------------------------- helpers
def exception_chain(e: BaseException):
    """The exception, its causes and contexts, and the members of exception groups (each once)."""
    seen: set[int] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(getattr(x, "exceptions", None) or ())
        stack.extend((x.__context__, x.__cause__))


def chain_text(e: BaseException) -> str:
    return " | ".join(filter(None, (f"{body_message(x)} {x}" for x in exception_chain(e))))


def _status(e: BaseException) -> int | None:
    for x in exception_chain(e):
        for attr in ("status_code", "status"):
            v = getattr(x, attr, None)
            if isinstance(v, int) and 100 <= v < 600:
                return v
    return None


def innermost_message(e: BaseException) -> str:
    last = e
    for x in exception_chain(e):
        last = x
    text = str(last) or type(last).__name__
    return text.splitlines()[0][:300] if text else type(last).__name__
