"""Which tests of a module's selection execute each of its lines (per-line test selection).

The map is recorded once per module by running the module's test selection (a subset of the
default test run) under coverage.py with one dynamic context per test phase
(``<node id>|setup``, ``|call``, ``|teardown``), in a fresh interpreter, and cached under
``benchmarks/mutation/.cache`` keyed by the content hash of the module, of its selection and of
the test files it names.  Before each test the ``functools`` caches of the package are emptied,
so a test's context holds the lines it needs itself (not only the lines the tests before it left
uncached).

A mutant then runs only the tests that execute its line (:func:`tests_for_line`):

* lines executed while the package and the test files are imported (``def`` lines, decorators,
  default arguments, module constants; context ``""``) can change anything: the module's whole
  selection runs;
* a line executed by a module- or session-scoped fixture (a ``|setup`` context) runs every test
  of that test file;
* a line no test of the selection executes is *not covered*: the mutant is not run and counts as
  a survivor.

Recording: ``python -m benchmarks.mutation.coverage_map MODULE -- PYTEST ARGS`` (the runner calls
it; the result is JSON on stdout).
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
_STATEMENT_HEADERS = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef,
                      ast.AsyncFunctionDef, ast.ClassDef, ast.AsyncFor, ast.AsyncWith)


@dataclass(frozen=True)
class LineMap:
    """The recorded map of one module: ``tests`` in run order, ``lines`` line -> test indices,
    ``import_lines`` the lines executed outside any test."""

    module: str
    tests: tuple[str, ...]
    lines: dict[int, frozenset[int]]
    import_lines: frozenset[int]
    seconds: float
    durations: tuple[float, ...]  # seconds of each test (setup + call + teardown, under coverage)

    def budget(self, tests: tuple[str, ...]) -> float:
        """Seconds the given node ids took while recording (the whole run for other args)."""
        where = {t: i for i, t in enumerate(self.tests)}
        if all(t in where for t in tests):
            return sum(self.durations[where[t]] for t in tests)
        return self.seconds


def _key(root: Path, module: str, selection: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    h.update((root / module).read_bytes())
    h.update("\0".join(selection).encode())
    for arg in selection:
        path = root / arg.split("::")[0]
        if not arg.startswith("-") and path.is_file():
            h.update(path.read_bytes())
    for conf in ("conftest.py", "tests/conftest.py", "properties/conftest.py"):
        if (root / conf).is_file():
            h.update((root / conf).read_bytes())
    return h.hexdigest()[:16]


def load_or_record(root: Path, module: str, selection: tuple[str, ...],
                   timeout: float) -> tuple[LineMap, bool]:
    """The cached map of ``module`` for ``selection``, recorded first when missing or stale
    (then True: the recording was a green run of the selection on the unmutated code)."""
    key = _key(root, module, selection)
    path = CACHE / f"{module.replace('/', '.')}-{key}.json"
    fresh = not path.exists()
    if fresh:
        cmd = [sys.executable, "-m", "benchmarks.mutation.coverage_map", module, "--", *selection]
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"recording the coverage map of {module} failed "
                               f"(exit {proc.returncode}): the selection must pass on the "
                               f"unmutated code\n{proc.stderr[-1500:]}")
        CACHE.mkdir(exist_ok=True)
        for old in CACHE.glob(f"{module.replace('/', '.')}-*.json"):
            old.unlink()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(proc.stdout, encoding="utf-8")
        tmp.replace(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    return LineMap(module, tuple(data["tests"]),
                   {int(k): frozenset(v) for k, v in data["lines"].items()},
                   frozenset(data["import_lines"]), float(data["seconds"]),
                   tuple(data["durations"])), fresh


def statement_lines(source: str) -> dict[int, tuple[int, ...]]:
    """line -> the lines of the innermost statement holding it (a compound statement's header
    only: ``if``/``for``/``while`` test, ``def`` with its decorators and defaults), so that a
    mutant inside a multi-line expression is looked up on every line of its statement."""
    spans: dict[int, tuple[int, ...]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt):
            continue
        first = node.lineno
        last = node.end_lineno or node.lineno
        if isinstance(node, _STATEMENT_HEADERS):
            decorators = getattr(node, "decorator_list", [])
            first = min([first, *(d.lineno for d in decorators)])
            body = getattr(node, "body", [])
            last = max(first, body[0].lineno - 1) if body else last
        lines = tuple(range(first, last + 1))
        for line in lines:
            old = spans.get(line)
            if old is None or len(lines) < len(old):
                spans[line] = lines
    return spans


def tests_for_line(lm: LineMap, spans: dict[int, tuple[int, ...]], line: int,
                   selection: tuple[str, ...]) -> tuple[str, ...] | None:
    """The pytest arguments that run a mutant on ``line``: the whole ``selection`` for an
    import-time line, the covering tests (in run order) otherwise, None when no test covers it."""
    lines = spans.get(line, (line,))
    if any(x in lm.import_lines for x in lines):
        return selection
    idx: set[int] = set()
    for x in lines:
        idx |= lm.lines.get(x, frozenset())
    if not idx:
        return None
    return tuple(lm.tests[i] for i in sorted(idx))


# -- recording (run in a fresh interpreter) ------------------------------------------------------

def _clear_package_caches() -> None:
    import functools

    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] not in ("dps_verify", "dps_verify_proofs") or mod is None:
            continue
        for value in list(vars(mod).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()
            elif isinstance(value, type) and value.__module__ == name:
                for attr in vars(value).values():
                    if isinstance(attr, functools._lru_cache_wrapper):
                        attr.cache_clear()


def _record(module: str, args: list[str]) -> dict | None:
    import time

    import coverage
    import pytest

    path = str(Path(module).resolve())
    cov = coverage.Coverage(data_file=None, include=[path], branch=False, config_file=False)
    phases: dict[str, str] = {}
    order: list[str] = []
    took: dict[str, float] = {}

    class Contexts:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_setup(self, item: pytest.Item):  # type: ignore[no-untyped-def]
            _clear_package_caches()
            order.append(item.nodeid)
            cov.switch_context(item.nodeid + "|setup")
            yield

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item: pytest.Item):  # type: ignore[no-untyped-def]
            cov.switch_context(item.nodeid + "|call")
            yield

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_teardown(self, item: pytest.Item):  # type: ignore[no-untyped-def]
            cov.switch_context(item.nodeid + "|teardown")
            yield

        def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
            took[report.nodeid] = took.get(report.nodeid, 0.0) + report.duration
            if report.failed:
                phases[report.nodeid] = report.when

    t0 = time.perf_counter()
    cov.start()
    try:
        code = int(pytest.main(["-q", "-p", "no:cacheprovider", *args], plugins=[Contexts()]))
    finally:
        cov.stop()
    seconds = time.perf_counter() - t0
    if code != 0 or phases:
        print(f"the selection is not green on the unmutated code (pytest exit {code}, "
              f"failed: {sorted(phases)[:5]})", file=sys.stderr)
        return None
    data = cov.get_data()
    files = [f for f in data.measured_files() if Path(f).resolve() == Path(path)]
    index = {t: i for i, t in enumerate(order)}
    by_file: dict[str, list[int]] = {}
    for t in order:
        by_file.setdefault(t.split("::")[0], []).append(index[t])
    lines: dict[int, set[int]] = {}
    import_lines: set[int] = set()
    for f in files:
        for line, contexts in data.contexts_by_lineno(f).items():
            for ctx in contexts:
                if not ctx:
                    import_lines.add(line)
                    continue
                nodeid, _, phase = ctx.rpartition("|")
                if nodeid not in index:
                    import_lines.add(line)  # outside any test we know: be conservative
                elif phase == "setup":  # a fixture: every test of that file may use its value
                    lines.setdefault(line, set()).update(by_file[nodeid.split("::")[0]])
                else:
                    lines.setdefault(line, set()).add(index[nodeid])
    return {"module": module, "tests": order, "seconds": seconds,
            "durations": [round(took.get(t, 0.0), 4) for t in order],
            "import_lines": sorted(import_lines),
            "lines": {str(k): sorted(v) for k, v in sorted(lines.items())}}


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[2] != "--":
        raise SystemExit("usage: python -m benchmarks.mutation.coverage_map MODULE -- PYTEST ARGS")
    real = sys.stdout
    sys.stdout = sys.stderr  # pytest's own output must not mix with the JSON on stdout
    try:
        result = _record(sys.argv[1], sys.argv[3:])
    finally:
        sys.stdout = real
    if result is None:
        raise SystemExit(1)
    json.dump(result, sys.stdout)
