"""The Time Agent's helpers (client/solvers/timeagent_messages.py): prompt, code extraction, result messages, and the
scripted code agent end to end through the real sandbox and the rules judge."""

from __future__ import annotations

import asyncio
import re
from datetime import date

import pytest

from span_toolkit import span
from span_toolkit.client.judges.rules import CORRECT, judge_answer
from span_toolkit.client.sandbox import ExecResult, Limits, Sandbox
from span_toolkit.client.agents.scripted import final_answer, program_for
from span_toolkit.client.solvers.timeagent_messages import (build_system_prompt, extract_code, format_execution, prompt_files,
                                               result_message, stdout_from_message)
from span_toolkit.span.benchmark import generate_instances, sample_instances
from span_toolkit.span.festivals import Festival


# ------------------------------------------------------------------------------------------ prompt

def test_prompt_lists_every_calendar_festival_and_month_from_span():
    text = build_system_prompt()
    assert "<<" not in text and ">>" not in text
    for name in span.CALENDAR_NAMES:
        assert f'"{name}"' in text
    for f in span.festivals.FESTIVALS:
        if f.calendar in span.CALENDAR_NAMES:  # the six calendars the prompt (and the benchmark) covers
            assert f'"{f.name}"' in text, f.name
    for month in span.get_calendar("hebrew").month_names.values():
        assert month in text
    assert repr(span.search_calendar("gregorian", 2025, 7, 1)) in text


def test_prompt_is_generated_not_hand_kept(monkeypatch):
    extra = Festival("Test Harvest Day", "shaka", 5, 3, "3 Shravana")
    monkeypatch.setattr(span.festivals, "FESTIVALS", (*span.festivals.FESTIVALS, extra))
    assert '"Test Harvest Day"' in build_system_prompt()


def test_prompt_states_the_limits():
    text = build_system_prompt(Limits(wall_seconds=7, max_output_bytes=32 * 1024))
    assert "stopped after 7 seconds" in text and "first 32 KiB" in text


async def test_prompt_examples_print_what_the_prompt_says():
    """Each worked example's code, run in the sandbox, prints exactly the output the prompt shows."""
    text = build_system_prompt()
    examples = re.findall(r"```python\n(.*?)```\n\nIt prints:\n\n```\n(.*?)```", text, re.S)
    assert len(examples) == 4
    async with Sandbox() as sb:
        for code, shown in examples:
            res = await sb.run(code)
            assert res.ok, res.stderr
            assert res.stdout == shown


def test_prompt_files_exist():
    from importlib import resources

    for name in prompt_files():
        assert resources.files("span_toolkit.prompts").joinpath(name).read_text(encoding="utf-8").strip()


# ------------------------------------------------------------------------------------------ extract_code

@pytest.mark.parametrize("reply,code", [
    ("```python\nprint(1)\n```", "print(1)\n"),
    ("Here:\n```py\nprint(2)\n```\nDone.", "print(2)\n"),
    ("```\nprint(3)\n```", "print(3)\n"),
    ("```Python3\nprint(4)\n```", "print(4)\n"),
    ("```python\nprint('first')\n```\nBetter:\n```python\nprint('last')\n```", "print('last')\n"),
    ("```python\nprint(5)\n```\nOutput:\n```text\n5\n```", "print(5)\n"),
    ("```python\nif True:\n    print(6)\n```", "if True:\n    print(6)\n"),
    ("```python\nprint(7)", "print(7)\n"),                   # cut off at the token limit
    ("  ```python\nx = 8\nprint(x)\n  ```", "x = 8\nprint(x)\n"),
    ("```python\n\n```\n```python\nprint(9)\n```", "print(9)\n"),
    # the prompt's examples imitated: the program, then "It prints:" and an untagged block of output
    ("```python\nprint(10)\n```\n\nIt prints:\n\n```\n1404-4-10\n```", "print(10)\n"),
    ("```\nprint(11)\n```\n```\nprint(12)\n```", "print(12)\n"),  # untagged only: the last one
])
def test_extract_code(reply, code):
    assert extract_code(reply) == code


@pytest.mark.parametrize("reply", [None, "", "Final answer: 2025-7-1", "```json\n{\"a\": 1}\n```",
                                   "use `print(1)` inline", "```python\n   \n```"])
def test_extract_code_none(reply):
    assert extract_code(reply) is None


# ------------------------------------------------------------------------------------------ messages

def test_result_message_after_success_asks_for_the_final_answer():
    msg = result_message(ExecResult("1447-1-5\n", "", "ok", 0, 0.01), turns_left=1)
    assert "1447-1-5" in msg and "Final answer:" in msg and "corrected" not in msg


def test_result_message_after_an_error_offers_a_retry_then_gives_up():
    err = ExecResult("", "Traceback (most recent call last):\nNameError: name 'x' is not defined\n", "error", 1, 0.01)
    retry = result_message(err, turns_left=2)
    assert "NameError" in retry and "corrected program" in retry and "2 attempt(s) left" in retry
    final = result_message(err, turns_left=0)
    assert "NameError" in final and "No attempts are left" in final
    none = result_message(None, turns_left=1)
    assert "no ```python code block" in none


def test_format_execution_reasons_and_clipping():
    lim = Limits(wall_seconds=4)
    t = format_execution(ExecResult("", "", "timeout", -9, 4.0), lim)
    assert "wall-clock limit of 4 s" in t and "(nothing)" in t
    long_out = "".join(f"line {i}\n" for i in range(5000))
    long_err = "".join(f"frame {i}\n" for i in range(5000)) + "ValueError: the real cause\n"
    t = format_execution(ExecResult(long_out, long_err, "error", 1, 0.1), lim, max_chars=2000)
    assert "line 0" in t and "line 4999" not in t           # stdout: the head is kept
    assert "the real cause" in t and "frame 0\n" not in t   # stderr: the tail is kept
    assert len(t) < 2600
    t = format_execution(ExecResult("x" * 10, "", "output_limit", -9, 0.1, truncated=True), lim)
    assert "cut off" in t and "64 KiB" in t
    t = format_execution(ExecResult("", "", "error", 3, 0.1), lim)
    assert "exit status 3" in t


# ------------------------------------------------------------------------------------------ scripted agent

def test_final_answer():
    assert final_answer("debug\n5 Tammuz 5785\n\n") == "Final answer: 5 Tammuz 5785"
    with pytest.raises(ValueError, match="printed nothing"):
        final_answer("")


def test_write_code_uses_only_the_question():
    inst = next(generate_instances(date(2025, 7, 1)))
    code = program_for(inst["question"])
    assert "search_calendar(" in code and str(inst["gold"]) not in code
    assert extract_code("```python\n" + program_for(inst["question"]) + "```") == code


def test_stdout_read_back_from_the_result_message():
    msg = result_message(ExecResult("a\n5 Tammuz 5785\n", "", "ok", 0, 0.01), turns_left=0)
    assert stdout_from_message(msg) == "a\n5 Tammuz 5785\n"
    assert stdout_from_message(result_message(ExecResult("", "", "ok", 0, 0.01), turns_left=0)) == ""
    assert stdout_from_message("no result here") == ""


async def _score(instances, concurrency=2) -> list:
    """Each instance the way the eval loop runs it: reply -> extract -> sandbox -> message -> answer."""
    wrong = []
    async with Sandbox(concurrency=concurrency) as sb:
        sem = asyncio.Semaphore(concurrency)

        async def one(inst):
            async with sem:
                res = await sb.run(extract_code("```python\n" + program_for(inst["question"]) + "```"))
            answer = final_answer(stdout_from_message(result_message(res, turns_left=0))) if res.ok else None
            verdict = judge_answer(inst, answer).verdict if res.ok else res.exit_reason
            if verdict != CORRECT:
                wrong.append((inst["id"], verdict, res.stdout, res.stderr[-300:]))

        await asyncio.gather(*(one(i) for i in instances))
    return wrong


async def test_scripted_agent_on_leap_months_negatives_and_other_formats():
    # 2023-04-01 falls in the Chinese leap 2nd month: leap references and leap answers
    insts = list(generate_instances(date(2023, 4, 1), polar_negatives=True, date_formats=True))
    picked = sample_instances(insts, 150, seed=3) if len(insts) > 150 else insts
    leap = [i for i in insts if "leap" in i["question"] or "leap" in str(i.get("answer", ""))][:40]
    assert leap, "expected Chinese leap-month instances on 2023-04-01"
    no = [i for i in insts if i["gold"] is False][:20]
    assert no
    assert await _score([*picked, *leap, *no]) == []


@pytest.mark.slow
async def test_scripted_code_agent_scores_100_percent_on_one_date():
    """All 1,780 instances of 2025-07-01, each program run alone in the real sandbox (~20-30 s)."""
    insts = list(generate_instances(date(2025, 7, 1)))
    assert len(insts) == 1780
    assert await _score(insts) == []
