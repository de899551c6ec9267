"""The figures a constant answer cannot carry, per model and arm: content and polar accuracy apart, the
share of polar answers that are "Yes" (with the one-word warning), and what the client did about the
model's behaviour (repeated tool calls caught, final requests without tools, answers without code)."""

from __future__ import annotations

from ..rundir.counts import ActionTally, FormatTally, one_word_warning
from ..rundir.summary import AgentTally
from .loading import Series
from .formatting import cell, md_table, mode_label, pct


def answer_figures(series_list: list[Series]) -> list[dict]:
    """Per series, the figures a constant answer cannot carry: content and polar accuracy apart, the share
    of polar answers that are "Yes" (a warning when one word makes up nearly all of them), and what the
    client did about the model's behaviour — repeated tool calls caught and final requests without tools
    (with tools), answers given without any code run (Time Agent)."""
    rows = []
    for s in series_list:
        formats, actions = FormatTally(), ActionTally()
        for r in s.records:
            formats.add(r)
            actions.add(r)
        f = formats.result()
        warning = one_word_warning(f)
        row = {"model": s.model, "mode": s.mode, "label": s.label, **f, "one_word_warning": warning}
        if s.mode == "with_tools":
            row["loop_guard"] = actions.loop_guard()
        if s.mode == "time_agent":
            row["answers_without_code"] = actions.answers_without_code
            row["code_reminders"] = actions.code_reminders
            agent = AgentTally()
            for r in s.records:
                agent.add({**r, "mode": "time_agent"})
            row["agent"] = agent.result()
        rows.append(row)
    return rows


def render(w, answers: list[dict]) -> None:
    """Content and polar accuracy apart, the polar answers' words, and what the client did about the
    model's behaviour (repeated tool calls, final requests without tools, answers without code)."""
    if not answers:
        return
    w("## Content and polar questions\n")
    w("A constant answer can carry polar (yes/no) questions: under the paper's protocol every polar gold is "
      "\"Yes\", so a model that always says \"Yes\" scores 100% on them without any work, and 50% on "
      "balanced questions (`span-client generate --polar-negatives`). Content questions (a date to give) "
      "cannot be carried that way. *\"Yes\" share*: of the polar answers the rules judge read as yes or no.\n")
    rows = []
    for a in answers:
        pa = a["polar_answers"]
        rows.append([a["model"], mode_label(a["mode"]), cell(a["content"]), cell(a["polar"]),
                     f"{pct(pa['yes_share'], 0)} ({pa['yes']}/{pa['yes'] + pa['no']})" if pa["yes_share"] is not None
                     else "n/a", pct(pa["gold_yes_share"], 0), str(pa["neither"])])
    w(md_table(["Model", "Mode", "Content accuracy", "Polar accuracy", "\"Yes\" share of polar answers",
                "\"Yes\" share of polar golds", "Polar answers without yes/no"], rows, "llrrrrr"))
    w("")
    for a in answers:
        if a["one_word_warning"]:
            w(f"- **Warning — {a['label']}:** {a['one_word_warning']}.")
    if any(a["one_word_warning"] for a in answers):
        w("")
    tools = [a for a in answers if "loop_guard" in a]
    if tools:
        w("With tools, a call identical to one the model already made in the instance is not run again (its "
          "result says so); at the second repeat, or at `--max-turns`, one last request without tools asks for "
          "the answer.\n")
        w(md_table(["Model", "Repeated calls caught", "Instances with repeats", "Final requests without tools",
                    "Answered in the final request"],
                   [[a["model"], str(a["loop_guard"]["repeats_caught"]), str(a["loop_guard"]["instances_with_repeats"]),
                     str(a["loop_guard"]["final_turns"]), str(a["loop_guard"]["final_turn_answers"])] for a in tools],
                   "lrrrr"))
        w("")
    agents = [a for a in answers if "answers_without_code" in a]
    if agents:
        w("Time Agent: a first reply without a program is reminded once to write one; *answers without code* "
          "are final answers given without any program having run.\n")
        w("*Stopped at the limit*: still writing code when the code runs were spent, and again in reply to one "
          "last request for the answer — no answer (NOT_ATTEMPTED), never a verdict read from a program. "
          "*Repeated programs*: identical to one already run, not run again.\n")
        w(md_table(["Model", "Answers without code", "Reminded to write a program", "Stopped at the limit",
                    "Repeated programs caught", "Answers that repeated the prompt"],
                   [[a["model"], str(a["answers_without_code"]), str(a["code_reminders"]),
                     str(a.get("agent", {}).get("stopped_at_limit", "–")),
                     str(a.get("agent", {}).get("program_repeats_caught", "–")),
                     str(a.get("agent", {}).get("prompt_echoes", "–"))] for a in agents], "lrrrrr"))
        w("")


def csv_row(a: dict) -> dict:
    row = {"model": a["model"], "mode": a["mode"], **a.get("loop_guard", {}),
           "answers_without_code": a.get("answers_without_code"), "code_reminders": a.get("code_reminders")}
    if "agent" in a:
        row.update({"stopped_at_limit": a["agent"]["stopped_at_limit"],
                    "program_repeats_caught": a["agent"]["program_repeats_caught"]})
    for fmt in ("content", "polar"):
        for k in ("n_scored", "n_correct", "accuracy"):
            row[f"{fmt}_{k}"] = a[fmt][k]
    pa = a["polar_answers"]
    row.update({"polar_yes": pa["yes"], "polar_no": pa["no"], "polar_neither": pa["neither"],
                "polar_yes_share": pa["yes_share"], "polar_gold_yes_share": pa["gold_yes_share"]})
    return row
