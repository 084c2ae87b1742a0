"""Beyond the paper (labelled as such in every report): the exact δ of sampled strongly-safe
k-anonymization beside CP's bound d for every Table 2 cell, and how much smaller k (or larger
β) the exact δ allows for the same (ε, δ)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import cast

from dps_verify import bounds, exact
from dps_verify.paper.claims.base import CONFIRMED, REFUTED, Claim, Result, fmt
from dps_verify.paper.claims.tables import TABLE2_PRINTED


def max_beta_exact(beta: str, eps: str, target: Fraction, k: int = 20, tol: Fraction = Fraction(1, 1000)) -> float:
    """Largest β (to ``tol``, rounded down) with exact hockey-stick δ(k, β, ε) ≤ target, searched
    in [β, min(4β, 0.9)] by bisection (δ is increasing in β; the start β qualifies)."""
    import math

    lo = Fraction(beta)
    # Stay inside CP Thm 5's regime ε ≥ −ln(1 − β), i.e. β ≤ 1 − e^{−ε}, with a small margin.
    edge = Fraction(1 - math.exp(-float(Fraction(eps))) - 0.002).limit_denominator(10**6)
    hi = min(4 * lo, Fraction(9, 10), edge)
    if hi <= lo:
        return float(lo)

    def ok(b: Fraction) -> bool:
        return exact.sdgs_delta_certified(k, b, eps, "hockey-stick").upper <= target
    if ok(hi):
        return float(hi)
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return float(lo)


def check_cell(beta: str, eps: str, paper_bound: str = "d") -> Result:
    """``paper_bound`` = "d" compares with CP's d; "below-exact" replaces d by a value just under
    the exact δ (the negative control: the same comparison must then fail)."""
    d = bounds.d_certified(20, beta, eps)
    hs = exact.sdgs_delta_certified(20, beta, eps, "hockey-stick")
    target = d.upper
    if paper_bound != "d":
        from dataclasses import replace
        d = replace(d, lower=hs.lower * (1 - Fraction(1, 2**20)), upper=hs.lower * (1 - Fraction(1, 2**20)))
    k_exact = bounds.min_k(beta, eps, target, bound="hockey-stick")
    b_exact = max_beta_exact(beta, eps, target)
    ok = hs.upper <= d.lower and k_exact <= 20 and b_exact >= float(beta) - 1e-4
    return Result(CONFIRMED if ok else REFUTED,
                  f"exact {fmt(hs.upper, 3)} vs d {fmt(d.upper, 3)}; k {k_exact} (vs 20), β ≤ {fmt(b_exact, 4)}",
                  f"exact hockey-stick δ is {fmt(float(d.upper / hs.upper) if hs.upper else 0, 3)}× smaller; "
                  f"for the same (ε, δ = d) the exact δ allows k = {k_exact} at β = {beta}, or "
                  f"β up to {fmt(b_exact, 4)} at k = 20 (searched inside CP Thm 5's regime β < 1 − e^−ε)",
                  {"exact": float(hs.upper), "paper": float(d.upper), "k_exact": k_exact,
                   "beta_exact": float(b_exact)})


def claims() -> list[Claim]:
    return [Claim(
        id=f"beyond.table2.beta{b}.eps{e}", where="beyond the paper (CP Table 2 cell)",
        statement=f"At k = 20, β = {b}, ε = {e}, the exact δ of sampled strongly-safe "
                  "k-anonymization is at most CP's d; how far k or β could move for the same δ.",
        method="exact worst-case δ (dps_verify.exact.sdgs_delta), min_k / max_beta",
        expected=CONFIRMED, check=cast("Callable[[], Result]", lambda bb=b, ee=e: check_cell(bb, ee)), source="beyond",
        artefact="table2", control=cast("Callable[[], Result]", lambda bb=b, ee=e: check_cell(bb, ee, "below-exact")),
        control_expected=REFUTED) for (b, e) in TABLE2_PRINTED]
