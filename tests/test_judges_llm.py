"""The LLM judge with scripted fake `ask` callables: parsing, bounded re-asks, UNSCORED, errors."""

from __future__ import annotations

import hashlib
from importlib import resources

import pytest

from span_toolkit.client.judges.llm import (PROMPT_SHA256, REASK_TEXT, SYSTEM_PROMPT, LLMJudge, LLMVerdict,
                               parse_verdict, render_user)


class Script:
    """An `ask` that replies from a list and records every (system, user) it was given."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


Q = 'Today\'s date on the Gregorian calendar is "2025-7-1". What is the Hebrew date 3 days later?'


@pytest.mark.parametrize("reply,expected", [
    ('{"accuracy": 1}', 1),
    ('{"accuracy": 0}', 0),
    ('```json\n{\n  "accuracy": "1"\n}\n```', 1),
    ('The response gives 9 Tammuz, but the answer is 8 Tammuz.\n```json\n{"accuracy": 0}\n```\nDone.', 0),
    ('{"accuracy": true}', 1),
    ('{"accuracy": false}', 0),
    ("{'accuracy': 1}", 1),                                 # Python-style dict
    ('{"accuracy": 1,}', 1),                                # trailing comma
    ('{"Accuracy": "0"}', 0),
    ('First guess {"accuracy": 1}; on reflection {"accuracy": 0}', 0),   # the LAST object decides
    ('{"evaluation": {"accuracy": 1, "note": "matches {answer}"}}', 1),  # nested, braces in strings
    ('accuracy: 1', 1),                                     # bare key without braces
    ('{"accuracy": 0.5}', None),
    ('{"accuracy": ""}', None),                             # the paper's template, unfilled
    ('{"accuracy": "yes"}', None),
    ('{"accuracy": 2}', None),
    ('{"score": 1}', None),
    ("The response is correct.", None),
    ("", None),
    ('{"accuracy": 1', 1),                                  # cut off after the value
    ('{"accuracy": ', None),                                # cut off before it
    ("I output accuracy: 1 for correct, 0 for incorrect. This one is wrong.", None),  # restated rule
    ("accuracy: 0\n", 0),
])
def test_parse_verdict(reply, expected):
    assert parse_verdict(reply) == expected


async def test_correct_and_incorrect_first_time():
    ask = Script('```json\n{"accuracy": 1}\n```')
    v = await LLMJudge(ask)(Q, "8 Tammuz 5785", "8 Tammuz 5785")
    assert v == LLMVerdict("CORRECT", '```json\n{"accuracy": 1}\n```', 1)
    ask = Script('{"accuracy": 0}')
    v = await LLMJudge(ask).judge(Q, "9 Tammuz 5785", "8 Tammuz 5785")
    assert (v.verdict, v.attempts) == ("INCORRECT", 1)
    assert v.as_dict() == {"verdict": "INCORRECT", "raw": '{"accuracy": 0}', "attempts": 1}


async def test_prompt_carries_the_three_inputs_and_the_papers_system_prompt():
    ask = Script('{"accuracy": 1}')
    await LLMJudge(ask)(Q, "RESPONSE-TEXT", "ANSWER-TEXT")
    system, user = ask.calls[0]
    assert system == SYSTEM_PROMPT
    assert "Text Evaluation Specialist" in system and "Ignore Formatting" in system and '"accuracy"' in system
    assert Q in user and "RESPONSE-TEXT" in user and "ANSWER-TEXT" in user
    assert user.index(Q) < user.index("RESPONSE-TEXT") < user.index("ANSWER-TEXT")


def test_placeholders_are_substituted_once():
    # A model response that contains "{answer}" must not receive the gold answer.
    user = render_user("q", "I write {answer} here", "GOLD")
    assert "I write {answer} here" in user and user.count("GOLD") == 1


async def test_unparseable_is_reasked_with_a_different_prompt_then_parsed():
    ask = Script("I believe the response is right.", '{"accuracy": 1}')
    v = await LLMJudge(ask, max_attempts=3)(Q, "8 Tammuz 5785", "8 Tammuz 5785")
    assert (v.verdict, v.attempts, v.raw) == ("CORRECT", 2, '{"accuracy": 1}')
    first, second = ask.calls[0][1], ask.calls[1][1]
    # At temperature 0 an identical prompt would get the identical bad reply: the re-ask differs.
    assert second != first and second.startswith(first)
    assert REASK_TEXT in second and "I believe the response is right." in second


async def test_never_parseable_is_unscored_not_incorrect():
    ask = Script("hmm", '{"accuracy": "maybe"}', "no idea", "should never be asked")
    v = await LLMJudge(ask, max_attempts=3)(Q, "x", "y")
    assert (v.verdict, v.attempts, v.raw) == ("UNSCORED", 3, "no idea")
    assert len(ask.calls) == 3


async def test_max_attempts_one_means_no_reask():
    ask = Script("garbage", '{"accuracy": 1}')
    v = await LLMJudge(ask, max_attempts=1)(Q, "x", "y")
    assert (v.verdict, v.attempts, len(ask.calls)) == ("UNSCORED", 1, 1)
    with pytest.raises(ValueError):
        LLMJudge(ask, max_attempts=0)


async def test_exceptions_from_ask_propagate():
    # The provider layer owns retries; the judge must not swallow or retry a transport error.
    ask = Script(TimeoutError("provider timed out"), '{"accuracy": 1}')
    with pytest.raises(TimeoutError):
        await LLMJudge(ask)(Q, "x", "y")
    assert len(ask.calls) == 1


async def test_none_response_is_sent_as_empty_text():
    ask = Script('{"accuracy": 0}')
    v = await LLMJudge(ask)(Q, None, "8 Tammuz 5785")
    assert v.verdict == "INCORRECT" and "None" not in ask.calls[0][1].split("### response")[1].split("###")[0]


def test_prompt_hash_is_the_files_sha256():
    raw = resources.files("span_toolkit.prompts").joinpath("judge_llm.md").read_bytes()
    assert PROMPT_SHA256 == hashlib.sha256(raw).hexdigest() and len(PROMPT_SHA256) == 64
    from span_toolkit.client.judges import PROMPT_SHA256 as exported
    assert exported == PROMPT_SHA256
