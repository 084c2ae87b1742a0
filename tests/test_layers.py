"""The direction of imports between the packages of ``dps_verify``, and the user facades.

The data path of the design card (parameters → mechanism → exact distribution → privacy measure →
verdict → report) is written down here as an order of packages, lowest first.  A module may
import from its own package and from any package on a lower floor, never from a higher one; two
packages on the same floor do not import each other.  Each exception is listed with its reason,
and an exception that is no longer used is reported too, so the list cannot go stale.

The user facades (``dps_verify.exact``, ``dps_verify.bounds``, ``dps_verify.errors`` and the
curated names of ``dps_verify`` itself) exist for user code only: package code imports the module
that defines a thing, so that every function has one name inside the package and each real edge
(for example verdict → worstcase.sdgs) shows in this graph.

The graph is the one of :mod:`tests.test_import_graph` (read from the source with :mod:`ast`,
function-level imports included, ``if TYPE_CHECKING:`` imports skipped).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.test_import_graph import (
    _STATEMENT_HOLDERS,
    PACKAGE,
    ROOT,
    _imports,
    _modules,
    import_graph,
    parsed,
)

#: Floors, lowest first.  Packages on one floor may not import each other.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("core", "data"),      # exact numbers, enclosures, parameters, errors, types; packaged data
    ("engine",),           # the anonymizer protocol and exact output distributions
    ("mechanisms",),       # the paper's mechanisms, built on the engine's protocol
    ("measures",),         # divergences (hockey-stick, pointwise δ, ε) and privacy-loss distributions
    ("worstcase",),        # exact worst case of sampled strongly-safe k-anonymization, closed forms
    ("inverse",),          # inverse questions (min_k, max_beta, min_epsilon) and composition
    ("verdict",),          # witnesses, the exact search, Monte Carlo
    ("distributed",),      # the Dask backend, running verdict work on workers
    ("audit",),            # the user-facing auditor (loading user code, search shapes)
    ("testing",),          # the pytest API (assert_dp runs the audit's exact search)
    ("plan",),             # choosing (β, k) for a target (ε, δ)
    ("paper",),            # everything specific to Li–Qardaji–Su: claims, kernel, figures
    ("report",),           # one report model rendered by templates
    ("cli",),              # one module per command
)

#: Modules directly under ``dps_verify/`` that are not packages of the data path.
ENTRY_POINTS = {"dps_verify.__main__"}  # ``python -m dps_verify`` runs the CLI
FACADES = {"dps_verify", "dps_verify.exact", "dps_verify.bounds", "dps_verify.errors"}

#: Names of ``dps_verify/__init__.py`` that it defines itself (not re-exports): importing them
#: is importing their defining module.
ROOT_OWN_NAMES = {"__version__"}

#: (importing module, imported module) -> why this upward or sideways edge is accepted.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("dps_verify.verdict.executor", "dps_verify.distributed.backend"):
        "the exact search's parallel chunks run as Dask tasks: the executor starts the Dask "
        "backend (one home for Dask) inside ProcessExecutor.map, only for large searches",
    ("dps_verify.measures.pld", "dps_verify.inverse.pld_discrete"):
        "pair_delta / pair_epsilon / pair_delta_enclosure take times= (T-fold composition); past "
        "the exact budget they hand over to the certified discretised composition, which lives "
        "with the other composition code in inverse/; imported inside the functions, so the "
        "one-release measures do not load it",
}


def floor_of(module: str) -> int | None:
    """Floor index of a package module, None for the root, the facades and the entry points."""
    parts = module.split(".")
    if len(parts) < 2 or module in FACADES or module in ENTRY_POINTS:
        return None
    for i, floor in enumerate(FLOORS):
        if parts[1] in floor:
            return i
    raise LookupError(
        f"{module}: its package {parts[1]!r} has no floor in tests/test_layers.py FLOORS; "
        "add it where its imports put it on the data path")


def layer_violations(graph: dict[str, set[str]],
                     exceptions: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Edges that go up or sideways between packages, minus the listed exceptions."""
    allowed = set(exceptions)
    out = []
    for src in sorted(graph):
        f_src = floor_of(src)
        if f_src is None:
            continue
        for dst in sorted(graph[src]):
            f_dst = floor_of(dst)
            if f_dst is None or (src, dst) in allowed:
                continue
            same_package = src.split(".")[1] == dst.split(".")[1]
            if not same_package and f_dst >= f_src:
                out.append(f"{src} -> {dst} ({'sideways' if f_dst == f_src else 'upwards'}: "
                           f"floor {f_src} imports floor {f_dst})")
    return out


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every statement of ``tree`` (and the handlers and match cases holding statements: every
    node an import can be, see ``_STATEMENT_HOLDERS``) except those in the body of an
    ``if TYPE_CHECKING:`` (imports there never run); such an ``if``'s ``else`` branch is kept.
    One pass."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) \
                == "TYPE_CHECKING":
            stack.extend(node.orelse)
        else:
            stack.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _STATEMENT_HOLDERS))


def facade_imports(module: str, tree: ast.AST, known: set[str]) -> list[str]:
    """Imports of a user facade in package code: ``dps_verify.exact``/``bounds``/``errors``, or a
    curated name of ``dps_verify`` (anything but ``__version__``)."""
    if module in FACADES or module in ENTRY_POINTS:
        return []
    out = []
    for edge in _imports(tree, module, False, known):
        if edge in FACADES - {"dps_verify"}:
            out.append(f"{module} imports the facade {edge}")
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == PACKAGE:
            for alias in node.names:
                if f"{PACKAGE}.{alias.name}" in known or alias.name in ROOT_OWN_NAMES:
                    continue
                out.append(f"{module} imports {alias.name!r} from the facade {PACKAGE}")
        elif isinstance(node, ast.Import):
            out.extend(f"{module} imports the facade {PACKAGE} (import the defining module)"
                       for alias in node.names if alias.name == PACKAGE)
    return out


def _package_trees() -> dict[str, ast.AST]:
    return {name: parsed(path) for name, path in _modules().items()}


def test_every_package_has_a_floor():
    for module in _modules():
        floor_of(module)  # raises LookupError naming the package


def test_imports_between_packages_follow_the_data_path():
    bad = layer_violations(import_graph(), EXCEPTIONS)
    assert not bad, "imports against the data path:\n" + "\n".join(bad)


def test_every_listed_exception_is_still_needed():
    graph = import_graph()
    stale = [f"{a} -> {b}" for a, b in EXCEPTIONS if b not in graph.get(a, set())]
    assert not stale, "exceptions no longer used (remove them from EXCEPTIONS): " + ", ".join(stale)


def test_package_code_never_imports_a_user_facade():
    known = set(_modules())
    bad = [msg for name, tree in _package_trees().items() for msg in facade_imports(name, tree, known)]
    assert not bad, "package code must import the defining module:\n" + "\n".join(bad)


# --------------------------------------------------------------------------- negative controls


def test_planted_upward_import_is_reported():
    graph = import_graph()
    graph["dps_verify.core.numbers"] = graph["dps_verify.core.numbers"] | {"dps_verify.cli.delta"}
    graph["dps_verify.audit.core"] = graph["dps_verify.audit.core"] | {"dps_verify.plan.arx"}
    bad = layer_violations(graph, EXCEPTIONS)
    assert any(v.startswith("dps_verify.core.numbers -> dps_verify.cli.delta (upwards") for v in bad)
    assert any(v.startswith("dps_verify.audit.core -> dps_verify.plan.arx (upwards") for v in bad)
    assert len(bad) == 2


def test_planted_sideways_import_and_unlisted_exception_are_reported():
    graph = {"dps_verify.core.a": {"dps_verify.data"},
             "dps_verify.measures.pld": {"dps_verify.inverse.pld_discrete"}}
    assert layer_violations(graph, EXCEPTIONS) == [
        "dps_verify.core.a -> dps_verify.data (sideways: floor 0 imports floor 0)"]
    assert layer_violations(graph, ()) == [
        "dps_verify.core.a -> dps_verify.data (sideways: floor 0 imports floor 0)",
        "dps_verify.measures.pld -> dps_verify.inverse.pld_discrete (upwards: floor 3 imports floor 5)",
    ]


def test_planted_facade_imports_are_reported():
    known = set(_modules())
    src = (
        "from dps_verify import exact\n"
        "from dps_verify import __version__, d\n"
        "import dps_verify.bounds\n"
        "import dps_verify\n"
        "def f():\n"
        "    from dps_verify.errors import ParameterError\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from dps_verify import delta\n"
        "from dps_verify import mechanisms\n"  # a package: its __init__ is its own module
    )
    bad = facade_imports("dps_verify.verdict.planted", ast.parse(src), known)
    assert sorted(bad) == sorted([
        "dps_verify.verdict.planted imports the facade dps_verify.exact",
        "dps_verify.verdict.planted imports the facade dps_verify.bounds",
        "dps_verify.verdict.planted imports the facade dps_verify.errors",
        "dps_verify.verdict.planted imports 'd' from the facade dps_verify",
        "dps_verify.verdict.planted imports the facade dps_verify (import the defining module)",
    ])


def test_unknown_package_is_reported():
    try:
        floor_of("dps_verify.newthing.x")
    except LookupError as e:
        assert "newthing" in str(e)
    else:  # pragma: no cover - the control must fail loudly
        raise AssertionError("a package without a floor was accepted")


def test_facades_still_resolve_for_users():
    """The facades stay importable and thin: every name they export is the defining object."""
    import importlib

    for facade in ("dps_verify.exact", "dps_verify.bounds"):
        mod = importlib.import_module(facade)
        for name in mod.__all__:
            obj = getattr(mod, name)
            home = getattr(obj, "__module__", None)
            assert home is None or home != facade, f"{facade}.{name} is defined in the facade"
    assert Path(ROOT / PACKAGE / "exact.py").read_text(encoding="utf-8").count("def ") == 0
    assert Path(ROOT / PACKAGE / "bounds.py").read_text(encoding="utf-8").count("def ") == 0
