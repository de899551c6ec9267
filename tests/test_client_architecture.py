"""The project's shape: no import cycles (lazy imports inside functions and a package's imports of its own
submodules count), dependencies one way, small modules (or a stated reason), calendar facts only from span/.

The layers: span_toolkit (the inspect_ai integration) -> client -> server -> span; client -> span. Modules are
named as installed: the folder client/ is the package span_toolkit.client (setup.py maps the folders)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("span_toolkit", "client", "server", "span", "prompts")
SPAN, SERVER, CLIENT = "span_toolkit.span", "span_toolkit.server", "span_toolkit.client"
PROMPTS = "span_toolkit.prompts"  # data: the prompt texts, read by the client


def _installed(package: str) -> str:
    return package if package == "span_toolkit" else f"span_toolkit.{package}"
MAX_LINES = 500  # issue 25: a module over ~500 lines says why at its top


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for p in (ROOT / package).rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([_installed(parts[0]), *parts[1:]])] = p
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every module of ours that ``name`` imports, at any depth of its code (lazy imports count too).

    ``from pkg import sub`` is an edge to the submodule ``sub`` (importing a submodule works while its
    package is still initialising); ``from pkg import name`` is an edge to ``pkg``, whose ``__init__``
    must have run to hold ``name``."""
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                mod = ".".join(anchor + ([mod] if mod else []))
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:` (imports for annotations only never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _graph() -> dict[str, set[str]]:
    mods: dict[str, Path] = {}
    for pkg in PACKAGES:
        mods.update(_modules(pkg))
    known = set(mods)
    return {m: _imports(m, p, known) for m, p in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_cycles():
    graph = _graph()
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_check_can_fail():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_graph_sees_lazy_imports_and_package_edges(tmp_path):
    """A cycle held apart only by an import inside a function, or through a package's __init__, is found."""
    pkg = tmp_path / "p"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import g\n    return g()\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import g\n")
    (pkg / "sub" / "b.py").write_text("from p import f\n\ndef g():\n    return f\n")
    mods = {"p": pkg / "__init__.py", "p.a": pkg / "a.py", "p.sub": pkg / "sub" / "__init__.py",
            "p.sub.b": pkg / "sub" / "b.py"}
    graph = {m: _imports(m, path, set(mods)) for m, path in mods.items()}
    assert graph["p.a"] == {"p.sub"} and graph["p.sub.b"] == {"p"}
    assert _cycle(graph) is not None


def test_dependencies_point_one_way():
    graph = _graph()
    def layer(m: str) -> str:
        for part in (SPAN, SERVER, CLIENT, PROMPTS):
            if m == part or m.startswith(part + "."):
                return part
        return "span_toolkit"  # the inspect_ai integration: the package's own modules

    assert {layer(m) for m in graph} == {SPAN, SERVER, CLIENT, PROMPTS, "span_toolkit"}  # every layer
    allowed = {SPAN: {SPAN}, PROMPTS: {PROMPTS}, SERVER: {SERVER, SPAN}, CLIENT: {CLIENT, SERVER, SPAN, PROMPTS},
               "span_toolkit": {"span_toolkit", CLIENT, SERVER, SPAN, PROMPTS}}
    for mod, deps in graph.items():
        wrong = {d for d in deps if layer(d) not in allowed[layer(mod)]}
        assert not wrong, f"{mod} imports {wrong}"


def test_the_core_imports_itself_relatively():
    """The Time Agent's sandbox imports the core alone, by its folder name (``import span``): inside span/
    nothing may name span_toolkit."""
    for name, path in _modules("span").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                assert not (node.module or "").startswith("span_toolkit"), f"{name}: from {node.module} import"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("span_toolkit") for a in node.names), name


def test_long_modules_say_why():
    for pkg in PACKAGES:
        for name, path in _modules(pkg).items():
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > MAX_LINES:
                doc = ast.get_docstring(ast.parse(text)) or ""
                assert re.search(r"^Why (this module is|it is) long:", doc, re.M), \
                    f"{name} has {text.count(chr(10))} lines and no 'Why this module is long:' in its docstring"


def test_calendar_order_and_rules_come_from_span():
    """The client states no calendar facts of its own: no hand-written calendar list, no leap rule."""
    six = re.compile(r"gregorian.{0,40}chinese_lunar.{0,40}islamic.{0,40}hebrew.{0,40}shaka", re.S)
    for name, path in _modules("client").items():
        text = path.read_text(encoding="utf-8")
        assert not six.search(text), f"{name} lists the calendars itself; use span.CALENDAR_NAMES"
        assert not re.search(r"\(\s*7\s*\*\s*\w+\s*\+\s*1\s*\)\s*%\s*19", text), f"{name} computes the Hebrew leap rule"


def test_no_two_client_modules_share_a_name():
    """A file name says what a module holds: two of them (runner.py, timeagent.py) once meant two things."""
    from collections import Counter

    names = Counter(p.name for p in (ROOT / "client").rglob("*.py") if p.name not in ("__init__.py", "base.py"))
    assert not [n for n, k in names.items() if k > 1]


def test_no_machine_paths_in_code():
    for pkg in (*PACKAGES, "span_toolkit"):
        for p in (ROOT / pkg).rglob("*.py"):
            assert not re.search(r"/(work|root|home)/\w", p.read_text(encoding="utf-8")), p
