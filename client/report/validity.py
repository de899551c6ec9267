"""Benchmark-validity check: Islamic-target answers judged wrong that match Umm al-Qura.

SPAN's gold answers use the arithmetic (tabular) Islamic calendar (convertdate).  Saudi Arabia's
civil Umm al-Qura calendar differs from it by a day on most days, so a model that answers in Umm
al-Qura terms is marked wrong although its answer is a legitimate reading of "the Islamic date".
For every content question whose target is Islamic and whose answer was judged wrong, we take the
gold's Gregorian day, convert that day to Umm al-Qura (hijridate) and compare with the date the
model gave.
"""

from __future__ import annotations

import datetime as _dt


def _extractor():
    """(callable(text, record) -> (y, m, d) | None, source) or (None, reason).

    The record is passed to the judge's extractor as the instance (a results line carries the
    instance's fields), so the date read is the one the rules judge graded: a restated reference
    date is skipped and the question's day/month convention is used."""
    try:
        from client.judges.rules import extract_final_date  # type: ignore
    except Exception as exc:  # noqa: BLE001
        return None, (f"client.judges.rules.extract_final_date is not available "
                      f"({type(exc).__name__}: {exc})")

    def extract(text: str, record: dict | None = None):
        d = extract_final_date(text, "islamic", record)
        if d is None:
            return None
        return (int(d.year), int(d.month), int(d.day))
    return extract, "client.judges.rules.extract_final_date"


def _gold_ordinal(gold: dict) -> int:
    try:
        from span import CalendarDate  # type: ignore
        return int(CalendarDate.from_dict(gold).ordinal)
    except ImportError:
        from span.calendars import get_calendar
        return int(get_calendar("islamic").to_ordinal(int(gold["year"]), int(gold["month"]),
                                                      int(gold["day"])))


def umm_al_qura_check(series_list) -> dict:
    """Per series and in total.  Returns {"available", "note", "rows": [...], "total": {...}}."""
    try:
        import hijridate
    except Exception as exc:  # noqa: BLE001
        return {"available": False, "note": f"hijridate is not installed ({exc})", "rows": []}
    extract, source = _extractor()
    if extract is None:
        return {"available": False, "note": f"skipped: {source}", "rows": []}

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
                got = extract(text, r) if isinstance(text, str) else None
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
                h = hijridate.Gregorian.fromordinal(_gold_ordinal(gold)).to_hijri()
            except (OverflowError, ValueError):
                c["n_outside_umm_al_qura_range"] += 1
                continue
            uaq = (h.year, h.month, h.day)
            if uaq == tab:
                c["n_tabular_equals_uaq"] += 1
            elif got == uaq:
                c["n_matches_umm_al_qura"] += 1
                if len(c["examples"]) < 3:
                    g = _dt.date.fromordinal(_gold_ordinal(gold))
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
    return {"available": True, "note": f"answers parsed with {source}; Umm al-Qura from hijridate "
                                       f"{getattr(hijridate, '__version__', '')}".strip(),
            "rows": rows, "total": total}
