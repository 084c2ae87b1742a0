"""Binomial probabilities for huge n in ball arithmetic (python-flint ``arb``), certified.

The exact integer scans of :mod:`dps_verify.worstcase.sdgs` work over q^n and cost O(n log q)
bits per value; when β or ε is tiny the group sizes that matter are n ~ k/β (up to 10^40 and
more), far out of their reach.  Here f(j; n, β), Pr[Bin(n, β) ≥ T] and Pr[Bin(n, β) ≤ m] are
enclosed in balls (midpoint ± radius, every operation rounded outward by Arb), with a work cost
independent of n:

* ln f(j; n, β) = ln C(n, s) + j ln β + (n − j) ln(1 − β), s = min(j, n − j); C(n, s) is the
  rising factorial (n−s+1)^(s)/s! when s ≤ ``RISING_MAX`` (no cancellation at any n), else
  ln Γ(n+1) − ln Γ(j+1) − ln Γ(n−j+1) with the precision raised by the bits of n ln n.
* Tails are summed from the threshold outwards, with term ratios
  ρ_j = f(j+1)/f(j) = (n−j)β/((j+1)(1−β)) (upper tail) and τ_j = f(j−1)/f(j) =
  j(1−β)/((n−j+1)β) (lower tail).  Both are monotone in the direction of summation (ρ_j
  decreases as j grows, τ_j decreases as j falls), so once the current ratio r < 1 every later
  term is ≤ t·r^i and the remainder is ≤ t·r/(1−r); summation stops when that bound is below
  2^−prec of the sum and the bound is added as a radius.  A tail that starts on the wrong side of
  the mode (first ratio ≥ 1) is computed as 1 minus the other tail, whose first ratio is then < 1
  (ρ_T ≥ 1 and τ_{T−1} ≥ 1 cannot both hold).

Callers raise the working precision until the enclosure is as tight as they need
(:func:`adaptive`).  Requires python-flint; without it :class:`CertificationError`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import CertificationError, ParameterError

#: C(n, s) through a rising factorial up to this s (cost O(s)); beyond, through ln Γ.
RISING_MAX = 4096
#: Most terms one tail sum may take before giving up (slow convergence next to the mode).
MAX_TERMS = 200_000
#: Most terms all the tail sums of one :class:`BallBinomial` may take (about 2 µs each).
TOTAL_TERMS = 500_000


def _flint() -> Any:
    try:
        import flint
    except ImportError as exc:  # pragma: no cover - python-flint is a runtime dependency
        raise CertificationError(
            "group sizes beyond the exact scan need ball arithmetic from python-flint, which is "
            "not installed (pip install python-flint)"
        ) from exc
    return flint


def arb_fraction(x: Fraction) -> Any:
    """A ball containing the rational x (exact when x is dyadic and short), or an exact-log
    ε = a + ln r (:class:`~dps_verify.core.numbers.ExactLog`) enclosed by Arb's logarithm."""
    from dps_verify.core.numbers import ExactLog

    flint = _flint()
    if isinstance(x, ExactLog):
        return flint.arb(flint.fmpq(int(x.r.numerator), int(x.r.denominator))).log() + arb_fraction(x.a)
    return flint.arb(flint.fmpq(int(x.numerator), int(x.denominator)))


def arb_epsilon(eps: Any) -> Any:
    """A ball containing ε: a rational, or an exact log a + ln r (:class:`~dps_verify.core.
    numbers.ExactLog`, enclosed as a + ln r in ball arithmetic, never rounded to a decimal)."""
    if isinstance(eps, Fraction | int):
        return arb_fraction(Fraction(eps))
    r, a = eps.r, eps.a  # ExactLog
    return arb_fraction(a) + arb_fraction(r).log()


def arb_to_fractions(x: Any) -> tuple[Fraction, Fraction]:
    """The ends of ball x as exact rationals (lower, upper); CertificationError if not finite."""
    if not x.is_finite():
        raise CertificationError("ball arithmetic lost all accuracy (non-finite enclosure)")

    def end(v: Any) -> Fraction:
        man, exp = v.man_exp()
        man, exp = int(man), int(exp)
        return Fraction(man * (1 << exp)) if exp >= 0 else Fraction(man, 1 << -exp)

    man, _ = x.mid().man_exp()
    with _flint().ctx.workprec(max(int(man).bit_length(), 64) + 64):  # ends rounded outward
        return end(x.lower()), end(x.upper())


def rel_bits(x: Any) -> int:
    """Certified relative accuracy of ball x in bits (large for an exact ball)."""
    return int(x.rel_accuracy_bits())


class BallBinomial:
    """Bin(n, β) probabilities for a fixed rational β at a fixed precision (bits)."""

    def __init__(self, beta: Fraction, prec: int) -> None:
        if not 0 < beta < 1:
            raise ParameterError("beta must be in (0, 1)")
        self.flint = _flint()
        self.beta = beta
        self.prec = prec
        self.terms = 0  # tail terms summed so far (work budget TOTAL_TERMS)
        with self.flint.ctx.workprec(prec + 64):
            b = arb_fraction(beta)
            self.b = b
            self.log_b = b.log()
            self.log_1mb = (-b).log1p()  # ln(1−β) to full relative precision even for tiny β
            self.odds = b / arb_fraction(1 - beta)  # β/(1−β)

    def _wp(self, n: int) -> int:
        return self.prec + 2 * max(n, 2).bit_length() + 32

    def log_pmf(self, j: int, n: int) -> Any:
        """A ball around ln f(j; n, β) (0 ≤ j ≤ n)."""
        arb = self.flint.arb
        if not 0 <= j <= n:
            raise ValueError("log_pmf: j outside 0..n")
        s = min(j, n - j)
        with self.flint.ctx.workprec(self._wp(n)):
            if s == 0:
                lc = arb(0)
            elif s <= RISING_MAX:
                lc = (arb(n - s + 1).rising(s) / arb.fac_ui(s)).log()
            else:
                lc = arb(n + 1).lgamma() - arb(j + 1).lgamma() - arb(n - j + 1).lgamma()
            out = lc
            if j:
                out = out + j * self.log_b
            if n - j:
                out = out + (n - j) * self.log_1mb
            return out

    def pmf(self, j: int, n: int) -> Any:
        """A ball around f(j; n, β) (0 outside 0..n)."""
        if not 0 <= j <= n:
            return self.flint.arb(0)
        with self.flint.ctx.workprec(self._wp(n)):
            return self.log_pmf(j, n).exp()

    def _sum(self, t0: Any, ratio: Callable[[int], Any], start: int, step: int, stop: int) -> Any:
        """Σ of t0, t0·r(start), t0·r(start)·r(start+step), … up to index ``stop`` inclusive,
        with the geometric remainder bound (ratios non-increasing along the walk) as radius."""
        arb = self.flint.arb
        total, t, j = t0, t0, start
        tiny = arb(2) ** (-self.prec - 8)
        for i in range(MAX_TERMS):
            if j == stop:
                self.terms += i
                return total
            r = ratio(j)
            if i % 8 == 0 and r < 1:  # remainder test every 8 terms (a later stop is as sound)
                rem = t * r / (1 - r)
                if rem.upper() <= total.lower() * tiny:
                    self.terms += i
                    return total + arb(0, rem.upper())
            t = t * r
            total = total + t
            j += step
            if self.terms + i > TOTAL_TERMS:
                raise CertificationError(
                    f"binomial tails: work limit reached (TOTAL_TERMS = {TOTAL_TERMS} terms) at group "
                    f"size n = {max(start, stop)}, beta = {float(self.beta):.4g}: the thresholds sit "
                    "next to the mean, where tails converge slowly"
                )
        raise CertificationError(
            f"binomial tail: more than {MAX_TERMS} terms (n and the threshold are too close to "
            "the mean for term-by-term summation)"
        )

    def upper_tail(self, T: int, n: int, flip: bool = True) -> Any:
        """A ball around Pr[Bin(n, β) ≥ T]."""
        arb = self.flint.arb
        if T <= 0:
            return arb(1)
        if T > n:
            return arb(0)
        with self.flint.ctx.workprec(self._wp(n)):
            rho = (n - T) * self.odds / (T + 1)
            if flip and not rho < 1:
                return 1 - self.lower_cdf(T - 1, n, flip=False)
            return self._sum(
                self.pmf(T, n), lambda j: (n - j) * self.odds / (j + 1), T, 1, n
            )

    def lower_cdf(self, m: int, n: int, flip: bool = True) -> Any:
        """A ball around Pr[Bin(n, β) ≤ m]."""
        arb = self.flint.arb
        if m < 0:
            return arb(0)
        if m >= n:
            return arb(1)
        with self.flint.ctx.workprec(self._wp(n)):
            tau = m / ((n - m + 1) * self.odds)
            if flip and not tau < 1:
                return 1 - self.upper_tail(m + 1, n, flip=False)
            return self._sum(self.pmf(m, n), lambda j: j / ((n - j + 1) * self.odds), m, -1, 0)


def adaptive(fn: Callable[[int], Any], want_bits: int = 64, start: int = 96, max_prec: int = 1 << 13) -> Any:
    """fn(prec) at doubling precision until the ball has ``want_bits`` relative bits (or is
    exactly 0); CertificationError past ``max_prec``."""
    prec = start
    while True:
        v = fn(prec)
        if v.is_zero() or (v.is_finite() and rel_bits(v) >= want_bits):
            return v
        if prec >= max_prec:
            raise CertificationError(
                f"ball arithmetic: fewer than {want_bits} certain bits at {max_prec}-bit precision"
            )
        prec *= 2
