"""The price table and its lookup: published figures, snapshot and alias names, no guessing, overrides."""

from __future__ import annotations

import math

import pytest

from span_toolkit.client.pricing import PRICES_AS_OF, Price, PriceError, format_usd, resolve_price, table_price

# figures as the providers' pricing pages print them (USD per million tokens, input / output)
PUBLISHED = [
    ("openai/gpt-4o", 2.50, 10.00),
    ("openai/gpt-4o-mini", 0.15, 0.60),
    ("openai/gpt-4.1", 2.00, 8.00),
    ("openai/gpt-4.1-nano", 0.10, 0.40),
    ("openai/gpt-5", 1.25, 10.00),
    ("openai/o3-mini", 1.10, 4.40),
    ("anthropic/claude-sonnet-4-5", 3.00, 15.00),
    ("anthropic/claude-haiku-4-5", 1.00, 5.00),
    ("anthropic/claude-opus-4-1", 15.00, 75.00),
    ("anthropic/claude-opus-4-5", 5.00, 25.00),
    ("anthropic/claude-3-5-haiku", 0.80, 4.00),
    ("anthropic/claude-3-haiku", 0.25, 1.25),
]


@pytest.mark.parametrize("label,pin,pout", PUBLISHED)
def test_published_prices(label, pin, pout):
    p = resolve_price(label)
    assert (p.input_per_mtok, p.output_per_mtok) == (pin, pout)
    assert p.source == f"table {PRICES_AS_OF}"


@pytest.mark.parametrize("label,expect", [
    ("openai/gpt-4o-2024-08-06", "gpt-4o"),              # a dated snapshot
    ("openai/gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
    ("openai/GPT-4o", "gpt-4o"),                          # case
    ("anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("anthropic/claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
    ("anthropic/claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
    ("anthropic/claude-3.5-haiku", "claude-3-5-haiku"),   # dotted family-first spelling
    ("anthropic/claude-4.5-haiku", "claude-haiku-4-5"),   # old order, 4.x model
    ("anthropic/claude-opus-4-0", "claude-opus-4"),       # the -0 alias
    ("anthropic/claude-opus-4-1-20250805", "claude-opus-4-1"),
])
def test_aliases_and_snapshots(label, expect):
    kind = label.split("/")[0]
    assert resolve_price(label) == table_price(kind, expect)


def test_a_snapshot_with_its_own_price_is_not_folded_into_the_family():
    assert resolve_price("openai/gpt-4o-2024-05-13").input_per_mtok == 5.00  # the first gpt-4o was dearer
    assert resolve_price("openai/chatgpt-4o-latest").output_per_mtok == 15.00


@pytest.mark.parametrize("label", [
    "openai/gpt-4o-mini-tts",          # a longer name is not its prefix's model
    "openai/gpt-4o-audio-preview",
    "openai/gpt-7",
    "openai/ft:gpt-4o-mini:acme::abc123",
    "anthropic/claude-sonnet-9",
    "anthropic/claude-3-5-sonnet-v2",
    "openai-compatible/Qwen2.5-72B-Instruct",   # a server you run: no published price
    "openai-compatible/gpt-4o",                 # even under a known name
    "reference", "baseline",
])
def test_unknown_models_have_unknown_cost(label):
    assert resolve_price(label) is None


def test_prefixes_never_match_a_shorter_or_longer_model():
    assert resolve_price("openai/gpt-4o-mini").input_per_mtok != resolve_price("openai/gpt-4o").input_per_mtok
    assert resolve_price("openai/gpt-5-mini").input_per_mtok == 0.25
    assert resolve_price("openai/gpt-5.1").input_per_mtok == 1.25


def test_cost_and_batch_discount():
    p = resolve_price("anthropic/claude-sonnet-4-5")
    assert math.isclose(p.cost(1_000_000, 0), 3.0)
    assert math.isclose(p.cost(2_000, 500), (2_000 * 3 + 500 * 15) / 1e6)
    assert math.isclose(p.cost(2_000, 500, batch=True), (2_000 * 3 + 500 * 15) / 2e6)
    assert p.cost(None, 10) is None and p.cost(10, None) is None  # tokens not reported: cost unknown
    assert resolve_price("openai/gpt-4o").batch_discount == 0.5


def test_overrides():
    p = resolve_price("openai-compatible/qwen", 0.2, 0.6)
    assert (p.input_per_mtok, p.output_per_mtok, p.batch_discount) == (0.2, 0.6, 1.0)
    assert p.source == "--price-in/--price-out"
    half = resolve_price("openai/gpt-4o", None, 12.0)  # one side of a known model
    assert (half.input_per_mtok, half.output_per_mtok) == (2.5, 12.0)
    assert "--price-out" in half.source
    assert resolve_price("openai/gpt-4o", 0, 0).cost(10**6, 10**6) == 0  # a free model is a price, not unknown


@pytest.mark.parametrize("pin,pout,needle", [
    (0.5, None, "give both --price-in and --price-out (missing --price-out)"),
    (None, 0.5, "missing --price-in"),
    (-1.0, 2.0, "--price-in must be a number"),
    (1.0, float("nan"), "--price-out must be a number"),
    (1.0, float("inf"), "--price-out must be a number"),
])
def test_bad_overrides_are_one_line_errors(pin, pout, needle):
    with pytest.raises(PriceError) as e:
        resolve_price("openai-compatible/qwen", pin, pout)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_format_usd():
    assert format_usd(None) == "unknown"
    assert format_usd(0) == "$0.00"
    assert format_usd(0.01234) == "$0.0123"
    assert format_usd(1234.5) == "$1,234.50"
    assert Price(1, 2, "x").describe()["batch_discount"] == 1.0
