"""``dps_verify.plan(...)``: the whole plan for a target (ε, δ) — the certified frontier and,
given a table, what each frontier point buys on it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dps_verify.core.numbers import Number
from dps_verify.plan.frontier import MEASURES, Frontier, frontier
from dps_verify.plan.recoding import RecodingSpec, load_spec
from dps_verify.plan.table import Table, read_table
from dps_verify.plan.value import TableUtility, table_utility


@dataclass(frozen=True)
class Plan:
    """A plan: the frontier (always) and, when a table was given, its utility part."""

    frontier: Frontier
    utility: TableUtility | None = None
    selection: Any = None  # dps_verify.plan.select.Selection when select_with was given


def load_table(data: str | os.PathLike, spec: RecodingSpec, qi: Sequence[str] | None = None,
               columns: Sequence[str] | None = None) -> Table:
    """The table with the QI columns given, else the spec's ``qi``; header and missing-value
    token from the spec unless ``columns`` is given."""
    q = tuple(qi) if qi else spec.qi
    if not q:
        raise ValueError("--qi: no quasi-identifier columns given and the recoding spec names none")
    return read_table(data, q, columns=columns or spec.columns, missing=spec.missing)


def plan(epsilon: Number | str, delta: Number | str, betas: Iterable[str] = (), *,
         default_grid: bool = True, measures: Iterable[str] = MEASURES,
         data: str | os.PathLike | None = None, qi: Sequence[str] | None = None,
         recoding: str | os.PathLike | RecodingSpec | None = None, recoding_name: str | None = None,
         columns: Sequence[str] | None = None) -> Plan:
    """Plan a release with "sample, then strongly-safe k-anonymize" (CP Thm 5) for a target
    (ε, δ): for β on a grid with the regime edge (and every β in ``betas``), the smallest k under
    the paper's d, the exact hockey-stick δ and the exact pointwise δ, each certified at k and
    k − 1, and ARX's k (:mod:`dps_verify.plan.frontier`).

    With ``data`` (a CSV file) and ``recoding`` (a spec file, :mod:`dps_verify.plan.recoding`),
    also the exact expected number of published records of every frontier point
    (:mod:`dps_verify.plan.value`) — numbers computed on the table itself, so choosing by them
    is data-dependent and not covered by CP Thm 5."""
    if data is None:
        if recoding is not None or qi:
            raise ValueError("--recoding/--qi need --data (the table the plan is evaluated on)")
        return Plan(frontier=frontier(epsilon, delta, betas, default_grid=default_grid, measures=measures))
    if recoding is None:
        raise ValueError("--data needs --recoding SPEC (a fixed, data-independent recoding)")
    spec = recoding if isinstance(recoding, RecodingSpec) else load_spec(recoding)
    rec = spec.get(recoding_name)
    table = load_table(data, spec, qi, columns)  # bad input fails here, before any other work
    fr = frontier(epsilon, delta, betas, default_grid=default_grid, measures=measures)
    return Plan(frontier=fr, utility=table_utility(fr, table, rec))

__all__ = ["Plan", "load_table", "plan"]
