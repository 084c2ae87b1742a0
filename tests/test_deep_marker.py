"""The ``deep`` marker: slow exhaustive cases run only under the deep profile, and the default
run says how to run them (the repository-root conftest.py)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

_CONFTEST = """
import importlib.util
from typing import Any

_spec = importlib.util.spec_from_file_location("project_tests_conftest", {conftest!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)


def pytest_configure(config: Any) -> None:
    _mod.register_deep_marker(config)
"""

_TESTS = """
import pytest

@pytest.mark.deep
def test_slow_exhaustive_case():
    pass

def test_quick_case():
    pass
"""


@pytest.fixture
def suite(pytester, request, monkeypatch):
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    pytester.makeconftest(_CONFTEST.format(conftest=str(request.path.parent.parent / "conftest.py")))
    pytester.makepyfile(test_suite=_TESTS)
    return pytester


def test_default_run_skips_deep_cases_with_the_hint(suite):
    r = suite.runpytest("-rs", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=1, skipped=1)
    r.stdout.fnmatch_lines(["*HYPOTHESIS_PROFILE=deep*"])


@pytest.mark.parametrize("how", ["env", "option"])
def test_deep_profile_runs_them(suite, monkeypatch, how):
    args = ["-p", "no:cacheprovider"]
    if how == "env":
        monkeypatch.setenv("HYPOTHESIS_PROFILE", "deep")
    else:
        args += ["--dps-profile", "deep"]
    suite.runpytest(*args).assert_outcomes(passed=2)
