"""Every report renders: the full ``paper`` HTML and Markdown reports (every registered claim,
every figure) and the audit report, on every test run.

The claims are not re-run here (the claim tests and CI's ``dps-verify paper`` do that): the
report model is built from one outcome per registered claim carrying its expected verdict, and
rendered with every figure drawn for real -- drawing is what used to abort the report (CP Fig. 6
at beta = 0.4, k = 10, 15, where no epsilon brings the exact delta down to 1e-6).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dps_verify.paper import figures
from dps_verify.paper.claims import REGISTRY, Result
from dps_verify.paper.claims.runner import Outcome
from dps_verify.report import model, writers


def _outcomes() -> list[Outcome]:
    return [Outcome(c, Result(c.expected, "(rendered without running)", "detail"), 0.0) for c in REGISTRY]


#: The grids the default run draws each figure on (``figures`` constant -> value): every figure
#: with at least two curves or points, and both kinds of point of CP Fig. 6 (β = 0.4 at k = 10,
#: 15 cannot reach δ ≤ 1e-6 and is left out; k = 20 is drawn; β = 0.1 is drawn at all three).
#: The larger grids add drawn points only (~6 s of CPU for Fig. 6's larger k and further β,
#: ~2.5 s for the other figures' further curves); the deep profile, and CI's ``dps-verify
#: paper`` on every run, draw the full figures.
FIGURE_GRIDS_DEFAULT_RUN = {
    "FIG2_KS": (5, 50),
    "FIG3_BETAS": ("0.05", "0.4"),
    "FIG4_BETAS": ("0.1",),
    "FIG6_BETAS": ("0.1", "0.4"),
    "FIG6_KS": (10, 15, 20),
    "FIG7_EPS0": ("0.25", "2"),
    "BETA_GT_DELTA_BETAS": ("0.02", "0.2", "0.5"),
}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, deep_profile, figures_drawn_once) -> dict[str, Path]:
    """One model, rendered once as HTML, Markdown and JSON.  By default each figure is drawn
    for real once per session and the other format gets a copy of its PNG with the same notes
    (``figures_drawn_once``, the root conftest; ~5 s of CPU less: the Markdown report drew all
    seven again, and tests/test_cmd_paper.py draws Fig. 5 too); under deep each format draws
    its own."""
    out = tmp_path_factory.mktemp("reports")
    outs = _outcomes()
    with pytest.MonkeyPatch.context() as mp:
        if not deep_profile:
            for name, grid in FIGURE_GRIDS_DEFAULT_RUN.items():
                assert hasattr(figures, name), name  # a renamed constant must not go unnoticed
                mp.setattr(figures, name, grid)
        mp.setattr(figures, "draw_with_notes", figures_drawn_once(figures.draw_with_notes))
        return {
            "html": writers.write_html(outs, 1.0, out / "html"),
            "md": writers.write_markdown(outs, 1.0, out / "report.md"),
            "json": writers.write_json(outs, 1.0, out / "report.json"),
        }


def test_html_report_has_every_claim_and_figure(rendered):
    page = rendered["html"].read_text(encoding="utf-8")
    for c in REGISTRY:
        assert c.id in page
    needed = model.build_report(_outcomes(), 1.0).figures_needed()
    assert set(needed) == set(figures.FIGURES)  # the registry supports every figure
    for name in needed:
        png = rendered["html"].parent / "figures" / f"{name}.png"
        assert png.is_file() and png.stat().st_size > 1000
        assert f'src="figures/{name}.png"' in page


def test_markdown_report_has_every_claim_and_figure(rendered):
    md = rendered["md"].read_text(encoding="utf-8")
    for c in REGISTRY:
        assert f"### {c.id} " in md
    figdir = rendered["md"].parent / "report_figures"
    for name in figures.FIGURES:
        assert (figdir / f"{name}.png").is_file()
        assert f"(report_figures/{name}.png)" in md
    # each figure was drawn, none replaced by the placeholder image of a drawing that raised
    assert "the whole figure: not drawn" not in md
    assert "the whole figure: not drawn" not in rendered["html"].read_text(encoding="utf-8")


def test_figure_six_says_what_it_left_out(rendered):
    """CP Fig. 6 at beta = 0.4, k = 10 and 15: no epsilon reaches delta <= 1e-6 (beta^k > 1e-6);
    the points are left out and the report says so instead of aborting."""
    md = rendered["md"].read_text(encoding="utf-8")
    section = md.split("## CP Figure 6", 1)[1].split("\n## ", 1)[0]
    assert "Left out of this figure" in section
    assert "β=0.4, k=10 (exact δ)" in section and "β=0.4, k=15 (exact δ)" in section
    assert "β=0.4, k=10 (paper d)" in section
    html = rendered["html"].read_text(encoding="utf-8")
    assert "β=0.4, k=15 (exact δ): not drawn" in html


def test_json_report_lists_every_claim(rendered):
    data = json.loads(rendered["json"].read_text(encoding="utf-8"))
    assert [c["id"] for c in data["claims"]] == [c.id for c in REGISTRY]


def test_a_figure_that_cannot_be_drawn_becomes_a_placeholder(tmp_path, monkeypatch):
    """Negative control of the guard: a figure whose drawing raises entirely is replaced by an
    image naming the error, and the report still renders and says so."""
    from dps_verify.core.errors import CertificationError

    def broken(name, outdir):
        raise CertificationError("search limit reached (test)")

    monkeypatch.setattr(figures, "draw_with_notes", broken)
    outs = [o for o in _outcomes() if o.claim.artefact == "fig5"][:1]
    path = writers.write_markdown(outs, 1.0, tmp_path / "r.md")
    md = path.read_text(encoding="utf-8")
    assert "the whole figure: not drawn (CertificationError: search limit reached (test))" in md
    assert (tmp_path / "r_figures" / "fig5.png").is_file()


def test_a_missing_point_leaves_a_gap_not_an_error(tmp_path, monkeypatch):
    """One point that raises is a gap with a note; the other points are still drawn (TR Fig. 7
    with two of its curves: the one holding the raising point and one more; the reports above
    draw the figure itself, all five curves under deep and in CI's ``dps-verify paper``)."""
    from dps_verify.core.errors import CertificationError

    monkeypatch.setattr(figures, "FIG7_EPS0", ("1", "2"))
    real = figures.fig7_f

    def flaky(eps0, z, *a, **k):
        if eps0 == "1" and z == figures.FIG7_Z[0]:
            raise CertificationError("precision limit (test)")
        return real(eps0, z, *a, **k)

    monkeypatch.setattr(figures, "fig7_f", flaky)
    path, notes = figures.draw_with_notes("fig7", tmp_path)
    assert path.is_file()
    assert notes == [f"ε0=1, z={figures.FIG7_Z[0]}: not drawn (precision limit (test))"]


def test_a_figure_drawn_once_is_drawn_again_when_its_constants_change(
        tmp_path, monkeypatch, figures_drawn_once, deep_profile):
    """The session's figure cache (``figures_drawn_once``) hands out a copy only for the same
    drawing function and the same constants of that figure; under deep every call draws."""
    calls: list[str] = []

    def counting(name, outdir):
        calls.append(name)
        path = Path(outdir) / f"{name}.png"
        path.write_bytes(f"drawing {len(calls)}".encode())
        return path, [f"note {len(calls)}"]

    draw = figures_drawn_once(counting)
    dirs = [tmp_path / d for d in "abc"]
    for d in dirs:
        d.mkdir()
    first = draw("fig5", dirs[0])
    monkeypatch.setattr(figures, "FIG2_KS", (5,))  # another figure's constant
    second = draw("fig5", dirs[1])
    monkeypatch.setattr(figures, "FIG5_BETA", "0.05")
    third = draw("fig5", dirs[2])
    if deep_profile:
        assert calls == ["fig5"] * 3
        return
    assert calls == ["fig5", "fig5"]
    assert second[0] == dirs[1] / "fig5.png" and second[0].read_bytes() == b"drawing 1"
    assert first[1] == second[1] == ["note 1"] and third[1] == ["note 2"]
    assert third[0].read_bytes() == b"drawing 2"


def test_unknown_figure_is_a_usage_error(tmp_path):
    with pytest.raises(ValueError, match="unknown figure"):
        figures.draw_with_notes("fig99", tmp_path)


def _audit_reports():
    from fractions import Fraction

    from dps_verify.audit.report import AuditReport
    from dps_verify.verdict.witness import Witness

    claim = {"beta": "1/2", "epsilon": "1", "delta": "0.001", "definition": "hockey-stick"}
    w = Witness((1, 2, 2), (1, 2), (("<script>",),), Fraction(1, 3), Fraction(1, 9), Fraction(1),
                Fraction(1, 30), "hockey-stick", target=2, shape="crowd")
    worst = {"lower": Fraction(1, 30), "upper": Fraction(1, 30), "where": "crowd"}
    cov = {"domain": {"records": 2}, "pairs_exact": 3, "pairs_statistical": 0, "shapes": {"crowd": 3},
           "max_size_used": 3}
    return [AuditReport("FAIL", claim, "exact", w, worst, cov, ["a note"]),
            AuditReport("PASS", claim, "exact", None, worst, cov),
            AuditReport("INCONCLUSIVE", claim, "statistical", None, None, cov, ["why"])]


def test_audit_report_renders_every_verdict():
    for rep in _audit_reports():
        text = rep.summary()
        assert text.splitlines()[-1].startswith(f"verdict: {rep.verdict}")
        data = json.loads(rep.to_json())
        assert data["verdict"] == rep.verdict
