"""Reading and writing a run folder's files (layout in the package docstring)."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from pydantic import ValidationError

from ..passk import attempt_of
from .records import FORMAT_VERSION, READABLE_VERSIONS, ResultLine, RunInfo, Summary

RESULTS = "results.jsonl"
RUN = "run.json"
SUMMARY = "summary.json"
ERRORS = "errors.jsonl"
SERVER_LOG = "server.log"
CORRUPT = "results.corrupt"
LOCK = ".lock"
BATCHES = "batches.json"  # written by rundir.batches
RUN_FILES = frozenset({RESULTS, RUN, SUMMARY, ERRORS, SERVER_LOG, CORRUPT, LOCK, BATCHES})
# what to do about a run.json that cannot be read (eval, judge and export all meet it)
_BAD_RUN_JSON = "repair or remove it, or use another run folder"


class RunFolderError(Exception):
    """The folder cannot be used as asked; the message says why and what to do (one line)."""


@dataclass
class LineRead:
    """One line of results.jsonl as read: ``obj`` is the decoded record, or None with ``problem`` set
    (``truncated``: the last line, cut by a killed writer; ``not_json``, ``not_object``, ``no_id``)."""

    lineno: int
    raw: bytes
    obj: dict | None
    problem: str | None = None


def private_open(path: Path, mode: str = "w", encoding: str | None = "utf-8", buffering: int = -1) -> IO:
    """Open for writing a file only its owner may read (0600 when it is created): run folders and
    instance files hold the gold answers."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode.startswith("a") else os.O_TRUNC)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    return os.fdopen(fd, mode, buffering, encoding=None if "b" in mode else encoding)


class DiskFullError(RunFolderError, OSError):
    """A write refused for lack of space (also an OSError, for callers that catch those)."""

    def __str__(self) -> str:
        return str(self.args[0])


def disk_full(folder: Path, e: OSError, need: int) -> RunFolderError | None:
    """The one-line error for a write refused for lack of space (None for any other OSError)."""
    if e.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = 0
    want = need + 4 * 2**20  # the write that failed, and room for run.json and the summary
    return DiskFullError(f"no space left for the run folder {folder} ({e.strerror}; {_mb(free)} free): free at least "
                          f"{_mb(want)} there and re-run the same command to resume (nothing half-written was kept)")


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def atomic_write_text(path: Path, text: str) -> None:
    """Write a whole file or nothing: a failure (a full disk above all) leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    data = text.encode("utf-8")
    try:
        with private_open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with suppress(OSError):
            os.unlink(tmp)
        full = disk_full(path.parent, e, len(data)) if isinstance(e, OSError) else None
        if full is not None:
            raise full from None
        raise


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def _is_run_file(name: str) -> bool:
    """A file a run writes into its folder: its own names, and the temporary and probe files of its writes
    (``.results.jsonl.tmp123``, ``.write-test123``) — any other dotfile (``.bashrc``) is someone else's."""
    if name in RUN_FILES or name.startswith(".write-test"):
        return True
    return name.startswith(".") and any(name.startswith(f".{own}.tmp") for own in RUN_FILES)


def _attempt(obj: dict) -> tuple[str, int]:
    """(instance id, attempt) of a result line: one attempt per instance unless --epochs."""
    return str(obj["id"]), attempt_of(obj)


MAX_STORED_CHARS = 1_000_000  # one string of a result line (a model reply, a program's output): 1 M characters


def cap_strings(obj: Any, limit: int = MAX_STORED_CHARS) -> Any:
    """``obj`` with every string longer than ``limit`` cut there and marked (a model reply of 200 MB would
    otherwise be a 210 MB results line). The line was judged on the whole reply before it is stored."""
    if isinstance(obj, str):
        if len(obj) <= limit:
            return obj
        return obj[:limit] + f"…[span-client: {len(obj) - limit:,} more characters not stored]"
    if isinstance(obj, dict):
        return {k: cap_strings(v, limit) for k, v in obj.items()}
    if isinstance(obj, list):
        return [cap_strings(v, limit) for v in obj]
    return obj


def _too_long(obj: Any, limit: int = MAX_STORED_CHARS, depth: int = 0) -> bool:
    if isinstance(obj, str):
        return len(obj) > limit
    if depth > 50:
        return False
    if isinstance(obj, dict):
        return any(_too_long(v, limit, depth + 1) for v in obj.values())
    if isinstance(obj, list):
        return any(_too_long(v, limit, depth + 1) for v in obj)
    return False


def _dump_line(line: dict | ResultLine) -> str:
    if isinstance(line, ResultLine):
        line = line.to_dict()
    if _too_long(line):
        line = cap_strings(line)
    return json.dumps(line, ensure_ascii=False, default=str)


class RunFolder:
    """``RunFolder(path)``: one run's files. Nothing is created until a write."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    # ------------------------------------------------------------------------------------------ paths
    @property
    def results_path(self) -> Path:
        return self.path / RESULTS

    @property
    def run_path(self) -> Path:
        return self.path / RUN

    @property
    def summary_path(self) -> Path:
        return self.path / SUMMARY

    @property
    def errors_path(self) -> Path:
        return self.path / ERRORS

    @property
    def server_log_path(self) -> Path:
        return self.path / SERVER_LOG

    @property
    def corrupt_path(self) -> Path:
        return self.path / CORRUPT

    def has_results(self) -> bool:
        return self.results_path.is_file()

    def create(self) -> None:
        """Make the folder (and parents), readable by its owner only (it holds the gold answers); a clear
        error when that is impossible. An existing folder is used only when it is a run folder already
        (resume) or empty; a folder holding other files (``--out .``, ``--out /tmp``) is refused, and an
        existing folder's mode is tightened only when it is ours and not shared (no sticky bit), so
        nobody else's folder is locked."""
        if self.path.exists() and not self.path.is_dir():
            raise RunFolderError(f"--out {self.path} exists and is not a folder")
        try:
            existed = self.path.is_dir()
            if existed and not (self.run_path.exists() or self.results_path.exists()):
                # a run killed early may have left only some of its files (batches.json, server.log)
                others = sorted(n for n in os.listdir(self.path) if not _is_run_file(n))
                if others:
                    shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
                    raise RunFolderError(f"--out {self.path} is a folder that holds other files ({shown}) and is no "
                                         f"run folder; give a new or empty folder (or an earlier run's, to resume)")
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = self.path.stat()
            if not existed or (st.st_uid == os.geteuid() and not st.st_mode & stat.S_ISVTX):
                os.chmod(self.path, 0o700)
            probe = self.path / f".write-test{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise RunFolderError(f"cannot write the run folder {self.path}: {e.strerror or e}; "
                                 f"choose a writable --out") from None

    # ------------------------------------------------------------------------------------------ run.json
    def read_info(self) -> RunInfo | None:
        """run.json, checked for its format version; None when there is none."""
        if not self.run_path.exists():
            return None
        try:
            raw = json.loads(self.run_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise RunFolderError(f"{self.run_path} is not readable JSON ({e.__class__.__name__}); {_BAD_RUN_JSON}") \
                from None
        if not isinstance(raw, dict):
            raise RunFolderError(f"{self.run_path} is not a run.json object; {_BAD_RUN_JSON}")
        version = raw.get("format_version", 1)
        if version not in READABLE_VERSIONS:
            newer = isinstance(version, int) and version > FORMAT_VERSION
            raise RunFolderError(
                f"{self.path} is a run folder of format {version!r}, "
                + ("written by a newer span-client; upgrade span-toolkit to read it"
                   if newer else "which this span-client does not read")
                + f" (this version reads formats {', '.join(map(str, READABLE_VERSIONS))})")
        raw.setdefault("format_version", 1)
        try:
            return RunInfo.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(map(str, first.get("loc", ()))) or "run.json"
            raise RunFolderError(f"{self.run_path}: field {where}: {first.get('msg')}; {_BAD_RUN_JSON}") from None

    def write_info(self, info: RunInfo) -> None:
        atomic_write_json(self.run_path, {"format_version": info.format_version, **info.to_dict()})

    # ------------------------------------------------------------------------------------------ summary
    def read_summary(self) -> Summary | None:
        if not self.summary_path.exists():
            return None
        try:
            return Summary.model_validate(json.loads(self.summary_path.read_text(encoding="utf-8")))
        except (OSError, ValueError, UnicodeDecodeError, ValidationError):
            return None  # a summary is derived data: the report recomputes what it needs

    def write_summary(self, summary: Summary | dict) -> None:
        data = summary.to_dict() if isinstance(summary, Summary) else summary
        atomic_write_json(self.summary_path, data)

    # ------------------------------------------------------------------------------------------ results
    def read_lines(self) -> Iterator[LineRead]:
        """Every line of results.jsonl, decoded or with its problem named (streamed: files with full
        transcripts can be hundreds of MB)."""
        if not self.results_path.exists():
            return
        with self.results_path.open("rb") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                if not raw.endswith(b"\n"):
                    yield LineRead(n, raw, None, "truncated")
                    return
                try:
                    obj = json.loads(raw)
                except ValueError:
                    yield LineRead(n, raw, None, "not_json")
                    continue
                if not isinstance(obj, dict):
                    yield LineRead(n, raw, None, "not_object")
                elif "id" not in obj:
                    yield LineRead(n, raw, None, "no_id")
                else:
                    yield LineRead(n, raw, obj)

    def records(self) -> Iterator[dict]:
        """The decoded result lines (problem lines skipped: see :meth:`read_lines`)."""
        for r in self.read_lines():
            if r.obj is not None:
                yield r.obj

    def prepare_resume(self, *, force: bool = False) -> set[tuple[str, int]]:
        """Make results.jsonl resumable; return the (id, attempt) pairs already finished (not errors; the
        attempt is 1 for a line without ``epoch``).

        Error lines move to errors.jsonl (those attempts are asked again); a truncated last line (a
        killed writer) and repeated attempts are dropped. An undecodable line elsewhere is not a crash
        artefact: it is refused unless ``force``, which sets it aside in results.corrupt."""
        done: set[tuple[str, int]] = set()
        rewrite = False
        corrupt: list[int] = []
        for r in self.read_lines():
            if r.problem == "truncated":
                rewrite = True
            elif r.problem:
                corrupt.append(r.lineno)
            elif r.obj.get("stop_reason") == "error" or _attempt(r.obj) in done:
                rewrite = True
            else:
                done.add(_attempt(r.obj))
        if corrupt and not force:
            self._refuse(corrupt)
        if rewrite or corrupt:
            self._rewrite(resume=True)
        return done

    def set_aside_corrupt(self, *, force: bool = False) -> int:
        """Before re-judging: the rule of a resume for lines that are not result records. Refused with their
        line numbers, or with ``force`` moved to results.corrupt; every result line stays as it is (errors
        too). Returns how many were set aside. A cut-off last line (a killed writer) is dropped, as a resume
        drops it: that instance was never finished, and the next resume asks it again."""
        corrupt = [r.lineno for r in self.read_lines() if r.problem and r.problem != "truncated"]
        if corrupt and not force:
            self._refuse(corrupt)
        if corrupt:
            self._rewrite(resume=False)
        return len(corrupt)

    def _refuse(self, corrupt: list[int]) -> None:
        shown = ", ".join(map(str, corrupt[:5])) + (" …" if len(corrupt) > 5 else "")
        raise RunFolderError(
            f"{self.results_path}: {len(corrupt)} line(s) are not result records (line {shown}) and not "
            f"a cut-off last line; repair the file, or add --force-resume to set them aside in {CORRUPT}")

    def _rewrite(self, *, resume: bool) -> None:
        """results.jsonl again without its problem lines (to results.corrupt); for a resume also without
        error lines (to errors.jsonl: those instances are asked again) and repeated ids."""
        tmp = self.results_path.with_name(f".{RESULTS}.tmp{os.getpid()}")
        try:
            self._rewrite_into(tmp, resume=resume)
        except BaseException as e:
            with suppress(OSError):
                os.unlink(tmp)
            full = disk_full(self.path, e, self.results_path.stat().st_size) if isinstance(e, OSError) else None
            if full is not None:
                raise full from None
            raise

    def _rewrite_into(self, tmp: Path, *, resume: bool) -> None:
        kept: set[tuple[str, int]] = set()
        with private_open(tmp, "wb") as dst:
            err_f: IO[bytes] | None = None
            corrupt_f: IO[bytes] | None = None
            try:
                for r in self.read_lines():
                    if r.problem == "truncated":
                        break
                    if r.problem:
                        if corrupt_f is None:
                            corrupt_f = private_open(self.corrupt_path, "ab")
                        corrupt_f.write(r.raw)
                    elif resume and r.obj.get("stop_reason") == "error":
                        if err_f is None:
                            err_f = private_open(self.errors_path, "ab")
                        err_f.write(r.raw)
                    elif not resume or _attempt(r.obj) not in kept:
                        kept.add(_attempt(r.obj))
                        dst.write(r.raw)
            finally:
                for f in (err_f, corrupt_f):
                    if f is not None:
                        f.close()
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(tmp, self.results_path)

    def appender(self) -> "ResultAppender":
        return ResultAppender(self.results_path)

    def rewrite_results(self, lines: Iterable[dict | ResultLine]) -> None:
        atomic_write_text(self.results_path, "".join(_dump_line(l) + "\n" for l in lines))

    # ------------------------------------------------------------------------------------------ lock
    def lock(self) -> "RunLock":
        return RunLock(self.path / LOCK)


class ResultAppender:
    """Appends result lines, each flushed whole (a kill leaves at most one truncated last line)."""

    def __init__(self, path: Path):
        self._path = path
        self._f = private_open(path, "ab", buffering=0)

    def write(self, line: dict | ResultLine) -> None:
        data = (_dump_line(line) + "\n").encode("utf-8")
        start = os.lseek(self._f.fileno(), 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._f.fileno(), view):]
        except OSError as e:
            with suppress(OSError):
                os.ftruncate(self._f.fileno(), start)  # no half line left behind
            full = disk_full(self._path.parent, e, len(data))
            if full is not None:
                raise full from None
            raise

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "ResultAppender":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RunLock:
    """An exclusive lock on a run folder (released by the OS even if the process is killed), so two
    commands never append to the same results.jsonl."""

    def __init__(self, path: Path):
        self.path = path
        self._f: IO[str] | None = None

    def __enter__(self) -> "RunLock":
        self._f = private_open(self.path, "a")
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._f.close()
            raise RunFolderError(f"another span-client command is using {self.path.parent}; wait for it or use "
                                 f"another --out") from None
        return self

    def __exit__(self, *exc) -> None:
        if self._f:
            self._f.close()


def run_files_in(path: str | Path) -> list[str]:
    """The run-folder files a folder holds (empty for a folder that is not, and never was, a run). A
    summary.json alone is not a run's (a report folder has one too)."""
    p = Path(path)
    held = [name for name in (RESULTS, RUN, ERRORS, CORRUPT) if (p / name).exists()]
    if held and (p / SUMMARY).exists():
        held.append(SUMMARY)
    return sorted(held)
