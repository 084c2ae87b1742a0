"""The exponential mechanism (McSherry & Talwar, FOCS 2007) with an exact sampler.

Candidate c is chosen with probability proportional to exp(ε₁·u_c / (2Δ)), where Δ bounds how
much any u_c changes when one record is added or removed; the choice is then ε₁-DP (their
Theorem 6).  With ``monotone=True`` the weights are exp(ε₁·u_c / Δ): valid when, between any two
neighbours, every u_c moves in the same direction (all by a value in [0, Δ], or all in [−Δ, 0]) —
then every weight and their sum change by a factor in [1, e^ε₁] (or [e^−ε₁, 1]), so each
probability changes by a factor in [e^−ε₁, e^ε₁] (the monotone case of their analysis).  The
sampler draws candidates exactly with those probabilities: rejection sampling
(propose c uniformly, accept with probability w_c = exp(ε₁(u_c − u_max)/(cΔ)) ≤ 1, c = 2 or 1), where the
acceptance test compares a uniform random real, generated bit by bit, with a python-flint
``arb`` ball of w_c whose precision grows until the comparison is decided.  No float rounding
enters the probabilities (floating-point samplers are known to leak, Mironov CCS 2012).
Expected proposals: m / Σ_c w_c ≤ m for m candidates.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import ExactLog


def _arb(x: Fraction | ExactLog, prec: int) -> Any:
    """An ``arb`` ball containing x (exact rationals; an exact log a + ln r enclosed)."""
    with flint.ctx.workprec(prec):
        if isinstance(x, ExactLog):
            return flint.arb(x.a.numerator) / x.a.denominator + (
                flint.arb(x.r.numerator) / x.r.denominator).log()
        return flint.arb(x.numerator) / x.denominator


def weight_ball(u: Fraction, u_max: Fraction, eps1: Fraction, sensitivity: Fraction, prec: int,
                monotone: bool = False) -> Any:
    """exp(ε₁ (u − u_max) / (2Δ)) — or exp(ε₁ (u − u_max) / Δ) with ``monotone`` — as an ``arb``
    ball at ``prec`` bits."""
    with flint.ctx.workprec(prec):
        scale = _arb((u - u_max) / ((1 if monotone else 2) * sensitivity), prec + 16)
        return (_arb(eps1, prec + 16) * scale).exp()


def probabilities(utilities: Sequence[Fraction], eps1: Fraction, sensitivity: Fraction,
                  prec: int = 128, *, monotone: bool = False) -> list[tuple[float, float]]:
    """Each candidate's selection probability as a certified [lower, upper] (floats rounded
    outward, one ulp each way): the lower end may be floored at 0, the upper end of a positive
    probability is always > 0 (at least the smallest subnormal, even for e^-750), for reporting."""
    u_max = max(utilities)
    with flint.ctx.workprec(prec):
        ws = [weight_ball(u, u_max, eps1, sensitivity, prec, monotone) for u in utilities]
        total = sum(ws, flint.arb(0))
        out = []
        for w in ws:
            p = w / total
            lo, hi = p.lower(), p.upper()
            lo_f = math.nextafter(float(lo), -math.inf)
            hi_f = math.nextafter(float(hi), math.inf)
            out.append((max(0.0, lo_f), min(1.0, hi_f)))
    return out


def _accept(w_of: Any, rng: random.Random, max_bits: int = 1 << 14) -> bool:
    """Is a uniform U in [0, 1) below w?  U is drawn 64 bits at a time until decided."""
    a, bits, prec = 0, 0, 64
    while bits < max_bits:
        a = (a << 64) | rng.getrandbits(64)
        bits += 64
        prec = max(prec, bits + 32)
        w = w_of(prec)
        with flint.ctx.workprec(prec):  # a has `bits` bits: both ends are exact at this precision
            lo_u = flint.arb(a) / flint.arb(2) ** bits
            hi_u = flint.arb(a + 1) / flint.arb(2) ** bits
            if hi_u <= w:  # every point of the ball w is >= hi_u > U
                return True
            if lo_u >= w:  # U >= lo_u >= every point of w
                return False
    raise RuntimeError("exponential mechanism: acceptance test undecided after many bits")  # pragma: no cover


def sample(utilities: Sequence[Fraction], eps1: Fraction, sensitivity: Fraction,
           rng: random.Random, *, monotone: bool = False) -> int:
    """Index of the chosen candidate (see the module docstring)."""
    if not utilities:
        raise ParameterError("exponential mechanism: no candidates")
    if sensitivity <= 0:
        raise ParameterError("exponential mechanism: the sensitivity must be > 0")
    if eps1 <= 0:
        raise ParameterError("--select-with: epsilon1 must be > 0")
    u_max = max(utilities)
    m = len(utilities)
    while True:
        c = rng.randrange(m)
        if utilities[c] == u_max or _accept(
                lambda prec, c=c: weight_ball(utilities[c], u_max, eps1, sensitivity, prec, monotone), rng):
            return c


__all__ = ["probabilities", "sample", "weight_ball"]
