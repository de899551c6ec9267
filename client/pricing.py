"""What a model's tokens cost: a dated price table for the known OpenAI and Anthropic models, lookup by
model name, and the ``--price-in`` / ``--price-out`` overrides.

Prices are USD per million tokens, as published on 2026-08-05 (``PRICES_AS_OF``), taken from the
llm-prices data set (github.com/simonw/llm-prices, data/openai.json and data/anthropic.json at commit
723ef0bd, which records the providers' own pricing pages) and checked against the providers' pages as
stored by our reference search: Anthropic's pricing page (docs.anthropic.com/en/docs/about-claude/pricing
and platform.claude.com/docs/en/about-claude/pricing: "The Batch API allows asynchronous processing … with
a 50% discount on both input and output tokens") and OpenAI's (developers.openai.com/api/docs/pricing;
Batch API: 50% off). Claude Sonnet 5 carries the price announced from 2026-09-01 ($3 / $15, was $2 / $10).

What is left out on purpose: long-context surcharges (past 200K or 272K input tokens; a SPAN prompt is a
few thousand tokens), prompt-caching discounts (the client sets no cache breakpoints) and regional
premiums. A model that is not in the table has an *unknown* cost — never a guess from a similar name:
``openai-compatible/…`` (a server you run), fine-tuned models (``ft:…``) and any name the table does not
hold. Give ``--price-in`` and ``--price-out`` for those.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .providers.registry import ModelRef, ProviderKind, kind as _kind, provider_ref

PRICES_AS_OF = "2026-08-05"
# the Batch API's factor (both: 50 % off input and output) is each kind's batch_discount (providers.registry)

# USD per million tokens: (input, output)
_OPENAI: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00), "gpt-4o-2024-05-13": (5.00, 15.00), "chatgpt-4o-latest": (5.00, 15.00),
    "gpt-4o-mini": (0.15, 0.60), "gpt-4.5": (75.00, 150.00), "gpt-4.5-preview": (75.00, 150.00),
    "gpt-4.1": (2.00, 8.00), "gpt-4.1-mini": (0.40, 1.60), "gpt-4.1-nano": (0.10, 0.40),
    "o1": (15.00, 60.00), "o1-preview": (15.00, 60.00), "o1-pro": (150.00, 600.00), "o1-mini": (1.10, 4.40),
    "o3": (10.00, 40.00), "o3-mini": (1.10, 4.40), "o3-pro": (20.00, 80.00), "o4-mini": (1.10, 4.40),
    "gpt-5": (1.25, 10.00), "gpt-5-mini": (0.25, 2.00), "gpt-5-nano": (0.05, 0.40), "gpt-5-pro": (15.00, 120.00),
    "gpt-5.1": (1.25, 10.00), "gpt-5.1-codex": (1.25, 10.00), "gpt-5.1-codex-mini": (0.25, 2.00),
    "gpt-5.2": (1.75, 14.00), "gpt-5.2-pro": (21.00, 168.00),
    "gpt-5.4": (2.50, 15.00), "gpt-5.4-mini": (0.75, 4.50), "gpt-5.4-nano": (0.20, 1.25),
    "gpt-5.4-pro": (30.00, 180.00),
    "gpt-5.5": (5.00, 30.00), "gpt-5.5-pro": (30.00, 180.00),
    "gpt-5.6-sol": (5.00, 30.00), "gpt-5.6-terra": (2.00, 12.00), "gpt-5.6-luna": (0.20, 1.20),
}
_ANTHROPIC: dict[str, tuple[float, float]] = {
    "claude-3-haiku": (0.25, 1.25), "claude-3-opus": (15.00, 75.00),
    "claude-3-5-haiku": (0.80, 4.00), "claude-3-5-sonnet": (3.00, 15.00), "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00), "claude-sonnet-4-5": (3.00, 15.00), "claude-haiku-4-5": (1.00, 5.00),
    "claude-opus-4": (15.00, 75.00), "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4-5": (5.00, 25.00), "claude-opus-4-6": (5.00, 25.00), "claude-opus-4-7": (5.00, 25.00),
    "claude-opus-4-8": (5.00, 25.00), "claude-sonnet-5": (3.00, 15.00),
    "claude-fable-5": (10.00, 50.00), "claude-mythos-5": (10.00, 50.00),
}
TABLES = {"openai": _OPENAI, "anthropic": _ANTHROPIC}  # by a kind's price_table

# a snapshot's date or a moving alias at the end of a model id: gpt-4o-2024-08-06, claude-sonnet-4-5-20250929,
# claude-3-5-sonnet-latest, claude-opus-4-0 (Anthropic's "-0" alias of the first 4.x release)
_SNAPSHOT = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest|-0)$")
# Anthropic's older "family-version" spelling (claude-3.5-sonnet, claude-4.5-haiku) and dotted versions
_OLD_ORDER = re.compile(r"^claude-(\d+(?:-\d+)?)-(opus|sonnet|haiku)$")


class PriceError(ValueError):
    """A price given on the command line that cannot be used (one line for the user)."""


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens, and where the figure came from."""

    input_per_mtok: float
    output_per_mtok: float
    source: str  # "table <date>" | "--price-in/--price-out" | "table <date>, --price-in" …
    batch_discount: float = 1.0  # the factor the Batch API applies (0.5: half price)

    def cost(self, input_tokens: int | None, output_tokens: int | None, *, batch: bool = False) -> float | None:
        """USD for one request's usage; None when the provider did not say how many tokens it counted."""
        if input_tokens is None or output_tokens is None:
            return None
        usd = (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1_000_000
        return usd * (self.batch_discount if batch else 1.0)

    def describe(self) -> dict:
        return {"input_per_mtok": self.input_per_mtok, "output_per_mtok": self.output_per_mtok,
                "batch_discount": self.batch_discount, "source": self.source}


def _claude_spellings(names: list[str]) -> list[str]:
    """Anthropic's names in the current family order, with dashes for dots."""
    out = []
    for n in names:
        dashed = n.replace(".", "-")
        m = _OLD_ORDER.match(dashed)
        if m:
            version, family = m.groups()
            # claude-3-5-sonnet is its own key; claude-4-5-haiku is claude-haiku-4-5 (the 4.x spelling)
            out.append(dashed if version.startswith("3") else f"claude-{family}-{version}")
        out.append(dashed)
    return out


# other spellings of a table's model ids, by table
SPELLINGS = {"anthropic": _claude_spellings}


def _candidates(table: str, model: str) -> list[str]:
    """The names to try, most specific first: the id as given, without a snapshot suffix, and the table's
    other spellings (Anthropic: the current family order, dashes for dots)."""
    name = model.strip().lower()
    out = [name]
    stripped = name
    while True:  # claude-3-5-sonnet-20241022-latest is not a real id, but one suffix at a time is harmless
        shorter = _SNAPSHOT.sub("", stripped)
        if shorter == stripped:
            break
        stripped = shorter
        out.append(stripped)
    spell = SPELLINGS.get(table)
    if spell is not None:
        out += spell(list(out))
    return list(dict.fromkeys(out))


def table_price(kind: str | ProviderKind, model: str) -> Price | None:
    """The table's price for a provider kind and a model id, or None (unknown: a kind without a price
    table, a fine-tuned model, a name the table does not hold)."""
    k = _kind(kind)
    table = TABLES.get(k.price_table or "")
    if not table or model.lower().startswith("ft:"):
        return None
    for name in _candidates(k.price_table, model):
        if name in table:
            i, o = table[name]
            return Price(i, o, f"table {PRICES_AS_OF}", k.batch_discount)
    return None


def _check(value: float | None, flag: str) -> None:
    if value is not None and (not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0):
        raise PriceError(f"{flag} must be a number of USD per million tokens, >= 0; got {value!r}")


def resolve_price(ref: ModelRef | str, price_in: float | None = None, price_out: float | None = None
                  ) -> Price | None:
    """The price of a provider model (a :class:`ModelRef`, or its label: ``openai/gpt-4o``,
    ``anthropic/claude-…``, ``openai-compatible/…``): the table's, with ``--price-in`` / ``--price-out``
    replacing either side. None when the cost is unknown.

    A model the table does not know needs both prices (half a price would make a wrong total)."""
    _check(price_in, "--price-in")
    _check(price_out, "--price-out")
    if isinstance(ref, str):
        ref = provider_ref(ref) or ModelRef(None, ref)
    label = ref.label
    known = table_price(ref.kind, ref.model) if ref.kind is not None else None
    if price_in is None and price_out is None:
        return known
    if known is None:
        if price_in is None or price_out is None:
            missing = "--price-out" if price_out is None else "--price-in"
            raise PriceError(f"{label} is not in the price table ({PRICES_AS_OF}): give both --price-in and "
                             f"--price-out (missing {missing})")
        # the kind's Batch API discount (a compatible server has none we know of)
        return Price(float(price_in), float(price_out), "--price-in/--price-out",
                     ref.kind.batch_discount if ref.kind is not None else 1.0)
    flags = ", ".join(f for f, v in (("--price-in", price_in), ("--price-out", price_out)) if v is not None)
    return Price(float(price_in if price_in is not None else known.input_per_mtok),
                 float(price_out if price_out is not None else known.output_per_mtok),
                 f"{known.source}, {flags}", known.batch_discount)


def judge_spend(lines: list[dict]) -> dict[str, Any] | None:
    """What the LLM judge's requests for these result lines sent and cost (``judge_requests``,
    ``judge_cache_hits``, ``judge_cost_usd``); None when no line was judged by an LLM (or it predates judge
    metering). ``usd`` is None when a cost is unknown (no price for the judge), with the known part beside."""
    judged = [ln for ln in lines if "judge_requests" in ln]
    if not judged:
        return None
    known = [c for c in (ln.get("judge_cost_usd") for ln in judged)
             if isinstance(c, (int, float)) and not isinstance(c, bool)]
    return {"usd": sum(known) if len(known) == len(judged) else None, "usd_known_part": sum(known),
            "n_unknown": len(judged) - len(known),
            "requests": sum(int(ln.get("judge_requests") or 0) for ln in judged),
            "cache_hits": sum(int(ln.get("judge_cache_hits") or 0) for ln in judged)}


def format_usd(usd: float | None) -> str:
    """$0.0123 / $12.34 / "unknown" — enough digits to tell small runs apart."""
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0.00"
    return f"${usd:,.4f}" if usd < 1 else f"${usd:,.2f}"
