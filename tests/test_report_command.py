"""`span-client report` end to end on constructed run folders (CONTRACTS.md results.jsonl format)."""

import argparse
import csv
import json
import time

import pytest

from span_toolkit.client.report import command, tokens
from tests.fakes import synthetic_runs as sy


@pytest.fixture(autouse=True)
def _offline_tiktoken(monkeypatch, tmp_path_factory):
    # an empty cache: the report must say "unavailable" quickly, whatever the network does
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("tiktoken-empty")))


def _run(*argv) -> int:
    p = argparse.ArgumentParser()
    command.configure(p)
    return command.run(p.parse_args([str(a) for a in argv]))


def _demo_runs(tmp_path, n=400, dates=("2025-07-01",), **kw):
    ins = sy.instances(n, list(dates))
    islamic = {i["id"] for i in ins if i["target_calendar"] == "islamic"
               and i["question_format"] == "content"}
    base = sy.write_run(tmp_path / "baseline-unaided",
                        sy.results(ins, "baseline", "unaided",
                                   lambda i: 0.25 + 0.3 * (i["question_format"] == "polar"), seed=1,
                                   n_errors=4, n_unscored=3, n_not_attempted=5, llm_judge=True,
                                   umm_al_qura_ids=set(sorted(islamic)[:20]), **kw))
    ref = sy.write_run(tmp_path / "reference-with_tools",
                       sy.results(ins, "reference", "with_tools", 0.96, seed=2, **kw))
    return ins, base, ref


def _csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_end_to_end_demo_like(tmp_path, capsys):
    ins, base, ref = _demo_runs(tmp_path)
    out = tmp_path / "report"
    t = time.perf_counter()
    assert _run(base, ref, "--out", out, "--resamples", "2000") == 0
    assert time.perf_counter() - t < 20
    for f in ("report.md", "summary.json", "accuracy_overall.csv", "accuracy_by.csv", "crosstab.csv",
              "significance.csv", "paired_arms.csv", "output_tokens.csv",
              "judge_agreement.csv", "fig2_accuracy_by_eval_date.png", "fig2_output_tokens.png",
              "fig3_reasoning_type.png", "fig4_question_format.png", "fig5_direction.png",
              "fig6_tools_vs_unaided.png", "fig_pairs.png"):
        assert (out / f).is_file() and (out / f).stat().st_size > 0, f
    for f in out.glob("*.png"):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    summary = json.loads((out / "summary.json").read_text())
    by_mode = {s["mode"]: s for s in summary["series"]}
    b = by_mode["unaided"]["overall"]
    base_rows = [json.loads(x) for x in (base / "results.jsonl").read_text().splitlines()]
    scored = [r for r in base_rows if r["correct"] is not None]
    assert b["n"] == 400 and b["n_scored"] == len(scored) == 393
    assert b["n_correct"] == sum(r["correct"] for r in scored)
    # "unscored" means what it means in the run folder: answered but not scored (errors are apart)
    assert b["n_unscored"] == 3 and b["n_errors"] == 4 and b["n_not_attempted"] == 5
    # 5 directions x 2 = the 10 source->target pairs
    assert len(by_mode["unaided"]["by"]["pair"]) == 10
    assert set(by_mode["unaided"]["by"]["reasoning_type"]) == {"date", "festival"}

    # significance: 3 comparisons per model+mode
    assert len(summary["significance"]) == 6
    polar = next(r for r in summary["significance"]
                 if r["mode"] == "unaided" and r["dimension"] == "question_format")
    assert polar["mean_difference"] > 0.15 and polar["p_value"] < 0.01

    # paired: reference with tools vs baseline unaided, different models, labelled as such
    (p,) = summary["paired"]
    assert p["pairing"] == "different models" and "different models" in p["comparison"]
    assert p["n_a"] == 400 - 7 and p["n_unscored_in_either"] == 7
    assert p["ci_low"] < p["mean_difference"] < p["ci_high"] and p["mean_difference"] > 0.4

    # tokens: provider usage reported, tiktoken unavailable with a reason (no network, empty cache)
    t = by_mode["with_tools"]["tokens"]["provider"]
    assert t["n"] == 400 and t["mean"] > 100
    assert summary["settings"]["tiktoken"]["available"] in (True, False)
    if not summary["settings"]["tiktoken"]["available"]:
        assert summary["settings"]["tiktoken"]["reason"]

    # judge agreement for the model that has both verdicts
    (ag,) = [a for a in summary["agreement"] if a["model"] == "baseline"]
    assert ag["n"] > 300 and 0.8 < ag["raw_agreement"] <= 1.0

    md = (out / "report.md").read_text()
    for heading in ("## Overall accuracy", "## Accuracy by evaluation date",
                    "## Accuracy by reasoning type", "## Accuracy by question format",
                    "## Accuracy by direction", "## Accuracy by source → target",
                    "## Significance", "## The arms compared", "## Output tokens",
                    "## Judge agreement", "## Benchmark validity", "![", "crosstab.csv"):
        assert heading in md, heading
    assert "| baseline | unaided |" in md

    cross = _csv(out / "crosstab.csv")
    assert sum(int(r["n"]) for r in cross) == 800
    assert {"model", "mode", "eval_date", "source_calendar", "target_calendar",
            "accuracy"} <= set(cross[0])
    assert "paired" in capsys.readouterr().out


def test_umm_al_qura_validity_check(tmp_path):
    pytest.importorskip("span_toolkit.client.judges.rules")
    ins, base, ref = _demo_runs(tmp_path)
    out = tmp_path / "r"
    assert _run(base, ref, "--out", out, "--resamples", "200", "--no-figures") == 0
    v = json.loads((out / "summary.json").read_text())["validity"]
    assert v["available"]
    row = next(r for r in v["rows"] if r["model"] == "baseline")
    # 20 answers were given in Umm al-Qura; on the days where it equals the tabular date they are right
    assert row["n_matches_umm_al_qura"] + row["n_tabular_equals_uaq"] <= 20
    assert row["n_matches_umm_al_qura"] >= 5
    assert row["n_matches_umm_al_qura"] <= row["n_wrong"]
    assert (out / "validity_umm_al_qura.csv").exists()


def test_same_model_pairing_and_multi_date_figures(tmp_path):
    dates = ["1960-07-01", "1965-07-01", "1970-07-01"]
    ins = sy.instances(60, dates)
    dirs = []
    for model, acc in (("openai/gpt-x", 0.4), ("anthropic/claude-y", 0.5)):
        dirs.append(sy.write_run(tmp_path / f"{model.split('/')[0]}-u",
                                 sy.results(ins, model, "unaided", acc, seed=3)))
        dirs.append(sy.write_run(tmp_path / f"{model.split('/')[0]}-t",
                                 sy.results(ins, model, "with_tools", 0.95, seed=4)))
    out = tmp_path / "rep"
    assert _run(*dirs, "--out", out, "--resamples", "500", "--quiet") == 0
    s = json.loads((out / "summary.json").read_text())
    assert [p["pairing"] for p in s["paired"]] == ["same model", "same model"]
    assert all(p["n_a"] == 180 for p in s["paired"])
    assert len(s["series"]) == 4 and s["series"][0]["eval_dates"] == dates
    assert len(list(out.glob("*.png"))) == 7


def test_identical_runs_report_no_difference(tmp_path):
    ins = sy.instances(200)
    rows = sy.results(ins, "m", "unaided", 0.5, seed=9)
    a = sy.write_run(tmp_path / "a", rows)
    b = sy.write_run(tmp_path / "b", [{**r, "mode": "with_tools"} for r in rows])
    out = tmp_path / "o"
    assert _run(a, b, "--out", out, "--no-figures", "--quiet") == 0
    (p,) = json.loads((out / "summary.json").read_text())["paired"]
    assert p["mean_difference"] == 0 and p["p_value"] == pytest.approx(1.0)
    assert p["pairing"] == "same model"


def test_seeded_report_is_reproducible(tmp_path):
    _, base, ref = _demo_runs(tmp_path, n=200)
    for name in ("o1", "o2"):
        assert _run(base, ref, "--out", tmp_path / name, "--no-figures", "--quiet",
                    "--seed", "11", "--resamples", "1000") == 0
    s1 = json.loads((tmp_path / "o1/summary.json").read_text())
    s2 = json.loads((tmp_path / "o2/summary.json").read_text())
    assert s1["significance"] == s2["significance"] and s1["paired"] == s2["paired"]


# ----------------------------------------------------------------------------------- bad input
def test_not_a_run_folder_exits_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert _run(tmp_path / "empty", "--out", tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert "not a run folder" in err and "results.jsonl" in err
    assert not (tmp_path / "o" / "report.md").exists()


def test_missing_folder_and_empty_results_exit_2(tmp_path, capsys):
    assert _run(tmp_path / "nope", "--out", tmp_path / "o") == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "results.jsonl").write_text("")
    assert _run(tmp_path / "e", "--out", tmp_path / "o") == 2
    assert "empty" in capsys.readouterr().err


def test_garbage_results_exit_2(tmp_path, capsys):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "results.jsonl").write_text("this is not json\n[1, 2]\n")
    assert _run(tmp_path / "g", "--out", tmp_path / "o") == 2
    assert "no usable result line" in capsys.readouterr().err


def test_mixed_good_and_bad_reports_valid_part_and_exits_2(tmp_path):
    _, base, ref = _demo_runs(tmp_path, n=100)
    (tmp_path / "junk").mkdir()
    out = tmp_path / "o"
    assert _run(base, tmp_path / "junk", ref, "--out", out, "--no-figures", "--quiet") == 2
    md = (out / "report.md").read_text()
    assert "**unusable:**" in md and "junk" in md
    s = json.loads((out / "summary.json").read_text())
    assert len(s["series"]) == 2 and s["unusable_inputs"]


def test_truncated_last_line_is_ignored_with_a_warning(tmp_path, capsys):
    ins = sy.instances(50)
    rows = sy.results(ins, "m", "unaided", 0.5, seed=1)
    run = sy.write_run(tmp_path / "t", rows, truncate_last=True)
    out = tmp_path / "o"
    assert _run(run, "--out", out, "--no-figures") == 0
    err = capsys.readouterr().err
    assert "truncated" in err
    s = json.loads((out / "summary.json").read_text())
    assert s["series"][0]["overall"]["n"] == 49
    assert "truncated" in (out / "report.md").read_text()


def test_malformed_middle_line_skipped(tmp_path, capsys):
    ins = sy.instances(10)
    rows = sy.results(ins, "m", "unaided", 0.5)
    run = sy.write_run(tmp_path / "t", rows)
    lines = (run / "results.jsonl").read_text().splitlines()
    lines[3] = lines[3][:20]
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert _run(run, "--out", tmp_path / "o", "--no-figures", "--quiet") == 0
    assert "malformed line(s) skipped (line 4)" in capsys.readouterr().err


def test_different_instance_sets_warn_and_pair_on_intersection(tmp_path, capsys):
    ins = sy.instances(100)
    a = sy.write_run(tmp_path / "a", sy.results(ins[:80], "m", "unaided", 0.4))
    b = sy.write_run(tmp_path / "b", sy.results(ins[30:], "m", "with_tools", 0.9))
    out = tmp_path / "o"
    assert _run(a, b, "--out", out, "--no-figures", "--quiet") == 0
    err = capsys.readouterr().err
    assert "different instance sets" in err and "50 in common" in err
    (p,) = json.loads((out / "summary.json").read_text())["paired"]
    assert p["n_common"] == 50 and p["n_only_a"] == 20 and p["n_only_b"] == 30


def test_run_folder_without_run_json_uses_line_fields(tmp_path, capsys):
    ins = sy.instances(20)
    run = sy.write_run(tmp_path / "r", sy.results(ins, "x/model", "with_tools", 0.7))
    (run / "run.json").unlink()
    (run / "summary.json").unlink()
    assert _run(run, "--out", tmp_path / "o", "--no-figures", "--quiet") == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert s["series"][0]["model"] == "x/model"


# --------------------------------------------------------------------------------------- tokens
def test_tiktoken_unavailable_is_fast_and_explained(monkeypatch, tmp_path):
    import tiktoken

    from span_toolkit.client import tokenizers

    # the case this is about: no cached file and none shipped to seed the cache with (normally the
    # encoding ships in a package and is copied into the cache first)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(tokenizers, "shipped_encoding_bytes", lambda name: None)

    def hang(name):
        time.sleep(5)

    monkeypatch.setattr(tiktoken, "get_encoding", hang)
    t = time.perf_counter()
    tok = tokens.load_tokenizer(timeout_s=0.2)
    assert time.perf_counter() - t < 2
    assert not tok.available and "did not finish" in tok.reason

    def fail(name):
        raise ConnectionError("Failed to resolve 'openaipublic.blob.core.windows.net'")

    monkeypatch.setattr(tiktoken, "get_encoding", fail)
    tok = tokens.load_tokenizer(timeout_s=2)
    assert not tok.available and "no network" in tok.reason
    assert "disabled" in tokens.load_tokenizer(enabled=False).reason


def test_tiktoken_counts_when_an_encoding_is_available():
    class FakeEnc:
        def encode_ordinary_batch(self, texts):
            return [t.split() for t in texts]

    recs = [{"final_answer": "a b c"}, {"final_answer": None}, {"final_answer": "x"}]
    tokens.attach_tiktoken_counts(recs, tokens.Tokenizer(FakeEnc(), ""))
    assert [r["_tiktoken"] for r in recs] == [3, None, 1]
    t = tokens.tiktoken_output_tokens(recs)
    assert t["n"] == 2 and t["mean"] == 2.0 and t["n_missing"] == 1


def test_wired_into_span_client_cli(tmp_path):
    cli = pytest.importorskip("span_toolkit.client.cli")
    _, base, ref = _demo_runs(tmp_path, n=60)
    rc = cli.main(["report", str(base), str(ref), "--out", str(tmp_path / "o"), "--no-figures",
                   "--quiet", "--no-tiktoken"])
    assert rc == 0 and (tmp_path / "o" / "report.md").exists()


# ----------------------------------------------------------------- McNemar, kappa, validity input
def test_paired_comparison_reports_exact_mcnemar_and_flags_few_discordant_pairs(tmp_path):
    ins = sy.instances(40)
    rows = sy.results(ins, "m", "unaided", 0.5, seed=9)
    tools = [{**r, "mode": "with_tools"} for r in rows]
    wrong = [i for i, r in enumerate(rows) if r["correct"] is False][:3]
    for i in wrong:                      # tools fix exactly 3 answers and break none
        tools[i] = {**tools[i], "correct": True}
    a, b = sy.write_run(tmp_path / "a", rows), sy.write_run(tmp_path / "b", tools)
    out = tmp_path / "o"
    assert _run(a, b, "--out", out, "--no-figures", "--quiet") == 0
    (p,) = json.loads((out / "summary.json").read_text())["paired"]
    assert p["n_discordant"] == 3 and p["few_discordant"] is True
    assert p["mcnemar_p"] == pytest.approx(0.25)          # exact, whatever the bootstrap says
    assert "McNemar" in p["note"]                          # all discordant pairs one way
    (row,) = _csv(out / "paired_arms.csv")
    assert float(row["mcnemar_p"]) == pytest.approx(0.25) and row["n_discordant"] == "3"
    md = (out / "report.md").read_text()
    assert "McNemar exact p-value" in md and "few discordant pairs: p-values unreliable" in md


def test_many_discordant_pairs_are_not_flagged(tmp_path):
    _, base, ref = _demo_runs(tmp_path, n=200)
    out = tmp_path / "o"
    assert _run(base, ref, "--out", out, "--no-figures", "--quiet", "--resamples", "500") == 0
    (p,) = json.loads((out / "summary.json").read_text())["paired"]
    assert p["n_discordant"] >= 20 and p["few_discordant"] is False and p["mcnemar_p"] < 0.001
    assert p["n_discordant"] == p["n_a_right_b_wrong"] + p["n_b_right_a_wrong"]
    assert "few discordant pairs" not in (out / "report.md").read_text()


def test_one_label_only_kappa_is_null_and_undefined_in_the_report(tmp_path):
    ins = sy.instances(30)
    rows = sy.results(ins, "m", "unaided", 1.0, seed=1, llm_judge=True)
    for r in rows:
        r["correct"] = True
        r["verdicts"] = {"rules": {"verdict": "CORRECT", "extracted": None, "reason": ""},
                         "llm": {"verdict": "CORRECT", "raw": "{}", "attempts": 1}}
    run = sy.write_run(tmp_path / "r", rows)
    out = tmp_path / "o"
    assert _run(run, "--out", out, "--no-figures", "--quiet") == 0
    text = (out / "summary.json").read_text()
    assert "NaN" not in text
    (ag,) = json.loads(text)["agreement"]
    assert ag["raw_agreement"] == 1.0 and ag["cohen_kappa"] is None
    assert "undefined (one label only)" in (out / "report.md").read_text()
    (row,) = _csv(out / "judge_agreement.csv")
    assert row["cohen_kappa"] == ""


def test_validity_reads_the_answer_with_the_instance():
    pytest.importorskip("hijridate")
    from span_toolkit.client.report import validity
    from span_toolkit.client.report.loading import Series
    from span_toolkit.span import CalendarDate
    # Gold 2025-6-29 = 3 Muharram 1447 (tabular) = 4 Muharram 1447 (Umm al-Qura); the question's
    # reference date 2025-7-1 is 5 Muharram 1447, restated last in the reply. Without the instance
    # the restated date would be read as the answer.
    rec = {"id": "x", "target_calendar": "islamic", "question_format": "content",
           "source_calendar": "gregorian", "correct": False,
           "variables": {"reference_date": CalendarDate.create("gregorian", 2025, 7, 1).as_dict()},
           "gold": CalendarDate.create("gregorian", 2025, 6, 29).to("islamic").as_dict(),
           "final_answer": "It was 4 Muharram 1447 (Umm al-Qura). Today is 5 Muharram 1447."}
    v = validity.umm_al_qura_check([Series("m", "unaided", [rec], [])])
    assert v["available"] and v["total"]["n_matches_umm_al_qura"] == 1 and v["total"]["n_other"] == 0
