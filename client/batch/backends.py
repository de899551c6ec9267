"""The two providers' batch APIs through their own SDKs (``provider.client``, so ``--base-url`` and the key
apply as for live requests):

* OpenAI Batch API — ``files.create(purpose="batch")`` of a JSONL file of ``{"custom_id", "method",
  "url", "body"}`` lines, ``batches.create(endpoint="/v1/chat/completions", completion_window="24h")``,
  ``batches.retrieve`` until completed / failed / expired / cancelled, then ``files.content`` of the output
  and error files (lines in any order, matched by ``custom_id``);
* Anthropic Message Batches — ``messages.batches.create(requests=[{"custom_id", "params"}])``,
  ``messages.batches.retrieve`` until ``processing_status == "ended"``, then ``messages.batches.results``
  (succeeded / errored / canceled / expired).

Every result is a :class:`ModelReply` or a :class:`ProviderError` (never retryable: the batch answered,
asking again is a new batch on the next run).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

from ..providers.base import ModelReply, ProviderError
from ..providers.errors import provider_error
from ..providers.registry import ref_of

Results = dict[str, "ModelReply | ProviderError"]


@dataclass
class Progress:
    """One look at a batch: its provider status, whether it has ended, and the request counts it reports."""

    status: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None  # why the whole batch failed (OpenAI ``failed``)


class OpenAIBatches:
    kind = "openai"
    endpoint = "/v1/chat/completions"
    max_requests = 50_000          # the API's limits per input file
    max_bytes = 190 * 1024 * 1024  # (200 MB), with room to spare
    ENDED = ("completed", "failed", "expired", "cancelled")

    def __init__(self, provider: Any):
        self.provider = provider
        self.client = provider.client
        self.sdk = provider._sdk

    def line(self, custom_id: str, body: dict) -> dict:
        return {"custom_id": custom_id, "method": "POST", "url": self.endpoint, "body": body}

    def _error(self, e: BaseException) -> ProviderError:
        return provider_error(e, self.sdk, api="OpenAI", schema="Batch", endpoint=self.provider.endpoint,
                              timeout=None)

    async def submit(self, lines: list[dict], token: str) -> dict:
        """Upload the input file and create the batch; returns the ids to keep."""
        data = "".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) + "\n" for x in lines).encode()
        try:
            f = await self.client.files.create(file=("span-batch.jsonl", io.BytesIO(data), "application/jsonl"),
                                               purpose="batch")
            b = await self.client.batches.create(input_file_id=f.id, endpoint=self.endpoint,
                                                 completion_window="24h", metadata={"span_submission": token})
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        return {"id": b.id, "input_file_id": f.id}

    async def find(self, token: str) -> str | None:
        """The batch created with ``token`` (a client killed between create and writing its id down)."""
        try:
            page = await self.client.batches.list(limit=100)
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        for b in page.data:
            if (b.metadata or {}).get("span_submission") == token:
                return b.id
        return None

    async def poll(self, batch_id: str) -> Progress:
        try:
            b = await self.client.batches.retrieve(batch_id)
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        rc = b.request_counts
        counts = {"total": rc.total, "completed": rc.completed, "failed": rc.failed} if rc else {}
        err = None
        if b.status == "failed":
            msgs = [x.message or x.code or "" for x in ((b.errors.data or []) if b.errors else [])]
            err = "; ".join(m for m in msgs if m)[:500] or "the batch failed"
        self._files = (b.output_file_id, b.error_file_id)
        return Progress(status=b.status, ended=b.status in self.ENDED, counts=counts, error=err)

    async def results(self, batch_id: str) -> Results:
        progress = await self.poll(batch_id)
        out: Results = {}
        if progress.error:
            return out  # the driver records every request of a failed batch as failed, with its reason
        seen: set[str] = set()
        for fid in self._files:
            if not fid:
                continue
            try:
                content = await self.client.files.content(fid)
            except (self.sdk.APIError, ValueError, TypeError) as e:
                raise self._error(e) from e
            for raw in content.text.splitlines():
                if raw.strip():
                    cid = self._one(raw, out, progress.status)
                    if cid is not None and cid in seen:  # never pick one of two answers to one request
                        out[cid] = ProviderError("the OpenAI batch output holds two results for this request",
                                                 retryable=False, kind="batch")
                    seen.add(cid)
        return out

    def _one(self, raw: str, out: Results, status: str) -> str | None:
        """Read one output or error line into ``out``; its custom_id (None: not a result line)."""
        try:
            line = json.loads(raw)
            cid = line["custom_id"]
        except (ValueError, KeyError, TypeError, IndexError, RecursionError):
            return None  # not a result line; its request stays unanswered (the driver says so)
        if not isinstance(cid, str):
            return None
        resp = line.get("response")
        resp = resp if isinstance(resp, dict) else {}
        err = line.get("error")
        err = err if isinstance(err, dict) else ({"message": str(err)} if err else None)
        code = resp.get("status_code")
        if code == 200 and not err:
            try:
                out[cid] = self.provider.reply_from_body(resp.get("body"))
            except ProviderError as e:
                out[cid] = e
            except Exception as e:  # noqa: BLE001 - a body the SDK's types cannot hold is this line's error
                out[cid] = ProviderError(f"malformed reply in the OpenAI batch output: {e}", retryable=False)
            return cid
        body = resp.get("body")
        inner = body.get("error") if isinstance(body, dict) else None
        msg = inner.get("message") if isinstance(inner, dict) else (inner if isinstance(inner, str) else None)
        if err:
            msg = msg or err.get("message") or err.get("code")
        why = code or (err or {}).get("code") or status
        out[cid] = ProviderError(f"OpenAI batch request failed ({why}): {str(msg or 'no reason given')[:500]}",
                                 retryable=False, status=code if isinstance(code, int) else None, kind="batch")
        return cid


class AnthropicBatches:
    kind = "anthropic"
    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024  # (256 MB)

    def __init__(self, provider: Any):
        self.provider = provider
        self.client = provider.client
        self.sdk = provider._sdk

    def line(self, custom_id: str, body: dict) -> dict:
        return {"custom_id": custom_id, "params": body}

    def _error(self, e: BaseException) -> ProviderError:
        return provider_error(e, self.sdk, api="Anthropic", schema="Message Batches",
                              endpoint=self.provider.endpoint, timeout=None)

    async def submit(self, lines: list[dict], token: str) -> dict:
        try:
            b = await self.client.messages.batches.create(requests=lines)
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        return {"id": b.id}

    async def find(self, token: str) -> str | None:
        return None  # a Message Batch carries no metadata to recognise it by

    async def poll(self, batch_id: str) -> Progress:
        try:
            b = await self.client.messages.batches.retrieve(batch_id)
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        rc = b.request_counts
        counts = {k: getattr(rc, k) for k in ("processing", "succeeded", "errored", "canceled", "expired")}
        return Progress(status=b.processing_status, ended=b.processing_status == "ended", counts=counts)

    async def results(self, batch_id: str) -> Results:
        out: Results = {}
        try:
            stream = await self.client.messages.batches.results(batch_id)
            seen: set[str] = set()
            async for item in stream:
                r = item.result
                if item.custom_id in seen:  # never pick one of two answers to one request
                    out[item.custom_id] = ProviderError("the Anthropic batch results hold two results for this "
                                                        "request", retryable=False, kind="batch")
                    continue
                seen.add(item.custom_id)
                if r.type == "succeeded":
                    try:
                        out[item.custom_id] = self.provider.reply_from_message(r.message)
                    except ProviderError as e:
                        out[item.custom_id] = e
                elif r.type == "errored":
                    inner = getattr(r.error, "error", None)
                    kind = getattr(inner, "type", None) or "error"
                    msg = getattr(inner, "message", None) or "no reason given"
                    out[item.custom_id] = ProviderError(f"Anthropic batch request errored ({kind}): {msg}",
                                                        retryable=False, kind="batch")
                else:  # canceled | expired
                    out[item.custom_id] = ProviderError(f"Anthropic batch request {r.type} before it was answered",
                                                        retryable=False, kind="batch")
        except (self.sdk.APIError, ValueError, TypeError) as e:
            raise self._error(e) from e
        return out


# the Batch APIs, by a provider kind's batch_api (client.providers.registry)
BACKENDS = {"openai-batch": OpenAIBatches, "message-batches": AnthropicBatches}


def backend_for(provider: Any) -> OpenAIBatches | AnthropicBatches:
    """The batch API of a provider (ValueError for one that has none)."""
    kind = ref_of(provider).kind
    backend = BACKENDS.get(kind.batch_api or "") if kind is not None else None
    if backend is None:
        raise ValueError(f"{provider.label} has no Batch API")
    return backend(provider)
