"""γ − β, the gap behind CP Thm 5's regime and TR Thm 6's Chernoff bound, written once for every
representation the worst-case modules use: a python-flint ball (first choice), its mpmath.iv
fallback, and the float screens; and ε as a float that never overflows (ε = 1e400 is legal).

Here γ = 1 − (1−β)e^{−ε}, so γ − β = (1−β)(1 − e^{−ε}), formed from expm1 (no cancellation for
tiny β or ε).  A module of its own so that :mod:`~dps_verify.worstcase.sdgs` and
:mod:`~dps_verify.worstcase.long_range` (which sdgs calls) both import it without importing each
other.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dps_verify.core.numbers import iv_exp, iv_from_fraction

#: Floats of ε for the screens are taken at min(ε, this): e^−ε is already 0 in floats there,
#: and ε up to any size (1e400 parses exactly) must not overflow a float conversion.
_EPS_FLOAT_CAP = Fraction(10**6)


def eps_float(eps: Any) -> float:
    """float(min(ε, 10^6)) — a screen/message value that never overflows (ε = 1e400 is legal)."""
    return float(eps) if eps <= _EPS_FLOAT_CAP else float(_EPS_FLOAT_CAP)


# γ − β = (1−β)(1 − e^{−ε}), γ = 1 − (1−β)e^{−ε}: formed from expm1 (no cancellation for tiny β
# or ε), written once for every representation the module family uses — a python-flint ball
# (first choice), its mpmath.iv fallback, and the float screens.


def gamma_minus_beta_ball(one_minus_beta: Any, eps_ball: Any) -> Any:
    """γ − β as a python-flint ball, from balls around 1 − β and ε."""
    return one_minus_beta * (-((-eps_ball).expm1()))


def gamma_minus_beta_iv(beta: Fraction, eps: Any) -> Any:
    """γ − β as an mpmath.iv interval (the fallback when no ball is available)."""
    return iv_from_fraction(1 - beta) * (1 - iv_exp(-iv_from_fraction(eps)))


def gamma_minus_beta_float(b: float, e: float) -> float:
    """γ − β in floats (screens only; ε capped at 700, where e^{−ε} is already 0 to the float)."""
    return (1 - b) * (-math.expm1(-min(e, 700.0)))
