"""``dps_verify.plan(...)``: the whole plan for a target (ε, δ) — the certified frontier; given a
table, what each frontier point buys on it; optionally an ε₁-DP choice of (recoding, β, k) and a
release that follows the plan."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number, format_up
from dps_verify.core.params import epsilon_param
from dps_verify.core.types import BoundLike
from dps_verify.plan.frontier import MEASURES, Frontier, frontier
from dps_verify.plan.recoding import RecodingSpec, load_spec
from dps_verify.plan.release import Release, sample_and_anonymize
from dps_verify.plan.report import eps_text
from dps_verify.plan.select import (
    READING_NOTE,
    SELECT_MEASURES,
    SENSITIVITY_PROOF,
    THEOREM6_READING_PROOF,
    Selection,
    select,
    split_epsilon,
)
from dps_verify.plan.table import Table, read_table
from dps_verify.plan.value import TableUtility, table_utility


@dataclass(frozen=True)
class Plan:
    """A plan: the frontier (always); with a table, its utility part, the table and spec; with
    ``select_with``, the ε₁-DP selection (the frontier is then at ε₂ = ε − ε₁)."""

    frontier: Frontier
    utility: TableUtility | None = None
    selection: Selection | None = None
    table: Table | None = None
    spec: RecodingSpec | None = None
    recoding_name: str | None = None
    epsilon_total: Fraction | None = None


def load_table(data: str | os.PathLike, spec: RecodingSpec, qi: Sequence[str] | None = None,
               columns: Sequence[str] | None = None) -> Table:
    """The table with the QI columns given, else the spec's ``qi``; header and missing-value
    token from the spec unless ``columns`` is given."""
    q = tuple(qi) if qi else spec.qi
    if not q:
        raise ParameterError("--qi: no quasi-identifier columns given and the recoding spec names none")
    return read_table(data, q, columns=columns or spec.columns, missing=spec.missing,
                      columns_are_default=not columns)


def plan(epsilon: Number | str, delta: Number | str, betas: Iterable[str] = (), *,
         default_grid: bool = True, measures: Iterable[str] = MEASURES,
         data: str | os.PathLike | None = None, qi: Sequence[str] | None = None,
         recoding: str | os.PathLike | RecodingSpec | None = None, recoding_name: str | None = None,
         columns: Sequence[str] | None = None, select_with: str | None = None,
         candidates: Sequence[str] | None = None, select_measure: BoundLike = "paper",
         seed: int | None = None) -> Plan:
    """Plan a release with "sample, then strongly-safe k-anonymize" (CP Thm 5) for a target
    (ε, δ): for β on a grid with the regime edge (and every β in ``betas``), the smallest k under
    the paper's d, the exact hockey-stick δ and the exact pointwise δ, each certified at k and
    k − 1, and ARX's k (:mod:`dps_verify.plan.frontier`).

    With ``data`` (a CSV file) and ``recoding`` (a spec file, :mod:`dps_verify.plan.recoding`),
    also the exact expected number of published records of every frontier point
    (:mod:`dps_verify.plan.value`) — numbers computed on the table itself, so choosing by them
    is data-dependent and not covered by CP Thm 5.

    With ``select_with = ε₁`` the frontier is computed at ε₂ = ε − ε₁ and (recoding, β, k) is
    chosen ε₁-DP by the exponential mechanism on the unsampled table
    (:mod:`dps_verify.plan.select`; total guarantee: CP Thm 6, App. A.3 reading)."""
    if data is None:
        if recoding is not None or qi or select_with is not None:
            raise ParameterError("--recoding/--qi/--select-with need --data (the table the plan is evaluated on)")
        return Plan(frontier=frontier(epsilon, delta, betas, default_grid=default_grid, measures=measures))
    if recoding is None:
        raise ParameterError("--data needs --recoding SPEC (a fixed, data-independent recoding)")
    spec = recoding if isinstance(recoding, RecodingSpec) else load_spec(recoding)
    rec = spec.get(recoding_name)
    for name in candidates or ():
        spec.get(name)
    if select_measure not in SELECT_MEASURES:
        raise ParameterError(f"--select-measure must be one of {SELECT_MEASURES} (the App. A.3 argument is "
                         f"for the hockey-stick form, CP Def 2), got {select_measure!r}")
    eps_for_frontier: Any = epsilon
    eps_total = epsilon_param(epsilon)
    e1 = None
    if select_with is not None:
        eps_total, e1, eps_for_frontier = split_epsilon(str(epsilon), select_with)
    table = load_table(data, spec, qi, columns)  # bad input fails here, before any other work
    betas = list(betas)
    _estimate(table, spec, rec.name,
              (list(candidates) if candidates else list(spec.recodings)) if select_with is not None else None,
              eps_for_frontier, betas, default_grid)
    fr = frontier(eps_for_frontier, delta, betas, default_grid=default_grid, measures=measures)
    sel = None
    if e1 is not None:
        fr = replace(fr, epsilon_text=f"{eps_text(fr.epsilon)} (= epsilon - epsilon1 = {eps_text(eps_total)} - "
                     f"{eps_text(e1)}, for the anonymization)")
        sel = select(fr, table, spec, epsilon_total=eps_total, epsilon1=e1, names=candidates,
                     measure=select_measure, seed=seed)
    return Plan(frontier=fr, utility=table_utility(fr, table, rec), selection=sel, table=table,
                spec=spec, recoding_name=rec.name, epsilon_total=eps_total)


def _estimate(table: Table, spec: RecodingSpec, name: str, candidates: Sequence[str] | None,
              eps: Any, betas: Iterable[str], default_grid: bool) -> None:
    """The exact utility's size, checked before the frontier is computed (BudgetError)."""
    from dps_verify.plan.grid import beta_grid
    from dps_verify.plan.table import group_sizes, size_histogram
    from dps_verify.plan.utility import check_exact_budget

    points = [pt.beta for pt in beta_grid(epsilon_param(eps), list(betas), default_grid=default_grid)]
    names = [name] if candidates is None else [name, *candidates]
    for n in dict.fromkeys(names):
        check_exact_budget(size_histogram(group_sizes(table, spec.get(n))), points)


def release_choice(p: Plan, beta_label: str = "edge", measure: BoundLike = "hockey-stick") -> dict[str, Any]:
    """The (recoding, β, k) a release applies, and its certified guarantee with the theorem it
    rests on: the selection's choice when there is one, else the frontier point (β, measure)."""
    if p.table is None or p.spec is None:
        raise ParameterError("--release needs --data and --recoding")
    fr = p.frontier
    if p.selection is not None:
        s, c = p.selection, p.selection.choice
        guarantee = {
            "epsilon": eps_text(s.epsilon_total), "delta": format_up(s.delta_total, 17),
            "delta_rule": "the largest certified delta among the candidates the selection could choose "
                          "(App. A.3: sum over choices of Pr[choice]*delta_choice)",
            "delta_of_the_chosen_candidate": format_up(c.delta_at_k.upper, 17),
            "epsilon1_selection": eps_text(s.epsilon1), "epsilon2_anonymization": eps_text(s.epsilon2),
            "delta_measure": s.measure, "delta_certified": c.delta_at_k.how,
            "rests_on": [f"CP Thm 6, App. A.3 reading (dps-verify prove {THEOREM6_READING_PROOF})"
                         + ("" if s.measure == "paper" else ", its termwise step with the exact worst-case "
                            "hockey-stick delta of each fixed recoding in place of d"),
                         f"sensitivity of the utility, beta*k (dps-verify prove {SENSITIVITY_PROOF})",
                         "monotone exponential mechanism, weights exp(epsilon1*u/Delta): every utility moves the same way "
                         "between neighbours (McSherry & Talwar, FOCS 2007)",
                         "CP Thm 5 / exact worst case for each fixed recoding at epsilon2"],
            "reading": READING_NOTE,
            "sensitivity": str(s.sensitivity),
        }
        return {"recoding": c.recoding, "beta": c.beta, "beta_label": c.beta_label, "k": c.k,
                "guarantee": guarantee}
    if measure not in MEASURES:
        raise ParameterError(f"--release-measure must be one of {MEASURES}, got {measure!r}")
    try:
        row = fr.row(beta_label) if beta_label == "edge" else fr.row(_beta_of(beta_label, fr))
    except KeyError:
        raise ParameterError(f"--release-beta {beta_label}: not a beta of this plan (add it with --beta)") from None
    mk = row.by_measure.get(measure)
    if mk is None:
        raise ParameterError(f"--release-measure {measure}: {row.not_applicable.get(measure, 'not computed')} at beta = {beta_label}")
    rests = ["CP Thm 5 (sampled strongly-safe k-anonymization, fixed recoding)"]
    if measure != "paper":
        rests.append(f"exact worst-case {measure} delta over all datasets (dps_verify.worstcase.sdgs, certified)")
    guarantee = {
        "epsilon": fr.epsilon_text, "delta": format_up(mk.delta_at_k.upper, 17), "delta_measure": measure,
        "delta_certified": mk.delta_at_k.how, "rests_on": rests,
        "assumes": "the recoding, beta and k were fixed without looking at this table (CP Thm 5 does not "
                   "cover a data-dependent choice; use --select-with for that)",
    }
    return {"recoding": p.recoding_name, "beta": row.beta, "beta_label": row.point.label, "k": mk.k,
            "guarantee": guarantee}


def _beta_of(label: str, fr: Frontier) -> Fraction:
    from dps_verify.core.params import resolve_beta

    return resolve_beta(label, fr.epsilon)


def make_release(p: Plan, choice: dict[str, Any], seed: int | None) -> Release:
    assert p.table is not None and p.spec is not None
    return sample_and_anonymize(p.table, p.spec.get(choice["recoding"]), choice["beta"], choice["k"], seed)


__all__ = ["Plan", "load_table", "make_release", "plan", "release_choice"]
