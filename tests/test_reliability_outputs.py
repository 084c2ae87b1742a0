"""Every output of ``dps-verify paper`` is written safely.

Each test uses two tiny fake claims (one supporting CP Fig. 5, one with no artefact) and a fake
figure drawer, so the CLI's whole write path runs in milliseconds.  Under the old writers
(``shutil.rmtree(DIR)`` then rename, ``tempfile`` modes 0600/0700, paths not printed) each test
fails.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dps_verify.cli import main
from dps_verify.core import fsio
from dps_verify.paper import claims as claims_pkg
from dps_verify.paper import figures
from dps_verify.paper.claims import Claim, Result
from dps_verify.paper.claims.base import CONFIRMED

FAKE = [
    Claim("test.fig", "CP Fig. 5", "a <b>figure</b> claim", "none", CONFIRMED,
          lambda: Result(CONFIRMED, "1 = 1"), artefact="fig5"),
    Claim("test.plain", "CP §1", "a plain claim", "none", CONFIRMED, lambda: Result(CONFIRMED, "2 = 2")),
]
_draws: list[str] = []


def _fake_draw(name: str, outdir: Path) -> Path:
    _draws.append(name)
    p = Path(outdir) / f"{name}.png"
    p.write_bytes(b"\x89PNG fake " + name.encode() + b" %d" % len(_draws))
    return p


@pytest.fixture(autouse=True)
def fake_claims(monkeypatch):
    _draws.clear()
    monkeypatch.setattr(claims_pkg, "REGISTRY", list(FAKE))
    monkeypatch.setattr(figures, "draw", _fake_draw)
    monkeypatch.setattr(figures, "draw_with_notes", lambda name, outdir: (_fake_draw(name, outdir), []))


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its content (None for a directory)."""
    return {p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


def _no_temp_leftovers(root: Path) -> None:
    assert not [p for p in root.rglob("*") if ".dps-tmp-" in p.name], _tree(root).keys()


def _user_files(d: Path) -> None:
    (d / "notes.txt").write_text("my notes")
    (d / "data").mkdir()
    (d / "data" / "x.csv").write_text("1,2\n")


def test_html_dot_keeps_user_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _user_files(tmp_path)
    before = _tree(tmp_path)
    assert main(["paper", "--html", "."]) == 0
    after = _tree(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing of the user's touched
    assert {"index.html", "figures", "figures/fig5.png", fsio.MARKER} <= set(after)
    assert f"wrote {tmp_path / 'index.html'}" in capsys.readouterr().out
    # a second run replaces only its own files
    assert main(["paper", "--html", "."]) == 0
    after2 = _tree(tmp_path)
    assert {k: v for k, v in after2.items() if k in before} == before
    assert after2["figures/fig5.png"] != after["figures/fig5.png"]
    _no_temp_leftovers(tmp_path)


def test_existing_dir_of_user_files_written_into_not_deleted(tmp_path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    _user_files(out)
    before = _tree(out)
    assert main(["paper", "--html", str(out)]) == 0
    after = _tree(out)
    assert {k: v for k, v in after.items() if k in before} == before
    assert "index.html" in after and "figures/fig5.png" in after


def test_user_index_html_is_refused(tmp_path, capsys):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("<p>my homepage</p>")
    (out / "figures").mkdir()
    rc = main(["paper", "--html", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "refusing to overwrite" in err and "index.html" in err
    assert (out / "index.html").read_text() == "<p>my homepage</p>"
    assert sorted(p.name for p in out.iterdir()) == ["figures", "index.html"]
    assert _draws == []  # refused before any work


def test_user_file_added_to_our_figures_dir_is_refused(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["paper", "--html", str(out)]) == 0
    (out / "figures" / "mine.png").write_text("a user's own figure")
    capsys.readouterr()
    assert main(["paper", "--html", str(out)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (out / "figures" / "mine.png").read_text() == "a user's own figure"


def test_existing_file_named_like_the_report(tmp_path, capsys):
    # an HTML report directory whose name is taken by a file
    f = tmp_path / "report"
    f.write_text("a file, not a directory")
    assert main(["paper", "--html", str(f)]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and f.read_text() == "a file, not a directory"
    # a Markdown report whose name is taken by a directory: refused before anything is written
    d = tmp_path / "r.md"
    d.mkdir()
    assert main(["paper", "--markdown", str(d)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md", "report"]
    # the Markdown figures folder name is taken by a user's directory holding a same-named file
    figs = tmp_path / "s_figures"
    figs.mkdir()
    (figs / "fig5.png").write_text("the user's fig5")
    assert main(["paper", "--markdown", str(tmp_path / "s.md")]) == 2
    assert (figs / "fig5.png").read_text() == "the user's fig5"
    assert not (tmp_path / "s.md").exists()
    _no_temp_leftovers(tmp_path)


def test_read_only_directory(tmp_path, monkeypatch, capsys):
    out = tmp_path / "report"
    assert main(["paper", "--html", str(out)]) == 0
    before = _tree(out)
    out.chmod(0o555)
    if os.geteuid() == 0:  # root ignores permission bits: make the directory refuse new entries
        real_mkdir = os.mkdir

        def denied(path, *a, **k):
            if Path(path).parent == out:
                raise PermissionError(13, "Permission denied", str(path))
            return real_mkdir(path, *a, **k)

        monkeypatch.setattr(os, "mkdir", denied)
    try:
        capsys.readouterr()
        assert main(["paper", "--html", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(out) in err and "ermission denied" in err
        assert _tree(out) == before
    finally:
        out.chmod(0o755)
    _no_temp_leftovers(tmp_path)


@pytest.mark.parametrize("when", ["drawing", "installing"])
def test_interrupt_midway_keeps_previous_report(tmp_path, monkeypatch, capsys, when):
    monkeypatch.chdir(tmp_path)
    out = "." if when == "drawing" else "report"  # a report written into the user's own folder, too
    (tmp_path / "keep.txt").write_text("user")
    assert main(["paper", "--html", out, "--json", "r.json"]) == 0
    before = _tree(tmp_path)
    if when == "drawing":
        def boom(name, outdir):
            (Path(outdir) / f"{name}.png").write_bytes(b"half a png")
            raise KeyboardInterrupt

        monkeypatch.setattr(figures, "draw_with_notes", boom)
    else:  # Ctrl-C after the new index.html is in place, before the marker: rolled back
        real = fsio.write_text

        def boom(path, text, **kw):
            if Path(path).name == fsio.MARKER:
                raise KeyboardInterrupt
            return real(path, text, **kw)

        monkeypatch.setattr(fsio, "write_text", boom)
    capsys.readouterr()
    assert main(["paper", "--html", out]) == 130  # Ctrl-C: one line, exit 130
    assert "interrupted" in capsys.readouterr().err
    assert _tree(tmp_path) == before
    _no_temp_leftovers(tmp_path)


def test_json_interrupted_while_writing(tmp_path, monkeypatch):
    """Ctrl-C between writing the bytes and the rename: the old file stays, no temporary."""
    j = tmp_path / "r.json"
    j.write_text('{"generator": "dps-verify", "old": true}\n')  # an earlier report of ours
    real_fsync = os.fsync

    def boom(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", boom)
    assert main(["paper", "--json", str(j)]) == 130
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert j.read_text() == '{"generator": "dps-verify", "old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_permissions_follow_umask(tmp_path, capsys, mask):
    old = os.umask(mask)
    try:
        assert main(["paper", "--html", str(tmp_path / "h"), "--json", str(tmp_path / "r.json"),
                     "--markdown", str(tmp_path / "r.md")]) == 0
    finally:
        os.umask(old)
    out = capsys.readouterr().out
    for d in (tmp_path / "h", tmp_path / "h" / "figures", tmp_path / "r_figures"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o777 & ~mask, d
    for f in (tmp_path / "h" / "index.html", tmp_path / "h" / "figures" / "fig5.png",
              tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r_figures" / "fig5.png"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~mask, f
    for f in ("h/index.html", "r.json", "r.md"):
        assert f"wrote {tmp_path / f}" in out


def test_fsio_never_deletes_unlisted_stale_entries(tmp_path):
    """Unit level: a stale entry the marker lists is removed, an unlisted one never."""
    out = tmp_path / "d"

    def first(stage: Path) -> None:
        (stage / "a.txt").write_text("a")
        (stage / "b.txt").write_text("b")

    fsio.write_report_dir(out, first)
    (out / "user.txt").write_text("u")
    fsio.write_report_dir(out, lambda s: (s / "a.txt").write_text("a2"))
    assert sorted(p.name for p in out.iterdir()) == [fsio.MARKER, "a.txt", "user.txt"]
    assert (out / "a.txt").read_text() == "a2"


def test_audit_json_written_atomically_and_printed(tmp_path, capsys, short_recognition):
    (tmp_path / "const.py").write_text("def anonymize(sample):\n    return 'nothing'\n")
    (tmp_path / "dom.json").write_text('{"records": [1, 2], "max_size": 2}')
    out = tmp_path / "audit.json"
    old = os.umask(0o022)
    try:
        rc = main(["audit", f"{tmp_path / 'const.py'}:anonymize", "--beta", "0.5", "--epsilon", "1",
                   "--delta", "0", "--domain", str(tmp_path / "dom.json"), "--json", str(out)])
    finally:
        os.umask(old)
    assert rc == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert '"verdict"' in out.read_text() and stat.S_IMODE(out.stat().st_mode) == 0o644
    _no_temp_leftovers(tmp_path)
