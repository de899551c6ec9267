"""The run folder format (client.rundir): versioned, typed, lossless."""

from __future__ import annotations

import json

import pytest

from span_toolkit.client.rundir import (FORMAT_VERSION, ResultLine, RunFolder, RunFolderError, RunInfo, count, summarize)
from span_toolkit.client.cli import main


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "ref"
    assert main(["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--sample", "12",
                 "--out", str(out), "--quiet"]) == 0
    return out


def test_current_folder_round_trips_through_the_typed_records(finished_run):
    folder = RunFolder(finished_run)
    info = folder.read_info()
    assert info.format_version == FORMAT_VERSION and info.mode == "with_tools"
    raw_info = json.loads(folder.run_path.read_text())
    assert info.to_dict() == raw_info
    lines = [json.loads(x) for x in folder.results_path.read_text().splitlines()]
    assert len(lines) == 12
    for raw in lines:
        typed = ResultLine.model_validate(raw)
        assert typed.to_dict() == json.loads(json.dumps(raw))  # nothing lost, nothing added
        assert typed.tool_calls and typed.tool_calls[0].form == "native"
    summary = json.loads(folder.summary_path.read_text())
    assert summary == json.loads(json.dumps(summarize(lines, info.model, info.mode)))
    assert count(lines)["accuracy"] == summary["accuracy"] == 1.0


def test_version_1_folder_is_read_and_newer_is_refused(finished_run, tmp_path):
    folder = RunFolder(finished_run)
    raw = json.loads(folder.run_path.read_text())
    old = RunFolder(tmp_path / "old")
    old.create()
    v1 = {k: v for k, v in raw.items() if k != "format_version"}
    old.run_path.write_text(json.dumps(v1))
    assert old.read_info().format_version == 1
    new = RunFolder(tmp_path / "new")
    new.create()
    new.run_path.write_text(json.dumps(dict(raw, format_version=FORMAT_VERSION + 1)))
    with pytest.raises(RunFolderError, match="newer span-client.*upgrade"):
        new.read_info()
    new.run_path.write_text(json.dumps(dict(raw, format_version="x")))
    with pytest.raises(RunFolderError, match="does not read"):
        new.read_info()


def test_newer_folder_refused_by_eval_and_report(finished_run, tmp_path, capsys):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(finished_run, copy)
    raw = json.loads((copy / "run.json").read_text())
    (copy / "run.json").write_text(json.dumps(dict(raw, format_version=99)))
    rc = main(["eval", "--model", "reference", "--with-tools", "--date", "2025-07-01", "--sample", "12",
               "--out", str(copy), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "format 99" in err and "upgrade" in err
    rc = main(["report", str(copy), "--out", str(tmp_path / "rep"), "--no-figures", "--no-tiktoken"])
    assert rc == 2 and "format 99" in capsys.readouterr().err


def test_resume_keeps_finished_work_and_sets_aside_errors(tmp_path):
    folder = RunFolder(tmp_path)
    ok = {"id": "a", "question": "q", "mode": "unaided", "model": "m", "stop_reason": "answered", "correct": True}
    err = dict(ok, id="b", stop_reason="error", error="boom", correct=None)
    folder.results_path.write_text(json.dumps(ok) + "\n" + json.dumps(err) + "\n" + json.dumps(ok) + "\n{\"id\": \"c")
    assert folder.prepare_resume() == {("a", 1)}  # (id, attempt): one attempt per instance unless --epochs
    assert [json.loads(x)["id"] for x in folder.results_path.read_text().splitlines()] == ["a"]
    assert json.loads(folder.errors_path.read_text())["id"] == "b"


def test_run_info_requires_model_and_mode(tmp_path):
    folder = RunFolder(tmp_path)
    folder.run_path.write_text(json.dumps({"format_version": 2, "mode": "unaided"}))
    with pytest.raises(RunFolderError, match="model"):
        folder.read_info()
    assert RunInfo(model="m", mode="unaided").format_version == FORMAT_VERSION


def test_resume_is_per_attempt(tmp_path):
    folder = RunFolder(tmp_path)
    folder.create()
    base = {"question": "q", "mode": "unaided", "model": "m", "stop_reason": "answered", "correct": True}
    lines = [{**base, "id": "a"}, {**base, "id": "a", "epoch": 2}, {**base, "id": "a", "epoch": 2},  # a repeat
             {**base, "id": "a", "epoch": 3, "stop_reason": "error", "correct": None}, {**base, "id": "b", "epoch": 1}]
    folder.results_path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    assert folder.prepare_resume() == {("a", 1), ("a", 2), ("b", 1)}
    kept = [(l["id"], l.get("epoch")) for l in folder.records()]
    assert kept == [("a", None), ("a", 2), ("b", 1)]  # the repeat dropped, the failed attempt set aside
    assert json.loads(folder.errors_path.read_text())["epoch"] == 3
