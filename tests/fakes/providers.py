"""Fake Anthropic Messages and OpenAI Chat Completions servers on 127.0.0.1.

Stdlib ``ThreadingHTTPServer`` speaking the real wire formats, so the real ``anthropic`` and ``openai``
SDKs (which use httpx2, not httpx) can be pointed at them with ``base_url``.  A *policy* decides each
reply from the decoded request body; the servers record every request so tests can assert on them.

A policy is ``policy(body: dict, index: int) -> Reply`` where ``index`` counts requests (0-based) and a
reply is one of :class:`Text`, :class:`ToolCalls`, :class:`Status`, :class:`Malformed`, :class:`Slow` (and,
for the OpenAI server, :class:`Recorded`: a real server's reply body replayed as it was).
The servers also check the conversation rules real APIs enforce (every ``tool_use`` answered by its
``tool_result``; every OpenAI ``tool_calls`` id answered by a ``role: tool`` message) and reply 400 when
they are broken, so client bugs show up in tests.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Text:
    text: str
    input_tokens: int = 11
    output_tokens: int = 7
    finish: str = "stop"  # "length": cut at max tokens


@dataclass
class ToolCalls:
    # each call: (name, arguments) where arguments is a dict, or a str sent verbatim (OpenAI: may be bad JSON)
    calls: list[tuple[str, Any]]
    text: str | None = None


@dataclass
class Status:
    code: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Malformed:
    raw: bytes = b'{"this is": not json'
    content_type: str = "application/json"


@dataclass
class Recorded:
    """A reply body recorded from a real server, sent back exactly as it was (replayed fixtures)."""

    body: dict


@dataclass
class Slow:
    seconds: float
    then: Any


Policy = Callable[[dict, int], Any]


def tool_results(body: dict) -> list[dict]:
    """The tool results already in a request, in either wire format, as {"id", "content", "is_error"}."""
    out = []
    for m in body.get("messages", []):
        if m.get("role") == "tool":
            out.append({"id": m.get("tool_call_id"), "content": m.get("content"), "is_error": None})
        elif m.get("role") == "user" and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    c = b.get("content")
                    if isinstance(c, list):
                        c = "".join(x.get("text", "") for x in c if isinstance(x, dict))
                    out.append({"id": b.get("tool_use_id"), "content": c, "is_error": b.get("is_error", False)})
    return out


def first_user_text(body: dict) -> str:
    for m in body.get("messages", []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str):
                return c
            return "".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms Nagle/delayed-ACK stalls between header and body writes
    server: "_Server"

    def log_message(self, *a):  # silence
        pass

    def do_GET(self):  # noqa: N802
        """The models routes the client's pre-flight check reads (real wire shapes); not counted as requests."""
        fake: FakeProviderServer = self.server.fake
        fake.model_checks.append(self.path)
        if not self.path.startswith("/v1/models"):
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        model_id = self.path[len("/v1/models"):].strip("/")
        known = fake.models
        if model_id and known is not None and model_id not in known:
            return self._send(404, fake.error_body(f"The model `{model_id}` does not exist"))
        if model_id:
            return self._send(200, fake.model_object(model_id))
        return self._send(200, {"object": "list", "data": [fake.model_object(m) for m in (known or ["fake-model"])]})

    def do_POST(self):  # noqa: N802
        fake: FakeProviderServer = self.server.fake
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._send(400, {"error": {"message": "invalid JSON body"}})
        with fake._lock:
            index = fake.count
            fake.count += 1
            if fake.record:
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                      "t": time.monotonic()})
        if self.path.rstrip("/") != fake.endpoint:
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        problem = fake.validate(body)
        if problem:
            return self._send(400, fake.error_body(problem))
        reply = fake.policy(body, index)
        while isinstance(reply, Slow):
            time.sleep(reply.seconds)
            reply = reply.then
        if fake.latency:
            time.sleep(fake.latency)
        if isinstance(reply, Status):
            payload = reply.body if reply.body is not None else fake.error_body(f"status {reply.code}")
            return self._send(reply.code, payload, reply.headers)
        if isinstance(reply, Malformed):
            return self._send_raw(200, reply.raw, reply.content_type)
        return self._send(200, fake.render(body, reply))

    def _send(self, code: int, obj: Any, headers: dict | None = None):
        self._send_raw(code, json.dumps(obj).encode(), "application/json", headers)

    def _send_raw(self, code: int, data: bytes, ctype: str, headers: dict | None = None):
        try:
            self.send_response(code)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout test)
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    fake: "FakeProviderServer"


class FakeProviderServer:
    endpoint = ""

    def __init__(self, policy: Policy, latency: float = 0.0, record: bool = True, port: int = 0):
        self.policy = policy
        self._port = port  # 0: any free port; a given port lets a resumed run keep the same --base-url
        self.latency = latency
        self.record = record  # False: count requests only (benchmarks: memory stays flat)
        self.models: list[str] | None = None  # the models GET /v1/models knows (None: any name)
        self.model_checks: list[str] = []
        self.count = 0
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._httpd: _Server | None = None

    # --- lifecycle
    def start(self) -> "FakeProviderServer":
        self._httpd = _Server(("127.0.0.1", self._port), _Handler)
        self._httpd.fake = self
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd
        return self._httpd.server_address[1]

    # --- per-format hooks
    def validate(self, body: dict) -> str | None:
        raise NotImplementedError

    def render(self, body: dict, reply: Any) -> dict:
        raise NotImplementedError

    def error_body(self, message: str) -> dict:
        raise NotImplementedError


class FakeAnthropic(FakeProviderServer):
    @staticmethod
    def model_object(model_id: str) -> dict:
        return {"id": model_id, "type": "model", "display_name": model_id, "created_at": "2025-01-01T00:00:00Z"}

    """POST /v1/messages. SDK base_url is the root (``fake.base_url``)."""

    endpoint = "/v1/messages"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def error_body(self, message: str) -> dict:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}

    def validate(self, body: dict) -> str | None:
        for key in ("model", "max_tokens", "messages"):
            if key not in body:
                return f"{key}: Field required"
        msgs = body["messages"]
        if not msgs or msgs[0].get("role") != "user":
            return "messages: first message must use the user role"
        for i, m in enumerate(msgs):
            if m.get("role") not in ("user", "assistant"):
                return f"messages.{i}.role: must be user or assistant"
            if i and msgs[i - 1].get("role") == m.get("role"):
                return "messages: roles must alternate between user and assistant"
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                ids = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
                if ids:
                    nxt = msgs[i + 1] if i + 1 < len(msgs) else None
                    got = []
                    if nxt and isinstance(nxt.get("content"), list):
                        got = [b.get("tool_use_id") for b in nxt["content"] if b.get("type") == "tool_result"]
                    if sorted(got) != sorted(ids):
                        return (f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks "
                                f"immediately after: {sorted(set(ids) - set(got))}")
        for t in body.get("tools", []) or []:
            if set(t) - {"name", "description", "input_schema"} or "input_schema" not in t:
                return f"tools: unexpected tool definition keys {sorted(t)}"
        return None

    def render(self, body: dict, reply: Any) -> dict:
        content: list[dict] = []
        if isinstance(reply, Text):
            content.append({"type": "text", "text": reply.text})
            stop, usage = "end_turn", (reply.input_tokens, reply.output_tokens)
        elif isinstance(reply, ToolCalls):
            if reply.text:
                content.append({"type": "text", "text": reply.text})
            for name, args in reply.calls:
                content.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name,
                                 "input": args if isinstance(args, dict) else {}})
            stop, usage = "tool_use", (20, 15)
        else:
            raise TypeError(f"unknown reply {reply!r}")
        return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                "model": body["model"], "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


class FakeOpenAI(FakeProviderServer):
    @staticmethod
    def model_object(model_id: str) -> dict:
        return {"id": model_id, "object": "model", "created": 0, "owned_by": "fake"}

    """POST /v1/chat/completions. SDK base_url includes /v1 (``fake.base_url``).

    ``json_history=True`` behaves like vLLM's chat templates, which ``json.loads`` the arguments of every
    assistant tool call in the history: undecodable arguments there are a 400."""

    endpoint = "/v1/chat/completions"

    def __init__(self, policy: Policy, latency: float = 0.0, record: bool = True, port: int = 0,
                 json_history: bool = False):
        super().__init__(policy, latency=latency, record=record, port=port)
        self.json_history = json_history

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def error_body(self, message: str) -> dict:
        return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}

    def validate(self, body: dict) -> str | None:
        for key in ("model", "messages"):
            if key not in body:
                return f"Missing required parameter: '{key}'."
        msgs = body["messages"]
        pending: set[str] = set()
        for i, m in enumerate(msgs):
            role = m.get("role")
            if role not in ("system", "developer", "user", "assistant", "tool"):
                return f"Invalid value for 'messages[{i}].role'"
            if role == "tool":
                if m.get("tool_call_id") not in pending:
                    return (f"Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                            f"message with 'tool_calls'.")
                pending.discard(m["tool_call_id"])
                continue
            if pending:
                return ("An assistant message with 'tool_calls' must be followed by tool messages responding "
                        f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                        f"{sorted(pending)}")
            if role == "assistant":
                for tc in m.get("tool_calls") or []:
                    if tc.get("type") != "function" or not isinstance(tc.get("function", {}).get("arguments"), str):
                        return f"Invalid 'messages[{i}].tool_calls'"
                    if self.json_history:
                        try:
                            json.loads(tc["function"]["arguments"])
                        except ValueError as e:
                            return f"messages[{i}].tool_calls: arguments are not valid JSON ({e})"
                    pending.add(tc["id"])
        if pending:
            return f"tool_call_ids did not have response messages: {sorted(pending)}"
        for t in body.get("tools", []) or []:
            if t.get("type") != "function" or "name" not in t.get("function", {}):
                return "Invalid 'tools': expected {type: function, function: {name, ...}}"
        return None

    def render(self, body: dict, reply: Any) -> dict:
        if isinstance(reply, Recorded):
            return reply.body
        if isinstance(reply, Text):
            message = {"role": "assistant", "content": reply.text, "refusal": None}
            finish, usage = reply.finish, (reply.input_tokens, reply.output_tokens)
        elif isinstance(reply, ToolCalls):
            calls = []
            for name, args in reply.calls:
                calls.append({"id": "call_" + uuid.uuid4().hex[:20], "type": "function",
                              "function": {"name": name,
                                           "arguments": args if isinstance(args, str) else json.dumps(args)}})
            message = {"role": "assistant", "content": reply.text, "refusal": None, "tool_calls": calls}
            finish, usage = "tool_calls", (20, 15)
        else:
            raise TypeError(f"unknown reply {reply!r}")
        return {"id": "chatcmpl-" + uuid.uuid4().hex[:20], "object": "chat.completion",
                "created": int(time.time()), "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                          "total_tokens": usage[0] + usage[1]}}


def serve_forever_cli() -> None:  # pragma: no cover - used by subprocess tests and the benchmark
    """``python -m tests.fakes.providers KIND POLICY [--latency S] [--no-record]`` prints the base_url
    and serves until killed (the provider in another process, as a real one would be)."""
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=("anthropic", "openai"))
    ap.add_argument("policy")
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    # import by package name: under ``-m`` this module is __main__, and the policies build replies with
    # the classes of tests.fakes.providers
    from tests.fakes import policies, providers

    policy = getattr(policies, a.policy)
    cls = providers.FakeAnthropic if a.kind == "anthropic" else providers.FakeOpenAI
    fake = cls(policy, latency=a.latency, record=not a.no_record).start()
    print(fake.base_url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    serve_forever_cli()
