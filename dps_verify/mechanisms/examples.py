"""Illustrative mechanisms of the paper, as anonymizers.

- :class:`KDuplication` — TR Alg. 1.  :class:`DeltaSampling` — TR Alg. 5.
- :class:`RandomizedResponse` — a classic ε-DP mechanism for tests of CP Thm 1.
- :func:`xor_pair` — CP §2.2's pair of algorithms that are private alone but not together.
- :func:`gender_pair` — CP §2.6's pair of releases on one shared sample.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from itertools import product

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number, to_fraction
from dps_verify.core.params import k_param
from dps_verify.engine.distribution import randomized
from dps_verify.mechanisms.k_anonymization import as_multiset


class KDuplication(randomized):
    """TR Alg. 1 (k-duplication): cut the sorted sample into clusters of k, pick one record of
    each cluster uniformly at random and publish it k times.  k-anonymous, yet it publishes
    real records."""

    def __init__(self, k: int):
        self.k = k_param(k)
        super().__init__(self._law)
        self.sufficient_statistic = None

    def _law(self, sample: tuple) -> dict:
        recs = sorted(sample, key=repr)
        n_clusters = len(recs) // self.k
        if n_clusters == 0:
            return {(): Fraction(1)}
        clusters = [
            recs[c * self.k : (len(recs) if c == n_clusters - 1 else (c + 1) * self.k)]
            for c in range(n_clusters)
        ]
        out: dict = {}
        for picks in product(*clusters):
            pr = Fraction(1)
            for cl in clusters:
                pr /= len(cl)
            y = as_multiset([r for r in picks for _ in range(self.k)])
            out[y] = out.get(y, Fraction(0)) + pr
        return out


class DeltaSampling(randomized):
    """TR Alg. 5 (δ-sampling): publish each record unchanged with probability δ."""

    def __init__(self, delta: Number):
        self.delta = to_fraction(delta, "delta")
        if not 0 <= self.delta <= 1:
            raise ParameterError("delta must be in [0, 1]")
        super().__init__(self._law)
        self.sufficient_statistic = None

    def _law(self, sample: tuple) -> dict:
        from dps_verify.engine.distribution import distribution

        return dict(distribution(as_multiset, sample, self.delta).exact) if sample else {(): 1}


class RandomizedResponse(randomized):
    """Each record's bit is reported truthfully with probability ``p_truth`` (> 1/2), flipped
    otherwise; the output is the number of reported ones.  ln(p/(1−p))-DP under replace-one
    neighbours; under add/remove (the paper's relation) the count itself reveals the size, so
    compare datasets of equal size or use it only as a per-record randomizer."""

    def __init__(self, p_truth: Number = Fraction(3, 4)):
        self.p = to_fraction(p_truth, "p_truth")
        if not Fraction(1, 2) <= self.p <= 1:
            raise ParameterError("p_truth must be in [1/2, 1]")
        super().__init__(self._law)
        self.sufficient_statistic = lambda r: bool(r)

    def _law(self, sample: tuple) -> dict:
        law = {0: Fraction(1)}
        for bit in sample:
            p1 = self.p if bit else 1 - self.p
            nxt: dict = {}
            for c, pr in law.items():
                nxt[c + 1] = nxt.get(c + 1, Fraction(0)) + pr * p1
                nxt[c] = nxt.get(c, Fraction(0)) + pr * (1 - p1)
            law = nxt
        return {c: pr for c, pr in law.items() if pr}


def xor_pair(
    target: Hashable,
) -> tuple[Callable[[tuple], bool], Callable[[tuple], bool], Callable[[tuple], tuple[bool, bool]]]:
    """CP §2.2: A₁ publishes whether the dataset size is odd; A₂ publishes that bit XOR "the
    target record is present".  Returns (A₁, A₂, A₁ and A₂ published together)."""

    def a1(sample: tuple) -> bool:
        return len(sample) % 2 == 1

    def a2(sample: tuple) -> bool:
        return (len(sample) % 2 == 1) ^ (target in sample)

    def both(sample: tuple) -> tuple[bool, bool]:
        return a1(sample), a2(sample)

    return a1, a2, both


def two_sided_geometric_tail(c: int, alpha: Fraction) -> Fraction:
    """Pr[c + Z ≥ 0] for Z two-sided geometric, Pr[Z = z] ∝ α^{|z|} (the discrete Laplace law)."""
    if c >= 0:
        return 1 - alpha ** (c + 1) / (1 + alpha)
    return alpha ** (-c) / (1 + alpha)


def gender_pair(
    target: Hashable, min_size: int = 4, alpha: Number = Fraction(1, 2)
) -> tuple[Callable[[tuple], bool], randomized, randomized]:
    """CP §2.6's pair on records ``(gender, name)`` with gender in {"M", "F"}.

    A₁ publishes (more men than women) XOR (``target`` is present) when the dataset has at least
    ``min_size`` records, and ``False`` otherwise.  A₂ publishes whether the male count minus the
    female count, plus discrete Laplace noise Pr[Z = z] ∝ α^{|z|}, is ≥ 0 — post-processing of an
    ln(1/α)-DP count, so A₂ is ln(1/α)-DP.  Returns (A₁, A₂, both published together); A₂ and
    the pair are :class:`~dps_verify.exact.randomized`.
    """
    a = to_fraction(alpha, "alpha")
    if not 0 < a < 1:
        raise ParameterError("alpha must be in (0, 1)")

    def a1(sample: tuple) -> bool:
        if len(sample) < min_size:
            return False
        men = sum(1 for g, _ in sample if g == "M")
        return (men > len(sample) - men) ^ (target in sample)

    def a2_law(sample: tuple) -> dict:
        men = sum(1 for g, _ in sample if g == "M")
        p = two_sided_geometric_tail(2 * men - len(sample), a)
        return {True: p, False: 1 - p}

    def both_law(sample: tuple) -> dict:
        first = a1(sample)
        return {(first, y): pr for y, pr in a2_law(sample).items()}

    return a1, randomized(a2_law), randomized(both_law)
