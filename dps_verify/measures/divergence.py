"""Exact privacy measures of a pair of output laws (p, q).

Two (ε,δ) definitions are offered, always by name:

- ``"hockey-stick"`` (CP Def. 2): δ = max over both directions of Σ_y max(0, p(y) − e^ε q(y)),
  the least δ with Pr[A(D) ∈ O] ≤ e^ε Pr[A(D') ∈ O] + δ for every event O.
- ``"pointwise"`` (TR Def. 2, and the quantity CP's appendix proofs bound): the larger, under p or
  under q, of the mass of outputs whose privacy loss |ln p(y)/q(y)| exceeds ε.

All probabilities are exact fractions; e^ε enters through interval arithmetic.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import (
    Certified,
    Number,
    exp_affine_enclosure,
    exp_compare,
    fraction_to_mpf,
    log_upper_mpf,
    to_fraction,
)
from dps_verify.core.params import epsilon_param
from dps_verify.core.types import Definition
from dps_verify.engine.distribution import ExactDistribution
from dps_verify.engine.product_law import (
    ProductDistribution,
    cancel_common_groups,
    product_pair_masses,
    product_pair_pointwise,
    product_pair_segments,
)

#: the (ε, δ) definitions (:class:`dps_verify.core.types.Definition`), as plain strings
DEFINITIONS = tuple(d.value for d in Definition)


#: Slack allowed on the total mass of a law given with inexact (binary floating-point) values:
#: floats and ``mpf`` are read exactly, so a law computed in floating point, such as
#: ``{0: 0.7, 1: 1 - 0.7}``, can exceed 1 by a few ulps.  Exact inputs (int, Fraction, Decimal,
#: str) get no slack.
FLOAT_MASS_TOLERANCE = Fraction(1, 10**12)


def _is_inexact(v: Any) -> bool:
    """Whether ``v`` is a binary floating-point number (float, numpy floating, mpmath.mpf)."""
    return isinstance(v, (float, mpmath.mpf)) or (
        type(v).__module__ == "numpy" and "float" in type(v).__name__
    )


def _exact_law(p: Mapping[Hashable, Any], name: str = "distribution") -> dict[Hashable, Fraction]:
    """The law ``p`` with exact probabilities, validated: every probability ≥ 0 and the total
    mass ≤ 1 (sub-probability laws are allowed; CP Def. 2 compares probabilities of events).

    The total may exceed 1 by at most :data:`FLOAT_MASS_TOLERANCE` (10⁻¹²) only when some value
    is a float or ``mpf``.  Raises :class:`~dps_verify.core.errors.ParameterError` otherwise.
    """
    if isinstance(p, (ExactDistribution, ProductDistribution)):
        law = p.exact
        inexact = False
    else:
        if not isinstance(p, Mapping):
            raise ParameterError(
                f"{name} must be a mapping output -> probability, got {type(p).__name__}"
            )
        law = {y: to_fraction(v, "probability") for y, v in p.items()}
        inexact = any(_is_inexact(v) for v in p.values())
    total = Fraction(0)
    for y, v in law.items():
        if v < 0:
            raise ParameterError(
                f"{name}: probabilities must be >= 0 (a law of outputs, CP Def. 2); "
                f"got {v} for output {y!r}"
            )
        total += v
    limit = 1 + FLOAT_MASS_TOLERANCE if inexact else Fraction(1)
    if total > limit:
        extra = " (floats get a tolerance of 1e-12)" if inexact else ""
        raise ParameterError(
            f"{name}: probabilities must sum to at most 1 (a law of outputs, CP Def. 2); "
            f"they sum to {float(total):.17g}{extra}"
        )
    return law


def _exp_below(eps: Fraction, r: Fraction) -> bool:
    """Whether e^ε < r, decided exactly.  Cheap exact shortcuts come first so that a huge ε
    (say 1e30) never reaches the interval evaluation of e^ε: e^ε ≥ 1 + ε, and r < 2^b with
    b = bitlen(num) − bitlen(den) + 1, so ε ≥ 0.7·b > ln 2·b already gives e^ε > r (both hold at
    ε = 0 too; past the first test r > 1, so b ≥ 1)."""
    if r <= 1 + eps or eps >= Fraction(7, 10) * _log2_ceiling(r):
        return False
    return exp_compare(eps, r) < 0


def _log2_ceiling(r: Fraction) -> int:
    """An integer b with r < 2^b (r > 0)."""
    return r.numerator.bit_length() - r.denominator.bit_length() + 1


def _bad_set_forward(P: dict, Q: dict, eps: Fraction) -> list:
    """Outputs y with P(y) > e^ε Q(y) (decided exactly)."""
    bad = []
    for y, pv in P.items():
        if pv <= 0:
            continue
        qv = Q.get(y, Fraction(0))
        if qv == 0 or _exp_below(eps, pv / qv):
            bad.append(y)
    return bad


def _one_direction(P: dict, Q: dict, eps: Fraction) -> tuple[Fraction, Fraction]:
    bad = _bad_set_forward(P, Q, eps)
    A = sum((P[y] for y in bad), Fraction(0))
    B = sum((Q.get(y, Fraction(0)) for y in bad), Fraction(0))
    return _clip(exp_affine_enclosure(A, B, eps))


def _clip(enclosure: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    lo, hi = enclosure
    return max(lo, Fraction(0)), hi


def delta_certified(p: Mapping, q: Mapping, epsilon: Number) -> Certified:
    """Hockey-stick δ (CP Def. 2), the larger of the two directions, as an enclosure."""
    eps = epsilon_param(epsilon)
    masses = product_pair_masses(p, q, eps)  # two product laws: only the differing group
    if masses is not None:
        (lo1, hi1), (lo2, hi2) = (_clip(exp_affine_enclosure(A, B, eps)) for A, B in masses)
    else:
        p, q = cancel_common_groups(p, q)
        P, Q = _exact_law(p, "p"), _exact_law(q, "q")
        lo1, hi1 = _one_direction(P, Q, eps)
        lo2, hi2 = _one_direction(Q, P, eps)
    exact = lo1 == hi1 and lo2 == hi2
    how = (
        "exact rational arithmetic"
        if exact
        else "exact bad sets; e^ε enclosed by mpmath interval arithmetic, outward rounding"
    )
    return Certified(max(lo1, lo2), max(hi1, hi2), how)


def delta_exceeds(p: Mapping, q: Mapping, epsilon: Number, d: Number) -> bool:
    """Whether the hockey-stick δ (CP Def. 2) of ``p`` vs ``q`` at ``epsilon`` is > ``d``,
    decided exactly even when :func:`delta_certified`'s enclosure straddles ``d``.

    Per direction, with the exact bad set's masses A = P(bad), B = Q(bad): if B = 0 the
    direction's δ is A (rational); otherwise A − e^ε B > d ⟺ e^ε < (A − d)/B, one exact
    comparison of e^ε with a rational (:func:`exp_compare`, which refines until decided; e^ε
    equals a rational r > 1 only when ε is given as an exact log, and that tie is exact too).
    """
    eps = epsilon_param(epsilon)
    dd = to_fraction(d, "delta")
    masses = product_pair_masses(p, q, eps)  # two product laws: only the differing group
    if masses is None:
        p, q = cancel_common_groups(p, q)
        P, Q = _exact_law(p, "p"), _exact_law(q, "q")
        masses = []
        for X, Y in ((P, Q), (Q, P)):
            bad = _bad_set_forward(X, Y, eps)
            masses.append((sum((X[y] for y in bad), Fraction(0)),
                           sum((Y.get(y, Fraction(0)) for y in bad), Fraction(0))))
    for A, B in masses:
        if B == 0:
            if A > dd:
                return True
        elif _exp_below(eps, (A - dd) / B):  # A ≤ d gives a ratio ≤ 0 < e^ε
            return True
    return False


def delta(p: Mapping, q: Mapping, epsilon: Number) -> mpmath.mpf:
    """Hockey-stick δ (CP Def. 2), max over both directions, rounded up."""
    return delta_certified(p, q, epsilon).safe


def pointwise_delta_exact(p: Mapping, q: Mapping, epsilon: Number) -> Fraction:
    """Pointwise δ (TR Def. 2) as an exact fraction."""
    eps = epsilon_param(epsilon)
    fast = product_pair_pointwise(p, q, eps)  # two product laws: only the differing group
    if fast is not None:
        return fast
    p, q = cancel_common_groups(p, q)
    P, Q = _exact_law(p, "p"), _exact_law(q, "q")
    bad = set(_bad_set_forward(P, Q, eps)) | set(_bad_set_forward(Q, P, eps))
    return max(
        sum((P.get(y, Fraction(0)) for y in bad), Fraction(0)),
        sum((Q.get(y, Fraction(0)) for y in bad), Fraction(0)),
    )


def pointwise_delta(p: Mapping, q: Mapping, epsilon: Number) -> mpmath.mpf:
    """Pointwise δ (TR Def. 2): max over p and q of the mass of {y : |ln p(y)/q(y)| > ε}.

    Exact; returned rounded up.  TR Def. 2 asks this mass to be < δ; CP's proofs bound it by δ.
    """
    return fraction_to_mpf(pointwise_delta_exact(p, q, epsilon), "u")


def measure(
    p: Mapping, q: Mapping, epsilon: Number, definition: Definition | str = Definition.HOCKEY_STICK
) -> Certified:
    """δ of (p, q) at ε under the named definition, as an enclosure."""
    if definition == "hockey-stick":
        return delta_certified(p, q, epsilon)
    if definition == "pointwise":
        v = pointwise_delta_exact(p, q, epsilon)
        return Certified(v, v, "exact rational arithmetic")
    raise ParameterError(f"definition must be one of {DEFINITIONS}, got {definition!r}")


def least_exp_for_delta(
    segments: Iterable[tuple[Fraction, Fraction, Fraction]], inf_mass: Fraction, d: Fraction
) -> Fraction | None:
    """Least x = e^ε ≥ 1 with δ(x) = inf_mass + Σ_{r > x} (a − x·b) ≤ d, exactly.

    ``segments`` are (r, a, b) with likelihood ratio r = a/b (P-mass a, Q-mass b of the outputs
    with that ratio); a segment with r ≤ 1 adds max(0, a − x·b) = 0 for every x ≥ 1 and is
    dropped.  Between consecutive ratios δ is A − x·B, decreasing in x, so the answer is a
    rational found by walking the ratios from the largest down.  None if even x = ∞ leaves more
    than d (mass at infinite loss).
    """
    if inf_mass > d:
        return None
    ordered = sorted((s for s in segments if s[0] > 1), key=lambda t: t[0], reverse=True)
    A, B = inf_mass, Fraction(0)
    for i, (_r, a, b) in enumerate(ordered):
        A += a
        B += b
        nxt = ordered[i + 1][0] if i + 1 < len(ordered) else Fraction(1)
        if A - nxt * B > d:  # the answer lies in [nxt, r]
            return (A - d) / B  # > nxt ≥ 1
    return Fraction(1)


def _epsilon_one_direction(P: dict, Q: dict, d: Fraction) -> Fraction | None:
    """Least x = e^ε ≥ 1 with Σ_y max(0, P(y) − x Q(y)) ≤ d, exactly; None if none exists."""
    # Q.get(y) is None or Fraction(0) (falsy) exactly where Q never produces y; the ratios above
    # 1 have Q[y] > 0 (an output of P-mass 0 adds nothing to either sum)
    inf_mass = sum((pv for y, pv in P.items() if not Q.get(y)), Fraction(0))
    segments = [(pv / Q[y], pv, Q[y]) for y, pv in P.items() if Q.get(y) and pv > Q[y]]
    return least_exp_for_delta(segments, inf_mass, d)


def epsilon(p: Mapping, q: Mapping, delta: Number = 0) -> mpmath.mpf:
    """Smallest ε ≥ 0 with hockey-stick δ(p, q, ε) ≤ ``delta`` (``mpmath.inf`` if none).

    The answer is ln of an exact rational; it is returned rounded up (a safe ε).
    """
    d = to_fraction(delta, "delta")
    if d < 0:
        raise ParameterError(f"delta must be >= 0, got {delta}")
    segments = product_pair_segments(p, q)  # two product laws: only the differing group
    if segments is not None:
        xs = [least_exp_for_delta(seg, inf, d) for seg, inf in segments]
        if any(x is None for x in xs):
            return mpmath.inf
        return log_upper_mpf(max(x for x in xs if x is not None))
    p, q = cancel_common_groups(p, q)
    P, Q = _exact_law(p, "p"), _exact_law(q, "q")
    x1, x2 = _epsilon_one_direction(P, Q, d), _epsilon_one_direction(Q, P, d)
    if x1 is None or x2 is None:
        return mpmath.inf
    return log_upper_mpf(max(x1, x2))


__all__ = [
    "DEFINITIONS",
    "delta",
    "delta_certified",
    "delta_exceeds",
    "epsilon",
    "least_exp_for_delta",
    "measure",
    "pointwise_delta",
    "pointwise_delta_exact",
]
