"""JSON, Markdown and HTML report files for ``dps-verify paper``.

One model (:func:`dps_verify.report.model.build_report`) is rendered three ways: JSON from
:meth:`~dps_verify.report.model.Report.to_dict`, Markdown and HTML through the jinja2 templates
(:mod:`dps_verify.report.render`).  Every output goes through :mod:`dps_verify.core.fsio`: files
are written atomically, report directories are built aside and moved into place, and nothing
dps_verify did not write is ever deleted or overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path

from dps_verify.core import fsio
from dps_verify.paper import figures
from dps_verify.paper.claims.runner import Outcome
from dps_verify.report.model import Report, build_report
from dps_verify.report.render import render_html, render_markdown


def to_dict(outcomes: list[Outcome], seconds: float) -> dict:
    """The JSON report as a dict."""
    return build_report(outcomes, seconds).to_dict()


def _draw(report: Report, outdir: Path) -> dict[str, str]:
    """Draw every figure the report needs into ``outdir``; artefact -> file name."""
    return {a: figures.draw(a, outdir).name for a in report.figures_needed()}


def write_json(outcomes: list[Outcome], seconds: float, path: Path) -> Path:
    """Write the JSON report atomically; returns the absolute path written."""
    text = json.dumps(build_report(outcomes, seconds).to_dict(), indent=2, default=str) + "\n"
    return fsio.write_text(path, text, what="JSON report")


def write_markdown(outcomes: list[Outcome], seconds: float, path: Path) -> Path:
    """Markdown report; figures are drawn next to the file (``<stem>_figures/``, a report
    directory of its own: see :func:`dps_verify.core.fsio.write_report_dir`)."""
    path = Path(path).absolute()
    report = build_report(outcomes, seconds)
    if report.figures_needed():
        figdir = path.parent / f"{path.stem}_figures"
        pngs: dict[str, str] = {}
        fsio.write_report_dir(figdir, lambda d: pngs.update(_draw(report, d)), what="Markdown report figures")
        report = report.with_images({a: f"{figdir.name}/{n}" for a, n in pngs.items()})
    return fsio.write_text(path, render_markdown(report), what="Markdown report")


def write_html(outcomes: list[Outcome], seconds: float, outdir: Path) -> Path:
    """``outdir/index.html`` plus ``outdir/figures/*.png``; built aside and moved into place only
    when complete (:func:`dps_verify.core.fsio.write_report_dir`).  Returns the index path."""
    report = build_report(outcomes, seconds)

    def build(tmp: Path) -> None:
        page = report
        if report.figures_needed():
            (tmp / "figures").mkdir()
            page = report.with_images({a: f"figures/{n}" for a, n in _draw(report, tmp / "figures").items()})
        (tmp / "index.html").write_text(render_html(page), encoding="utf-8")

    return fsio.write_report_dir(outdir, build, what="HTML report") / "index.html"


__all__ = ["to_dict", "write_html", "write_json", "write_markdown"]
