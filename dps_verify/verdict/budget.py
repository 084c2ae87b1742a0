"""A time budget for a PASS: measure what one call of the anonymizer costs, then pick the largest
search that fits, and say what was covered.

A PASS of :func:`dps_verify.testing.assert_dp` is a finite search: every dataset up to a size
(the exhaustive search) and structured datasets up to a number of records (the leak shapes).
For a cheap deterministic anonymizer both fit easily; a randomized anonymizer (its exact law on
each sample, sometimes thousands of outputs) or a pipeline that samples by itself (its law on a
96-record sample can be very large) can take many minutes.  So, before searching:

1. :func:`probe` anonymizes a few samples of growing size (spread over all values for the
   exhaustive sizes, over three values for the shapes, which hold at most four), timing each
   call in CPU seconds of this process and recording its output-law size; probing stops early
   when the next call is predicted to be expensive.  The probed laws go into the shared
   :class:`~dps_verify.engine.count_vectors.SampleMemo`, so no call is wasted.
2. :func:`plan` predicts the cost of the exhaustive search up to each size and of the leak
   shapes up to each number of records (samples to anonymize × cost per call, plus the screen's
   enumeration terms × law size) and picks the largest sizes whose sum fits the budget.

The estimate is a prediction, not a guarantee (timings vary with load); the report states the
sizes actually covered, the budget and the probe, so a PASS always says exactly what it checked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dps_verify.core.errors import AuditedCodeError
from dps_verify.engine.count_vectors import SampleMemo, SampleTable

#: CPU seconds a PASS of assert_dp may spend on the exhaustive search and the leak shapes by
#: default (probe included); the Hypothesis phase and recognition come on top (a few seconds).
DEFAULT_TIME_BUDGET = 20.0
#: Share of the budget for the exhaustive search (the rest goes to the leak shapes).
EXHAUSTIVE_SHARE = 0.4
#: CPU seconds per enumeration term of the float screen, per output of the law (calibrated on
#: the project's examples, rounded up).
SECONDS_PER_TERM = 2e-8
#: A probe call predicted to take longer than this share of the budget is not made.
PROBE_SHARE = 0.05


@dataclass
class CallCost:
    """Measured cost of the anonymizer: per probed sample size, CPU seconds of one call and
    the number of outputs of its law."""

    sizes: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def add(self, n: int, seconds: float, outputs: int) -> None:
        self.sizes.append(n)
        self.seconds.append(seconds)
        self.outputs.append(outputs)

    def _at(self, n: int, values: Sequence[float]) -> float:
        """The value at the smallest probed size ≥ n (a monotone envelope); beyond the largest
        probed size, extrapolated quadratically in n (conservative for the laws seen)."""
        if not self.sizes:
            return 0.0
        best = None
        for s, v in sorted(zip(self.sizes, values)):
            if s >= n:
                best = v if best is None else max(best, v)
                break
        env = max((v for s, v in zip(self.sizes, values) if s <= n), default=0.0)
        if best is not None:
            return max(best, env)
        top = max(self.sizes)
        vtop = max(v for s, v in zip(self.sizes, values) if s == top)
        return max(env, vtop * (n / max(top, 1)) ** 2)

    def per_call(self, n: int) -> float:
        return self._at(n, self.seconds)

    def law_size(self, n: int) -> float:
        return max(1.0, self._at(n, [float(o) for o in self.outputs]))

    def describe(self) -> str:
        parts = [f"{s} records: {t * 1e3:.3g} ms, {o} outputs"
                 for s, t, o in sorted(zip(self.sizes, self.seconds, self.outputs))]
        return "one call measured at " + "; ".join(parts) if parts else "no call measured"


def _spread(m: int, n: int, atoms: Sequence[int]) -> list[int]:
    """A count vector of n records spread round-robin over ``atoms``."""
    c = [0] * m
    for j in range(n):
        c[atoms[j % len(atoms)]] += 1
    return c


def probe(table: SampleTable, exhaustive_size: int, shape_records: int,
          budget: float) -> CallCost:
    """Time one call of the anonymizer on a sample of each probed size (CPU seconds), through
    ``table`` (so the laws are kept in its memo).  Exhaustive sizes use samples spread over
    every value; shape sizes (doubling up to ``shape_records``) over three values.  A call whose
    predicted cost (from the growth seen so far) exceeds :data:`PROBE_SHARE` of ``budget`` is
    not made."""
    m = table.atoms.m
    cost = CallCost()
    wide = list(range(m))
    narrow = sorted({0, m // 2, m - 1})
    plan_sizes: list[tuple[int, list[int]]] = [
        (n, wide) for n in sorted({max(1, exhaustive_size // 2), exhaustive_size}) if n >= 1]
    n = 2
    while n < shape_records:
        if n > exhaustive_size:
            plan_sizes.append((n, narrow))
        n *= 2
    if shape_records > exhaustive_size:
        plan_sizes.append((shape_records, narrow))
    limit = PROBE_SHARE * budget
    prev: tuple[int, float] | None = None
    for n, over in plan_sizes:
        if n >= table.radix:
            break
        if prev is not None and prev[1] > 0:
            growth = max(1.0, (n / max(prev[0], 1)) ** 2)
            if prev[1] * growth > limit:
                break
        # up to three samples of this size (the values rotated): the fastest call (a shared
        # machine only adds time to a call) and the largest law
        samples = {tuple(_spread(m, n, over[r:] + over[:r])) for r in range(min(3, len(over)))}
        dt, outs = math.inf, 0
        for c in sorted(samples):
            t0 = time.process_time()
            row = table.row(list(c))
            dt = min(dt, time.process_time() - t0)
            outs = max(outs, len(table.row_law[row]))
        cost.add(n, dt, outs)
        prev = (n, dt)
    return cost


@dataclass
class Plan:
    """Sizes chosen for the budget, with the predicted CPU seconds of each part."""

    exhaustive_size: int
    shape_records: int
    predicted_exhaustive: float
    predicted_shapes: float
    budget: float
    cost: CallCost

    def describe(self, asked_size: int, asked_records: int) -> str:
        cut = []
        if self.exhaustive_size < asked_size:
            cut.append(f"exhaustive search up to {self.exhaustive_size} records (asked "
                       f"{asked_size})")
        if self.shape_records < asked_records:
            cut.append(f"leak shapes up to {self.shape_records} records (asked {asked_records})")
        what = "; ".join(cut) if cut else "every size asked"
        return (f"time budget {self.budget:g} s CPU: {what}; predicted "
                f"{self.predicted_exhaustive:.3g} s exhaustive + {self.predicted_shapes:.3g} s "
                f"shapes ({self.cost.describe()})")


def exhaustive_seconds(cost: CallCost, m: int, n: int, work_terms: int) -> float:
    """Predicted CPU seconds of the exhaustive search up to n records over m values: every
    sample of ≤ n records anonymized once, plus the screen's terms × law size."""
    calls = sum(math.comb(k + m - 1, m - 1) * cost.per_call(k) for k in range(n + 1))
    return calls + work_terms * cost.law_size(n) * SECONDS_PER_TERM


def shape_seconds(cost: CallCost, shapes: Sequence[tuple[int, dict[int, int]]],
                  beta: Fraction, m: int) -> Iterator[tuple[int, float]]:
    """Cumulative predicted CPU seconds of the leak shapes by size (ascending): the *new*
    samples each size needs (sub-samples not needed by a smaller shape, for β < 1, counted
    exactly on integer keys; the dataset and its neighbours for β = 1) × the cost per call at
    that size, plus the screen's terms × law size.  Lazy: a caller that stops early does not
    pay for the larger sizes."""
    import numpy as np

    by_size: dict[int, list[dict[int, int]]] = {}
    for n, counts in shapes:
        by_size.setdefault(n, []).append(counts)
    radix = max((n for n, _ in shapes), default=1) + 1
    exact_keys = beta != 1 and radix ** m < 2**62
    pw = np.array([radix**i for i in range(m)], dtype=np.int64) if exact_keys else None
    seen = np.zeros(0, dtype=np.int64)
    acc = 0.0
    for n in sorted(by_size):
        terms = 0
        level_keys = []
        new = 0
        for counts in by_size[n]:
            keys = [a for a, c in counts.items() if c]
            corner = [counts[a] + 1 for a in keys]
            terms += math.prod(corner) * (len(keys) + 1)
            if beta == 1:
                new += 1 + len(keys)
            elif pw is not None:
                grid = np.indices(corner).reshape(len(keys), -1)
                level_keys.append(pw[keys] @ grid)
            else:
                new += math.prod(corner)
        if level_keys:
            cand = np.unique(np.concatenate(level_keys))
            fresh = cand[~np.isin(cand, seen)]
            new += len(fresh)
            seen = np.union1d(seen, fresh)
        acc += new * cost.per_call(n) + terms * cost.law_size(n) * SECONDS_PER_TERM
        yield n, acc


def plan_pass(
    anonymizer: object,
    domain: Sequence,
    *,
    beta: Fraction,
    eps: Fraction,
    max_size: int,
    max_records: int,
    budget: float,
    memo: SampleMemo,
    ks: Sequence[int] | None = None,
) -> Plan:
    """Probe the anonymizer and choose the exhaustive size (≤ ``max_size``, at least 1) and the
    leak-shape records (≤ ``max_records``, at least the exhaustive size) that fit ``budget``
    CPU seconds: :data:`EXHAUSTIVE_SHARE` of it for the exhaustive search, what is left after
    the probe and the predicted exhaustive search for the shapes."""
    from dps_verify.engine.count_vectors import Atoms
    from dps_verify.verdict.exact_search import estimate_work
    from dps_verify.verdict.shapes import leak_shapes

    t0 = time.process_time()
    full = Plan(max_size, max_records, 0.0, 0.0, budget, CallCost())
    try:
        atoms = Atoms(anonymizer, domain)
        # one plain call per probed sample (a spot check would triple the time measured)
        table = SampleTable(anonymizer, atoms, radix=max(max_records, max_size) + 1, memo=memo,
                            spot_checks=False)
        cost = probe(table, max_size, max_records, budget)
    except AuditedCodeError:
        # a fault of the audited code is the search's to report, on its own smallest sample
        # (never a verdict): no plan, every size asked
        return full
    m = atoms.m
    par = not table.is_randomized
    size, pred_exh = 1, exhaustive_seconds(cost, m, 1, estimate_work(m, 1, par))
    for n in range(2, max_size + 1):
        t = exhaustive_seconds(cost, m, n, estimate_work(m, n, par))
        if t > EXHAUSTIVE_SHARE * budget:
            break
        size, pred_exh = n, t
    if ks is None:
        ks = sorted({v for name in ("k", "threshold") for v in [getattr(anonymizer, name, None)]
                     if isinstance(v, int) and v >= 1} or {2, 3, 4, 5})
    shapes = [(sum(c.values()), c)
              for _s, c, _t in leak_shapes(atoms.values, ks=ks, beta=beta, eps=eps,
                                           max_records=max_records)]
    left = budget - (time.process_time() - t0) - pred_exh
    records, pred_sh = size, 0.0
    for n, acc in shape_seconds(cost, shapes, beta, m):
        if acc > left:
            break
        if n > records:
            records = n
        pred_sh = acc
    return Plan(size, max(records, size), pred_exh, pred_sh, budget, cost)


__all__ = ["DEFAULT_TIME_BUDGET", "CallCost", "Plan", "exhaustive_seconds", "plan_pass",
           "probe", "shape_seconds"]
