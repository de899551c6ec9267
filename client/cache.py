"""The response cache (``--cache``): a model reply, stored under the hash of the request that produced
it, served again for the same request in any run folder.

* **Key**: sha256 of the request's whole content as canonical JSON — the provider's configuration (kind
  and model in its label, API, base URL, temperature, max tokens: everything ``Provider.config()``
  records, so a setting added there later can only split the cache, never merge two requests), the
  system prompt, the native messages, the tool definitions and the *epoch* (the attempt number under
  ``--epochs``, so K attempts are K requests). A file name is the 64-character hash, whatever the size
  of the request.
* **Only answers are stored**: a request that raised (:class:`ProviderError`, a timeout, a cancelled
  run) leaves nothing behind, so an error is never served.
* **Safe to share between processes**: an entry is written to a private temporary file in its final
  folder and renamed into place (atomic on POSIX), so a reader sees a whole entry or none; two writers
  of one key both write the same answer.
* **Private**: folders 0700, files 0600; a cache folder owned by another user is refused (its entries
  would be answers someone else chose).
* **A damaged entry is a miss**: undecodable, of another format, too large, holding another key, or whose
  ``sha256`` (of its key and its reply, as stored) does not match — an entry edited into other valid JSON
  is caught. The request is sent again and the entry rewritten; damaged entries are counted
  (``ResponseCache.corrupt``), the first one named in a warning and the count reported at the end of the
  run. Entries written before the check (no ``sha256``) count as damaged once and are rewritten.

Default folder: ``$XDG_CACHE_HOME/span-toolkit`` (an absolute XDG_CACHE_HOME only, as the XDG spec
says), else ``~/.cache/span-toolkit``; ``--cache-dir`` to choose another.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Awaitable, Callable

from .metering import current_epoch, current_meter
from .providers.base import ModelReply, Provider, ProviderError, ToolCall
from .providers.wrapper import WrappedProvider

CACHE_FORMAT = 1
SUBDIR = f"responses-v{CACHE_FORMAT}"
MAX_ENTRY_BYTES = 16 * 1024 * 1024  # a reply is a few KB; a larger file is not ours


def entry_digest(key: str, reply: Any) -> str:
    """The check an entry carries: sha256 of its key and its reply dict as canonical JSON."""
    body = json.dumps([key, reply], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class CacheError(Exception):
    """The cache folder cannot be used (one line for the user)."""


def default_cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "span-toolkit"


# ------------------------------------------------------------------------------------------------- keys
def request_content(config: dict, system: str, messages: list, tools: list | None, epoch: int,
                    final_turn: bool = False) -> dict:
    content = {"format": CACHE_FORMAT, "provider": config, "system": system, "messages": messages,
               "tools": tools or None, "epoch": epoch}
    if final_turn:  # the tool loop's last request, in which the model may not call a tool: another request
        content["final_turn"] = True
    return content


def key_of(provider: Provider, system: str, messages: list, tools: list | None, final_turn: bool = False) -> str:
    """The key of one request of ``provider`` in the current attempt (the cache's and the batch's)."""
    return request_key(request_content(provider.config(), system, messages, tools, current_epoch(), final_turn))


def request_key(content: dict) -> str:
    """sha256 hex of canonical JSON; TypeError when the request holds something JSON cannot say."""
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------------------ replies
def reply_to_dict(reply: ModelReply) -> dict:
    d = {"text": reply.text, "stop_reason": reply.stop_reason, "assistant_message": reply.assistant_message,
         "input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
         "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments, "raw_arguments": c.raw_arguments,
                         "error": c.error} for c in reply.tool_calls]}
    if reply.reasoning_tokens is not None:  # only where the provider reported some: other entries stay as they were
        d["reasoning_tokens"] = reply.reasoning_tokens
    return d


def _opt(value: Any, kind: type | tuple) -> Any:
    if value is not None and not isinstance(value, kind):
        raise ValueError(f"expected {kind}, got {type(value).__name__}")
    return value


def reply_from_dict(d: Any) -> ModelReply:
    """The stored reply, checked field by field (ValueError: not a reply this code wrote)."""
    if not isinstance(d, dict) or not isinstance(d.get("assistant_message"), dict):
        raise ValueError("not a stored reply")
    calls = []
    for c in _opt(d.get("tool_calls"), list) or []:
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not isinstance(c.get("name"), str):
            raise ValueError("bad tool call")
        calls.append(ToolCall(id=c["id"], name=c["name"], arguments=_opt(c.get("arguments"), dict),
                              raw_arguments=_opt(c.get("raw_arguments"), str), error=_opt(c.get("error"), str)))
    for k in ("input_tokens", "output_tokens", "reasoning_tokens"):
        if isinstance(d.get(k), bool):
            raise ValueError(f"bad {k}")
    return ModelReply(text=_opt(d.get("text"), str), tool_calls=calls, stop_reason=_opt(d.get("stop_reason"), str),
                      assistant_message=d["assistant_message"], input_tokens=_opt(d.get("input_tokens"), int),
                      output_tokens=_opt(d.get("output_tokens"), int),
                      reasoning_tokens=_opt(d.get("reasoning_tokens"), int))


# -------------------------------------------------------------------------------------------------- store
class ResponseCache:
    """Entries at ``<root>/responses-v1/<2 hex>/<64 hex>.json``."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root).expanduser() if root is not None else default_cache_dir()
        self.dir = self.root / SUBDIR
        self.corrupt = 0  # damaged entries met (each a miss)
        self._warned = False
        self._private_dir(self.root, create_parents=True, only_if_ours=True)
        self._private_dir(self.dir)

    @staticmethod
    def _private_dir(path: Path, create_parents: bool = False, only_if_ours: bool = False) -> None:
        """Make ``path`` a folder only its owner may enter. With ``only_if_ours`` (the cache root, which the
        user names with --cache-dir) an existing folder is tightened only when it holds nothing but cache
        folders: ``--cache-dir ~`` or ``/tmp`` must not lock anyone out (the entries' own folder is private
        all the same)."""
        try:
            if create_parents:
                path.parent.mkdir(parents=True, exist_ok=True)
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                if (only_if_ours and path.is_dir() and not path.is_symlink()
                        and any(not n.startswith("responses-v") for n in os.listdir(path))):
                    st = path.lstat()
                    if st.st_uid == os.getuid() or st.st_mode & stat.S_ISVTX:
                        return  # a folder of other things (~, /tmp): left as it is; the entries' folder is private
            st = path.lstat()
        except OSError as e:
            raise CacheError(f"cannot use the cache folder {path}: {e.strerror or e}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise CacheError(f"cache folder {path} is not a folder (a symlink or file is not accepted); "
                             f"choose another with --cache-dir")
        if st.st_uid != os.getuid():
            raise CacheError(f"cache folder {path} belongs to another user (uid {st.st_uid}): its entries "
                             f"would be answers someone else wrote; choose another with --cache-dir")
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(path, 0o700)

    def path(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError("a cache key is 64 lowercase hex digits")
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelReply | None:
        p = self.path(key)
        try:
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None  # absent (or unreadable: a miss, and the put below replaces it)
        try:
            with os.fdopen(fd, "rb") as f:
                data = f.read(MAX_ENTRY_BYTES + 1)
            if len(data) > MAX_ENTRY_BYTES:
                raise ValueError("entry too large")
            entry = json.loads(data)
            if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                raise ValueError("entry of another key or format")
            if entry.get("sha256") != entry_digest(key, entry.get("reply")):
                raise ValueError("its sha256 does not match its content")
            return reply_from_dict(entry.get("reply"))
        except (OSError, ValueError, TypeError, RecursionError) as e:
            self.corrupt += 1
            if self.corrupt == 1:
                print(f"span-client: warning: damaged response cache entry {p} ({e}); asked again and rewritten "
                      f"(damaged entries are counted and reported at the end)", file=sys.stderr)
            return None

    def report(self) -> str | None:
        """One line on the damaged entries met, or None when there were none."""
        if not self.corrupt:
            return None
        return (f"span-client: {self.corrupt} damaged response cache entr{'y' if self.corrupt == 1 else 'ies'} "
                f"in {self.dir} {'was' if self.corrupt == 1 else 'were'} asked again and rewritten")

    def put(self, key: str, reply: ModelReply) -> bool:
        """Store atomically; False (and one warning on stderr per run) when the disk refuses."""
        p = self.path(key)
        tmp = None
        try:
            stored = reply_to_dict(reply)
            data = json.dumps({"format": CACHE_FORMAT, "key": key, "reply": stored,
                               "sha256": entry_digest(key, stored)},
                              ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            if not p.parent.is_dir():
                self._private_dir(p.parent)
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".json")  # created 0600
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, p)
            tmp = None
            return True
        except (OSError, CacheError, TypeError, ValueError) as e:
            if not self._warned:
                self._warned = True
                print(f"span-client: warning: the response cache could not store a reply ({e}); the run goes "
                      f"on without storing", file=sys.stderr)
            return False
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


class CachingProvider(WrappedProvider):
    """A provider whose replies go through a :class:`ResponseCache`: a hit sends no request (and is counted
    in the attempt's meter). Everything but ``generate`` is the wrapped provider's (so run.json and
    resume settings do not change with ``--cache``)."""

    def __init__(self, inner: Provider, cache: ResponseCache,
                 keep: Callable[[ModelReply], bool] | None = None):
        super().__init__(inner)
        self.cache = cache
        self.keep = keep  # which replies may be stored (the LLM judge keeps only readable verdicts)
        self.hits = 0
        self._in_flight: dict[str, asyncio.Future[ModelReply]] = {}

    def key(self, system: str, messages: list[dict], tools: list[dict] | None, final_turn: bool = False) -> str | None:
        try:
            return key_of(self.inner, system, messages, tools, final_turn)
        except (TypeError, ValueError):
            return None  # not JSON: asked live, never cached

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        return await self._through(self.key(system, messages, tools),
                                   lambda: self.inner.generate(system, messages, tools, timeout))

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        return await self._through(self.key(system, messages, tools, final_turn=True),
                                   lambda: self.inner.generate_without_tools(system, messages, tools, timeout))

    def _hit(self, reply: ModelReply) -> ModelReply:
        self.hits += 1
        meter = current_meter()
        if meter is not None:
            meter.cache_hits += 1
        return reply

    async def _through(self, key: str | None, ask: Callable[[], Awaitable[ModelReply]]) -> ModelReply:
        if key is None:
            return await ask()
        while True:
            reply = self.cache.get(key)
            if reply is not None:
                return self._hit(reply)
            # The same request already on its way (the judge asked twice about one answer, concurrently):
            # wait for its reply instead of paying twice. If it fails, look again: one of the waiters takes
            # over and the others wait for it (errors are never shared: each asks for itself, one at a time).
            pending = self._in_flight.get(key)
            if pending is None:
                break
            try:
                return self._hit(await asyncio.shield(pending))
            except Exception:  # noqa: BLE001 - the owner's failure is the owner's; go round again
                continue
        mine: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = mine
        try:
            reply = await ask()  # raises: nothing is stored
        except BaseException as e:
            mine.set_exception(e if isinstance(e, Exception)
                               else ProviderError("the request was cancelled", retryable=True))
            mine.exception()  # retrieved: no "exception never retrieved" warning when nobody waited
            raise
        finally:
            if self._in_flight.get(key) is mine:
                del self._in_flight[key]
        if self.keep is None or self.keep(reply):
            self.cache.put(key, reply)
        mine.set_result(reply)
        return reply
