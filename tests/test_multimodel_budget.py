"""Several --model values (never one dropped silently) and the --budget checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from span_toolkit.client.budget import Budget, BudgetError, check_budget
from span_toolkit.client.multimodel import folder_name, model_folders, split_models
from span_toolkit.client.pricing import resolve_price
from span_toolkit.client.providers import ModelSpecError


def test_repeated_and_comma_separated_models():
    assert split_models(["openai/gpt-4o", "anthropic/claude-haiku-4-5,baseline"]) == \
        ["openai/gpt-4o", "anthropic/claude-haiku-4-5", "baseline"]
    assert split_models("openai/gpt-4o") == ["openai/gpt-4o"] and split_models(None) == []


@pytest.mark.parametrize("values,needle", [
    (["openai/gpt-4o", "openai/gpt-4o"], "given twice"),
    (["openai/gpt-4o,openai/gpt-4o"], "given twice"),
    (["openai/gpt-4o,"], "empty name"),
    (["openai/gpt-4o", "gpt-4o"], "PROVIDER/MODEL"),
])
def test_bad_model_lists_are_refused(values, needle):
    with pytest.raises(ModelSpecError, match=needle):
        split_models(values)


def test_one_folder_per_model():
    assert model_folders(Path("runs/x"), ["openai/gpt-4o"]) == {"openai/gpt-4o": Path("runs/x")}
    f = model_folders(Path("runs/x"), ["openai/gpt-4o", "anthropic/claude-haiku-4-5", "baseline"])
    assert f == {"openai/gpt-4o": Path("runs/x/openai--gpt-4o"),
                 "anthropic/claude-haiku-4-5": Path("runs/x/anthropic--claude-haiku-4-5"),
                 "baseline": Path("runs/x/baseline")}
    assert folder_name("openai-compatible/org/Model:7b q4") == "openai-compatible--org--Model_7b_q4"
    assert "/" not in folder_name("openai-compatible/../..") and folder_name("..") == "model"
    with pytest.raises(ModelSpecError, match="would share the run folder"):
        model_folders(Path("o"), ["openai-compatible/Qwen", "openai-compatible/qwen"])


def test_budget_checks():
    price = resolve_price("openai/gpt-4o")
    check_budget(None, None, "openai-compatible/q")  # no budget: nothing to check
    check_budget(1.0, price, "openai/gpt-4o")
    with pytest.raises(BudgetError, match="give --price-in and --price-out"):
        check_budget(1.0, None, "openai-compatible/q")
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(BudgetError, match="must be a number of USD > 0"):
            check_budget(bad, price, "openai/gpt-4o")


def test_budget_tracking_and_message():
    b = Budget(0.05, spent=0.02)
    b.add(0.02)
    assert not b.reached
    b.add(None)
    b.add(0.011)
    assert b.reached
    msg = b.stop_message(7)
    assert msg.startswith("budget reached: $0.0510 spent of --budget $0.0500")
    assert "1 attempt of unknown cost not counted" in msg and "7 instances not asked" in msg
    assert "larger --budget to resume" in msg and "\n" not in msg
