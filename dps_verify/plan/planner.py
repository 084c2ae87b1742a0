"""``dps_verify.plan(...)``: the whole plan for a target (ε, δ) — the certified frontier and,
given a table, what each frontier point buys on it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dps_verify.core.numbers import Number
from dps_verify.plan.frontier import MEASURES, Frontier, frontier


@dataclass(frozen=True)
class Plan:
    """A plan: the frontier (always) and, when a table was given, its utility part."""

    frontier: Frontier
    utility: Any = None  # dps_verify.plan.utility.TableUtility when --data was given
    selection: Any = None  # dps_verify.plan.select.Selection when --select-with was given


def plan(epsilon: Number | str, delta: Number | str, betas: Iterable[str] = (), *,
         default_grid: bool = True, measures: Iterable[str] = MEASURES) -> Plan:
    """Plan a release with "sample, then strongly-safe k-anonymize" (CP Thm 5) for a target
    (ε, δ): for β on a grid with the regime edge (and every β in ``betas``), the smallest k under
    the paper's d, the exact hockey-stick δ and the exact pointwise δ, each certified at k and
    k − 1, and ARX's k (:mod:`dps_verify.plan.frontier`)."""
    return Plan(frontier=frontier(epsilon, delta, betas, default_grid=default_grid, measures=measures))


__all__ = ["Plan", "plan"]
