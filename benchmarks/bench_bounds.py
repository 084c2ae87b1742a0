"""Benchmarks of the bounds and the exact engine (issue #2 targets).

1. CP Table 2 (k = 20, 18 cells): certified ``d`` and exact ``sdgs_delta`` versus a
   straightforward mpmath scan over n (30 digits, n from n_m to a fixed n_max = 150,
   twice the largest maximiser in the table) in one process.
2. ``min_k`` at β = edge (1 − e^{−ε} rounded down to 40 digits, core.params.beta_edge) over
   ε ∈ {0.5, 1, 1.5, 2} and δ ∈ {1e-5, 1e-6, 1e-8}.
2b. d and sdgs_delta at k = 10, 100, 1000, 10 000, and sdgs outside the regime.
3. ``distribution`` of sampled strongly-safe k-anonymization on 60 records in 4 recoding groups.
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath

from dps_verify import bounds, exact
from dps_verify import mechanisms as M

BETAS = ("0.05", "0.1", "0.2")
EPSILONS = ("0.25", "0.5", "0.75", "1.0", "1.5", "2.0")


def naive_d(k: int, beta: str, eps: str, n_max: int = 150) -> mpmath.mpf:
    """The straightforward computation: mpmath binomial sums for every n up to n_max."""
    with mpmath.workdps(30):
        b, e = mpmath.mpf(beta), mpmath.mpf(eps)
        g = (mpmath.exp(e) - 1 + b) / mpmath.exp(e)
        best = mpmath.mpf(0)
        for n in range(int(mpmath.ceil(k / g - 1)), n_max):
            j0 = int(mpmath.floor(g * n)) + 1
            best = max(best, mpmath.fsum(
                mpmath.binomial(n, j) * b**j * (1 - b) ** (n - j) for j in range(j0, n + 1)))
        return best


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _scaling() -> dict:
    """d and sdgs_delta (hockey-stick) at k = 10 … 10 000 (β = 0.1, ε = 1) and outside the
    regime (k = 40, β = 0.25, ε = 0.28): cost growth with k."""
    out = {}
    for k in (10, 100, 1000, 10000):
        v, t = _timed(lambda k=k: bounds.d_certified(k, "0.1", 1))
        h, th = _timed(lambda k=k: exact.sdgs_delta_certified(k, "0.1", 1))
        out[f"k={k}"] = {"d_s": round(t, 4), "sdgs_s": round(th, 4), "argmax_n": v.details["argmax_n"]}
    c, t = _timed(lambda: exact.sdgs_delta_certified(40, "0.25", "0.28"))
    out["outside_regime_k40_b0.25_e0.28"] = {"s": round(t, 4), "value": float(c.upper)}
    c, t = _timed(lambda: exact.sdgs_delta_certified(61, "edge", 1))
    out["edge_k61_e1"] = {"s": round(t, 4), "value": float(c.upper)}
    return out


def run() -> dict:
    from dps_verify.core.params import beta_edge

    cells = [(b, e) for b in BETAS for e in EPSILONS]
    _, t_d = _timed(lambda: [bounds.d_certified(20, b, e) for b, e in cells])
    _, t_hs = _timed(lambda: [exact.sdgs_delta_certified(20, b, e) for b, e in cells])
    _, t_pw = _timed(lambda: [exact.sdgs_delta_certified(20, b, e, "pointwise") for b, e in cells])
    _, t_naive = _timed(lambda: [naive_d(20, b, e) for b, e in cells])

    grid = [(e, dl) for e in ("0.5", "1", "1.5", "2") for dl in ("1e-5", "1e-6", "1e-8")]
    ks, t_mink = _timed(
        lambda: {f"eps={e},delta={dl}": bounds.min_k(beta_edge(Fraction(e)), e, dl) for e, dl in grid}
    )

    A = M.StronglySafeKAnonymizer(lambda r: r // 100, 5)
    data = [g * 100 + (i % 7) for g in range(4) for i in range(15)]
    dist, t_dist = _timed(lambda: exact.distribution(A, data, Fraction(1, 10)))
    return {
        "table2_d_18_cells_s": round(t_d, 4),
        "table2_sdgs_hockey_stick_18_cells_s": round(t_hs, 4),
        "table2_sdgs_pointwise_18_cells_s": round(t_pw, 4),
        "table2_naive_mpmath_scan_s": round(t_naive, 3),
        "speedup_d_vs_naive": round(t_naive / t_d, 1),
        "speedup_sdgs_vs_naive_d": round(t_naive / t_hs, 1),
        "min_k_grid_beta_edge_12_queries_s": round(t_mink, 4),
        "min_k_values": ks,
        "target_min_k_under_0.1s": t_mink < 0.1,
        "scaling": _scaling(),
        "distribution_60_records_4_groups_s": round(t_dist, 3),
        "distribution_outputs": len(dist),
    }
