"""Reports of ``dps-verify paper``: one model, rendered to JSON, Markdown
and HTML.

:mod:`~dps_verify.report.model` builds the model from claim outcomes,
:mod:`~dps_verify.report.render` renders it through the jinja2 templates in ``templates/``
(autoescaped HTML), :mod:`~dps_verify.report.writers` writes the files safely
(:mod:`dps_verify.core.fsio`).  Markdown and HTML regenerate CP Tables 1–2 and Figures 2–7 (PNG,
via :func:`dps_verify.paper.figures.draw`) and place each beside the claims it supports.
"""

from __future__ import annotations

from dps_verify.report.writers import to_dict, write_html, write_json, write_markdown

__all__ = ["to_dict", "write_html", "write_json", "write_markdown"]
