"""What stands where a model is asked and is not one: the offline scripted agents (``reference``,
``reference-code``, ``baseline``; :mod:`.scripted`). ``--model`` names one of them or a provider model
(client.models parses either)."""

from .scripted import SCRIPTED, make

SCRIPTED_MODELS = tuple(SCRIPTED)  # reference, reference-code, baseline

__all__ = ["SCRIPTED", "SCRIPTED_MODELS", "make"]
