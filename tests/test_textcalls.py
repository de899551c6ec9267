"""Tool calls written as text (client/textcalls.py): every form, the traps, the limits, and real replies
recorded from a local llama-cpp-python server (tests/fixtures/real_model/)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from span_toolkit.client.providers.base import ToolCall, ToolResult
from span_toolkit.client.textcalls import (DEFAULT_MAX_CALLS, parse_text_calls, render_text_results, result_style)

KNOWN = {"search_calendar", "date_arithmetic", "date_difference", "list_calendars"}
ARGS = {"calendar": "hebrew", "year": 5785, "month": 4, "day": 5}
CALL = json.dumps({"name": "search_calendar", "arguments": ARGS})
FIXTURES = Path(__file__).parent / "fixtures" / "real_model"


def only(parse):
    assert not parse.unparsed, parse.unparsed
    assert len(parse.calls) == 1, parse.calls
    return parse.calls[0]


# ------------------------------------------------------------------------------------------- forms
@pytest.mark.parametrize("text, form", [
    (f"<tool_call>\n{CALL}\n</tool_call>", "text:hermes"),
    (f"<tool_call>{CALL}</tool_call><|im_end|>", "text:hermes"),
    (f"[TOOL_CALLS] [{CALL}]", "text:mistral"),
    (f"[TOOL_CALLS][{CALL}]</s>", "text:mistral"),
    (f"[TOOL_CALLS]search_calendar[ARGS]{json.dumps(ARGS)}", "text:mistral"),
    (f"functions.search_calendar:\n{json.dumps(ARGS)}", "text:functions"),
    (f"```json\n{CALL}\n```", "text:fenced"),
    (f"```\n{CALL}\n```", "text:fenced"),
    (CALL, "text:json"),
    (f"<|python_tag|>{CALL}<|eom_id|>", "text:json"),
    (json.dumps({"name": "search_calendar", "parameters": ARGS}), "text:json"),  # Llama 3.x
    (json.dumps({"type": "function", "name": "search_calendar", "parameters": ARGS}), "text:json"),
    (json.dumps({"type": "function", "function": {"name": "search_calendar", "arguments": json.dumps(ARGS)}}),
     "text:json"),
    (f"{CALL}\n</tool_call>", "text:json"),  # the opening tag was a special token and vanished
])
def test_each_form_gives_the_call_and_nothing_else(text, form):
    parse = parse_text_calls(text, KNOWN)
    call = only(parse)
    assert (call.name, call.arguments, call.form) == ("search_calendar", ARGS, form)
    assert parse.found
    assert parse.duplicates == 0 and parse.dropped == 0


def test_calls_in_a_list_and_one_after_another_in_text_order():
    a = {"name": "search_calendar", "arguments": ARGS}
    b = {"name": "list_calendars", "arguments": {}}
    c = {"name": "date_difference", "arguments": {"start": {"calendar": "gregorian", "year": 2025, "month": 1,
                                                            "day": 1}, "end": {"calendar": "gregorian",
                                                                               "year": 2025, "month": 2, "day": 1}}}
    for text in (json.dumps([a, b, c]), f"{json.dumps(a)}\n{json.dumps(b)} {json.dumps(c)}",
                 f"<tool_call>{json.dumps(a)}</tool_call>\n<tool_call>{json.dumps(b)}</tool_call>"
                 f"<tool_call>{json.dumps(c)}</tool_call>"):
        parse = parse_text_calls(text, KNOWN)
        assert [x.name for x in parse.calls] == ["search_calendar", "list_calendars", "date_difference"], text


def test_prose_around_a_call_does_not_hide_the_call():
    parse = parse_text_calls(f"I will look it up.\n```json\n{CALL}\n```\nThen I answer.", KNOWN)
    assert only(parse).form == "text:fenced"


def test_a_call_without_arguments_key_runs_with_empty_arguments():
    call = only(parse_text_calls('{"name": "list_calendars"}', KNOWN))
    assert call.arguments == {}


# ------------------------------------------------------------------------------------------- robustness
def test_arguments_given_as_a_json_string_are_decoded():
    text = json.dumps({"name": "search_calendar", "arguments": json.dumps(ARGS)})
    assert only(parse_text_calls(text, KNOWN)).arguments == ARGS


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scanner():
    args = {"festival_name": 'A } strange { "name" ] [ value', "calendar": "gregorian", "year": 2025}
    text = "Sure: " + json.dumps({"name": "search_calendar", "arguments": args}) + " done."
    assert only(parse_text_calls(text, KNOWN)).arguments == args


def test_trailing_garbage_after_the_object_is_ignored():
    call = only(parse_text_calls(CALL + "}}]] </s> <|im_end|>", KNOWN))
    assert call.arguments == ARGS


def test_single_quoted_python_style_object_is_accepted():
    text = "{'name': 'search_calendar', 'arguments': {'calendar': 'hebrew', 'year': 5785, 'month': 4, 'day': 5}}"
    assert only(parse_text_calls(text, KNOWN)).arguments == ARGS


def test_a_missing_final_brace_inside_closed_tags_is_repaired():
    text = '<tool_call>{"name": "search_calendar", "arguments": {"calendar": "hebrew", "year": 5785}</tool_call>'
    assert only(parse_text_calls(text, KNOWN)).arguments == {"calendar": "hebrew", "year": 5785}


def test_a_cut_off_last_object_is_an_unparsed_attempt_not_a_call():
    text = f"[{CALL}, {CALL}, " + '{"name": "search_calendar", "arguments": {"calendar": "heb'
    parse = parse_text_calls(text, KNOWN)
    assert [c.arguments for c in parse.calls] == [ARGS]
    assert parse.duplicates == 1
    assert len(parse.unparsed) == 1 and parse.unparsed[0].cut_off
    assert "cut off" in parse.unparsed[0].error and parse.unparsed[0].name == "search_calendar"


def test_a_cut_off_hermes_call_is_unparsed():
    parse = parse_text_calls('<tool_call>\n{"name": "date_arithmetic", "arguments": {"calendar": "greg', KNOWN)
    assert not parse.calls and parse.unparsed[0].cut_off


def test_invalid_json_with_a_known_name_is_an_attempt_with_a_usable_error():
    parse = parse_text_calls('{"name": "search_calendar", "arguments": {"calendar": "hebrew", year: 5785}}', KNOWN)
    assert not parse.calls
    (u,) = parse.unparsed
    assert u.name == "search_calendar" and not u.cut_off
    assert "not valid JSON" in u.error and "double-quoted" in u.error


def test_unknown_tool_in_call_shape_is_an_attempt_naming_the_valid_tools():
    parse = parse_text_calls('{"name": "convert_date", "arguments": {"year": 1}}', KNOWN)
    (u,) = parse.unparsed
    assert "unknown tool 'convert_date'" in u.error
    assert all(t in u.error for t in KNOWN)


def test_arguments_that_are_not_an_object_are_an_attempt():
    (u,) = parse_text_calls('{"name": "search_calendar", "arguments": [5785, 4, 5]}', KNOWN).unparsed
    assert "must be one JSON object, not a list" in u.error


def test_garbage_inside_explicit_markers_is_an_attempt():
    for text in ("<tool_call>search_calendar hebrew 5785</tool_call>", "<tool_call>{'name': }</tool_call>",
                 "[TOOL_CALLS] [1, 2]"):
        parse = parse_text_calls(text, KNOWN)
        assert not parse.calls and len(parse.unparsed) == 1, text


def test_functions_marker_with_unknown_name_or_bad_arguments():
    (u,) = parse_text_calls("functions.convert:{}", KNOWN).unparsed
    assert "unknown tool 'convert'" in u.error
    (u,) = parse_text_calls("functions.search_calendar:{calendar: hebrew}", KNOWN).unparsed
    assert "not valid JSON" in u.error
    # llama-cpp-python's chatml-function-calling "auto" answer: the marker alone, no arguments
    call = only(parse_text_calls("functions.date_arithmetic:", KNOWN))
    assert (call.name, call.arguments, call.form) == ("date_arithmetic", {}, "text:functions")


# ------------------------------------------------------------------------------------------- not calls
@pytest.mark.parametrize("text", [
    "The Hebrew date is 5 Tammuz 5785.\nFinal answer: 5 Tammuz 5785",
    'The result was {"gregorian_date": "2025-7-1", "is_lunar_leap_month": true}, so Final answer: Yes',
    '{"name": "Alice", "age": 3}',
    '[1, 2, 3] and {"calendar": "hebrew"} and {not json at all',
    "Use the formula {x + 1} [see note] — Final answer: 2025-7-1",
    '{"name": "search_calendar is the tool I would use"}',
    "",
    "```python\nprint({'a': 1})\n```\nFinal answer: No",
])
def test_answers_with_json_ish_text_are_not_calls(text):
    parse = parse_text_calls(text, KNOWN)
    assert not parse.found, (parse.calls, parse.unparsed)


def test_a_known_name_outside_call_shape_inside_an_answer_is_still_not_an_attempt_when_unbalanced():
    text = 'Earlier I saw {"name": "Alice", and then the answer. Final answer: Yes'
    assert not parse_text_calls(text, KNOWN).found


def test_no_known_tools_means_no_calls_but_call_shaped_objects_are_attempts():
    parse = parse_text_calls(CALL, set())
    assert not parse.calls and "available tools: (none)" in parse.unparsed[0].error


# ------------------------------------------------------------------------------------------- dedupe, cap
def test_repeats_run_once_and_are_counted():
    parse = parse_text_calls((CALL + "\n") * 40, KNOWN)
    assert len(parse.calls) == 1 and parse.duplicates == 39 and parse.dropped == 0
    assert "39 repeated identical call(s) skipped" in parse.note()


def test_the_same_arguments_in_another_key_order_are_the_same_call():
    other = json.dumps({"name": "search_calendar", "arguments": dict(reversed(list(ARGS.items())))})
    parse = parse_text_calls(f"{CALL} {other}", KNOWN)
    assert len(parse.calls) == 1 and parse.duplicates == 1


def test_distinct_calls_beyond_the_cap_are_dropped_and_counted():
    calls = [json.dumps({"name": "search_calendar", "arguments": {"calendar": "gregorian", "year": 2000 + i}})
             for i in range(12)]
    parse = parse_text_calls("\n".join(calls), KNOWN, max_calls=5)
    assert [c.arguments["year"] for c in parse.calls] == [2000, 2001, 2002, 2003, 2004]
    assert parse.dropped == 7 and "7 call(s) beyond the limit of 5" in parse.note()
    assert parse_text_calls("\n".join(calls), KNOWN).dropped == 12 - DEFAULT_MAX_CALLS


def test_max_calls_must_be_positive():
    with pytest.raises(ValueError, match="max_calls must be >= 1"):
        parse_text_calls(CALL, KNOWN, max_calls=0)


def test_tool_calls_adapter_keeps_text_order_and_marks_attempts():
    text = f'{CALL}\n{{"name": "nope", "arguments": {{}}}}\n{{"name": "list_calendars", "arguments": {{}}}}'
    calls = parse_text_calls(text, KNOWN).tool_calls("t1")
    assert [(c.id, c.name, c.error is None) for c in calls] == [
        ("t1_0", "search_calendar", True), ("t1_1", "nope", False), ("t1_2", "list_calendars", True)]
    assert calls[0].arguments == ARGS and json.loads(calls[0].raw_arguments) == ARGS
    assert calls[1].arguments is None and "unknown tool" in calls[1].error


# ------------------------------------------------------------------------------------------- speed
@pytest.mark.parametrize("text", [
    "{" * 20000,
    "[" * 10000 + "]" * 10000,
    '{"a": "' + "\\" * 20000,
    "<tool_call>" * 2000,
    "functions.search_calendar:" * 800,
    "```" * 7000,
    '{"name": "search_calendar", "arguments": {' * 500,
    ("x " * 1000 + CALL) * 10,
], ids=["open-braces", "nested-lists", "backslashes", "open-tags", "functions-markers", "fences",
        "nested-call-heads", "long-prose-with-calls"])
def test_pathological_input_is_linear(text):
    # ~20k characters: a quadratic pass would need hundreds of millions of steps here
    started = time.perf_counter()
    parse_text_calls(text, KNOWN)
    assert time.perf_counter() - started < 2.0


# ------------------------------------------------------------------------------------------- results
def _result(name, args, content, is_error=False):
    return ToolResult(call=ToolCall(id="t_0", name=name, arguments=args), content=content, is_error=is_error)


def _blocks(text):
    return [json.loads(b.split("</tool_response>")[0]) for b in text.split("<tool_response>")[1:]]


def test_hermes_results_are_tool_response_blocks_with_attempt_errors():
    parse = parse_text_calls(f'<tool_call>{CALL}</tool_call><tool_call>{{"name": "nope", "arguments": {{}}}}'
                             f'</tool_call>', KNOWN)
    text = render_text_results("text:hermes", [_result("search_calendar", ARGS, '{"weekday": "Tuesday"}'),
                                               _result("list_calendars", {}, "no such year", True)],
                               parse.unparsed, note="1 repeated identical call(s) skipped")
    assert _blocks(text) == [{"name": "search_calendar", "content": {"weekday": "Tuesday"}},
                             {"name": "list_calendars", "content": "ERROR: no such year"},
                             {"name": "nope", "content": f"ERROR: {parse.unparsed[0].error}"}]
    assert text.endswith("(1 repeated identical call(s) skipped.)")


def test_plain_results_name_the_call_and_its_arguments():
    text = render_text_results("text:json", [_result("search_calendar", ARGS, "Tuesday")],
                               [{"name": None, "error": "the call was cut off"}])
    assert text == (f"Result of search_calendar {json.dumps(ARGS)}:\nTuesday\n\n"
                    "Result of (unreadable call):\nERROR: the call was cut off")
    assert render_text_results("text:fenced", [_result("list_calendars", {}, "six")]) == \
        "Result of list_calendars {}:\nsix"


def test_result_style_follows_the_form_the_model_used():
    assert result_style(parse_text_calls(f"<tool_call>{CALL}</tool_call>", KNOWN)) == "hermes"
    assert result_style(parse_text_calls(CALL, KNOWN)) == "plain"
    assert [result_style(f) for f in ("text:hermes", "text:mistral", "native")] == ["hermes", "plain", "plain"]


def test_unparsed_attempt_exposes_its_text():
    (u,) = parse_text_calls('{"name": "search_calendar", "arguments": {year: 1}}', KNOWN).unparsed
    assert u.text == u.raw == '{"name": "search_calendar", "arguments": {year: 1}}'


# ------------------------------------------------------------------------------------------- real replies
def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def content(name: str) -> str | None:
    return fixture(name)["response"]["choices"][0]["message"]["content"]


def test_real_fenced_calls_inside_prose():
    parse = parse_text_calls(content("text_call_fenced_in_prose"), KNOWN)
    assert [(c.name, c.arguments, c.form) for c in parse.calls] == [
        ("search_calendar", {"month": "tishuvim"}, "text:fenced"),
        ("search_calendar", {"month": "teteshuva"}, "text:fenced")]
    assert not parse.unparsed


def test_real_fenced_call_with_an_ellipsis_is_an_attempt():
    parse = parse_text_calls(content("text_call_fenced_invalid_json"), KNOWN)
    assert not parse.calls
    (u,) = parse.unparsed
    assert (u.form, u.name, u.cut_off) == ("text:fenced", "search_calendar", False)
    assert "not valid JSON" in u.error


def test_real_bare_call_with_invalid_json_is_an_attempt():
    text = content("text_call_invalid_json")
    assert text.startswith("The answer is:")  # the answer-looking lead-in must not make it an answer
    parse = parse_text_calls(text, KNOWN)
    assert not parse.calls
    (u,) = parse.unparsed
    assert (u.form, u.name) == ("text:json", "date_arithmetic")


def test_real_functions_marker_reply_of_chatml_function_calling():
    fx = fixture("text_call_functions_marker")
    assert fx["request"]["tool_choice"] == "auto" and fx["response"]["choices"][0]["finish_reason"] == "stop"
    parse = parse_text_calls(content("text_call_functions_marker"), KNOWN)
    call = only(parse)
    assert (call.name, call.arguments, call.form) == ("date_arithmetic", {}, "text:functions")


def test_real_cut_off_reply_keeps_the_complete_call_and_flags_the_cut_one():
    fx = fixture("cut_at_max_tokens_mid_call")
    assert fx["response"]["choices"][0]["finish_reason"] == "length"
    parse = parse_text_calls(content("cut_at_max_tokens_mid_call"), KNOWN)
    assert [(c.name, c.arguments) for c in parse.calls] == [("search_calendar", {"month": "tishuvim"})]
    (u,) = parse.unparsed
    assert u.cut_off and u.form == "text:fenced"


@pytest.mark.parametrize("name", ["unaided_answer", "own_template_ignores_tools", "cut_at_max_tokens_no_call",
                                  "reply_to_tool_result_user_message", "reply_to_tool_result_role_tool",
                                  "native_tools_without_tool_choice"])
def test_real_replies_that_are_not_calls(name):
    parse = parse_text_calls(content(name), KNOWN)
    assert not parse.found


def test_real_native_replies_carry_no_text_to_parse():
    for name in ("native_tool_call_named", "native_tool_call_auto"):
        msg = fixture(name)["response"]["choices"][0]["message"]
        assert msg["content"] is None and msg["tool_calls"][0]["function"]["name"] in KNOWN
        assert not parse_text_calls(msg["content"], KNOWN).found


def test_a_cut_off_object_inside_tags_says_cut_off_even_without_a_name():
    (u,) = parse_text_calls('<tool_call>\n{"arguments": {"calendar": "gre', KNOWN).unparsed
    assert u.cut_off and "cut off" in u.error and u.name is None


@pytest.mark.parametrize("text", [
    '<tool_response>\n{"name": "search_calendar", "content": {"weekday": "Tuesday"}}\n</tool_response>',
    'I got <tool_response>\n{"name": "search_calendar", "content": {"weekday": "Tue',  # quoted, cut off
    'Final answer: 1 Tammuz 5785 (from {"name": "search_calendar", "result": "ok"})',
])
def test_an_echoed_or_quoted_tool_response_is_not_a_call(text):
    parse = parse_text_calls(text, KNOWN)
    assert not parse.found, (parse.calls, parse.unparsed)


def test_a_call_cut_right_after_its_name_is_still_an_attempt():
    for text in ('{"name": "search_calendar", "argu', '{"name": "search_calendar"', '{"name": "search_calendar", '):
        (u,) = parse_text_calls(text, KNOWN).unparsed
        assert u.cut_off and u.name == "search_calendar", text
