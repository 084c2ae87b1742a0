"""ARX's parameter rule for "sample, then k-anonymize" (SafePub), modelled exactly.

SafePub (Bild, Kuhn & Prasser, PoPETs 2018; implemented in ARX) turns a target (ε, δ) into
(β, k) by the rule of CP Thm 5: β is the regime edge 1 − e^(−ε) (the largest β CP Thm 5
allows, ε ≥ −ln(1−β)), taken at the lower end of a double-precision interval, and k comes from
a loop that walks k = 1, 2, … and evaluates CP Thm 5's d(k, β, ε) until d is *strictly*
below δ.  The loop increments its counter once more after the test that stops it, so the k it
returns is one more than the smallest k whose d is below δ.

This module is the one copy of that rule in the project (the plan and the benchmarks share it).
It never re-implements d: the smallest k comes from the certified inverse
:func:`dps_verify.inverse.questions.min_k` (``bound="paper"``) and the strict comparison is
decided on the certified enclosure of :func:`dps_verify.worstcase.closed_forms.d_certified`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.core.numbers import Number
from dps_verify.core.params import beta_edge, delta_param, epsilon_param, resolve_beta
from dps_verify.inverse.questions import min_k
from dps_verify.worstcase.closed_forms import d_certified


@dataclass(frozen=True)
class ArxChoice:
    """What ARX's rule returns for a target (ε, δ): its β and its k, and the smallest k under
    CP Thm 5's d at that β (``k_smallest_d``), so ``k == k_smallest_d + 1`` is visible."""

    beta: Fraction
    k: int
    k_smallest_d: int


def arx_beta(epsilon: Number) -> Fraction:
    """ARX's β: 1 − e^(−ε) rounded DOWN to a double (the lower end of its interval).

    The regime edge is first taken rounded down to 40 digits (:func:`beta_edge`), then to the
    largest double not above it, so the result is inside CP Thm 5's regime.
    """
    eps = epsilon_param(epsilon)
    edge = beta_edge(eps)
    f = float(edge)
    if Fraction(f) > edge:
        f = math.nextafter(f, 0.0)
    return Fraction(f)


def smallest_k_strictly_below(beta: Number, epsilon: Number, delta: Number, *,
                               hint: int | None = None) -> int:
    """Smallest k with CP Thm 5's d(k, β, ε) < δ (strict, as ARX's loop tests), certified.

    :func:`min_k` gives the smallest k with d ≤ δ; d is non-increasing in k, so if that k has
    d = δ exactly (its certified upper end is not below δ) the next k is tried.  A ``hint`` (the
    answer at a nearby β) is tried first: d(hint) < δ and d(hint − 1) ≥ δ, both certified, prove
    it is the answer (d is non-increasing in k); otherwise the search runs.
    """
    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    dl = delta_param(delta)
    if hint is not None and hint >= 1:
        if d_certified(hint, b, eps).upper < dl and (hint == 1 or d_certified(hint - 1, b, eps).lower >= dl):
            return hint
    k = min_k(b, eps, dl, bound="paper")
    while not d_certified(k, b, eps).upper < dl:
        k += 1
    return k


def arx_k_at(beta: Number, epsilon: Number, delta: Number) -> int:
    """The k ARX's loop returns at a given β: one more than :func:`smallest_k_strictly_below`."""
    return smallest_k_strictly_below(beta, epsilon, delta) + 1


def arx_choice(epsilon: Number, delta: Number, *, hint: int | None = None) -> ArxChoice:
    """ARX's (β, k) for a target (ε, δ): β = :func:`arx_beta`, k = its loop's answer (``hint``:
    see :func:`smallest_k_strictly_below`)."""
    b = arx_beta(epsilon)
    k0 = smallest_k_strictly_below(b, epsilon, delta, hint=hint)
    return ArxChoice(beta=b, k=k0 + 1, k_smallest_d=k0)


__all__ = ["ArxChoice", "arx_beta", "arx_choice", "arx_k_at", "smallest_k_strictly_below"]
