"""The mutation run's selections (``benchmarks/mutation/targets.py``) name files that exist: each
mutated module, and each test file of its selection, a file the default pytest run collects
(under one of pytest's ``testpaths``, named by its ``python_files`` patterns), so a mutant
killed by the selection is killed by the default run too, and a campaign's baseline does not
fail on a missing file.  Read from the files and pyproject.toml (no collection run)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path, PurePosixPath

from benchmarks.mutation.targets import TARGETS

ROOT = Path(__file__).resolve().parent.parent

#: pytest's default ``python_files``, used when pyproject.toml sets none
DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")


def _pytest_settings(root: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``testpaths`` and ``python_files`` of the default run (pyproject.toml)."""
    ini = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    files = ini.get("python_files", DEFAULT_PYTHON_FILES)
    return tuple(ini["testpaths"]), tuple(files.split() if isinstance(files, str) else files)


def target_problems(targets: dict[str, tuple[str, ...]], root: Path = ROOT) -> list[str]:
    """One line per path of ``targets`` that is missing or, for a test file, not collected by
    the default run: the module keys, the test files and the files of ``--deselect`` node
    ids."""
    testpaths, patterns = _pytest_settings(root)
    problems = []
    for module, args in targets.items():
        if not (root / module).is_file():
            problems.append(f"{module}: the mutated module is missing")
        deselected = False
        for arg in args:
            if arg.startswith("-"):
                deselected = arg == "--deselect"
                continue
            path = arg.split("::")[0]
            what = "deselected test's file" if deselected else "test file"
            deselected = False
            if not (root / path).is_file():
                problems.append(f"{module}: {what} {path} is missing")
                continue
            parts = PurePosixPath(path)
            if not any(parts.is_relative_to(t) for t in testpaths):
                problems.append(f"{module}: {what} {path} is outside testpaths {testpaths}")
            elif not any(fnmatch.fnmatch(parts.name, p) for p in patterns):
                problems.append(f"{module}: {what} {path} does not match python_files {patterns}")
    return problems


def test_every_target_path_exists_and_is_collected_by_the_default_run():
    assert target_problems(TARGETS) == []


def test_a_made_up_or_uncollected_path_is_reported():
    """Negative control: the same check reports a missing module, a missing test file, a
    missing deselected test's file, a file outside testpaths and a file pytest would not
    collect by name."""
    made_up = {
        "dps_verify/no_such_module.py": ("tests/test_no_such_file_anywhere.py",),
        "dps_verify/core/numbers.py": ("--deselect", "tests/test_no_such_file.py::test_x",
                                       "benchmarks/mutation/targets.py", "tests/conftest.py"),
    }
    problems = target_problems(made_up)
    assert problems == [
        "dps_verify/no_such_module.py: the mutated module is missing",
        "dps_verify/no_such_module.py: test file tests/test_no_such_file_anywhere.py is missing",
        "dps_verify/core/numbers.py: deselected test's file tests/test_no_such_file.py is missing",
        "dps_verify/core/numbers.py: test file benchmarks/mutation/targets.py is outside "
        "testpaths ('tests', 'properties')",
        "dps_verify/core/numbers.py: test file tests/conftest.py does not match python_files "
        "('test_*.py', '*_test.py')",
    ]
