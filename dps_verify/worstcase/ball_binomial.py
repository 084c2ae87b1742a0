"""Binomial probabilities for huge n in ball arithmetic (python-flint ``arb``), certified.

The exact integer scans of :mod:`dps_verify.worstcase.sdgs` work over q^n and cost O(n log q)
bits per value; when β or ε is tiny the group sizes that matter are n ~ k/β (up to 10^40 and
more), far out of their reach.  Here f(j; n, β), Pr[Bin(n, β) ≥ T] and Pr[Bin(n, β) ≤ m] are
enclosed in balls (midpoint ± radius, every operation rounded outward by Arb), with a work cost
independent of n:

* ln f(j; n, β) = ln C(n, j) + j ln β + (n − j) ln(1 − β), with ln C(n, j) =
  ln Γ(n+1) − ln Γ(j+1) − ln Γ(n−j+1) and the precision raised by 2·log2 n bits (the terms
  are of size n ln n).
* Tails are summed from the threshold outwards, with term ratios
  ρ_j = f(j+1)/f(j) = (n−j)β/((j+1)(1−β)) (upper tail) and τ_j = f(j−1)/f(j) =
  j(1−β)/((n−j+1)β) (lower tail).  Both are monotone in the direction of summation (ρ_j
  decreases as j grows, τ_j decreases as j falls), so once the current ratio r < 1 every later
  term is ≤ t·r^i and the remainder is ≤ t·r/(1−r); summation stops when that bound is below
  2^−prec of the sum and the bound is added as a radius.  A tail that starts on the wrong side of
  the mode (first ratio ≥ 1) is computed as 1 minus the other tail, whose first ratio is then < 1
  (ρ_T ≥ 1 and τ_{T−1} ≥ 1 cannot both hold).

Callers raise the working precision until the enclosure is as tight as they need.  Requires
python-flint (a dependency of the package).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import dyadic_fraction

#: Most terms all the tail sums of one :class:`BallBinomial` may take (about 2 µs each): a
#: threshold next to the mean of a huge n converges slowly.
TOTAL_TERMS = 500_000


def _flint() -> Any:
    import flint  # a dependency of the package (pyproject.toml)

    return flint


def arb_fraction(x: Any) -> Any:
    """A ball containing the rational x (exact when x is dyadic and short), or an exact-log
    ε = a + ln r (:class:`~dps_verify.core.numbers.ExactLog`) enclosed by Arb's logarithm."""
    from dps_verify.core.numbers import ExactLog

    flint = _flint()
    if isinstance(x, ExactLog):
        return arb_fraction(x.r).log() + arb_fraction(x.a)
    return flint.arb(flint.fmpq(int(x.numerator), int(x.denominator)))


def arb_epsilon(eps: Any) -> Any:
    """A ball containing ε: a rational (or int), or an exact log a + ln r
    (:class:`~dps_verify.core.numbers.ExactLog`, enclosed as a + ln r in ball arithmetic, never
    rounded to a decimal)."""
    return arb_fraction(eps)


def arb_to_fractions(x: Any) -> tuple[Fraction, Fraction]:
    """The ends of ball x, midpoint ∓ radius, as exact rationals (lower, upper): both are dyadic
    numbers, so no rounding is needed; CertificationError if the ball is not finite."""
    if not x.is_finite():
        raise CertificationError("ball arithmetic lost all accuracy (non-finite enclosure)")

    (mm, me), (rm, re) = x.mid().man_exp(), x.rad().man_exp()  # mid = mm·2^me, rad = rm·2^re
    mm, me, rm, re = int(mm), int(me), int(rm), int(re)
    e = min(me, re)
    m, r = mm << (me - e), rm << (re - e)  # mid ∓ rad = (m ∓ r)·2^e
    return dyadic_fraction(m - r, e), dyadic_fraction(m + r, e)


class BallBinomial:
    """Bin(n, β) probabilities for a fixed rational β at a fixed precision (bits): every ball
    it returns has a relative radius of about 2^−prec or less (the tail sums stop once their
    remainder is below 2^−prec of the sum)."""

    def __init__(self, beta: Fraction, prec: int) -> None:
        if not 0 < beta < 1:
            raise ParameterError("beta must be in (0, 1)")
        self.flint = _flint()
        self.beta = beta
        self.prec = prec
        self.terms = 0  # tail terms summed so far (work budget TOTAL_TERMS)

    def _wp(self, n: int) -> int:
        """The working precision for group size n: ``prec`` plus 2·log2 n bits, which cover the
        cancellation in ln Γ(n+1) − ln Γ(j+1) − ln Γ(n−j+1) (terms of size n ln n) and the
        rounding of up to n terms of a tail sum."""
        return self.prec + (n * n).bit_length()

    def _odds(self) -> Any:
        """β/(1−β) at the current working precision (one rounding of an exact rational)."""
        return arb_fraction(self.beta / (1 - self.beta))

    def log_pmf(self, j: int, n: int) -> Any:
        """A ball around ln f(j; n, β) (0 ≤ j ≤ n)."""
        arb = self.flint.arb
        if not 0 <= j <= n:
            raise ValueError("log_pmf: j outside 0..n")
        with self.flint.ctx.workprec(self._wp(n)):
            ln_comb = arb(n + 1).lgamma() - arb(j + 1).lgamma() - arb(n - j + 1).lgamma()
            # ln β = −ln(1 + (1−β)/β) and ln(1−β) = −ln(1 + β/(1−β)): full relative precision
            # for β next to 0 and next to 1 alike
            ln_b = -arb_fraction((1 - self.beta) / self.beta).log1p()
            ln_1mb = -self._odds().log1p()
            return ln_comb + j * ln_b + (n - j) * ln_1mb

    def pmf(self, j: int, n: int) -> Any:
        """A ball around f(j; n, β) (0 outside 0..n)."""
        if not 0 <= j <= n:
            return self.flint.arb(0)
        with self.flint.ctx.workprec(self._wp(n)):
            return self.log_pmf(j, n).exp()

    def _sum(self, t0: Any, ratio: Callable[[int], Any], start: int, step: int, stop: int) -> Any:
        """Σ of t0, t0·r(start), t0·r(start)·r(start+step), … up to index ``stop`` inclusive,
        with the geometric remainder bound (ratios non-increasing along the walk) as radius.
        At most ``TOTAL_TERMS`` terms after t0 over all the sums of this object."""
        arb = self.flint.arb
        total, t, j = t0, t0, start
        tiny = arb(2) ** -self.prec
        while j != stop:
            r = ratio(j)  # < 1 (the tails start on the side where it is), and every later one ≤ r
            rem = t * r / (1 - r)  # so the rest of the sum is ≤ t·r/(1 − r)
            if rem.upper() <= total.lower() * tiny:
                return total + arb(0, rem.upper())
            self.terms += 1
            if self.terms > TOTAL_TERMS:
                raise CertificationError(
                    f"binomial tails: work limit reached (TOTAL_TERMS = {TOTAL_TERMS} terms) at group "
                    f"size n = {max(start, stop)}, beta = {float(self.beta):.4g}: the thresholds sit "
                    "next to the mean, where tails converge slowly"
                )
            t = t * r
            total = total + t
            j += step
        return total

    def upper_tail(self, T: int, n: int) -> Any:
        """A ball around Pr[Bin(n, β) ≥ T]: summed upwards from T when the first ratio ρ_T < 1,
        else 1 − Pr[X ≤ T − 1] (whose first ratio is then < 1: ρ_T ≥ 1 gives
        τ_{T−1} ≤ (T−1)(n−T)/((n−T+2)(T+1)) < 1)."""
        arb = self.flint.arb
        if T <= 0:
            return arb(1)
        if T > n:
            return arb(0)
        with self.flint.ctx.workprec(self._wp(n)):
            odds = self._odds()
            rho = (n - T) * odds / (T + 1)
            if not rho < 1:
                return 1 - self.lower_cdf(T - 1, n)
            return self._sum(self.pmf(T, n), lambda j: (n - j) * odds / (j + 1), T, 1, n)

    def lower_cdf(self, m: int, n: int) -> Any:
        """A ball around Pr[Bin(n, β) ≤ m]: summed downwards from m when the first ratio τ_m < 1,
        else 1 − Pr[X ≥ m + 1] (whose first ratio is then < 1: τ_m ≥ 1 gives
        ρ_{m+1} ≤ m/(m + 2) < 1)."""
        arb = self.flint.arb
        if m >= n:
            return arb(1)
        # m < 0 needs no case of its own: τ_m < 0 < 1 and the first term pmf(m, n) is the exact
        # ball 0, so the sum returns exactly 0
        with self.flint.ctx.workprec(self._wp(n)):
            odds = self._odds()
            tau = m / ((n - m + 1) * odds)
            if not tau < 1:
                return 1 - self.upper_tail(m + 1, n)
            return self._sum(self.pmf(m, n), lambda j: j / ((n - j + 1) * odds), m, -1, 0)
