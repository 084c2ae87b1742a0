"""The one generator of leaking dataset shapes, for every search.

The exhaustive search covers every dataset up to a size; faults that need larger or structured
datasets are searched on *shapes*: a target value t beside a few bulks of other values.  Every
search builds them here (:func:`generate` over the family builders below), each with its own
choice of targets, partners and sizes:

- :func:`leak_shapes` — :func:`dps_verify.testing.assert_dp`, the audit's second pass and the
  Hypothesis strategy :func:`dps_verify.testing.strategies.leak_shapes`: cheapest first, sizes
  growing geometrically (1, 2, 3, 4, 6, 8, 12, …, up to ``max_records``) plus the group sizes
  around n_m = ⌈k/γ − 1⌉ (CP Thm 5, App. A.2) for every plausible k, where the safe mechanisms
  are tight; targets and partners by the values' numeric order (moves medians, ranks, min/max);
- the audit's candidates (:func:`dps_verify.audit.search.candidates`): most promising first,
  targets at the extremes, partners by distance, an outlier beside a split bulk, seeded random
  multisets.

Families (a shape lists its runs ``(value index, count)`` in the order its dataset lists them,
the target first):

- ``singleton``: {t};
- ``crowd``: n copies of t (t's recoding group holds n records whatever the recoding);
- ``beside-bulk``: t next to n − 1 copies of another value;
- ``outlier``: t beside a bulk split between two values;
- ``two-bulk`` / ``three-bulk``: t beside two or three large groups of different values, of
  equal and of off-by-one sizes (with bulks below and above t, adding t shifts the median);
- ``random``: a seeded random multiset (coverage beyond the designed shapes).

A shape is emitted once (the same counts and target are not repeated across families), and only
within the size cap of its family.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

GEOMETRIC = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192)


def n_min_or_fallback(k: int, beta: Fraction, eps: Fraction) -> int:
    """n_m(k, β, ε) = ⌈k/γ − 1⌉ (CP Thm 5) in the paper's regime, else ⌈k/β⌉ (the expected-size
    point where a group of n starts to be published)."""
    from dps_verify.core.params import in_paper_regime

    if 0 < beta < 1 and eps > 0 and in_paper_regime(beta, eps):
        from dps_verify.worstcase.sdgs import n_min

        return n_min(k, beta, eps)
    return max(k, math.ceil(k / beta))


def threshold_sizes(ks: Sequence[int], beta: Fraction, eps: Fraction) -> list[int]:
    """Group sizes around n_m(k) (or ⌈k/β⌉ outside CP Thm 5's regime) and k ± 1."""
    out: list[int] = []
    for k in ks:
        nm = n_min_or_fallback(k, beta, eps)
        out.extend(range(max(1, nm - 1), nm + 4))
        out.extend((k - 1, k, k + 1))
    return sorted({n for n in out if n >= 1})


def _order_keys(values: Sequence[Any]) -> list[list[int]]:
    """Orders of the atoms by each numeric attribute (or by repr when none is numeric)."""
    def num(v: object) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)

    orders = []
    if all(num(v) for v in values):
        orders.append(sorted(range(len(values)), key=lambda i: values[i]))
    elif all(isinstance(v, tuple) for v in values) and values:
        width = min(len(v) for v in values)
        for a in range(width):
            if all(num(v[a]) for v in values):
                def attr(i: int, a: int = a) -> Any:
                    return values[i][a]

                orders.append(sorted(range(len(values)), key=attr))
    if not orders:
        orders.append(sorted(range(len(values)), key=lambda i: repr(values[i])))
    return orders


Runs = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Shape:
    """A dataset of one family: ``runs`` lists (value index, count), the target's first."""

    name: str
    runs: Runs
    target: int

    @property
    def size(self) -> int:
        return sum(c for _, c in self.runs)

    def counts(self) -> dict[int, int]:
        return dict(self.runs)


def generate(items: Iterable[tuple[str, Runs, int]], cap: Callable[[str], int]) -> Iterator[Shape]:
    """The shapes of ``items`` (family name, runs, target), each (counts, target) once, within
    ``cap(family)`` records (at least one)."""
    seen: set = set()
    for name, runs, t in items:
        key = (tuple(sorted(runs)), t)
        n = sum(c for _, c in runs)
        if key not in seen and 1 <= n <= cap(name):
            seen.add(key)
            yield Shape(name, runs, t)


def singletons(targets: Iterable[int]) -> Iterator[tuple[str, Runs, int]]:
    for t in targets:
        yield "singleton", ((t, 1),), t


def crowds(targets: Iterable[int], sizes: Sequence[int]) -> Iterator[tuple[str, Runs, int]]:
    for t in targets:
        for n in sizes:
            yield "crowd", ((t, n),), t


def beside_bulks(targets: Iterable[int], partners: Mapping[int, Sequence[int]],
                 sizes: Sequence[int]) -> Iterator[tuple[str, Runs, int]]:
    for t in targets:
        for v in partners[t]:
            for n in sizes:
                if n >= 2:
                    yield "beside-bulk", ((t, 1), (v, n - 1)), t


def outliers(triples: Iterable[tuple[int, int, int]],
             sizes: Sequence[int]) -> Iterator[tuple[str, Runs, int]]:
    """t beside n − 1 records split between v1 and v2, for each (t, v1, v2)."""
    for t, v1, v2 in triples:
        for n in sizes:
            a = (n - 1) // 2
            b = n - 1 - a
            if a >= 1 and b >= 1:
                yield "outlier", ((t, 1), (v1, a), (v2, b)), t


def multi_bulks(targets: Iterable[int], partners: Mapping[int, Sequence[int]],
                bulk: Sequence[int]) -> Iterator[tuple[str, Runs, int]]:
    """Per target: t beside two bulks (the first four partner pairs; equal, off-by-one and
    doubled sizes), then beside three (sizes up to 8)."""
    for t in targets:
        ps = partners[t]
        pairs = [(a, b) for i, a in enumerate(ps) for b in ps[i + 1:]][:4]
        for v1, v2 in pairs:
            for g in bulk:
                for a, b in ((g, g), (g, g + 1), (g + 1, g), (g, 2 * g), (2 * g, g)):
                    yield "two-bulk", ((t, 1), (v1, a), (v2, b)), t
        if len(ps) >= 3:
            v1, v2, v3 = ps[:3]
            for g in (g for g in bulk if g <= 8):
                yield "three-bulk", ((t, 1), (v1, g), (v2, g), (v3, g)), t
                yield "three-bulk", ((t, 1), (v1, g), (v2, g + 1), (v3, g)), t


def random_multisets(values: Sequence[Hashable], max_size: int, draws: int,
                     seed: int) -> Iterator[tuple[str, Runs, int]]:
    """``draws`` seeded random multisets of 1..``max_size`` values (runs in repr order) and a
    random target among them."""
    import random

    rng = random.Random(seed)
    index = range(len(values))
    for _ in range(draws):
        size = rng.randint(1, max_size)
        ds = [rng.choice(index) for _ in range(size)]
        t = rng.choice(ds)
        ordered = sorted(ds, key=lambda i: repr(values[i]))
        runs: list[tuple[int, int]] = []
        for i in ordered:
            if runs and runs[-1][0] == i:
                runs[-1] = (i, runs[-1][1] + 1)
            else:
                runs.append((i, 1))
        yield "random", tuple(runs), t


def leak_shapes(
    values: Sequence[Hashable],
    *,
    ks: Sequence[int] = (2, 3, 4, 5),
    beta: Fraction = Fraction(1, 2),
    eps: Fraction = Fraction(1),
    max_records: int = 96,
    max_targets: int = 6,
    max_multi: int | None = None,
) -> Iterator[tuple[str, dict[int, int], int]]:
    """Yield ``(shape, counts {atom: count}, target atom)``, cheapest first within each family.

    ``values`` are the atoms' records (used for their numeric order only).  ``crowd`` and
    ``beside-bulk`` grow geometrically up to ``max_records`` (cheap: a dataset of n records
    in one or two values has at most 2n sub-samples); the multi-bulk shapes stop at
    ``max_multi`` records (default ``max_records``).
    """
    multi_cap = max_records if max_multi is None else min(max_multi, max_records)
    m = len(values)
    orders = _order_keys(values)
    targets: dict[int, None] = {}
    for o in orders:
        for i in (o[0], o[-1], o[len(o) // 2], o[(len(o) - 1) // 2]):
            targets.setdefault(i, None)
    for i in range(m):
        if len(targets) >= max_targets:
            break
        targets.setdefault(i, None)
    sizes = sorted({n for n in GEOMETRIC if n <= max_records}
                   | {n for n in threshold_sizes(ks, beta, eps) if n <= max_records})

    def partners(t: int) -> list[int]:
        out: dict[int, None] = {}
        for o in orders:
            p = o.index(t)
            for j in (p - 1, p + 1, 0, len(o) - 1, len(o) // 2, p - 2, p + 2):
                if 0 <= j < m and o[j] != t:
                    out.setdefault(o[j], None)
        return list(out)[:4]

    near = {t: partners(t) for t in targets}
    bulk = [g for g in GEOMETRIC if g <= 24]
    items = itertools.chain(crowds(targets, sizes), beside_bulks(targets, near, sizes),
                            multi_bulks(targets, near, bulk))

    def cap(name: str) -> int:
        return max_records if name in ("crowd", "beside-bulk") else multi_cap

    for sh in generate(items, cap):
        yield sh.name, sh.counts(), sh.target


__all__ = ["GEOMETRIC", "Shape", "beside_bulks", "crowds", "generate", "leak_shapes", "multi_bulks",
           "n_min_or_fallback", "outliers", "random_multisets", "singletons", "threshold_sizes"]
