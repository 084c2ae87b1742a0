"""The user-facing example of docs/testing.md is itself a test: its first Python block is run
by pytest in a fresh directory (so the ``dp_check`` fixture comes from the installed plugin)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def run_pytest(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_user.py").write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_readme_example_passes(tmp_path):
    example = python_blocks()[0]
    assert "def test_my_anonymizer(dp_check):" in example
    r = run_pytest(tmp_path, example, "--dps-profile", "ci", "--dps-max-examples", "30")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout


def test_readme_example_catches_threshold_k_minus_1():
    """The example with threshold k - 1 fails with the witness printed.  Run in this process
    (the example's test function called with the plugin's ``dp_check`` at ``--dps-max-size 4``);
    the fixture's wiring through a fresh pytest session is the test above."""
    from dps_verify.testing.checks import assert_dp

    broken = python_blocks()[0].replace("k=5)", "k=5, threshold=4)")
    assert broken != python_blocks()[0]
    namespace: dict = {}
    exec(compile(broken, "test_user.py", "exec"), namespace)  # noqa: S102 - the doc's own example

    def dp_check(anonymizer, **kwargs):  # the plugin's fixture with --dps-max-size 4
        kwargs.setdefault("max_size", 4)
        assert_dp(anonymizer, **kwargs)

    with pytest.raises(AssertionError) as failed:
        namespace["test_my_anonymizer"](dp_check)
    for part in ("dataset   D", "neighbour D'", "event     O", "Pr[A(D) in O]", "implied delta"):
        assert part in str(failed.value), str(failed.value)


def test_readme_shows_the_same_example():
    """README.md carries the docs/testing.md example verbatim, so the README is tested too."""
    assert python_blocks()[0] in README.read_text()
