"""Report writers for ``dps-verify paper`` (issue #5): JSON, Markdown and HTML.

Markdown and HTML regenerate CP Tables 1–2 and Figures 2–7 (PNG, via
:func:`dps_verify.figures.draw`) and place each beside the claims it supports.
"""

from __future__ import annotations

from dps_verify.report.writers import write_html, write_json, write_markdown

__all__ = ["write_html", "write_json", "write_markdown"]
