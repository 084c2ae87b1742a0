"""The paper's closed-form bounds, computed exactly or with certified rounding.

- :func:`amplify` — CP Thm 1 (amplification of (ε,δ)-DP by sampling).
- :func:`d` — CP Thm 5's δ for sampled strongly-safe k-anonymization.
- :func:`d_safe` — CP Thm 6 (ε₁-safe k-anonymization): d(k, β, ε − ε₁).
- :func:`chernoff_delta` — TR §6 Thm 6's closed-form Chernoff upper bound.
- :func:`min_k`, :func:`min_epsilon`, :func:`max_beta` — the inverse questions.

Results are ``mpmath.mpf`` rounded in the safe direction (δ and ε up, k up, β down); the
``*_certified`` variants return a :class:`~dps_verify.numbers.Certified` enclosure that says how it
was obtained.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath

from dps_verify.core.numbers import (
    BASE_PREC,
    Certified,
    Number,
    exp_interval,
    fraction_to_mpf,
    iv_from_fraction,
    iv_precision,
    iv_upper,
    to_fraction,
)
from dps_verify.core.params import (
    beta_param,
    delta_param,
    epsilon_param,
    in_paper_regime,
    k_param,
    require_paper_regime,
)
from dps_verify.measures.sdgs import scan_paper_regime

BOUNDS = ("paper", "hockey-stick", "pointwise")


def d_certified(k: Number, beta: Number, epsilon: Number) -> Certified:
    """CP Thm 5's d(k, β, ε) = max_{n ≥ ⌈k/γ−1⌉} Σ_{j>γn}^{n} f(j; n, β), γ = (e^ε−1+β)/e^ε.

    Exact: each candidate is a rational computed with integers; the threshold ⌊γn⌋ and n_m are
    decided exactly; the infinite maximum is cut by a Chernoff–Hoeffding bound that decreases in
    n (see :mod:`dps_verify.sdgs`).  ``details['argmax_n']`` is the maximising group size.
    """
    kk = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    require_paper_regime(b, eps, "CP Thm 5")
    return scan_paper_regime(kk, b, eps, measure="paper-d")


def d(k: Number, beta: Number, epsilon: Number) -> mpmath.mpf:
    """CP Thm 5's δ = d(k, β, ε), exact and rounded up to the working precision (≥ 15 digits)."""
    return d_certified(k, beta, epsilon).safe


def d_safe(k: Number, beta: Number, epsilon: Number, epsilon1: Number) -> mpmath.mpf:
    """CP Thm 6: an ε₁-safe k-anonymization is (β, ε, d(k, β, ε − ε₁))-DPS when
    ε ≥ −ln(1−β) + ε₁."""
    eps = epsilon_param(epsilon)
    e1 = epsilon_param(epsilon1, "epsilon1")
    b = beta_param(beta)
    if eps < e1 or not in_paper_regime(b, eps - e1):
        raise ValueError(
            "epsilon must satisfy epsilon >= -ln(1-beta) + epsilon1 (CP Thm 6); "
            f"got epsilon = {float(eps):g}, epsilon1 = {float(e1):g}, beta = {float(b):g}"
        )
    return d(k, b, eps - e1)


def _delta_fn(bound: str) -> Callable[[int, Fraction, Fraction], Certified]:
    if bound == "paper":
        return lambda k, b, e: scan_paper_regime(k, b, e, measure="paper-d")
    if bound in ("hockey-stick", "pointwise"):
        from dps_verify.measures.sdgs import sdgs_delta_certified

        return lambda k, b, e: sdgs_delta_certified(k, b, e, bound)
    raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")


def min_k(beta: Number, epsilon: Number, delta: Number, bound: str = "paper") -> int:
    """Smallest k with δ(k, β, ε) ≤ ``delta``; ``bound`` = "paper" (CP Thm 5's d) or the exact
    worst case under "hockey-stick" / "pointwise".

    Both measures are non-increasing in k (larger k only removes bad outcomes), so a doubling
    search followed by bisection finds the boundary, which is then re-verified: δ(k) ≤ delta
    and δ(k−1) > delta, both certified.
    """
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    dl = delta_param(delta)
    if dl <= 0:
        raise ValueError("delta must be > 0: no finite k gives delta = 0 (CP Prop. 4 / Thm 5)")
    if bound == "paper":
        require_paper_regime(b, eps, "CP Thm 5")
    f = _delta_fn(bound)

    def ok(k: int) -> bool:
        return f(k, b, eps).upper <= dl

    hi = 1
    while not ok(hi):
        hi *= 2
        if hi > 1 << 20:
            raise ValueError("no k below 2^20 reaches that delta")
    lo = hi // 2  # ok(lo) is False unless lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    if hi > 1 and f(hi - 1, b, eps).upper <= dl:
        raise AssertionError("boundary verification failed: delta not monotone in k")
    return hi


def min_epsilon(
    k: Number, beta: Number, delta: Number, bound: str = "paper", tol: Number = "1e-9"
) -> mpmath.mpf:
    """Smallest ε (within ``tol``, rounded up) with δ(k, β, ε) ≤ ``delta``.

    Bisection over exact rationals between −ln(1−β) (or 0 for the exact measures) and a value
    where the bound holds; the returned ε is one at which δ ≤ delta is certified, and
    ε − tol is one at which it is certified not to hold (or the regime edge).
    """
    kk = k_param(k)
    b = beta_param(beta)
    dl = delta_param(delta)
    t = to_fraction(tol, "tol")
    f = _delta_fn(bound)
    edge_hi = _neg_log1m_upper(b) if bound == "paper" else Fraction(0)
    lo = edge_hi
    if f(kk, b, lo if lo > 0 else Fraction(1, 10**12)).upper <= dl and bound == "paper":
        return fraction_to_mpf(lo, "u")
    hi = max(lo * 2, Fraction(1))
    while f(kk, b, hi).upper > dl:
        hi *= 2
        if hi > 64:
            raise ValueError("no epsilon <= 64 reaches that delta")
    while hi - lo > t:
        mid = (lo + hi) / 2
        mid = Fraction(round(mid * 2**64), 2**64) if mid.denominator > 2**64 else mid
        if mid in (lo, hi):
            break
        if f(kk, b, mid).upper <= dl:
            hi = mid
        else:
            lo = mid
    return fraction_to_mpf(hi, "u")


def max_beta(
    k: Number, epsilon: Number, delta: Number, bound: str = "paper", tol: Number = "1e-9"
) -> mpmath.mpf:
    """Largest β (within ``tol``, rounded down) with δ(k, β, ε) ≤ ``delta``.

    The search stays inside CP Thm 5's regime ε ≥ −ln(1−β), i.e. β ≤ 1 − e^{−ε}, for every
    ``bound`` (the exact measures are defined beyond it, but there the reverse direction of the
    divergence dominates and the question stops being about k-anonymity).  Bisection runs over
    dyadic rationals (denominator ≤ 2^40) so the exact binomial arithmetic stays cheap; the
    returned β is one at which δ ≤ delta is certified.
    """
    kk = k_param(k)
    eps = epsilon_param(epsilon)
    dl = delta_param(delta)
    t = to_fraction(tol, "tol")
    f = _delta_fn(bound)
    grid = 2**40
    _, hi_e = exp_interval(-eps)
    top = Fraction(int((1 - hi_e) * grid), grid)  # ≤ 1 − e^{−ε}
    if top <= 0:
        raise ValueError("epsilon too small: no beta satisfies epsilon >= -ln(1-beta) (CP Thm 5)")
    if f(kk, top, eps).upper <= dl:
        return fraction_to_mpf(top, "d")
    lo, hi = Fraction(0), top
    while hi - lo > t:
        mid = Fraction(round((lo + hi) / 2 * grid), grid)
        if mid in (lo, hi):
            break
        if f(kk, mid, eps).upper <= dl:
            lo = mid
        else:
            hi = mid
    if lo == 0:
        raise ValueError("no beta > 0 reaches that delta at this tolerance")
    return fraction_to_mpf(lo, "d")


def _neg_log1m_upper(b: Fraction) -> Fraction:
    """A rational just above −ln(1−β) (the edge of CP Thm 5's regime)."""
    with iv_precision(BASE_PREC):
        v = -mpmath.iv.log(iv_from_fraction(1 - b))
        x = iv_upper(v)
    # Round up to a short rational so later arithmetic stays cheap; nudge past the edge.
    return Fraction(int(x * 2**64) + 1, 2**64)
