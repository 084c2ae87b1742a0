"""``--html DIR`` of a table audit: one self-contained page (inline SVG, no scripts).

Shows the verdict and claim, the witness, for a statistical audit the two event frequencies
Pr[E | D] and Pr[E | D − t] with their Clopper–Pearson intervals against e^ε·Pr[E | D − t] (CP
Def. 2 is violated where the first exceeds the second by more than δ), and for an exact audit
the histogram of the rows by decade of their own δ (which rows are at risk).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
          ".PASS{color:#14700f}.FAIL{color:#b00}.INCONCLUSIVE{color:#a60}"
          "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}td,th{padding:2px 8px}")


def _bar_chart(rows: Sequence[tuple[str, float, float | None, float | None]], width: int = 520) -> str:
    """Horizontal bars (label, value, low, high) on a linear 0..max scale, with whiskers."""
    top = max([v for _, v, _, _ in rows] + [h or 0 for *_, h in rows] + [1e-12])
    h = 28 * len(rows) + 10
    out = [f'<svg width="{width + 260}" height="{h}" role="img">']
    for i, (label, v, lo, hi) in enumerate(rows):
        y = 10 + 28 * i
        w = width * v / top
        out.append(f'<text x="0" y="{y + 14}" font-size="12">{html.escape(label)}</text>')
        out.append(f'<rect x="250" y="{y}" width="{w:.1f}" height="18" fill="#6a8fc7"/>')
        if lo is not None and hi is not None:
            x1, x2 = 250 + width * lo / top, 250 + width * hi / top
            out.append(f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{y + 9}" y2="{y + 9}" stroke="#000"/>')
        out.append(f'<text x="{255 + w:.1f}" y="{y + 14}" font-size="11">{v:.4g}</text>')
    out.append("</svg>")
    return "".join(out)


def _event_section(q: dict) -> str:
    if "p_with" not in q:
        return ""
    p1, p0 = q["p_with"], q["p_without"]
    e = q["e_eps_upper"]
    rows = [
        ("Pr[E | with the row] (p1)", p1["estimate"], *p1["ci"]),
        ("Pr[E | without the row] (p0)", p0["estimate"], *p0["ci"]),
        ("e^eps x p0 (upper)", e * p0["estimate"], e * p0["ci"][0], e * p0["ci"][1]),
    ]
    c = q["counts"]
    return (
        "<h2>Distinguishing event</h2>"
        f"<p>Target row {q['target']['row']}: <code>{html.escape(json.dumps(q['target']['record']))}</code>"
        f"<br>Event E: {html.escape(q['event'])} (direction: {q['direction']})</p>"
        f"<p>{c['hits_with']}/{c['n_with']} runs with the row, {c['hits_without']}/{c['n_without']} "
        f"without (independent runs, each on a fresh sample). Intervals (shown for reading; "
        f"the verdict is the exact joint test below): one-sided Clopper–Pearson at level "
        f"{q['alpha_each'] / 2:.3g} each; e^eps rounded up.</p>"
        + _bar_chart(rows)
        + f"<p>{html.escape(q.get('test', ''))}</p>"
        + f"<p>Lower bound on delta: <b>{q['delta_lower_bound']:.4g}</b> at confidence "
          f"{q['confidence']:.0%} (a lower confidence bound: were the claim true, a FAIL "
          f"would be returned with probability at most {1 - q['confidence']:.3g}, the test's "
          f"level); largest claimed delta these runs could refute with their "
          f"event: {_detectable_text(q['detectable_delta'])}.</p>"
    )


def _histogram_section(q: dict) -> str:
    hist = q.get("per_row_delta_histogram")
    if not hist:
        return ""
    rows = [(k if k == "0" else f"delta in [{k.replace('..', ', ')})", float(v), None, None)
            for k, v in hist.items()]
    return ("<h2>Rows by their own delta (removing that row)</h2>"
            f"<p>{q.get('rows_at_risk', 0)} of {q.get('rows', '?')} rows above the claimed delta; "
            "exact values (product law, cancellation theorem).</p>" + _bar_chart(rows))


def render_html(rep: Any) -> str:
    """The report page; tagged with a generator comment so it is only ever overwritten by us."""
    d = rep.to_dict()
    c = d["claim"]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><!-- generator: dps-verify -->",
        f"<title>dps-verify table audit: {d['verdict']}</title><style>{_STYLE}</style></head><body>",
        f"<h1 class='{d['verdict']}'>{d['verdict']}</h1>",
        f"<p>Claim: sampling at beta = {html.escape(c['beta'])}, then the pipeline, is "
        f"({html.escape(c['epsilon'])}, {html.escape(c['delta'])})-DP ({html.escape(c['definition'])}), "
        f"add/remove one row (CP §2.1, Def. 2, Def. 3); table {html.escape(str(c['source']))}, "
        f"{c['rows']} rows, QI {html.escape(', '.join(c['qi']))}.</p>",
    ]
    if d.get("witness"):
        parts.append(f"<h2>Witness</h2><pre>{html.escape(d['witness'].get('text', ''))}</pre>")
    for name, key in (("This table", "this_table"), ("Every table", "every_table")):
        q = d.get(key) or {}
        if not q:
            continue
        parts.append(f"<h2>{name}: <span class='{q.get('verdict')}'>{q.get('verdict')}</span></h2>"
                     f"<p>{html.escape(str(q.get('method', '')))}: {html.escape(str(q.get('summary', '')))}</p>")
        if key == "this_table":
            parts.append(_event_section(q))
            parts.append(_histogram_section(q))
    for n in d.get("notes", []):
        parts.append(f"<p><i>{html.escape(n)}</i></p>")
    parts.append(f"<p><small>{d['seconds']} s; generated by dps-verify</small></p></body></html>")
    return "\n".join(p for p in parts if p) + "\n"


def _detectable_text(v: float | None) -> str:
    return "none (too few runs to refute any delta)" if v is None else f"{v:.3g}"


__all__ = ["render_html"]
