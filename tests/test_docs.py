"""The README and the docs site: the README stays a five-minute read, the site builds strictly, and every
`span-client` / `span-server` command the docs show parses with the real command line (a renamed flag or
command in the code fails here, not in a reader's terminal)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_LIMIT = 20 * 1024


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_bytes()) <= README_LIMIT


def _shell_lines(text: str):
    """Commands in ```bash / ```sh / ```console blocks (and unlabelled ones), joined across backslashes;
    inline code is left out (it shows fragments: a flag, half a command)."""
    blocks, current, lang = [], None, ""
    for line in text.splitlines():
        fence = re.match(r"\s*```(\w*)", line)
        if fence and current is None:
            current, lang = [], fence.group(1)
        elif fence:
            if lang in ("", "bash", "sh", "shell", "console"):
                blocks.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    for block in blocks:
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            yield line.strip().removeprefix("$ ")


def _commands(program: str):
    for page in PAGES:
        for line in _shell_lines(page.read_text(encoding="utf-8")):
            for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", line):
                if not part.startswith(program + " "):
                    continue
                part = re.sub(r"\s+#.*$", "", part)  # a trailing comment
                if "…" in part or "..." in part.replace("..2", ""):  # an elided example, not a command
                    continue
                try:
                    argv = shlex.split(part)[1:]
                except ValueError:
                    continue
                if argv and not argv[0].startswith("["):  # a usage summary, not a command
                    yield page.name, argv


CLIENT_COMMANDS = sorted({(page, tuple(argv)) for page, argv in _commands("span-client")})


def test_the_docs_show_client_commands():
    assert len(CLIENT_COMMANDS) >= 10
    assert any(argv[:1] == ("demo",) for _, argv in CLIENT_COMMANDS)


@pytest.mark.parametrize("page,argv", CLIENT_COMMANDS, ids=[f"{p}:{' '.join(a)[:60]}" for p, a in CLIENT_COMMANDS])
def test_each_client_command_in_the_docs_parses(page, argv):
    from span_toolkit.client.cli import build_parser
    from span_toolkit.client.commands import COMMANDS

    if not argv or argv[0] in ("-h", "--help", "--version"):
        return
    assert argv[0] in COMMANDS, f"{page}: unknown command span-client {argv[0]}"
    if "--help" in argv or "-h" in argv:
        return
    parser = build_parser(argv[0])
    try:
        parser.parse_args(list(argv))
    except SystemExit as e:  # argparse's error path (one line on stderr, exit 2)
        raise AssertionError(f"{page}: span-client {' '.join(argv)} does not parse") from e


SERVER_COMMANDS = sorted({(page, tuple(argv)) for page, argv in _commands("span-server")})


@pytest.mark.parametrize("page,argv", SERVER_COMMANDS, ids=[f"{p}:{' '.join(a)[:60]}" for p, a in SERVER_COMMANDS])
def test_each_server_command_in_the_docs_parses(page, argv):
    from span_toolkit.server.__main__ import build_parser

    if "--help" in argv or "--version" in argv:
        return
    try:
        build_parser().parse_args(list(argv))
    except SystemExit as e:
        raise AssertionError(f"{page}: span-server {' '.join(argv)} does not parse") from e


@pytest.mark.skipif(shutil.which("mkdocs") is None and subprocess.run(
    [sys.executable, "-c", "import mkdocs"], capture_output=True).returncode != 0,
    reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_the_docs_site_builds_strictly(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
