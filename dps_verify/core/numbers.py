"""Exact parameters and certified numbers.

Every parameter enters the engine as an exact :class:`fractions.Fraction`.  A ``float`` is read
by its shortest decimal representation (``0.1`` means 1/10, the number a person typed), an
``mpmath.mpf`` by its exact binary value, a ``str`` as a decimal or ``p/q`` literal.

Quantities involving e^ε (which is irrational for every rational ε ≠ 0, by Lindemann's theorem)
are handled as ``mpmath.iv`` intervals; :class:`Certified` carries the enclosure together with a
sentence saying how it was obtained.  Public functions that return a single ``mpf`` return the
end of the enclosure that is safe for a privacy claim (δ and ε rounded up).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import mpmath
from mpmath import libmp

if TYPE_CHECKING:
    import numpy as np


class MpfLike(Protocol):
    """An ``mpmath.mpf`` (read by its exact binary value ``man_exp``)."""

    @property
    def man_exp(self) -> tuple[int, int]: ...


#: What a parameter may be given as (see :func:`to_fraction`); never ``bool``.
Number: TypeAlias = "int | float | str | Fraction | Decimal | MpfLike | np.integer | np.floating"

#: Working precision (bits) of the interval arithmetic used for e^ε and logarithms.
BASE_PREC = 128
#: Give up refining an e^ε comparison beyond this precision (only reachable for inputs such as
#: ε = ln(r) given to thousands of digits).
MAX_PREC = 1 << 15


def to_fraction(x: Number, name: str = "value") -> Fraction:
    """Read ``x`` exactly.  Raises ``ValueError`` for NaN, infinities and non-numbers."""
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a number, not a boolean")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(int(x))
    if isinstance(x, float):  # includes numpy.float64
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        return Fraction(float.__repr__(float(x)))
    if isinstance(x, numbers.Integral):  # numpy integers
        return Fraction(int(x))
    if isinstance(x, numbers.Real) and type(x).__module__ == "numpy":  # numpy float32 etc.
        return to_fraction(float(x), name)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        man, exp = x.man_exp
        man = int(man)
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a number, got {x!r}") from None
    raise ValueError(f"{name} must be a number, got {type(x).__name__}")


def fraction_to_mpf(x: Fraction, rounding: str = "n", prec: int | None = None) -> mpmath.mpf:
    """``x`` as an ``mpf`` rounded in direction ``rounding`` ('u' up, 'd' down, 'n' nearest)."""
    prec = prec or mpmath.mp.prec
    return mpmath.mp.make_mpf(libmp.from_rational(x.numerator, x.denominator, prec, rounding))


def iv_from_fraction(x: Fraction) -> Any:
    """An ``mpmath.iv`` interval enclosing ``x`` at the current ``iv.prec``."""
    prec = mpmath.iv.prec
    lo = libmp.from_rational(x.numerator, x.denominator, prec, "f")
    hi = libmp.from_rational(x.numerator, x.denominator, prec, "c")
    return mpmath.iv.mpf((mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)))


@contextmanager
def iv_precision(prec: int) -> Iterator[None]:
    """Temporarily set ``mpmath.iv.prec`` (the interval context has no ``workprec``)."""
    old = mpmath.iv.prec
    mpmath.iv.prec = prec
    try:
        yield
    finally:
        mpmath.iv.prec = old


def iv_lower(x: Any) -> Fraction:
    """Exact lower end of an ``mpmath.iv`` interval (no rounding through the mp context)."""
    p, q = libmp.to_rational(x._mpi_[0])
    return Fraction(p, q)


def iv_upper(x: Any) -> Fraction:
    """Exact upper end of an ``mpmath.iv`` interval (no rounding through the mp context)."""
    p, q = libmp.to_rational(x._mpi_[1])
    return Fraction(p, q)


def iv_upper_mpf(x: Any) -> mpmath.mpf:
    """Upper end of an interval as an ``mpf`` rounded up at the working precision."""
    return fraction_to_mpf(iv_upper(x), "u")


@lru_cache(maxsize=4096)
def exp_interval(eps: Fraction, prec: int = BASE_PREC) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= e^eps <= hi`` computed with outward rounding at ``prec`` bits."""
    if eps == 0:
        return Fraction(1), Fraction(1)
    with iv_precision(prec):
        e = mpmath.iv.exp(iv_from_fraction(eps))
        lo, hi = iv_lower(e), iv_upper(e)
    return lo, hi


def exp_compare(eps: Fraction, r: Fraction) -> int:
    """Sign of ``e^eps - r`` decided exactly (refining precision as needed).

    Equality is only possible when ``eps == 0`` (then e^eps = 1): for rational ``eps != 0`` the
    number e^eps is transcendental, so the refinement always terminates.
    """
    if eps == 0:
        return (1 > r) - (1 < r)
    prec = BASE_PREC
    while prec <= MAX_PREC:
        lo, hi = exp_interval(eps, prec)
        if lo > r:
            return 1
        if hi < r:
            return -1
        prec *= 2
    from dps_verify.core.errors import CertificationError

    raise CertificationError(f"cannot separate e^{eps} from {r} within {MAX_PREC} bits (precision limit)")


def exp_affine_enclosure(A: Fraction, B: Fraction, eps: Fraction) -> tuple[Fraction, Fraction]:
    """Enclosure ``lo <= A − e^eps·B <= hi`` for exact ``A`` and ``B ≥ 0``.

    The precision of e^eps is doubled until 60 significant bits of the result are certain (or
    the result is certainly ≤ 0, or 2^14 bits are reached).  Exact when ``B == 0`` or
    ``eps == 0``.  This is the one place the engine evaluates "mass minus e^ε times mass".
    """
    A, B = Fraction(A), Fraction(B)
    if B == 0 or eps == 0:
        return A - B, A - B
    prec = BASE_PREC
    while True:
        lo_e, hi_e = exp_interval(eps, prec)
        lo, hi = A - hi_e * B, A - lo_e * B
        if hi <= 0 or hi - lo <= abs(hi) * Fraction(1, 2**60) or prec >= 1 << 14:
            return lo, hi
        prec *= 2


def log_upper_mpf(x: Fraction) -> mpmath.mpf:
    """ln(x) for a rational x ≥ 1, as an ``mpf`` rounded up (0 exactly when x == 1)."""
    if x == 1:
        return mpmath.mpf(0)
    with iv_precision(BASE_PREC):
        return iv_upper_mpf(mpmath.iv.log(iv_from_fraction(x)))


@dataclass(frozen=True)
class Certified:
    """A real number known to lie in ``[lower, upper]`` (exact rationals).

    ``how`` says how the enclosure was obtained (exact rational arithmetic, interval arithmetic
    at a stated precision, a truncation bound, ...).  ``details`` holds extra facts such as the
    maximising group size.
    """

    lower: Fraction
    upper: Fraction
    how: str
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.lower > self.upper:
            raise ValueError("Certified: lower bound exceeds upper bound")

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def safe(self) -> mpmath.mpf:
        """The upper end rounded up: the value to use in a privacy claim."""
        return fraction_to_mpf(self.upper, "u")

    @property
    def value(self) -> mpmath.mpf:
        """The midpoint rounded to nearest (for display)."""
        return fraction_to_mpf((self.lower + self.upper) / 2, "n")

    def relative_width(self) -> float:
        if self.upper == 0:
            return 0.0
        return float((self.upper - self.lower) / self.upper)

    def digits(self) -> int:
        """Number of significant decimal digits the enclosure certifies."""
        w = self.relative_width()
        return 10**6 if w == 0 else max(0, int(-math.log10(w)))
