"""``--batch``: the unaided arm through the providers' Batch APIs (half the price, no rate limits to juggle,
answers within 24 h) instead of one live request per instance.

Only a single-request arm can be batched: every request of a batch must be known when it is submitted,
and a with-tools or Time Agent instance's second request depends on the model's first reply.

* :mod:`.backends` — the OpenAI Batch API and Anthropic Message Batches through their SDKs;
* :mod:`.driver` — submit, record, wait (resumable: the batch ids live in the run folder), collect;
* :mod:`.replies` — collecting the requests a solver would send, and answering them from the batch.
"""

from .backends import AnthropicBatches, OpenAIBatches, Progress, backend_for
from .driver import BatchDriver, BatchError
from .replies import BatchAnsweredProvider, Collected, CollectingProvider

__all__ = ["AnthropicBatches", "OpenAIBatches", "Progress", "backend_for", "BatchDriver", "BatchError",
           "BatchAnsweredProvider", "Collected", "CollectingProvider"]
