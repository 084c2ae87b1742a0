"""Exact parameters and certified numbers.

Every parameter enters the engine as an exact :class:`fractions.Fraction`.  A ``float`` is read
by its shortest decimal representation (``0.1`` means 1/10, the number a person typed), an
``mpmath.mpf`` by its exact binary value, a ``str`` as a decimal or ``p/q`` literal.

Quantities involving e^ε (which is irrational for every rational ε ≠ 0, by Lindemann's theorem)
are handled as ``mpmath.iv`` intervals; :class:`Certified` carries the enclosure together with a
sentence saying how it was obtained.  The exception is an exact-log ε (:class:`ExactLog`,
written ``"ln(11)"``): then e^ε is rational and every comparison with it is exact.  Public functions that return a single ``mpf`` return the
end of the enclosure that is safe for a privacy claim (δ and ε rounded up).
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import mpmath
from mpmath import libmp

from dps_verify.core.errors import ParameterError

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


def mpf_value_fraction(v: Any) -> Fraction:
    """The exact value of a finite mpmath raw value ``v`` (an ``_mpf_`` tuple) as a Fraction of
    Python ints, sign included (mpmath's gmpy backend gives ``mpz`` terms, which python-flint and
    json refuse; ``mpf.man_exp``'s mantissa drops the sign)."""
    p, q = libmp.to_rational(v)
    return Fraction(int(p), int(q))


def to_fraction(x: Number, name: str = "value") -> Fraction:
    """Read ``x`` exactly.  Raises :class:`~dps_verify.core.errors.ParameterError` (a ``ValueError``) for NaN,
    infinities and non-numbers."""
    if isinstance(x, bool):
        raise ParameterError(f"{name} must be a number, not a boolean")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):  # includes numpy.float64
        if not math.isfinite(x):
            raise ParameterError(f"{name} must be finite, got {x!r}")
        return Fraction(float.__repr__(float(x)))
    if isinstance(x, numbers.Integral):  # int and numpy integers
        return Fraction(int(x))
    if isinstance(x, numbers.Real) and type(x).__module__ == "numpy":  # numpy float32 etc.
        return to_fraction(float(x), name)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ParameterError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(f"{name} must be finite, got {x!r}")
        return mpf_value_fraction(x._mpf_)
    if isinstance(x, str):
        if x.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ParameterError(f"{name} must be finite, got {x!r}")
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise ParameterError(f"{name} must be a number, got {x!r}") from None
    raise ParameterError(f"{name} must be a number, got {type(x).__name__}")


class ExactLog:
    """An exact-log ε: the real number ``a + ln(r)`` for rationals ``a`` and ``r > 0``, r ≠ 1.

    Written by a person as ``"ln(11)"`` (CP §2.4 Table 1 starts from ε = ln 11).  Then
    e^ε = e^a·r, which is the *rational* ``r`` when ``a == 0``, so every comparison with e^ε
    (:func:`exp_compare`, :func:`exp_interval`, :func:`exp_dyadic`,
    :func:`exp_affine_enclosure`) is exact.  The rational part ``a`` appears only through
    arithmetic such as ε − ε₁ (CP Thm 6); ε₁ = ``"ln(2)"`` keeps the difference a pure log.

    Supported: comparisons and ``==`` with ints, Fractions and ExactLogs (decided exactly:
    a + ln r is never rational, by Lindemann's theorem, so the representation is unique and
    never equals a rational); ``+``/``-`` with those; unary minus; ``float``; ``hash``; ``str``
    (``"ln(11)"``).  Everything else, in particular ``.numerator``, raises ``AttributeError`` or
    ``TypeError``: an exact-log ε is never silently replaced by a rational approximation.
    Interval code encloses it through :func:`iv_from_fraction`.
    """

    __slots__ = ("r", "a")
    r: Fraction
    a: Fraction

    def __init__(self, r: Fraction, a: Fraction = Fraction(0)) -> None:
        r, a = Fraction(r), Fraction(a)
        if r <= 0 or r == 1:
            raise ParameterError("ExactLog needs r > 0 and r != 1 (use exact_log to normalise)")
        object.__setattr__(self, "r", r)
        object.__setattr__(self, "a", a)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ExactLog is immutable")

    # -- exact facts -----------------------------------------------------------------------
    @property
    def exp_exact(self) -> Fraction | None:
        """e^ε as an exact rational when it is one (``a == 0``), else None."""
        return self.r if self.a == 0 else None

    def _sign_minus(self, other: object) -> int | None:
        """Sign of self − other, exactly; None for an unsupported ``other``."""
        if isinstance(other, ExactLog):
            d = exact_log(self.r / other.r, self.a - other.a)
        elif isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            d = exact_log(self.r, self.a - other)
        else:
            return None
        if isinstance(d, Fraction):
            return (d > 0) - (d < 0)
        # sign(a + ln r) = sign(r − e^(−a))
        return -exp_compare(-d.a, d.r)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ExactLog):
            return self.r == other.r and self.a == other.a
        if isinstance(other, (int, Fraction, float)):
            return False  # a + ln r (r ≠ 1) is irrational
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(("ExactLog", self.r, self.a))

    def _cmp(self, other: object) -> int:
        s = self._sign_minus(other)
        if s is None:
            raise TypeError(f"cannot compare an exact-log epsilon with {type(other).__name__}")
        return s

    def __lt__(self, other: object) -> bool:
        return self._cmp(other) < 0

    def __le__(self, other: object) -> bool:
        return self._cmp(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._cmp(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._cmp(other) >= 0

    def __bool__(self) -> bool:
        return True  # never 0

    # -- arithmetic closed over "rational + ln(rational)" ------------------------------------
    def __add__(self, other: object) -> Fraction | ExactLog:
        if isinstance(other, ExactLog):
            return exact_log(self.r * other.r, self.a + other.a)
        if isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            return exact_log(self.r, self.a + other)
        return NotImplemented

    __radd__ = __add__

    def __neg__(self) -> ExactLog:
        return ExactLog(1 / self.r, -self.a)

    def __pos__(self) -> ExactLog:
        return self

    def __abs__(self) -> ExactLog:
        return -self if self < 0 else self

    def __sub__(self, other: object) -> Fraction | ExactLog:
        if isinstance(other, (ExactLog, int, Fraction)) and not isinstance(other, bool):
            return self + (-other)
        return NotImplemented

    def __rsub__(self, other: object) -> Fraction | ExactLog:
        if isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            return (-self) + other
        return NotImplemented

    def __float__(self) -> float:
        r = self.r
        return float(self.a) + math.log(r.numerator) - math.log(r.denominator)

    def __str__(self) -> str:
        log = f"ln({self.r})"
        if self.a == 0:
            return log
        return f"{log} + {self.a}" if self.a > 0 else f"{log} - {-self.a}"

    def __repr__(self) -> str:
        return f"ExactLog({str(self)!r})"

    def __reduce__(self) -> tuple:
        return (ExactLog, (self.r, self.a))

    def interval(self) -> Any:
        """An ``mpmath.iv`` enclosure of a + ln r at the current ``iv.prec``."""
        v = mpmath.iv.log(iv_from_fraction(self.r))
        return v + iv_from_fraction(self.a) if self.a else v


def exact_log(r: Fraction | int, a: Fraction | int = 0) -> Fraction | ExactLog:
    """The number a + ln(r) (r > 0 rational): a plain Fraction when r == 1, else an
    :class:`ExactLog`."""
    r, a = Fraction(r), Fraction(a)
    if r == 1:
        return a
    return ExactLog(r, a)


def fraction_to_mpf(x: Fraction, rounding: str = "n", prec: int | None = None) -> mpmath.mpf:
    """``x`` as an ``mpf`` of ``prec`` bits, rounded in mpmath's direction ``rounding``: 'c'
    ceiling, 'f' floor, 'u' away from 0, 'd' towards 0 (up and down for x ≥ 0), 'n' nearest.

    An :class:`ExactLog` a + ln r is rounded exactly so too: its enclosure is refined (twice the
    working precision each time) until both ends round to the same ``mpf``, which is then the
    value's own rounding, since rounding is monotone.  This ends: r ≠ 1 makes a + ln r irrational
    (Hermite–Lindemann), so it is never a rounding boundary (a dyadic or a midpoint of two)."""
    prec = prec or mpmath.mp.prec
    if isinstance(x, ExactLog):
        work = 2 * prec
        while True:
            with iv_precision(work):
                v = x.interval()
                lo, hi = iv_lower(v), iv_upper(v)
            down, up = fraction_to_mpf(lo, rounding, prec), fraction_to_mpf(hi, rounding, prec)
            if down == up:
                return down
            work *= 2
    return mpmath.mp.make_mpf(libmp.from_rational(x.numerator, x.denominator, prec, rounding))


def iv_from_fraction(x: Fraction) -> Any:
    """An ``mpmath.iv`` interval enclosing ``x`` at the current ``iv.prec`` (an
    :class:`ExactLog` by interval logarithms)."""
    if isinstance(x, ExactLog):
        return x.interval()
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


def _finite_end(v: Any, which: str) -> Fraction:
    if v in (libmp.finf, libmp.fninf, libmp.fnan):
        from dps_verify.core.errors import CertificationError

        raise CertificationError(
            f"interval arithmetic produced an unbounded or undefined {which} end ({libmp.to_str(v, 5)}); "
            "no finite certified value"
        )
    return mpf_value_fraction(v)


def iv_lower(x: Any) -> Fraction:
    """Exact lower end of an ``mpmath.iv`` interval (no rounding through the mp context).

    Raises :class:`~dps_verify.core.errors.CertificationError` for an infinite or NaN end: an
    unbounded enclosure is never read as a finite number.
    """
    return _finite_end(x._mpi_[0], "lower")


def iv_upper(x: Any) -> Fraction:
    """Exact upper end of an ``mpmath.iv`` interval (no rounding through the mp context).

    Raises :class:`~dps_verify.core.errors.CertificationError` for an infinite or NaN end.
    """
    return _finite_end(x._mpi_[1], "upper")


def iv_relative_width(x: Any) -> Fraction | None:
    """(hi − lo)/min(|lo|, |hi|) of a finite interval not containing 0; None otherwise."""
    lo, hi = x._mpi_
    if any(v in (libmp.finf, libmp.fninf, libmp.fnan) for v in (lo, hi)):
        return None
    a, b = _finite_end(lo, "lower"), _finite_end(hi, "upper")
    if a <= 0 <= b:
        return None if a != b else Fraction(0)
    return (b - a) / min(abs(a), abs(b))


def iv_adaptive(fn: Any, *, rel_bits: int = 64, start: int = BASE_PREC, max_prec: int = 1 << 14) -> Any:
    """Evaluate ``fn()`` (which builds an ``mpmath.iv`` interval) at doubling ``iv.prec`` until
    its relative width is ≤ 2^-rel_bits.  Cancellation (1 − e^−ε for tiny ε, ln(1 + x) for tiny
    x) costs bits; this is how every closed form keeps its relative accuracy.

    Raises :class:`~dps_verify.core.errors.CertificationError` naming ``max_prec`` if never met.
    """
    prec = start
    while True:
        with iv_precision(prec):
            v = fn()
        if v._mpi_[0] == v._mpi_[1]:  # a point is exact (also at 0, or an infinite one)
            return v
        w = iv_relative_width(v)
        if w is not None and w <= Fraction(1, 2**rel_bits):
            return v
        if prec >= max_prec:
            from dps_verify.core.errors import CertificationError

            raise CertificationError(
                f"interval arithmetic did not reach {rel_bits} correct bits within {max_prec} bits of "
                "working precision (limit MAX_PREC)"
            )
        prec *= 2


def iv_upper_mpf(x: Any) -> mpmath.mpf:
    """Upper end of an interval as an ``mpf`` rounded up at the working precision."""
    return fraction_to_mpf(iv_upper(x), "u")


def iv_exp(x: Any) -> Any:
    """An ``mpmath.iv`` interval certainly enclosing e^t for every t in ``x`` (an ``iv``
    interval, or anything ``mpmath.iv`` converts, such as an ``mpf``), at the current ``iv.prec``.

    Use this instead of ``mpmath.iv.exp``, which does not always round its ends outward: at 53
    bits it returns the point 1 + 2^-22 for e^(2^-22), a "enclosure" that misses the true value
    (e^t is irrational for rational t != 0), so a bound built on it can be off by an ulp in the
    unsafe direction.  Here each end goes through python-flint's Arb (rigorous ball arithmetic)
    at ``iv.prec + 10`` bits; since exp is increasing the result is [lower end of Arb's
    e^lo rounded down, upper end of Arb's e^hi rounded up] at ``iv.prec`` bits.  An end Arb cannot
    bound (e^t overflowing its exponent range) becomes 0 below or +inf above; a NaN end gives
    the NaN interval, which :func:`iv_lower` / :func:`iv_upper` refuse."""
    import flint

    prec = mpmath.iv.prec
    lo_raw, hi_raw = mpmath.iv.convert(x)._mpi_
    if libmp.fnan in (lo_raw, hi_raw):
        return mpmath.iv.make_mpf((libmp.fnan, libmp.fnan))

    def end(v: Any, upper: bool) -> Any:
        if v == libmp.fninf:
            return libmp.fzero
        if v == libmp.finf:
            return libmp.finf
        sign, man, exp, _ = v
        old = flint.ctx.prec
        flint.ctx.prec = prec + 10
        try:
            ball = flint.arb((-int(man) if sign else int(man), int(exp))).exp()
            bound = ball.upper() if upper else ball.lower()
            if not bound.is_finite():
                return libmp.finf if upper else libmp.fzero
            m, e = bound.man_exp()
        finally:
            flint.ctx.prec = old
        if m <= 0:  # e^t > 0: Arb's lower end may be 0 (or below) for t << 0; its upper end
            return libmp.fzero  # is >= e^t > 0, so never takes this branch
        return libmp.from_man_exp(int(m), int(e), prec, "c" if upper else "f")

    return mpmath.iv.make_mpf((end(lo_raw, False), end(hi_raw, True)))


#: Largest |ε| whose e^ε :func:`exp_interval` encloses by rationals: e^ε has about 1.44·|ε|
#: bits, so beyond this the two ends would take megabytes (and e^1e30 cannot be built at all).
EXP_INTERVAL_MAX_EPS = 1 << 20


@lru_cache(maxsize=4096)
def exp_interval(eps: Fraction, prec: int = BASE_PREC) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= e^eps <= hi`` computed with outward rounding at ``prec`` bits.

    Refuses |ε| > :data:`EXP_INTERVAL_MAX_EPS` with a
    :class:`~dps_verify.core.errors.CertificationError` (exit 5) instead of building an
    integer of ~1.44·|ε| bits."""
    if abs(eps) > EXP_INTERVAL_MAX_EPS:
        from dps_verify.core.errors import CertificationError

        raise CertificationError(
            f"epsilon = {format_up(abs(eps), 6)} is too large to enclose e^epsilon by exact rationals "
            f"(about {format_up(abs(eps) * Fraction(14427, 10000), 3)} bits; the limit is "
            f"|epsilon| <= {EXP_INTERVAL_MAX_EPS})"
        )
    if isinstance(eps, ExactLog):  # e^(a + ln r) = e^a·r: exact when a == 0
        lo, hi = exp_interval(eps.a, prec)
        return lo * eps.r, hi * eps.r
    # Arb (python-flint) encloses exp rigorously; mpmath's iv.exp does not always round its
    # ends outward (at 128 bits it returns the point 1 + 2^-100 for e^(2^-100)).
    import flint

    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        e = flint.arb(flint.fmpq(int(eps.numerator), int(eps.denominator))).exp()
        (lo_m, lo_e), (hi_m, hi_e) = e.lower().man_exp(), e.upper().man_exp()
    finally:
        flint.ctx.prec = old
    return _dyadic(int(lo_m), int(lo_e)), _dyadic(int(hi_m), int(hi_e))


def _dyadic(man: int, exp: int) -> Fraction:
    """man·2^exp exactly (either sign of exp)."""
    return man * Fraction(2) ** exp


def exp_compare(eps: Fraction, r: Fraction) -> int:
    """Sign of ``e^eps - r`` decided exactly (refining precision as needed).

    Equality is only possible when ``eps == 0`` (then e^eps = 1): for rational ``eps != 0`` the
    number e^eps is transcendental, so the refinement always terminates.
    """
    if eps == 0:
        return (1 > r) - (1 < r)
    if r <= 0:
        return 1
    if isinstance(eps, ExactLog):  # e^a·s vs r  ⇔  e^a vs r/s (exact when a == 0)
        return exp_compare(eps.a, r / eps.r)
    # e^ε > 2^ε ≥ 2^⌊ε⌋ and r < 2^(bits(num) − bits(den) + 1): decides huge ε without exp().
    if eps >= 1 and r.numerator.bit_length() - r.denominator.bit_length() + 1 <= math.floor(eps):
        return 1
    if eps >= (1 << 20):
        from dps_verify.core.errors import CertificationError

        raise CertificationError(f"cannot compare e^epsilon with {format_up(r, 3)}: epsilon = "
                                 f"{format_up(eps, 3)} too large")
    prec = BASE_PREC
    while prec <= MAX_PREC:
        lo, hi = exp_interval(eps, prec)
        # e^eps is irrational here (rational eps != 0), so an end equal to r decides too
        if lo >= r:
            return 1
        if hi <= r:
            return -1
        prec *= 2
    from dps_verify.core.errors import CertificationError

    raise CertificationError(f"cannot separate e^{format_up(eps, 20)} from {format_up(r, 20)} within "
                             f"{MAX_PREC} bits (precision limit)")


def exp_affine_enclosure(A: Fraction, B: Fraction, eps: Fraction) -> tuple[Fraction, Fraction]:
    """Enclosure ``lo <= A − e^eps·B <= hi`` for exact ``A`` and ``B ≥ 0``.

    The precision of e^eps is doubled until 60 significant bits of the result are certain (or
    the result is certainly ≤ 0, or 2^14 bits are reached).  Exact when ``B == 0`` or
    ``eps == 0``.  This is the one place the engine evaluates "mass minus e^ε times mass".
    """
    A, B = Fraction(A), Fraction(B)
    if B == 0:  # exact without e^eps (which a huge eps could not enclose)
        return A, A
    prec = BASE_PREC  # exact at once when eps == 0 (Arb encloses e^0 as [1, 1])
    while True:
        lo_e, hi_e = exp_interval(eps, prec)
        lo, hi = A - hi_e * B, A - lo_e * B
        if hi <= 0 or hi - lo <= abs(hi) * Fraction(1, 2**60) or prec >= 1 << 14:
            return lo, hi
        prec *= 2


#: Above this ε, e^ε is represented only by the lower bound 2^EXP_HUGE_BITS (see exp_dyadic).
EXP_HUGE = Fraction(4096)
EXP_HUGE_BITS = 5900  # e^4096 > 2^5909


def exp_dyadic(eps: Fraction, prec: int = BASE_PREC) -> tuple[int, int | None, int]:
    """Integers (lo, hi, s) with lo/2^s ≤ e^ε ≤ hi/2^s (``hi`` is None, meaning +∞, when
    ε ≥ EXP_HUGE: then lo = 2^EXP_HUGE_BITS ≤ e^ε).  Integer form so big-integer callers
    never build a Fraction (no gcd)."""
    if eps >= EXP_HUGE:
        return 1 << EXP_HUGE_BITS, None, 0
    lo, hi = exp_interval(eps, prec)
    if _is_pow2(lo.denominator) and _is_pow2(hi.denominator):  # dyadic ends: exact
        s = max(lo.denominator.bit_length(), hi.denominator.bit_length()) - 1  # ≥ 0
        lo_n = lo.numerator * ((1 << s) // lo.denominator)
        hi_n = hi.numerator * ((1 << s) // hi.denominator)
        return lo_n, hi_n, s
    # e^ε = e^a·r with r = p/q, q not a power of 2 (exact-log ε): round outward to prec + 2
    # bits after the point (e^ε ≥ e^0 = 1 for ε ≥ 0, so that is a relative 2^−prec).
    s = prec + 2
    lo_n = (lo.numerator << s) // lo.denominator
    hi_n = -((-(hi.numerator << s)) // hi.denominator)
    return lo_n, hi_n, s


def _is_pow2(n: int) -> bool:
    """Whether a denominator n ≥ 1 is a power of 2."""
    return n & (n - 1) == 0


def fraction_from_ints(num: int, den: int) -> Fraction:
    """``Fraction(num, den)`` with the gcd done by GMP (gmpy2) when the integers are large."""
    if den.bit_length() < 2000:
        return Fraction(int(num), int(den))
    import gmpy2  # a required dependency (pyproject.toml)

    g = gmpy2.gcd(num, den)
    n, d = int(gmpy2.mpz(num) // g), int(gmpy2.mpz(den) // g)
    if d < 0:
        n, d = -n, -d
    return _coprime_fraction(n, d)


def _coprime_fraction(n: int, d: int) -> Fraction:
    """``Fraction(n, d)`` for coprime ``n`` and ``d > 0``, without Fraction's own gcd (which
    is quadratic in the length of the integers).  CPython >= 3.12 has the classmethod
    _from_coprime_ints; 3.11 has the _normalize keyword instead."""
    make = getattr(Fraction, "_from_coprime_ints", None)
    if make is not None:  # pragma: no cover - Python >= 3.12
        return make(n, d)
    return Fraction(n, d, _normalize=False)  # type: ignore[call-overload]


def dyadic_fraction(m: int, e: int) -> Fraction:
    """The exact value m·2^e (integers m, e of any size and sign: ints, or anything
    :func:`operator.index` takes such as python-flint's fmpz) as a reduced Fraction: the odd
    part of m over a power of two, built without a gcd.  A non-integer raises TypeError."""
    m, e = operator.index(m), operator.index(e)
    if m == 0:
        return Fraction(0)
    tz = (m & -m).bit_length() - 1  # trailing zero bits of |m|
    m, e = m >> tz, e + tz
    if e >= 0:
        return Fraction(m << e)
    return _coprime_fraction(m, 1 << -e)


def round_outward(num_lo: int, num_hi: int, den: int, bits: int = 256) -> tuple[Fraction, Fraction]:
    """[num_lo/den, num_hi/den] widened to dyadic ends of ``bits`` significant bits: the lower
    end rounded toward −∞, the upper end toward +∞ (mpmath's correctly rounded division,
    ``libmp.from_rational`` with 'f' and 'c').  Exact (no widening) when ``den`` has at most
    4·``bits`` bits."""
    if den.bit_length() <= 4 * bits:
        return fraction_from_ints(num_lo, den), fraction_from_ints(num_hi, den)

    return (mpf_value_fraction(libmp.from_rational(num_lo, den, bits, "f")),
            mpf_value_fraction(libmp.from_rational(num_hi, den, bits, "c")))


def format_up(x: Fraction, digits: int = 4) -> str:
    """``x`` in scientific notation with ``digits`` significant digits, rounded UP (toward +∞),
    at any magnitude (3.468e-613 stays positive; no float underflow)."""
    if isinstance(x, ExactLog):
        return str(x)
    x = Fraction(x)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + format_down(-x, digits)
    e, n, d = _decimal_mantissa(x, digits)
    mi = -((-n) // d)  # ceil
    if mi >= 10**digits:
        mi, e = -((-mi) // 10), e + 1
    s = str(mi)
    return f"{s[0]}.{s[1:]}e{e:+03d}" if digits > 1 else f"{s}e{e:+03d}"


def format_down(x: Fraction, digits: int = 4) -> str:
    """Like :func:`format_up` but rounded toward zero (for β, which rounds down)."""
    if isinstance(x, ExactLog):
        return str(x)
    x = Fraction(x)
    if x <= 0:
        return "0" if x == 0 else "-" + format_up(-x, digits)
    e, n, d = _decimal_mantissa(x, digits)
    s = str(n // d)
    return f"{s[0]}.{s[1:]}e{e:+03d}" if digits > 1 else f"{s}e{e:+03d}"


def _big_ints(x: Fraction) -> tuple[Any, Any]:
    """Numerator and denominator of x as GMP integers (gmpy2, a required dependency): the
    values of huge-k scans have denominators of millions of bits."""
    import gmpy2

    return gmpy2.mpz(x.numerator), gmpy2.mpz(x.denominator)


def _decimal_mantissa(x: Fraction, digits: int) -> tuple[int, Any, Any]:
    """(e, n, d) with e = ⌊log10 x⌋ and n/d = x·10^(digits−1−e) exactly, for x > 0.

    One power of ten (GMP when available) and at most two corrections of the bit-length
    estimate of e: fast for the 10^−1148628-sized values of huge-k scans."""
    n, d = _big_ints(x)
    e = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    ten = n * 0 + 10  # an integer of n's type (a GMP mpz)
    power = ten ** abs(e)
    if e >= 0:
        d = d * power
    else:
        n = n * power
    while n < d:  # x/10^e < 1
        n, e = n * 10, e - 1
    while n >= d * 10:  # x/10^e ≥ 10
        d, e = d * 10, e + 1
    return e, n * ten ** (digits - 1), d


def _decimal_exponent(x: Fraction) -> int:
    """⌊log10 x⌋ for x > 0, exactly."""
    return _decimal_mantissa(x, 1)[0]


def log_fraction(x: Fraction) -> float:
    """ln x for a rational 0 < x < 2^1024 (terms of any size, x down to any tiny value), in
    floats (screens only; never a verdict): mpmath's logarithm of x rounded to the working
    precision (an ``mpf`` has no exponent range to leave, unlike a double)."""
    return float(mpmath.log(fraction_to_mpf(x)))


def log_upper_mpf(x: Fraction) -> mpmath.mpf:
    """ln(x) for a rational x ≥ 1, as an ``mpf`` rounded up (0 exactly when x == 1: the interval
    logarithm of the point 1 is the point 0)."""
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

    def __str__(self) -> str:
        ends = format_up(self.upper, 16) if self.exact else f"[{format_down(self.lower, 16)}, {format_up(self.upper, 16)}]"
        return f"{ends} ({self.how})"

    def __repr__(self) -> str:  # printable at any magnitude (no 4300-digit int conversion)
        return (
            f"Certified(lower={format_down(self.lower, 17)}, upper={format_up(self.upper, 17)}, "
            f"how={self.how!r}, details={self.details!r})"
        )


#: Relative width above which a single-value API refuses to return an enclosure end.
SINGLE_VALUE_REL_WIDTH = Fraction(1, 10**15)


def single_value(c: Certified, what: str = "value") -> mpmath.mpf:
    """The safe end of ``c`` as the one value of a single-value API, provided the enclosure is
    tight (relative width ≤ 1e-15 of a positive upper end); otherwise a
    :class:`CertificationError` quoting ``c.how``.  An enclosure whose upper end is ≤ 0 is
    returned as that end: the single-value quantities (δ, d) are non-negative, so an upper end
    of 0 pins the value at exactly 0 however far below 0 the lower end lies."""
    if c.upper > 0 and (c.upper - c.lower) > SINGLE_VALUE_REL_WIDTH * c.upper:
        from dps_verify.core.errors import CertificationError

        raise CertificationError(
            f"{what}: enclosure [{format_down(c.lower)}, {format_up(c.upper)}] is wider than the "
            f"single-value limit (relative width 1e-15); {c.how}"
        )
    return c.safe
