"""The Batch API driver through the real openai and anthropic SDKs against loopback fakes that speak both
batch wire formats: several polls, per-line errors, expired and failed batches, a killed client that
resumes polling the same batch, an interrupted submission, chunking, and no live request at all."""

from __future__ import annotations

import json
import re

import pytest

from span_toolkit.client.batch import BatchAnsweredProvider, BatchDriver, BatchError, backend_for
from span_toolkit.client.cache import key_of
from span_toolkit.client.metering import attempt_scope
from span_toolkit.client.providers import ProviderError
from span_toolkit.client.providers.anthropic_provider import AnthropicProvider
from span_toolkit.client.providers.openai_provider import OpenAIProvider
from span_toolkit.client.rundir import RunFolderError
from span_toolkit.client.rundir.batches import BatchRecords
from tests.fakes.batches import FakeAnthropicBatch, FakeOpenAIBatch
from tests.fakes.providers import Status, Text, first_user_text

SYSTEM = "Answer with a final line."
QUESTIONS = [f"Question {i}: what is {i} + {i}?" for i in range(6)]


def doubling(body, index):
    """Answers each question from its own text; a question with 'bad' in it is a 400."""
    q = first_user_text(body)
    if "bad" in q:
        return Status(400)
    n = int(re.search(r"Question (\d+)", q).group(1))
    return Text(f"Final answer: {2 * n}", input_tokens=100 + n, output_tokens=5)


def _provider(kind, fake):
    if kind == "openai":
        return OpenAIProvider("gpt-4o-mini", api_key="test", base_url=fake.base_url)
    return AnthropicProvider("claude-haiku-4-5", api_key="test", base_url=fake.base_url)


FAKES = {"openai": FakeOpenAIBatch, "anthropic": FakeAnthropicBatch}


def _bodies(provider, questions, epoch=1):
    out = {}
    with attempt_scope(epoch):
        for q in questions:
            msgs = provider.initial_messages(q)
            out[key_of(provider, SYSTEM, msgs, None)] = provider.request_body(SYSTEM, msgs, None)
    return out


async def _no_sleep(_):
    return None


def _driver(provider, folder, said=None, **kw):
    owner = {"model": provider.label, "endpoint": provider.endpoint}
    return BatchDriver(backend_for(provider), BatchRecords(folder), owner, poll_every=0.01,
                       say=(said.append if said is not None else (lambda s: None)), sleep=_no_sleep, **kw)


def _creates(fake):
    return sum(1 for m, p in fake.batch_calls if m == "POST" and p in ("/v1/batches", "/v1/messages/batches"))


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_every_request_answered_through_the_batch_api(kind, tmp_path):
    with FAKES[kind](doubling, polls=3) as fake:
        p = _provider(kind, fake)
        bodies = _bodies(p, QUESTIONS)
        said: list[str] = []
        answers = await _driver(p, tmp_path, said).collect(bodies)
        assert fake.count == 0, "a batch run sent a live request"
        assert _creates(fake) == 1
        polls = [c for c in fake.batch_calls if c[0] == "GET" and c[1].endswith("{id}")]
        assert len(polls) >= 4  # in progress three times, then ended
        # the answers come back by custom_id, whatever order the output file has
        answered = BatchAnsweredProvider(p, answers)
        for i, q in enumerate(QUESTIONS):
            reply = await answered.generate(SYSTEM, p.initial_messages(q), None, None)
            assert reply.text == f"Final answer: {2 * i}" and reply.input_tokens == 100 + i
        assert fake.count == 0
        assert any("submitted: 6 requests" in s for s in said) and any("in_progress" in s for s in said)
        rec, = BatchRecords(tmp_path).load()
        assert rec["id"] and rec["failed_keys"] == [] and sorted(rec["keys"]) == sorted(bodies)
        await p.aclose()


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_per_line_errors_are_errors_and_only_they_are_asked_again(kind, tmp_path):
    questions = QUESTIONS[:3] + ["Question 9: a bad one"]
    with FAKES[kind](doubling) as fake:
        p = _provider(kind, fake)
        bodies = _bodies(p, questions)
        answers = await _driver(p, tmp_path).collect(bodies)
        bad = [k for k, v in answers.items() if isinstance(v, ProviderError)]
        assert len(bad) == 1 and not answers[bad[0]].retryable and "status 400" in str(answers[bad[0]])
        with pytest.raises(ProviderError, match="400"):  # served as an error, never as an answer
            await BatchAnsweredProvider(p, answers).generate(SYSTEM, p.initial_messages(questions[3]), None, None)
        # the next run wants the failed request again: a new batch of that one request only
        fake.policy = lambda body, i: Text("Final answer: 18")
        again = await _driver(p, tmp_path).collect({bad[0]: bodies[bad[0]]})
        assert again[bad[0]].text == "Final answer: 18" and _creates(fake) == 2
        recs = BatchRecords(tmp_path).load()
        assert [r["n_requests"] for r in recs] == [4, 1] and fake.count == 0
        await p.aclose()


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_an_expired_batch_keeps_what_it_answered(kind, tmp_path):
    with FAKES[kind](doubling, outcome="expired") as fake:
        p = _provider(kind, fake)
        bodies = _bodies(p, QUESTIONS)
        answers = await _driver(p, tmp_path).collect(bodies)
        ok = [k for k, v in answers.items() if not isinstance(v, ProviderError)]
        errs = [v for v in answers.values() if isinstance(v, ProviderError)]
        assert len(ok) == 3 and len(errs) == 3
        assert all(re.search("expired", str(e)) for e in errs)
        fake.outcome = "completed"
        rest = {k: b for k, b in bodies.items() if k not in ok}
        again = await _driver(p, tmp_path).collect(rest)
        assert all(not isinstance(v, ProviderError) for v in again.values()) and len(again) == 3
        assert _creates(fake) == 2 and fake.count == 0
        await p.aclose()


async def test_a_failed_openai_batch_fails_each_request_with_the_reason(tmp_path):
    with FakeOpenAIBatch(doubling, outcome="failed") as fake:
        p = _provider("openai", fake)
        answers = await _driver(p, tmp_path).collect(_bodies(p, QUESTIONS[:2]))
        assert all(isinstance(v, ProviderError) and "batch failed" in str(v) for v in answers.values())
        await p.aclose()


class Killed(BaseException):
    """What a kill looks like to the code that was waiting (nothing after it runs)."""


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_killed_client_resumes_polling_the_same_batch(kind, tmp_path):
    with FAKES[kind](doubling, polls=5) as fake:
        p = _provider(kind, fake)
        bodies = _bodies(p, QUESTIONS)
        n = 0

        async def dies_on_second_wait(_):
            nonlocal n
            n += 1
            if n == 2:
                raise Killed

        owner = {"model": p.label, "endpoint": p.endpoint}
        first = BatchDriver(backend_for(p), BatchRecords(tmp_path), owner, sleep=dies_on_second_wait)
        with pytest.raises(Killed):
            await first.collect(bodies)
        rec, = BatchRecords(tmp_path).load()
        assert rec["id"] and rec["status"] in ("validating", "in_progress", "submitted")
        # a new client (new SDK client, new store object) on the same run folder
        p2 = _provider(kind, fake)
        said: list[str] = []
        d2 = _driver(p2, tmp_path, said)
        answers = await d2.collect(bodies)
        assert _creates(fake) == 1, "the resumed run submitted the batch again"
        assert all(not isinstance(v, ProviderError) for v in answers.values()) and len(answers) == 6
        assert fake.count == 0
        # and once all is collected, a third run reads the same results again (results not yet written)
        again = await _driver(p2, tmp_path).collect(bodies)
        assert {k: v.text for k, v in again.items()} == {k: v.text for k, v in answers.items()}
        assert _creates(fake) == 1
        await p.aclose()
        await p2.aclose()


async def test_an_interrupted_openai_submission_is_found_by_its_token(tmp_path):
    with FakeOpenAIBatch(doubling) as fake:
        p = _provider("openai", fake)
        bodies = _bodies(p, QUESTIONS[:2])
        backend = backend_for(p)
        # the batch was created, but the client died before writing its id down
        await backend.submit([backend.line(k, b) for k, b in bodies.items()], "tok123")
        BatchRecords(tmp_path).save([{"owner": {"model": p.label, "endpoint": p.endpoint}, "token": "tok123",
                                      "id": None, "keys": sorted(bodies), "n_requests": 2, "status": "submitting"}])
        said: list[str] = []
        answers = await _driver(p, tmp_path, said).collect(bodies)
        assert _creates(fake) == 1 and len(answers) == 2 and any("found the batch" in s for s in said)
        await p.aclose()


async def test_an_interrupted_anthropic_submission_is_submitted_again_with_a_warning(tmp_path):
    with FakeAnthropicBatch(doubling) as fake:
        p = _provider("anthropic", fake)
        bodies = _bodies(p, QUESTIONS[:2])
        BatchRecords(tmp_path).save([{"owner": {"model": p.label, "endpoint": p.endpoint}, "token": "t",
                                      "id": None, "keys": sorted(bodies), "n_requests": 2, "status": "submitting"}])
        said: list[str] = []
        answers = await _driver(p, tmp_path, said).collect(bodies)
        assert len(answers) == 2 and _creates(fake) == 1
        assert any("warning" in s and "submitting those requests again" in s for s in said)
        assert BatchRecords(tmp_path).load()[0]["abandoned"] is True
        await p.aclose()


async def test_another_models_batches_are_not_touched(tmp_path):
    with FakeOpenAIBatch(doubling) as fake:
        p = _provider("openai", fake)
        bodies = _bodies(p, QUESTIONS[:2])
        BatchRecords(tmp_path).save([{"owner": {"model": "openai/other", "endpoint": p.endpoint}, "id": "batch_x",
                                      "keys": sorted(bodies), "status": "in_progress"}])
        await _driver(p, tmp_path).collect(bodies)
        assert ("GET", "/v1/batches/{id}") in fake.batch_calls and _creates(fake) == 1
        assert len(BatchRecords(tmp_path).load()) == 2
        await p.aclose()


async def test_large_runs_are_split_into_batches_within_the_limits(tmp_path):
    with FakeAnthropicBatch(doubling) as fake:
        p = _provider("anthropic", fake)
        d = _driver(p, tmp_path)
        d.backend.max_requests = 2
        answers = await d.collect(_bodies(p, QUESTIONS[:5]))
        assert _creates(fake) == 3 and len(answers) == 5 and fake.count == 0
        await p.aclose()


async def test_submission_and_polling_failures_are_one_line_errors(tmp_path):
    with FakeOpenAIBatch(doubling) as fake:
        p = OpenAIProvider("gpt-4o-mini", api_key="test", base_url=fake.base_url.replace("/v1", "/nowhere"))
        with pytest.raises(BatchError, match="could not submit the batch of 2 requests"):
            await _driver(p, tmp_path).collect(_bodies(p, QUESTIONS[:2]))
        assert BatchRecords(tmp_path).load() == []  # nothing was created: nothing to resume
        good = _provider("openai", fake)
        BatchRecords(tmp_path).save([{"owner": {"model": good.label, "endpoint": good.endpoint},
                                      "id": "batch_gone", "keys": sorted(_bodies(good, QUESTIONS[:1])),
                                      "status": "in_progress"}])
        with pytest.raises(BatchError, match="cannot follow batch batch_gone.*re-run the same command"):
            await _driver(good, tmp_path).collect(_bodies(good, QUESTIONS[:1]))
        await p.aclose()
        await good.aclose()


def test_a_damaged_batches_file_is_refused_not_ignored(tmp_path):
    (tmp_path / "batches.json").write_text("{not json")
    with pytest.raises(RunFolderError, match="may still be running"):
        BatchRecords(tmp_path).load()


async def test_junk_in_the_output_file_answers_nothing_it_should_not(tmp_path):
    with FakeOpenAIBatch(doubling) as fake:
        p = _provider("openai", fake)
        bodies = _bodies(p, QUESTIONS[:3])
        keys = sorted(bodies)
        fake.junk = [
            "not json", "[1, 2]", "{}", json.dumps({"custom_id": 7}),
            json.dumps({"custom_id": "someone-else", "response": {"status_code": 200, "body": {"choices": []}}}),
            json.dumps({"custom_id": keys[1], "response": "x", "error": "y"}),  # odd shapes: an error, no crash
            # a second line for one of ours: neither answer is taken
            json.dumps({"custom_id": keys[0], "response": {"status_code": 200, "body": "a string"}})]
        answers = await _driver(p, tmp_path).collect(bodies)
        assert set(answers) == set(bodies)  # nothing answered that was not asked
        assert "two results for this request" in str(answers[keys[0]])
        assert "two results for this request" in str(answers[keys[1]])
        assert not isinstance(answers[keys[2]], ProviderError)  # the untouched one is answered
        await p.aclose()
