"""Progress of a run on stderr: a live bar on a terminal; otherwise a plain line now and then, so a run in
CI or under nohup is never silent for hours."""

from __future__ import annotations

from typing import Any

import os
import sys
import time

PLAIN_EVERY_S = 30.0
EVERY_ENV = "SPAN_PROGRESS_EVERY"  # seconds between plain progress lines (default 30)


class Progress:
    def __init__(self, total: int, done: int, *, quiet: bool, label: str, plain_every: float | None = None):
        self.total, self.done = total, done
        self.label = label
        self.correct = self.scored = self.errors = self.new = 0
        self.started = time.monotonic()
        self._bar = None
        self._plain = not quiet and not sys.stderr.isatty()
        if plain_every is None:
            try:
                plain_every = float(os.environ.get(EVERY_ENV, PLAIN_EVERY_S))
            except ValueError:
                plain_every = PLAIN_EVERY_S
        self._plain_every = plain_every
        self._last_plain = self.started
        if not quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("acc {task.fields[acc]}"), TextColumn("err {task.fields[err]}"),
                                     TextColumn("{task.fields[rate]}/s"), TimeElapsedColumn(),
                                     console=Console(stderr=True), transient=False)
            self._task = self._bar.add_task(label, total=total, completed=done, acc="-", err=0, rate="-")

    def __enter__(self) -> "Progress":
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar:
            self._bar.stop()
        elif self._plain and self.new:
            self._print_plain()

    def _acc(self) -> str:
        return f"{100 * self.correct / self.scored:.1f}%" if self.scored else "-"

    def _rate(self) -> float:
        return self.new / max(time.monotonic() - self.started, 1e-9)

    def _print_plain(self) -> None:
        print(f"span-client: {self.label}: {self.done}/{self.total} done, {self.errors} errors, "
              f"accuracy so far {self._acc()}, {self._rate():.2f} instances/s", file=sys.stderr, flush=True)

    def update(self, record: Any) -> None:
        """One finished result (a client.rundir.ResultLine)."""
        self.done += 1
        self.new += 1
        if record.stop_reason == "error":
            self.errors += 1
        if record.correct is not None:
            self.scored += 1
            self.correct += bool(record.correct)
        if self._bar:
            self._bar.update(self._task, completed=self.done, acc=self._acc(), err=self.errors,
                             rate=f"{self._rate():.1f}")
        elif self._plain and time.monotonic() - self._last_plain >= self._plain_every:
            self._last_plain = time.monotonic()
            self._print_plain()
