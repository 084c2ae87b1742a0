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

    def f() -> Any:
        iv = mpmath.iv
        bb = iv_from_fraction(b)
        gm = iv_from_fraction(1 - b) * (1 - iv.exp(-iv_from_fraction(eps)))  # γ − β
        g = bb + gm
        return iv.exp(-kk * (iv.log(g / bb) - gm / g))

    # precision raised until 64 bits are certain (1 − e^−ε cancels for tiny ε).
    return iv_upper_mpf(iv_adaptive(f))
