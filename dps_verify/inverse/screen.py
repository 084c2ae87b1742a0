"""Float screens and one-group-size certificates for the inverse question min k (CP Thm 5).

Floats never decide an answer here.  :func:`min_k_screen` *guesses* the smallest k with
δ(k) ≤ target from double-precision binomial tails (``scipy.special.bdtrc``, imported lazily), so
that :func:`dps_verify.core.search.least_integer` needs only the two neighbours k − 1 and k.
:meth:`MinKScreen.refutes` then certifies "δ(k) > target" *exactly* from a single group size
(the screen's argmax), so only the answer k itself needs the full certified scan of
:func:`dps_verify.worstcase.sdgs.scan`.

Certificate (exact integer tails, no floats).  For any group size n, let J_n be the least
j > γn, γ = 1 − (1−β)e^(−ε) (decided exactly by :func:`~dps_verify.worstcase.sdgs.first_bad`),
and F = {published j ≥ T}, T = max(k, J_n).  Every j ∈ F has likelihood ratio
f(j; n)/f(j; n−1) = n(1−β)/(n−j) > e^ε (module docstring of :mod:`~dps_verify.worstcase.sdgs`).

* paper (CP Thm 5): d(k) = max over n ≥ n_m(k) of Pr[Bin(n, β) ≥ J_n] ≥ that term at any one
  n ≥ n_m(k) (checked exactly with :func:`~dps_verify.worstcase.sdgs.n_min`);
* pointwise (TR Def. 2): F lies in the bad set, so δ(k) ≥ P_n(F) = Pr[Bin(n, β) ≥ T];
* hockey-stick (CP Def. 2): δ(k) ≥ P_n(F) − e^ε·Q_n(F) = Pr[Bin(n, β) ≥ T] − e^ε·Pr[Bin(n−1, β) ≥ T]
  (the hockey-stick divergence is a supremum over output sets), with e^ε rounded up.

A lower bound above the target proves δ(k) > target; when it does not (a poor float guess),
the caller falls back to the full scan, so a bad screen costs time, never soundness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dps_verify.core.params import neg_log1m_float
from dps_verify.core.types import BoundLike

#: Largest number of group sizes the float screen evaluates (beyond it: no screen).
MAX_SCREEN_N = 400_000


def _gamma_kl(beta: float, eps: float) -> tuple[float, float]:
    """γ = 1 − (1−β)e^(−ε) and KL(γ‖β) in floats (screen only)."""
    from dps_verify.worstcase.gamma_gap import gamma_minus_beta_float

    gm = gamma_minus_beta_float(beta, eps)
    g = beta + gm
    if gm <= 0:
        return g, 0.0
    if g >= 1:
        return g, -math.log(beta)
    kl = g * math.log1p(gm / beta) + (1 - g) * math.log1p(-gm / (1 - beta))
    return g, kl


@dataclass
class MinKScreen:
    """A float guess for min k and the certificate :meth:`refutes` (module docstring)."""

    beta: Fraction
    eps: Fraction
    delta: Fraction
    measure: BoundLike
    guess: int | None  # None outside CP Thm 5's regime: only the refutation is offered
    _argmax: Any = field(repr=False)

    def refutes(self, k: int) -> bool:
        """True only when δ(k) > delta is certified exactly from one group size (the float
        argmax for k); False means "not shown" (the caller then runs the full scan)."""
        n = self._argmax(k)
        if n is None or k < 1:
            return False
        return certified_value_above(k, n, self.beta, self.eps, self.delta, self.measure)


def certified_value_above(k: int, n: int, beta: Fraction, eps: Fraction, delta: Fraction, measure: BoundLike) -> bool:
    """Whether the exact lower bound on δ(k) from group size ``n`` (module docstring) exceeds
    ``delta``.  Exact integer tails over q^n; e^ε rounded up (exact for an exact-log ε)."""
    from dps_verify.core.numbers import exp_interval
    from dps_verify.worstcase.sdgs import first_bad, n_min, tail_enclosure

    if n < 1 or (measure == "paper" and n < n_min(k, beta, eps)):
        return False
    J = first_bad(n, beta, eps)
    T = J if measure == "paper" else max(k, J)
    if T > n:
        return False
    p, q = beta.numerator, beta.denominator
    lo_p, _ = tail_enclosure(n, T, p, q)  # Pr[X_n ≥ T]·q^n, lower end
    if measure != "hockey-stick":
        return int(lo_p) * delta.denominator > delta.numerator * q**n
    _, hi_q = tail_enclosure(n - 1, T, p, q)  # Pr[X_{n−1} ≥ T]·q^(n−1), upper end
    e_hi = exp_interval(eps)[1] if eps else Fraction(1)
    # value_lo = lo_p/q^n − e_hi·hi_q/q^(n−1) > delta, cross-multiplied (all denominators > 0)
    lhs = (int(lo_p) * e_hi.denominator - e_hi.numerator * int(hi_q) * q) * delta.denominator
    return lhs > delta.numerator * e_hi.denominator * q**n


def min_k_screen(beta: Fraction, eps: Fraction, delta: Fraction, measure: BoundLike) -> MinKScreen | None:
    """Float screen for the least k with δ(k, β, ε) ≤ delta, for ``measure`` "paper",
    "pointwise" (equal to the paper's d inside CP Thm 5's regime ε ≥ −ln(1−β)) or
    "hockey-stick".  None when the screen does not apply (δ outside (0, 1), ε = 0, more than
    :data:`MAX_SCREEN_N` group sizes, or float trouble).  Outside the regime (exact measures
    only) there is no guess, only :meth:`MinKScreen.refutes` from the forward bad set, which
    spares min_k most full scans of its k-by-k check of the non-monotone pointwise δ.

    Per group size n the value is, in doubles, t(n) = Pr[X_n ≥ J_n] (paper/pointwise) or
    h(n) = Pr[X_n ≥ J_n] − e^ε Pr[X_{n−1} ≥ J_n] (hockey-stick), J_n = ⌊γn⌋ + 1; for
    n ≥ n_m(k) = ⌈k/γ − 1⌉ it does not depend on k (J_n ≥ k there), so δ(k) is a suffix maximum
    at n_m(k); the hockey-stick also takes k ≤ n < n_m(k), where the bad set is [k, n].
    Past N = (ln(1/δ) + 8)/KL(γ‖β) every term is below δ·e^−8 (Chernoff–Hoeffding), so the
    screen stops there.
    """
    try:
        return _min_k_screen(beta, eps, delta, measure)
    except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError, MemoryError):
        return None


def _screen_grid(b: float, e: float, dl: float, max_n: int) -> tuple[float, int] | None:
    """(γ, N) for the float screens at (β, ε, δ): group sizes 0..N, N from the Chernoff rate
    KL(γ‖β) (beyond N the bad mass is below δ·e^-8), or None when no screen applies."""
    if not (0 < b < 1 and 0 < dl < 1 and e > 0 and math.isfinite(e)):
        return None
    g, kl = _gamma_kl(b, e)
    if kl <= 0 or g <= b:
        return None
    N = int((-math.log(dl) + 8) / kl) + 2
    return None if N > max_n else (g, N)


def _value_fn(b: float, e: float, dl: float, measure: BoundLike, max_n: int) -> Any:
    """value(k) -> (δ(k) in doubles, float argmax n or None) at fixed (β, ε), or None when the
    screen does not apply (see :func:`min_k_screen`)."""
    grid = _screen_grid(b, e, dl, max_n)
    if grid is None:
        return None
    g, N = grid
    import numpy as np
    from scipy.special import bdtrc  # bdtrc(m, n, p) = Pr[Bin(n, p) > m]

    ee = math.exp(min(e, 700.0))
    hockey = measure == "hockey-stick"
    with np.errstate(all="ignore"):
        n = np.arange(N + 1, dtype=np.int64)
        J = np.floor(g * n).astype(np.int64) + 1  # least j > γn (floats)
        t = bdtrc(J - 1, n, b)
        if hockey:
            t = t - ee * bdtrc(J - 1, np.maximum(n - 1, 0), b)
        t[0] = 0.0
        t[np.isnan(t)] = 0.0
        suffix_max = np.maximum.accumulate(t[::-1])[::-1]

    def n_m(k: int) -> int:
        return max(math.ceil(k / g - 1), 1)

    def value(k: int) -> tuple[float, int | None]:
        nm = n_m(k)
        v, arg = (float(suffix_max[nm]), nm + int(np.argmax(t[nm:]))) if nm <= N else (0.0, None)
        if hockey and k < nm:  # k ≤ n < n_m(k): bad set [k, n]
            lo_n, hi_n = k, min(nm, N + 1)
            if lo_n < hi_n:
                m = np.arange(lo_n, hi_n, dtype=np.int64)
                with np.errstate(all="ignore"):
                    h = bdtrc(k - 1, m, b) - ee * bdtrc(k - 1, m - 1, b)
                h[np.isnan(h)] = 0.0
                i = int(np.argmax(h))
                if h[i] > v:
                    v, arg = float(h[i]), lo_n + i
        return v, arg

    return value


def _forward_argmax_fn(b: float, e: float, dl: float, measure: BoundLike, max_n: int) -> Any:
    """Outside CP Thm 5's regime: k -> the group size n maximising, in doubles, the certificate's
    forward lower bound (module docstring) over k ≤ n ≤ N, or None when that bound is not above
    δ (the backward bad outcomes are left out, so this only ever under-estimates δ(k))."""
    grid = _screen_grid(b, e, dl, max_n)
    if grid is None:
        return None
    g, N = grid
    import numpy as np
    from scipy.special import bdtrc

    ee = math.exp(min(e, 700.0))
    with np.errstate(all="ignore"):
        n = np.arange(N + 1, dtype=np.int64)
        J = np.floor(g * n).astype(np.int64) + 1

    def argmax(k: int) -> int | None:
        if k < 1 or k > N:
            return None
        m, T = n[k:], np.maximum(J[k:], k)
        with np.errstate(all="ignore"):
            v = bdtrc(T - 1, m, b)
            if measure == "hockey-stick":
                v = v - ee * bdtrc(T - 1, m - 1, b)
        v[np.isnan(v)] = 0.0
        i = int(np.argmax(v))
        return k + i if v[i] > dl else None

    return argmax


def _min_k_screen(beta: Fraction, eps: Fraction, delta: Fraction, measure: BoundLike) -> MinKScreen | None:
    from dps_verify.core.params import in_paper_regime

    if not 0 < delta < 1 or not eps > 0 or measure not in ("paper", "pointwise", "hockey-stick"):
        return None
    dl = float(delta)
    if not in_paper_regime(beta, eps):
        fwd = _forward_argmax_fn(float(beta), float(eps), dl, measure, MAX_SCREEN_N)
        # no guess: a float bisection on k costs more than min_k's own exact secant start here
        return None if fwd is None else MinKScreen(beta, eps, delta, measure, None, fwd)
    value = _value_fn(float(beta), float(eps), dl, measure, MAX_SCREEN_N)
    if value is None:
        return None

    # least k with value(k) ≤ δ: value is non-increasing in k (see bounds.min_k)
    hi = 1
    while value(hi)[0] > dl:
        hi *= 2
        if hi > 1 << 24:
            return None
    lo = 0  # value(0) treated as > δ
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if value(mid)[0] > dl:
            lo = mid
        else:
            hi = mid

    def argmax(k: int) -> int | None:
        """The float argmax group size for k, or None when the float value is not above δ
        (then an exact refutation would almost surely fail: the full scan decides)."""
        if k < 1:
            return None
        v, n = value(k)
        return n if v > dl else None

    return MinKScreen(beta, eps, delta, measure, hi, argmax)


#: Largest number of group sizes per evaluation in the ε and β screens (about 50 evaluations).
MAX_BISECT_N = 40_000


def _float_boundary(f: Any, lo: float, hi: float, want: str) -> float | None:
    """Float bisection for the boundary of the predicate ``f`` on [lo, hi] (screen only), to a
    relative 1e-12 (the certified search needs the guess within its tolerance, not more)."""
    for _ in range(80):
        mid = (lo + hi) / 2
        if mid in (lo, hi) or hi - lo <= 1e-12 * abs(hi):
            break
        ok = f(mid)
        if ok is None:
            return None
        if (want == "least") == ok:
            hi = mid
        else:
            lo = mid
    return hi if want == "least" else lo


def min_epsilon_guess(k: int, beta: Fraction, delta: Fraction, measure: BoundLike, lo: Fraction, hi: Fraction) -> Fraction | None:
    """A float guess of the least ε in [lo, hi] with δ(k, β, ε) ≤ delta, for
    :func:`~dps_verify.core.search.boundary_rational` (None when the screen does not apply).
    Inside CP Thm 5's regime (ε ≥ −ln(1−β)) from the per-n values of :func:`min_k_screen`;
    below it (exact measures only) from :func:`_delta_float_outside`."""
    try:
        b, dl = float(beta), float(delta)
        edge = neg_log1m_float(beta)
        a = max(float(lo), edge * (1 + 1e-12))

        def f(e: float) -> bool | None:
            value = _value_fn(b, e, dl, measure, MAX_BISECT_N)
            return None if value is None else value(k)[0] <= dl

        at_edge = f(a)
        if at_edge is None:
            return None
        if at_edge:  # the answer is at or below the edge: only the exact measures go there
            if measure == "paper" or float(lo) >= edge:
                return None

            def g(e: float) -> bool | None:
                v = _delta_float_outside(k, b, e, dl, measure, MAX_BISECT_N)
                return None if v is None else v <= dl

            x = _float_boundary(g, max(float(lo), 1e-300), edge, "least")
        else:
            x = _float_boundary(f, a, float(hi), "least")
        return None if x is None else Fraction(x)
    except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError, MemoryError):
        return None


def _delta_float_outside(k: int, b: float, e: float, dl: float, measure: BoundLike, max_n: int) -> float | None:
    """δ(k, β, ε) in doubles for ε < −ln(1−β) (screen only): per group size n, the forward bad
    set {j ≥ max(k, J_n)}, the backward set {k ≤ j ≤ M_n}, M_n the largest j < γ′n,
    γ′ = 1 − (1−β)e^ε, and the suppressed outcome when F(k−1; n−1) > e^ε F(k−1; n)
    (module docstring of :mod:`~dps_verify.worstcase.sdgs`); hockey-stick takes the larger of the
    two directions, pointwise the larger mass of the union.  n runs over [k, N] with N from the
    forward Chernoff exponent and at least 8k/β."""
    g, kl = _gamma_kl(b, e)
    if kl <= 0 or not 0 < dl < 1:
        return None
    N = max(int((-math.log(dl) + 8) / kl) + 2, int(8 * k / b) + 2)
    if N > max_n or k > N:
        return None
    import numpy as np
    from scipy.special import bdtr, bdtrc

    ee = math.exp(e)
    gp = 1 - (1 - b) * ee  # γ′ (may be ≤ 0: no published j is backward-bad)
    with np.errstate(all="ignore"):
        n = np.arange(k, N + 1, dtype=np.int64)
        T = np.maximum(np.floor(g * n).astype(np.int64) + 1, k)
        fP, fQ = bdtrc(T - 1, n, b), bdtrc(T - 1, n - 1, b)  # forward masses under D and D − t
        M = np.ceil(gp * n).astype(np.int64) - 1 if gp > 0 else np.full(n.shape, -1, dtype=np.int64)
        M = np.minimum(M, n - 1)
        has = M >= k
        bP = np.where(has, bdtr(np.maximum(M, 0), n, b) - bdtr(k - 1, n, b), 0.0)
        bQ = np.where(has, bdtr(np.maximum(M, 0), n - 1, b) - bdtr(k - 1, n - 1, b), 0.0)
        P0, Q0 = bdtr(k - 1, n, b), bdtr(k - 1, n - 1, b)
        sup = Q0 > ee * P0
        bP, bQ = bP + np.where(sup, P0, 0.0), bQ + np.where(sup, Q0, 0.0)
        if measure == "hockey-stick":
            v = np.maximum(fP - ee * fQ, bQ - ee * bP)
        else:
            v = np.maximum(fP + bP, fQ + bQ)
    v[np.isnan(v)] = 0.0
    return float(v.max())


def max_beta_guess(k: int, eps: Fraction, delta: Fraction, measure: BoundLike, lo: Fraction, hi: Fraction) -> Fraction | None:
    """A float guess of the largest β in [lo, hi] (inside CP Thm 5's regime) with
    δ(k, β, ε) ≤ delta, for :func:`~dps_verify.core.search.boundary_rational`."""
    try:
        e, dl = float(eps), float(delta)

        def f(b: float) -> bool | None:
            value = _value_fn(b, e, dl, measure, MAX_BISECT_N)
            return None if value is None else value(k)[0] <= dl

        x = _float_boundary(f, float(lo), float(hi), "greatest")
        return None if x is None else Fraction(x)
    except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError, MemoryError):
        return None
