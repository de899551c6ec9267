"""``batches.json``: the Batch API submissions of a run (``--batch``), so that a client killed while a batch
runs polls the same batch on the next run instead of submitting (and paying for) it again.

Each record: ``owner`` (provider label and endpoint), ``token`` (written before the batch is created; an
interrupted submission is recognised by it), ``id`` and, for OpenAI, ``input_file_id``, ``keys`` (the
request keys it holds: the response cache's keys), ``status``, ``counts``, ``created_at`` / ``ended_at``
and ``failed_keys`` (requests it answered with an error: asked again in a new batch).
"""

from __future__ import annotations

import json
from pathlib import Path

from .folder import BATCHES, RunFolderError, atomic_write_json

BATCHES_FORMAT = 1


class BatchRecords:
    """The reader and writer of one run folder's ``batches.json``."""

    def __init__(self, folder: str | Path):
        self.path = Path(folder) / BATCHES

    def load(self) -> list[dict]:
        if not self.path.exists():
            return []
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("format") != BATCHES_FORMAT:
                raise ValueError("not a batches.json of this version")
            records = raw["batches"]
            if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
                raise ValueError("batches is not a list of records")
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as e:
            raise RunFolderError(f"{self.path} is damaged ({e}); the batches it listed may still be running: "
                                 f"move it away to submit them again") from None
        return records

    def save(self, records: list[dict]) -> None:
        atomic_write_json(self.path, {"format": BATCHES_FORMAT, "batches": records})
