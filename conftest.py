"""Shared by both test folders (tests/ and properties/): the ``deep`` marker, and the
``deep_profile`` fixture (a test's full-size case under the deep profile, a smaller one by default).

Tests marked ``deep`` (slow exhaustive cases) run only under the deep profile
(``HYPOTHESIS_PROFILE=deep`` or ``--dps-profile deep``); the default ``ci`` run skips them and
says how to run them.  It lives here, at the repository root, rather than in the dps_verify
pytest plugin, so that installing dps_verify never changes what a user's own ``deep`` marker means.

Also here: after each test module (its fixtures torn down) the garbage is collected and what
survives is frozen (``gc.freeze()``), so that later collections -- Python's own full ones and
the one after each module in tests/conftest.py -- walk only the objects made since, not the
session's imports, caches and proof results again (about 2.5 s of CPU less per 11 modules,
measured A/B; peak RSS unchanged).  A frozen object is still freed when its last reference goes;
only a reference cycle among frozen objects outlives the module.  The same at the end of
collection: while the ~2,000 modules of the session are imported, Python's automatic
collections are off (each full one walked every object imported so far: ~1 s of CPU in 8 of
them per session); one collection and a freeze follow the last import.
``DPS_TEST_NO_GC_FREEZE=1`` switches both off (to measure them).

And: the worker processes of the LocalClusters the tests start (the Dask backend's own, with
``processes=True``) are forked from one forkserver per session, started once with distributed
and its dependencies imported (distributed's ``multiprocessing-method`` setting; its own test
suite does the same), instead of each being a fresh interpreter that imports them again: about
1.3 s of CPU less per worker start-up, ~9 start-ups per default run.  The forkserver also
imports the two dps_verify modules whose functions the workers run as tasks
(:data:`FORKSERVER_PRELOAD`), so that no forked worker imports them again (~0.3 s of CPU less
per worker), and not pandas, which distributed preloads for its own suite and no worker of
ours imports (~0.6 s of CPU once per session).  The product keeps
distributed's default (``spawn``); tests/test_distributed_hang.py runs its worker-killing test
with that default.  Set ``DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD`` to choose another.

And: Hypothesis' own modules are imported as usual, not assert-rewritten.  pytest rewrites every
module of every installed distribution that provides a ``pytest11`` plugin, Hypothesis included,
so each session parsed, rewrote and compiled Hypothesis' ~60 modules from source instead of
loading their bytecode (~1.8 s of CPU per session that imports Hypothesis, measured A/B on one
property module's collection: 3.2 -> 1.4 s); their asserts are Hypothesis' internal ones, not
this project's tests.  The same for dps_verify's own modules (its distribution provides the
plugin): ~125 of them are imported while the default run collects, each was parsed and
rewritten before being compiled (collecting the default run: 7.76 -> 6.79 s of CPU, 3
alternated pairs); their few asserts are internal invariants, and every failure dps_verify
reports to a test (``assert_dp``, ``assert_dp_blackbox``) is an explicit ``AssertionError``
with its own message, which rewriting does not touch.  Conftests and dps_verify's pytest
plugin module (loaded by its entry point before this conftest) are still rewritten, test modules
as below (tests/test_session_setup.py checks both sides).

And: test modules are assert-rewritten only when named on the command line (``pytest
tests/test_x.py``, or ``tests/test_x.py::test_y``).  In a run of whole folders -- the default
run, CI -- rewriting the ~150 test modules' ~3,400 asserts cost ~10 s of CPU per session
(collecting the default run: 20.6 against 10.3 s, A/B; where no bytecode is written, as here,
no session reuses another's rewritten modules, and a fresh clone has none either).  A failing assert in such a run still fails the test
and shows its line; run its file to get pytest's detailed comparison, or set
``DPS_TEST_REWRITE_ALL=1`` to rewrite every test module.  Conftests and plugins stay rewritten.
"""

from __future__ import annotations

import gc
import os
from typing import Any

import pytest


class _DeepProfileOnly:
    """Tests marked ``deep`` (slow exhaustive cases) run only under the deep profile
    (``HYPOTHESIS_PROFILE=deep`` or ``--dps-profile deep``); the default ``ci`` run skips
    them, saying how to run them.  Registered as a plugin so that it covers tests/ and
    properties/ whichever conftest is loaded first."""

    def __init__(self, config: Any):
        from dps_verify.testing.profiles import profile_name

        name = config.getoption("--dps-profile", default=None) or os.environ.get("HYPOTHESIS_PROFILE", "dps-ci")
        self.deep = profile_name(name) == "dps-deep"

    def pytest_collection_modifyitems(self, config: Any, items: list) -> None:
        if self.deep:
            return
        import pytest

        skip = pytest.mark.skip(reason="slow case of the deep profile: runs with HYPOTHESIS_PROFILE=deep (or --dps-profile deep)")
        for item in items:
            if item.get_closest_marker("deep") is not None:
                item.add_marker(skip)


def register_deep_marker(config: Any) -> None:
    config.addinivalue_line("markers", "deep: slow exhaustive case, run only under the deep profile")
    if not config.pluginmanager.has_plugin("dps-deep-only"):
        config.pluginmanager.register(_DeepProfileOnly(config), "dps-deep-only")


class _FreezeSurvivorsBetweenModules:
    """Registered as a plugin, so that it covers tests/ and properties/ alike."""

    @pytest.hookimpl(trylast=True)  # after the runner has torn down the module's fixtures
    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> None:
        if nextitem is not None and nextitem.path == item.path:
            return
        gc.collect()
        gc.freeze()


class _CollectOnceAfterImports:
    """Ends the collection phase's pause of the garbage collector: one full collection, the
    survivors frozen, automatic collection back on (also when collection fails, and at the
    latest when the session ends, for a session that never collects)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: Any) -> Any:
        try:
            return (yield)
        finally:
            gc.collect()
            gc.freeze()
            gc.enable()

    def pytest_unconfigure(self, config: Any) -> None:
        gc.enable()


#: Installed packages whose modules pytest would assert-rewrite as part of a plugin's
#: distribution, imported normally instead (their asserts are not this project's tests).
NOT_REWRITTEN = ("hypothesis", "dps_verify")


def pytest_addoption(parser: Any, pluginmanager: Any) -> None:
    """Called as this conftest registers -- before tests/conftest.py and properties/conftest.py
    import Hypothesis, and before any test module is imported: unmark Hypothesis for assert
    rewriting, and rewrite test modules only when named on the command line (see the module
    docstring).  The marks and patterns are private to pytest's import hook; where they are
    absent this does nothing."""
    hook = getattr(pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)
    cache = getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(marked, set) and isinstance(cache, dict):
        marked.difference_update(NOT_REWRITTEN)
        cache.clear()
    # Test modules by name pattern no more (see the module docstring): the hook still rewrites
    # conftests, marked plugins and the files named on the command line.  A new list: the old
    # one is pytest's own ``python_files`` setting, which collection reads.
    if isinstance(getattr(hook, "fnpats", None), list) and not os.environ.get("DPS_TEST_REWRITE_ALL"):
        hook.fnpats = []
    # no automatic collection while the session imports its modules (see the module docstring)
    if not os.environ.get("DPS_TEST_NO_GC_FREEZE") and gc.isenabled():
        gc.disable()
        pluginmanager.register(_CollectOnceAfterImports(), "dps-gc-after-collection")


#: distributed's start method for the worker processes of the session's LocalClusters (see the
#: module docstring); an explicit setting in the environment wins
DASK_START_METHOD_ENV = "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD"


#: The modules of the functions dps_verify sends to Dask workers as tasks (the exact search's
#: screening chunks, the data audit's screening and confirmation runs), imported once in the
#: forkserver besides distributed's own preload (see the module docstring).  Limit: Python
#: 3.11's forkserver ignores the parent's ``sys.path`` and imports its preload with its own,
#: whose first entry is its working directory (the parent's when the first worker starts), and
#: a forked worker then uses that copy instead of importing the parent's.  So each is preloaded
#: only when that directory holds the very package the parent imported
#: (:func:`forkserver_imports_the_parents_copy`): else, e.g. after a ``chdir`` away from the
#: tree under test or in a mutated copy elsewhere, the workers import it themselves, as the
#: parent did (slower, never another file).
FORKSERVER_PRELOAD = ("dps_verify.verdict.exact_search", "dps_verify.audit.data")


#: What distributed's forkserver preload has that no worker of this suite uses.
FORKSERVER_NOT_PRELOADED = ("pandas",)


def forkserver_imports_the_parents_copy(module: str) -> bool:
    """True when a forkserver started now would import the same file for ``module`` as this
    process did: the module's top-level package is imported here from the working directory
    itself (``<cwd>/<package>/__init__.py``), which the forkserver's ``sys.path`` searches first
    (``''``; absent under ``-P``/``-I``, so then False), and a submodule is found from its
    package's directory.  Nothing is imported here."""
    import sys

    if getattr(sys.flags, "safe_path", False) or sys.flags.isolated:
        return False
    top = sys.modules.get(module.partition(".")[0])
    top_file = getattr(top, "__file__", None)
    if not top_file:
        return False
    here = os.path.join(os.getcwd(), module.partition(".")[0], "__init__.py")
    return os.path.realpath(top_file) == os.path.realpath(here)


def preload_in_the_forkserver(modules: tuple[str, ...] = FORKSERVER_PRELOAD) -> None:
    """Add ``modules`` to whatever list distributed hands the forkserver as its preload (it
    sets its own, once, before its first worker starts), without
    :data:`FORKSERVER_NOT_PRELOADED`: each forked worker then finds them imported instead of
    importing them itself.  Only the stdlib's public context object is touched; nothing is
    imported here."""
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver")
    set_preload = ctx.set_forkserver_preload
    if getattr(set_preload, "adds", None) == modules:
        return

    def set_forkserver_preload(module_names: list[str]) -> None:
        # distributed calls this as its first worker process is made, just before the
        # forkserver starts: the working directory checked is the forkserver's
        keep = [m for m in module_names if m not in FORKSERVER_NOT_PRELOADED]
        ours = [m for m in modules if m not in keep and forkserver_imports_the_parents_copy(m)]
        set_preload([*keep, *ours])

    set_forkserver_preload.adds = modules  # type: ignore[attr-defined]
    ctx.set_forkserver_preload = set_forkserver_preload  # type: ignore[method-assign]


def fork_dask_workers_from_a_server() -> None:
    """Worker processes forked from one preloaded forkserver, where the platform has one; set
    before dask reads its configuration (at its first import), or in it if already read."""
    import multiprocessing
    import sys

    if "forkserver" not in multiprocessing.get_all_start_methods() or os.environ.get(DASK_START_METHOD_ENV):
        return
    os.environ[DASK_START_METHOD_ENV] = "forkserver"
    preload_in_the_forkserver()
    if "dask.config" in sys.modules:
        import dask

        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})


def pytest_configure(config: Any) -> None:
    register_deep_marker(config)
    fork_dask_workers_from_a_server()
    if not os.environ.get("DPS_TEST_NO_GC_FREEZE") and not config.pluginmanager.has_plugin("dps-gc-freeze"):
        config.pluginmanager.register(_FreezeSurvivorsBetweenModules(), "dps-gc-freeze")


def running_deep(config: Any) -> bool:
    """Whether this session runs the deep profile (``deep`` tests not skipped)."""
    plugin = config.pluginmanager.get_plugin("dps-deep-only")
    return bool(plugin is not None and plugin.deep)


@pytest.fixture(scope="session")
def deep_profile(request: Any) -> bool:
    """True under the deep profile: a test that runs a smaller case by default (both sides of
    each boundary kept) then runs its full-size case."""
    return running_deep(request.config)


@pytest.fixture(scope="session")
def zoo_entry_run() -> Any:
    """``dps_verify.audit.zoo.run_entry(path, seed=0)``, run once per zoo entry and session:
    test_zoo (every verdict as expected) and test_reliability_consistency (every FAIL report
    consistent) read the same audits.  The result is shared; tests only read it."""
    runs: dict[str, Any] = {}

    def run(path: Any) -> Any:
        from dps_verify.audit.zoo import run_entry

        key = str(path)
        if key not in runs:
            runs[key] = run_entry(path, seed=0)
        return runs[key]

    return run


def _figure_key(name: str) -> tuple:
    """Figure ``name`` and the ``dps_verify.paper.figures`` constants it is drawn from (those
    named after it: ``FIG5_BETA`` for ``fig5``, ``BETA_GT_DELTA_KS`` for ``fig-beta-gt-delta``),
    as they are now (a test may have set smaller grids)."""
    from dps_verify.paper import figures

    prefix = "BETA_GT_DELTA_" if name == "fig-beta-gt-delta" else f"{name.upper()}_"
    return name, tuple((k, repr(v)) for k, v in sorted(vars(figures).items()) if k.startswith(prefix))


@pytest.fixture(scope="session")
def figures_drawn_once(deep_profile: bool) -> Any:
    """``wrap(draw_with_notes)``: ``dps_verify.paper.figures.draw_with_notes`` that draws each
    figure for real once per session (for the same drawing function and figure constants) and
    hands every later call a copy of that PNG with the same notes.  For the tests that render report files
    (tests/test_reliability_render.py, tests/test_cmd_paper.py): a figure costs ~0.5-0.9 s of
    CPU to draw, and CP Fig. 5 was drawn by both.  Under the deep profile ``wrap`` returns
    the function unchanged (every call draws)."""
    from pathlib import Path

    drawn: dict[tuple, tuple[str, bytes, list[str]]] = {}

    def wrap(draw_with_notes: Any) -> Any:
        if deep_profile:
            return draw_with_notes

        def draw_once(name: str, outdir: Path) -> tuple[Path, list[str]]:
            key = (draw_with_notes, *_figure_key(name))
            if key not in drawn:
                png, notes = draw_with_notes(name, outdir)
                drawn[key] = (png.name, png.read_bytes(), list(notes))  # the first directory moves
                return png, notes
            file_name, data, notes = drawn[key]
            copy = Path(outdir) / file_name
            copy.write_bytes(data)
            return copy, list(notes)

        return draw_once

    return wrap


#: Sample budget of the recognition after a PASS under the ``short_recognition`` fixture (the
#: product's is ``dps_verify.audit.core.RECOGNITION_SAMPLES``, 30,000).
SHORT_RECOGNITION_SAMPLES = 2_000


@pytest.fixture
def short_recognition(monkeypatch: Any) -> int:
    """For tests whose PASS audits check something else than the recognition that follows a
    PASS (what the audited code prints, the report files): that phase runs with a sample budget
    of :data:`SHORT_RECOGNITION_SAMPLES` (the same code on samples up to a smaller size; ~0.4 ->
    0.05 s of CPU per audit).  The recognition itself is tested at its own budget
    (tests/test_reliability_budget.py, tests/test_exact_search_recognise.py)."""
    from dps_verify.audit import core

    monkeypatch.setattr(core, "RECOGNITION_SAMPLES", SHORT_RECOGNITION_SAMPLES)
    return SHORT_RECOGNITION_SAMPLES
