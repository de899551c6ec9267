"""The run folder: its layout, format version, typed records, reading and writing — the only place that
knows them. Everything else (the runner, ``span-client judge``, the report) goes through here. The folder is
created 0700 and its files 0600: they hold the gold answers.

A run folder (``span-client eval --out DIR``)::

    run.json        RunInfo: who was asked how (model, mode, settings, prompts, versions, format_version)
    results.jsonl   one ResultLine per instance, append-only while running
    summary.json    Summary: counts over results.jsonl (the one place accuracy is counted: ``count``)
    errors.jsonl    failed attempts set aside when a resume asks those instances again
    server.log      the stdio MCP server's stderr
    batches.json    --batch: the Batch API submissions (ids, requests, status), so a killed client resumes them
    results.corrupt undecodable lines set aside by ``--force-resume`` of eval or judge (never silently dropped)
    .lock           held while a command writes the folder
"""

from .summary import summarize
from .counts import count, is_error, judge_request_failed, primary_verdict, verdict_correct
from .folder import (LineRead, RunFolder, RunFolderError, atomic_write_json, atomic_write_text, private_open,
                     run_files_in)
from .batches import BatchRecords
from .records import (FORMAT_VERSION, MODES, READABLE_VERSIONS, CodeRun, JudgeVerdict, ResultLine, RunInfo,
                      Summary, ToolCallRecord)

__all__ = ["BatchRecords", "FORMAT_VERSION", "READABLE_VERSIONS", "MODES", "RunFolder", "RunFolderError", "LineRead",
           "ResultLine", "JudgeVerdict", "RunInfo", "Summary", "ToolCallRecord", "CodeRun", "count", "is_error",
           "primary_verdict", "verdict_correct", "judge_request_failed", "atomic_write_json",
           "atomic_write_text", "private_open", "summarize", "run_files_in"]
