"""Datasets of the shapes that leak beyond small sizes, for every search: a DP claim covers datasets of every size, and a leak that needs many records is invisible to an exhaustive search over small ones.

The exhaustive search covers every dataset up to a size; faults that need larger or structured
datasets are searched here, on count vectors over the same atoms:

- ``crowd``: n copies of the target t (its group holds n records whatever the recoding);
- ``beside-bulk``: t next to n − 1 copies of another record;
- ``two-bulk`` / ``three-bulk``: t beside two or three large groups of different records, of
  equal and of off-by-one sizes (moves medians, ranks, min/max and the sort order: with bulks
  below and above t, adding t shifts the median split);
- sizes grow geometrically (1, 2, 3, 4, 6, 8, 12, …, up to ``max_records``) so that thresholds far
  above the exhaustive size are crossed, plus the group sizes around n_m = ⌈k/γ − 1⌉ (CP Thm 5,
  App. A.2) for every plausible k, where the safe mechanisms are tight.

Used by :func:`dps_verify.testing.assert_dp`, the Hypothesis strategy
:func:`dps_verify.testing.strategies.leak_shapes` and :func:`dps_verify.audit.audit`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from fractions import Fraction
from typing import Any

GEOMETRIC = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192)


def threshold_sizes(ks: Sequence[int], beta: Fraction, eps: Fraction) -> list[int]:
    """Group sizes around n_m(k) (or ⌈k/β⌉ outside CP Thm 5's regime) and k ± 1."""
    from dps_verify.core.params import in_paper_regime

    out: list[int] = []
    for k in ks:
        if 0 < beta < 1 and eps > 0 and in_paper_regime(beta, eps):
            from dps_verify.worstcase.sdgs import n_min

            nm = n_min(k, beta, eps)
        else:
            nm = max(k, math.ceil(k / beta))
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
    seen: set = set()

    def emit(shape: str, counts: dict[int, int], t: int) -> Iterator[tuple[str, dict[int, int], int]]:
        key = (tuple(sorted(counts.items())), t)
        cap = max_records if shape in ("crowd", "beside-bulk") else multi_cap
        if key not in seen and sum(counts.values()) <= cap:
            seen.add(key)
            yield shape, counts, t

    def partners(t: int) -> list[int]:
        out: dict[int, None] = {}
        for o in orders:
            p = o.index(t)
            for j in (p - 1, p + 1, 0, len(o) - 1, len(o) // 2, p - 2, p + 2):
                if 0 <= j < m and o[j] != t:
                    out.setdefault(o[j], None)
        return list(out)[:4]

    for t in targets:
        for n in sizes:
            yield from emit("crowd", {t: n}, t)
    for t in targets:
        for v in partners(t):
            for n in sizes:
                if n >= 2:
                    yield from emit("beside-bulk", {t: 1, v: n - 1}, t)
    bulk = [g for g in GEOMETRIC if g <= 24]
    for t in targets:
        ps = partners(t)
        pairs = [(a, b) for i, a in enumerate(ps) for b in ps[i + 1:]][:4]
        for v1, v2 in pairs:
            for g in bulk:
                for a, b in ((g, g), (g, g + 1), (g + 1, g), (g, 2 * g), (2 * g, g)):
                    yield from emit("two-bulk", {t: 1, v1: a, v2: b}, t)
        if len(ps) >= 3:
            v1, v2, v3 = ps[:3]
            for g in (g for g in bulk if g <= 8):
                yield from emit("three-bulk", {t: 1, v1: g, v2: g, v3: g}, t)
                yield from emit("three-bulk", {t: 1, v1: g, v2: g + 1, v3: g}, t)


__all__ = ["GEOMETRIC", "leak_shapes", "threshold_sizes"]
