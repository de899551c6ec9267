"""server.json (the MCP registry entry) describes this package: its name and version, the PyPI package
`span-toolkit` started over stdio, within the registry schema's limits (schemas/2025-12-11 server.schema.json:
name pattern and length, description length, exact versions, the Package object's closed set of fields)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_JSON = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGE_FIELDS = {"registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint",
                  "transport", "runtimeArguments", "packageArguments", "environmentVariables"}
RANGE = re.compile(r"[\^~<>=*|]|\.x\b|^latest$")


def test_names_the_pypi_package_and_its_stdio_command():
    version = PYPROJECT["project"]["version"]
    assert SERVER_JSON["version"] == version
    [pkg] = SERVER_JSON["packages"]
    assert pkg["registryType"] == "pypi" and pkg["registryBaseUrl"] == "https://pypi.org"
    assert pkg["identifier"] == PYPROJECT["project"]["name"] == "span-toolkit"
    assert pkg["version"] == version
    assert pkg["transport"] == {"type": "stdio"}
    # `uvx span-toolkit` (the runtime hint) runs the console script of the package's own name: the server
    assert pkg["runtimeHint"] == "uvx"
    assert PYPROJECT["project"]["scripts"]["span-toolkit"] == PYPROJECT["project"]["scripts"]["span-server"]


def test_the_installed_version_is_the_one_described():
    from span_toolkit.client import __version__

    assert __version__ in (SERVER_JSON["version"], "0+unknown")


def test_fits_the_registry_schema():
    assert SERVER_JSON["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    name = SERVER_JSON["name"]
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", name) and 3 <= len(name) <= 200
    assert 1 <= len(SERVER_JSON["description"]) <= 100
    for v in (SERVER_JSON["version"], SERVER_JSON["packages"][0]["version"]):
        assert v and not RANGE.search(v), v
    for pkg in SERVER_JSON["packages"]:
        assert set(pkg) <= PACKAGE_FIELDS and {"registryType", "identifier", "version", "transport"} <= set(pkg)


def test_the_readme_carries_the_registry_ownership_marker():
    """The registry checks a PyPI package's description (our README) for `mcp-name: NAME`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {SERVER_JSON['name']}" in readme
    assert PYPROJECT["project"]["readme"] == "README.md"


def test_server_json_is_the_derived_form():
    """server.json is generated (python -m span_toolkit.server.manifest --write): its version from
    pyproject.toml, the calendars it names from the registry (the first ones, by title, as fit: no count,
    so adding a calendar at the registry's end changes nothing here)."""
    from span_toolkit.server import manifest
    from span_toolkit.span import CALENDAR_NAMES, get_calendar

    assert (ROOT / "server.json").read_text(encoding="utf-8") == manifest.derived_text(ROOT), \
        "server.json is stale: run python -m span_toolkit.server.manifest --write"
    assert SERVER_JSON["description"].startswith("Exact dates, festivals and date arithmetic: Gregorian, ")
    assert all(get_calendar(n).title in SERVER_JSON["description"] for n in CALENDAR_NAMES[:4])


def test_the_manifest_check_catches_a_hand_edit(tmp_path, capsys):
    from span_toolkit.server import manifest

    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert manifest.main(["--root", str(tmp_path), "--write"]) == 0
    assert manifest.main(["--root", str(tmp_path), "--check"]) == 0
    edited = json.loads((tmp_path / "server.json").read_text(encoding="utf-8"))
    edited["description"] = edited["description"].replace("calendars", "calendars and more")
    (tmp_path / "server.json").write_text(json.dumps(edited, indent=2), encoding="utf-8")
    capsys.readouterr()
    assert manifest.main(["--root", str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--write" in err
    assert manifest.main(["--root", str(tmp_path / "nowhere")]) == 2


def test_the_description_fits_with_any_registry(monkeypatch):
    from span_toolkit.server import manifest

    for names in ((), ("gregorian",), ("gregorian", "hebrew") * 40):
        monkeypatch.setattr(manifest, "ALL_CALENDAR_NAMES", names)
        text = manifest.description()
        assert 1 <= len(text) <= manifest.MAX_DESCRIPTION, text
    assert manifest.description().endswith(", …")
