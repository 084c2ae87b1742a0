"""The paper's k-anonymizers as anonymizers usable with :func:`dps_verify.exact.distribution`.

Each anonymizer is a callable ``sample -> output`` (deterministic) or an
:class:`~dps_verify.exact.randomized` wrapper (``sample -> {output: probability}``).  Outputs are
canonical, hashable multisets: sorted tuples of ``(value, count)`` pairs.

- :class:`StronglySafeKAnonymizer` — CP Def. 5: a fixed recoding g, then CP §3.2's Apply step
  (drop every generalized value that appears fewer than k times).
- :class:`EpsilonSafeKAnonymizer` — CP Def. 6 / Thm 6: the recoding is chosen by an exponential
  mechanism (ε₁-DP) from a finite family, then Apply.
- :class:`ClusterLocalRecoding`, :class:`Mondrian` — CP §3.1 Alg. 1 (CLR): data-dependent
  groups generalized to their ranges; the unsafe kind.

The illustrative mechanisms of CP §2 and the TR live in :mod:`dps_verify.mechanisms.examples`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number, to_fraction
from dps_verify.core.params import k_param
from dps_verify.engine.distribution import randomized

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
    such as an off-by-one ``threshold = k − 1``; it must be an integer ≥ 1 (``ParameterError``
    otherwise), so that :meth:`from_counts` and ``__call__`` agree.
    """

    def __init__(self, recode: Callable[[Any], Hashable], k: int, threshold: int | None = None):
        self.k = k_param(k)
        self.recode = recode
        if threshold is None:
            self.threshold = self.k
        else:
            try:
                self.threshold = k_param(threshold)
            except ValueError:
                # Below 1 every value, even one seen 0 times, would be "published" (CP §3.2
                # Apply needs a positive threshold).
                raise ParameterError(
                    f"threshold must be an integer >= 1 (CP §3.2 Apply step), got {threshold!r}"
                ) from None
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

    # Group-factorisation protocol (engine/protocol.py): the recoding is fixed, so
    # each generalized value's published count depends only on its own group's sample.
    def group_key(self, record: Any) -> Hashable:
        return self.recode(record)

    def group_law(self, size: int, beta: Fraction) -> dict:
        from dps_verify.engine.protocol import thresholded_count_law

        return thresholded_count_law(size, beta, self.threshold)

    def group_weights(self, size: int, beta: Fraction) -> tuple[dict, int]:
        """:meth:`group_law` as integer weights over one denominator (the product law's fast
        path for large groups, :mod:`dps_verify.engine.product_law`)."""
        from dps_verify.engine.product_law import thresholded_count_weights

        return thresholded_count_weights(size, beta, self.threshold)

    def assemble(self, parts: dict) -> Multiset:
        """Output from each group's part (its count, or None when suppressed); = from_counts."""
        return tuple(
            sorted(((g, c) for g, c in parts.items() if c is not None), key=lambda kv: repr(kv[0]))
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
            raise ParameterError("weight_base must be > 1")
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
            raise ParameterError("scores must return one integer per recoding")
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
        from dps_verify.engine.distribution import distribution

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
