"""TR §6 Thm 6: the closed-form Chernoff bound on sampled strongly-safe k-anonymization."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dps_verify.core.numbers import (
    Number,
    iv_adaptive,
    iv_from_fraction,
    iv_upper_mpf,
)
from dps_verify.core.params import (
    epsilon_param,
    k_param,
    require_paper_regime,
    resolve_beta,
)


def chernoff_delta(k: Number, beta: Number, epsilon: Number) -> mpmath.mpf:
    """TR §6 Thm 6's closed form exp(−k(ln(γ/β) − (γ−β)/γ)), rounded up.

    It comes from the multiplicative Chernoff bound on Pr[X ≥ γn] evaluated at n = k/γ; see
    ``proofs`` for whether it really dominates d(k, β, ε).
    """
    kk = k_param(k)
    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    require_paper_regime(b, eps, "TR Thm 6")
    if eps >= 4096:  # γ = 1 − (1−β)e^{−ε} ≥ 1 − 2^−5900: use γ_lo (the bound decreases in γ)
        eps = Fraction(4096)

    fast = _chernoff_arb(kk, b, eps)
    if fast is not None:
        return fast

    def f() -> Any:
        iv = mpmath.iv
        bb = iv_from_fraction(b)
        gm = iv_from_fraction(1 - b) * (1 - iv.exp(-iv_from_fraction(eps)))  # γ − β
        g = bb + gm
        return iv.exp(-kk * (iv.log(g / bb) - gm / g))

    # precision raised until 64 bits are certain (1 − e^−ε cancels for tiny ε).
    return iv_upper_mpf(iv_adaptive(f))


def _chernoff_arb(k: int, b: Fraction, eps: Fraction) -> mpmath.mpf | None:
    """The same closed form in python-flint ball arithmetic, used when the value is below
    e^−700 (there mpmath.iv's enclosure ends become rationals with 10^8-bit denominators and
    take seconds): precision doubled until 64 bits are certain, upper end rounded up.  None
    (use the mpmath path) for larger values or without python-flint."""
    import math

    bf = float(b) if b > Fraction(1, 10**300) else 1e-300
    gm_f = (1 - bf) * -math.expm1(-min(float(eps), 700.0))
    rate = math.log1p(gm_f / bf) - gm_f / (bf + gm_f) if gm_f > 0 else 0.0
    if not k * rate > 700:
        return None
    try:
        import flint
    except ImportError:  # pragma: no cover
        return None
    from mpmath import libmp

    from dps_verify.measures.ball_binomial import arb_epsilon

    prec = 128 + 2 * k.bit_length()
    while prec <= 1 << 14:
        with flint.ctx.workprec(prec):
            bb = flint.arb(flint.fmpq(int(b.numerator), int(b.denominator)))
            om = flint.arb(flint.fmpq(int(b.denominator - b.numerator), int(b.denominator)))
            e = arb_epsilon(eps)
            gm = om * -((-e).expm1())  # γ − β
            v = (-k * ((gm / bb).log1p() - gm / (bb + gm))).exp()
            if v.is_finite() and v > 0 and v.rel_accuracy_bits() >= 64:
                m_raw, e_raw = v.upper().man_exp()
                return mpmath.mp.make_mpf(libmp.from_man_exp(int(m_raw), int(e_raw), mpmath.mp.prec, "u"))
        prec *= 2
    return None
