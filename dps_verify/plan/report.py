"""The plan as JSON and as a terminal table (rich).

Every δ printed is an end of a certified enclosure, rounded in the direction that keeps the
statement true: δ(k) is shown by its upper end rounded up (so "δ(k) ≤ shown ≤ target"), δ(k − 1)
by its lower end rounded down (so "δ(k−1) ≥ shown > target"); a positive δ never prints as 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dps_verify.core.numbers import Certified, format_down, format_up
from dps_verify.plan.frontier import MEASURES, Frontier, FrontierRow, eps_text

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


#: Longest numerator/denominator (in bits) printed as an exact rational; Python refuses to print
#: integers of more than 4300 digits (about 14 000 bits), and such a string helps no reader.
EXACT_TEXT_BITS = 12_000


def rational_json(x: Any) -> Any:
    """An exact value for the JSON: ``"p/q"`` when it is short enough, otherwise its enclosure
    ``{"lower": …, "upper": …, "exact": false}`` (17 digits, rounded outward)."""
    if not isinstance(x, Fraction) or max(x.numerator.bit_length(), x.denominator.bit_length()) <= EXACT_TEXT_BITS:
        return str(x)
    return {"lower": format_down(x, 17), "upper": format_up(x, 17), "exact": False,
            "why": f"the exact rational has more than {EXACT_TEXT_BITS} bits; shown as an outward enclosure"}


def certified_json(c: Certified | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"upper": format_up(c.upper, 17), "lower": format_down(c.lower, 17),
            "exact": c.exact, "certified": c.how}


def row_json(r: FrontierRow) -> dict[str, Any]:
    return {
        "beta": rational_json(r.beta),
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
        "target": {"epsilon": f.epsilon_text, "epsilon_exact": rational_json(f.epsilon), "delta": rational_json(f.delta)},
        "definitions": {
            "neighbouring": "add/remove one record (multiset)",
            "sampling": "independent Bernoulli(beta) per record (CP Def 3)",
            "mechanism": "sample, then strongly-safe k-anonymization with a fixed recoding (CP Thm 5)",
            "measures": {m: MEASURE_LABELS[m] for m in MEASURES},
        },
        "arx": None if f.arx is None else {
            "rule": "beta = 1-e^-epsilon (double, rounded down); k = 1 + smallest k with d < delta",
            "beta": rational_json(f.arx.beta), "beta_float": float(f.arx.beta),
            "k": f.arx.k, "smallest_k_under_d": f.arx.k_smallest_d,
        },
        "rows": [row_json(r) for r in f.rows],
        "seconds": round(f.seconds, 4),
    }


def _cell(r: FrontierRow, m: str) -> str:
    mk = r.by_measure.get(m)
    if mk is None:
        return "limit" if r.not_applicable.get(m, "").startswith("certification limit") else "n/a"
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
    for r in f.rows:
        for m, why in r.not_applicable.items():
            if why.startswith("certification limit"):
                con.print(f"beta = {beta_text(r)}, {SHORT_LABELS[m]}: {why}", markup=False)
    if f.arx is not None:
        con.print(f"ARX (SafePub) would use beta = {float(f.arx.beta)!r} (1-e^-epsilon as a double, rounded down) "
                  f"and k = {f.arx.k}: one more than the smallest k under d ({f.arx.k_smallest_d}).")
    con.print("paper d = CP Thm 5's bound; exact HS / PW = exact worst-case delta, hockey-stick (CP Def 2) / "
              "pointwise (TR Def 2). δ values are ends of certified enclosures: δ(k) rounded up, "
              "δ(k−1) rounded down. Neighbouring: add/remove one record; sampling: independent Bernoulli(beta).")




# --------------------------------------------------------------------------- utility on a table


def _records(x: Fraction) -> str:
    """An expected number of records for display (exact value in the JSON): to 0.1 record,
    or, below 0.1, its upper end in 3 digits (a positive expectation never shows as 0)."""
    if x == 0:
        return "0"
    if x < Fraction(1, 10):
        return format_up(x, 3)
    return f"{float(x):,.1f}"


def _signed(x: Fraction | None) -> str:
    return "n/a" if x is None else f"{float(x):+,.1f}"


def utility_json(u: Any) -> dict[str, Any]:
    from dps_verify.plan.value import ARX

    def exact(x: Fraction) -> dict[str, Any]:
        # "value" is the nearest double (for reading); the rational is exact when given, an
        # outward 17-digit enclosure otherwise (then "exact" is false)
        d: dict[str, Any] = {"value": format(float(x), ".17g"), "value_rounding": "nearest double",
                             "bits": x.numerator.bit_length() + x.denominator.bit_length()}
        r = rational_json(x)
        if isinstance(r, str):
            d.update(exact=True, rational=r)
        else:
            d.update(exact=False, lower=r["lower"], upper=r["upper"], why=r["why"])
        return d

    return {
        "warning": DATA_DEPENDENCE_WARNING,
        "data": u.data_path, "recoding": u.recoding, "qi": list(u.qi),
        "records": u.records, "dropped_missing": u.dropped_missing, "groups": u.groups,
        "group_size_histogram": {str(n): c for n, c in sorted(u.histogram.items())},
        "expected_published_records": "sum over groups of E[X 1{X >= k}], X ~ Bin(n_g, beta); exact rational arithmetic",
        "rows": [
            {"beta": rational_json(r.row.beta), "beta_label": r.row.point.label, "k": r.ks,
             "expected_published": {m: exact(v) for m, v in r.expected.items()},
             "gain_exact_hockey_stick_over_paper": None if r.gain("hockey-stick", "paper") is None
             else format(float(r.gain("hockey-stick", "paper")), ".17g"),
             "gain_exact_hockey_stick_over_arx": None if r.gain("hockey-stick", ARX) is None
             else format(float(r.gain("hockey-stick", ARX)), ".17g")}
            for r in u.rows
        ],
        "best_beta_on_this_table": {
            m: None if u.best(m) is None else {"beta": rational_json(u.best(m).row.beta), "beta_label": u.best(m).row.point.label,
                                              "k": u.best(m).ks[m]}
            for m in (*MEASURES, ARX)
        },
    }


def print_utility(u: Any, console: Any = None) -> None:
    """Expected published records per frontier point, with the gains, and the warning."""
    from rich.console import Console
    from rich.table import Table

    from dps_verify.plan.value import ARX

    con = console or Console()
    t = Table(title=f"expected published records on {u.data_path} ({u.records:,} records, "
              f"{u.groups:,} groups under recoding {u.recoding!r})")
    t.add_column("beta", justify="right")
    for m in MEASURES:
        t.add_column(f"{SHORT_LABELS[m]}\nk: E\\[published]", justify="right")
    t.add_column("ARX\nk: E\\[published]", justify="right")
    t.add_column("gain HS\nover paper", justify="right")
    t.add_column("gain HS\nover ARX", justify="right")
    best = {m: u.best(m) for m in (*MEASURES, ARX)}
    for r in u.rows:
        cells = []
        for m in (*MEASURES, ARX):
            if m not in r.expected:
                cells.append("n/a")
                continue
            star = "*" if best[m] is r else ""
            cells.append(f"{r.ks[m]}: {_records(r.expected[m])}{star}")
        t.add_row(beta_text(r.row), *cells, _signed(r.gain("hockey-stick", "paper")),
                  _signed(r.gain("hockey-stick", ARX)))
    con.print(t)
    con.print(f"Exact expectations (rational arithmetic), shown to 0.1 record; * = most records under that "
              f"measure on this table. {u.dropped_missing:,} records with a missing QI value were dropped.")
    con.print(f"[bold yellow]Note:[/bold yellow] {DATA_DEPENDENCE_WARNING}")


# --------------------------------------------------------------------------- selection


def selection_json(s: Any) -> dict[str, Any]:
    from dps_verify.plan.select import READING_NOTE, SENSITIVITY_PROOF, THEOREM6_READING_PROOF

    c = s.choice
    return {
        "reading": READING_NOTE,
        "epsilon_total": eps_text(s.epsilon_total), "epsilon1": eps_text(s.epsilon1),
        "epsilon2": eps_text(s.epsilon2), "delta": rational_json(s.delta), "measure": s.measure,
        "sensitivity": rational_json(s.sensitivity),
        "delta_total": format_up(s.delta_total, 17),
        "sensitivity_rule": "one record changes one group's size by 1 and the expected published records by "
                            f"a value in [0, beta*k]; Delta = max over candidates (dps-verify prove {SENSITIVITY_PROOF})",
        "weights": "exp(epsilon1*u/Delta): every candidate's utility moves in the same direction between "
                   "neighbours, so the monotone exponential mechanism is epsilon1-DP (McSherry & Talwar 2007)",
        "composition": f"CP Thm 6, App. A.3 reading (dps-verify prove {THEOREM6_READING_PROOF})",
        "candidates": [
            {"recoding": x.recoding, "beta": rational_json(x.beta), "beta_label": x.beta_label, "k": x.k,
             "delta_at_k_upper": format_up(x.delta_at_k.upper, 17),
             "expected_published": format(float(x.utility), ".17g"),
             "probability": {"lower": p[0], "upper": p[1]}}
            for x, p in zip(s.candidates, s.probabilities)
        ],
        "chosen": {"recoding": c.recoding, "beta": rational_json(c.beta), "beta_label": c.beta_label, "k": c.k},
        "seed": s.seed,
    }


def _probability_text(lo: float, hi: float) -> str:
    """A certified probability [lo, hi] in 3 digits; near 1 as 1 − x (never a bare "1"); a lower
    end floored at 0 as "≤ hi" (a positive probability never shows as 0)."""
    if lo == 0:
        return f"≤ {hi:.3g}"
    if lo > 0.999:
        return f"1 − {1 - lo:.3g}" if f"{1 - lo:.3g}" == f"{1 - hi:.3g}" else f"1 − [{1 - hi:.3g}, {1 - lo:.3g}]"
    return f"{lo:.3g}" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g}–{hi:.3g}"


def print_selection(s: Any, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    t = Table(title=f"epsilon1 = {eps_text(s.epsilon1)}-DP choice (exponential mechanism on the unsampled "
              f"table), anonymization at epsilon2 = {eps_text(s.epsilon2)}, measure {s.measure}")
    for col in ("recoding", "beta", "k", "E\\[published]", "P(chosen)", ""):
        t.add_column(col, justify="right")
    for i, (x, p) in enumerate(zip(s.candidates, s.probabilities)):
        b = x.beta_label if x.beta_label != "edge" else f"edge {format_down(x.beta, 6)}"
        prob = _probability_text(*p)
        t.add_row(x.recoding, b, str(x.k), _records(x.utility), prob,
                  "[bold]chosen[/bold]" if i == s.chosen else "")
    con.print(t)
    con.print(f"Sensitivity Delta = max beta*k = {float(s.sensitivity):.6g} records; every candidate's "
              "utility moves the same way when a record is added, so the weights are exp(epsilon1*u/Delta) "
              "(the monotone exponential mechanism, epsilon1-DP). Total guarantee: "
              f"(epsilon1 + epsilon2, max over candidates of delta) = ({eps_text(s.epsilon_total)}, "
              f"{format_up(s.delta_total, 4)}).")
    from dps_verify.plan.select import READING_NOTE

    con.print(f"[bold yellow]Reading:[/bold yellow] {READING_NOTE}")


__all__ = ["DATA_DEPENDENCE_WARNING", "EXACT_TEXT_BITS", "MEASURE_LABELS", "SHORT_LABELS", "beta_text", "certified_json",
           "eps_text", "frontier_json", "print_frontier", "print_selection", "print_utility", "rational_json", "row_json",
           "selection_json", "utility_json"]
