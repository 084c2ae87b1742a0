"""What each frontier point buys on a table: exact expected published records for the smallest k
under each measure and for ARX's k, and the gain of the exact k over the paper's and ARX's.

**Data dependence.**  These numbers are computed on the table itself.  CP Thm 5's guarantee is
for a recoding and parameters fixed independently of the data; choosing β, k or the recoding by
looking at these numbers on the same table is a data-dependent choice that CP Thm 5 does not
cover (:data:`dps_verify.plan.report.DATA_DEPENDENCE_WARNING`).  ``--select-with EPS1``
(:mod:`dps_verify.plan.select`) makes that choice with privacy instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.core.types import BoundLike
from dps_verify.plan.frontier import Frontier, FrontierRow
from dps_verify.plan.recoding import Recoding
from dps_verify.plan.table import Table, group_sizes, size_histogram
from dps_verify.plan.utility import expected_published

ARX = "arx"


@dataclass(frozen=True)
class RowValue:
    """One β: the k of each measure (and ARX's) and the exact expected published records."""

    row: FrontierRow
    ks: dict[str, int]
    expected: dict[str, Fraction]

    def gain(self, better: str, than: str) -> Fraction | None:
        if better in self.expected and than in self.expected:
            return self.expected[better] - self.expected[than]
        return None


@dataclass(frozen=True)
class TableUtility:
    """The utility part of a plan for one table and one recoding."""

    data_path: str
    recoding: str
    qi: tuple[str, ...]
    records: int
    dropped_missing: int
    groups: int
    histogram: Counter[int]
    rows: tuple[RowValue, ...]

    def best(self, measure: BoundLike) -> RowValue | None:
        """The β row with the most expected published records under ``measure`` (a data-dependent
        choice: see the module docstring)."""
        cands = [r for r in self.rows if measure in r.expected]
        return max(cands, key=lambda r: r.expected[measure]) if cands else None


def row_value(row: FrontierRow, histogram: Counter[int]) -> RowValue:
    ks = {m: mk.k for m, mk in row.by_measure.items()}
    if row.arx_k is not None:
        ks[ARX] = row.arx_k
    e = expected_published(histogram, row.beta, ks.values())
    return RowValue(row=row, ks=ks, expected={m: e[k] for m, k in ks.items()})


def table_utility(frontier: Frontier, table: Table, recoding: Recoding) -> TableUtility:
    """Expected published records of every frontier point on ``table`` under ``recoding``."""
    sizes = group_sizes(table, recoding)
    hist = size_histogram(sizes)
    return TableUtility(
        data_path=table.path, recoding=recoding.name, qi=table.qi, records=len(table.rows),
        dropped_missing=table.dropped_missing, groups=len(sizes), histogram=hist,
        rows=tuple(row_value(r, hist) for r in frontier.rows),
    )


__all__ = ["ARX", "RowValue", "TableUtility", "row_value", "table_utility"]
