"""One report model for ``dps-verify paper``, built once from the claim outcomes.

JSON, Markdown and HTML are all rendered from :class:`Report`: JSON by
:meth:`Report.to_dict`, Markdown and HTML by the jinja2 templates in
``dps_verify/report/templates/`` (see :mod:`dps_verify.report.render`).  The model holds plain
strings and numbers only; formatting decisions (digits, verdict order) are made here, once.

Artefacts: CP Tables 1–2 are regenerated as rows (printed value beside the recomputed one, CP
§4.2 and Table 2), CP Figures 2–6 and TR Figure 7 as PNG files drawn by
:func:`dps_verify.paper.figures.draw`; each is placed beside the claims it supports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dps_verify.paper import figures
from dps_verify.paper.claims.runner import Outcome
from dps_verify.paper.claims.tables import BETAS2, EPSS2, TABLE1_PRINTED, TABLE2_PRINTED

#: Verdicts in the order every summary lists them.
VERDICT_ORDER = ("CONFIRMED", "CONFIRMED-WITH-CORRECTION", "REFUTED", "NOT-MACHINE-CHECKABLE")
ARTEFACTS = ("table1", "table2", *figures.FIGURES)
TITLES = {
    "table1": "CP Table 1 — amplification by sampling (CP Thm 1)",
    "table2": "CP Table 2 — δ = d(20, β, ε), printed vs recomputed, and the exact δ (beyond the paper)",
    "fig2": "CP Figure 2", "fig3": "CP Figure 3", "fig4": "CP Figure 4", "fig5": "CP Figure 5",
    "fig6": "CP Figure 6", "fig7": "TR Figure 7",
    "fig-beta-gt-delta": "CP Thm 5 versus Def 3 (β > δ): where d(k, β, ε) ≥ β (beyond the paper)",
}
FIGURE_CAPTION = "Solid: the paper's bound d; dashed: exact δ (beyond the paper)."
T1_HEAD = ("algorithm", "β", "quantity", "printed", "recomputed", "verdict")
T2_HEAD = ("β", "ε", "printed d", "recomputed d", "verdict", "exact δ (beyond)",
           "k for same δ (beyond)", "max β at k=20 (beyond)")


@dataclass(frozen=True)
class ClaimRow:
    """One claim and its outcome, as every report shows it."""

    id: str
    source: str
    where: str
    statement: str
    method: str
    expected: str
    verdict: str
    ok: bool
    figure: str
    detail: str
    seconds: float
    artefact: str | None
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def time(self) -> str:
        return f"{self.seconds:.2f}s"


@dataclass(frozen=True)
class Artefact:
    """A regenerated table or figure and the claims it supports."""

    key: str
    title: str
    claims: tuple[ClaimRow, ...]
    head: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    image: str | None = None  # file name of the drawn figure, set by the writer
    #: what the drawing could not compute (points or series left out), set by the writer
    notes: tuple[str, ...] = ()

    @property
    def is_figure(self) -> bool:
        return self.key.startswith("fig")


@dataclass(frozen=True)
class Report:
    """Everything a report says, in display order."""

    claims: tuple[ClaimRow, ...]
    artefacts: tuple[Artefact, ...]
    seconds: float
    title: str = "dps-verify paper"

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(r.verdict for r in self.claims)
        return {v: c[v] for v in (*VERDICT_ORDER, *sorted(set(c) - set(VERDICT_ORDER))) if c[v]}

    @property
    def unexpected(self) -> int:
        return sum(not r.ok for r in self.claims)

    @property
    def summary(self) -> str:
        parts = ", ".join(f"{n} {v}" for v, n in self.counts.items())
        n = len(self.claims)
        return (f"{n} claims in {self.seconds:.1f} s: {parts}; "
                f"{n - self.unexpected} as expected, {self.unexpected} unexpected")

    def figures_needed(self) -> list[str]:
        return [a.key for a in self.artefacts if a.is_figure]

    def with_images(self, images: dict[str, str], notes: dict[str, list[str]] | None = None) -> Report:
        """The same report with figure file names (``{"fig5": "figures/fig5.png"}``) attached,
        and, per figure, the lines saying what its drawing left out."""
        notes = notes or {}
        arts = tuple(Artefact(a.key, a.title, a.claims, a.head, a.rows, images.get(a.key, a.image),
                              tuple(notes.get(a.key, a.notes)))
                     for a in self.artefacts)
        return Report(self.claims, arts, self.seconds, self.title)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (its format is stable: tools read it)."""
        return {
            "summary": {"claims": len(self.claims), "as_expected": len(self.claims) - self.unexpected,
                        "unexpected": self.unexpected, "verdicts": self.counts,
                        "seconds": round(self.seconds, 2)},
            "claims": [{
                "id": r.id, "source": r.source, "where": r.where, "statement": r.statement,
                "method": r.method, "expected": r.expected, "verdict": r.verdict, "ok": r.ok,
                "figure": r.figure, "detail": r.detail, "seconds": round(r.seconds, 3),
                "artefact": r.artefact, "data": r.data,
            } for r in self.claims],
        }


def _row(o: Outcome) -> ClaimRow:
    c, r = o.claim, o.result
    return ClaimRow(c.id, c.source, c.where, c.statement, c.method, c.expected, r.verdict, o.ok,
                    r.figure, r.detail, o.seconds, c.artefact, dict(r.data))


def _table1_rows(by: dict[str, ClaimRow]) -> tuple[tuple[str, ...], ...]:
    rows = []
    for (which, beta, what), printed in TABLE1_PRINTED.items():
        r = by.get(f"cp.table1.{which}.beta{beta}.{what}")
        rows.append(({"ln11": "(ln 11, 1e-5)-DP", "one": "(1, 0)-DP"}[which], str(beta),
                     "ε" if what == "eps" else "δ", str(printed),
                     r.figure if r else "(not run)", r.verdict if r else ""))
    return tuple(rows)


def _fmt(data: dict[str, Any], key: str, spec: str) -> str:
    """``data[key]`` formatted with ``spec``; a missing or unformattable value shows as
    "(no data)" instead of aborting the report."""
    if key not in data:
        return "(no data)"
    try:
        return format(data[key], spec)
    except (TypeError, ValueError):
        return str(data[key])


def _table2_rows(by: dict[str, ClaimRow]) -> tuple[tuple[str, ...], ...]:
    rows = []
    for b in BETAS2:
        for e in EPSS2:
            r = by.get(f"cp.table2.beta{b}.eps{e}")
            rb = by.get(f"beyond.table2.beta{b}.eps{e}")
            rows.append((str(b), str(e), str(TABLE2_PRINTED[(b, e)]),
                         str(r.data.get("rounded", "")) if r else "(not run)",
                         r.verdict if r else "",
                         _fmt(rb.data, "exact", ".3e") if rb else "(not run)",
                         _fmt(rb.data, "k_exact", "") if rb else "",
                         _fmt(rb.data, "beta_exact", ".4f") if rb else ""))
    return tuple(rows)


def build_report(outcomes: list[Outcome], seconds: float) -> Report:
    """The report model of a ``dps-verify paper`` run."""
    rows = tuple(_row(o) for o in outcomes)
    by = {r.id: r for r in rows}
    arts = []
    for key in ARTEFACTS:
        mine = tuple(r for r in rows if r.artefact == key)
        if not mine:
            continue
        if key == "table1":
            arts.append(Artefact(key, TITLES[key], mine, T1_HEAD, _table1_rows(by)))
        elif key == "table2":
            arts.append(Artefact(key, TITLES[key], mine, T2_HEAD, _table2_rows(by)))
        else:
            arts.append(Artefact(key, TITLES[key], mine))
    return Report(rows, tuple(arts), seconds)


def summary_line(outcomes: list[Outcome], seconds: float) -> str:
    """One line: claim count, verdict counts in :data:`VERDICT_ORDER`, expected/unexpected."""
    return Report(tuple(_row(o) for o in outcomes), (), seconds).summary


__all__ = ["ARTEFACTS", "TITLES", "VERDICT_ORDER", "Artefact", "ClaimRow", "Report", "build_report",
           "summary_line"]
