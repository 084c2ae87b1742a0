"""The constants of inverse.pld_discrete and inverse.releases that a certified number rests on
satisfy the inequalities their soundness needs (module doc of pld_discrete, lemmas (c), (c'),
(d)): the unit roundoff is at least binary64's, the complex-multiplication charge covers
√2·γ₂ (Higham Lemma 3.5), the FFT charge η covers Higham's η = μ + γ₄(√2 + μ) for twiddles
within μ = u, the weight margin covers the few ulps of the weight evaluation, and every Chernoff
parameter λ is positive (Markov's inequality for e^(λX) needs λ > 0).  A larger (more
conservative) value passes; a smaller, unsound one fails.  Work budgets and heuristics (grid
sizes, screen band and noise, λ grids' extent, budgets, defaults) are not pinned here: any value
of those is sound, and budgets are tested through behaviour at their boundaries."""

import math

import numpy as np

from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import releases as R

UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2  # 2^-53


def _gamma(n: int, u: float = UNIT_ROUNDOFF) -> float:
    return n * u / (1 - n * u)


def test_unit_roundoff_covers_binary64() -> None:
    assert D.U >= UNIT_ROUNDOFF


def test_complex_multiplication_charge_covers_sqrt2_gamma2() -> None:
    assert D.CMUL >= math.sqrt(2) * _gamma(2)


def test_fft_charge_covers_highams_eta_for_twiddles_within_u() -> None:
    mu = UNIT_ROUNDOFF
    assert D.ETA >= mu + _gamma(4) * (math.sqrt(2) + mu)


def test_weight_margin_covers_the_weight_evaluation() -> None:
    # one rounded subtraction (u), expm1 within a few ulp (glibc: < 1 ulp; charged 4), the
    # negation and max exact: at least 6u relative
    assert D.WEIGHT_MARGIN >= 6 * UNIT_ROUNDOFF


def test_every_chernoff_parameter_is_positive() -> None:
    assert all(lam > 0 for lam in D._Tails.LAMBDAS)
    assert len(R.LAMBDAS) > 0 and bool(np.all(R.LAMBDAS > 0)) and bool(np.all(np.isfinite(R.LAMBDAS)))
