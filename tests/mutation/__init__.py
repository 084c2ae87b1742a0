"""A small mutation-testing harness shared by the proof and claim mutation tests.

A :class:`Mutant` names a file inside the ``dps_verify`` package, an exact snippet of its source
and the replacement.  :func:`run_mutant` copies the package to a temporary directory, applies
the mutation there (never to the working tree), and runs ``check`` — a Python snippet executed
in a fresh interpreter with that copy first on ``sys.path`` — returning its exit code.  A mutant
is *caught* when the check exits non-zero.  Each mutation must apply exactly once, so a stale
mutant (its snippet no longer in the source) is reported, not silently skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dps_verify"


@dataclass(frozen=True)
class Mutant:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``dps_verify/<path>``;
    ``also`` lists further ``(old, new)`` pairs in the same file (one mutant that changes a
    formula everywhere it is written, e.g. a hypothesis narrowed in the given facts and in the
    step that uses it)."""

    name: str
    path: str
    old: str
    new: str
    also: tuple[tuple[str, str], ...] = ()

    def pairs(self) -> list[tuple[str, str]]:
        return [(self.old, self.new), *self.also]

    def apply_to(self, src: str) -> str:
        """``src`` mutated; :class:`StaleMutant` unless every snippet occurs exactly once."""
        for old, new in self.pairs():
            count = src.count(old)
            if count != 1:
                raise StaleMutant(f"{self.name}: snippet occurs {count} times in {self.path}")
            src = src.replace(old, new)
        return src


class StaleMutant(AssertionError):
    """The mutant's snippet does not occur exactly once in the current source."""


def apply(mutant: Mutant, root: Path) -> None:
    target = root / "dps_verify" / mutant.path
    target.write_text(mutant.apply_to(target.read_text()))


def run_mutant(mutant: Mutant, check: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``check`` (Python source) against a copy of the package with ``mutant`` applied."""
    with tempfile.TemporaryDirectory(prefix="dps-mutant-") as tmp:
        root = Path(tmp)
        shutil.copytree(PACKAGE, root / "dps_verify", ignore=shutil.ignore_patterns("__pycache__"))
        apply(mutant, root)
        env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
        return subprocess.run(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n{check}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=root,
        )


def caught(mutant: Mutant, check: str, timeout: float = 600) -> bool:
    """True when ``check`` fails (non-zero exit) on the mutated package."""
    return run_mutant(mutant, check, timeout).returncode != 0
