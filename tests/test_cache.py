"""The response cache through the real SDKs against the loopback fakes: hits send nothing, the key holds the
whole request (epoch included), errors are never stored, entries are private, atomic and corrupt-tolerant."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat

import pytest

from span_toolkit.client.cache import (CacheError, CachingProvider, ResponseCache, default_cache_dir, reply_from_dict,
                          reply_to_dict)
from span_toolkit.client.metering import MeteredProvider, attempt_scope
from span_toolkit.client.pricing import resolve_price
from span_toolkit.client.providers import ProviderError
from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.base import ModelReply, ToolCall
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from tests.fakes.providers import FakeAnthropic, FakeOpenAI, Status, Text, ToolCalls

SYSTEM = "Answer with a final line."


def _msgs(q="What day is it?"):
    return [{"role": "user", "content": q}]


def _openai(fake, **kw):
    return OpenAIProvider("gpt-4o", api_key="test", base_url=fake.base_url, **kw)


async def test_a_repeated_request_is_served_from_the_cache(tmp_path):
    with FakeOpenAI(lambda body, i: Text(f"Final answer: {i}")) as fake:
        cache = ResponseCache(tmp_path / "c")
        p = CachingProvider(_openai(fake), cache)
        first = await p.generate(SYSTEM, _msgs(), None, 10)
        again = await p.generate(SYSTEM, _msgs(), None, 10)
        assert fake.count == 1
        assert again.text == first.text == "Final answer: 0"
        assert (again.input_tokens, again.output_tokens) == (first.input_tokens, first.output_tokens)
        assert again.assistant_message == first.assistant_message
        # a new provider object over the same folder (another run, another process) hits too
        p2 = CachingProvider(_openai(fake), ResponseCache(tmp_path / "c"))
        assert (await p2.generate(SYSTEM, _msgs(), None, 10)).text == "Final answer: 0"
        assert fake.count == 1 and (p.hits, p2.hits) == (1, 1)
        await p.aclose()
        await p2.aclose()


async def test_every_part_of_the_request_is_in_the_key(tmp_path):
    with FakeOpenAI(lambda body, i: Text(f"Final answer: {i}")) as fake:
        cache = ResponseCache(tmp_path)
        base = CachingProvider(_openai(fake), cache)
        await base.generate(SYSTEM, _msgs(), None, 10)
        variants = [
            (base, "other system", _msgs(), None),
            (base, SYSTEM, _msgs("What day was it?"), None),
            (base, SYSTEM, _msgs(), [{"type": "function", "function": {"name": "t", "parameters": {}}}]),
            (CachingProvider(_openai(fake, temperature=0.7), cache), SYSTEM, _msgs(), None),
            (CachingProvider(_openai(fake, max_tokens=99), cache), SYSTEM, _msgs(), None),
            (CachingProvider(OpenAIProvider("gpt-4o-mini", api_key="test", base_url=fake.base_url), cache),
             SYSTEM, _msgs(), None),
        ]
        for n, (p, system, msgs, tools) in enumerate(variants, start=2):
            await p.generate(system, msgs, tools, 10)
            assert fake.count == n, f"variant {n - 2} was served from the cache"
        metered = CachingProvider(MeteredProvider(_openai(fake)), cache)  # the same requests, counted
        with attempt_scope(epoch=2) as meter:  # the epoch: a second attempt is a new request
            await metered.generate(SYSTEM, _msgs(), None, 10)
        assert fake.count == len(variants) + 2
        assert (meter.cache_hits, meter.requests, meter.input_tokens, meter.output_tokens) == (0, 1, 11, 7)
        with attempt_scope(epoch=2) as meter:
            await metered.generate(SYSTEM, _msgs(), None, 10)
        assert fake.count == len(variants) + 2
        assert (meter.cache_hits, meter.requests, meter.input_tokens) == (1, 0, 0)  # a hit bills nothing
        assert meter.cost(resolve_price("openai/gpt-4o")) == 0.0


async def test_another_base_url_is_another_key(tmp_path):
    with FakeOpenAI(lambda b, i: Text("Final answer: a")) as a, FakeOpenAI(lambda b, i: Text("Final answer: b")) as b:
        cache = ResponseCache(tmp_path)
        assert (await CachingProvider(_openai(a), cache).generate(SYSTEM, _msgs(), None, 10)).text.endswith("a")
        assert (await CachingProvider(_openai(b), cache).generate(SYSTEM, _msgs(), None, 10)).text.endswith("b")
        assert (a.count, b.count) == (1, 1)


async def test_errors_are_never_stored_or_served(tmp_path):
    replies = [Status(500), Status(400), Text("Final answer: ok")]
    with FakeAnthropic(lambda body, i: replies[min(i, 2)]) as fake:
        p = CachingProvider(AnthropicProvider("claude-haiku-4-5", api_key="test", base_url=fake.base_url),
                            ResponseCache(tmp_path))
        for _ in range(2):
            with pytest.raises(ProviderError):
                await p.generate(SYSTEM, _msgs(), None, 10)
        assert list(p.cache.dir.rglob("*.json")) == []
        assert (await p.generate(SYSTEM, _msgs(), None, 10)).text == "Final answer: ok"
        assert (await p.generate(SYSTEM, _msgs(), None, 10)).text == "Final answer: ok"
        assert fake.count == 3
        await p.aclose()


async def test_tool_call_replies_round_trip(tmp_path):
    with FakeAnthropic(lambda body, i: ToolCalls([("date_arithmetic", {"calendar": "hebrew", "days": 3})],
                                                 text="Let me check.")) as fake:
        p = CachingProvider(AnthropicProvider("claude-haiku-4-5", api_key="test", base_url=fake.base_url),
                            ResponseCache(tmp_path))
        live = await p.generate(SYSTEM, _msgs(), [{"name": "date_arithmetic", "description": "d",
                                                   "input_schema": {"type": "object"}}], 10)
        hit = await p.generate(SYSTEM, _msgs(), [{"name": "date_arithmetic", "description": "d",
                                                  "input_schema": {"type": "object"}}], 10)
        assert fake.count == 1
        assert [(c.id, c.name, c.arguments) for c in hit.tool_calls] == \
               [(c.id, c.name, c.arguments) for c in live.tool_calls]
        assert hit.stop_reason == "tool_use" and hit.assistant_message == live.assistant_message
        await p.aclose()


def _reply(text="Final answer: 1"):
    return ModelReply(text=text, tool_calls=[ToolCall("c1", "t", {"a": 1})], stop_reason="stop",
                      assistant_message={"role": "assistant", "content": text}, input_tokens=5, output_tokens=2)


KEY = "ab" + "0" * 62


def test_entries_are_private_and_keys_bounded(tmp_path):
    root = tmp_path / "cache"
    cache = ResponseCache(root)
    assert cache.put(KEY, _reply())
    p = cache.path(KEY)
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    for d in (root, cache.dir, p.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert len(p.name) == len(KEY) + len(".json")
    for bad in ("../../etc/passwd", "AB" + "0" * 62, "a" * 65, ""):
        with pytest.raises(ValueError):
            cache.path(bad)
    assert [x.name for x in p.parent.iterdir()] == [p.name]  # no temporary file left behind


def test_a_loose_cache_folder_is_tightened(tmp_path):
    root = tmp_path / "shared"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    ResponseCache(root)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


@pytest.mark.parametrize("damage", [
    b"", b"{not json", b'{"format": 1, "key": "' + KEY.encode() + b'"',            # cut off
    b'{"format": 99, "key": "' + KEY.encode() + b'", "reply": {}}',                  # another format
    b'{"format": 1, "key": "' + b"cd" * 32 + b'", "reply": {"assistant_message": {}}}',  # another key
    b'{"format": 1, "key": "' + KEY.encode() + b'", "reply": {"assistant_message": 3}}',
    b'{"format": 1, "key": "' + KEY.encode() + b'", "reply": {"assistant_message": {}, "tool_calls": [7]}}',
    b'{"format": 1, "key": "' + KEY.encode() + b'", "reply": {"assistant_message": {}, "input_tokens": "9"}}',
    b"[" * 100_000,                                                                   # deep nesting
])
def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path, damage):
    cache = ResponseCache(tmp_path)
    p = cache.path(KEY)
    p.parent.mkdir(parents=True)
    p.write_bytes(damage)
    assert cache.get(KEY) is None and cache.corrupt == 1
    cache.put(KEY, _reply())
    assert cache.get(KEY).text == "Final answer: 1"


def test_an_oversized_entry_is_a_miss(tmp_path, monkeypatch):
    import span_toolkit.client.cache as cache_mod

    monkeypatch.setattr(cache_mod, "MAX_ENTRY_BYTES", 100)
    cache = ResponseCache(tmp_path)
    cache.put(KEY, _reply("x" * 500))
    assert cache.get(KEY) is None


def test_a_symlinked_entry_is_not_followed(tmp_path):
    cache = ResponseCache(tmp_path / "c")
    outside = tmp_path / "planted.json"
    outside.write_text(json.dumps({"format": 1, "key": KEY, "reply": reply_to_dict(_reply("planted"))}))
    p = cache.path(KEY)
    p.parent.mkdir(parents=True)
    p.symlink_to(outside)
    assert cache.get(KEY) is None


def test_the_cache_folder_must_be_a_folder_of_ours(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(CacheError, match="not a folder"):
        ResponseCache(f)
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(CacheError, match="not a folder"):
        ResponseCache(link)
    if os.getuid() != 0:
        pytest.skip("handing a folder to another user needs root")
    other = tmp_path / "other"
    other.mkdir()
    os.chown(other, 4242, 4242)
    with pytest.raises(CacheError, match="belongs to another user"):
        ResponseCache(other)


def test_an_unwritable_cache_warns_once_and_the_run_goes_on(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    for key in (KEY, "cd" * 32):  # a file where the entry's folder should be (root writes anywhere)
        (cache.dir / key[:2]).write_text("in the way")
    assert not cache.put(KEY, _reply()) and not cache.put("cd" * 32, _reply())
    assert capsys.readouterr().err.count("could not store") == 1


def test_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "span-toolkit"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec: ignore a relative value
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "span-toolkit"


def test_reply_round_trip():
    r = _reply()
    back = reply_from_dict(json.loads(json.dumps(reply_to_dict(r))))
    assert (back.text, back.stop_reason, back.input_tokens, back.output_tokens) == ("Final answer: 1", "stop", 5, 2)
    assert back.tool_calls[0].arguments == {"a": 1}


def _writer(root: str, worker: int, n: int) -> None:
    cache = ResponseCache(root)
    for i in range(n):
        key = f"{i % 7:02x}" + "e" * 62  # every worker writes the same 7 keys, over and over
        cache.put(key, _reply(f"Final answer: {i % 7}"))
        got = cache.get(key)
        assert got is not None and got.text == f"Final answer: {i % 7}", got


def test_concurrent_processes_never_see_a_partial_entry(tmp_path):
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 150)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    cache = ResponseCache(tmp_path)
    assert sorted(cache.get(f"{i:02x}" + "e" * 62).text for i in range(7)) == [f"Final answer: {i}" for i in range(7)]
    assert not [p for p in cache.dir.rglob(".tmp-*")]


async def test_the_final_turn_without_tools_is_its_own_request(tmp_path):
    tools = [{"name": "date_arithmetic", "description": "d", "input_schema": {"type": "object"}}]
    with FakeAnthropic(lambda body, i: Text(f"Final answer: {i}")) as fake:
        p = CachingProvider(MeteredProvider(AnthropicProvider("claude-haiku-4-5", api_key="test",
                                                              base_url=fake.base_url)), ResponseCache(tmp_path))
        assert p.final_turn_keeps_tools is True  # the wrapper says what the provider does
        with attempt_scope() as meter:
            a = await p.generate(SYSTEM, _msgs(), tools, 10)
            b = await p.generate_without_tools(SYSTEM, _msgs(), tools, 10)
            c = await p.generate_without_tools(SYSTEM, _msgs(), tools, 10)
        assert (a.text, b.text, c.text) == ("Final answer: 0", "Final answer: 1", "Final answer: 1")
        assert fake.count == 2 and fake.requests[1]["body"]["tool_choice"] == {"type": "none"}
        assert (meter.requests, meter.cache_hits) == (2, 1)
        await p.aclose()


async def test_the_same_request_in_flight_twice_is_sent_once(tmp_path):
    """Two identical requests at once (the LLM judge asked about one answer by two attempts in parallel)
    send one request; the second waits for its reply and counts as a cache hit. When the first fails,
    the second asks anew: an error is never shared."""
    import asyncio

    with FakeOpenAI(lambda body, i: Text(f"Final answer: {i}"), latency=0.3) as fake:
        p = CachingProvider(MeteredProvider(_openai(fake)), ResponseCache(tmp_path / "c"))

        async def one():
            with attempt_scope(1) as meter:
                reply = await p.generate(SYSTEM, _msgs(), None, 10)
            return reply.text, meter.requests, meter.cache_hits

        got = await asyncio.gather(one(), one())
        assert fake.count == 1
        assert sorted(got) == [("Final answer: 0", 0, 1), ("Final answer: 0", 1, 0)]
        await p.aclose()

    with FakeOpenAI(lambda body, i: Status(400) if i == 0 else Text("Final answer: ok"), latency=0.3) as fake:
        p = CachingProvider(_openai(fake), ResponseCache(tmp_path / "d"))  # no retry layer here
        first, second = await asyncio.gather(p.generate(SYSTEM, _msgs(), None, 10),
                                             p.generate(SYSTEM, _msgs(), None, 10), return_exceptions=True)
        assert isinstance(first, ProviderError) and second.text == "Final answer: ok"
        assert fake.count == 2
        await p.aclose()


def test_a_cache_dir_of_other_things_keeps_its_mode(tmp_path):
    """--cache-dir naming a folder that holds other things (a home folder, a sticky /tmp-like one) leaves
    that folder's mode alone (as root, `--cache-dir /tmp` made /tmp 0700 for everyone); the entries' own
    folder is private all the same. A cache folder of its own is still tightened."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "someone-elses.txt").write_text("x")
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    (home / ".profile").write_text("x")
    for folder, mode in ((shared, 0o1777), (home, 0o755)):
        os.chmod(folder, mode)
        ResponseCache(folder)
        assert stat.S_IMODE(folder.stat().st_mode) == mode
        assert stat.S_IMODE((folder / "responses-v1").stat().st_mode) == 0o700
    own = tmp_path / "own"
    own.mkdir(mode=0o755)
    ResponseCache(own)
    assert stat.S_IMODE(own.stat().st_mode) == 0o700


async def test_a_cancelled_owner_is_cancelled_and_a_failed_one_hands_over_to_one_waiter(tmp_path):
    """Cancelling the request in flight re-raises CancelledError (it raised TypeError from a malformed
    ProviderError) and lets its waiters ask for themselves; when it fails, one waiter asks and the others
    wait for that one (5 identical requests, the first answered 429: 2 sent, not 5)."""
    import asyncio

    with FakeOpenAI(lambda body, i: Text("Final answer: ok"), latency=0.5) as fake:
        p = CachingProvider(_openai(fake), ResponseCache(tmp_path / "a"))
        owner = asyncio.create_task(p.generate(SYSTEM, _msgs(), None, 10))
        await asyncio.sleep(0.1)
        waiter = asyncio.create_task(p.generate(SYSTEM, _msgs(), None, 10))
        await asyncio.sleep(0.1)
        owner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await owner
        assert (await waiter).text == "Final answer: ok"
        await p.aclose()

    with FakeOpenAI(lambda body, i: Status(429) if i == 0 else Text("Final answer: ok"), latency=0.3) as fake:
        p = CachingProvider(_openai(fake), ResponseCache(tmp_path / "b"))
        got = await asyncio.gather(*(p.generate(SYSTEM, _msgs(), None, 10) for _ in range(5)), return_exceptions=True)
        assert sum(isinstance(g, ProviderError) for g in got) == 1
        assert all(g.text == "Final answer: ok" for g in got if not isinstance(g, ProviderError))
        assert fake.count == 2
        await p.aclose()


async def test_only_replies_worth_keeping_are_stored(tmp_path):
    """The LLM judge's stack keeps only readable verdicts: an unreadable one stored would be replayed by
    every later re-judge, which could then never get past UNSCORED."""
    replies = iter(["I am not sure.", '{"accuracy": 1}'])
    with FakeOpenAI(lambda body, i: Text(next(replies))) as fake:
        cache = ResponseCache(tmp_path)
        p = CachingProvider(_openai(fake), cache, keep=lambda r: "accuracy" in (r.text or ""))
        assert (await p.generate(SYSTEM, _msgs(), None, 10)).text == "I am not sure."
        assert (await p.generate(SYSTEM, _msgs(), None, 10)).text == '{"accuracy": 1}'  # asked again
        assert (await p.generate(SYSTEM, _msgs(), None, 10)).text == '{"accuracy": 1}'  # now from the cache
        assert fake.count == 2 and p.hits == 1
        await p.aclose()


# ------------------------------------------------------------------------------------------ issue 33
def test_an_entry_edited_into_other_valid_json_is_caught(tmp_path, capsys):
    """An entry whose reply was changed (still a valid entry of the right key) fails its sha256: a miss,
    counted, named once on stderr, and rewritten by the next put; an entry without the check likewise."""
    cache = ResponseCache(tmp_path)
    cache.put(KEY, _reply("Final answer: 1"))
    p = cache.path(KEY)
    entry = json.loads(p.read_text())
    entry["reply"]["text"] = "Final answer: 2"  # what an edit of the file would do
    p.write_text(json.dumps(entry))
    assert cache.get(KEY) is None and cache.corrupt == 1
    assert "damaged response cache entry" in capsys.readouterr().err
    del entry["sha256"]
    p.write_text(json.dumps(entry))
    assert cache.get(KEY) is None and cache.corrupt == 2
    assert "2 damaged response cache entries" in cache.report()
    cache.put(KEY, _reply("Final answer: 1"))
    assert cache.get(KEY).text == "Final answer: 1" and cache.corrupt == 2


def test_run_json_says_the_cache_is_on_when_cache_dir_turned_it_on(tmp_path):
    from span_toolkit.client.spec import RunSpec

    spec = RunSpec(model="baseline", out_dir=tmp_path / "r", mode="unaided", dates=("2025-07-01",),
                   cache_dir=tmp_path / "c")
    assert spec.cache is True and spec.recorded()["cache"] is True
    assert RunSpec(model="baseline", out_dir=tmp_path / "r", mode="unaided", dates=("2025-07-01",)).cache is False
