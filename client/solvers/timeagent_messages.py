"""What the Time Agent (SPAN paper, "Time Agent" and Appendix F) and the model say to each other: the
system prompt, the program read out of a reply, and the message that shows a run's result. Pure helpers,
no I/O but reading prompts. The loop itself is client.solvers.timeagent (README "The Time Agent"):

    system = build_system_prompt(limits)            user = question
    reply -> extract_code(reply) -> Sandbox.run(code) -> result_message(result, turns_left) -> ...
    -> a reply with no code block is the final answer (read by the judges).

``stdout_from_message`` reads a result message back: the scripted code agent (client.agents.scripted)
answers from the very message a model would see.
"""

from __future__ import annotations

import re

from span_toolkit import prompts
from span_toolkit.span import CALENDAR_NAMES, get_calendar, search_calendar
from span_toolkit.span import festivals as _festivals
from span_toolkit.span.benchmark.snippets import code_calendar

from ..sandbox import DEFAULT_LIMITS, ExecResult, Limits
from ..sandbox._child import SNIPPET_MODULES

PROMPT_SYSTEM = "time_agent_system.md"
PROMPT_RESULT = "time_agent_result.md"
PROMPT_RETRY = "time_agent_retry.md"
PROMPT_GIVEUP = "time_agent_giveup.md"
PROMPT_NO_CODE = "time_agent_no_code.md"
PROMPT_FINAL_TURN = "time_agent_final_turn.md"
PROMPT_REPEAT = "time_agent_repeat.md"
MAX_RESULT_CHARS = 4000  # of stdout/stderr shown to the model per run
_PLACEHOLDER = re.compile(r"<<[A-Z_]+>>")


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"<<{key}>>", value)
    left = _PLACEHOLDER.findall(template)
    if left:
        raise ValueError(f"prompt placeholders without a value: {', '.join(sorted(set(left)))}")
    return template


# --------------------------------------------------------------------------------------------- prompt

def _calendars_text() -> str:
    parts = []
    for name in CALENDAR_NAMES:
        cal = get_calendar(name)
        extra = [a for a in (code_calendar(name),) if a and a != name]
        parts.append(f'"{name}"' + (f' (or "{extra[0]}")' if extra else "") + f" = {cal.title}")
    return "; ".join(parts) + ". Names are case-insensitive and common aliases are accepted."


def _festivals_text() -> str:
    lines = []
    for name in CALENDAR_NAMES:
        names = _festivals.names(name)
        if names:
            lines.append(f"- {get_calendar(name).title} (`calendar=\"{code_calendar(name)}\"`): "
                         + ", ".join(f'"{n}"' for n in names))
    return "\n".join(lines)


def _months_text() -> str:
    lines = []
    for name in CALENDAR_NAMES:
        cal = get_calendar(name)
        if name == "gregorian":
            continue
        if cal.month_names:
            lines.append(f"- {cal.title}: " + ", ".join(f"{k} = {v}" for k, v in sorted(cal.month_names.items())))
        else:
            lines.append(f"- {cal.title}: months are numbered 1 to 12 without names; a leap month has the "
                         f"number of the regular month it follows (pass is_lunar_leap_month=True for it)")
    return "\n".join(lines)


def build_system_prompt(limits: Limits = DEFAULT_LIMITS) -> str:
    """The Time Agent's system prompt; calendars, festivals, months and the return example come from span."""
    example = repr(search_calendar("gregorian", 2025, 7, 1))  # exactly what print() shows the model
    return _fill(prompts.load(PROMPT_SYSTEM), {
        "CALENDARS": _calendars_text(), "RETURN_EXAMPLE": example, "FESTIVALS": _festivals_text(),
        "MONTHS": _months_text(), "MODULES": ", ".join(SNIPPET_MODULES),
        "WALL_SECONDS": f"{limits.wall_seconds:g}", "OUTPUT_KB": f"{limits.max_output_bytes / 1024:g}",
    })


def prompt_files() -> tuple[str, ...]:
    return (PROMPT_SYSTEM, PROMPT_RESULT, PROMPT_RETRY, PROMPT_GIVEUP, PROMPT_NO_CODE, PROMPT_FINAL_TURN,
            PROMPT_REPEAT)


# --------------------------------------------------------------------------------------------- code

# ```python / ```py / ```python3 / ``` (no language), case-insensitive; a last block whose closing fence is
# missing (a reply cut off at the token limit) counts up to the end of the reply.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)
_PY_TAGS = {"", "python", "py", "python3", "py3"}


def extract_code(reply_text: str | None) -> str | None:
    """The code of the LAST ```python block of a reply — or, when no block is tagged as Python, of the last
    untagged block — or None when there is none.

    Last, because a model that shows an earlier version or a fragment before its program puts the
    program it means last; blocks tagged with another language (```text, ```json) are never code. A tagged
    block wins over untagged ones because small models imitate the prompt's examples, program and then
    "It prints:" with the output in an untagged block (Qwen2.5-Coder-0.5B does): that is not the program.
    """
    if not reply_text:
        return None
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(reply_text) if m.group(1).lower() in _PY_TAGS]
    blocks = [(tag, b) for tag, b in blocks if b.strip()]
    tagged = [b for tag, b in blocks if tag]
    chosen = tagged or [b for _, b in blocks]
    return chosen[-1].rstrip() + "\n" if chosen else None


def _clip(text: str, limit: int, keep: str) -> str:
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    if keep == "head":
        return text[:limit] + f"\n[... {cut} more characters not shown ...]"
    return f"[... {cut} earlier characters not shown ...]\n" + text[-limit:]


_REASONS = {
    "error": "it ended with an error",
    "timeout": "it was stopped at the wall-clock limit of {wall:g} s",
    "cpu": "it was stopped at the CPU-time limit of {cpu} s",
    "memory": "it ran out of memory (limit {mem} MiB)",
    "output_limit": "it printed more than {out:g} KiB and was stopped",
    "killed": "it was killed by a signal",
    "sandbox_error": "the sandbox failed to run it",
}


def format_execution(result: ExecResult, limits: Limits = DEFAULT_LIMITS, max_chars: int = MAX_RESULT_CHARS) -> str:
    """What the model is shown of one run: how it ended, stdout (head kept), stderr (tail kept)."""
    if result.exit_reason == "ok":
        head = "It finished normally."
    else:
        why = _REASONS.get(result.exit_reason, result.exit_reason).format(
            wall=limits.wall_seconds, cpu=limits.cpu_seconds, mem=limits.memory_bytes // 2**20,
            out=limits.max_output_bytes / 1024)
        head = f"It did not finish normally: {why}" + (
            f" (exit status {result.returncode})." if result.returncode not in (None, 0, 1) else ".")
    parts = [head]
    out, err = result.stdout, result.stderr
    budget = max_chars // 2 if out and err else max_chars
    parts.append("Printed output:\n" + _fenced(_clip(out, budget, "head").rstrip("\n") if out else "(nothing)"))
    if err:
        parts.append("Errors:\n" + _fenced(_clip(err, budget, "tail").rstrip("\n")))
    if result.truncated:
        parts.append("(The output was cut off at the limit.)")
    return "\n".join(parts)


def _fenced(text: str) -> str:
    """``text`` in a code fence longer than any run of backticks in it, so nothing a program prints can
    close its block early (CommonMark: a fence closes only with at least as many backticks)."""
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    return f"{fence}\n{text}\n{fence}"


def result_message(result: ExecResult | None, *, turns_left: int, limits: Limits = DEFAULT_LIMITS) -> str:
    """The user message after a run (result None: the reply had no python block, nothing ran).

    turns_left: further code runs allowed (--max-turns minus runs so far). After a failure with turns
    left, the model is asked to fix its code; otherwise to answer."""
    if result is None:
        text = "Your reply had no ```python code block, so nothing was run."
        failed = True
    else:
        text = format_execution(result, limits)
        failed = not result.ok
    if not failed:
        return _fill(prompts.load(PROMPT_RESULT), {"RESULT": text})
    if turns_left > 0:
        return _fill(prompts.load(PROMPT_RETRY), {"RESULT": text, "TURNS_LEFT": str(turns_left)})
    return _fill(prompts.load(PROMPT_GIVEUP), {"RESULT": text})


def final_turn_message(max_runs: int) -> str:
    """The last request of an agent still writing code when its runs are spent (no program will run)."""
    return _fill(prompts.load(PROMPT_FINAL_TURN), {"RUNS": str(max_runs)}).strip()


def repeat_message(turn: int, shown: str) -> str:
    """What a program identical to the one run in ``turn`` gets instead of running again (its result then)."""
    template = _fill(prompts.load(PROMPT_REPEAT).replace("<<RESULT>>", "\0"), {"TURN": str(turn)})
    return template.replace("\0", shown).strip()  # the program's output is not a template


def program_key(code: str) -> str:
    """A program as compared for repeats: trailing spaces and blank lines do not make it another one."""
    return "\n".join(line.rstrip() for line in code.strip().splitlines() if line.strip())


def no_code_message() -> str:
    """The one reminder a first reply without a ```python block gets (the paper's agent always writes code)."""
    return prompts.load(PROMPT_NO_CODE).strip()


# ------------------------------------------------------------------------------- reading a result back

_PRINTED = re.compile(r"^Printed output:\n(`{3,})\n(.*?)\n\1$", re.M | re.S)


def stdout_from_message(message: str) -> str:
    """What a program printed, read back from a result_message text ("" for "(nothing)" or none).

    Lets the scripted agent answer from the very message a model would see, so the offline path also
    proves the result formatting."""
    m = _PRINTED.search(message or "")
    if not m or m.group(2) == "(nothing)":
        return ""
    return m.group(2) + "\n"
