"""The paper's mechanisms as anonymizers usable with :func:`dps_verify.exact.distribution`.

Each anonymizer is a callable ``sample -> output`` (deterministic) or an
:class:`~dps_verify.exact.randomized` wrapper (``sample -> {output: probability}``).  Outputs are
canonical, hashable multisets: sorted tuples of ``(value, count)`` pairs.

- :class:`StronglySafeKAnonymizer` — CP Def. 5: a fixed recoding g, then CP §3.2's Apply step
  (drop every generalized value that appears fewer than k times).
- :class:`EpsilonSafeKAnonymizer` — CP Def. 6 / Thm 6: the recoding is chosen by an exponential
  mechanism (ε₁-DP) from a finite family, then Apply.
- :class:`ClusterLocalRecoding`, :class:`Mondrian` — CP §3.1 Alg. 1 (CLR): data-dependent
  groups generalized to their ranges; the unsafe kind.
- :class:`KDuplication` — TR Alg. 1.  :class:`DeltaSampling` — TR Alg. 5.
- :class:`RandomizedResponse` — a classic ε-DP mechanism for tests of CP Thm 1.
- :func:`xor_pair` — CP §2.2's pair of algorithms that are private alone but not together.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

from .exact import randomized
from .numbers import Number, to_fraction
from .params import k_param

Multiset = tuple[tuple[Any, int], ...]


def as_multiset(values: Sequence[Hashable]) -> Multiset:
    """Canonical hashable multiset: sorted ``(value, count)`` pairs."""
    return tuple(sorted(Counter(values).items(), key=lambda kv: repr(kv[0])))


def apply_step(recode: Callable[[Any], Hashable], sample: Sequence, k: int) -> Multiset:
    """CP §3.2 Apply: recode every record, then suppress values seen fewer than k times."""
    counts = Counter(recode(r) for r in sample)
    return tuple(
        sorted(((g, c) for g, c in counts.items() if c >= k), key=lambda kv: repr(kv[0]))
    )


class StronglySafeKAnonymizer:
    """Strongly-safe k-anonymization (CP Def. 5): ``recode`` must not depend on the data.

    ``threshold`` overrides the suppression threshold (default k) — used by negative controls
    such as an off-by-one ``threshold = k − 1``.
    """

    def __init__(self, recode: Callable[[Any], Hashable], k: int, threshold: int | None = None):
        self.k = k_param(k)
        self.recode = recode
        self.threshold = self.k if threshold is None else int(threshold)
        # The output depends on the sample only through the multiset of recoded values.
        self.sufficient_statistic = recode

    def __call__(self, sample: Sequence) -> Multiset:
        return apply_step(self.recode, sample, self.threshold)

    def from_counts(self, counts: dict) -> Multiset:
        """The output from the number of sampled records per generalized value (fast path of
        :func:`~dps_verify.exact.distribution`; equal to ``self(sample)`` by construction)."""
        return tuple(
            sorted(((g, c) for g, c in counts.items() if c >= self.threshold), key=lambda kv: repr(kv[0]))
        )

    def __repr__(self) -> str:
        return f"StronglySafeKAnonymizer(k={self.k}, threshold={self.threshold})"


class EpsilonSafeKAnonymizer(randomized):
    """ε₁-safe k-anonymization (CP Def. 6): pick recoding i with probability ∝ w^{score_i(T)},
    then Apply.

    ``weight_base`` w is a rational > 1 so that the law stays exact; with integer scores of
    sensitivity Δ (a record changes any score by at most Δ), the choice is ε₁-DP for
    ε₁ = 2Δ·ln(w) (the exponential mechanism).  ``scores(sample)`` returns one integer per
    recoding.  The choice is made on the *sample*, as CP Def. 3 prescribes; see
    :meth:`choice_on_full_data` for the variant CP App. A.3 analyses.
    """

    def __init__(
        self,
        recodings: Sequence[Callable[[Any], Hashable]],
        scores: Callable[[tuple], Sequence[int]],
        k: int,
        weight_base: Number = 2,
        sensitivity: int = 1,
        reveal_choice: bool = False,
    ):
        self.recodings = list(recodings)
        self.scores = scores
        self.k = k_param(k)
        self.w = to_fraction(weight_base, "weight_base")
        if self.w <= 1:
            raise ValueError("weight_base must be > 1")
        self.sensitivity = sensitivity
        self.reveal_choice = reveal_choice
        super().__init__(self._law)
        self.sufficient_statistic = None

    @property
    def epsilon1(self) -> float:
        """ε₁ = 2Δ ln w of the exponential mechanism (float, for display)."""
        return 2 * self.sensitivity * math.log(self.w)

    def choice_law(self, data: tuple) -> list[Fraction]:
        s = list(self.scores(data))
        if len(s) != len(self.recodings):
            raise ValueError("scores must return one integer per recoding")
        base = min(s)
        weights = [self.w ** (si - base) for si in s]
        total = sum(weights)
        return [wi / total for wi in weights]

    def _law(self, sample: tuple) -> dict:
        out: dict = {}
        for i, pr in enumerate(self.choice_law(sample)):
            table = apply_step(self.recodings[i], sample, self.k)
            y = (i, table) if self.reveal_choice else table
            out[y] = out.get(y, Fraction(0)) + pr
        return out

    def choice_on_full_data(self, dataset: Sequence, beta: Number) -> dict:
        """Exact output law when the recoding is chosen on the unsampled dataset (CP App. A.3's
        factorisation Σ_g Pr[A_m(D)=g]·Pr[g(Λ_β(D)) = S])."""
        from .exact import distribution

        out: dict = {}
        for i, pr in enumerate(self.choice_law(tuple(dataset))):
            inner = StronglySafeKAnonymizer(self.recodings[i], self.k)
            for y, q in distribution(inner, dataset, beta).exact.items():
                key = (i, y) if self.reveal_choice else y
                out[key] = out.get(key, Fraction(0)) + pr * q
        return out


def _ranges(records: Sequence[tuple]) -> tuple:
    """Per-attribute (min, max) of a group of numeric tuples."""
    return tuple((min(col), max(col)) for col in zip(*records))


def _as_tuple(r: Any) -> tuple:
    return r if isinstance(r, tuple) else (r,)


class ClusterLocalRecoding:
    """CP §3.1 Alg. 1 (CLR) in its simplest form: sort the sample, cut it into clusters of k
    consecutive records (the last absorbs the remainder), and publish every record as its
    cluster's per-attribute range.  A sample with fewer than k records publishes nothing."""

    sufficient_statistic = None

    def __init__(self, k: int):
        self.k = k_param(k)

    def __call__(self, sample: Sequence) -> Multiset:
        recs = sorted(_as_tuple(r) for r in sample)
        if len(recs) < self.k:
            return ()
        n_clusters = len(recs) // self.k
        out = []
        for c in range(n_clusters):
            lo = c * self.k
            hi = len(recs) if c == n_clusters - 1 else lo + self.k
            g = _ranges(recs[lo:hi])
            out.extend([g] * (hi - lo))
        return as_multiset(out)


class Mondrian:
    """Mondrian multidimensional partitioning (LeFevre et al. 2006, cited as CP [21]): split on
    the attribute of widest range at the median while both halves keep ≥ k records; publish each
    record as its partition's per-attribute range (CLR, CP §3.1)."""

    sufficient_statistic = None

    def __init__(self, k: int):
        self.k = k_param(k)

    def _split(self, part: list[tuple]) -> list[list[tuple]]:
        dims = len(part[0])
        order = sorted(range(dims), key=lambda a: -(max(r[a] for r in part) - min(r[a] for r in part)))
        for a in order:
            vals = sorted(r[a] for r in part)
            median = vals[len(vals) // 2]
            left = [r for r in part if r[a] < median]
            right = [r for r in part if r[a] >= median]
            if len(left) >= self.k and len(right) >= self.k:
                return self._split(left) + self._split(right)
        return [part]

    def __call__(self, sample: Sequence) -> Multiset:
        recs = [_as_tuple(r) for r in sample]
        if len(recs) < self.k:
            return ()
        out = []
        for part in self._split(recs):
            out.extend([_ranges(part)] * len(part))
        return as_multiset(out)


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
            raise ValueError("delta must be in [0, 1]")
        super().__init__(self._law)
        self.sufficient_statistic = None

    def _law(self, sample: tuple) -> dict:
        from .exact import distribution

        return dict(distribution(as_multiset, sample, self.delta).exact) if sample else {(): 1}


class RandomizedResponse(randomized):
    """Each record's bit is reported truthfully with probability ``p_truth`` (> 1/2), flipped
    otherwise; the output is the number of reported ones.  ln(p/(1−p))-DP under replace-one
    neighbours; under add/remove (the paper's relation) the count itself reveals the size, so
    compare datasets of equal size or use it only as a per-record randomizer."""

    def __init__(self, p_truth: Number = Fraction(3, 4)):
        self.p = to_fraction(p_truth, "p_truth")
        if not Fraction(1, 2) <= self.p <= 1:
            raise ValueError("p_truth must be in [1/2, 1]")
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


def xor_pair(target: Hashable) -> tuple[Callable, Callable, Callable]:
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
) -> tuple[Callable, Callable, Callable]:
    """CP §2.6's pair on records ``(gender, name)`` with gender in {"M", "F"}.

    A₁ publishes (more men than women) XOR (``target`` is present) when the dataset has at least
    ``min_size`` records, and ``False`` otherwise.  A₂ publishes whether the male count minus the
    female count, plus discrete Laplace noise Pr[Z = z] ∝ α^{|z|}, is ≥ 0 — post-processing of an
    ln(1/α)-DP count, so A₂ is ln(1/α)-DP.  Returns (A₁, A₂, both published together); A₂ and
    the pair are :class:`~dps_verify.exact.randomized`.
    """
    a = to_fraction(alpha, "alpha")
    if not 0 < a < 1:
        raise ValueError("alpha must be in (0, 1)")

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
