"""The managers' package imports in one direction: views → services, never back, no circle.

The graph is read from the source with :mod:`ast` (nothing is imported): an edge for every
``import``/``from … import`` of a module of ``app.projects``, wherever it stands (lazy imports
inside functions count), plus an edge to each package whose ``__init__`` such an import runs
first (the package ``app.projects`` itself excepted: it only hands the app its Blueprint).
"""

from __future__ import annotations

import ast
from pathlib import Path

import app.projects

PACKAGE = "app.projects"
ROOT = Path(app.projects.__file__).parent
VIEWS = f"{PACKAGE}.views"


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module and package under ``root``, by dotted name."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join((package, *parts))] = path
    return names


def _targets(node: ast.AST, importer: str, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # relative: resolve against the importer's package
        anchor = importer.split(".")
        anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, base] if base else anchor)
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [name for name in names if name in known] or [base]


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """``{module: modules of the package it imports}`` for every module under ``root``."""
    modules = module_names(root, package)
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for importer, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in _targets(node, importer, is_package, known):
                if target not in known or target == importer:
                    continue
                graph[importer].add(target)
                own = {importer, *_ancestors(importer)}
                for parent in _ancestors(target):
                    if parent in known and parent != package and parent not in own:
                        graph[importer].add(parent)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as ``[a, b, …, a]``, or None if the graph is acyclic."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def is_view(name: str) -> bool:
    return name == VIEWS or name.startswith(f"{VIEWS}.")


def test_the_graph_sees_the_imports_it_should():
    graph = import_graph()
    assert f"{PACKAGE}.staffing" in graph[f"{VIEWS}.work"]  # from app.projects.staffing import …
    assert f"{PACKAGE}.blocking.pairing" in graph[f"{PACKAGE}.conflicts.queue"]
    # importing a submodule runs its package's __init__ first
    assert f"{PACKAGE}.staffing" in graph[f"{PACKAGE}.conflicts.queue"]
    # but a module's own package is not an edge (it is already being imported)
    assert f"{PACKAGE}.staffing" not in graph[f"{PACKAGE}.staffing.workers"]
    assert graph[PACKAGE] == {VIEWS}


def test_find_cycle_finds_a_circle_and_only_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle_in_the_managers_package():
    assert find_cycle(import_graph()) is None


def test_no_service_imports_a_view():
    graph = import_graph()
    offenders = {
        module: sorted(filter(is_view, targets))
        for module, targets in graph.items()
        if module != PACKAGE and not is_view(module) and any(map(is_view, targets))
    }
    assert offenders == {}


def test_every_sub_package_says_what_it_owns():
    for path in sorted(ROOT.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc and "\n" not in doc.strip(), f"{path.parent.name}: one-line docstring"
