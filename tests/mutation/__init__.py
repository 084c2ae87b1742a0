"""A small mutation-testing harness shared by the proof and claim mutation tests.

A :class:`Mutant` names a file inside the ``dps_verify`` package, an exact snippet of its source
and the replacement.  :func:`run_mutant` copies the package to a temporary directory, applies
the mutation there (never to the working tree), and runs ``check`` — a Python snippet executed
in a fresh interpreter with that copy first on ``sys.path`` — returning its exit code.  A mutant
is *caught* when the check exits non-zero.  Each mutation must apply exactly once, so a stale
mutant (its snippet no longer in the source) is reported, not silently skipped.

Bytecode: the package modules a run imports are compiled once per test session, from a private
copy of the unmutated package, as *checked-hash* pycs: the interpreter re-hashes the source on
every import and ignores a pyc whose source differs (no reliance on mtime and size, which a
same-length mutation written in the same second would leave unchanged).  Each mutant's copy gets
those pycs minus the mutated file's, which is removed, so that file is always compiled from its
mutated text; the runs themselves write no bytecode (``PYTHONDONTWRITEBYTECODE``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import threading
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


_BASELINE_LOCK = threading.Lock()
_baseline: tempfile.TemporaryDirectory[str] | None = None
_IMPORTED = ".imported-modules"


def _baseline_package() -> Path:
    """A private copy of the unmutated package, made once per session, holding its bytecode."""
    global _baseline
    with _BASELINE_LOCK:
        if _baseline is None:
            tmp = tempfile.TemporaryDirectory(prefix="dps-mutant-baseline-")
            shutil.copytree(
                PACKAGE, Path(tmp.name) / "dps_verify", ignore=shutil.ignore_patterns("__pycache__")
            )
            _baseline = tmp
        return Path(_baseline.name) / "dps_verify"


def _seed_bytecode(pkg: Path) -> None:
    """Copy the baseline pycs into ``pkg``; each is used only if its source hash still matches."""
    base = _baseline_package()
    with _BASELINE_LOCK:
        for cache in base.rglob("__pycache__"):
            shutil.copytree(cache, pkg / cache.relative_to(base), dirs_exist_ok=True)


def _learn_bytecode(root: Path) -> None:
    """Compile (checked-hash, from the unmutated copy) the package modules a run imported, so
    later runs load them instead of recompiling; the mutated file's own source is never used."""
    listing = root / _IMPORTED
    if not listing.is_file():
        return
    pkg, base = root / "dps_verify", _baseline_package()
    for line in listing.read_text().splitlines():
        try:
            rel = Path(line).relative_to(pkg)
        except ValueError:
            continue
        src = base / rel
        if src.suffix != ".py" or not src.is_file():
            continue
        with _BASELINE_LOCK:
            if not Path(importlib.util.cache_from_source(str(src))).exists():
                py_compile.compile(
                    str(src),
                    doraise=False,
                    quiet=2,
                    invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
                )


def _drop_bytecode(source: Path) -> None:
    """Remove the pyc of ``source`` (the mutated file): it is compiled from its new text."""
    Path(importlib.util.cache_from_source(str(source))).unlink(missing_ok=True)


def run_mutant(mutant: Mutant, check: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``check`` (Python source) against a copy of the package with ``mutant`` applied."""
    with tempfile.TemporaryDirectory(prefix="dps-mutant-") as tmp:
        root = Path(tmp)
        shutil.copytree(PACKAGE, root / "dps_verify", ignore=shutil.ignore_patterns("__pycache__"))
        _seed_bytecode(root / "dps_verify")
        apply(mutant, root)
        _drop_bytecode(root / "dps_verify" / mutant.path)
        env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
        # at exit the run lists the files of the modules it imported (for _learn_bytecode)
        record = (
            f"import atexit, sys; sys.path.insert(0, {str(root)!r})\n"
            f"atexit.register(lambda: open({str(root / _IMPORTED)!r}, 'w').write('\\n'.join("
            "str(getattr(m, '__file__', None)) for m in list(sys.modules.values()))))\n"
        )
        res = subprocess.run(
            [sys.executable, "-c", record + check],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=root,
        )
        _learn_bytecode(root)
        return res


def caught(mutant: Mutant, check: str, timeout: float = 600) -> bool:
    """True when ``check`` fails (non-zero exit) on the mutated package."""
    return run_mutant(mutant, check, timeout).returncode != 0


def fork_with_heap_frozen() -> int:
    """``os.fork()`` with this process's objects frozen out of the garbage collector
    (``gc.freeze()``), so that the child's collections skip -- and so do not copy -- the
    parent's heap.  In the parent they stay frozen when the session already keeps its
    survivors frozen (the root conftest freezes them after each test module): unfreezing would
    hand the whole session's heap -- imports, caches, proof results -- back to the next full
    collections (the module's teardown collection walked it all again: ~2.5 s of CPU in a
    default run), so the cyclic garbage made since the last freeze is collected first (frozen,
    it would never be freed nor finalized; the collection walks only the unfrozen objects);
    otherwise (no frozen objects before) they are unfrozen again."""
    import gc

    session_freezes = gc.get_freeze_count() > 0
    if session_freezes:
        gc.collect()
    gc.freeze()
    pid = os.fork()
    if pid != 0 and not session_freezes:
        gc.unfreeze()
    return pid


def run_mutant_forked(mutant: Mutant, check: str, fresh: str, timeout: float = 600
                      ) -> subprocess.CompletedProcess:
    """:func:`run_mutant` in a ``fork`` of this (warm) process, for a mutant inside the package
    ``fresh`` (such as ``dps_verify.paper.claims``): the child forgets every module of
    ``fresh``, imports them again from their sources -- the mutated file from its mutated
    text (compiled from it, never from a pyc) -- and runs ``check``; the rest of the package
    stays as this process imported it (nothing outside ``fresh`` may import from it: the
    caller's to ensure).  Exit code 0 when ``check`` passes, 1 with the traceback in
    ``stderr`` when it raises (or when the mutant is stale).  Where there is no ``fork``, or
    the mutated file is a package's ``__init__`` or outside ``fresh``, it is :func:`run_mutant`.
    """
    import signal
    import traceback

    name = "dps_verify." + mutant.path.removesuffix(".py").replace("/", ".")
    if (not hasattr(os, "fork") or not mutant.path.endswith(".py")
            or name.endswith(".__init__") or not name.startswith(fresh + ".")):
        return run_mutant(mutant, check, timeout)
    path = PACKAGE / mutant.path
    rfd, wfd = os.pipe()
    pid = fork_with_heap_frozen()
    if pid == 0:  # child: report through the pipe, never return into the caller
        code = 1
        try:
            os.close(rfd)
            signal.alarm(max(1, int(timeout)))
            try:
                src = mutant.apply_to(path.read_text())

                class _Mutated(importlib.abc.MetaPathFinder, importlib.abc.Loader):
                    def find_spec(self, fullname, _path=None, _target=None):  # type: ignore[no-untyped-def]
                        if fullname != name:
                            return None
                        return importlib.util.spec_from_file_location(fullname, path, loader=self)

                    def create_module(self, spec):  # type: ignore[no-untyped-def]
                        return None

                    def exec_module(self, module):  # type: ignore[no-untyped-def]
                        exec(compile(src, str(path), "exec"), module.__dict__)  # noqa: S102

                for mod in [m for m in sys.modules if m == fresh or m.startswith(fresh + ".")]:
                    del sys.modules[mod]
                sys.meta_path.insert(0, _Mutated())
                exec(compile(check, "<check>", "exec"), {"__name__": "__check__"})  # noqa: S102
                code, err = 0, ""
            except BaseException:  # noqa: BLE001 - reported to the parent
                err = traceback.format_exc()
            with os.fdopen(wfd, "w") as fh:
                fh.write(err)
        finally:
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd) as fh:
        err = fh.read()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess([mutant.name], code, "", err or f"exit status {code}")
