"""The user-facing example of docs/testing.md is itself a test: its first Python block is run
by pytest in a fresh directory (so the ``dp_check`` fixture comes from the installed plugin)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def run_pytest(pytester: pytest.Pytester, sources: dict[str, str], *args: str) -> pytest.RunResult:
    """A pytest session over ``sources`` in a fresh directory, run in this process (pytester:
    pytest loads the installed plugin from its ``pytest11`` entry point, as a user's session
    does; tests/test_testing_plugin.py checks the plugin in fresh interpreters).  The Hypothesis
    profile the options load is put back after."""
    from hypothesis import settings

    pytester.makepyfile(**sources)
    before = settings.get_current_profile_name()
    try:
        # --assert=plain: see tests/test_testing_plugin.py USER_SESSION_ARGS (the example's
        # failure is the fixture's own error, shown the same either way)
        return pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "--assert=plain", *args)
    finally:
        settings.load_profile(before)


def test_readme_example_passes_and_its_threshold_k_minus_1_variant_fails(pytester):
    """One pytest session (the installed plugin's ``dp_check``) runs the doc's example and
    the same example with threshold k - 1: the first passes, the second fails with its witness,
    so the fixture is shown to be able to fail, not only to pass."""
    example = python_blocks()[0]
    assert "def test_my_anonymizer(dp_check):" in example
    broken = example.replace("k=5)", "k=5, threshold=4)")
    assert broken != example
    r = run_pytest(pytester, {"test_user": example, "test_user_broken": broken},
                   "--dps-profile", "ci", "--dps-max-examples", "30")
    out = r.stdout.str()
    assert r.ret == 1, out + r.stderr.str()
    assert "1 failed, 1 passed" in out, out
    assert "FAILED test_user_broken.py::test_my_anonymizer" in out, out
    for part in ("dataset   D", "neighbour D'", "event     O", "Pr[A(D) in O]", "implied delta"):
        assert part in out, out


def test_readme_shows_the_same_example():
    """README.md carries the docs/testing.md example verbatim, so the README is tested too."""
    assert python_blocks()[0] in README.read_text()
