"""Benchmark-validity check: Islamic-target answers judged wrong that match Umm al-Qura.

SPAN's gold answers use the arithmetic (tabular) Islamic calendar. Saudi Arabia's civil Umm al-Qura
calendar differs from it by a day on most days, so a model that answers in Umm al-Qura terms is marked
wrong although its answer is a legitimate reading of "the Islamic date". For every content question whose
target is Islamic and whose answer was judged wrong, the gold's day is converted to Umm al-Qura with the
calendar core (span's islamic_umm_al_qura calendar) and compared with the date the model gave.
"""

from __future__ import annotations

import datetime as _dt

from span_toolkit.span import CalendarDate, CalendarError

from ..judges.rules import extract_final_date

UAQ = "islamic_umm_al_qura"


def _extract(text: str, record: dict | None = None):
    """The date the rules judge graded (the record is the instance: a restated reference date is skipped
    and the question's day/month convention is used)."""
    d = extract_final_date(text, "islamic", record)
    return None if d is None else (int(d.year), int(d.month), int(d.day))


def umm_al_qura_check(series_list) -> dict:
    """Per series and in total.  Returns {"available", "note", "rows": [...], "total": {...}}."""
    rows = []
    for s in series_list:
        c = {"model": s.model, "mode": s.mode, "n_islamic_target_content": 0, "n_wrong": 0,
             "n_no_date_found": 0, "n_outside_umm_al_qura_range": 0, "n_tabular_equals_uaq": 0,
             "n_matches_umm_al_qura": 0, "n_matches_gold": 0, "n_other": 0, "examples": []}
        for r in s.records:
            if r.get("target_calendar") != "islamic" or r.get("question_format") != "content":
                continue
            gold = r.get("gold")
            if not isinstance(gold, dict):
                continue
            c["n_islamic_target_content"] += 1
            if r.get("correct") is not False:
                continue
            c["n_wrong"] += 1
            text = r.get("final_answer")
            try:
                got = _extract(text, r) if isinstance(text, str) else None
            except Exception:  # noqa: BLE001
                got = None
            if got is None:
                c["n_no_date_found"] += 1
                continue
            tab = (int(gold["year"]), int(gold["month"]), int(gold["day"]))
            if got == tab:
                c["n_matches_gold"] += 1  # judge said wrong although the date equals the gold
                continue
            try:
                ordinal = CalendarDate.from_dict(gold).ordinal
                h = CalendarDate.from_ordinal(UAQ, ordinal)
            except CalendarError:
                c["n_outside_umm_al_qura_range"] += 1
                continue
            uaq = (h.year, h.month, h.day)
            if uaq == tab:
                c["n_tabular_equals_uaq"] += 1
            elif got == uaq:
                c["n_matches_umm_al_qura"] += 1
                if len(c["examples"]) < 3:
                    g = _dt.date.fromordinal(ordinal)
                    c["examples"].append({"id": r["id"], "gregorian": g.isoformat(),
                                          "gold_tabular": "%d-%d-%d" % tab,
                                          "umm_al_qura": "%d-%d-%d" % uaq,
                                          "answer": "%d-%d-%d" % got})
            else:
                c["n_other"] += 1
        c["share_of_wrong"] = (c["n_matches_umm_al_qura"] / c["n_wrong"]) if c["n_wrong"] else None
        rows.append(c)
    total = {k: sum(r[k] for r in rows) for k in rows[0] if k.startswith("n_")} if rows else {}
    if total:
        total["share_of_wrong"] = (total["n_matches_umm_al_qura"] / total["n_wrong"]
                                   if total["n_wrong"] else None)
    return {"available": True, "note": "answers parsed with client.judges.rules.extract_final_date; Umm al-Qura "
                                       "from the calendar core (span.calendars.islamic_umm_al_qura)",
            "rows": rows, "total": total}
