"""How a result line counts: the one definition of scored, correct, error and accuracy, used by the
summary written at the end of a run and by the report; and the figures a constant answer cannot carry
(content and polar accuracy apart, the share of polar answers that are "Yes")."""

from __future__ import annotations

from typing import Iterable


def verdict_correct(verdict: str | None) -> bool | None:
    if verdict == "CORRECT":
        return True
    if verdict in ("INCORRECT", "NOT_ATTEMPTED"):
        return False
    return None  # UNSCORED / missing


def is_error(rec: dict) -> bool:
    return bool(rec.get("error")) or rec.get("stop_reason") == "error"


def _verdict(rec: dict, judge: str) -> str | None:
    v = (rec.get("verdicts") or {}).get(judge)
    return v.get("verdict") if isinstance(v, dict) else None


def primary_verdict(rec: dict) -> str | None:
    return _verdict(rec, rec.get("primary_judge") or "rules")


def judge_request_failed(rec: dict) -> bool:
    """True when the line's LLM verdict is UNSCORED because the judge *request* failed (not because the
    judge's reply was unreadable): such lines are re-judged on resume."""
    v = (rec.get("verdicts") or {}).get("llm")
    if not isinstance(v, dict) or v.get("verdict") != "UNSCORED":
        return False
    return bool(v.get("error")) or str(v.get("raw") or "").startswith("judge request failed")


class Tally:
    """Accuracy with its denominator stated, one line at a time (memory stays flat in the number of lines):
    accuracy = n_correct / n_scored. Unscored lines (correct is null: a provider error, or an UNSCORED
    primary verdict) are never counted as wrong; NOT_ATTEMPTED answers the judge scored are wrong and counted
    among them (n_not_attempted)."""

    def __init__(self) -> None:
        self.n = self.n_scored = self.n_correct = self.n_errors = 0
        self.n_na = self.n_max_turns = self.n_judge_errors = 0
        self.n_disputed = self.n_disputed_correct = 0

    def add(self, r: dict) -> None:
        self.n += 1
        c = r.get("correct")
        if c is True or c is False:
            self.n_scored += 1
            self.n_correct += c is True
        if is_error(r):
            self.n_errors += 1
        elif c is None and (r.get("primary_judge") or "rules") == "llm" and judge_request_failed(r):
            self.n_judge_errors += 1
        if c is False and (primary_verdict(r) or _verdict(r, "rules")) == "NOT_ATTEMPTED":
            self.n_na += 1
        if r.get("stop_reason") == "max_turns":
            self.n_max_turns += 1
        if r.get("disputed"):  # its gold depends on a day the calendar's sources dispute (span.disputes)
            self.n_disputed += 1
            self.n_disputed_correct += c is True

    def result(self) -> dict:
        # n_unscored: answered but not scored; n_not_scored: everything outside the denominator (errors too)
        return {"n": self.n, "n_scored": self.n_scored, "n_correct": self.n_correct,
                "n_unscored": self.n - self.n_scored - self.n_errors, "n_not_scored": self.n - self.n_scored,
                "n_errors": self.n_errors, "n_not_attempted": self.n_na, "n_max_turns": self.n_max_turns,
                "n_judge_errors": self.n_judge_errors, "n_disputed": self.n_disputed,
                "n_disputed_correct": self.n_disputed_correct,
                "accuracy": (self.n_correct / self.n_scored) if self.n_scored else None}


def count(records: Iterable[dict]) -> dict:
    """The :class:`Tally` of some result lines."""
    tally = Tally()
    for r in records:
        tally.add(r)
    return tally.result()


# A run whose polar answers are more than this share one word measured a coin, not the model.
ONE_WORD_SHARE = 0.9
MIN_POLAR_ANSWERS = 10  # fewer worded polar answers than this: no warning (too few to tell)
FORMATS = ("content", "polar")


def polar_word(rec: dict) -> str | None:
    """"Yes" / "No" as the rules judge read a polar answer (None: no yes/no in it, or not judged)."""
    v = (rec.get("verdicts") or {}).get("rules")
    word = v.get("extracted") if isinstance(v, dict) else None
    return word if word in ("Yes", "No") else None


def _gold_yes(rec: dict) -> bool | None:
    gold = rec.get("gold")
    if isinstance(gold, bool):
        return gold
    answer = rec.get("answer")
    return answer == "Yes" if answer in ("Yes", "No") else None


class FormatTally:
    """Accuracy on content and on polar questions apart, and what the polar answers were: a model that
    answers every polar question "Yes" scores 100 % on them under the paper's protocol (every polar gold
    is "Yes") and 50 % on balanced questions, without doing any work."""

    def __init__(self) -> None:
        self.parts = {f: Tally() for f in FORMATS}
        self.words = {"Yes": 0, "No": 0, None: 0}
        self.gold_yes = self.gold_known = 0

    def add(self, r: dict) -> None:
        fmt = r.get("question_format")
        if fmt not in self.parts:
            return
        self.parts[fmt].add(r)
        if fmt != "polar" or is_error(r):
            return
        self.words[polar_word(r)] += 1
        gold = _gold_yes(r)
        if gold is not None:
            self.gold_known += 1
            self.gold_yes += gold

    def result(self) -> dict:
        out: dict = {}
        for fmt, tally in self.parts.items():
            c = tally.result()
            out[fmt] = {k: c[k] for k in ("n", "n_scored", "n_correct", "accuracy")}
        worded = self.words["Yes"] + self.words["No"]
        out["polar_answers"] = {
            "yes": self.words["Yes"], "no": self.words["No"], "neither": self.words[None],
            "yes_share": self.words["Yes"] / worded if worded else None,
            "gold_yes_share": self.gold_yes / self.gold_known if self.gold_known else None}
        return out


def one_word_warning(formats: dict) -> str | None:
    """The warning when one word makes up more than ONE_WORD_SHARE of the polar answers (else None)."""
    pa = formats.get("polar_answers") or {}
    yes, no = pa.get("yes", 0), pa.get("no", 0)
    if yes + no < MIN_POLAR_ANSWERS:
        return None
    word, k = ("Yes", yes) if yes >= no else ("No", no)
    if k / (yes + no) <= ONE_WORD_SHARE:
        return None

    def acc(part: dict) -> str:
        a = part.get("accuracy")
        return "n/a" if a is None else f"{100 * a:.1f}% ({part['n_correct']}/{part['n_scored']})"

    text = (f"{k} of {yes + no} polar answers are \"{word}\" ({100 * k / (yes + no):.0f}%): one word carries the "
            f"polar questions, so their accuracy ({acc(formats['polar'])}) measures that word, not the model; "
            f"read the content accuracy ({acc(formats['content'])})")
    gold = pa.get("gold_yes_share")
    if gold is not None and (gold >= ONE_WORD_SHARE or gold <= 1 - ONE_WORD_SHARE):
        text += (f". {100 * gold:.0f}% of the polar golds are \"Yes\" (the paper's protocol): for balanced polar "
                 f"questions generate the instances with `span-client generate --polar-negatives`")
    return text


class ActionTally:
    """What the client did about a model's behaviour: repeated tool calls not run again and the final
    requests without tools (with tools; ``final_turn_answers``: those that got an answer), and the Time
    Agent's reminders to write a program and answers given without any code run."""

    def __init__(self) -> None:
        self.repeats_caught = self.instances_with_repeats = self.final_turns = self.final_turn_answers = 0
        self.answers_without_code = self.code_reminders = 0

    def add(self, r: dict) -> None:
        self.repeats_caught += r.get("repeats_caught") or 0
        self.instances_with_repeats += bool(r.get("repeats_caught"))
        if r.get("final_turn"):
            self.final_turns += 1
            self.final_turn_answers += r.get("final_answer") is not None and not is_error(r)
        self.answers_without_code += bool(r.get("answered_without_code"))
        self.code_reminders += bool(r.get("code_reminder"))

    def loop_guard(self) -> dict:
        return {"repeats_caught": self.repeats_caught, "instances_with_repeats": self.instances_with_repeats,
                "final_turns": self.final_turns, "final_turn_answers": self.final_turn_answers}
