"""Render a :class:`~dps_verify.report.model.Report` through the jinja2 templates shipped in
``dps_verify/report/templates/`` (package data).

HTML is rendered with autoescape on: every string from a claim (statement, detail, figure …) is
escaped by jinja2, never by hand.  Markdown is rendered without HTML escaping; table cells go
through the ``cell`` filter, which escapes ``|`` and flattens newlines.
"""

from __future__ import annotations

from functools import cache

import jinja2

from dps_verify.report.model import FIGURE_CAPTION, Report


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


@cache
def _environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("dps_verify.report", "templates"),
        autoescape=autoescape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["cell"] = _md_cell
    return env


def render_markdown(report: Report) -> str:
    """The Markdown report (figure links as set by :meth:`Report.with_images`)."""
    return _environment(False).get_template("report.md.j2").render(report=report, caption=FIGURE_CAPTION)


def render_html(report: Report) -> str:
    """The HTML page, autoescaped."""
    return _environment(True).get_template("report.html.j2").render(report=report, caption=FIGURE_CAPTION)


__all__ = ["render_html", "render_markdown"]
