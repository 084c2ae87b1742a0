"""One certified inverse of a monotone predicate (min k, min ε, max β, ...).

Every inverse question of the library ("smallest k with δ ≤ target", "smallest ε", "largest β")
is answered by :func:`least_integer` or :func:`boundary_rational`.  The predicate is evaluated
only through certified arithmetic by the caller (``pred(x)`` is True only when ``δ(x) ≤ target``
is proven), so the answer always satisfies the question.  Extremality is certified locally: the
returned integer x has ``pred(x)`` and ``not pred(x − 1)``; the returned rational x has
``pred(x)`` and ``not pred(x ∓ tol)`` (or lies at the end of the search range).  Global
extremality follows when the predicate is monotone, which each caller states and justifies.

Floats never decide anything here; a caller may pass a float *guess* to start near the answer
(the 12-cell min-k grid needs ~3 certified evaluations per cell instead of ~15).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dps_verify.core.errors import CertificationError, ParameterError


def least_integer(
    pred: Callable[[int], bool],
    *,
    lo: int = 1,
    guess: int | None = None,
    limit: int = 1 << 40,
    what: str = "k",
    check_monotone: bool = True,
) -> int:
    """Least integer x ≥ ``lo`` with ``pred(x)``, for ``pred`` non-decreasing in x
    (False … False True … True).

    Starts at ``guess`` (clamped to ``[lo, limit]``), gallops in steps 1, 2, 4, … toward the
    boundary, then bisects.  The answer x is certified: ``pred(x)`` holds and, unless x == lo,
    ``pred(x − 1)`` fails (both evaluated).  Raises :class:`CertificationError` if no x ≤ ``limit``
    satisfies ``pred``.  ``check_monotone=False`` is for a heuristic search that relies only on
    ``pred(x)`` at the returned x (then x − 1 is not re-checked, and x is the least only when
    ``pred`` is monotone).
    """
    if lo > limit:
        raise CertificationError(f"no {what} to search: lower end {lo} > limit {limit}")
    x = min(max(guess if guess is not None else lo, lo), limit)
    cache: dict[int, bool] = {}

    def p(v: int) -> bool:
        if v not in cache:
            cache[v] = bool(pred(v))
        return cache[v]

    good: int | None
    if p(x):
        good, step = x, 1
        while True:
            if good == lo:
                return lo
            cand = max(good - step, lo)
            if p(cand):
                good, step = cand, step * 2
            else:
                bad = cand
                break
    else:
        bad, step = x, 1
        good = None
        while good is None:
            cand = bad + step
            if cand > limit:
                if p(limit):
                    good = limit
                    break
                raise CertificationError(f"no {what} ≤ {limit} satisfies the condition (search limit)")
            if p(cand):
                good = cand
            else:
                bad, step = cand, step * 2
        assert good is not None  # the loop above only exits with good set (or raises)
    while good - bad > 1:
        mid = (good + bad) // 2
        if p(mid):
            good = mid
        else:
            bad = mid
    if check_monotone and good > lo and p(good - 1):  # pragma: no cover - only if pred is not monotone
        raise CertificationError(f"{what}: predicate not monotone near {good}; boundary not certified")
    return good


def boundary_rational(
    pred: Callable[[Fraction], bool],
    lo: Fraction,
    hi: Fraction,
    tol: Fraction,
    *,
    want: str,
    grid_bits: int = 64,
    what: str = "value",
    guess: Fraction | None = None,
) -> Fraction:
    """Bisection for the boundary of a monotone predicate on [lo, hi] over dyadic rationals.

    ``want="least"``: pred is False below the boundary and True above; returns x with
    ``pred(x)`` and (x − lo ≤ tol or ``pred(x − tol')`` False for some certified point within tol).
    ``want="greatest"``: pred True below, False above; returns x with ``pred(x)`` and a certified
    failing point within ``tol`` above (or x = hi).  The caller must have established the
    outer ends: for "least", ``pred(hi)``; for "greatest", ``pred(lo)``.  Midpoints are rounded
    to multiples of 2^−grid_bits so the exact arithmetic behind ``pred`` stays cheap.

    ``guess`` (from a float screen; it never decides): the bracket is first narrowed around it,
    pred evaluated at guess ± tol, then ± 4·tol, 16·tol, … on the side that did not yet give
    the expected answer, so a good guess costs about 3 evaluations instead of log2((hi−lo)/tol).
    The certified properties of the result are the same with or without a guess.
    """
    if want not in ("least", "greatest"):
        raise ParameterError("want must be 'least' or 'greatest'")
    if tol <= 0:
        raise ParameterError("tol must be positive")
    # the grid must be finer than tol, or the bisection would stop short of the promise
    grid_bits = max(grid_bits, (tol.denominator // tol.numerator).bit_length() + 2)
    scale = 1 << grid_bits
    good, bad = (hi, lo) if want == "least" else (lo, hi)

    def on_grid(x: Fraction) -> Fraction:
        return Fraction(round(x * scale), scale) if x.denominator > scale else x

    if guess is not None and lo < guess < hi:
        sign = 1 if want == "least" else -1  # direction from bad toward good
        g0 = on_grid(Fraction(guess))
        for side in (1, -1):  # side 1: look for a good point beyond the guess; −1: a bad one
            w = tol
            while True:
                x = on_grid(g0 + side * sign * w)
                inside = (bad < x < good) if sign == 1 else (good < x < bad)
                if not inside:
                    break
                if pred(x):
                    good = x
                    if side == 1:
                        break
                else:
                    bad = x
                    if side == -1:
                        break
                w *= 4
    while abs(good - bad) > tol:
        mid = (good + bad) / 2
        if mid.denominator > scale:
            mid = Fraction(round(mid * scale), scale)
        if mid in (good, bad):
            break
        if pred(mid):
            good = mid
        else:
            bad = mid
    return good
