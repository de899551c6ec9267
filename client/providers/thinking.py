"""A model's thinking kept apart from its answer, in every wire form it comes in.

* ``<think>…</think>`` (also ``<thinking>``, ``<reasoning>``) inside the content — open models served without a
  reasoning parser (vLLM, llama.cpp ``--reasoning-format none``, Ollama); a ``</think>`` without its ``<think>``
  when the chat template opened the tag in the prompt (Qwen3, DeepSeek-R1 distills);
* harmony (gpt-oss served raw): ``<|channel|>analysis<|message|>…<|end|>`` then ``<|channel|>final<|message|>…``;
* a separate field of the OpenAI-compatible message: ``reasoning_content`` (DeepSeek's API, llama.cpp, vLLM
  before 0.10) or ``reasoning`` (vLLM now);
* Anthropic's ``thinking`` / ``redacted_thinking`` content blocks.

:func:`split_thinking` takes a reply text apart; :func:`thinking_in_message` reads the thinking back out of an
assistant message as the client recorded it (so a reply served by the response cache keeps its thinking).
The answer alone is what the judges read, what text tool calls and programs are looked for in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a reply that stopped for this reason was cut at the output-token limit
LENGTH_STOPS = ("length", "max_tokens")
REASONING_FIELDS = ("reasoning_content", "reasoning")  # OpenAI-compatible message fields, in order of preference

_TAG = r"(?:think|thinking|reasoning)"
_OPEN = re.compile(rf"<{_TAG}>", re.I)
_CLOSE = re.compile(rf"</{_TAG}>", re.I)
# harmony: <|start|>assistant<|channel|>analysis<|message|>…<|end|>; the header may carry "to=…" and
# "<|constrain|>json" before <|message|>
_HARMONY = re.compile(r"<\|channel\|>\s*([A-Za-z_]+)[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>(.*?)"
                      r"(?=<\|end\|>|<\|return\|>|<\|call\|>|<\|start\|>|<\|channel\|>|\Z)", re.S)


@dataclass(frozen=True)
class Split:
    answer: str | None    # the reply without its thinking (None: the reply has no answer part)
    thinking: str | None  # the thinking (None: none was found)
    open_ended: bool = False  # thinking was begun and never closed: the reply ended inside it
    form: str | None = None   # "tags" | "harmony" | None


def split_thinking(text: str | None) -> Split:
    """``text`` taken apart into the answer and the thinking. A text without any thinking marker is all
    answer (``Split(text, None)``), so replies of models that do not think are unchanged.

    What is not a thinking tag: one inside a fenced code block (a program that prints ``'</think>'`` is run as
    written), and an opening tag that is neither closed nor at the start of the reply (an answer that mentions
    ``<think>`` in passing stays an answer). A model's thinking begins its reply; it is never begun mid-answer."""
    if not text:
        return Split(text, None)
    if "<|channel|>" in text and "<|message|>" in text:
        return _split_harmony(text)
    if not (_OPEN.search(text) or _CLOSE.search(text)):
        return Split(text, None)
    masked = _mask_fences(text)  # same length as text: positions found in it slice text
    if not (_OPEN.search(masked) or _CLOSE.search(masked)):
        # tags only inside code fences; but a reply that begins with its opening tag is thinking, even when
        # an unclosed fence in it hides the closing tag
        if not _OPEN.match(text.lstrip()):
            return Split(text, None)
        masked = text
    thoughts: list[str] = []
    pos = 0
    first_open, first_close = _OPEN.search(masked), _CLOSE.search(masked)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        # "</think>" with no "<think>" before it: the template opened the tag in the prompt
        thoughts.append(text[:first_close.start()])
        pos = first_close.end()
    elif first_open and text[:first_open.start()].strip() == "" and not _CLOSE.search(masked, first_open.end()):
        # begun at the start and never closed outside a fence: an unclosed fence in the thinking may hide the
        # closing tag; the first one anywhere ends the thinking
        close = _CLOSE.search(text, first_open.end())
        if close:
            masked = masked[:close.start()] + text[close.start():close.end()] + masked[close.end():]
    outside: list[str] = []
    for start, inner_start, inner_end, end in _blocks(masked, pos):
        outside.append(text[pos:start])
        thoughts.append(text[inner_start:inner_end])
        pos = end
    open_ended = False
    dangling = _OPEN.search(masked, pos)
    if dangling and "".join(outside).strip() == "" and text[pos:dangling.start()].strip() == "":
        # begun where thinking begins (the start of the reply, or right after thinking) and never closed:
        # everything after it is thinking
        outside.append(text[pos:dangling.start()])
        thoughts.append(text[dangling.end():])
        open_ended = True
    else:
        # a stray closing tag outside a fence is dropped; tags inside fences and an opening tag mentioned
        # after the answer began are the answer's text
        tail_text, tail_masked, keep, at = text[pos:], masked[pos:], [], 0
        for m in _CLOSE.finditer(tail_masked):
            keep.append(tail_text[at:m.start()])
            at = m.end()
        keep.append(tail_text[at:])
        outside.append("".join(keep))
    if not thoughts and not open_ended:
        return Split(text, None)
    answer = "".join(outside).strip()
    return Split(answer, "\n\n".join(t.strip() for t in thoughts if t.strip()) or "", open_ended, "tags")


def _blocks(masked: str, pos: int) -> list[tuple[int, int, int, int]]:
    """The closed thinking blocks of ``masked`` from ``pos`` as (start, inner start, inner end, end). A tag opened
    inside the thinking nests: the block ends where its own opening tag is closed; when the tags never balance,
    at the last closing tag (an opening tag only mentioned in the thinking)."""
    tags = sorted([(m.start(), m.end(), 1) for m in _OPEN.finditer(masked, pos)]
                  + [(m.start(), m.end(), -1) for m in _CLOSE.finditer(masked, pos)])
    out = []
    i = 0
    while i < len(tags):
        if tags[i][2] < 0:  # a stray closing tag: not a block
            i += 1
            continue
        depth, j, last_close = 0, i, None
        while j < len(tags):
            depth += tags[j][2]
            if tags[j][2] < 0:
                last_close = j
            if depth == 0:
                break
            j += 1
        if depth != 0:
            if last_close is None:  # never closed: the caller's dangling thinking
                break
            j = last_close
        out.append((tags[i][0], tags[i][1], tags[j][0], tags[j][1]))
        i = j + 1
    return out


_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)


def _mask_fences(text: str) -> str:
    """``text`` with each closed fenced code block blanked out (same length), so that tags written in code are
    not read as tags. An unclosed fence masks nothing: the thinking may have opened one and never closed it."""
    spans = []
    opener = None
    for m in _FENCE.finditer(text):
        if opener is None:
            opener = m
        elif m.group(1)[0] == opener.group(1)[0] and len(m.group(1)) >= len(opener.group(1)):
            spans.append((opener.start(), m.end()))
            opener = None
    if not spans:
        return text
    parts, at = [], 0
    for a, b in spans:
        parts.append(text[at:a])
        parts.append(" " * (b - a))
        at = b
    parts.append(text[at:])
    return "".join(parts)


def _split_harmony(text: str) -> Split:
    segments = list(_HARMONY.finditer(text))
    finals = [m.group(2).strip() for m in segments if m.group(1).lower() == "final"]
    thoughts = [m.group(2).strip() for m in segments if m.group(1).lower() != "final"]
    if finals:
        return Split("\n\n".join(finals), "\n\n".join(t for t in thoughts if t), False, "harmony")
    closed = bool(segments) and re.match(r"\s*<\|(end|call|return)\|>", text[segments[-1].end():]) is not None
    return Split(None, "\n\n".join(t for t in thoughts if t), not closed, "harmony")


def thinking_in_message(message: dict | None) -> tuple[str | None, int, str | None, bool]:
    """(thinking text, redacted blocks, form, open-ended) of an assistant message as recorded: Anthropic
    thinking blocks, an OpenAI-compatible ``reasoning_content``/``reasoning`` field, thinking tags or harmony
    channels in the content. (None, 0, None, False) for a message without thinking."""
    if not isinstance(message, dict):
        return None, 0, None, False
    content = message.get("content")
    if isinstance(content, list):  # Anthropic blocks
        texts = [b.get("thinking") or "" for b in content if isinstance(b, dict) and b.get("type") == "thinking"]
        redacted = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "redacted_thinking")
        if texts or redacted:
            return "\n\n".join(t for t in texts if t), redacted, "anthropic", False
        joined = "\n".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
        split = split_thinking(joined)
        if split.thinking is None:
            return None, 0, None, False
        return split.thinking, 0, split.form, split.open_ended
    parts: list[str] = []
    form = None
    for key in REASONING_FIELDS:
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
            form = key
            break
    split = split_thinking(content if isinstance(content, str) else None)
    if split.thinking is not None:
        if split.thinking:
            parts.append(split.thinking)
        form = form or split.form
    if form is None:
        return None, 0, None, False
    return "\n\n".join(parts), 0, form, split.open_ended


# ------------------------------------------------------------------------------------------- the controls
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")  # --reasoning-effort (the OpenAI SDK's values)
MIN_ANTHROPIC_BUDGET = 1024  # Anthropic: budget_tokens >= 1024 and < max_tokens


class ReasoningSettingError(ValueError):
    """--reasoning-effort / --thinking-budget that this provider cannot take (one line: what is valid)."""


def reasoning_settings(config: dict) -> dict:
    """The reasoning settings of a provider configuration (absent when not set, so a run without them keeps
    its settings and cache keys)."""
    return {k: config[k] for k in ("reasoning_effort", "thinking_budget") if config.get(k) is not None}
