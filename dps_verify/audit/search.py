"""Candidate neighbouring datasets for an audit: the shapes where the paper's mechanisms are weak.

CP App. A.2 shows that for a data-independent recoding only the target's recoding group matters,
and that the bad outcome is "j > γn of the n group members are sampled"; its mass is largest
for n near n_m = ⌈k/γ − 1⌉ and a few above (CP §3.3).  CP §3.1 shows that data-dependent
recodings (CLR, Mondrian) fail when one extreme record moves a boundary, and CP Prop. 4 that a
record alone in its group is exposed once its group can be published.  The generator below
builds datasets of exactly those shapes from the domain's records, most promising first:

- ``singleton``: D = {t}.
- ``crowd``: n copies of t (t's recoding group holds exactly n records, whatever the recoding);
  n ranges over the sizes around n_m(k') for every plausible threshold k'.
- ``beside-bulk``: t plus n − 1 copies of another record v.  If the recoding merges v with t
  this is again a group of n; if not, t is alone in its group next to a bulk; if t is an extreme
  value, the bulk's presence decides where a data-dependent boundary falls.
- ``outlier``: a bulk split between two records plus an extreme target (moves medians and
  ranges of Mondrian-like partitions).
- ``random``: seeded random multisets from the domain (coverage beyond the designed shapes).

The shapes themselves come from the one generator of :mod:`dps_verify.verdict.shapes` (the same
family builders the exhaustive tools' leak shapes use); this module chooses the audit's targets,
partners and sizes and turns each shape into a :class:`Candidate`.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.audit.domain import Domain
from dps_verify.verdict.shapes import (
    beside_bulks,
    crowds,
    generate,
    n_min_or_fallback,
    outliers,
    random_multisets,
    singletons,
)


@dataclass(frozen=True)
class Candidate:
    """A dataset D containing ``target``; its neighbour is D minus one copy of ``target``."""

    dataset: tuple
    target: Hashable
    shape: str

    @property
    def neighbour(self) -> tuple:
        ds = self.dataset
        i = ds.index(self.target)
        return ds[:i] + ds[i + 1 :]


def plausible_ks(anonymizer: object) -> list[int]:
    """Thresholds to aim the group sizes at: the anonymizer's own ``k``/``threshold`` (and their
    neighbours, for off-by-one bugs) when it exposes them, else 2..10."""
    ks: set[int] = set()
    for name in ("k", "threshold"):
        v = getattr(anonymizer, name, None)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            ks.update({v - 1, v, v + 1})
    if not ks:
        ks = set(range(2, 11))
    return sorted(x for x in ks if x >= 1)


def interesting_sizes(
    ks: Sequence[int], beta: Fraction, eps: Fraction, max_size: int, cheap: bool
) -> list[int]:
    """Group sizes n (target included) to try, most promising first.

    Around every n_m(k') the sizes n_m − 1 … n_m + 5 (CP §3.3: the maximum sits at n_m or one of
    the next local maxima); then small groups; then a spread up to ``max_size``.  When
    evaluation is cheap (a known sufficient statistic), every size up to the cap is included.
    """
    out: list[int] = []
    for k in ks:
        nm = n_min_or_fallback(k, beta, eps)
        out.extend(range(max(1, nm - 1), nm + 6))
        out.extend([k - 1, k, k + 1])
    out.extend(range(1, 7))
    out.extend([max_size // 4, max_size // 2, max_size])
    if cheap:
        out.extend(range(1, max_size + 1))
    seen: dict[int, None] = {}
    for n in out:
        if 1 <= n <= max_size:
            seen.setdefault(n, None)
    return list(seen)


def _numeric_positions(records: Sequence) -> list[int]:
    first = records[0]
    if not isinstance(first, tuple):
        return [-1] if all(isinstance(r, int | float) for r in records) else []
    pos = []
    for i in range(len(first)):
        if all(isinstance(r, tuple) and len(r) > i and isinstance(r[i], int | float)
               and not isinstance(r[i], bool) for r in records):
            pos.append(i)
    return pos


def _attr(r: Hashable, i: int) -> float:
    return float(r) if i == -1 else float(r[i])  # type: ignore[index,arg-type]


def extremes(records: Sequence) -> list:
    """Records attaining the minimum or maximum of some numeric attribute."""
    out: dict = {}
    for i in _numeric_positions(records):
        out.setdefault(min(records, key=lambda r: _attr(r, i)), None)
        out.setdefault(max(records, key=lambda r: _attr(r, i)), None)
    return list(out)


def _distance(a: Hashable, b: Hashable, spans: dict[int, float]) -> float:
    if not isinstance(a, tuple) or not isinstance(b, tuple):
        if -1 in spans:
            return abs(float(a) - float(b)) / spans[-1]  # type: ignore[arg-type]
        return 0.0 if a == b else 1.0
    d = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if i in spans:
            d += abs(float(x) - float(y)) / spans[i]
        else:
            d += 0.0 if x == y else 1.0
    return d


def candidates(
    domain: Domain,
    ks: Sequence[int],
    beta: Fraction,
    eps: Fraction,
    *,
    cheap: bool = False,
    seed: int | None = None,
    n_random: int = 20,
) -> Iterator[Candidate]:
    """Yield candidate datasets in priority order (duplicates removed), built by the one shape
    generator (:func:`dps_verify.verdict.shapes.generate`) with the audit's choices: targets
    at the extremes first, partners by distance, sizes around every n_m."""
    recs = list(domain.records)
    N = domain.max_size
    sizes = interesting_sizes(ks, beta, eps, N, cheap)
    ext = extremes(recs)
    spans = {}
    for i in _numeric_positions(recs):
        lo, hi = min(_attr(r, i) for r in recs), max(_attr(r, i) for r in recs)
        spans[i] = (hi - lo) or 1.0
    # Targets: extremes first, then the rest; bulk partners: nearest records and extremes.
    targets = ext + [r for r in recs if r not in ext]
    if len(targets) > 24:
        targets = targets[:24]
    partners: dict[Hashable, list] = {}
    for t in targets:
        near = sorted((r for r in recs if r != t), key=lambda r: _distance(t, r, spans))
        partners[t] = list(dict.fromkeys(near[:3] + [e for e in ext if e != t] + near[3:6]))
    triples = []
    if len(recs) >= 3:
        for t in ext:
            # Two bulk partners: non-extreme ones first, topped up from the other partners and
            # the rest of the domain (a target with exactly one non-extreme partner keeps the
            # shape instead of dropping it).
            pool = [r for r in partners[t] if r not in ext] + [r for r in partners[t] if r in ext]
            pool += [r for r in recs if r != t and r not in pool]
            if len(pool) >= 2:
                triples.append((t, pool[0], pool[1]))
    index = {r: i for i, r in enumerate(recs)}
    T = [index[t] for t in targets]
    near_ix = {index[t]: [index[v] for v in vs] for t, vs in partners.items()}
    items = itertools.chain(
        singletons(T), crowds(T, sizes), beside_bulks(T, near_ix, sizes),
        outliers([(index[t], index[a], index[b]) for t, a, b in triples], sizes),
        random_multisets(recs, N, n_random, 0 if seed is None else seed))
    for sh in generate(items, lambda _name: N):
        ds = tuple(recs[i] for i, c in sh.runs for _ in range(c))
        yield Candidate(ds, recs[sh.target], sh.name)


def enumeration_cost(dataset: Sequence, key: object | None) -> int:
    """Π(c_i + 1) over the count vector (by sufficient-statistic key when known): the number of
    sub-multisets :func:`dps_verify.exact.distribution` enumerates."""
    from collections import Counter

    f = key if callable(key) else (lambda r: r)
    cost = 1
    for c in Counter(f(r) for r in dataset).values():
        cost *= c + 1
    return cost
