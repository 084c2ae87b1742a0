"""The plan as JSON and as a terminal table (rich).

Every δ printed is an end of a certified enclosure, rounded in the direction that keeps the
statement true: δ(k) is shown by its upper end rounded up (so "δ(k) ≤ shown ≤ target"), δ(k − 1)
by its lower end rounded down (so "δ(k−1) ≥ shown > target"); a positive δ never prints as 0.
"""

from __future__ import annotations

from typing import Any

from dps_verify.core.numbers import Certified, format_down, format_up
from dps_verify.plan.frontier import MEASURES, Frontier, FrontierRow

SHORT_LABELS = {"paper": "paper d", "hockey-stick": "exact HS", "pointwise": "exact PW"}

MEASURE_LABELS = {
    "paper": "paper d (CP Thm 5)",
    "hockey-stick": "exact, hockey-stick (CP Def 2)",
    "pointwise": "exact, pointwise (TR Def 2)",
}

#: Printed with every plan that looks at a table (CP Thm 5 covers a fixed, data-independent choice).
DATA_DEPENDENCE_WARNING = (
    "Choosing beta, k or the recoding by looking at these numbers on the same table is a "
    "data-dependent choice that CP Thm 5 does not cover (its recoding and parameters must not "
    "depend on the data). Decide from a public or separate table, or use --select-with EPS1 "
    "(CP Thm 6, App. A.3 reading), which pays for the choice with EPS1."
)


def certified_json(c: Certified | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"upper": format_up(c.upper, 17), "lower": format_down(c.lower, 17),
            "exact": c.exact, "certified": c.how}


def row_json(r: FrontierRow) -> dict[str, Any]:
    return {
        "beta": str(r.beta),
        "beta_label": r.point.label,
        "beta_is_edge": r.point.is_edge,
        "in_cp_theorem5_regime": r.point.in_regime,
        "smallest_k": {
            m: {"k": mk.k, "delta_at_k": certified_json(mk.delta_at_k),
                "delta_at_k_minus_1": certified_json(mk.delta_below)}
            for m, mk in r.by_measure.items()
        },
        "not_applicable": dict(r.not_applicable),
        "arx_k": r.arx_k,
    }


def frontier_json(f: Frontier) -> dict[str, Any]:
    return {
        "target": {"epsilon": f.epsilon_text, "epsilon_exact": str(f.epsilon), "delta": str(f.delta)},
        "definitions": {
            "neighbouring": "add/remove one record (multiset)",
            "sampling": "independent Bernoulli(beta) per record (CP Def 3)",
            "mechanism": "sample, then strongly-safe k-anonymization with a fixed recoding (CP Thm 5)",
            "measures": {m: MEASURE_LABELS[m] for m in MEASURES},
        },
        "arx": None if f.arx is None else {
            "rule": "beta = 1-e^-epsilon (double, rounded down); k = 1 + smallest k with d < delta",
            "beta": str(f.arx.beta), "beta_float": float(f.arx.beta),
            "k": f.arx.k, "smallest_k_under_d": f.arx.k_smallest_d,
        },
        "rows": [row_json(r) for r in f.rows],
        "seconds": round(f.seconds, 4),
    }


def _cell(r: FrontierRow, m: str) -> str:
    mk = r.by_measure.get(m)
    if mk is None:
        return "n/a"
    below = "—" if mk.delta_below is None else format_down(mk.delta_below.lower, 2)
    return f"[bold]{mk.k}[/bold] {format_up(mk.delta_at_k.upper, 2)}|{below}"


def beta_text(r: FrontierRow) -> str:
    b = str(r.beta) if r.beta.denominator <= 10**6 else format_down(r.beta, 6)
    if not r.point.is_edge and r.beta.denominator <= 10**6:
        b = r.point.label
    if r.point.is_edge:
        return f"edge {b}"
    return b if r.point.in_regime else f"{b} (above edge)"


def print_frontier(f: Frontier, console: Any = None) -> None:
    """The frontier as a rich table (k under each measure, δ at k and k − 1, ARX's k)."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    t = Table(title=f"smallest k for epsilon = {f.epsilon_text}, delta = {f.delta_text} "
              "(sample, then strongly-safe k-anonymize; CP Thm 5)")
    t.add_column("beta", justify="right")
    for m in MEASURES:
        t.add_column(f"{SHORT_LABELS[m]}\nk δ(k)≤|δ(k−1)≥", justify="right")
    t.add_column("ARX\nk", justify="right")
    for r in f.rows:
        t.add_row(beta_text(r), *(_cell(r, m) for m in MEASURES),
                  "n/a" if r.arx_k is None else str(r.arx_k))
    con.print(t)
    if f.arx is not None:
        con.print(f"ARX (SafePub) would use beta = {float(f.arx.beta)!r} (1-e^-epsilon as a double, rounded down) "
                  f"and k = {f.arx.k}: one more than the smallest k under d ({f.arx.k_smallest_d}).")
    con.print("paper d = CP Thm 5's bound; exact HS / PW = exact worst-case delta, hockey-stick (CP Def 2) / "
              "pointwise (TR Def 2). δ values are ends of certified enclosures: δ(k) rounded up, "
              "δ(k−1) rounded down. Neighbouring: add/remove one record; sampling: independent Bernoulli(beta).")


__all__ = ["DATA_DEPENDENCE_WARNING", "MEASURE_LABELS", "beta_text", "certified_json",
           "frontier_json", "print_frontier", "row_json"]
