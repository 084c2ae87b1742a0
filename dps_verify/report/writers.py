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
from dps_verify.core.errors import DPSVerifyError
from dps_verify.paper import figures
from dps_verify.paper.claims.runner import Outcome
from dps_verify.report.model import Report, build_report
from dps_verify.report.render import render_html, render_markdown


def to_dict(outcomes: list[Outcome], seconds: float) -> dict:
    """The JSON report as a dict."""
    return build_report(outcomes, seconds).to_dict()


def _placeholder(name: str, outdir: Path, why: str) -> Path:
    """A PNG that says figure ``name`` could not be drawn, and why (the report still renders)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(6.4, 1.6), dpi=110)
    try:
        fig.text(0.02, 0.5, f"{name}: could not be drawn\n{why[:300]}", fontsize=8, color="firebrick",
                 va="center", wrap=True)
        path = Path(outdir) / f"{name}.png"
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


#: Figures already drawn in this run: artefact -> (file name, PNG bytes, what the drawing left
#: out).  Handed to each report format of one ``dps-verify paper`` run, so that a figure is
#: drawn once and copied into the other formats' directories.
DrawnFigures = dict[str, tuple[str, bytes, list[str]]]


def draw_figures(report: Report, outdir: Path,
                 drawn: DrawnFigures | None = None) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Draw every figure the report needs into ``outdir``: artefact -> file name, and
    artefact -> what its drawing left out.  A figure that cannot be drawn at all becomes a
    placeholder image naming the error; the report is never aborted by a figure.  A figure
    found in ``drawn`` is copied from there instead of drawn again; what is drawn is added."""
    names: dict[str, str] = {}
    notes: dict[str, list[str]] = {}
    for a in report.figures_needed():
        if drawn is not None and a in drawn:
            file_name, png, left_out = drawn[a]
            (Path(outdir) / file_name).write_bytes(png)
            names[a], notes[a] = file_name, list(left_out)
            continue
        try:
            path, left_out = figures.draw_with_notes(a, outdir)
        except (DPSVerifyError, ValueError, ArithmeticError, RuntimeError) as exc:
            why = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            path, left_out = _placeholder(a, outdir, why), [f"the whole figure: not drawn ({why})"]
        names[a] = path.name
        notes[a] = left_out
        if drawn is not None:
            drawn[a] = (path.name, path.read_bytes(), list(left_out))
    return names, notes


def write_json(outcomes: list[Outcome], seconds: float, path: Path, *, force: bool = False) -> Path:
    """Write the JSON report atomically; returns the absolute path written.  An existing file
    that dps-verify did not write is refused unless ``force`` (:func:`fsio.check_output_file`)."""
    data = fsio.generator_json(build_report(outcomes, seconds).to_dict())
    text = json.dumps(data, indent=2, default=str) + "\n"
    return fsio.write_output_file(path, text, option="--json", force=force, what="JSON report")


def write_markdown(outcomes: list[Outcome], seconds: float, path: Path, *, force: bool = False,
                   drawn: DrawnFigures | None = None) -> Path:
    """Markdown report; figures are drawn next to the file (``<stem>_figures/``, a report
    directory of its own: see :func:`dps_verify.core.fsio.write_report_dir`), or copied from
    ``drawn`` (:func:`draw_figures`).  An existing file that dps-verify did not write is refused
    unless ``force``, before any figure is drawn."""
    path = fsio.check_output_file(path, option="--markdown", force=force)
    report = build_report(outcomes, seconds)
    if report.figures_needed():
        figdir = path.parent / f"{path.stem}_figures"
        pngs: dict[str, str] = {}
        notes: dict[str, list[str]] = {}

        def build(d: Path) -> None:
            names, left_out = draw_figures(report, d, drawn)
            pngs.update(names)
            notes.update(left_out)

        fsio.write_report_dir(figdir, build, what="Markdown report figures")
        report = report.with_images({a: f"{figdir.name}/{n}" for a, n in pngs.items()}, notes)
    return fsio.write_output_file(path, fsio.generator_markdown(render_markdown(report)), option="--markdown",
                                  force=force, what="Markdown report")


def write_html(outcomes: list[Outcome], seconds: float, outdir: Path, *,
               drawn: DrawnFigures | None = None) -> Path:
    """``outdir/index.html`` plus ``outdir/figures/*.png`` (drawn, or copied from ``drawn``:
    :func:`draw_figures`); built aside and moved into place only when complete
    (:func:`dps_verify.core.fsio.write_report_dir`).  Returns the index path."""
    report = build_report(outcomes, seconds)

    def build(tmp: Path) -> None:
        page = report
        if report.figures_needed():
            (tmp / "figures").mkdir()
            names, notes = draw_figures(report, tmp / "figures", drawn)
            page = report.with_images({a: f"figures/{n}" for a, n in names.items()}, notes)
        (tmp / "index.html").write_text(render_html(page), encoding="utf-8")

    return fsio.write_report_dir(outdir, build, what="HTML report") / "index.html"


__all__ = ["DrawnFigures", "draw_figures", "to_dict", "write_html", "write_json", "write_markdown"]
