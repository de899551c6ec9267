"""Fake OpenAI Batch API and Anthropic Message Batches servers on 127.0.0.1, for the real SDKs.

They extend :class:`FakeOpenAI` / :class:`FakeAnthropic` (the live endpoints still answer, and
``fake.count`` still counts *live* requests only, so a test can assert that a batch run sent none) with:

* OpenAI: ``POST /v1/files`` (multipart, purpose=batch), ``POST /v1/batches``, ``GET /v1/batches/{id}``,
  ``GET /v1/batches`` and ``GET /v1/files/{id}/content``; output and error files as the real API writes
  them (one ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}`` line each,
  in an order other than the input's);
* Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}`` and ``…/results``
  (``succeeded`` / ``errored`` / ``expired`` / ``canceled`` lines).

Each request of a batch is answered by the same *policy* as a live request (a :class:`Status` reply
becomes that line's error). A batch stays in progress for ``polls`` retrievals, then ends as
``outcome``: ``"completed"`` (every line answered), ``"expired"`` (only the first half answered, the rest
expired), ``"failed"`` (OpenAI: the whole batch refused) or ``"cancelled"``. Batches live on the server
object, so a second client (a resumed run) can poll the batch the first one submitted.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from .providers import FakeAnthropic, FakeOpenAI, Status, _Handler, _Server


class _BatchHandler(_Handler):
    def do_GET(self):  # noqa: N802
        if not self.server.fake.batch_get(self):
            super().do_GET()

    def do_POST(self):  # noqa: N802
        if not self.server.fake.batch_post(self):
            super().do_POST()

    def read_body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def send_json(self, code: int, obj: Any) -> bool:
        self._send(code, obj)
        return True

    def send_bytes(self, data: bytes, ctype: str = "application/octet-stream") -> bool:
        self._send_raw(200, data, ctype)
        return True


class _BatchMixin:
    """Shared bookkeeping: in-memory batches, their poll counters and every batch call made."""

    def _init_batches(self, polls: int, outcome: str) -> None:
        self.polls = polls  # retrievals a batch stays in progress for
        self.outcome = outcome
        self.batches: dict[str, dict] = {}
        self.batch_calls: list[tuple[str, str]] = []  # (method, path)
        self._batch_lock = threading.Lock()

    def start(self):
        self._httpd = _Server(("127.0.0.1", self._port), _BatchHandler)
        self._httpd.fake = self
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def answer(self, body: dict, index: int) -> tuple[int, dict]:
        """(status, body) of one request of a batch, from the live policy."""
        problem = self.validate(body)
        if problem:
            return 400, self.error_body(problem)
        reply = self.policy(body, index)
        while hasattr(reply, "then"):  # Slow: a batch does not wait
            reply = reply.then
        if isinstance(reply, Status):
            return reply.code, reply.body if reply.body is not None else self.error_body(f"status {reply.code}")
        return 200, self.render(body, reply)

    def created(self) -> int:
        return int(time.time())


class FakeOpenAIBatch(_BatchMixin, FakeOpenAI):
    """``junk``: extra lines in the output file (a hostile or broken server), written as given."""

    def __init__(self, policy, polls: int = 0, outcome: str = "completed", junk: list[str] | None = None, **kw):
        super().__init__(policy, **kw)
        self._init_batches(polls, outcome)
        self.files: dict[str, dict] = {}
        self.junk = junk or []

    # ----------------------------------------------------------------------------------------- routes
    def batch_post(self, h: _BatchHandler) -> bool:
        path = h.path.split("?")[0].rstrip("/")
        if path == "/v1/files":
            self.batch_calls.append(("POST", path))
            return self._upload(h)
        if path == "/v1/batches":
            self.batch_calls.append(("POST", path))
            return self._create(h)
        return False

    def batch_get(self, h: _BatchHandler) -> bool:
        path = h.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        if path == "/v1/batches":
            self.batch_calls.append(("GET", path))
            return h.send_json(200, {"object": "list", "data": [self._public(b) for b in self.batches.values()],
                                     "has_more": False})
        if len(parts) == 4 and parts[:3] == ["", "v1", "batches"]:
            self.batch_calls.append(("GET", "/v1/batches/{id}"))
            b = self.batches.get(parts[3])
            if b is None:
                return h.send_json(404, self.error_body(f"No batch found with id '{parts[3]}'."))
            self._advance(b)
            return h.send_json(200, self._public(b))
        if len(parts) == 5 and parts[:3] == ["", "v1", "files"] and parts[4] == "content":
            self.batch_calls.append(("GET", "/v1/files/{id}/content"))
            f = self.files.get(parts[3])
            if f is None:
                return h.send_json(404, self.error_body(f"No such File object: {parts[3]}"))
            return h.send_bytes(f["data"], "application/octet-stream")
        return False

    def _upload(self, h: _BatchHandler) -> bool:
        raw = h.read_body()
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + h.headers.get("content-type", "").encode() + b"\r\n\r\n" + raw)
        if not msg.is_multipart():
            return h.send_json(400, self.error_body("expected multipart/form-data"))
        fields, data, filename = {}, None, None
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if name == "file":
                data, filename = part.get_payload(decode=True), part.get_filename()
            else:
                fields[name] = part.get_content().strip()
        if data is None or fields.get("purpose") != "batch":
            return h.send_json(400, self.error_body("'file' and purpose 'batch' are required"))
        fid = "file-" + uuid.uuid4().hex[:24]
        self.files[fid] = {"data": data, "filename": filename, "purpose": "batch"}
        return h.send_json(200, {"id": fid, "object": "file", "bytes": len(data), "created_at": self.created(),
                                 "filename": filename or "upload", "purpose": "batch", "status": "processed"})

    def _create(self, h: _BatchHandler) -> bool:
        try:
            req = json.loads(h.read_body() or b"{}")
        except ValueError:
            return h.send_json(400, self.error_body("invalid JSON body"))
        f = self.files.get(req.get("input_file_id"))
        if f is None:
            return h.send_json(400, self.error_body(f"Invalid 'input_file_id': {req.get('input_file_id')!r}"))
        if req.get("endpoint") != self.endpoint or req.get("completion_window") != "24h":
            return h.send_json(400, self.error_body("endpoint must be /v1/chat/completions, window 24h"))
        bid = "batch_" + uuid.uuid4().hex[:24]
        b = {"id": bid, "object": "batch", "endpoint": req["endpoint"], "input_file_id": req["input_file_id"],
             "completion_window": "24h", "status": "validating", "created_at": self.created(),
             "metadata": req.get("metadata"), "polls": 0, "errors": None, "lines": []}
        seen = set()
        for n, line in enumerate(f["data"].decode().splitlines(), start=1):
            try:
                item = json.loads(line)
                ok = (item["method"] == "POST" and item["url"] == self.endpoint
                      and isinstance(item["body"], dict) and item["custom_id"] not in seen)
            except (ValueError, KeyError, TypeError):
                ok = False
            if not ok:  # the real API refuses the whole file
                b["errors"] = {"object": "list", "data": [{"code": "invalid_request", "line": n,
                                                          "message": f"line {n} is not a valid batch request"}]}
                break
            seen.add(item["custom_id"])
            b["lines"].append(item)
        with self._batch_lock:
            self.batches[bid] = b
        return h.send_json(200, self._public(b))

    # ----------------------------------------------------------------------------------------- states
    def _advance(self, b: dict) -> None:
        with self._batch_lock:
            if b["status"] in ("completed", "failed", "expired", "cancelled"):
                return
            if b["errors"]:
                b["status"], b["failed_at"] = "failed", self.created()
                return
            b["polls"] += 1
            if b["polls"] <= self.polls:
                b["status"] = "in_progress"
                return
            self._finish(b)

    def _finish(self, b: dict) -> None:
        outcome = self.outcome
        if outcome == "failed":
            b["status"] = "failed"
            b["errors"] = {"object": "list", "data": [{"code": "server_error", "message": "batch failed"}]}
            return
        lines = b["lines"]
        answered = lines if outcome == "completed" else lines[: len(lines) // 2]
        out, err = [], []
        with self._lock:
            for item in answered:
                code, body = self.answer(item["body"], self.batch_index())
                line = {"id": "batch_req_" + uuid.uuid4().hex[:16], "custom_id": item["custom_id"],
                        "response": {"status_code": code, "request_id": uuid.uuid4().hex, "body": body},
                        "error": None}
                (out if code == 200 else err).append(line)
        for item in lines[len(answered):]:
            err.append({"id": "batch_req_" + uuid.uuid4().hex[:16], "custom_id": item["custom_id"],
                        "response": None,
                        "error": {"code": "batch_expired" if outcome == "expired" else "batch_cancelled",
                                  "message": "This request could not be executed before the completion "
                                             "window expired." if outcome == "expired" else "cancelled"}})
        out.reverse()  # the real API does not keep the input order either
        b["status"] = {"completed": "completed", "expired": "expired", "cancelled": "cancelled"}[outcome]
        b["completed_at"] = self.created()
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = "file-" + uuid.uuid4().hex[:24]
                text = "".join(json.dumps(r) + "\n" for r in rows)
                if kind == "output_file_id":
                    text += "".join(j + "\n" for j in self.junk)
                self.files[fid] = {"data": text.encode(), "purpose": "batch_output"}
                b[kind] = fid
        b["counts"] = {"total": len(lines), "completed": len(out), "failed": len(err)}

    _served = 0

    def batch_index(self) -> int:
        i = self._served
        self._served += 1
        return i

    def _public(self, b: dict) -> dict:
        out = {k: v for k, v in b.items() if k not in ("lines", "polls", "counts")}
        counts = b.get("counts") or {"total": len(b["lines"]), "completed": 0, "failed": 0}
        out["request_counts"] = counts
        return out


class FakeAnthropicBatch(_BatchMixin, FakeAnthropic):
    def __init__(self, policy, polls: int = 0, outcome: str = "completed", **kw):
        super().__init__(policy, **kw)
        self._init_batches(polls, outcome)
        self._served = 0

    def batch_post(self, h: _BatchHandler) -> bool:
        path = h.path.split("?")[0].rstrip("/")
        if path != "/v1/messages/batches":
            return False
        self.batch_calls.append(("POST", path))
        try:
            req = json.loads(h.read_body() or b"{}")
            requests = req["requests"]
            ids = [r["custom_id"] for r in requests]
            assert all(isinstance(r["params"], dict) for r in requests)
        except (ValueError, KeyError, TypeError, AssertionError):
            return h.send_json(400, self.error_body("requests: each needs custom_id and params"))
        if len(set(ids)) != len(ids) or not requests:
            return h.send_json(400, self.error_body("requests: custom_id values must be unique"))
        now = datetime.now(timezone.utc)
        bid = "msgbatch_" + uuid.uuid4().hex[:24]
        b = {"id": bid, "type": "message_batch", "processing_status": "in_progress",
             "created_at": now.isoformat(), "expires_at": (now + timedelta(hours=24)).isoformat(),
             "ended_at": None, "results_url": None, "archived_at": None, "cancel_initiated_at": None,
             "requests": requests, "polls": 0, "results": None}
        with self._batch_lock:
            self.batches[bid] = b
        return h.send_json(200, self._public(b))

    def batch_get(self, h: _BatchHandler) -> bool:
        path = h.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        if parts[:4] != ["", "v1", "messages", "batches"] or len(parts) not in (5, 6):
            return False
        b = self.batches.get(parts[4])
        if b is None:
            return h.send_json(404, self.error_body(f"message batch {parts[4]} not found"))
        if len(parts) == 5:
            self.batch_calls.append(("GET", "/v1/messages/batches/{id}"))
            self._advance(b)
            return h.send_json(200, self._public(b))
        if parts[5] != "results":
            return False
        self.batch_calls.append(("GET", "/v1/messages/batches/{id}/results"))
        if b["results"] is None:
            return h.send_json(400, self.error_body("batch has not ended"))
        return h.send_bytes("".join(json.dumps(r) + "\n" for r in b["results"]).encode(), "application/binary")

    def _advance(self, b: dict) -> None:
        with self._batch_lock:
            if b["processing_status"] == "ended":
                return
            b["polls"] += 1
            if b["polls"] <= self.polls:
                return
            reqs = b["requests"]
            n_ok = len(reqs) if self.outcome == "completed" else len(reqs) // 2
            results = []
            with self._lock:
                for r in reqs[:n_ok]:
                    code, body = self.answer(r["params"], self._served)
                    self._served += 1
                    if code == 200:
                        results.append({"custom_id": r["custom_id"], "result": {"type": "succeeded", "message": body}})
                    else:
                        results.append({"custom_id": r["custom_id"],
                                        "result": {"type": "errored", "error": {"type": "error", **body}}})
            late = "expired" if self.outcome == "expired" else "canceled"
            results += [{"custom_id": r["custom_id"], "result": {"type": late}} for r in reqs[n_ok:]]
            results.reverse()
            b["results"] = results
            b["processing_status"] = "ended"
            b["ended_at"] = datetime.now(timezone.utc).isoformat()
            b["results_url"] = f"{self.base_url}/v1/messages/batches/{b['id']}/results"

    def _public(self, b: dict) -> dict:
        out = {k: v for k, v in b.items() if k not in ("requests", "polls", "results")}
        res = b["results"] or []
        kinds = [r["result"]["type"] for r in res]
        out["request_counts"] = {"processing": len(b["requests"]) - len(res), "succeeded": kinds.count("succeeded"),
                                 "errored": kinds.count("errored"), "canceled": kinds.count("canceled"),
                                 "expired": kinds.count("expired")}
        return out
