"""Inverse questions about sampled strongly-safe k-anonymization (CP Thm 5 and the exact worst
case): the smallest k (:func:`min_k`), the smallest ε (:func:`min_epsilon`) and the largest β
(:func:`max_beta`) that reach a target δ.

Each answer is certified by :func:`dps_verify.core.search.least_integer` /
:func:`~dps_verify.core.search.boundary_rational` from certified enclosures on both sides of the
boundary, and rounded in the safe direction (k up, ε up, β down); float screens
(:mod:`dps_verify.inverse.screen`) only propose where to look.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import (
    Certified,
    Number,
    fraction_to_mpf,
    log_fraction,
    to_fraction,
)
from dps_verify.core.params import (
    beta_edge,
    beta_param,
    delta_param,
    epsilon_param,
    in_paper_regime,
    k_param,
    require_paper_regime,
    resolve_beta,
)
from dps_verify.core.types import BoundLike, Definition
from dps_verify.worstcase.closed_forms import neg_log1m_upper
from dps_verify.worstcase.sdgs import scan

BOUNDS = ("paper", "hockey-stick", "pointwise")


def _delta_fn(bound: BoundLike) -> Callable[[int, Fraction, Fraction], Certified]:
    if bound == "paper":
        return lambda k, b, e: scan(k, b, e, measure="paper-d")
    if bound in ("hockey-stick", "pointwise"):
        from dps_verify.worstcase.sdgs import sdgs_delta_certified

        definition = Definition(bound)
        return lambda k, b, e: sdgs_delta_certified(k, b, e, definition)
    raise ParameterError(f"bound must be one of {BOUNDS}, got {bound!r}")


def _chernoff_rate(b: Fraction, eps: Fraction) -> float:
    """Float screen: ln(γ/β) − (γ−β)/γ, the per-k exponent of TR Thm 6 (guesses only)."""
    import math

    from dps_verify.worstcase.gamma_gap import eps_float, gamma_minus_beta_float

    bf, ef = float(b), eps_float(eps)
    gm = gamma_minus_beta_float(bf, ef)
    g = bf + gm
    if gm <= 0 or bf <= 0:
        return 0.0
    return math.log1p(gm / bf) - gm / g


def min_k(beta: Number, epsilon: Number, delta: Number, bound: BoundLike = "paper", *,
          memo: dict[int, Certified] | None = None) -> int:
    """Smallest k with δ(k, β, ε) ≤ ``delta``; ``bound`` = "paper" (CP Thm 5's d) or the exact
    worst case under "hockey-stick" / "pointwise".

    Certified by :func:`dps_verify.core.search.least_integer`: δ(k) ≤ delta and δ(k−1) > delta,
    both from certified enclosures.  Monotone in k: d because n_m grows with k and thresholds do
    not depend on k; hockey-stick because threshold k+1 is a post-processing of threshold k
    (data processing); pointwise equals d inside CP Thm 5's regime.  Outside it the pointwise δ
    is not monotone, so every smaller k is checked as well (global minimum, up to k = 5000).  A float
    screen (:mod:`dps_verify.inverse.screen`) proposes k inside the regime and refutes
    δ(k) > delta exactly from one group size, so usually only k itself needs the full scan.
    ``memo``, when given, receives every certified δ(k) the search computed, keyed by k (a caller
    showing δ at k and k − 1 need not recompute them).
    """
    import math

    from dps_verify.core.search import least_integer

    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    dl = delta_param(delta)
    if dl <= 0:
        raise ParameterError("delta must be > 0: no finite k gives delta = 0 (CP Prop. 4 / Thm 5)")
    if bound == "paper":
        require_paper_regime(b, eps, "CP Thm 5")
    f_raw = _delta_fn(bound)
    cache: dict[int, Certified] = {} if memo is None else memo

    def f(kk: int, b: Fraction, e: Fraction) -> Certified:
        if kk not in cache:
            cache[kk] = f_raw(kk, b, e)
        return cache[kk]

    # float guess (inside CP Thm 5's regime) + exact one-group-size refutation (inverse_screen)
    from dps_verify.inverse.screen import min_k_screen

    screen = min_k_screen(b, eps, dl, bound)

    def ok(k: int) -> bool:
        if screen is not None and screen.refutes(k):  # δ(k) > delta certified from one n
            return False
        return f(k, b, eps).upper <= dl

    rate = _chernoff_rate(b, eps)
    guess = screen.guess if screen is not None else None
    if guess is None and rate > 0 and 0 < dl < 1:
        # Float screen for the starting point only (the certified search below decides): log δ(k)
        # is close to linear in k, so two secant steps from TR Thm 6's exponent land within a
        # few units of the answer.
        def logv(kk: int) -> float:
            v = f(kk, b, eps).upper
            if v <= 0:
                return -math.inf
            return log_fraction(v)

        try:
            lt = log_fraction(dl)  # ln δ in floats at any size (δ = 1e-100000 underflows a float)
            x0 = max(2, int(-lt / rate / 3))  # TR Thm 6's k overshoots d's by ~2-4x
            x1 = max(1, x0 * 3 // 4)
            y0, y1 = logv(x0), logv(x1)
            for _ in range(2):
                if not (math.isfinite(y0) and math.isfinite(y1)) or x0 == x1 or y0 == y1:
                    break
                slope = (y0 - y1) / (x0 - x1)
                if slope >= 0:
                    break
                x2 = max(1, min(1 << 22, round(x1 + (lt - y1) / slope)))
                if x2 in (x0, x1):
                    break
                x1, y1, x0, y0 = x0, y0, x2, logv(x2)
            guess = x0
        except (CertificationError, OverflowError, ValueError):
            guess = None
    k_found = least_integer(ok, lo=1, guess=guess, limit=1 << 24, what="k")
    if bound == "pointwise" and not in_paper_regime(b, eps):
        # Outside CP Thm 5's regime the pointwise δ is NOT monotone in k (merging outcome k into
        # the suppressed outcome can make a good outcome bad), e.g. β = 0.7, ε = 0.5: δ(5) = 0.449
        # < δ(6) = 0.506.  Every smaller k is therefore checked, certified, one by one.
        if k_found > 5000:
            raise CertificationError(
                "min_k, pointwise, outside CP Thm 5's regime: the measure is not monotone in k and "
                f"checking all k < {k_found} exceeds the limit of 5000 evaluations"
            )
        for kk in range(1, k_found):
            if ok(kk):
                return kk
    return k_found


def min_epsilon(
    k: Number, beta: Number, delta: Number, bound: BoundLike = "paper", tol: Number = "1e-9"
) -> mpmath.mpf:
    """Smallest ε (within ``tol``, rounded up) with δ(k, β, ε) ≤ ``delta``.

    Bisection (:func:`dps_verify.core.search.boundary_rational`) over dyadic rationals between
    the regime edge −ln(1−β) (paper) or 0 (exact measures) and a certified upper end; the
    returned ε has δ ≤ delta certified, and a point within ``tol`` below it is certified not to
    satisfy it (or is the lower end of the range).  δ is non-increasing in ε for the exact
    measures (the bad set and e^ε·Q both move the right way).
    """
    from dps_verify.core.search import boundary_rational

    kk = k_param(k)
    b = beta_param(beta)
    dl = delta_param(delta)
    t = to_fraction(tol, "tol")
    if t <= 0:
        raise ParameterError("tol must be > 0")
    f = _delta_fn(bound)
    lo = neg_log1m_upper(b) if bound == "paper" else Fraction(0)

    def ok(e: Fraction) -> bool:
        return f(kk, b, e).upper <= dl

    if bound == "paper" and ok(lo):
        return fraction_to_mpf(lo, "u")
    hi = max(lo * 2, Fraction(1))
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > 1 << 12:
            raise CertificationError("no epsilon <= 4096 reaches that delta (search limit)")
    from dps_verify.inverse.screen import min_epsilon_guess

    guess = min_epsilon_guess(kk, b, dl, bound, lo, hi)  # float screen: a start, never a verdict
    e = boundary_rational(ok, lo, hi, t, want="least", what="epsilon", guess=guess)
    return fraction_to_mpf(e, "u")


def max_beta(
    k: Number, epsilon: Number, delta: Number, bound: BoundLike = "paper", tol: Number = "1e-9"
) -> mpmath.mpf:
    """Largest β (within ``tol``, rounded down) with δ(k, β, ε) ≤ ``delta``.

    The search stays inside CP Thm 5's regime ε ≥ −ln(1−β), i.e. β ≤ 1 − e^{−ε}, for every
    ``bound``.  Bisection (:func:`dps_verify.core.search.boundary_rational`) over dyadic
    rationals (denominator ≤ 2^48) keeps the exact binomial arithmetic cheap; the returned β has
    δ ≤ delta certified and a β within ``tol`` above it is certified to fail (or is the edge).

    **What "largest" means.**  The certificate is local: δ(β) ≤ delta and δ(β + tol) > delta.
    It is the largest β globally only where δ is non-decreasing in β.  For ``bound="paper"`` and
    ``"pointwise"`` it is not: the first bad count ⌊γn⌋ + 1 and n_m jump with β, so δ is a
    sawtooth (e.g. k = 2, ε = 1/2: d(β = 0.1426) ≈ 0.1001 > 0.1 but d(0.183) ≈ 0.0882), and a
    larger β may satisfy the target again while some smaller β may not.  For
    ``"hockey-stick"`` (the exact δ of CP Thm 5's mechanism) monotonicity in β was observed on
    every grid tried but is not proven.  Check the β you deploy with :func:`d` /
    :func:`dps_verify.worstcase.sdgs.sdgs_delta` directly.
    """
    from dps_verify.core.search import boundary_rational

    kk = k_param(k)
    eps = epsilon_param(epsilon)
    dl = delta_param(delta)
    t = to_fraction(tol, "tol")
    if t <= 0:
        raise ParameterError("tol must be > 0")
    f = _delta_fn(bound)
    grid = 2**48
    top = beta_edge(eps, grid_bits=48)
    if top <= 0:
        raise ParameterError("epsilon too small: no beta satisfies epsilon >= -ln(1-beta) (CP Thm 5)")

    def ok(b: Fraction) -> bool:
        return f(kk, b, eps).upper <= dl

    if ok(top):
        return fraction_to_mpf(top, "d")
    lo = top
    while not ok(lo):
        lo = Fraction(int(lo * grid) // 16, grid) if lo * grid >= 16 else Fraction(0)
        if lo == 0:
            raise ParameterError("no beta > 0 reaches that delta (beta < 2^-44 searched)")
    from dps_verify.inverse.screen import max_beta_guess

    guess = max_beta_guess(kk, eps, dl, bound, lo, top)  # float screen: a start, never a verdict
    b = boundary_rational(ok, lo, top, t, want="greatest", grid_bits=48, what="beta", guess=guess)
    return fraction_to_mpf(b, "d")

