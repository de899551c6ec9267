"""Submitting a run's requests as batches, waiting for them, and collecting their answers — resumable.

The batch records (ids, the requests each holds, status) are written to the run folder *before* the client
waits on anything, so a client that is killed while a batch runs picks up the same batch on the next run
instead of paying for it twice:

* a record is written as *pending* (a fresh token, the request keys) before the batch is created, and
  gets its id the moment the provider returns it; a pending record found on resume is looked up by its
  token (OpenAI: the batch's metadata) or, where the provider keeps no such mark (Anthropic), dropped
  with a warning and submitted again;
* a recorded batch whose requests are still wanted is polled (not resubmitted) until it ends, then its
  results are read (again, on each resume: both providers keep them for weeks);
* a request the batch answered with an error is written down as failed, so the next run submits it in a
  new batch instead of reading the same error back.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Protocol

from ..providers.base import ModelReply, ProviderError
from .backends import Progress

MAX_POLL_FAILURES = 10  # consecutive failed status checks (the network, a 5xx) before the wait ends


class BatchError(Exception):
    """The batch could not be submitted or followed; what was recorded stays, so the same command resumes."""


class Store(Protocol):
    def load(self) -> list[dict]: ...

    def save(self, records: list[dict]) -> None: ...


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class BatchDriver:
    """``await BatchDriver(backend, store, owner).collect({key: body}) -> {key: ModelReply | ProviderError}``.

    ``owner`` identifies who the batches belong to (provider label and endpoint): a record of another
    model or endpoint in the same folder is never polled for this one."""

    def __init__(self, backend: Any, store: Store, owner: dict, *, poll_every: float = 30.0,
                 say: Callable[[str], None] = lambda line: None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, progress_every: float = 60.0):
        self.backend, self.store, self.owner = backend, store, owner
        self.poll_every, self.say, self.sleep, self.progress_every = poll_every, say, sleep, progress_every

    async def collect(self, bodies: dict[str, dict]) -> dict[str, ModelReply | ProviderError]:
        records = self.store.load()
        answers: dict[str, ModelReply | ProviderError] = {}
        remaining = set(bodies)
        for rec in records:
            if rec.get("owner") != self.owner or rec.get("abandoned"):
                continue
            wanted = (set(rec.get("keys") or []) - set(rec.get("failed_keys") or [])) & remaining
            if not wanted:
                continue
            if not rec.get("id") and not await self._recover(rec, records):
                continue
            await self._finish(rec, records, wanted, answers)
            remaining -= wanted
        for chunk in self._chunks(sorted(remaining), bodies):
            rec = {"owner": self.owner, "token": uuid.uuid4().hex, "id": None, "keys": chunk,
                   "n_requests": len(chunk), "created_at": _now(), "status": "submitting"}
            records.append(rec)
            self.store.save(records)  # pending first: a kill after create is recognised by its token
            lines = [self.backend.line(k, bodies[k]) for k in chunk]
            try:
                ids = await self.backend.submit(lines, rec["token"])
            except ProviderError as e:
                records.remove(rec)
                self.store.save(records)
                raise BatchError(f"could not submit the batch of {len(chunk)} requests: {e}") from None
            rec.update(ids, status="submitted")
            self.store.save(records)
            self.say(f"batch {rec['id']} submitted: {len(chunk)} requests ({self.backend.kind} Batch API)")
            await self._finish(rec, records, set(chunk), answers)
        return answers

    def _chunks(self, keys: list[str], bodies: dict[str, dict]) -> list[list[str]]:
        chunks: list[list[str]] = []
        cur: list[str] = []
        size = 0
        for k in keys:
            n = len(json.dumps(self.backend.line(k, bodies[k]), ensure_ascii=False).encode()) + 1
            if cur and (len(cur) >= self.backend.max_requests or size + n > self.backend.max_bytes):
                chunks.append(cur)
                cur, size = [], 0
            cur.append(k)
            size += n
        if cur:
            chunks.append(cur)
        return chunks

    async def _recover(self, rec: dict, records: list[dict]) -> bool:
        """A pending record (killed between create and writing the id): find its batch, or drop it."""
        try:
            found = await self.backend.find(rec.get("token") or "")
        except ProviderError:
            found = None
        if found:
            rec.update(id=found, status="submitted")
            self.store.save(records)
            self.say(f"batch {found}: found the batch an interrupted run submitted; waiting for it")
            return True
        rec["abandoned"] = True
        self.store.save(records)
        self.say(f"warning: an earlier run stopped while submitting a batch of {rec.get('n_requests')} requests "
                 f"and its id was never returned; if the provider did create it, it runs (and is billed) "
                 f"apart; submitting those requests again")
        return False

    async def _finish(self, rec: dict, records: list[dict], wanted: set[str],
                      answers: dict[str, ModelReply | ProviderError]) -> None:
        progress = await self._wait(rec, records)
        if progress.error:
            results: dict[str, Any] = {}
            reason = f"the batch failed: {progress.error}"
        else:
            try:
                results = await self.backend.results(rec["id"])
            except ProviderError as e:
                raise BatchError(f"could not read the results of batch {rec['id']}: {e}; re-run the same command "
                                 f"to read them again") from None
            reason = f"no result for this request in batch {rec['id']} ({progress.status})"
        failed = set(rec.get("failed_keys") or [])
        for k in rec["keys"]:
            got = results.get(k)
            if got is None:
                got = ProviderError(f"{self.backend.kind} {reason}", retryable=False, kind="batch")
            if isinstance(got, ProviderError):
                failed.add(k)
            if k in wanted:
                answers[k] = got
        rec.update(status=progress.status, counts=progress.counts, ended_at=rec.get("ended_at") or _now(),
                   failed_keys=sorted(failed))
        self.store.save(records)

    async def _wait(self, rec: dict, records: list[dict]) -> Progress:
        failures = 0
        last_said, last_line = 0.0, ""
        while True:
            try:
                progress = await self.backend.poll(rec["id"])
                failures = 0
            except ProviderError as e:
                failures += 1
                if not e.retryable or failures >= MAX_POLL_FAILURES:
                    raise BatchError(f"cannot follow batch {rec['id']}: {e}; it is recorded in the run folder: "
                                     f"re-run the same command to resume waiting for it") from None
                self.say(f"batch {rec['id']}: status check failed ({e}); trying again")
                await self.sleep(self.poll_every)
                continue
            if progress.status != rec.get("status"):
                rec.update(status=progress.status, counts=progress.counts)
                self.store.save(records)
            line = f"batch {rec['id']}: {progress.status} {_counts(progress.counts)}"
            now = time.monotonic()
            if progress.ended:
                self.say(line)
                return progress
            if line != last_line or now - last_said >= self.progress_every:
                self.say(line + f" — next check in {self.poll_every:g} s (Ctrl-C stops waiting; the same "
                                "command resumes this batch)")
                last_said, last_line = now, line
            await self.sleep(self.poll_every)


def _counts(counts: dict[str, int]) -> str:
    return "(" + ", ".join(f"{k} {v}" for k, v in counts.items()) + ")" if counts else ""
