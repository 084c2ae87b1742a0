"""Choosing the recoding, β and k with privacy: the exponential mechanism on the unsampled table,
then "sample, then strongly-safe k-anonymize" with the chosen candidate.

Candidates are (recoding, β, k): every recoding of the spec (or the ones named) × every β of the
frontier computed at ε₂ = ε − ε₁, with k the smallest k reaching δ at (β, ε₂) under the chosen
measure.  The utility of a candidate is its exact expected number of published records on the
*unsampled* table (:mod:`dps_verify.plan.utility`).  Adding or removing one record changes one
group's size by one, and the utility by a value in [0, β·k] (proved in
``proofs/plan_utility_sensitivity.py``, ``dps-verify prove plan-utility-sensitivity``), so
Δ = max over candidates of β·k.  Every candidate's utility moves the same way (up when a record
is added, down when one is removed), so the monotone exponential mechanism, weights
exp(ε₁·u/Δ) rather than exp(ε₁·u/(2Δ)), is already ε₁-DP (McSherry & Talwar 2007, the monotone
case of their Thm 6; :mod:`dps_verify.plan.expmech`) — twice the sharpness for the same ε₁.

**The total guarantee** is CP Thm 6 read as its proof in App. A.3 reads it: the recoding is chosen
ε₁-DP on the full table, independently of the sample, and the sampled strongly-safe
k-anonymization with the chosen recoding is (ε₂, δ)-DP for every recoding; together (ε₁ + ε₂, δ).
Under CP Def 3's literal reading — the choice made on the *sample* — the theorem fails (exact
counterexample: ``dps-verify prove cp-theorem-6``), so this module never chooses on the sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Certified
from dps_verify.core.params import epsilon_param
from dps_verify.core.types import BoundLike
from dps_verify.plan import expmech
from dps_verify.plan.frontier import Frontier
from dps_verify.plan.recoding import RecodingSpec
from dps_verify.plan.table import Table, group_sizes, size_histogram
from dps_verify.plan.utility import expected_published

#: Measures that may set k in the selection mode: the App. A.3 argument is for the hockey-stick
#: form (CP Def 2) with any per-recoding delta — CP Thm 5's d or the exact worst case.
SELECT_MEASURES = ("paper", "hockey-stick")

#: Adding a record moves every candidate's utility by a value in [0, β·k] (the sensitivity
#: proof): all in one direction, so the monotone weights exp(ε₁·u/Δ) are ε₁-DP.
UTILITY_IS_MONOTONE = True

#: The proof entry behind the sensitivity, and the claim entry behind the composition.
SENSITIVITY_PROOF = "plan-utility-sensitivity"
THEOREM6_READING_PROOF = "cp-theorem-6-full-data"

READING_NOTE = (
    "Guarantee from CP Thm 6 read as its proof in App. A.3: the recoding (and beta, k) is chosen "
    "epsilon1-DP on the full, unsampled table, then the table is sampled and anonymized. Under CP "
    "Def 3's literal reading (the choice made on the sample) CP Thm 6 fails (dps-verify prove "
    "cp-theorem-6: exact counterexample), so the choice here is never made on the sample."
)


@dataclass(frozen=True)
class Candidate:
    recoding: str
    beta: Fraction
    beta_label: str
    k: int
    delta_at_k: Certified
    utility: Fraction  # exact expected published records on the unsampled table


@dataclass(frozen=True)
class Selection:
    """The candidates, the sensitivity, the choice and the guarantee it rests on."""

    epsilon_total: Fraction
    epsilon1: Fraction
    epsilon2: Fraction
    delta: Fraction
    measure: BoundLike
    candidates: tuple[Candidate, ...]
    sensitivity: Fraction
    probabilities: tuple[tuple[float, float], ...]
    chosen: int
    seed: int | None

    @property
    def choice(self) -> Candidate:
        return self.candidates[self.chosen]

    @property
    def delta_total(self) -> Fraction:
        """δ of the whole mechanism (choice, then release): App. A.3's sum Σ_c w_c·δ_c is at most
        the largest δ of any candidate the mechanism can choose — not the chosen one's δ."""
        return max(c.delta_at_k.upper for c in self.candidates)


def candidates(frontier2: Frontier, table: Table, spec: RecodingSpec, names: Sequence[str] | None,
               measure: BoundLike) -> list[Candidate]:
    """(recoding, β, k) for every named recoding and every frontier row where ``measure`` applies."""
    out = []
    for name in (names or list(spec.recodings)):
        rec = spec.get(name)
        hist = size_histogram(group_sizes(table, rec))
        for row in frontier2.rows:
            mk = row.by_measure.get(measure)
            if mk is None:
                continue
            u = expected_published(hist, row.beta, [mk.k])[mk.k]
            out.append(Candidate(recoding=name, beta=row.beta, beta_label=row.point.label, k=mk.k,
                                 delta_at_k=mk.delta_at_k, utility=u))
    if not out:
        raise ParameterError(f"--select-with: no candidate (no beta where the {measure} measure applies)")
    return out


def select(frontier2: Frontier, table: Table, spec: RecodingSpec, *, epsilon_total: Fraction,
           epsilon1: Fraction, names: Sequence[str] | None = None, measure: BoundLike = "paper",
           seed: int | None = None) -> Selection:
    """Run the exponential mechanism over :func:`candidates` (see the module docstring).
    ``seed`` makes the choice reproducible (Python's Mersenne Twister: reproducible, not secret);
    without it the operating system's CSPRNG is used."""
    cands = candidates(frontier2, table, spec, names, measure)
    sens = max(c.beta * c.k for c in cands)
    utils = [c.utility for c in cands]
    # its own stream: with a seed, the release's sampler draws from a different one (the choice
    # must not be tied to the sample, CP Thm 6 as read in App. A.3)
    rng: random.Random = (random.Random(f"dps-verify plan select {seed}") if seed is not None
                          else random.SystemRandom())
    idx = expmech.sample(utils, epsilon1, sens, rng, monotone=UTILITY_IS_MONOTONE)
    return Selection(
        epsilon_total=epsilon_total, epsilon1=epsilon1, epsilon2=frontier2.epsilon,
        delta=frontier2.delta, measure=measure, candidates=tuple(cands), sensitivity=sens,
        probabilities=tuple(expmech.probabilities(utils, epsilon1, sens, monotone=UTILITY_IS_MONOTONE)),
        chosen=idx, seed=seed,
    )


def split_epsilon(epsilon: str, epsilon1: str) -> tuple[Fraction, Fraction, Fraction]:
    """(ε, ε₁, ε₂ = ε − ε₁), exact; ε₂ must be > 0 (CP Thm 6: ε ≥ −ln(1−β) + ε₁)."""
    e = epsilon_param(epsilon)
    e1 = epsilon_param(epsilon1, "epsilon1")
    if not e1 > 0:
        raise ParameterError("--select-with: epsilon1 must be > 0")
    if not e > e1:
        raise ParameterError(f"--select-with: epsilon1 = {epsilon1} must be below epsilon = {epsilon} "
                         "(CP Thm 6 needs epsilon >= -ln(1-beta) + epsilon1)")
    return e, e1, e - e1


__all__ = ["READING_NOTE", "SELECT_MEASURES", "SENSITIVITY_PROOF", "THEOREM6_READING_PROOF", "UTILITY_IS_MONOTONE", "Candidate", "Selection",
           "candidates", "select", "split_epsilon"]
