"""TR §6 Thm 6: the closed-form Chernoff bound on sampled strongly-safe k-anonymization."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
from mpmath import libmp

from dps_verify.core.numbers import (
    Number,
    iv_adaptive,
    iv_exp,
    iv_from_fraction,
    iv_upper_mpf,
)
from dps_verify.core.params import (
    epsilon_param,
    k_param,
    require_paper_regime,
    resolve_beta,
)
from dps_verify.worstcase.sdgs import (
    _flint_or_none,
    gamma_minus_beta_ball,
    gamma_minus_beta_iv,
    in_regime_fast,
)


def chernoff_delta(k: Number, beta: Number, epsilon: Number) -> mpmath.mpf:
    """TR §6 Thm 6's closed form exp(−k(ln(γ/β) − (γ−β)/γ)), rounded up.

    It comes from the multiplicative Chernoff bound on Pr[X ≥ γn] evaluated at n = k/γ; see
    ``proofs`` for whether it really dominates d(k, β, ε).

    Certified: python-flint ball arithmetic with the precision raised until 64 bits are
    certain (:func:`_chernoff_arb`), else mpmath interval arithmetic (:func:`~dps_verify.core.
    numbers.iv_adaptive`); either way the upper end of the enclosure, rounded up.
    """
    kk = k_param(k)
    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    if not in_regime_fast(b, eps):  # e^ε·(1−β) ≥ 1, decided exactly
        require_paper_regime(b, eps, "TR Thm 6")
    if eps >= 4096:  # γ = 1 − (1−β)e^{−ε} ≥ 1 − 2^−5900: use γ_lo (the bound decreases in γ)
        eps = Fraction(4096)

    fast = _chernoff_arb(kk, b, eps)
    if fast is not None:
        return fast

    def f() -> Any:
        iv = mpmath.iv
        bb = iv_from_fraction(b)
        gm = gamma_minus_beta_iv(b, eps)
        g = bb + gm
        return iv_exp(-kk * (iv.log(g / bb) - gm / g))

    # precision raised until 64 bits are certain (1 − e^−ε cancels for tiny ε).
    return iv_upper_mpf(iv_adaptive(f))


def _chernoff_arb(k: int, b: Fraction, eps: Fraction) -> mpmath.mpf | None:
    """The same closed form in python-flint ball arithmetic (every value; about 20× cheaper
    than mpmath.iv, whose enclosure ends become rationals with 10^8-bit denominators below
    e^−700).  Certified: Arb encloses each operation rigorously; γ − β = (1−β)(−expm1(−ε)) has
    no cancellation; the working precision starts at 80 bits plus twice the bits of k and is
    doubled until 64 bits of the value are certain (ln(1+x) − x/(1+x) ≈ x²/2 cancels for tiny
    ε, which the doubling absorbs); the upper end is rounded up to the working mpf precision.
    None (use the mpmath.iv path) without python-flint or past 2^14 bits."""
    flint = _flint_or_none()
    if flint is None:  # pragma: no cover
        return None
    if type(eps) is Fraction:
        e_q: Any = flint.fmpq(int(eps.numerator), int(eps.denominator))
    else:  # an exact log (ExactLog): a + ln r in balls
        from dps_verify.worstcase.ball_binomial import arb_epsilon

        e_q = None
    p, q = int(b.numerator), int(b.denominator)
    prec = 80 + 2 * k.bit_length()
    ctx = flint.ctx
    old = ctx.prec
    try:
        while prec <= 1 << 14:
            ctx.prec = prec  # what ctx.workprec does, without its context-manager overhead
            bb = flint.arb(flint.fmpq(p, q))
            om = flint.arb(flint.fmpq(q - p, q))
            e = flint.arb(e_q) if e_q is not None else arb_epsilon(eps)
            gm = gamma_minus_beta_ball(om, e)
            v = (-k * ((gm / bb).log1p() - gm / (bb + gm))).exp()
            if v.is_finite() and v > 0 and v.rel_accuracy_bits() >= 64:
                m_raw, e_raw = v.upper().man_exp()
                return mpmath.mp.make_mpf(libmp.from_man_exp(int(m_raw), int(e_raw), mpmath.mp.prec, "u"))
            prec *= 2
    finally:
        ctx.prec = old
    return None
