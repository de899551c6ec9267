"""--reasoning-effort and --thinking-budget (issue 30): what reaches the request body through the real SDKs, what
the provider needs alongside (arranged with a one-line note), a value refused fast with what is valid, run.json,
resume's settings check, and the cache key of a run without them unchanged."""

from __future__ import annotations

import json

import pytest

from span_toolkit.client.cache import request_content, request_key
from span_toolkit.client.cli import main
from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from tests.fakes.helpers import read_results, write_jsonl
from tests.fakes.instances import toy_instances
from tests.fakes.providers import FakeAnthropic, FakeOpenAI, Status, Text
from tests.fakes.thinking import FakeThinkingAnthropic, Thought

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")


def eval_args(fake, model: str, tmp_path, *extra: str, n: int = 6) -> list[str]:
    path = write_jsonl(tmp_path / "toy.jsonl", toy_instances(n))
    return ["eval", "--model", model, "--base-url", fake.base_url, "--instances", str(path), "--out",
            str(tmp_path / "run"), "--no-preflight", "--concurrency", "2", *extra]


def answer(body, index):
    return Text("Final answer: Yes")


def test_reasoning_effort_high_reaches_the_request_body_without_a_temperature(tmp_path, keys, capsys):
    with FakeOpenAI(answer) as fake:
        rc = main(eval_args(fake, "openai/o-test", tmp_path, "--reasoning-effort", "high"))
        bodies = [r["body"] for r in fake.requests]
    assert rc in (0, 1) and bodies
    assert all(b["reasoning_effort"] == "high" and "temperature" not in b for b in bodies)
    err = capsys.readouterr().err
    assert "note: openai/o-test: no temperature sent with --reasoning-effort high" in err
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["settings"]["reasoning_effort"] == "high" and info["provider"]["temperature"] is None
    assert info["args"]["reasoning_effort"] == "high"


def test_thinking_budget_becomes_anthropics_budget_tokens(tmp_path, keys, capsys):
    with FakeThinkingAnthropic(lambda body, i: Thought(thinking="hm", text="Final answer: Yes")) as fake:
        rc = main(eval_args(fake, "anthropic/claude-t", tmp_path, "--thinking-budget", "2048", "--temperature", "0"))
        bodies = [r["body"] for r in fake.requests]
    assert rc in (0, 1) and bodies
    for b in bodies:
        assert b["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert b["max_tokens"] == 4096 and "temperature" not in b  # what the API needs, arranged
    err = capsys.readouterr().err
    assert "max_tokens raised from 2048 to 4096" in err and "no temperature sent with extended thinking" in err


def test_thinking_budget_on_a_compatible_server_is_the_templates_switch(tmp_path, keys):
    with FakeOpenAI(answer) as fake:
        main(eval_args(fake, "openai-compatible/qwen3", tmp_path, "--thinking-budget", "0"))
        body = fake.requests[0]["body"]
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and "reasoning_effort" not in body


@pytest.mark.parametrize("model,args,says", [
    ("anthropic/claude-t", ["--reasoning-effort", "high"], "Anthropic models think with --thinking-budget"),
    ("anthropic/claude-t", ["--thinking-budget", "500"], "at least 1024"),
    ("openai/o-test", ["--thinking-budget", "2048"], "OpenAI models take --reasoning-effort"),
])
def test_a_setting_the_provider_cannot_take_is_one_line_before_anything_runs(tmp_path, keys, capsys, model, args,
                                                                             says):
    with FakeOpenAI(answer) as fake:
        rc = main(eval_args(fake, model, tmp_path, *args))
        assert fake.count == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and says in err[-1] and "Traceback" not in "\n".join(err)


def test_a_value_the_server_refuses_stops_the_run_at_once_with_the_valid_values(tmp_path, keys, capsys):
    refusal = Status(400, {"error": {"message": "Unsupported value: 'reasoning_effort' does not support 'minimal' "
                                                "with this model. Supported values are: 'low', 'medium', and 'high'.",
                                     "type": "invalid_request_error", "param": "reasoning_effort",
                                     "code": "unsupported_value"}})
    with FakeOpenAI(lambda body, i: refusal) as fake:
        rc = main(eval_args(fake, "openai/o-test", tmp_path, "--reasoning-effort", "minimal", n=30))
        sent = fake.count
    err = capsys.readouterr().err
    assert rc == 1 and sent <= 3  # not 30 failing instances
    assert "Supported values are: 'low', 'medium', and 'high'" in err and "--reasoning-effort" in err


def test_resume_with_another_reasoning_setting_is_refused(tmp_path, keys, capsys):
    with FakeOpenAI(answer) as fake:
        assert main(eval_args(fake, "openai/o-test", tmp_path, "--reasoning-effort", "low")) in (0, 1)
        rc = main(eval_args(fake, "openai/o-test", tmp_path, "--reasoning-effort", "high"))
    assert rc == 2 and "reasoning_effort" in capsys.readouterr().err
    assert len(read_results(tmp_path / "run" / "results.jsonl")) == 6


def test_without_the_options_configs_and_cache_keys_are_unchanged():
    """A run that sets neither option sends and keys exactly what it did before they existed."""
    o = OpenAIProvider("gpt-x", api_key="k", base_url="http://127.0.0.1:9/v1")
    a = AnthropicProvider("claude-x", api_key="k", base_url="http://127.0.0.1:9")
    assert set(o.config()) == set(a.config()) == {"label", "is_llm", "api", "temperature", "max_tokens", "base_url"}
    before = request_key(request_content(o.config(), "s", [{"role": "user", "content": "q"}], None, 1))
    assert o.set_reasoning(None, None) == [] and a.set_reasoning(None, None) == []
    assert request_key(request_content(o.config(), "s", [{"role": "user", "content": "q"}], None, 1)) == before
    assert set(o.request_body("s", [{"role": "user", "content": "q"}], None)) == {
        "model", "messages", "temperature", "max_completion_tokens"}
    o.set_reasoning("high", None)
    assert request_key(request_content(o.config(), "s", [{"role": "user", "content": "q"}], None, 1)) != before


def test_hidden_reasoning_tokens_reported_by_openai_are_counted_in_the_summary(tmp_path, keys):
    """OpenAI's reasoning models hide their thinking but report its tokens: counted apart, per line and in
    summary.json, and within the output tokens (what is billed)."""
    from tests.fakes.thinking import FakeThinkingOpenAI

    hidden = Thought(thinking="", text="Final answer: Yes", reasoning_tokens=500, output_tokens=520)
    with FakeThinkingOpenAI(lambda body, i: hidden, form="reasoning_content") as fake:
        main(eval_args(fake, "openai/o-test", tmp_path, "--reasoning-effort", "high", "--quiet"))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    lines = read_results(tmp_path / "run" / "results.jsonl")
    assert summary["reasoning"]["reasoning_tokens"] == 500 * 6
    assert summary["reasoning"]["visible_output_tokens"] == 20 * 6
    assert summary["reasoning"]["lines_reported_by_provider"] == 6
    assert all(x["usage"] == {"input_tokens": 40, "output_tokens": 520, "reasoning_tokens": 500,
                              "reasoning_tokens_source": "provider"} for x in lines)
    assert all(x["thinking"] == [{"turn": 1, "form": None, "chars": 0, "reasoning_tokens": 500}] for x in lines)


def test_a_cached_reply_keeps_the_providers_reasoning_token_count():
    """A reply served again by the response cache keeps the reasoning tokens the provider reported (they
    were lost, and the thinking counted again offline); an entry without them is stored as before."""
    from span_toolkit.client.cache import reply_from_dict, reply_to_dict
    from span_toolkit.client.providers.base import ModelReply

    msg = {"role": "assistant", "content": "Final answer: Yes", "reasoning_content": "let me think"}
    reply = ModelReply(text="Final answer: Yes", tool_calls=[], stop_reason="stop", assistant_message=msg,
                       input_tokens=10, output_tokens=7640, reasoning_tokens=7600)
    stored = reply_to_dict(reply)
    assert reply_from_dict(stored).reasoning_tokens == 7600
    plain = ModelReply(text="Final answer: Yes", tool_calls=[], stop_reason="stop",
                       assistant_message={"role": "assistant", "content": "Final answer: Yes"})
    assert "reasoning_tokens" not in reply_to_dict(plain)
    import pytest
    with pytest.raises(ValueError):
        reply_from_dict({**stored, "reasoning_tokens": True})
