"""Exact output distributions under Bernoulli sampling, and exact privacy measures.

Sampling scheme (CP Def. 3): every record of the dataset is kept independently with probability
β; the anonymizer is then applied to the kept records.  Datasets are multisets; the neighbouring
relation is add/remove one record (CP §2.1, TR §2).

Two (ε,δ) definitions are offered, always by name:

- ``"hockey-stick"`` (CP Def. 2): δ = max over both directions of Σ_y max(0, p(y) − e^ε q(y)),
  the least δ with Pr[A(D) ∈ O] ≤ e^ε Pr[A(D') ∈ O] + δ for every event O.
- ``"pointwise"`` (TR Def. 2, and the quantity CP's appendix proofs bound): the larger, under p or
  under q, of the mass of outputs whose privacy loss |ln p(y)/q(y)| exceeds ε.

All probabilities are exact fractions internally; e^ε enters through interval arithmetic.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from .numbers import (
    Certified,
    Number,
    exp_affine_enclosure,
    exp_compare,
    fraction_to_mpf,
    log_upper_mpf,
    to_fraction,
)
from .params import beta_param, epsilon_param

DEFINITIONS = ("hockey-stick", "pointwise")


class ExactDistribution(dict):
    """A distribution ``output -> mpf`` that also keeps the exact ``Fraction`` values.

    ``.exact`` maps each output to its exact probability; the ``mpf`` values are those rounded
    to nearest at the working precision, for display.  The privacy measures in this module use
    ``.exact`` when present.
    """

    def __init__(self, exact: Mapping[Hashable, Fraction]):
        super().__init__((y, fraction_to_mpf(v)) for y, v in exact.items())
        self.exact: dict[Hashable, Fraction] = dict(exact)


class randomized:  # noqa: N801 - used like a decorator / marker, lower-case by design
    """Mark ``fn(sample) -> {output: probability}`` as a randomized anonymizer.

    Probabilities are read exactly (floats by their shortest decimal form) and must sum to 1.
    """

    def __init__(self, fn: Callable[[tuple], Mapping[Hashable, Number]]):
        self.fn = fn
        self.sufficient_statistic = getattr(fn, "sufficient_statistic", None)
        self.__name__ = getattr(fn, "__name__", "randomized")

    def law(self, sample: tuple) -> dict[Hashable, Fraction]:
        raw = self.fn(sample)
        out: dict[Hashable, Fraction] = {}
        for y, pr in raw.items():
            v = to_fraction(pr, "output probability")
            if v < 0:
                raise ValueError(f"randomized anonymizer gave a negative probability for {y!r}")
            if v:
                out[y] = out.get(y, Fraction(0)) + v
        total = sum(out.values())
        if total != 1:
            raise ValueError(f"randomized anonymizer's probabilities sum to {total}, not 1")
        return out


def _as_law(anonymizer: Callable, sample: tuple) -> dict[Hashable, Fraction]:
    if isinstance(anonymizer, randomized):
        return anonymizer.law(sample)
    return {anonymizer(sample): Fraction(1)}


def distribution(
    anonymizer: Callable, dataset: Sequence[Hashable], beta: Number
) -> ExactDistribution:
    """Exact law of "keep each record with probability β, then apply ``anonymizer``".

    ``anonymizer(sample)`` receives a tuple of the kept records (grouped in order of first
    appearance in ``dataset``) and returns a hashable output; wrap a randomized one with
    :class:`randomized`.  Sub-multisets are enumerated by count vectors: Π(c_i + 1) terms for
    multiplicities c_i, never the 2^N subsets.  If the anonymizer has a ``sufficient_statistic``
    attribute (a record -> key map such that the output depends only on the multiset of keys,
    as for a data-independent recoding), records are grouped by that key instead.

    Raises ``ValueError`` if β ∉ (0, 1], a record is unhashable, or the anonymizer is not a
    function of its sample (two calls on one sample disagree).
    """
    b = beta_param(beta, allow_one=True)
    p, q = b.numerator, b.denominator
    key = getattr(anonymizer, "sufficient_statistic", None) or _identity
    groups: dict[Hashable, list] = {}
    try:
        for rec in dataset:
            groups.setdefault(key(rec), []).append(rec)
    except TypeError as exc:
        raise ValueError(f"dataset records must be hashable: {exc}") from None
    members = list(groups.values())
    keys = list(groups)
    # Optional fast path: an anonymizer whose output is a function of the per-key counts.
    from_counts = getattr(anonymizer, "from_counts", None) if key is not _identity else None
    # Per group: prefixes of the record list and integer binomial weights C(c,s) p^s (q-p)^(c-s).
    prefixes = [[tuple(m[:s]) for s in range(len(m) + 1)] for m in members]
    weights = [
        [_comb(len(m), s) * p**s * (q - p) ** (len(m) - s) for s in range(len(m) + 1)]
        for m in members
    ]
    total_den = q ** sum(len(m) for m in members)
    acc: dict[Hashable, Fraction] = {}
    acc_int: dict[Hashable, int] = {}
    checked = False
    for choice in itertools.product(*(range(len(m) + 1) for m in members)):
        w = 1
        for g, s in enumerate(choice):
            w *= weights[g][s]
        if w == 0:
            continue
        if from_counts is not None:
            _add(acc_int, from_counts(dict(zip(keys, choice))), w)
            continue
        sample: tuple = sum((prefixes[g][s] for g, s in enumerate(choice)), ())
        if not isinstance(anonymizer, randomized):
            y = anonymizer(sample)
            if not checked:
                if anonymizer(sample) != y:
                    raise ValueError(_NOT_A_FUNCTION)
                checked = True
            _add(acc_int, y, w)
            continue
        law = anonymizer.law(sample)
        if not checked:
            if anonymizer.law(sample) != law:
                raise ValueError(_NOT_A_FUNCTION)
            checked = True
        for y, pr in law.items():
            _add(acc, y, pr * w)
    for y, v in acc_int.items():
        acc[y] = acc.get(y, 0) + v
    return ExactDistribution({y: Fraction(v) / total_den for y, v in acc.items()})


_NOT_A_FUNCTION = (
    "anonymizer is not a function of its sample: two calls on the same sample gave different "
    "outputs (wrap a randomized anonymizer with exact.randomized)"
)


def _add(acc: dict, y: Hashable, v: Any) -> None:
    try:
        acc[y] = acc.get(y, 0) + v
    except TypeError as exc:
        raise ValueError(f"anonymizer outputs must be hashable: {exc}") from None


def _identity(r: Hashable) -> Hashable:
    return r


def _comb(n: int, s: int) -> int:
    from math import comb

    return comb(n, s)


def _exact_law(p: Mapping[Hashable, Any]) -> dict[Hashable, Fraction]:
    if isinstance(p, ExactDistribution):
        return p.exact
    return {y: to_fraction(v, "probability") for y, v in p.items()}


def _bad_set_forward(P: dict, Q: dict, eps: Fraction) -> list:
    """Outputs y with P(y) > e^ε Q(y) (decided exactly)."""
    bad = []
    for y, pv in P.items():
        if pv <= 0:
            continue
        qv = Q.get(y, Fraction(0))
        if qv == 0 or exp_compare(eps, pv / qv) < 0:
            bad.append(y)
    return bad


def _one_direction(P: dict, Q: dict, eps: Fraction) -> tuple[Fraction, Fraction]:
    bad = _bad_set_forward(P, Q, eps)
    A = sum((P[y] for y in bad), Fraction(0))
    B = sum((Q.get(y, Fraction(0)) for y in bad), Fraction(0))
    lo, hi = exp_affine_enclosure(A, B, eps)
    return max(lo, Fraction(0)), hi


def delta_certified(p: Mapping, q: Mapping, epsilon: Number) -> Certified:
    """Hockey-stick δ (CP Def. 2), the larger of the two directions, as an enclosure."""
    eps = epsilon_param(epsilon)
    P, Q = _exact_law(p), _exact_law(q)
    lo1, hi1 = _one_direction(P, Q, eps)
    lo2, hi2 = _one_direction(Q, P, eps)
    exact = lo1 == hi1 and lo2 == hi2
    how = (
        "exact rational arithmetic"
        if exact
        else "exact bad sets; e^ε enclosed by mpmath interval arithmetic, outward rounding"
    )
    return Certified(max(lo1, lo2), max(hi1, hi2), how)


def delta(p: Mapping, q: Mapping, epsilon: Number) -> mpmath.mpf:
    """Hockey-stick δ (CP Def. 2), max over both directions, rounded up."""
    return delta_certified(p, q, epsilon).safe


def pointwise_delta_exact(p: Mapping, q: Mapping, epsilon: Number) -> Fraction:
    """Pointwise δ (TR Def. 2) as an exact fraction."""
    eps = epsilon_param(epsilon)
    P, Q = _exact_law(p), _exact_law(q)
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


def measure(p: Mapping, q: Mapping, epsilon: Number, definition: str = "hockey-stick") -> Certified:
    """δ of (p, q) at ε under the named definition, as an enclosure."""
    if definition == "hockey-stick":
        return delta_certified(p, q, epsilon)
    if definition == "pointwise":
        v = pointwise_delta_exact(p, q, epsilon)
        return Certified(v, v, "exact rational arithmetic")
    raise ValueError(f"definition must be one of {DEFINITIONS}, got {definition!r}")


def least_exp_for_delta(
    segments: Iterable[tuple[Fraction, Fraction, Fraction]], inf_mass: Fraction, d: Fraction
) -> Fraction | None:
    """Least x = e^ε ≥ 1 with δ(x) = inf_mass + Σ_{r > x} (a − x·b) ≤ d, exactly.

    ``segments`` are (r, a, b) with likelihood ratio r = a/b > 1 (P-mass a, Q-mass b of the
    outputs with that ratio).  Between consecutive ratios δ is A − x·B, decreasing in x, so the
    answer is a rational found by walking the ratios from the largest down.  None if even
    x = ∞ leaves more than d (mass at infinite loss).
    """
    if inf_mass > d:
        return None
    ordered = sorted(segments, key=lambda t: t[0], reverse=True)
    A, B = inf_mass, Fraction(0)
    for i, (_r, a, b) in enumerate(ordered):
        A += a
        B += b
        nxt = ordered[i + 1][0] if i + 1 < len(ordered) else Fraction(1)
        if A - nxt * B > d:  # the answer lies in [nxt, r]
            return max((A - d) / B, Fraction(1))
    return Fraction(1)


def _epsilon_one_direction(P: dict, Q: dict, d: Fraction) -> Fraction | None:
    """Least x = e^ε ≥ 1 with Σ_y max(0, P(y) − x Q(y)) ≤ d, exactly; None if none exists."""
    inf_mass = sum((pv for y, pv in P.items() if pv > 0 and Q.get(y, 0) == 0), Fraction(0))
    segments = [
        (pv / Q[y], pv, Q[y]) for y, pv in P.items() if pv > 0 and Q.get(y, 0) > 0 and pv > Q[y]
    ]
    return least_exp_for_delta(segments, inf_mass, d)


def epsilon(p: Mapping, q: Mapping, delta: Number = 0) -> mpmath.mpf:
    """Smallest ε ≥ 0 with hockey-stick δ(p, q, ε) ≤ ``delta`` (``mpmath.inf`` if none).

    The answer is ln of an exact rational; it is returned rounded up (a safe ε).
    """
    d = to_fraction(delta, "delta")
    if d < 0:
        raise ValueError(f"delta must be >= 0, got {delta}")
    P, Q = _exact_law(p), _exact_law(q)
    xs = [_epsilon_one_direction(P, Q, d), _epsilon_one_direction(Q, P, d)]
    if any(x is None for x in xs):
        return mpmath.inf
    return log_upper_mpf(max(xs))


def sdgs_delta_certified(
    k: Number, beta: Number, epsilon: Number, definition: str = "hockey-stick"
) -> Certified:
    """Exact worst case of sampled strongly-safe k-anonymization, as an enclosure."""
    from .params import in_paper_regime, k_param
    from .sdgs import scan_generic, scan_paper_regime

    kk = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    if definition not in DEFINITIONS:
        raise ValueError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    if eps > 0 and in_paper_regime(b, eps):
        return scan_paper_regime(kk, b, eps, measure=definition)
    return scan_generic(kk, b, eps, definition=definition)


def sdgs_delta(
    k: Number, beta: Number, epsilon: Number, definition: str = "hockey-stick"
) -> mpmath.mpf:
    """Exact worst-case δ, over all datasets and records, of sampled strongly-safe
    k-anonymization (the δ actually needed, versus the paper's upper bound ``bounds.d``).

    Valid for every ε ≥ 0; returned rounded up.  See :mod:`dps_verify.sdgs` for the reduction
    to one recoding group and the proven stopping rule.
    """
    return sdgs_delta_certified(k, beta, epsilon, definition).safe


def pairs(dataset: Sequence[Hashable], domain: Iterable[Hashable]) -> list[tuple[tuple, tuple]]:
    """All add/remove neighbours (D, D') of ``dataset`` over ``domain``: D' = D ± one record."""
    ds = tuple(dataset)
    out = []
    for r in set(ds):
        i = ds.index(r)
        out.append((ds, ds[:i] + ds[i + 1 :]))
    for r in domain:
        out.append((ds + (r,), ds))
    return out


__all__ = [
    "DEFINITIONS",
    "ExactDistribution",
    "delta",
    "delta_certified",
    "distribution",
    "epsilon",
    "measure",
    "pairs",
    "pointwise_delta",
    "pointwise_delta_exact",
    "randomized",
    "sdgs_delta",
    "sdgs_delta_certified",
]
