"""One report model rendered through jinja2 templates (HTML autoescaped)."""

from __future__ import annotations

import json
from importlib import resources

from dps_verify.paper.claims import Claim, Result
from dps_verify.paper.claims.base import CONFIRMED, REFUTED
from dps_verify.paper.claims.runner import Outcome
from dps_verify.report import model, render, writers

EVIL = "<script>alert('x')</script> & a|b"


def _outcomes() -> list[Outcome]:
    a = Claim("test.evil", "CP §9", EVIL, "none", CONFIRMED, lambda: Result(CONFIRMED, "1"), artefact="fig5")
    b = Claim("test.plain", "TR §1", "plain", "none", CONFIRMED, lambda: Result(REFUTED, "2"))
    return [Outcome(a, Result(CONFIRMED, "f < g | h", "detail\nline 2 <i>"), 0.5),
            Outcome(b, Result(REFUTED, "2 = 3"), 0.25)]


def test_templates_are_package_data():
    names = {p.name for p in resources.files("dps_verify.report").joinpath("templates").iterdir()}
    assert {"report.html.j2", "report.md.j2"} <= names


def test_html_is_autoescaped():
    rep = model.build_report(_outcomes(), 1.0).with_images({"fig5": "figures/fig5.png"})
    page = render.render_html(rep)
    assert "<script>" not in page and "&lt;script&gt;" in page and "f &lt; g | h" in page
    assert "detail\nline 2 &lt;i&gt;" in page
    assert 'src="figures/fig5.png"' in page
    assert rep.summary in page and "1 as expected, 1 unexpected" in rep.summary


def test_markdown_and_json_come_from_the_same_model():
    outs = _outcomes()
    rep = model.build_report(outs, 1.0).with_images({"fig5": "r_figures/fig5.png"})
    md = render.render_markdown(rep)
    assert "| f < g \\| h |" in md  # table cells escape the pipe; Markdown is not HTML-escaped
    assert "![CP Figure 5](r_figures/fig5.png)" in md
    assert md.splitlines()[2] == rep.summary
    d = writers.to_dict(outs, 1.0)
    assert d == json.loads(json.dumps(rep.to_dict()))
    assert d["summary"] == {"claims": 2, "as_expected": 1, "unexpected": 1,
                            "verdicts": {"CONFIRMED": 1, "REFUTED": 1}, "seconds": 1.0}
    assert [c["id"] for c in d["claims"]] == ["test.evil", "test.plain"]


def test_summary_order_is_fixed():
    """One summary line, verdicts in one order (CONFIRMED first), whatever the input order."""
    outs = list(reversed(_outcomes()))
    assert "1 CONFIRMED, 1 REFUTED" in model.summary_line(outs, 0.0)
