"""``dps-verify paper``: exit codes, --only, and report files."""

from __future__ import annotations

import json

from dps_verify.cli import main
from dps_verify.paper import claims as claims_pkg
from dps_verify.paper.claims import Claim, Result
from dps_verify.paper.claims.base import CONFIRMED


def test_only_no_match_exit_2(capsys):
    assert main(["paper", "--only", "no.such.claim*"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no claim id matches" in err


def test_only_subset_writes_reports(tmp_path, capsys, monkeypatch, figures_drawn_once):
    """Fig. 5 is drawn for real once per session (``figures_drawn_once``, the root conftest:
    tests/test_reliability_render.py draws it too); what is checked here is that the command
    asks for it once and writes it into both reports."""
    from dps_verify.paper import figures

    drawn: list[str] = []
    real_draw = figures_drawn_once(figures.draw_with_notes)

    def counting_draw(name, outdir):
        drawn.append(name)
        return real_draw(name, outdir)

    monkeypatch.setattr(figures, "draw_with_notes", counting_draw)
    j, md, h = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "html"
    rc = main(["paper", "--only", "cp.fig5.*", "--json", str(j), "--markdown", str(md), "--html", str(h)])
    out = capsys.readouterr().out
    assert drawn == ["fig5"]  # drawn once for the Markdown report, copied into the HTML one
    assert (tmp_path / "r_figures" / "fig5.png").read_bytes() == (h / "figures" / "fig5.png").read_bytes()
    assert rc == 0 and "2 claims" in out and "0 unexpected" in out
    data = json.loads(j.read_text())
    assert data["summary"]["claims"] == 2 and data["summary"]["unexpected"] == 0
    assert "cp.fig5.k1" in md.read_text()
    assert (tmp_path / "r_figures" / "fig5.png").stat().st_size > 1000
    page = (h / "index.html").read_text()
    assert "figures/fig5.png" in page and (h / "figures" / "fig5.png").exists()
    assert f"wrote {h / 'index.html'}" in out and f"wrote {j}" in out and f"wrote {md}" in out


def test_bad_html_path_exit_2_nothing_written(tmp_path, capsys):
    target = tmp_path / "missing" / "html"
    assert main(["paper", "--only", "cp.table1.one.*", "--html", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert not (tmp_path / "missing").exists()
    assert list(tmp_path.iterdir()) == []


def test_unexpected_verdict_exit_1(monkeypatch, capsys):
    wrong = Claim("test.wrong", "nowhere", "wrong on purpose", "none", "REFUTED",
                  lambda: Result(CONFIRMED, "1 = 1"))
    monkeypatch.setattr(claims_pkg, "REGISTRY", [wrong])
    assert main(["paper"]) == 1
    assert "1 unexpected" in capsys.readouterr().out
