"""Tool calls written in the reply *text* instead of structured ``tool_calls``.

Open models served without a tool parser (llama.cpp with the model's own template, vLLM without
``--tool-call-parser``, Ollama, LM Studio) write their calls into the message content:

* ``text:hermes``    ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` (Hermes, Qwen)
* ``text:mistral``   ``[TOOL_CALLS] [{…}, …]`` and ``[TOOL_CALLS]NAME[ARGS]{…}``
* ``text:functions`` ``functions.NAME:{…}`` (llama-cpp-python's ``chatml-function-calling`` in auto mode)
* ``text:fenced``    a call object inside a ```` ``` ```` fence
* ``text:json``      a bare ``{"name": …, "arguments"|"parameters": {…}}``, a list of them or several in a row
  (also Qwen's Hermes calls whose ``<tool_call>`` tags were special tokens and vanished from the text:
  the two cannot be told apart, so those count as ``text:json``)

:func:`parse_text_calls` finds them in one linear pass (a bracket scanner that knows JSON strings, no
backtracking regex), runs nothing, and reports what it found: the distinct complete calls, the attempts
that cannot be run (each with an error text the model can act on), how many repeats and over-cap calls it
left out, and whether the text was nothing but calls (such a reply must never be judged as an answer).
:func:`render_text_results` writes tool results (and the errors of failed attempts) back for a model that
called in text, as the content of one user message.

Why this module is long: one scanner serves five dialects that overlap (a Hermes call with lost tags is
bare JSON; a fenced block may hold a list), and the repairs and refusals (cut-off objects, JSON in a
string, single quotes, echoed responses) must be decided in one pass over the same positions.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .providers.base import ToolCall, ToolResult

DEFAULT_MAX_CALLS = 8
_RAW_KEEP = 2000  # characters of the source kept per call (records stay small when a model rambles)
_MAX_DESCENT = 3  # how far the scanner looks inside brackets that did not parse (keeps the work linear)
_LITERAL_MAX = 20000  # longest span offered to ast.literal_eval (single-quoted, Python-style objects)
_ARG_KEYS = ("arguments", "parameters")
_BARE_KEYS = {"name", "type", "id"}  # keys a call object without arguments may have


@dataclass(frozen=True)
class TextCall:
    """A complete call found in the text, ready to run."""

    name: str
    arguments: dict
    form: str
    raw: str
    position: int = 0  # offset in the text (keeps calls and failed attempts in the order written)


@dataclass(frozen=True)
class Unparsed:
    """Text that clearly tries a call but cannot be run. ``error`` is written for the model to read."""

    form: str
    raw: str
    error: str
    name: str | None = None
    cut_off: bool = False  # the text ended inside the call (the reply hit its token limit)
    position: int = 0

    @property
    def text(self) -> str:
        """The attempt as written (same as ``raw``)."""
        return self.raw


@dataclass
class TextParse:
    calls: list[TextCall] = field(default_factory=list)
    unparsed: list[Unparsed] = field(default_factory=list)
    duplicates: int = 0  # identical repeats of a call (or of a failed attempt) left out
    dropped: int = 0  # distinct calls and attempts beyond ``max_calls``, left out
    max_calls: int = DEFAULT_MAX_CALLS

    @property
    def found(self) -> bool:
        """True when the text holds at least one call or call attempt (the reply is not an answer)."""
        return bool(self.calls or self.unparsed)

    @property
    def forms(self) -> Counter:
        return Counter([c.form for c in self.calls] + [u.form for u in self.unparsed])

    def note(self) -> str | None:
        """One line for the run record when something was left out, else None."""
        parts = []
        if self.duplicates:
            parts.append(f"{self.duplicates} repeated identical call(s) skipped")
        if self.dropped:
            parts.append(f"{self.dropped} call(s) beyond the limit of {self.max_calls} per turn not run")
        return "; ".join(parts) or None

    def tool_calls(self, id_prefix: str = "text") -> list[ToolCall]:
        """Calls and failed attempts, in text order, as :class:`ToolCall` (an attempt carries ``error``
        and no arguments, so the agent loop answers it with an error result like a malformed native call)."""
        items: list[TextCall | Unparsed] = sorted([*self.calls, *self.unparsed], key=lambda x: x.position)
        out = []
        for i, item in enumerate(items):
            if isinstance(item, TextCall):
                out.append(ToolCall(id=f"{id_prefix}_{i}", name=item.name, arguments=item.arguments,
                                    raw_arguments=json.dumps(item.arguments, ensure_ascii=False)))
            else:
                out.append(ToolCall(id=f"{id_prefix}_{i}", name=item.name or "(unreadable call)", arguments=None,
                                    raw_arguments=item.raw, error=item.error))
        return out


# ------------------------------------------------------------------------------------------- parsing
# Markers that open an explicit call region. Simple alternation of literals: no backtracking.
_MARKERS = re.compile(r"<tool_call>|</tool_call>|\[TOOL_CALLS\]|```|functions\.([A-Za-z_][\w\-]*)\s*:")
_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z_][\w\-.]*)\s*\[ARGS\]")
_FENCE_LANG = re.compile(r"[A-Za-z0-9_+\-]*[ \t]*\n?")
_ARGS_KEY = re.compile(r"[\"'](?:arguments|parameters)[\"']\s*:")
_NAME_ONLY_TAIL = re.compile(r"[\"']?\s*,?\s*[\"']?[A-Za-z_]{0,12}\s*$")  # `{"name": "x", "argu` cut here
_SPECIAL = re.compile(r"[{}\[\]\"\\]")
# Does a failed or cut-off ``{…`` span start like a call object? Looked at only at the span's start,
# so prose with braces is not mistaken for a call.
_CALL_HEAD = re.compile(r"\{\s*(?:[\"'](?:type|id)[\"']\s*:\s*[\"'][^\"']{0,40}[\"']\s*,\s*)?"
                        r"[\"'](?:name|function)[\"']\s*:\s*(?:\{\s*[\"']name[\"']\s*:\s*)?[\"']?([A-Za-z_][\w\-.]*)?")


def parse_text_calls(text: str | None, known_tools: Iterable[str], *, max_calls: int = DEFAULT_MAX_CALLS) -> TextParse:
    """Find the tool calls written in ``text``. Only names in ``known_tools`` become calls; inside an explicit
    call marker (``<tool_call>``, ``[TOOL_CALLS]``, ``functions.X:``) anything unusable is a failed attempt,
    elsewhere only objects shaped like a call (``name`` plus ``arguments``/``parameters``) are."""
    if max_calls < 1:
        raise ValueError(f"max_calls must be >= 1, got {max_calls}")
    known = frozenset(known_tools)
    result = TextParse(max_calls=max_calls)
    if not text:
        return result
    found = _Finder(text, known)
    found.run()
    _dedupe(result, found.calls, found.unparsed, max_calls)
    return result


class _Finder:
    def __init__(self, text: str, known: frozenset[str]):
        self.text = text
        self.known = known
        self.calls: list[TextCall] = []
        self.unparsed: list[Unparsed] = []
        self._close = -1  # next "</tool_call>" at or after the current position

    def run(self) -> None:
        text, pos, n = self.text, 0, len(self.text)
        while pos < n:
            m = _MARKERS.search(text, pos)
            if m is None:
                self._bare(pos, n, "text:json")
                return
            self._bare(pos, m.start(), "text:json")
            tok = m.group(0)
            if tok == "<tool_call>":
                pos = self._hermes(m)
            elif tok == "</tool_call>":  # a stray closing tag (the opening one was a vanished special token)
                pos = m.end()
            elif tok == "[TOOL_CALLS]":
                pos = self._mistral(m)
            elif tok == "```":
                pos = self._fence(m)
            else:
                pos = self._functions(m)

    # -- explicit regions
    def _hermes(self, m: re.Match) -> int:
        text = self.text
        start = m.end()
        # cached: a reply of many unclosed tags must not search to the end once per tag
        if self._close < start:
            found = text.find("</tool_call>", start)
            self._close = found if found != -1 else len(text) + 1
        close = self._close if self._close <= len(text) else -1
        nxt = text.find("<tool_call>", start)
        if close != -1 and (nxt == -1 or close < nxt):
            end, after, closed = close, close + len("</tool_call>"), True
        else:
            end = nxt if nxt != -1 else len(text)
            after, closed = end, False
        self._region(start, end, "text:hermes", closed=closed)
        return after

    def _mistral(self, m: re.Match) -> int:
        text = self.text
        named = _MISTRAL_NAMED.match(text, m.end())
        if named:  # [TOOL_CALLS]NAME[ARGS]{…} (Mistral's v11 tokenizer format)
            span = _object_after(text, named.end())
            end = (span[1] or len(text)) if span else named.end()
            self._named(named.group(1), span, "text:mistral", m.start())
            return end
        # the list runs until the next marker of any kind (or the end)
        nxt = _MARKERS.search(text, m.end())
        end = nxt.start() if nxt else len(text)
        self._region(m.end(), end, "text:mistral", closed=nxt is not None)
        return end

    def _functions(self, m: re.Match) -> int:
        text = self.text
        span = _object_after(text, m.end())
        end = (span[1] or len(text)) if span else m.end()
        self._named(m.group(1), span, "text:functions", m.start())
        return end

    def _fence(self, m: re.Match) -> int:
        text = self.text
        lang = _FENCE_LANG.match(text, m.end())
        start = lang.end() if lang else m.end()
        close = text.find("```", start)
        end = close if close != -1 else len(text)
        after = close + 3 if close != -1 else len(text)
        self._bare(start, end, "text:fenced")
        return after

    def _named(self, name: str, span, form: str, position: int) -> None:
        """``NAME`` followed by an arguments object (or nothing: the call then has no arguments)."""
        text = self.text
        raw = text[position:(span[1] or len(text))] if span else text[position:position + len(name) + 16]
        if name not in self.known:
            self._fail(form, raw, _unknown(name, self.known), name, position)
            return
        if span is None:
            self.calls.append(TextCall(name, {}, form, raw, position))
            return
        a, b, _ = span
        if b is None:
            self._fail(form, raw, _CUT_OFF, name, position, cut_off=True)
            return
        value, err = _load(text[a:b])
        if err is not None:
            self._fail(form, raw, _bad_json(err, form), name, position)
        elif not isinstance(value, dict):
            self._fail(form, raw, f"the arguments of {name!r} must be one JSON object, not {_kind(value)}", name,
                       position)
        else:
            self.calls.append(TextCall(name, value, form, raw, position))

    def _region(self, lo: int, hi: int, form: str, *, closed: bool) -> None:
        """The inside of an explicit call marker: everything here is meant as a call."""
        text = self.text
        spans = _scan(text, lo, hi)
        if not spans:
            raw = text[lo:hi].strip()
            if raw or closed:
                self._fail(form, raw or text[max(0, lo - 12):hi], "no JSON object found inside the call marker; "
                           + _HOW[form], None, lo)
            return
        before = len(self.calls) + len(self.unparsed)
        for a, b, opener in spans:
            if b is None and closed and opener == "{":
                # the region is closed by its marker, so a missing final brace is a slip, not a cut-off
                repaired = _close_brackets(text[a:hi])
                if repaired is not None:
                    value, err = _load(repaired)
                    if err is None:
                        self._value(value, form, text[a:hi], a, explicit=True)
                        continue
            self._span(a, b, opener, form, explicit=True, depth=0, hi=hi)
        if len(self.calls) + len(self.unparsed) == before:
            self._fail(form, text[lo:hi].strip()[:_RAW_KEEP], "no call object found inside the call marker; "
                       + _HOW[form], None, lo)

    # -- bare JSON
    def _bare(self, lo: int, hi: int, form: str) -> None:
        if lo >= hi:
            return
        for a, b, opener in _scan(self.text, lo, hi):
            self._span(a, b, opener, form, explicit=False, depth=0, hi=hi)

    def _span(self, a: int, b: int | None, opener: str, form: str, *, explicit: bool, depth: int, hi: int) -> None:
        text = self.text
        end = b if b is not None else hi
        chunk = text[a:end]
        if b is not None:
            value, err = _load(chunk)
            if err is None:
                # JSON that holds no call (prose like "[1]", or an answer given as JSON) is left alone
                self._value(value, form, chunk, a, explicit=explicit)
                return
        else:
            err = None
        # did not parse (or was cut off). Inside a call marker an object is the call; elsewhere only one
        # that opens like a call object is
        head = _CALL_HEAD.match(chunk) if opener == "{" else None
        if opener == "{" and (explicit or (head is not None and _is_attempt(head, chunk, self.known))):
            name = head.group(1) if head is not None and head.group(1) else None
            if b is None:
                self._fail(form, chunk, _CUT_OFF, name, a, cut_off=True)
            else:
                self._fail(form, chunk, _bad_json(err, form), name, a)
            return
        if depth < _MAX_DESCENT and end - a > 2:
            # a list cut off mid-way, or prose with a stray bracket: look one level inside
            for a2, b2, op2 in _scan(text, a + 1, end):
                self._span(a2, b2, op2, form, explicit=explicit, depth=depth + 1, hi=end)

    def _value(self, value: Any, form: str, raw: str, position: int, *, explicit: bool) -> bool:
        """Record the call(s) in a decoded JSON value; False when it holds none (not a call at all)."""
        items = value if isinstance(value, list) else [value]
        hit = False
        for item in items:
            hit |= self._object(item, form, raw, position, explicit=explicit)
        if not hit and explicit:
            self._fail(form, raw, "the JSON inside the call marker is not a call object; " + _HOW[form], None,
                       position)
            return True
        return hit

    def _object(self, obj: Any, form: str, raw: str, position: int, *, explicit: bool) -> bool:
        if not isinstance(obj, dict):
            return False
        for wrapper in ("tool_calls", "tool_call", "calls"):  # {"tool_calls": [{…}]}
            inner = obj.get(wrapper)
            if inner is not None and "name" not in obj:
                inner = inner if isinstance(inner, list) else [inner]
                return any([self._object(i, form, raw, position, explicit=explicit) for i in inner])
        if isinstance(obj.get("function"), dict):  # the OpenAI wire shape {"type": "function", "function": {…}}
            obj = obj["function"]
        name = obj.get("name")
        if not isinstance(name, str):
            return False
        has_args = any(k in obj for k in _ARG_KEYS)
        if not (has_args or explicit) and set(obj) - _BARE_KEYS:
            # {"name": "search_calendar", "content": …} is a tool response echoed or quoted, not a call
            return False
        if name not in self.known:
            if not (has_args or explicit):
                return False  # JSON that merely has a "name" field: part of an answer, not a call
            self._fail(form, raw, _unknown(name, self.known), name, position)
            return True
        raw_args = next((obj[k] for k in _ARG_KEYS if k in obj), None)
        args, err = _arguments(raw_args)
        if err is not None:
            self._fail(form, raw, f"the arguments of {name!r} {err}", name, position)
        else:
            self.calls.append(TextCall(name, args, form, raw, position))
        return True

    def _fail(self, form: str, raw: str, error: str, name: str | None, position: int, *, cut_off: bool = False) -> None:
        self.unparsed.append(Unparsed(form, raw[:_RAW_KEEP], error, name, cut_off, position))


def _is_attempt(head: re.Match, chunk: str, known: frozenset[str]) -> bool:
    """A failed bare span opening with a ``name`` key is a call attempt when an ``arguments``/``parameters``
    key follows soon after, or when it names a known tool and ends right there (cut off after the name).
    A quoted tool response (``{"name": "search_calendar", "content": …``) is neither."""
    if _ARGS_KEY.search(chunk, 0, 400) is not None:
        return True
    return bool(head.group(1)) and head.group(1) in known and _NAME_ONLY_TAIL.match(chunk, head.end()) is not None


def _object_after(text: str, pos: int) -> tuple[int, int | None, str] | None:
    """The ``{…}`` span starting at the first non-blank character after ``pos``, if it is a brace."""
    i = pos
    n = len(text)
    while i < n and text[i] in " \t\r\n":
        i += 1
    if i >= n or text[i] != "{":
        return None
    return _scan(text, i, n, first_only=True)[0]


def _scan(text: str, lo: int, hi: int, *, first_only: bool = False) -> list[tuple[int, int | None, str]]:
    """Top-level bracket spans of ``text[lo:hi]`` as (start, end or None when unterminated, opener).
    Double-quoted strings are skipped (braces inside them do not count) while inside brackets; quotes in
    prose between spans are ignored. A closer that does not match its opener is ignored."""
    spans: list[tuple[int, int | None, str]] = []
    stack: list[str] = []
    in_str = False
    skip = -1
    start = lo
    for m in _SPECIAL.finditer(text, lo, hi):
        i = m.start()
        c = text[i]
        if i == skip:
            continue
        if not stack:
            if c in "{[":
                stack.append(c)
                start = i
            continue
        if in_str:
            if c == "\\":
                skip = i + 1
            elif c == '"':
                in_str = False
            continue
        if c == '"':
            in_str = True
        elif c in "{[":
            stack.append(c)
        elif c in "}]":
            if (c == "}") == (stack[-1] == "{"):
                stack.pop()
                if not stack:
                    spans.append((start, i + 1, text[start]))
                    if first_only:
                        return spans
    if stack:
        spans.append((start, None, text[start]))
    return spans


def _load(chunk: str) -> tuple[Any, str | None]:
    """JSON (control characters inside strings allowed); then Python-literal objects with single quotes,
    which small models write often enough (``{'name': 'x', 'arguments': {...}}``). ast.literal_eval
    evaluates literals only, never code."""
    try:
        return json.loads(chunk, strict=False), None
    except ValueError as e:
        err = f"{e.msg} at character {e.pos}" if isinstance(e, json.JSONDecodeError) else str(e)
    except RecursionError:
        return None, "nested too deeply"
    if "'" in chunk and len(chunk) <= _LITERAL_MAX:
        try:
            value = ast.literal_eval(chunk)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
        else:
            if isinstance(value, (dict, list)):
                try:  # only values JSON can carry (no sets, tuples as keys, bytes …)
                    return json.loads(json.dumps(value)), None
                except (TypeError, ValueError):
                    pass
    return None, err


def _close_brackets(chunk: str) -> str | None:
    """Append the closers a span inside a closed marker is missing; None if it ends inside a string."""
    stack: list[str] = []
    in_str = False
    skip = -1
    for m in _SPECIAL.finditer(chunk):
        i, c = m.start(), m.group(0)
        if i == skip:
            continue
        if in_str:
            if c == "\\":
                skip = i + 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "{[":
            stack.append(c)
        elif c in "}]" and stack and (c == "}") == (stack[-1] == "{"):
            stack.pop()
    if in_str or not stack or len(stack) > 3:
        return None
    return chunk.rstrip() + "".join("}" if o == "{" else "]" for o in reversed(stack))


def _arguments(raw: Any) -> tuple[dict | None, str | None]:
    if raw is None:
        return {}, None
    if isinstance(raw, str):  # arguments given as a JSON string, as on the OpenAI wire
        if not raw.strip():
            return {}, None
        value, err = _load(raw)
        if err is not None:
            return None, f"are a string that is not valid JSON ({err}); give them as one JSON object"
        raw = value
    if not isinstance(raw, dict):
        return None, f"must be one JSON object, not {_kind(raw)}"
    return raw, None


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


_CUT_OFF = ("the call was cut off before its JSON ended (the reply reached the token limit); "
            "make one call at a time and do not repeat it")
_HOW = {
    "text:hermes": 'write <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>',
    "text:mistral": 'write [TOOL_CALLS] [{"name": "<tool>", "arguments": {...}}]',
    "text:functions": 'write functions.<tool>:{...} with the arguments as one JSON object',
    "text:fenced": 'write {"name": "<tool>", "arguments": {...}}',
    "text:json": 'write {"name": "<tool>", "arguments": {...}}',
}


def _bad_json(err: str | None, form: str) -> str:
    return (f"the call is not valid JSON ({err or 'unreadable'}); {_HOW[form]} "
            "with double-quoted keys and strings")


def _unknown(name: str, known: frozenset[str]) -> str:
    return f"unknown tool {name!r}; available tools: {', '.join(sorted(known)) or '(none)'}"


def _dedupe(result: TextParse, calls: list[TextCall], unparsed: list[Unparsed], cap: int) -> None:
    """Run each distinct call once, keep at most ``cap`` distinct calls and attempts, in text order."""
    items: list[tuple[int, int, Any]] = [(c.position, 0, c) for c in calls] + [(u.position, 1, u) for u in unparsed]
    items.sort(key=lambda x: (x[0], x[1]))
    seen: set = set()
    kept = 0
    for _, kind, item in items:
        if kind == 0:
            key = ("call", item.name, json.dumps(item.arguments, sort_keys=True, ensure_ascii=False))
        else:
            key = ("fail", item.name, item.error, item.raw.strip() if not item.cut_off else "")
        if key in seen:
            result.duplicates += 1
            continue
        seen.add(key)
        if kept >= cap:
            result.dropped += 1
            continue
        kept += 1
        (result.calls if kind == 0 else result.unparsed).append(item)


# ------------------------------------------------------------------------------------------- results
def result_style(form: str | TextParse) -> str:
    """``hermes`` when the model used ``<tool_call>`` tags (its template knows ``<tool_response>``), else
    ``plain``. ``form`` is a call's form or a whole :class:`TextParse`."""
    if isinstance(form, TextParse):
        forms = [c.form for c in form.calls] + [u.form for u in form.unparsed]
        return "hermes" if "text:hermes" in forms else "plain"
    return "hermes" if form == "text:hermes" else "plain"


def render_text_results(form: str | TextParse, results: Sequence[ToolResult],
                        problems: Sequence[Unparsed | dict] = (), note: str | None = None) -> str:
    """The text of the one ``user`` message that carries results back to a model that called in text
    (its assistant turn had no structured ``tool_calls``, so there is no ``tool_call_id`` for ``role: tool``
    messages; llama-cpp-python's chatml-function-calling template even drops ``tool`` messages unread).
    ``problems`` are the unusable attempts (:class:`Unparsed` or dicts with ``name``/``error``): each gets its
    error, so the model can correct the call. ``note`` (e.g. :meth:`TextParse.note`) says what was skipped."""
    style = result_style(form)
    blocks = []
    for r in results:
        content = ("ERROR: " + r.content) if r.is_error else r.content
        args = r.call.arguments if r.call.arguments is not None else r.call.raw_arguments
        blocks.append(_block(style, r.call.name, args, content))
    for p in problems:
        name = (p.get("name") if isinstance(p, dict) else p.name) or "(unreadable call)"
        error = p.get("error") if isinstance(p, dict) else p.error
        blocks.append(_block(style, name, None, f"ERROR: {error}"))
    text = ("\n" if style == "hermes" else "\n\n").join(blocks)
    if note:
        text += f"\n\n({note}.)"
    return text


def _block(style: str, name: str, args: Any, content: str) -> str:
    if style == "hermes":
        body = json.dumps({"name": name, "content": _maybe_json(content)}, ensure_ascii=False)
        return f"<tool_response>\n{body}\n</tool_response>"
    if args is None:
        return f"Result of {name}:\n{content}"
    shown = json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else str(args)
    return f"Result of {name} {shown}:\n{content}"


def _maybe_json(content: str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return content
