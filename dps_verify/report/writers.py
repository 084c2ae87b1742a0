"""JSON, Markdown and HTML writers.  Every output goes through :mod:`dps_verify.core.fsio`:
files are written atomically, report directories are built aside and moved into place, and
nothing dps_verify did not write is ever deleted or overwritten."""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path

from dps_verify.core import fsio
from dps_verify.paper import figures
from dps_verify.paper.claims.runner import Outcome
from dps_verify.paper.claims.tables import BETAS2, EPSS2, TABLE1_PRINTED, TABLE2_PRINTED

ARTEFACTS = ("table1", "table2", *figures.FIGURES)
TITLES = {
    "table1": "CP Table 1 — amplification by sampling (CP Thm 1)",
    "table2": "CP Table 2 — δ = d(20, β, ε), printed vs recomputed, and the exact δ (beyond the paper)",
    "fig2": "CP Figure 2", "fig3": "CP Figure 3", "fig4": "CP Figure 4", "fig5": "CP Figure 5",
    "fig6": "CP Figure 6", "fig7": "TR Figure 7",
}


def to_dict(outcomes: list[Outcome], seconds: float) -> dict:
    counts = Counter(o.result.verdict for o in outcomes)
    return {
        "summary": {"claims": len(outcomes), "as_expected": sum(o.ok for o in outcomes),
                    "unexpected": sum(not o.ok for o in outcomes), "verdicts": dict(counts),
                    "seconds": round(seconds, 2)},
        "claims": [{
            "id": o.claim.id, "source": o.claim.source, "where": o.claim.where,
            "statement": o.claim.statement, "method": o.claim.method,
            "expected": o.claim.expected, "verdict": o.result.verdict, "ok": o.ok,
            "figure": o.result.figure, "detail": o.result.detail, "seconds": round(o.seconds, 3),
            "artefact": o.claim.artefact, "data": o.result.data,
        } for o in outcomes],
    }


def write_json(outcomes: list[Outcome], seconds: float, path: Path) -> Path:
    return fsio.write_text(path, json.dumps(to_dict(outcomes, seconds), indent=2, default=str) + "\n",
                           what="JSON report")


def _by_id(outcomes: list[Outcome]) -> dict[str, Outcome]:
    return {o.claim.id: o for o in outcomes}


def _table1_rows(outcomes: list[Outcome]) -> list[list[str]]:
    by = _by_id(outcomes)
    rows = []
    for (which, beta, what), printed in TABLE1_PRINTED.items():
        o = by.get(f"cp.table1.{which}.beta{beta}.{what}")
        rows.append([{"ln11": "(ln 11, 1e-5)-DP", "one": "(1, 0)-DP"}[which], beta,
                     "ε" if what == "eps" else "δ", printed,
                     o.result.figure if o else "(not run)", o.result.verdict if o else ""])
    return rows


def _table2_rows(outcomes: list[Outcome]) -> list[list[str]]:
    by = _by_id(outcomes)
    rows = []
    for b in BETAS2:
        for e in EPSS2:
            o = by.get(f"cp.table2.beta{b}.eps{e}")
            ob = by.get(f"beyond.table2.beta{b}.eps{e}")
            rows.append([b, e, TABLE2_PRINTED[(b, e)],
                         o.result.data.get("rounded", "") if o else "(not run)",
                         o.result.verdict if o else "",
                         f"{ob.result.data['exact']:.3e}" if ob else "(not run)",
                         str(ob.result.data["k_exact"]) if ob else "",
                         f"{ob.result.data['beta_exact']:.4f}" if ob else ""])
    return rows


_T1_HEAD = ["algorithm", "β", "quantity", "printed", "recomputed", "verdict"]
_T2_HEAD = ["β", "ε", "printed d", "recomputed d", "verdict", "exact δ (beyond)",
            "k for same δ (beyond)", "max β at k=20 (beyond)"]


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def _needed(outcomes: list[Outcome]) -> list[str]:
    return [a for a in ARTEFACTS if any(o.claim.artefact == a for o in outcomes)]


def _draw_all(outcomes: list[Outcome], outdir: Path) -> dict[str, str]:
    return {a: figures.draw(a, outdir).name for a in _needed(outcomes) if a.startswith("fig")}


def _summary_line(outcomes: list[Outcome], seconds: float) -> str:
    c = Counter(o.result.verdict for o in outcomes)
    bad = sum(not o.ok for o in outcomes)
    return (f"{len(outcomes)} claims in {seconds:.1f} s: " + ", ".join(f"{n} {v}" for v, n in sorted(c.items()))
            + f"; {len(outcomes) - bad} as expected, {bad} unexpected")


def write_markdown(outcomes: list[Outcome], seconds: float, path: Path) -> Path:
    """Markdown report; figures are drawn next to the file (``<stem>_figures/``, a report
    directory of its own: see :func:`dps_verify.core.fsio.write_report_dir`)."""
    path = Path(path).absolute()
    figdir = path.parent / f"{path.stem}_figures"
    pngs: dict[str, str] = {}
    if any(a.startswith("fig") for a in _needed(outcomes)):
        fsio.write_report_dir(figdir, lambda d: pngs.update(_draw_all(outcomes, d)),
                              what="Markdown report figures")
    lines = ["# dps-verify paper: claim-by-claim report", "",
             _summary_line(outcomes, seconds), "",
             "Rows whose source is **beyond** are our additions, not claims of the paper.", ""]
    lines += [_md_table(["claim", "source", "where", "verdict", "expected", "key figure", "time"],
                        [[o.claim.id, o.claim.source, o.claim.where, o.result.verdict,
                          o.claim.expected, o.result.figure, f"{o.seconds:.2f}s"] for o in outcomes]), ""]
    for a in _needed(outcomes):
        lines += [f"## {TITLES[a]}", ""]
        if a == "table1":
            lines += [_md_table(_T1_HEAD, _table1_rows(outcomes)), ""]
        elif a == "table2":
            lines += [_md_table(_T2_HEAD, _table2_rows(outcomes)), ""]
        else:
            lines += [f"![{TITLES[a]}]({figdir.name}/{pngs[a]})", "",
                      "Solid: the paper's bound d; dashed: exact δ (beyond the paper).", ""]
        for o in outcomes:
            if o.claim.artefact == a:
                lines += [f"- **{o.claim.id}** — {o.result.verdict}: {o.claim.statement} "
                          f"*{o.result.figure}.* {o.result.detail}"]
        lines.append("")
    lines += ["## All claims in detail", ""]
    for o in outcomes:
        lines += [f"### {o.claim.id} ({o.claim.where})", "",
                  f"- claim: {o.claim.statement}", f"- method: {o.claim.method}",
                  f"- verdict: **{o.result.verdict}** (expected {o.claim.expected})",
                  f"- key figure: {o.result.figure}", f"- detail: {o.result.detail}", ""]
    return fsio.write_text(path, "\n".join(lines) + "\n", what="Markdown report")


_CSS = """body{font-family:sans-serif;max-width:1150px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}.ok{color:#060}.bad{color:#b00;font-weight:bold}
.v-REFUTED{background:#fde0e0}.v-CONFIRMED-WITH-CORRECTION{background:#fff3cd}.v-CONFIRMED{background:#e6f4ea}
.v-NOT-MACHINE-CHECKABLE{background:#eee}.art{display:flex;gap:1.5em;align-items:flex-start;margin-bottom:2em}
.art img{width:560px;border:1px solid #ddd}.claims{font-size:13px}.beyond{font-style:italic}
details{font-size:12px;margin:.3em 0}"""


def _h(x: object) -> str:
    return html.escape(str(x))


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    return ("<table><tr>" + "".join(f"<th>{_h(c)}</th>" for c in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{_h(c)}</td>" for c in r) + "</tr>" for r in rows)
            + "</table>")


def write_html(outcomes: list[Outcome], seconds: float, outdir: Path) -> Path:
    """``outdir/index.html`` plus ``outdir/figures/*.png``; built aside and moved into place only
    when complete (:func:`dps_verify.core.fsio.write_report_dir`).  Returns the index path."""

    def build(tmp: Path) -> None:
        pngs = {}
        if any(a.startswith("fig") for a in _needed(outcomes)):
            (tmp / "figures").mkdir()
            pngs = {a: f"figures/{n}" for a, n in _draw_all(outcomes, tmp / "figures").items()}
        body = [f"<h1>dps-verify paper</h1><p>{_h(_summary_line(outcomes, seconds))}</p>",
                "<p>Li, Qardaji &amp; Su, ASIACCS 2012 (CP) and the 2011 technical report (TR). "
                "Entries marked <i>beyond</i> are our additions, not claims of the paper.</p>",
                "<table><tr><th>claim</th><th>source</th><th>where</th><th>verdict</th><th>expected</th>"
                "<th>key figure</th><th>time</th></tr>"]
        for o in outcomes:
            cls = "ok" if o.ok else "bad"
            body.append(f"<tr class='v-{o.result.verdict}'><td><a href='#{_h(o.claim.id)}'>{_h(o.claim.id)}</a></td>"
                        f"<td>{_h(o.claim.source)}</td><td>{_h(o.claim.where)}</td><td>{_h(o.result.verdict)}</td>"
                        f"<td class='{cls}'>{_h(o.claim.expected)}</td><td>{_h(o.result.figure)}</td>"
                        f"<td>{o.seconds:.2f}s</td></tr>")
        body.append("</table>")
        for a in _needed(outcomes):
            body.append(f"<h2>{_h(TITLES[a])}</h2><div class='art'>")
            if a == "table1":
                body.append(_html_table(_T1_HEAD, _table1_rows(outcomes)))
            elif a == "table2":
                body.append(_html_table(_T2_HEAD, _table2_rows(outcomes)))
            else:
                body.append(f"<div><img src='{_h(pngs[a])}' alt='{_h(TITLES[a])}'><br><small>Solid: "
                            "paper's bound; dashed: exact δ (beyond the paper).</small></div>")
            body.append("<div class='claims'>")
            for o in outcomes:
                if o.claim.artefact == a:
                    body.append(f"<p class='v-{o.result.verdict}'><b>{_h(o.claim.id)}</b> — "
                                f"{_h(o.result.verdict)}<br>{_h(o.claim.statement)}<br><i>{_h(o.result.figure)}</i></p>")
            body.append("</div></div>")
        body.append("<h2>All claims</h2>")
        for o in outcomes:
            body.append(f"<h3 id='{_h(o.claim.id)}' class='v-{o.result.verdict}'>{_h(o.claim.id)} — "
                        f"{_h(o.result.verdict)}</h3><p><b>{_h(o.claim.where)}.</b> {_h(o.claim.statement)}"
                        f"<br>Method: {_h(o.claim.method)}<br>Key figure: {_h(o.result.figure)}</p>"
                        f"<details open><summary>detail</summary>{_h(o.result.detail)}</details>")
        page = ("<!doctype html><html><head><meta charset='utf-8'><title>dps-verify paper</title>"
                f"<style>{_CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n")
        (tmp / "index.html").write_text(page, encoding="utf-8")

    return fsio.write_report_dir(outdir, build, what="HTML report") / "index.html"
