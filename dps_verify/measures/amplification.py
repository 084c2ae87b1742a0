"""CP Thm 1 (§2.4, App. A.1): amplification of (ε,δ)-DP by Bernoulli sampling."""

from __future__ import annotations

import mpmath

from dps_verify.core.numbers import (
    BASE_PREC,
    Number,
    fraction_to_mpf,
    iv_from_fraction,
    iv_precision,
    iv_upper_mpf,
)
from dps_verify.core.params import (
    beta_param,
    delta_param,
    epsilon_param,
)


def amplify(
    epsilon: Number, delta: Number, beta_from: Number, beta_to: Number
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """CP Thm 1: (β₁, ε₁, δ₁)-DPS implies (β₂, ε₂, δ₂)-DPS for β₂ ≤ β₁, where
    ε₂ = ln(1 + (β₂/β₁)(e^{ε₁} − 1)) and δ₂ = (β₂/β₁)δ₁.

    Returns (ε₂, δ₂), both rounded up.  ``beta_from = 1`` gives the plain amplification of an
    (ε₁, δ₁)-DP algorithm by sampling at rate ``beta_to``.
    """
    e1 = epsilon_param(epsilon)
    d1 = delta_param(delta)
    b1 = beta_param(beta_from, allow_one=True)
    b2 = beta_param(beta_to, allow_one=True)
    if b2 > b1:
        raise ValueError(f"beta_to must be <= beta_from (CP Thm 1), got {beta_to} > {beta_from}")
    r = b2 / b1
    with iv_precision(BASE_PREC):
        iv = mpmath.iv
        e2 = iv.log(1 + iv_from_fraction(r) * (iv.exp(iv_from_fraction(e1)) - 1))
        eps2 = iv_upper_mpf(e2) if e1 != 0 else mpmath.mpf(0)
    return eps2, fraction_to_mpf(r * d1, "u")
