"""A campaign records which code it measured: the commit, and whether the module or the files of
its test selection differed from it (the snapshot copies the working tree, edits included)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.mutation.__main__ import describe_state, tree_state

MODULE = "pkg/x.py"
SELECTION = ("tests/test_x.py", "--deselect", "tests/test_x.py::test_slow", "tests/test_y.py::t")


def _git(root: Path, *cmd: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *cmd], cwd=root,
                          check=True, capture_output=True, text=True).stdout


def _repo(root: Path) -> str:
    for name in (MODULE, "tests/test_x.py", "tests/test_y.py", "other.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "start")
    return _git(root, "rev-parse", "HEAD").strip()


def test_a_clean_tree_names_its_commit(tmp_path: Path) -> None:
    head = _repo(tmp_path)
    (tmp_path / "other.py").write_text("x = 2\n", encoding="utf-8")  # outside the selection
    st = tree_state(tmp_path, MODULE, SELECTION)
    assert st["commit"] == head and st["dirty"] == []
    line = describe_state(st)
    assert head[:12] in line and "dirty" not in line


def test_an_edited_test_file_of_the_selection_makes_a_dirty_tree(tmp_path: Path) -> None:
    head = _repo(tmp_path)
    (tmp_path / "tests/test_y.py").write_text("x = 2\n", encoding="utf-8")
    (tmp_path / "tests/test_x.py").unlink()
    st = tree_state(tmp_path, MODULE, SELECTION)
    assert st["commit"] == head
    assert sorted(x.split()[-1] for x in st["dirty"]) == ["tests/test_x.py", "tests/test_y.py"]
    assert "dirty tree" in describe_state(st)


def test_an_edited_module_makes_a_dirty_tree(tmp_path: Path) -> None:
    _repo(tmp_path)
    (tmp_path / MODULE).write_text("x = 3\n", encoding="utf-8")
    assert "dirty tree" in describe_state(tree_state(tmp_path, MODULE, SELECTION))


def test_an_old_record_says_its_commit_is_not_recorded() -> None:
    assert describe_state({}) == "code: commit not recorded"


def test_an_edit_the_snapshot_copies_outside_the_selection_is_recorded_as_dirty_elsewhere(
        tmp_path: Path) -> None:
    head = _repo(tmp_path)
    for name in ("dps_verify/core/numbers.py", "conftest.py", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "more")
    head = _git(tmp_path, "rev-parse", "HEAD").strip()
    assert "nothing else under dps_verify" in describe_state(tree_state(tmp_path, MODULE, SELECTION))
    for name in ("dps_verify/core/numbers.py", "conftest.py", "pyproject.toml"):
        (tmp_path / name).write_text("x = 2\n", encoding="utf-8")
    (tmp_path / "tests/test_new.py").write_text("x = 1\n", encoding="utf-8")  # untracked
    (tmp_path / "other.py").write_text("x = 2\n", encoding="utf-8")  # not copied into tests' path
    (tmp_path / "tests/test_y.py").write_text("x = 2\n", encoding="utf-8")  # of the selection
    st = tree_state(tmp_path, MODULE, SELECTION)
    assert st["commit"] == head
    assert [x.split()[-1] for x in st["dirty"]] == ["tests/test_y.py"]
    assert sorted(x.split()[-1] for x in st["dirty_elsewhere"]) == [
        "conftest.py", "dps_verify/core/numbers.py", "pyproject.toml", "tests/test_new.py"]
    line = describe_state(st)
    assert "dirty tree" in line and "dirty elsewhere" in line
    assert "dps_verify/core/numbers.py" in line and "other.py" not in line


def test_a_record_made_before_the_wider_check_says_the_rest_was_not_checked() -> None:
    line = describe_state({"commit": "0123456789abcdef", "dirty": []})
    assert "as committed" in line and "rest of the tree the snapshot copied was not checked" in line


def test_a_campaign_at_a_commit_measures_the_commit_not_the_working_tree(tmp_path: Path) -> None:
    from benchmarks.mutation.runner import drop_snapshot, snapshot_commit

    head = _repo(tmp_path)
    (tmp_path / MODULE).write_text("x = 3\n", encoding="utf-8")  # uncommitted
    (tmp_path / "new.py").write_text("y = 1\n", encoding="utf-8")  # untracked
    snap = snapshot_commit(tmp_path, head)
    try:
        assert (snap / MODULE).read_text(encoding="utf-8") == "x = 1\n"
        assert (snap / "tests/test_y.py").exists() and not (snap / "new.py").exists()
        assert not (snap / ".git").exists()
    finally:
        drop_snapshot(snap)
    assert not snap.exists()
    line = describe_state({"commit": head, "dirty": [], "dirty_elsewhere": [], "archived": True,
                           "tool": "abc1234"})
    assert f"commit {head[:12]} exactly" in line and "tool at abc1234" in line
    assert "dirty" not in line
