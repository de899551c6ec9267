"""Small hand-made SPAN-shaped instances for client tests that need no generator (schema of CONTRACTS.md)."""

from __future__ import annotations


def toy_instances(n: int, prefix: str = "toy") -> list[dict]:
    out = []
    for i in range(n):
        day = 1 + i % 28
        polar = i % 3 == 2
        gold = {"calendar": "gregorian", "year": 2025, "month": 8, "day": day, "is_leap_month": False}
        ref = {"calendar": "hebrew", "year": 5785, "month": 4, "day": 5, "is_leap_month": False}
        question = (f"[{prefix} {i}] Today's date on the Hebrew calendar is \u201c5 Tammuz 5785\u201d. "
                    + (f"Is the Gregorian calendar date {day} days later equivalent to the date \u201c2025-8-{day}\u201d?"
                       if polar else f"What is the Gregorian calendar date {day} days later?"))
        out.append({
            "id": f"{prefix}-{i:04d}", "eval_date": "2025-07-01", "reasoning_type": "date",
            "question_format": "polar" if polar else "content", "direction": "other_to_gregorian",
            "source_calendar": "hebrew", "target_calendar": "gregorian", "template_id": "toy",
            "variables": {"unit": "days", "offset": day, "sense": "later", "reference_date": ref,
                          "reference_text": "5 Tammuz 5785", "festival": None,
                          "expected_date": gold if polar else None,
                          "expected_text": f"2025-8-{day}" if polar else None, "date_format": "paper"},
            "question": question, "code": "", "answer": "Yes" if polar else f"2025-8-{day}",
            "gold": True if polar else gold,
        })
    return out


def gold_text(inst: dict) -> str:
    return inst["answer"]
