"""A mutation campaign measures one code: the tree as it was when the campaign started.

The coverage map, the baseline, the first pass and the escalation of the survivors to the whole
selection all run on one snapshot taken at the start.  A test that someone adds to the working
tree while the campaign runs -- here one that fails on the unmutated code -- must not "kill" the
survivors in the escalation.  The runner is replaced by a stand-in that reads the tree it is
given (no mutant is run: the test takes milliseconds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import benchmarks.mutation.__main__ as tool
from benchmarks.mutation.coverage_map import LineMap
from benchmarks.mutation.runner import Outcome, drop_snapshot, snapshot

MODULE = "dps_verify/x.py"
SELECTION = ("tests/test_x.py",)
NODE = "tests/test_x.py::test_f"


def _tree(root: Path) -> None:
    (root / "dps_verify").mkdir(parents=True)
    (root / MODULE).write_text("def f():\n    return 1\n", encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests/test_x.py").write_text(
        "from dps_verify.x import f\n\n\ndef test_f():\n    assert f() in (0, 1, 2)\n",
        encoding="utf-8")


def test_a_snapshot_does_not_follow_later_edits_of_the_tree(tmp_path: Path) -> None:
    _tree(tmp_path)
    snap = snapshot(tmp_path)
    try:
        (tmp_path / "tests/test_x.py").write_text("def test_new():\n    assert False\n",
                                                  encoding="utf-8")
        assert "test_f" in (snap / "tests/test_x.py").read_text(encoding="utf-8")
    finally:
        drop_snapshot(snap)
    assert not snap.exists()


def test_escalation_runs_on_the_campaigns_snapshot_not_the_later_working_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = tmp_path / "live"
    _tree(live)
    roots: list[tuple[str, Path]] = []

    def fake_map(root: Path, module: str, selection: tuple[str, ...], timeout: float
                 ) -> tuple[LineMap, bool]:
        roots.append(("map", root))
        return LineMap(module, (NODE,), {2: frozenset({0})}, frozenset({1}), 0.1, (0.1,)), False

    def fake_baseline(root: Path, tests: tuple[str, ...], timeout: float
                      ) -> tuple[bool, float, str]:
        roots.append(("baseline", root))
        return "assert False" not in (root / "tests/test_x.py").read_text(encoding="utf-8"), 0.0, ""

    def fake_run(root: Path, jobs: list, workers: int, progress: object = None) -> list[Outcome]:
        first = not any(kind == "run" for kind, _ in roots)
        roots.append(("run", root))
        if first:  # meanwhile, someone adds a test that fails on the unmutated code
            with (live / "tests/test_x.py").open("a", encoding="utf-8") as fh:
                fh.write("\n\ndef test_work_in_progress():\n    assert False\n")
        broken = "assert False" in (root / "tests/test_x.py").read_text(encoding="utf-8")
        return [Outcome(m, broken, "failed" if broken else "survived", 0.0, len(t), tuple(t))
                for m, _, t, _ in jobs]

    monkeypatch.setattr(tool, "ROOT", live)
    monkeypatch.setattr(tool, "TARGETS", {MODULE: SELECTION})
    monkeypatch.setattr(tool, "OUTCOMES", tmp_path / "outcomes")
    monkeypatch.setattr(tool, "load_or_record", fake_map)
    monkeypatch.setattr(tool, "baseline", fake_baseline)
    monkeypatch.setattr(tool, "run", fake_run)
    tool.main(["--module", "x", "--report", str(tmp_path / "report.md")])

    kinds = [kind for kind, _ in roots]
    assert kinds == ["map", "baseline", "run", "run"]  # first pass, then the escalation
    assert len({root for _, root in roots}) == 1 and roots[0][1] != live
    assert not roots[0][1].exists()  # the snapshot is removed at the end
    saved = json.loads((tmp_path / "outcomes" / "dps_verify.x.py.json").read_text())
    assert saved["outcomes"] and all(not row["killed"] for row in saved["outcomes"])
    assert all(row["how"] == "survived" for row in saved["outcomes"])


def test_the_escalation_counts_a_kill_of_the_whole_selection_on_the_same_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control of the test above: the escalation still kills when the whole selection
    of the snapshot fails on the mutant."""
    live = tmp_path / "live"
    _tree(live)
    calls: list[Path] = []

    def fake_run(root: Path, jobs: list, workers: int, progress: object = None) -> list[Outcome]:
        calls.append(root)
        second = len(calls) == 2
        return [Outcome(m, second, "failed" if second else "survived", 0.0, len(t), tuple(t))
                for m, _, t, _ in jobs]

    monkeypatch.setattr(tool, "ROOT", live)
    monkeypatch.setattr(tool, "TARGETS", {MODULE: SELECTION})
    monkeypatch.setattr(tool, "OUTCOMES", tmp_path / "outcomes")
    monkeypatch.setattr(tool, "load_or_record", lambda *a: (LineMap(
        MODULE, (NODE,), {2: frozenset({0})}, frozenset({1}), 0.1, (0.1,)), False))
    monkeypatch.setattr(tool, "baseline", lambda *a: (True, 0.0, ""))
    monkeypatch.setattr(tool, "run", fake_run)
    tool.main(["--module", "x", "--report", str(tmp_path / "report.md")])
    saved = json.loads((tmp_path / "outcomes" / "dps_verify.x.py.json").read_text())
    assert saved["outcomes"] and all(row["killed"] for row in saved["outcomes"])
    assert all(row["how"] == "failed (module selection)" for row in saved["outcomes"])
