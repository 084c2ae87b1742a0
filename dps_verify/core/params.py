"""Validation of the paper's parameters, with messages that name the violated condition.

The conditions come from CP Definition 3 (β > δ, sampling probability β), CP Theorem 5
(0 < β < 1, ε ≥ −ln(1−β)), CP Theorem 6 (ε ≥ −ln(1−β) + ε₁) and the k-anonymity threshold
k ≥ 1 of CP §3.2.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any, cast

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import ExactLog, Number, exact_log, exp_compare, to_fraction  # noqa: F401


def beta_param(beta: Number, *, allow_one: bool = False, ref: str = "CP Thm 5") -> Fraction:
    """β as an exact fraction; requires 0 < β < 1 (or ≤ 1 with ``allow_one``)."""
    b = to_fraction(beta, "beta")
    if allow_one:
        if not 0 < b <= 1:
            raise ParameterError(f"beta must satisfy 0 < beta <= 1 (sampling probability), got {shown(beta, str)}")
    elif not 0 < b < 1:
        raise ParameterError(f"beta must satisfy 0 < beta < 1 ({ref}), got {shown(beta, str)}")
    return b


_LN = re.compile(r"^\s*ln\s*\(\s*([^()]*?)\s*\)\s*$", re.IGNORECASE)


def epsilon_param(epsilon: Number | ExactLog, name: str = "epsilon") -> Fraction:
    """ε ≥ 0 read exactly.  Besides every :data:`Number`, the string ``"ln(x)"`` (x a positive
    decimal or ``p/q`` literal, x ≥ 1) gives the exact-log ε = ln x, an :class:`ExactLog`
    whose e^ε = x is rational, so every comparison with e^ε downstream is exact (CP §2.4
    Table 1 uses ε = ln 11).  ``"ln(1)"`` is the rational 0.

    The return type says ``Fraction`` for the type checker; an :class:`ExactLog` implements the
    operations the engine applies to ε (exact comparisons, ±, float, the e^ε functions of
    :mod:`~dps_verify.core.numbers`) and raises on any other, so it is never silently rounded.
    """
    if isinstance(epsilon, ExactLog):
        e: Fraction | ExactLog = epsilon
    elif isinstance(epsilon, str) and _LN.match(epsilon):
        e = _parse_ln(epsilon, name)
    else:
        e = to_fraction(epsilon, name)  # type: ignore[arg-type]
    if e < 0:
        raise ParameterError(f"{name} must be >= 0, got {shown(epsilon, str)}")
    return cast(Fraction, e)


def _parse_ln(text: str, name: str) -> Fraction | ExactLog:
    m = _LN.match(text)
    assert m is not None
    try:
        x = to_fraction(m.group(1), name)
    except ValueError:
        raise ParameterError(
            f"{name} = {text.strip()!r}: the argument of ln must be a decimal or p/q literal"
        ) from None
    if x <= 0:
        raise ParameterError(f"{name} = {text.strip()}: ln(x) needs x > 0")
    if x < 1:
        raise ParameterError(f"{name} must be >= 0, got {text.strip()} < 0 (ln(x) < 0 for x < 1)")
    return exact_log(x)


def delta_param(delta: Number) -> Fraction:
    d = to_fraction(delta, "delta")
    if not 0 <= d <= 1:
        raise ParameterError(f"delta must satisfy 0 <= delta <= 1, got {shown(delta, str)}")
    return d


def rtol_param(rtol: Number, name: str = "rtol") -> float:
    """A relative tolerance (the width asked of an enclosure, upper <= (1 + rtol)*lower) as a
    float; requires a finite rtol >= 0.  0 asks for the tightest enclosure the work budget
    allows; a negative or NaN tolerance has no meaning and is refused rather than left to take
    whichever path its comparisons happen to choose."""
    r = to_fraction(rtol, name)  # refuses NaN, infinities, booleans and non-numbers
    if r < 0:
        raise ParameterError(f"{name} must be >= 0 (a relative width), got {shown(rtol, str)}")
    try:
        return float(r)
    except OverflowError:
        raise ParameterError(f"{name} must be finite as a double, got {shown(rtol, str)}") from None


def integer_or_none(x: Any) -> int | None:
    """``x`` as a Python int when it is an integer (an int, a numpy integer: anything
    :func:`operator.index` takes); None for a truth value (bool, numpy bool: not a count) and
    for anything else (floats, strings, ...).  The shared reading of counts such as a number
    of releases, a group size or a number of digits."""
    if isinstance(x, bool) or getattr(getattr(x, "dtype", None), "kind", None) == "b":
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def count_param(x: Any, lo: int, what: str, hi: int | None = None) -> int:
    """A count (a number of releases, records, digits, ...): ``x`` as a Python int in
    [lo, hi] (no upper end when ``hi`` is None), read by :func:`integer_or_none`; otherwise a
    ParameterError "<what>, got <x>" (:func:`shown`)."""
    i = integer_or_none(x)
    if i is None or i < lo or (hi is not None and i > hi):
        raise ParameterError(f"{what}, got {shown(x)}")
    return i


def shown(x: Any, fmt: Callable[[Any], str] = repr) -> str:
    """``x`` as an error message shows a refused value: "an integer of N bits" ("a negative
    integer of N bits") for an integer past 64 bits (Python refuses to print one of more than
    4300 digits, which would turn the message itself into a ValueError), otherwise ``fmt(x)``
    (its repr by default), cut to 79 characters and "…" when longer than 80."""
    i = integer_or_none(x)
    if i is not None and i.bit_length() > 64:
        return f"{'a negative' if i < 0 else 'an'} integer of {i.bit_length()} bits"
    try:
        text = fmt(x)
    except ValueError:  # e.g. a Fraction of huge integers
        return f"a {type(x).__name__} too large to print"
    return text if len(text) <= 80 else text[:79] + "…"  # a cut value says it is cut


def k_param(k: Number) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        kf = to_fraction(k, "k")
        if kf.denominator != 1:
            raise ParameterError(f"k must be an integer >= 1, got {shown(k, str)}")
        k = int(kf)
    if k < 1:
        raise ParameterError(f"k must be an integer >= 1 (CP §3.2 suppression threshold), got {shown(k, str)}")
    return int(k)


def in_paper_regime(beta: Fraction, eps: Fraction) -> bool:
    """Whether ε ≥ −ln(1−β), i.e. e^ε ≥ 1/(1−β) (the precondition of CP Thm 5)."""
    if beta >= 1:
        return False
    return exp_compare(eps, 1 / (1 - beta)) >= 0


def require_paper_regime(beta: Fraction, eps: Fraction, ref: str = "CP Thm 5") -> None:
    """Raise a :class:`ParameterError` unless ε ≥ −ln(1−β).  The message shows enough digits
    to be true (a float such as ``1 - math.exp(-1)`` lands a few ulps past the edge) and names
    ``beta="edge"``, the largest β the theorem allows, rounded down."""
    if not in_paper_regime(beta, eps):
        from dps_verify.core.errors import ParameterError
        from dps_verify.core.numbers import format_down, format_up

        if eps == 0:  # the edge is beta = 0 itself: no sampling probability qualifies
            raise ParameterError(
                f"epsilon = 0 is outside {ref}'s regime for every beta > 0 (it needs epsilon >= "
                f"-ln(1-beta) > 0); got beta = {format_up(beta, 20)}. Give epsilon > 0, e.g. "
                f"epsilon >= -ln(1-beta) ~ {format_up(Fraction(neg_log1m_float(beta) * (1 + 1e-9)), 6)} for this "
                "beta (rounded up)"
            )
        edge = beta_edge(eps)
        raise ParameterError(
            f"epsilon must satisfy epsilon >= -ln(1-beta) ({ref}); got beta = {format_up(beta, 20)}, "
            f"epsilon = {format_epsilon(eps)}: the largest beta allowed is "
            f"1-e^-epsilon = {format_down(edge, 20)}...; beta is above it by {format_up(beta - edge, 3)}. "
            'Pass beta="edge" (CLI: --beta edge) for that largest beta'
        )


def resolve_beta(beta: Number, eps: Fraction) -> Fraction:
    """β as an exact fraction, where the string ``"edge"`` means :func:`beta_edge` (1 − e^−ε
    rounded down to 40 significant digits)."""
    if isinstance(beta, str) and beta.strip().lower() == "edge":
        if eps <= 0:
            from dps_verify.core.errors import ParameterError

            raise ParameterError('beta="edge" needs epsilon > 0 (CP Thm 5: beta <= 1 - e^-epsilon)')
        return beta_edge(eps)
    return beta_param(beta)


def format_epsilon(eps: Fraction) -> str:
    """ε for messages: ``ln(11)`` for an exact log, else 20 significant digits rounded down."""
    from dps_verify.core.numbers import format_down

    if isinstance(eps, ExactLog):
        return str(eps)
    return format_down(eps, 20) if eps > 0 else "0"


def beta_edge_note(eps: Fraction, beta: Fraction) -> str:
    """How ``beta="edge"`` was resolved, for printing beside a result."""
    from dps_verify.core.numbers import format_down

    if isinstance(eps, ExactLog) and eps.exp_exact is not None:
        return f"1-e^-epsilon = 1-1/{eps.exp_exact} = {beta} exactly"
    return f"1-e^-epsilon rounded down to 40 digits = {format_down(beta, 40)}"


@lru_cache(maxsize=1024)
def beta_edge(eps: Fraction, *, grid_bits: int | None = None, digits: int = 40) -> Fraction:
    """The regime edge of CP Thm 5 as a β: the largest β with ε ≥ −ln(1−β) is 1 − e^(−ε);
    returned rounded DOWN (to ``digits`` significant decimal digits, or to a multiple of
    2^−grid_bits), so the result is always inside the regime.  This is the one place the edge
    ε = −ln(1−β) ⇔ β = 1 − e^(−ε) is computed.

    For an exact-log ε = ln x (:class:`ExactLog`) the edge 1 − 1/x is rational and returned
    exactly, without rounding (ε = ln 11 gives 10/11), unless ``grid_bits`` is given and its
    denominator is longer than the grid (then rounded down to the grid)."""
    from dps_verify.core.numbers import exp_interval

    if eps <= 0:
        return Fraction(0)
    if isinstance(eps, ExactLog) and eps.exp_exact is not None:
        exact_edge = 1 - 1 / eps.exp_exact
        if grid_bits is None or exact_edge.denominator.bit_length() <= grid_bits:
            return exact_edge
        g = 1 << grid_bits  # a long exact edge is rounded down to the grid the caller asked for
        return Fraction((exact_edge.numerator * g) // exact_edge.denominator, g)
    if eps >= 4096:
        x_lo = 1 - Fraction(1, 2**5900)
    else:
        _, hi = exp_interval(-eps, 192)
        x_lo = 1 - hi  # ≤ 1 − e^(−ε)
    if grid_bits is not None:
        g = 1 << grid_bits
        return Fraction((x_lo.numerator * g) // x_lo.denominator, g)
    from dps_verify.core.numbers import _decimal_exponent

    e = _decimal_exponent(x_lo)
    scale = Fraction(10) ** (digits - 1 - e)
    m = x_lo * scale
    b = Fraction(int(m.numerator // m.denominator)) / scale
    while not in_paper_regime(b, eps):  # pragma: no cover - rounding already safe
        b -= 1 / scale
    return b


def neg_log1m_float(beta: Fraction) -> float:
    """−ln(1−β) in floats, for messages only."""
    import math

    return -math.log1p(-float(beta))
