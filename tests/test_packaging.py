"""The built wheel, not the editable checkout: build it, install it with the [inspect] extra into a fresh
venv, and from a folder outside the repository run the demo, a tool call, the MCP server's registry command
and the inspect task in its three modes (with the network cut when `unshare -n` works), so a file left out
of the wheel, a missing entry point or a dependency only the checkout has cannot hide behind `pip install -e`.

Slow (about 3-4 minutes: most of it installing inspect-ai's dependencies into the venv); CI runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
                              "runs", "span-demo", "node_modules", ".ci")
ARMS = [("baseline", "unaided"), ("reference", "tools"), ("reference-code", "time_agent")]

pytestmark = pytest.mark.slow


def _run(cmd, *, cwd, env, timeout=600, check=True):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-3000:]}")
    return proc


def _offline_prefix() -> list[str]:
    ok = shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    return ["unshare", "-n"] if ok else []


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)  # build from a copy: the checkout is never written to
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(base / "dist"), str(src)], cwd=base, env=env)
    [wheel] = (base / "dist").glob("span_toolkit-*.whl")
    venv.create(base / "venv", with_pip=True)
    bindir = base / "venv" / "bin"
    _run([str(bindir / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[inspect]"], cwd=base, env=env,
         timeout=1200)
    env = {**env, "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}", "VIRTUAL_ENV": str(base / "venv"),
           "TIKTOKEN_CACHE_DIR": str(base / "no-tiktoken-cache")}
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return {"bin": bindir, "env": env, "cwd": elsewhere, "wheel": wheel}


def test_the_wheel_holds_every_package_and_the_entry_points(installed):
    import zipfile

    names = zipfile.ZipFile(installed["wheel"]).namelist()
    # one top-level import package: nothing of ours can shadow, or be shadowed by, a user's server.py or client/
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"span_toolkit"}
    folders = {str(p.parent.relative_to(ROOT)) for part in ("span", "server", "client", "prompts")
               for p in (ROOT / part).rglob("__init__.py")}
    for pkg in folders:  # every package of every folder, found rather than listed
        assert f"span_toolkit/{pkg}/__init__.py" in names, pkg
    assert "span_toolkit/__init__.py" in names
    assert any(n.startswith("span_toolkit/prompts/") and n.endswith(".md") for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    # development-only tools stay in the checkout (setup.py DEV_ONLY)
    assert "span_toolkit/span/calendars/sources.py" not in names
    assert "span_toolkit/span/calendars/korean_lunar_astro.py" not in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(installed["wheel"]).read(entry).decode()
    assert "[inspect_ai]\nspan_toolkit = span_toolkit._registry" in text


def test_demo_and_a_tool_call_from_another_folder(installed):
    b, env, cwd = installed["bin"], installed["env"], installed["cwd"]
    # the venv's own code, not the checkout's
    where = _run([str(b / "python"), "-c", "import span_toolkit.client as c, span_toolkit; print(c.__file__, span_toolkit.__file__)"],
                 cwd=cwd, env=env).stdout
    assert str(ROOT) not in where and "site-packages" in where
    demo = _run([str(b / "span-client"), "demo", "--out", "demo"], cwd=cwd, env=env)
    last = demo.stdout.strip().splitlines()[-1]
    assert "baseline (unaided, not an LLM) 50.00%" in last and last.count("100.00%") == 2, last
    call = _run([str(b / "span-client"), "tools", "call", "search_calendar", "--args",
                 '{"calendar":"hebrew","year":5785,"festival_name":"Passover"}'], cwd=cwd, env=env)
    assert "gregorian: 2025-4-13" in call.stdout
    # the registry command (server.json: uvx span-toolkit) is the MCP server
    assert "usage: span-server" in _run([str(b / "span-toolkit"), "--help"], cwd=cwd, env=env).stdout


@pytest.mark.parametrize("agent,mode", ARMS)
def test_inspect_eval_runs_each_mode_offline(installed, agent, mode):
    b, env, cwd = installed["bin"], installed["env"], installed["cwd"]
    logs = cwd / f"logs-{agent}"
    _run(_offline_prefix() + [str(b / "inspect"), "eval", "span_toolkit/span", "-T", "date=2025-07-01", "-T",
                              f"mode={mode}", "--model", f"span/{agent}", "--limit", "5", "--log-dir", str(logs),
                              "--display", "plain"], cwd=cwd, env=env)
    [log_file] = logs.glob("*.eval")
    read = _run([str(b / "python"), "-c", (
        "import json, sys; from inspect_ai.log import read_eval_log; log = read_eval_log(sys.argv[1]); "
        "print(json.dumps([log.status, [s.scores['span_judge'].value for s in log.samples]]))"), str(log_file)],
        cwd=cwd, env=env)
    status, values = json.loads(read.stdout.strip().splitlines()[-1])
    assert status == "success" and len(values) == 5 and all(v in ("C", "I", "N") for v in values), values
    if agent != "baseline":
        assert values == ["C"] * 5


@pytest.fixture(scope="module")
def base_install(installed, tmp_path_factory):
    """The lean install an MCP host makes: the wheel with no extra."""
    base = tmp_path_factory.mktemp("lean")
    venv.create(base / "venv", with_pip=True)
    bindir = base / "venv" / "bin"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run([str(bindir / "python"), "-m", "pip", "install", "--quiet", str(installed["wheel"])], cwd=base, env=env,
         timeout=1200)
    env = {**env, "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}", "VIRTUAL_ENV": str(base / "venv")}
    return {"bin": bindir, "env": env, "cwd": base}


def test_the_base_install_is_the_core_and_the_server(base_install):
    b, env, cwd = base_install["bin"], base_install["env"], base_install["cwd"]
    present = _run([str(b / "python"), "-c", (
        "import importlib.util, json; print(json.dumps({m: importlib.util.find_spec(m) is not None for m in "
        "('anthropic', 'openai', 'numpy', 'matplotlib', 'rich', 'tiktoken', 'mcp', 'convertdate')}))")],
        cwd=cwd, env=env).stdout
    assert json.loads(present) == {"anthropic": False, "openai": False, "numpy": False, "matplotlib": False,
                                   "rich": False, "tiktoken": False, "mcp": True, "convertdate": True}
    assert "usage: span-server" in _run([str(b / "span-server"), "--help"], cwd=cwd, env=env).stdout
    call = _run([str(b / "span-client"), "tools", "call", "search_calendar", "--args",
                 '{"calendar":"hebrew","year":5785,"festival_name":"Passover"}'], cwd=cwd, env=env)
    assert "gregorian: 2025-4-13" in call.stdout
    gen = _run([str(b / "span-client"), "generate", "--date", "2025-07-01", "--out", "i.jsonl"], cwd=cwd, env=env)
    assert (cwd / "i.jsonl").read_text().count("\n") == 1780, gen.stdout
    # what needs the [eval] extra says so in one line instead of a traceback
    ev = _run([str(b / "span-client"), "eval", "--instances", "i.jsonl", "--model", "openai/gpt-4o", "--out", "r"],
              cwd=cwd, env=env, check=False)
    assert ev.returncode == 2 and "span-toolkit[eval]" in ev.stderr and "Traceback" not in ev.stderr, ev.stderr
