"""The SPAN paper's LLM judge (Appendix E): a model reads (question, response, answer) and replies
with the JSON verdict {"accuracy": 1|0}.

Lessons applied (shared/reference/eval-harness-and-sdk-notes.md, inspect_ai #4026/#4048):
* a judge failure is not a wrong answer: a verdict that cannot be parsed is re-asked at most
  `max_attempts` times in total and then recorded as UNSCORED, never as INCORRECT;
* parsing is tolerant of fences and chatter but strict about the value: the LAST JSON object that has
  an "accuracy" key decides, and only 1/0, "1"/"0" or true/false are accepted;
* the prompt is a file (prompts/judge_llm.md) whose SHA-256 (`PROMPT_SHA256`) goes into run.json.

Retries: an exception raised by `ask` (rate limit, timeout, connection error) propagates unchanged.
The client's provider layer is the single owner of retries with backoff; retrying here too would
multiply attempts. The re-asks here are only for replies that arrived but did not parse.
Temperature 0 is the caller's job when it builds `ask`; because a greedy model would repeat an
unparseable reply to an identical prompt, a re-ask appends the previous reply and a short
instruction (the REASK section of the prompt file) so the input differs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Awaitable, Callable

from span_toolkit import prompts
CORRECT, INCORRECT, UNSCORED = "CORRECT", "INCORRECT", "UNSCORED"

PROMPT_FILE = "judge_llm.md"


def _load_prompt() -> tuple[bytes, dict[str, str]]:
    raw = prompts.load_bytes(PROMPT_FILE)
    text = raw.decode("utf-8")
    text = re.sub(r"<!--.*?-->\s*", "", text, count=1, flags=re.S)   # the maintainers' header comment
    parts = re.split(r"^=== (SYSTEM|USER|REASK) ===\s*$\n?", text, flags=re.M)
    sections = {name: body.strip("\n") for name, body in zip(parts[1::2], parts[2::2])}
    missing = {"SYSTEM", "USER", "REASK"} - set(sections)
    if missing:
        raise RuntimeError(f"prompts/{PROMPT_FILE} lacks section(s) {sorted(missing)}")
    return raw, sections


_RAW, _SECTIONS = _load_prompt()
PROMPT_SHA256: str = hashlib.sha256(_RAW).hexdigest()
SYSTEM_PROMPT: str = _SECTIONS["SYSTEM"]
USER_TEMPLATE: str = _SECTIONS["USER"]
REASK_TEXT: str = _SECTIONS["REASK"]

_PLACEHOLDER = re.compile(r"\{(question|response|answer)\}")


def render_user(question: str, response: str, answer: str) -> str:
    values = {"question": question, "response": response, "answer": answer}
    # One pass, so a response that itself contains "{answer}" is not substituted again.
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), USER_TEMPLATE)


@dataclass(frozen=True)
class LLMVerdict:
    verdict: str      # CORRECT | INCORRECT | UNSCORED
    raw: str          # the judge's last reply, verbatim
    attempts: int     # replies received (1 .. max_attempts)

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "raw": self.raw, "attempts": self.attempts}


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------

def _json_objects(text: str) -> list[tuple[int, str]]:
    """Every balanced {...} substring (string-aware), with its start offset, innermost included."""
    out = []
    starts = [i for i, ch in enumerate(text) if ch == "{"]
    for s in starts:
        depth, in_str, quote, esc = 0, False, "", False
        for i in range(s, len(text)):
            ch = text[i]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == quote:
                    in_str = False
                continue
            if ch in "\"'":
                in_str, quote = True, ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    out.append((s, text[s:i + 1]))
                    break
    return out


def _load_obj(src: str):
    try:
        return json.loads(src)
    except (ValueError, RecursionError):
        pass
    try:  # Python-style dicts ({'accuracy': 1}, True/False) are common from chatty judges
        obj = ast.literal_eval(src)
        return obj
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        pass
    try:  # a trailing comma is the other frequent slip
        return json.loads(re.sub(r",\s*}", "}", src))
    except ValueError:
        return None


_MISSING = object()


def _accuracy_value(value) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    if isinstance(value, float) and value in (0.0, 1.0):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "0", "true", "false"):
        return 1 if value.strip().lower() in ("1", "true") else 0
    return None


def _accuracy_from(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and k.strip().lower() == "accuracy":
                return v
    return _MISSING


def parse_verdict(reply: str) -> int | None:
    """1 or 0 from a judge reply, or None if the reply holds no acceptable verdict.

    The last JSON object carrying an "accuracy" key decides (fenced ```json blocks and chatter
    around them are fine). Its value must be 1/0, "1"/"0" or true/false; anything else (0.5, "yes",
    "") makes the reply unparseable rather than guessed. Without any such object, a bare
    `"accuracy": 1` / `accuracy: 0` that ends its line is accepted (the last one), which also covers
    a reply truncated after '{"accuracy": 1'.
    """
    if not isinstance(reply, str) or not reply.strip():
        return None
    found = _MISSING
    # Objects are scanned in order of their closing brace, so "last" means last completed.
    objects = sorted(_json_objects(reply), key=lambda t: t[0] + len(t[1]))
    for _, src in objects:
        obj = _load_obj(src)
        value = _accuracy_from(obj)
        if value is not _MISSING:
            found = value
    if found is not _MISSING:
        return _accuracy_value(found)
    # The bare value must end its line: "accuracy: 1 for correct, 0 for incorrect" restates the
    # instructions and is not a verdict. A reply cut off after '{"accuracy": 1' is still one.
    bare = re.findall(r"[\"']?accuracy[\"']?\s*[:=]\s*[\"']?\s*([A-Za-z0-9.]+)[\"']?\s*[,}]?\s*$",
                      reply, flags=re.I | re.M)
    if bare:
        return _accuracy_value(bare[-1].rstrip("."))
    return None


# ---------------------------------------------------------------------------------------------
# The judge
# ---------------------------------------------------------------------------------------------

class LLMJudge:
    """`await LLMJudge(ask)(question, response, answer)` or `.judge(...)` -> LLMVerdict.

    `ask(system, user)` is an async text-in/text-out call the client builds from its provider,
    with temperature 0. Exceptions from it propagate (the provider layer owns retries).
    """

    def __init__(self, ask: Callable[[str, str], Awaitable[str]], max_attempts: int = 3):
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.ask = ask
        self.max_attempts = max_attempts

    async def judge(self, question: str, response: str | None, answer: str) -> LLMVerdict:
        user = render_user(question, "" if response is None else response, answer)
        prompt = user
        reply = ""
        for attempt in range(1, self.max_attempts + 1):
            reply = await self.ask(SYSTEM_PROMPT, prompt)
            reply = "" if reply is None else str(reply)
            value = parse_verdict(reply)
            if value is not None:
                return LLMVerdict(CORRECT if value == 1 else INCORRECT, reply, attempt)
            prompt = (f"{user}\n\n### your previous reply\n{reply[:2000]}\n\n{REASK_TEXT}")
        return LLMVerdict(UNSCORED, reply, self.max_attempts)

    __call__ = judge


__all__ = ["LLMJudge", "LLMVerdict", "PROMPT_SHA256", "SYSTEM_PROMPT", "USER_TEMPLATE", "REASK_TEXT",
           "parse_verdict", "render_user", "CORRECT", "INCORRECT", "UNSCORED"]
