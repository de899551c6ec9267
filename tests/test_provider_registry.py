"""The provider seam (issue 34): one registry of provider kinds, a model reference parsed once, the scale checks
written once; no module outside the registry branches on a provider's kind; the scripted agents out of
providers/; and the newcomer fixes (--api-key none, export into a new folder, one polar warning in the demo)."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import pytest

from span_toolkit.client.models import check_mode, make_model, parse_model
from span_toolkit.client.providers import ModelSpecError, make_provider
from span_toolkit.client.providers.registry import (KIND_NAMES, KINDS, ModelRef, is_placeholder_key, provider_ref,
                                                    ref_of)

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "client" / "providers" / "registry.py"
SCANNED = ("client", "span_toolkit")


# ------------------------------------------------------------------------------------------ the scan
def _kind_constant(node: ast.AST) -> str | None:
    """A string constant naming a provider kind (or its vendor: "openai-compatible" -> also "openai")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        v = node.value.strip().lower()
        if v in KIND_NAMES or v in {"openai", "anthropic"}:
            return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for elt in node.elts:
            found = _kind_constant(elt)
            if found:
                return found
    return None


def kind_branches(source: str) -> list[tuple[int, str]]:
    """(line, what) for every branch on a provider kind's name: ``x == "anthropic"``, ``k in ("openai", …)``,
    ``s.startswith("anthropic")``, ``case "openai":``, ``TABLE["openai"]`` / ``.get("openai")`` lookups."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                c = _kind_constant(side)
                if c:
                    found.append((node.lineno, f"compares with {c!r}"))
                    break
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith", "get", "pop") and node.args:
            c = _kind_constant(node.args[0])
            if c:
                found.append((node.lineno, f".{node.func.attr}({c!r})"))
        elif isinstance(node, ast.Subscript):
            c = _kind_constant(node.slice)
            if c:
                found.append((node.lineno, f"looks up [{c!r}]"))
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            c = _kind_constant(node.pattern.value)
            if c:
                found.append((node.pattern.lineno, f"case {c!r}"))
    return found


def model_splits(source: str) -> list[tuple[int, str]]:
    """(line, code) for every ``split("/")`` / ``partition("/")`` of something named like a model reference."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("split", "rsplit", "partition", "rpartition") and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "/":
            target = ast.unparse(node.func.value).lower()
            if any(w in target for w in ("model", "label", "spec", "ref", "kind")):
                found.append((node.lineno, ast.unparse(node)))
    return found


def _sources():
    for pkg in SCANNED:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if path != REGISTRY:
                yield path, path.read_text(encoding="utf-8")


def test_no_module_outside_the_registry_branches_on_a_provider_kind():
    offenders = [f"{p.relative_to(ROOT)}:{line}: {what}"
                 for p, text in _sources() for line, what in kind_branches(text)]
    assert not offenders, "branch on the provider kind outside client/providers/registry.py:\n" + "\n".join(offenders)


# the report's charts label an axis with a model's name without its kind: display text, not a parse
SPLIT_ALLOWED = {"client/report/figures.py"}


def test_the_model_reference_is_not_split_outside_the_registry():
    offenders = [f"{p.relative_to(ROOT)}:{line}: {code}" for p, text in _sources() for line, code in model_splits(text)
                 if str(p.relative_to(ROOT)) not in SPLIT_ALLOWED]
    assert not offenders, "a model reference split by hand (use client.models.parse_model):\n" + "\n".join(offenders)


def test_the_scans_find_what_they_look_for():
    bad = '''
kind = label.split("/", 1)[0]
if kind == "anthropic":
    pass
elif kind in ("openai", "openai-compatible"):
    pass
x = TABLE["openai"] if model.startswith("anthropic") else None
y = BATCH.get("anthropic", 1.0)
match kind:
    case "openai":
        pass
'''
    lines = sorted({line for line, _ in kind_branches(bad)})
    assert lines == [3, 5, 7, 8, 10]
    assert [line for line, _ in model_splits(bad)] == [2]
    good = 'name = "anthropic"\nlabel = f"openai/{m}"\nparts = path.split("/")\nk = KINDS[name]\n'
    assert kind_branches(good) == [] and model_splits(good) == []


def test_the_registry_itself_is_what_the_scan_would_flag():
    """The scan is not blind to the registry's own kind data (it holds the only kind names, as data)."""
    text = REGISTRY.read_text(encoding="utf-8")
    assert all(f'"{k}"' in text for k in KIND_NAMES)


def test_providers_make_no_upward_import():
    """client/providers imports nothing of the client outside itself (the scripted agents moved to client.agents)."""
    for path in (ROOT / "client" / "providers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1, f"{path.name}: from {'.' * node.level}{node.module} import …"
                assert not (node.module or "").startswith("span_toolkit.client"), path.name
    assert not (ROOT / "client" / "providers" / "scripted.py").exists()


# ------------------------------------------------------------------------------------------ the reference
def test_a_model_reference_is_parsed_once_into_a_typed_value():
    ref = parse_model("openai-compatible/Qwen/Qwen2.5-7B-Instruct")
    assert ref.kind is KINDS["openai-compatible"] and ref.model == "Qwen/Qwen2.5-7B-Instruct" and ref.is_llm
    assert ref.label == "openai-compatible/Qwen/Qwen2.5-7B-Instruct" == str(ref)
    assert parse_model(ref) is ref
    agent = parse_model("reference")
    assert agent == ModelRef(None, "reference") and not agent.is_llm and agent.label == "reference"
    for bad in ("gpt-4o", "google/gemini", "openai/", "/gpt", "", "Reference"):
        with pytest.raises(ModelSpecError, match="PROVIDER/MODEL"):
            parse_model(bad)
    assert provider_ref("baseline") is None


def test_the_spec_carries_its_parsed_reference(tmp_path):
    from span_toolkit.client.spec import RunSpec

    spec = RunSpec(model="anthropic/claude-haiku-4-5", out_dir=tmp_path, dates=("2025-07-01",))
    assert spec.ref is spec.ref and spec.ref.kind is KINDS["anthropic"]
    assert "_ref" not in spec.recorded() and "ref" not in spec.recorded()  # run.json's args do not change


def test_providers_are_built_from_the_kind(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    p = make_provider("openai-compatible/qwen", base_url="http://127.0.0.1:9/v1")
    assert ref_of(p).kind is KINDS["openai-compatible"] and p.temperature == 0.0  # greedy, as the paper
    assert p.client.api_key == "not-needed"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    a = make_provider("anthropic/claude-x", temperature="none")
    assert a.temperature is None and ref_of(a) == ModelRef(KINDS["anthropic"], "claude-x")
    with pytest.raises(ModelSpecError, match="--judge-model must be an LLM"):
        make_provider("baseline", key_option="--judge-api-key")
    with pytest.raises(ModelSpecError, match="temperature must be"):
        make_provider("anthropic/claude-x", temperature="hot")
    assert make_model("baseline").label == "baseline" and not make_model("baseline").is_llm


def test_the_config_a_cache_key_hashes_is_unchanged(monkeypatch):
    """The response cache keys a request by provider.config(); building providers through the registry must
    not change it (an existing cache stays valid)."""
    from span_toolkit.client.cache import key_of

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    p = make_provider("openai/gpt-4o")
    assert p.config() == {"label": "openai/gpt-4o", "is_llm": True, "api": "chat.completions", "temperature": 0.0,
                          "max_tokens": 2048, "base_url": None}
    assert key_of(p, "sys", [{"role": "user", "content": "q"}], None) == key_of(
        make_provider("openai/gpt-4o"), "sys", [{"role": "user", "content": "q"}], None)


def test_scripted_agents_answer_in_their_arm_only():
    check_mode(parse_model("reference"), "with_tools")
    check_mode(parse_model("openai/gpt-4o"), "time_agent")
    with pytest.raises(ModelSpecError, match="add --time-agent"):
        check_mode(parse_model("reference-code"), "unaided")


# ------------------------------------------------------------------------------------------ checks once
def _spec(tmp_path, model, **kw):
    from span_toolkit.client.spec import RunSpec

    return RunSpec(model=model, out_dir=tmp_path, dates=("2025-07-01",), **kw)


@pytest.mark.parametrize("model,kw,needle", [
    ("openai/gpt-4o", {"batch": True, "mode": "with_tools"}, "unaided arm only"),
    ("baseline", {"batch": True}, "offline scripted agent"),
    ("openai/gpt-4o", {"batch": True, "budget": 1.0}, "cannot bound a --batch run"),
    ("baseline", {"budget": 1.0}, "costs nothing"),
    ("openai-compatible/qwen", {"budget": 1.0}, "needs the model's price"),
    ("openai-compatible/qwen", {"price_in": 1.0}, "give both --price-in and --price-out"),
])
def test_the_scale_checks_are_one_function_for_the_cli_and_the_runner(tmp_path, model, kw, needle):
    """The same message from `eval`'s command line and from run_eval with a spec built in Python."""
    from span_toolkit.client.cli import main
    from span_toolkit.client.runner import run_eval
    from span_toolkit.client.scale import check_scale

    spec = _spec(tmp_path / "r", model, **kw)
    with pytest.raises(ModelSpecError, match=needle):
        check_scale(spec, spec.ref)
    with pytest.raises(ModelSpecError, match=needle):
        asyncio.run(run_eval(spec, provider=make_model("baseline") if not spec.ref.is_llm else _NoCall(spec.ref)))
    assert not (tmp_path / "r").exists()  # refused before anything is written


class _NoCall:
    """Stands for an LLM provider in a run refused before its first request."""

    is_llm = True

    def __init__(self, ref):
        self.ref, self.label = ref, ref.label

    async def aclose(self):
        pass


def test_prices_come_through_the_kind():
    from span_toolkit.client.pricing import resolve_price

    assert resolve_price(parse_model("openai/gpt-4o")) == resolve_price("openai/gpt-4o")
    assert resolve_price("openai/gpt-4o").batch_discount == KINDS["openai"].batch_discount == 0.5
    assert resolve_price("openai-compatible/gpt-4o") is None  # a server you run: no published price
    assert resolve_price("openai-compatible/q", 1, 2).batch_discount == 1.0
    assert resolve_price("anthropic/claude-3.5-sonnet-latest").input_per_mtok == 3.0


def test_batch_backends_come_through_the_kind(monkeypatch):
    from span_toolkit.client.batch import AnthropicBatches, OpenAIBatches, backend_for

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert isinstance(backend_for(make_provider("openai/gpt-4o")), OpenAIBatches)
    assert isinstance(backend_for(make_provider("openai-compatible/q", base_url="http://127.0.0.1:9/v1")),
                      OpenAIBatches)
    assert isinstance(backend_for(make_provider("anthropic/claude-x")), AnthropicBatches)
    with pytest.raises(ValueError, match="no Batch API"):
        backend_for(make_model("baseline"))


# ------------------------------------------------------------------------------------------ newcomers
@pytest.mark.parametrize("value,secret", [("none", False), ("None", False), ("EMPTY", False),
                                          ("sk-no-key-required", False), ("sk-live-123", True)])
def test_api_key_none_is_no_secret(value, secret, capsys):
    import argparse

    from span_toolkit.client.commands.common import warn_secret_flags

    assert is_placeholder_key(value) is not secret
    warn_secret_flags(argparse.Namespace(api_key=value, judge_api_key=None, server_token=None))
    assert ("puts the secret on the command line" in capsys.readouterr().err) is secret
    warn_secret_flags(argparse.Namespace(api_key=None, judge_api_key=None, server_token="none"))
    assert "--server-token" in capsys.readouterr().err  # a token is a token, whatever it reads


def test_the_demo_prints_a_repeated_warning_once(tmp_path, capsys):
    from span_toolkit.client.cli import main

    assert main(["demo", "--out", str(tmp_path / "d"), "--sample", "40", "--no-figures", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("polar answers are") == 1, err
    assert "also applies to 5 more" in err
    summaries = [json.loads((tmp_path / "d" / n / "summary.json").read_text())
                 for n in ("baseline-unaided", "reference-with_tools", "reference-code-time_agent")]
    assert all(any("polar answers are" in w for w in s["warnings"]) for s in summaries)  # each run keeps its own
