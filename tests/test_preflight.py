"""Fail-fast endpoint check and provider-error classification (client/preflight.py, client/providers/errors.py), against small fake
servers on 127.0.0.1, a closed port, and error texts of real servers."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from span_toolkit.client.preflight import EndpointCheckError, check_model_endpoint
from span_toolkit.client.providers.errors import classify_provider_error, context_overflow_sizes, error_signature
from span_toolkit.client.providers.base import ProviderError

FIXTURES = Path(__file__).parent / "fixtures" / "real_model"


class _Routes(BaseHTTPRequestHandler):
    """GET/POST path -> (status, JSON body); records the requests it saw."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _answer(self):
        n = int(self.headers.get("content-length") or 0)
        if n:
            self.rfile.read(n)
        self.server.seen.append((self.command, self.path, self.headers.get("authorization")))
        status, body = self.server.routes.get((self.command, self.path), (404, {"error": {"message": "no route"}}))
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer


@pytest.fixture
def fake():
    servers = []

    def start(routes: dict) -> str:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Routes)
        httpd.daemon_threads = True
        httpd.routes, httpd.seen = routes, []
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    start.servers = servers
    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


MODELS = {"object": "list", "data": [{"id": "qwen2.5-0.5b", "object": "model", "owned_by": "me"}]}


async def test_openai_compatible_lists_models_and_warns_about_an_unlisted_model(fake):
    root = fake({("GET", "/v1/models"): (200, MODELS)})
    info = await check_model_endpoint(f"{root}/v1", "k", "qwen2.5-0.5b", "openai-compatible")
    assert info.models == ["qwen2.5-0.5b"] and info.warning is None and info.url == f"{root}/v1/models"
    info = await check_model_endpoint(f"{root}/v1/", None, "llama3", "openai-compatible")
    assert "'llama3' is not among the models" in info.warning and "qwen2.5-0.5b" in info.warning
    assert fake.servers[0].seen[0] == ("GET", "/v1/models", "Bearer k")


async def test_closed_port_is_refused_within_seconds_naming_the_url():
    started = time.monotonic()
    with pytest.raises(EndpointCheckError) as e:
        await check_model_endpoint("http://127.0.0.1:9/v1", "k", "m", "openai-compatible")
    assert time.monotonic() - started < 10
    msg = str(e.value)
    assert "http://127.0.0.1:9/v1/models" in msg and "connection refused" in msg and "\n" not in msg
    assert e.value.kind == "connection"


async def test_closed_port_for_anthropic_too():
    with pytest.raises(EndpointCheckError, match=r"http://127\.0\.0\.1:9/v1/models/claude-x: connection refused"):
        await check_model_endpoint("http://127.0.0.1:9", "k", "claude-x", "anthropic")


async def test_unknown_host_is_named(monkeypatch):
    def no_such_host(host, *a, **k):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)  # no DNS query leaves the machine
    with pytest.raises(EndpointCheckError) as e:
        await check_model_endpoint("http://llm.example.invalid:8000/v1", "k", "m", "openai-compatible")
    assert "unknown host 'llm.example.invalid'" in str(e.value) and e.value.kind == "connection"


async def test_a_connected_but_silent_server_is_a_warning_within_the_budget():
    # what a llama-cpp-python server busy generating does (measured): it accepts, then answers nothing
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)  # accepts connections (kernel backlog) but never reads or answers
    try:
        started = time.monotonic()
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        info = await check_model_endpoint(url, "k", "m", "openai-compatible", timeout=1.0)
        assert time.monotonic() - started < 5
        assert "accepted the connection but did not answer within 1 s" in info.warning and url in info.warning
        assert info.models is None
    finally:
        sock.close()


async def test_401_says_which_key_to_check(fake):
    root = fake({("GET", "/v1/models"): (401, {"error": {"message": "Invalid API key", "type": "auth"}})})
    with pytest.raises(EndpointCheckError) as e:
        await check_model_endpoint(f"{root}/v1", "bad", "m", "openai-compatible")
    assert e.value.kind == "auth" and e.value.status == 401
    assert f"{root}/v1/models" in str(e.value) and "Invalid API key" in str(e.value)
    assert "OPENAI_API_KEY" in str(e.value)


async def test_404_on_the_models_route_hints_at_a_missing_v1(fake):
    root = fake({})
    with pytest.raises(EndpointCheckError) as e:
        await check_model_endpoint(root, "k", "m", "openai-compatible")
    assert e.value.kind == "not_found" and "is '/v1' missing from --base-url?" in str(e.value)


async def test_openai_unknown_model_is_not_found(fake):
    body = {"error": {"message": "The model `gpt-x` does not exist or you do not have access to it.",
                      "type": "invalid_request_error", "code": "model_not_found"}}
    root = fake({("GET", "/v1/models/gpt-x"): (404, body)})
    with pytest.raises(EndpointCheckError) as e:
        await check_model_endpoint(f"{root}/v1", "k", "gpt-x", "openai")
    assert e.value.kind == "not_found" and "model 'gpt-x' not found" in str(e.value)


async def test_a_proxy_without_the_models_route_is_checked_with_a_one_token_request(fake):
    chat = {"id": "c", "object": "chat.completion", "created": 0, "model": "gpt-x",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "p"}, "finish_reason": "length"}]}
    root = fake({("POST", "/v1/chat/completions"): (200, chat)})
    info = await check_model_endpoint(f"{root}/v1", "k", "gpt-x", "openai")
    assert info.warning is None
    assert [s[:2] for s in fake.servers[0].seen] == [("GET", "/v1/models/gpt-x"), ("POST", "/v1/chat/completions")]


async def test_anthropic_model_found_and_not_found(fake):
    root = fake({("GET", "/v1/models/claude-ok"): (200, {"type": "model", "id": "claude-ok",
                                                         "display_name": "ok", "created_at": "2025-01-01T00:00:00Z"}),
                 ("GET", "/v1/models/claude-no"): (404, {"type": "error", "error": {
                     "type": "not_found_error", "message": "model: claude-no"}})})
    await check_model_endpoint(root, "k", "claude-ok", "anthropic")
    with pytest.raises(EndpointCheckError, match=r"model 'claude-no' not found"):
        await check_model_endpoint(root, "k", "claude-no", "anthropic")


async def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="kind must be one of"):
        await check_model_endpoint("http://127.0.0.1:9/v1", "k", "m", "ollama")
    with pytest.raises(ValueError, match="needs a base URL"):
        await check_model_endpoint(None, "k", "m", "openai-compatible")


# ------------------------------------------------------------------------------------------ classify
OVERFLOWS = [
    # llama-cpp-python server (and vLLM before 0.10)
    "This model's maximum context length is 4096 tokens. However, you requested 4651 tokens (4139 in the "
    "messages, 512 in the completion). Please reduce the length of the messages or completion.",
    # llama-cpp-python library
    "Requested tokens (4139) exceed context window of 4096",
    # vLLM >= 0.10
    "'max_tokens' or 'max_completion_tokens' is too large: 512. This model's maximum context length is 4096 "
    "tokens and your request has 4139 input tokens (512 > 4096 - 4139).",
    "The decoder prompt (length 5000) is longer than the maximum model length of 4096.",
    # llama.cpp llama-server
    "the request exceeds the available context size, try increasing it",
    "request (4139 tokens) exceeds the available context size (4096 tokens), try increasing it",
    # Ollama
    "the input length exceeds the context length",
    # LM Studio
    "Trying to keep the first 4139 tokens when context the overflows. However, the model is loaded with context "
    "length of only 4096 tokens, which is not enough.",
    # OpenAI
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130511 tokens. "
    "Please reduce the length of the messages.",
    "Error code: 400 - {'error': {'code': 'context_length_exceeded'}}",
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    # Anthropic
    "prompt is too long: 210345 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 199000 + 21333 > 200000, decrease input length or "
    "`max_tokens` and try again",
]


@pytest.mark.parametrize("message", OVERFLOWS, ids=range(len(OVERFLOWS)))
def test_context_overflow_messages_of_every_server(message):
    assert classify_provider_error(message) == "context_overflow"
    assert classify_provider_error(ProviderError(f"OpenAI API error 400: {message}", retryable=False,
                                                 status=400)) == "context_overflow"


@pytest.mark.parametrize("message, kind", [
    ("OpenAI connection error: Connection error.", "connection"),
    ("[Errno -2] Name or service not known", "connection"),
    ("OpenAI request timed out after 120s", "timeout"),
    ("Error code: 401 - {'error': 'invalid x-api-key'}", "auth"),
    ("OpenAI API error 403: forbidden", "auth"),
    ("OpenAI API error 404: The model `x` does not exist", "not_found"),
    ("Anthropic API error 429: rate limited", "rate_limit"),
    ("OpenAI API error 503: Service Unavailable", "server"),
    ("Anthropic API error 529: Overloaded", "server"),
    ("OpenAI API error 400: Invalid 'tools[0].function.name'", "other"),
    ("", "other"),
])
def test_classify_messages(message, kind):
    assert classify_provider_error(message) == kind


def test_classify_exceptions_through_their_causes():
    def chained(outer, inner):
        try:
            try:
                raise inner
            except BaseException as e:
                raise outer from e
        except BaseException as e:
            return e

    refused = chained(ProviderError("OpenAI connection error: Connection error.", retryable=True),
                      ConnectionRefusedError(111, "Connect call failed"))
    assert classify_provider_error(refused) == "connection"
    assert classify_provider_error(chained(RuntimeError("x"), TimeoutError())) == "timeout"
    assert classify_provider_error(ProviderError("boom", retryable=True, status=502)) == "server"
    assert classify_provider_error(ProviderError("no", retryable=False, status=401)) == "auth"
    assert classify_provider_error(None) == "other"


def test_real_llama_cpp_overflow_fixture_is_classified_and_measured():
    fx = json.loads((FIXTURES / "context_overflow_400.json").read_text(encoding="utf-8"))
    assert fx["status"] == 400
    message = fx["response"]["error"]["message"]
    assert classify_provider_error(message) == "context_overflow"
    sizes = context_overflow_sizes(message)
    assert sizes["limit"] == fx["server"]["n_ctx"]
    assert sizes["prompt"] + sizes["completion"] == sizes["requested"] > sizes["limit"]
    assert sizes["completion"] == fx["request"]["max_tokens"]


def test_context_sizes_from_other_servers():
    assert context_overflow_sizes(OVERFLOWS[0]) == {"limit": 4096, "requested": 4651, "prompt": 4139,
                                                    "completion": 512}
    assert context_overflow_sizes(OVERFLOWS[1]) == {"prompt": 4139, "limit": 4096}
    assert context_overflow_sizes(OVERFLOWS[-2]) == {"prompt": 210345, "limit": 200000}
    assert context_overflow_sizes(OVERFLOWS[-1]) == {"prompt": 199000, "completion": 21333, "limit": 200000}
    assert context_overflow_sizes("rate limited") == {}


def test_error_signature_ignores_counts_and_ids_but_not_the_cause():
    a = error_signature("OpenAI API error 400: This model's maximum context length is 4096 tokens. However, you "
                        "requested 4651 tokens (4139 in the messages, 512 in the completion). request "
                        "req_011CSHoEeqs5C3K2XXaqUDzs")
    b = error_signature("OpenAI API error 400: This model's maximum context length is 4096 tokens. However, you "
                        "requested 4702 tokens (4190 in the messages, 512 in the completion). request "
                        "req_022ABCDeqs5C3K2XXaqUDzz")
    assert a == b and "4096" not in a and "req_" not in a
    assert error_signature("OpenAI API error 401: bad key") != error_signature("OpenAI API error 404: no model")
    assert error_signature("  many\n  spaces  ") == "many spaces"
    assert error_signature("gpt-4o said HTTP/1.1") == "gpt-No said HTTP/N"  # short words with digits: not ids


def test_real_llama_cpp_schema_500_is_not_a_server_fault():
    # llama-cpp-python rejects an echoed assistant message with content null with a 500 (pydantic)
    fx = json.loads((FIXTURES / "assistant_null_content_500.json").read_text(encoding="utf-8"))
    assert fx["status"] == 500 and fx["request"]["messages"][2]["content"] is None
    err = ProviderError(f"OpenAI API error 500: {fx['response']['error']['message']}", retryable=True, status=500)
    assert classify_provider_error(err) == "other"
    assert classify_provider_error(ProviderError("OpenAI API error 500: Internal Server Error", retryable=True,
                                                 status=500)) == "server"
