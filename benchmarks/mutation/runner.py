"""Run mutants against their module's tests, each in a private copy of the repository.

The working tree is never touched.  A campaign first takes one :func:`snapshot` of the tree and
uses it for every phase (coverage map, baseline, first pass, escalation), so every phase measures
the same code; every worker slot copies that snapshot once (without ``.git``); each mutant is written into a free copy and ``pytest -x`` runs the module's test
selection in a forked child of this process (which has the heavy libraries, but not
``dps_verify``, imported) with the copy first on ``sys.path``; the module is then restored.  A mutant is
*killed* when pytest fails (or errors, or exceeds the time limit: a mutant that makes a test
hang is caught, since the default run would never finish); it *survives* when every selected
test passes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.mutation.operators import Mutant, mutated_source

# tool caches are not part of the code measured, and another engineer's mypy or ruff run can
# delete their files while the tree is copied (a failed snapshot)
_IGNORE = shutil.ignore_patterns(".git", ".ci-venv", "__pycache__", "*.egg-info", ".hypothesis",
                                 "mutation-report*", "*.ipynb", ".mypy_cache", ".ruff_cache",
                                 ".pytest_cache")


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    killed: bool
    how: str  # "failed", "timeout", "crashed", "survived", "not covered", "error: ..."
    seconds: float
    tests: int = 0  # pytest arguments run (node ids, or the module's selection)
    selection: tuple[str, ...] = ()  # the arguments themselves (was this the whole selection?)


def _copy(root: Path) -> Path:
    dest = Path(tempfile.mkdtemp(prefix="dps-mutation-"))
    shutil.copytree(root, dest / "repo", ignore=_IGNORE)
    return dest / "repo"


def own_proofs(tree: Path) -> Path:
    """Make ``tree`` (a snapshot) import its own theorem encodings.  They are installed as
    ``dps_verify_proofs`` from ``proofs/`` (setup.py's package_dir), and an editable install's
    finder maps that name to the working tree's ``proofs/``; it comes after the path finder, so a
    ``dps_verify_proofs`` copy of the snapshot's ``proofs/`` at the top of the snapshot (first on
    ``sys.path`` in every phase) is imported instead.  Returns ``tree``."""
    proofs, alias = tree / "proofs", tree / "dps_verify_proofs"
    if proofs.is_dir() and not alias.exists():
        shutil.copytree(proofs, alias, ignore=_IGNORE)
    return tree


def snapshot(root: Path) -> Path:
    """A private copy of the tree at ``root`` as it is now (without ``.git``): the one code a
    campaign measures in all its phases, whatever happens to the working tree meanwhile
    (its theorem encodings included: :func:`own_proofs`).  Remove it with
    :func:`drop_snapshot`."""
    return own_proofs(_copy(root))


def snapshot_commit(root: Path, commit: str) -> Path:
    """A private copy of the tree of ``commit`` in the repository at ``root`` (``git archive``):
    the code exactly as committed, whatever uncommitted edits the working tree holds (another
    engineer's work in progress in a shared tree is not measured).  Remove it with
    :func:`drop_snapshot`."""
    import io
    import tarfile

    tar = subprocess.run(["git", "archive", "--format=tar", commit], cwd=root, check=True,
                         capture_output=True, timeout=300).stdout
    dest = Path(tempfile.mkdtemp(prefix="dps-mutation-")) / "repo"
    dest.mkdir()
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(dest, filter="data")
    return own_proofs(dest)


def drop_snapshot(snap: Path) -> None:
    shutil.rmtree(snap.parent, ignore_errors=True)


def baseline(root: Path, tests: tuple[str, ...], timeout: float) -> tuple[bool, float, str]:
    """The selection passes on the unmutated code (else no mutant result means anything)."""
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout)
    return proc.returncode == 0, time.perf_counter() - t0, proc.stdout[-500:]


_WARM = ("numpy", "scipy.stats", "mpmath", "hypothesis", "flint", "gmpy2", "sympy", "pytest")


def _fork_one(copy: Path, mutant: Mutant, source: str, tests: tuple[str, ...]) -> int:
    """Fork a child that runs pytest on ``copy`` with ``mutant`` applied; return its pid.

    The parent has the heavy libraries imported (not ``dps_verify``), so each child saves their
    import time; the child imports the package afresh from the copy."""
    (copy / mutant.module).write_text(mutated_source(source, mutant.index), encoding="utf-8")
    pid = os.fork()
    if pid == 0:  # child
        code = 70
        try:
            import signal

            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's clean-up handler is not ours
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(copy)
            sys.path.insert(0, str(copy))
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
            sys.dont_write_bytecode = True
            # the warm imports may have pulled in dps_verify from the working tree (pytest and
            # hypothesis load plugins): forget it, so the child imports the mutated copy
            for name in [m for m in sys.modules
                         if m.split(".")[0] in ("dps_verify", "dps_verify_proofs", "tests")]:
                del sys.modules[name]
            import pytest

            code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", *tests]))
        finally:
            os._exit(code)
    return pid


def run(root: Path, jobs: Iterable[tuple[Mutant, str, tuple[str, ...], float]], workers: int,
        progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run every (mutant, module source, tests, time limit) job, at most ``workers`` at a time,
    each on a private copy of the repository (forked children of this warm process).

    Exit status of the child: 0 survived; 1-3 (tests failed, interrupted, internal error while
    collecting) killed; killed by a signal (a crash the default run would show too) killed;
    anything else (pytest usage error, no tests collected, a fault of this harness) is a runner
    error, which the score counts as not killed."""
    import importlib
    import signal

    for name in _WARM:
        try:
            importlib.import_module(name)
        except ImportError:  # pragma: no cover - optional speed-up only
            pass
    todo = list(jobs)

    def _terminate(signum: int, frame: object) -> None:  # kill -TERM: clean up like Ctrl-C
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, _terminate)
    made = [_copy(root) for _ in range(max(1, min(workers, len(todo))))]
    free = list(made)
    running: dict[int, tuple[Path, Mutant, str, float, float, tuple[str, ...]]] = {}
    out: list[Outcome] = []
    try:
        while todo or running:
            while todo and free:
                mutant, source, tests, limit = todo.pop(0)
                copy = free.pop()
                pid = _fork_one(copy, mutant, source, tests)
                running[pid] = (copy, mutant, source, time.perf_counter(), limit, tuple(tests))
            pid, status = os.waitpid(-1, os.WNOHANG)
            now = time.perf_counter()
            finished: list[tuple[int, str, bool]] = []
            if pid:
                code = os.waitstatus_to_exitcode(status)
                if code == 0:
                    finished.append((pid, "survived", False))
                elif code in (1, 2, 3):
                    finished.append((pid, "failed", True))
                elif code < 0:
                    finished.append((pid, f"crashed (signal {-code})", True))
                else:
                    finished.append((pid, f"error: pytest exit {code}", False))
            for p, (_, _, _, t0, limit, _) in list(running.items()):
                if p != pid and now - t0 > limit:
                    os.kill(p, signal.SIGKILL)
                    os.waitpid(p, 0)
                    finished.append((p, "timeout", True))
            for p, how, killed in finished:
                copy, mutant, source, t0, _, ran = running.pop(p)
                (copy / mutant.module).write_text(source, encoding="utf-8")
                free.append(copy)
                o = Outcome(mutant, killed, how, now - t0, len(ran), ran)
                out.append(o)
                if progress is not None:
                    progress(o)
            if not pid:
                time.sleep(0.05)
    finally:
        for p in running:
            os.kill(p, signal.SIGKILL)
            os.waitpid(p, 0)
        for c in made:
            shutil.rmtree(c.parent, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)
    return sorted(out, key=lambda o: (o.mutant.module, o.mutant.index))
