"""The privacy frontier of a target (ε, δ): for each β, the smallest k under each measure.

For every β of :func:`dps_verify.plan.grid.beta_grid` and every measure of
:data:`dps_verify.inverse.questions.BOUNDS` —

* ``"paper"``: CP Thm 5's closed form d(k, β, ε) (valid for ε ≥ −ln(1−β));
* ``"hockey-stick"``: the exact worst-case δ of sampled strongly-safe k-anonymization under
  CP Def 2 (:func:`dps_verify.worstcase.sdgs.sdgs_delta_certified`);
* ``"pointwise"``: the same under TR Def 2 —

the smallest k reaching δ comes from the certified inverse
:func:`dps_verify.inverse.questions.min_k`, and the certified δ at k and at k − 1 are shown so
that the minimality is visible (δ(k) ≤ target < δ(k − 1)).  Beside them, the k ARX's rule
returns at that β (:mod:`dps_verify.plan.arx`).  Neighbouring: add/remove one record;
sampling: independent Bernoulli(β) per record (CP Def 3).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Certified, Number
from dps_verify.core.params import delta_param, epsilon_param, format_epsilon
from dps_verify.core.types import BoundLike, bound_param, definition_param
from dps_verify.inverse.questions import BOUNDS, min_k
from dps_verify.plan.arx import ArxChoice, arx_choice, arx_k_at
from dps_verify.plan.grid import BetaPoint, beta_grid
from dps_verify.worstcase.closed_forms import d_certified
from dps_verify.worstcase.sdgs import sdgs_delta_certified

MEASURES: tuple[str, ...] = BOUNDS


@lru_cache(maxsize=4096)
def certified_delta(measure: BoundLike, k: int, beta: Fraction, eps: Fraction) -> Certified:
    """δ(k, β, ε) under ``measure`` as a certified enclosure (no new arithmetic: the paper's
    :func:`d_certified` or the exact :func:`sdgs_delta_certified`; memoised)."""
    if measure == "paper":
        return d_certified(k, beta, eps)
    return sdgs_delta_certified(k, beta, eps, definition_param(measure))


@dataclass(frozen=True)
class MinimalK:
    """The smallest k under one measure, with the certified δ at k and at k − 1 (None at k = 1)."""

    measure: BoundLike
    k: int
    delta_at_k: Certified
    delta_below: Certified | None


@dataclass(frozen=True)
class FrontierRow:
    """One β: the smallest k under each measure that applies there, and ARX's loop's k."""

    point: BetaPoint
    by_measure: dict[str, MinimalK]
    arx_k: int | None  # None outside CP Thm 5's regime (ARX's rule needs d)
    not_applicable: dict[str, str]

    @property
    def beta(self) -> Fraction:
        return self.point.beta


@dataclass(frozen=True)
class Frontier:
    """The plan's privacy part: target, rows (increasing β) and ARX's own (β, k)."""

    epsilon: Fraction
    delta: Fraction
    epsilon_text: str
    delta_text: str
    rows: tuple[FrontierRow, ...]
    arx: ArxChoice | None
    seconds: float

    def row(self, label_or_beta: str | Fraction) -> FrontierRow:
        for r in self.rows:
            if r.point.label == label_or_beta or r.beta == label_or_beta:
                return r
        raise KeyError(label_or_beta)


def eps_text(x: Any) -> str:
    """ε for people: an exact log as ``ln(r)``, a short decimal or ``p/q`` when exact, else 20
    digits rounded down (:func:`format_epsilon`)."""
    from decimal import Decimal

    if isinstance(x, Fraction) and x.denominator <= 10**6:
        d = x.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1:
            return format(Decimal(x.numerator) / Decimal(x.denominator), "f")
        return str(x)
    return format_epsilon(x)


def minimal_k(measure: BoundLike, beta: Fraction, eps: Fraction, delta: Fraction) -> MinimalK:
    """Smallest k under ``measure`` with its certified δ at k and k − 1."""
    seen: dict[int, Certified] = {}  # the certified δ(k) the search computed on its way
    k = min_k(beta, eps, delta, bound=bound_param(measure), memo=seen)
    at_k = seen.get(k) or certified_delta(measure, k, beta, eps)
    below = (seen.get(k - 1) or certified_delta(measure, k - 1, beta, eps)) if k > 1 else None
    if at_k.upper > delta or (below is not None and not below.lower > delta):
        raise RuntimeError(  # min_k certified both sides; this re-check can only fail on a bug
            f"smallest k under {measure}: the enclosures at k = {k} and k - 1 do not bracket delta"
        )
    return MinimalK(measure=measure, k=k, delta_at_k=at_k, delta_below=below)


def frontier_row(point: BetaPoint, eps: Fraction, delta: Fraction,
                 measures: Iterable[str] = MEASURES) -> FrontierRow:
    """One row of the frontier (see the module docstring)."""
    by: dict[str, MinimalK] = {}
    na: dict[str, str] = {}
    for m in measures:
        if m == "paper" and not point.in_regime:
            na[m] = "outside CP Thm 5's regime (epsilon < -ln(1-beta))"
            continue
        try:
            by[m] = minimal_k(bound_param(m), point.beta, eps, delta)
        except CertificationError as exc:  # past a scan's work budget: say so, keep the others
            na[m] = f"certification limit: {' '.join(str(exc).split())}"
    arx: int | None = None
    if point.in_regime:
        paper = by.get("paper")
        if paper is None and "paper" in na:
            pass  # the same limit would stop ARX's loop
        elif paper is not None:  # ARX's loop from the certified smallest k under d (no second search)
            k0, d0 = paper.k, paper.delta_at_k
            while not d0.upper < delta:  # strict, as ARX's loop tests
                k0 += 1
                d0 = certified_delta("paper", k0, point.beta, eps)
            arx = k0 + 1
        else:
            arx = arx_k_at(point.beta, eps, delta)
    return FrontierRow(point=point, by_measure=by, arx_k=arx, not_applicable=na)


def frontier(epsilon: Number | str, delta: Number | str, betas: Iterable[str] = (), *,
             default_grid: bool = True, measures: Iterable[str] = MEASURES) -> Frontier:
    """The frontier for a target (ε, δ): see the module docstring.

    ``epsilon`` accepts the exact log ``"ln(r)"``; ``betas`` adds β values (``"edge"`` allowed);
    ``default_grid=False`` keeps only the edge and the given β.  Bad input raises ``ValueError``
    naming the condition; past a scan's work budget, :class:`CertificationError`.
    """
    t0 = time.perf_counter()
    eps = epsilon_param(epsilon)
    dl = delta_param(delta)
    if dl <= 0:
        raise ParameterError("delta must be > 0: no finite k gives delta = 0 (CP Prop. 4 / Thm 5)")
    if dl >= 1:
        raise ParameterError("delta must be < 1: every k (k = 1) already gives delta <= 1")
    ms = tuple(measures)
    for m in ms:
        if m not in MEASURES:
            raise ParameterError(f"measure must be one of {MEASURES}, got {m!r}")
    points = beta_grid(eps, betas, default_grid=default_grid)
    rows = tuple(frontier_row(p, eps, dl, ms) for p in points)
    if not any(r.by_measure for r in rows):  # nothing certified anywhere: the limit is the answer
        first = next(iter(rows[0].not_applicable.values()), "no measure applies")
        raise CertificationError(f"no beta of the plan has a certified smallest k: {first}")
    edge_row = next((r for r in rows if r.point.is_edge and r.arx_k is not None), None)
    try:  # ARX's double beta is within an ulp of the edge: the edge row's answer is the hint
        arx = arx_choice(eps, dl, hint=None if edge_row is None or edge_row.arx_k is None
                         else edge_row.arx_k - 1) if eps > 0 else None
    except CertificationError:
        arx = None
    return Frontier(epsilon=eps, delta=dl, epsilon_text=epsilon.strip() if isinstance(epsilon, str) else eps_text(eps),
                    delta_text=delta.strip() if isinstance(delta, str) else str(dl),
                    rows=rows, arx=arx, seconds=time.perf_counter() - t0)


__all__ = ["MEASURES", "Frontier", "FrontierRow", "MinimalK", "certified_delta", "frontier",
           "frontier_row", "minimal_k", "eps_text"]
