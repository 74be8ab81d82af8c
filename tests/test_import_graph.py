"""The app's imports and folders keep a shape a newcomer can read.

The graph is read from the source with :mod:`ast` (nothing is imported): an edge for every
``import``/``from … import`` of a module of ``app``, wherever it stands (lazy imports inside
functions count, and so do imports for type checking only), plus an edge to each package whose
``__init__`` such an import runs first. The root package ``app`` is left out as a target: it is
the composition root (``create_app`` wires every blueprint), and the one module that imports
it, the jobs executor, does so to build an app in a pool process.

Rules: no import circle; no service imports a view (views are the modules of a ``views`` or
``routes`` package or module, and of the JSON API, ``app.api``), except that a package's
``__init__`` may import its own views to register them; no module imports another package's
private (``_name``) module; every package says what it owns in its docstring (below the
top-level rooms: one line, and ``__all__`` names its public API); no folder holds more than
:data:`MAX_MODULES` modules or :data:`MAX_LINES` lines of its own without sub-packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import app

PACKAGE = "app"
ROOT = Path(app.__file__).parent
VIEW_PACKAGES = ("app.api",)  # the JSON API's modules are routes over the same services
MAX_MODULES = 12  # modules of a folder besides its __init__
MAX_LINES = 1500  # lines of a folder's own modules, __init__ included


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
    submodules = [name for name in names if name in known]
    # a name that is not a submodule (``from app.api import bp``) comes from the package itself
    return submodules + ([base] if len(submodules) < len(names) else [])


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
                if target not in known or target in (importer, package):
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
    parts = name.split(".")
    in_api = any(name == p or name.startswith(f"{p}.") for p in VIEW_PACKAGES)
    return in_api or "views" in parts or "routes" in parts


def private_owner(name: str) -> str | None:
    """The package a private module belongs to (``a.b`` for ``a.b._c``), else None."""
    *package, last = name.split(".")
    return ".".join(package) if last.startswith("_") else None


def packages() -> dict[str, Path]:
    return {
        name: path
        for name, path in module_names(ROOT, PACKAGE).items()
        if path.name == "__init__.py"
    }


def test_the_graph_sees_the_imports_it_should():
    graph = import_graph()
    work = "app.projects.views.work"
    assert "app.projects.staffing" in graph[work]  # from app.projects.staffing import …
    assert "app.projects.blocking.pairing" in graph["app.projects.conflicts.queue"]
    # importing a submodule runs its package's __init__ first
    assert "app.projects.staffing" in graph["app.projects.conflicts.queue"]
    # but a module's own package is not an edge (it is already being imported)
    assert "app.projects.staffing" not in graph["app.projects.staffing.workers"]
    # a name from a package's __init__ is an edge to the package, beside its submodules
    assert {"app.auth", "app.auth.blueprint"} <= graph["app.auth.routes"] | {"app.auth"}
    assert "app.core.kapr.pair._walk" in graph["app.core.kapr.pair._search"]
    assert "app" not in graph["app.jobs.executor"]  # the composition root is left out


def test_find_cycle_finds_a_circle_and_only_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_helpers_name_views_and_private_modules():
    assert is_view("app.projects.views.work") and is_view("app.auth.routes")
    assert is_view("app.api.review") and not is_view("app.review.services")
    assert private_owner("app.core.kapr.pair._walk") == "app.core.kapr.pair"
    assert private_owner("app.core.kapr.anonymity") is None


def test_no_import_circle_anywhere_in_the_app():
    assert find_cycle(import_graph()) is None


def test_no_service_imports_a_view():
    def registers(module: str, view: str) -> bool:  # a package's __init__ and its own views
        return module in packages() and view.startswith(f"{module}.")

    offenders = {
        module: sorted(t for t in targets if is_view(t) and not registers(module, t))
        for module, targets in import_graph().items()
        if not is_view(module)
    }
    assert {m: v for m, v in offenders.items() if v} == {}


def test_no_module_imports_another_packages_private_module():
    offenders = {
        module: sorted(
            t for t in targets if (owner := private_owner(t)) and not module.startswith(f"{owner}.")
        )
        for module, targets in import_graph().items()
    }
    assert {m: v for m, v in offenders.items() if v} == {}


def test_every_package_says_what_it_owns():
    for name, path in packages().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree)
        assert doc, f"{name}: a docstring saying what the package owns"
        if name.count(".") >= 2:  # below the top-level rooms: one line, and its public names
            assert "\n" not in doc.strip(), f"{name}: one-line docstring"
            names = [
                target.id
                for node in tree.body
                if isinstance(node, ast.Assign)
                for target in node.targets
                if isinstance(target, ast.Name)
            ]
            assert "__all__" in names, f"{name}: __all__ names what the rest of the app may use"


def _folders() -> dict[str, tuple[int, int]]:
    """``{folder: (modules besides __init__, lines of its own modules)}`` under ``app/``."""
    out = {}
    for folder in sorted({p.parent for p in ROOT.rglob("*.py")}):
        files = sorted(folder.glob("*.py"))
        lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
        modules = sum(f.name != "__init__.py" for f in files)
        out[folder.relative_to(ROOT.parent).as_posix()] = (modules, lines)
    return out


def test_no_folder_is_too_large_without_sub_packages():
    too_large = {
        folder: size
        for folder, size in _folders().items()
        if (size[0] > MAX_MODULES or size[1] > MAX_LINES)
    }
    assert too_large == {}
