"""argparse value types shared by the span-client subcommands: one clear message per bad value."""

import argparse
from typing import Callable


def _typed(convert: Callable, accept: Callable, expected: str, name: str) -> Callable:
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value
    parse.__name__ = name  # argparse shows the type's name in some messages
    return parse


positive_int = _typed(int, lambda v: v >= 1, "a positive integer", "positive_int")
nonneg_int = _typed(int, lambda v: v >= 0, "an integer >= 0", "nonneg_int")
any_int = _typed(int, lambda v: True, "an integer", "int")
positive_float = _typed(float, lambda v: v > 0, "a positive number", "positive_float")
nonneg_float = _typed(float, lambda v: v >= 0, "a number >= 0", "nonneg_float")


MAX_CONCURRENCY = 1024  # instances in flight: past this, more workers only cost memory (each holds a request)
MAX_EPOCHS = 1000       # attempts per instance (pass@k): k beyond this is no estimate anyone reports

concurrency_int = _typed(int, lambda v: 1 <= v <= MAX_CONCURRENCY, f"an integer from 1 to {MAX_CONCURRENCY}",
                         "concurrency_int")
epochs_int = _typed(int, lambda v: 1 <= v <= MAX_EPOCHS, f"an integer from 1 to {MAX_EPOCHS}", "epochs_int")


def base_url(text: str) -> str:
    """An http(s) URL with a host (and, if given, a valid port): one line for anything else."""
    from urllib.parse import urlsplit

    expected = "an http:// or https:// URL such as http://localhost:8000/v1"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r} ({e})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return text
