"""Black-box testing of code that can only be *run*: ``fn(sample, rng) -> output``.

Statistical procedure (for a claim "fn preceded by β-sampling is (ε, δ)-DP", CP Def. 3):

1. For each neighbouring pair (D, D2) tried, run A^β on D and on D2 ``n_select`` times each
   (fresh Bernoulli(β) samples, then ``fn``).  From these counts pick, in each direction, the
   event O = {y : p̂(y) > e^ε q̂(y)} (the empirical bad set).
2. Run A^β another ``n_confirm`` times on each dataset (a fresh batch, independent of the
   choice of O) and count how often the output lands in O.
3. With the one-sided Clopper–Pearson bounds p_lo ≤ Pr[A^β(D) ∈ O] and
   q_hi ≥ Pr[A^β(D2) ∈ O], each at level α/(2m) where m is the number of events confirmed
   (pairs × 2 directions; Bonferroni), report δ_lo = p_lo − e^ε q_hi.

Because O is fixed before the confirming batch is drawn, and δ ≥ Pr[A(D) ∈ O] − e^ε Pr[A(D2)
∈ O] for every event (CP Def. 2), the probability that *any* reported δ_lo exceeds the true δ
is at most α (union bound over the m events).  So ``assert_dp_blackbox`` raises a false alarm
with probability at most α; a pass means only that no violation was detected.

Randomness: ``seed`` seeds the caller's generator, from which every batch takes its own seed
(:func:`~dps_verify.verdict.montecarlo.run_sampled`).  The samples are drawn by a generator
``fn`` is never handed, and each run hands ``fn`` a fresh ``random.Random`` of its own, so nothing
``fn`` does to its ``rng`` (``seed``, ``setstate``, a data-dependent number of draws) changes
which records later samples include or another run's randomness: the runs are the independent
Bernoulli(β) samples followed by ``fn`` that the bounds above assume, and the probability α is
over the sampler's draws and ``fn``'s own.  The report depends on ``seed`` only.  This is no
sandbox: code that inspects the interpreter (caller frames, ``gc``) or patches dps_verify can
forge any statistical result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number, to_fraction
from dps_verify.core.params import epsilon_param
from dps_verify.verdict.montecarlo import (
    clopper_pearson,
    empirical_event,
    event_bounds,
    exp_upper_float,
    run_sampled,
)

Dataset = tuple[Hashable, ...]


@dataclass(frozen=True)
class BlackBoxReport:
    """Outcome of a black-box test: the best lower bound on δ at the claimed ε, and its
    provenance.  ``confidence`` = 1 − α is simultaneous over all ``events_tested``."""

    delta_lower: float
    epsilon: float
    confidence: float
    events_tested: int
    dataset: Dataset | None
    neighbour: Dataset | None
    event: tuple
    p_hat: float
    q_hat: float
    p_lower: float
    q_upper: float
    n_select: int
    n_confirm: int

    def describe(self) -> str:
        return (
            f"delta >= {self.delta_lower:.4g} at epsilon = {self.epsilon:g} with confidence "
            f"{self.confidence:.4g} (Clopper-Pearson, Bonferroni over {self.events_tested} "
            f"events; event chosen on {self.n_select} runs, confirmed on {self.n_confirm} fresh "
            f"runs)\n  dataset   D  = {list(self.dataset or ())!r}\n"
            f"  neighbour D' = {list(self.neighbour or ())!r}\n"
            f"  event     O  = {list(self.event)[:8]!r}{' …' if len(self.event) > 8 else ''}\n"
            f"  Pr[A(D) in O]  in [{self.p_lower:.4g}, 1], estimate {self.p_hat:.4g}\n"
            f"  Pr[A(D') in O] in [0, {self.q_upper:.4g}], estimate {self.q_hat:.4g}"
        )


def estimate_delta_lower(
    fn: Callable[[tuple, random.Random], Hashable],
    pairs: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]],
    *,
    beta: Number,
    epsilon: Number,
    n_select: int = 2000,
    n_confirm: int = 4000,
    alpha: float = 1e-3,
    seed: int | None = 0,
) -> BlackBoxReport:
    """A lower confidence bound on the δ that ``fn`` under β-sampling needs at ``epsilon``.

    With probability ≥ 1 − α (over ``fn``'s and the sampler's randomness), the returned
    ``delta_lower`` is ≤ the true δ of every pair tried.  ``fn`` gets a fresh ``random.Random``
    per run, never the sampler's generator.  See the module docstring.
    """
    b = float(to_fraction(beta, "beta"))
    eps_exact = epsilon_param(epsilon)  # also an exact log "ln(x)" (core.numbers.ExactLog)
    eps = float(eps_exact)
    if not 0 < b <= 1:
        raise ParameterError("beta must satisfy 0 < beta <= 1")
    if not 0 < alpha < 1:
        raise ParameterError("alpha must be in (0, 1)")
    if not pairs:
        raise ParameterError("need at least one neighbouring pair")
    e_eps = exp_upper_float(eps_exact)  # e^ε rounded up: the δ lower bound stays safe
    rng = random.Random(seed)
    m = 2 * len(pairs)
    level = alpha / (2 * m)  # each event: one lower and one upper bound
    best: BlackBoxReport | None = None
    for D, D2 in pairs:
        D, D2 = tuple(D), tuple(D2)
        sel_p = run_sampled(fn, D, b, n_select, rng)
        sel_q = run_sampled(fn, D2, b, n_select, rng)
        conf_p = run_sampled(fn, D, b, n_confirm, rng)
        conf_q = run_sampled(fn, D2, b, n_confirm, rng)
        for (A, B), (CA, CB), (X, Y) in (
            ((sel_p, sel_q), (conf_p, conf_q), (D, D2)),
            ((sel_q, sel_p), (conf_q, conf_p), (D2, D)),
        ):
            event = empirical_event(A, B, e_eps)
            hits_a = sum(CA.get(y, 0) for y in event)
            hits_b = sum(CB.get(y, 0) for y in event)
            p_lo, q_hi, d = event_bounds(hits_a, hits_b, n_confirm, e_eps, level)
            d_lo = max(0.0, d) if event else 0.0
            rep = BlackBoxReport(
                d_lo, eps, 1 - alpha, m, X, Y, event, hits_a / n_confirm, hits_b / n_confirm,
                p_lo, q_hi, n_select, n_confirm,
            )
            if best is None or rep.delta_lower > best.delta_lower:
                best = rep
    assert best is not None
    return best


def assert_dp_blackbox(
    fn: Callable[[tuple, random.Random], Hashable],
    *,
    beta: Number,
    epsilon: Number,
    delta: Number,
    pairs: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]],
    n_select: int = 2000,
    n_confirm: int = 4000,
    alpha: float = 1e-3,
    seed: int | None = 0,
) -> BlackBoxReport:
    """Raise ``AssertionError`` if, with confidence 1 − α, ``fn`` under β-sampling needs a δ
    larger than ``delta`` at ``epsilon`` on one of ``pairs``; return the report otherwise.

    False-alarm probability (raising although the claim holds): at most ``alpha``.
    """
    rep = estimate_delta_lower(
        fn, pairs, beta=beta, epsilon=epsilon, n_select=n_select, n_confirm=n_confirm,
        alpha=alpha, seed=seed,
    )
    __tracebackhide__ = True
    d = float(to_fraction(delta, "delta"))
    b = to_fraction(beta, "beta")
    if rep.delta_lower > d:
        raise AssertionError(
            f"claimed ({rep.epsilon:g}, {d:g})-DP under sampling (beta = {b}) is "
            f"violated: {rep.describe()}\n  false-alarm probability <= {alpha:g}"
        )
    return rep


__all__ = [
    "BlackBoxReport",
    "assert_dp_blackbox",
    "clopper_pearson",
    "estimate_delta_lower",
    "run_sampled",
]
