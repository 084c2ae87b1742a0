"""CP Thm 1 (§2.4, App. A.1): amplification of (ε,δ)-DP by Bernoulli sampling."""

from __future__ import annotations

from typing import Any

import mpmath

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import (
    Number,
    fraction_to_mpf,
    iv_adaptive,
    iv_exp,
    iv_from_fraction,
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
        raise ParameterError(f"beta_to must be <= beta_from (CP Thm 1), got {beta_to} > {beta_from}")
    r = b2 / b1
    if e1 == 0:
        return mpmath.mpf(0), fraction_to_mpf(r * d1, "u")

    def f() -> Any:
        iv = mpmath.iv
        return iv.log(1 + iv_from_fraction(r) * (iv_exp(iv_from_fraction(e1)) - 1))

    # precision raised until 64 bits of ε₂ are certain (ln(1+x), e^ε − 1 cancel for tiny inputs)
    try:
        eps2 = iv_upper_mpf(iv_adaptive(f))
    except CertificationError:
        if e1 < 64:
            raise
        # huge ε₁: ε₂ ≤ ε₁ + ln(r) + ... ; ln(1 + r(e^ε₁ − 1)) ≤ ε₁ + ln(r) when r ≤ 1 and e^ε₁ ≥ 1/r
        eps2 = fraction_to_mpf(e1, "u")
    return eps2, fraction_to_mpf(r * d1, "u")
