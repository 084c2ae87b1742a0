"""A campaign's snapshot imports its own theorem encodings, not the working tree's.

The theorem encodings are installed as ``dps_verify_proofs`` from ``proofs/``; the editable
install's finder maps that name to the working tree's ``proofs/``.  A snapshot (of the working
tree, or of a commit with ``--at-commit``) must import ``dps_verify_proofs`` from its own copy, in
a fresh interpreter started in it (baseline, coverage map) and in a forked mutant run, so that an
edit of the working tree's ``proofs/`` made after the snapshot (or not committed) is not
measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.mutation import runner
from benchmarks.mutation.operators import mutants
from benchmarks.mutation.runner import drop_snapshot, snapshot, snapshot_commit

MODULE = "dps_verify/x.py"
PROBE = ("import dps_verify_proofs as p, os; "
         "print(getattr(p, 'MARK', None)); print(os.path.realpath(p.__file__))")


def _tree(root: Path) -> None:
    (root / "dps_verify").mkdir(parents=True)
    (root / "dps_verify/__init__.py").write_text("", encoding="utf-8")
    (root / MODULE).write_text("def f():\n    return 1\n", encoding="utf-8")
    (root / "proofs").mkdir()
    (root / "proofs/__init__.py").write_text('MARK = "snapshot"\n', encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests/test_x.py").write_text(
        "import os\n\nimport dps_verify_proofs\n\n\ndef test_proofs_of_the_snapshot():\n"
        "    assert dps_verify_proofs.MARK == 'snapshot'\n"
        "    assert os.path.realpath(dps_verify_proofs.__file__).startswith("
        "os.path.realpath(os.getcwd()))\n", encoding="utf-8")


def _edit_working_tree(root: Path) -> None:
    (root / "proofs/__init__.py").write_text('MARK = "working tree edit"\n', encoding="utf-8")


def _probe(snap: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=snap, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split("\n")
    return out[:2]


def test_a_snapshot_imports_its_own_proofs_not_a_later_edit_of_the_working_tree(
        tmp_path: Path) -> None:
    live = tmp_path / "live"
    _tree(live)
    snap = snapshot(live)
    try:
        _edit_working_tree(live)
        mark, where = _probe(snap)
        assert mark == "snapshot"
        assert Path(where).is_relative_to(snap.resolve())
    finally:
        drop_snapshot(snap)


def test_an_at_commit_snapshot_imports_the_committed_proofs(tmp_path: Path) -> None:
    def git(*cmd: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *cmd],
                              cwd=tmp_path, capture_output=True, text=True, check=True).stdout

    _tree(tmp_path)
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "c")
    _edit_working_tree(tmp_path)  # uncommitted
    snap = snapshot_commit(tmp_path, git("rev-parse", "HEAD").strip())
    try:
        mark, where = _probe(snap)
        assert mark == "snapshot"
        assert Path(where).is_relative_to(snap.resolve())
    finally:
        drop_snapshot(snap)


def test_a_forked_mutant_run_imports_the_snapshots_proofs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The forked child of a campaign process that has imported the working tree's
    ``dps_verify_proofs`` (as this test process may have) imports the snapshot's afresh: the
    snapshot's test passes only with the snapshot's proofs, so the mutant survives."""
    import dps_verify_proofs  # noqa: F401 - the working tree's, as a warm parent may hold it

    monkeypatch.setattr(runner, "_WARM", ())
    live = tmp_path / "live"
    _tree(live)
    snap = snapshot(live)
    try:
        _edit_working_tree(live)
        src = (snap / MODULE).read_text(encoding="utf-8")
        mutant = mutants(MODULE, src)[0]
        [outcome] = runner.run(snap, [(mutant, src, ("tests/test_x.py",), 60.0)], 1)
        assert outcome.how == "survived"
    finally:
        drop_snapshot(snap)
