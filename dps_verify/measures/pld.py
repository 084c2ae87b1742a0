"""Exact privacy-loss distributions (PLDs) and their composition.

For output laws P (under D) and Q (under D'), the privacy loss of an output y is ln P(y)/Q(y).
The PLD of (P, Q) is the law of that loss when y ~ P.  We keep the loss *exactly* as the ratio
r = P(y)/Q(y) (a Fraction; the loss is ln r) together with its probability, and the mass of
outputs with Q(y) = 0 (loss +∞) separately.  The hockey-stick divergence is

    δ(ε) = Pr_P[loss = +∞] + Σ_r Pr_P[r] · max(0, 1 − e^ε / r),

and k-fold composition of independent releases multiplies ratios and probabilities (losses add),
which is how repeated releases on *fresh* samples are accounted (CP §2.7).  Outputs with equal
ratios are merged, so composing structured mechanisms stays polynomial.

Both directions matter for the add/remove relation (CP Def. 2): use :func:`pair_delta`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import (
    Certified,
    Number,
    exp_affine_enclosure,
    exp_compare,
    log_upper_mpf,
    to_fraction,
)
from dps_verify.core.params import epsilon_param


@dataclass(frozen=True)
class PrivacyLossDistribution:
    """Law of the exact likelihood ratio r = P(y)/Q(y) for y ~ P, plus the mass at r = ∞."""

    ratios: dict[Fraction, Fraction] = field(default_factory=dict)
    infinity_mass: Fraction = Fraction(0)

    @classmethod
    def from_pair(cls, p: Mapping[Hashable, Number], q: Mapping[Hashable, Number]) -> PrivacyLossDistribution:
        """The PLD of (p, q); accepts :class:`~dps_verify.exact.ExactDistribution` or any mapping."""
        from dps_verify.engine.product_law import cancel_common_groups
        from dps_verify.measures.divergence import _exact_law

        p, q = cancel_common_groups(p, q)  # two product laws: the same PLD as their differing groups
        return cls.from_exact_laws(_exact_law(p), _exact_law(q))

    @classmethod
    def from_exact_laws(cls, P: Mapping[Hashable, Fraction], Q: Mapping[Hashable, Fraction]) -> PrivacyLossDistribution:
        """The PLD of two laws already given as exact, valid ``Fraction`` probabilities (the
        engine's own laws, e.g. ``inverse.releases.group_pair``): no conversion, validation or
        group cancellation (:meth:`from_pair` does those first)."""
        ratios: dict[Fraction, Fraction] = {}
        inf = Fraction(0)
        for y, pv in P.items():
            if pv <= 0:
                continue
            qv = Q.get(y, Fraction(0))
            if qv == 0:
                inf += pv
            else:
                r = pv / qv
                ratios[r] = ratios.get(r, Fraction(0)) + pv
        return cls(ratios, inf)

    @property
    def support(self) -> list[Fraction]:
        """Exact ratios r (the losses are ln r), ascending."""
        return sorted(self.ratios)

    def total_mass(self) -> Fraction:
        return sum(self.ratios.values(), Fraction(0)) + self.infinity_mass

    def compose(self, other: PrivacyLossDistribution) -> PrivacyLossDistribution:
        """PLD of two independent releases published together (losses add)."""
        out: dict[Fraction, Fraction] = {}
        for r1, p1 in self.ratios.items():
            for r2, p2 in other.ratios.items():
                r = r1 * r2
                out[r] = out.get(r, Fraction(0)) + p1 * p2
        finite = sum(out.values(), Fraction(0))
        inf = self.total_mass() * other.total_mass() - finite
        return PrivacyLossDistribution(out, inf)

    def self_compose(self, times: int) -> PrivacyLossDistribution:
        """``times``-fold composition with itself, by repeated squaring."""
        if times < 1:
            raise ParameterError("times must be >= 1")
        result: PrivacyLossDistribution | None = None
        base = self
        while times:
            if times & 1:
                result = base if result is None else result.compose(base)
            times >>= 1
            if times:
                base = base.compose(base)
        assert result is not None
        return result

    def delta_certified(self, epsilon: Number) -> Certified:
        """Hockey-stick δ at ε for this direction, as an enclosure."""
        eps = epsilon_param(epsilon)
        A, B = self.infinity_mass, Fraction(0)
        for r, pr in self.ratios.items():
            if exp_compare(eps, r) < 0:  # e^ε < r: contributes pr·(1 − e^ε/r)
                A += pr
                B += pr / r
        lo, hi = exp_affine_enclosure(A, B, eps)
        if lo == hi:
            return Certified(lo, hi, "exact rational arithmetic")
        return Certified(
            max(lo, Fraction(0)), hi,
            "exact ratios; e^ε enclosed by interval arithmetic (≥128 bits), outward rounding",
        )

    def delta(self, epsilon: Number) -> mpmath.mpf:
        """Hockey-stick δ at ε (this direction), rounded up."""
        return self.delta_certified(epsilon).safe

    def epsilon(self, delta: Number = 0) -> mpmath.mpf:
        """Smallest ε ≥ 0 with δ(ε) ≤ ``delta`` for this direction, rounded up (∞ if none)."""
        from dps_verify.measures.divergence import least_exp_for_delta

        d = to_fraction(delta, "delta")
        segments = [(r, pr, pr / r) for r, pr in self.ratios.items() if r > 1]
        x = least_exp_for_delta(segments, self.infinity_mass, d)
        return mpmath.inf if x is None else log_upper_mpf(x)


def pair_delta(p: Mapping, q: Mapping, epsilon: Number, times: int = 1) -> mpmath.mpf:
    """δ at ε of ``times`` independent releases of (p, q), worst of both directions, rounded up.

    Exact when the composition is cheap; otherwise the upper end of the certified discretised
    enclosure of :mod:`dps_verify.inverse.pld_discrete` (still a safe δ), which raises
    :class:`~dps_verify.core.errors.CertificationError` naming ``times`` past its work budget.
    """
    from dps_verify.inverse.pld_discrete import (
        EXACT_COST_BUDGET,
        _times_param,
        exact_compose_cost,
    )

    times = _times_param(times)
    fwd0, bwd0 = PrivacyLossDistribution.from_pair(p, q), PrivacyLossDistribution.from_pair(q, p)
    if max(exact_compose_cost(fwd0, times), exact_compose_cost(bwd0, times)) > EXACT_COST_BUDGET:
        return pair_delta_enclosure(p, q, epsilon, times).safe
    fwd = PrivacyLossDistribution.from_pair(p, q).self_compose(times)
    bwd = PrivacyLossDistribution.from_pair(q, p).self_compose(times)
    return max(fwd.delta(epsilon), bwd.delta(epsilon))


def pair_epsilon(p: Mapping, q: Mapping, delta: Number = 0, times: int = 1) -> mpmath.mpf:
    """Smallest ε with ``times``-fold δ ≤ ``delta`` in both directions, rounded up (exact; raises
    :class:`~dps_verify.core.errors.CertificationError` naming ``times`` when the exact
    composition is over its work budget)."""
    from dps_verify.core.errors import CertificationError
    from dps_verify.inverse.pld_discrete import EXACT_COST_BUDGET, _times_param, exact_compose_cost

    times = _times_param(times)
    fwd0, bwd0 = PrivacyLossDistribution.from_pair(p, q), PrivacyLossDistribution.from_pair(q, p)
    cost = max(exact_compose_cost(fwd0, times), exact_compose_cost(bwd0, times))
    if cost > 50 * EXACT_COST_BUDGET:
        raise CertificationError(
            f"exact {times}-fold composition needs about {cost} ratio products (times = {times} "
            "is too large for the exact PLD); use measures.pld.pair_delta_enclosure"
        )
    fwd = PrivacyLossDistribution.from_pair(p, q).self_compose(times)
    bwd = PrivacyLossDistribution.from_pair(q, p).self_compose(times)
    return max(fwd.epsilon(delta), bwd.epsilon(delta))


def pair_delta_enclosure(p: Mapping, q: Mapping, epsilon: Number, times: int = 1, **kw: Any) -> Certified:
    """Enclosure of δ at ε of ``times`` releases of (p, q), worst of both directions (CP Def. 2
    under add/remove neighbours needs both).  ``details['mode']`` is ``'exact'``,
    ``'sparse'`` (:mod:`dps_verify.inverse.pld_sparse`) or ``'discretised'`` (see
    :mod:`dps_verify.inverse.pld_discrete`)."""
    from dps_verify.inverse.pld_discrete import enclose_deltas

    fwd, bwd = enclose_deltas(
        [PrivacyLossDistribution.from_pair(p, q), PrivacyLossDistribution.from_pair(q, p)],
        epsilon, times, **kw,
    )
    lo, hi = max(fwd.lower, bwd.lower), max(fwd.upper, bwd.upper)
    worst = fwd if fwd.upper >= bwd.upper else bwd
    modes = {fwd.details.get("mode"), bwd.details.get("mode")}
    mode = ("exact" if modes == {"exact"} else "discretised" if "discretised" in modes
            else "sparse" if "sparse" in modes else "direct")
    how = worst.how if mode != "exact" else fwd.how
    if mode != "exact":
        how = how.rsplit("; width", 1)[0] + f"; width {float(hi - lo):.3g}"
    return Certified(lo, hi, how, dict(worst.details, mode=mode))
