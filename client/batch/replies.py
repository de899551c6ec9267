"""The two provider stand-ins of a batch run.

* :class:`CollectingProvider` — records the request a solver would send (its key and its wire body) and
  sends nothing: running the unaided solver over the instances with it yields exactly the requests the
  live run would make, built by the same code.
* :class:`BatchAnsweredProvider` — answers each request from the batch results, by the same key; a request
  the batch did not answer is an error, never a live call.
"""

from __future__ import annotations

from ..cache import key_of
from ..providers.base import ModelReply, Provider, ProviderError
from ..providers.wrapper import WrappedProvider


class Collected(Exception):
    """Raised by :class:`CollectingProvider` once the request is recorded (the solver's outcome is dropped)."""


class CollectingProvider(WrappedProvider):
    def __init__(self, inner: Provider):
        super().__init__(inner)
        self.bodies: dict[str, dict] = {}

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        key = key_of(self.inner, system, messages, tools)
        self.bodies[key] = self.inner.request_body(system, messages, tools)
        raise Collected(key)

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        raise Collected("")  # a tool loop's last turn: never part of a single-request arm


class BatchAnsweredProvider(WrappedProvider):
    def __init__(self, inner: Provider, answers: dict[str, ModelReply | ProviderError]):
        super().__init__(inner)
        self.answers = answers

    async def generate_without_tools(self, system, messages, tools, timeout) -> ModelReply:
        raise ProviderError("a tool loop's last turn cannot be batched", retryable=False, kind="batch")

    async def generate(self, system, messages, tools, timeout) -> ModelReply:
        got = self.answers.get(key_of(self.inner, system, messages, tools))
        if got is None:
            raise ProviderError("this request was not in the batch (only the first request of an instance can be "
                                "batched)", retryable=False, kind="batch")
        if isinstance(got, ProviderError):
            raise ProviderError(str(got), retryable=False, status=got.status, kind=got.kind)  # a fresh one per use
        return got
