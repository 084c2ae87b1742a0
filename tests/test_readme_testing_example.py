"""The user-facing example of docs/testing.md is itself a test: its first Python block is run
by pytest in a fresh directory (so the ``dp_check`` fixture comes from the installed plugin)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def run_pytest(tmp_path: Path, sources: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    for name, source in sources.items():
        (tmp_path / name).write_text(source)
    return subprocess.run(
        # --assert=plain: see tests/test_testing_plugin.py USER_SESSION_ARGS (the example's
        # failure is the fixture's own error, shown the same either way)
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--assert=plain",
         str(tmp_path), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_readme_example_passes_and_its_threshold_k_minus_1_variant_fails(tmp_path):
    """One fresh pytest session (the installed plugin's ``dp_check``) runs the doc's example and
    the same example with threshold k - 1: the first passes, the second fails with its witness,
    so the fixture is shown to be able to fail, not only to pass."""
    example = python_blocks()[0]
    assert "def test_my_anonymizer(dp_check):" in example
    broken = example.replace("k=5)", "k=5, threshold=4)")
    assert broken != example
    r = run_pytest(tmp_path, {"test_user.py": example, "test_user_broken.py": broken},
                   "--dps-profile", "ci", "--dps-max-examples", "30")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 failed, 1 passed" in r.stdout, r.stdout
    assert "FAILED test_user_broken.py::test_my_anonymizer" in r.stdout, r.stdout
    for part in ("dataset   D", "neighbour D'", "event     O", "Pr[A(D) in O]", "implied delta"):
        assert part in r.stdout, r.stdout


def test_readme_shows_the_same_example():
    """README.md carries the docs/testing.md example verbatim, so the README is tested too."""
    assert python_blocks()[0] in README.read_text()
