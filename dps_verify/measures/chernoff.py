"""TR §6 Thm 6: the closed-form Chernoff bound on sampled strongly-safe k-anonymization."""

from __future__ import annotations

import mpmath

from dps_verify.core.numbers import (
    BASE_PREC,
    Number,
    iv_from_fraction,
    iv_precision,
    iv_upper_mpf,
)
from dps_verify.core.params import (
    beta_param,
    epsilon_param,
    k_param,
    require_paper_regime,
)


def chernoff_delta(k: Number, beta: Number, epsilon: Number) -> mpmath.mpf:
    """TR §6 Thm 6's closed form exp(−k(ln(γ/β) − (γ−β)/γ)), rounded up.

    It comes from the multiplicative Chernoff bound on Pr[X ≥ γn] evaluated at n = k/γ; see
    ``proofs`` for whether it really dominates d(k, β, ε).
    """
    kk = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    require_paper_regime(b, eps, "TR Thm 6")
    with iv_precision(BASE_PREC):
        iv = mpmath.iv
        bb = iv_from_fraction(b)
        g = 1 - iv_from_fraction(1 - b) * iv.exp(-iv_from_fraction(eps))
        v = iv.exp(-kk * (iv.log(g / bb) - (g - bb) / g))
        return iv_upper_mpf(v)
