"""No import cycle inside ``dps_verify``.

The graph is read from the source with :mod:`ast`: an edge A -> B for every ``import``/``from …
import`` in module A that names module B of the package, whether at top level or inside a
function (a function-level import is still a dependency, merely a deferred one).  Imports under
``if TYPE_CHECKING:`` are skipped: they never run.  ``from pkg import name`` counts as an edge to
``pkg.name`` when that is a module, else to ``pkg``.  A package's ``__init__`` importing its own
submodules is how packages re-export, so edges from a package to its own descendants are not
cycles of design; they are skipped.
"""

from __future__ import annotations

import ast
import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "dps_verify"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    out: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]

    def resolve(name: str) -> str | None:
        while name and name not in known:  # dps_verify.core.numbers.Certified -> ...numbers
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (m := resolve(alias.name)) is not None:
                    out.add(m)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if (m := resolve(f"{source}.{alias.name}")) is not None:
                    out.add(m)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _STATEMENT_HOLDERS):
                visit(child)

    visit(tree)
    out.discard(module)
    return out


#: The nodes an import can be, or be inside: imports are statements, found in the bodies of
#: statements, exception handlers and match cases, never inside an expression (a lambda's or a
#: comprehension's body is an expression), so the walks here descend into these only.
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's automatic garbage collection paused while syntax trees are built: they hold no
    reference cycles, and each automatic full collection walked every tree built so far
    (parsing the package: 0.4-0.5 s of CPU paused against 1.0-1.25 s, alternated in one
    process).  The previous state is restored.

    And the trees are frozen (``gc.freeze()``, after one collection of what came before them):
    :func:`parsed` keeps them for the session, where the collection after each test module
    (the repository-root conftest) walked the ~360,000 nodes of the package's trees once more
    (0.4-0.45 s of CPU) before freezing them itself.  Not where that conftest's freezing is
    switched off (``DPS_TEST_NO_GC_FREEZE=1``)."""
    was_enabled = gc.isenabled()
    freeze = was_enabled and not os.environ.get("DPS_TEST_NO_GC_FREEZE")
    if freeze:
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


@cache
def parsed(path: Path) -> ast.AST:
    """The syntax tree of one source file, parsed once per test session (read-only: callers
    walk it, never change it); shared with :mod:`tests.test_layers`."""
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def _graph_once() -> tuple[tuple[str, frozenset[str]], ...]:
    mods = _modules()
    known = set(mods)
    graph = []
    with collector_paused():
        trees = {name: parsed(path) for name, path in mods.items()}
    for name, path in mods.items():
        edges = _imports(trees[name], name, path.name == "__init__.py", known)
        graph.append((name, frozenset(m for m in edges if not m.startswith(name + "."))))
    return tuple(graph)


def import_graph() -> dict[str, set[str]]:
    """module -> modules of the package it imports (skipping a package's own descendants).
    Built once per session; each call returns a fresh copy (the negative controls plant edges
    in it)."""
    return {name: set(edges) for name, edges in _graph_once()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each as a cycle path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    sccs: list[list[str]] = []
    counter = 0

    def strongconnect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return [_cycle_path(graph, comp) for comp in sccs]


def _cycle_path(graph: dict[str, set[str]], comp: list[str]) -> list[str]:
    """One concrete cycle a -> b -> … -> a inside a strongly connected component."""
    members = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:  # BFS back to start
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [start, *reversed(path[:-1]), start] if v != start else [start, start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp  # pragma: no cover - a component always has a cycle


def test_no_import_cycle_in_dps_verify():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_graph_sees_function_level_imports():
    graph = import_graph()
    # cli/__init__ imports dps_verify.core.errors at top level
    assert "dps_verify.core.errors" in graph["dps_verify.cli"]
    assert len(graph) > 40


def test_cycle_finder_names_a_planted_cycle():
    """Negative control: the same machinery reports a cycle when there is one."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    tree = ast.parse("def f():\n    from dps_verify.core import numbers\n")
    assert _imports(tree, "dps_verify.x", False, {"dps_verify.core", "dps_verify.core.numbers"}) == {
        "dps_verify.core.numbers"}


@pytest.mark.parametrize("src, expected", [
    ("from . import numbers", {"dps_verify.core.numbers"}),
    ("from .numbers import Certified", {"dps_verify.core.numbers"}),
    ("from ..engine import distribution", {"dps_verify.engine.distribution"}),
    ("if TYPE_CHECKING:\n    from dps_verify.engine import distribution", set()),
])
def test_relative_and_type_checking_imports(src, expected):
    known = {"dps_verify.core", "dps_verify.core.numbers", "dps_verify.engine",
             "dps_verify.engine.distribution"}
    assert _imports(ast.parse(src), "dps_verify.core.params", False, known) == expected
