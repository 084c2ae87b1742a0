"""Black-box Monte Carlo auditing with select-then-confirm (CP Def. 2 estimated from samples).

For a candidate pair (D, D') the sampled mechanism is run ``n_select`` times on each; the
empirical hockey-stick event E = {y : p̂(y) > e^ε q̂(y)} (the better of the two directions) is
selected.  The most promising events are then re-measured on fresh, independent runs, so the
selection cannot bias the confirmation.  One-sided Clopper–Pearson bounds at level α/(2m)
(Bonferroni over the m confirmed events and both probabilities) give, with probability ≥ 1 − α
over all confirmations together,

    Pr[A(D) ∈ E] − e^ε Pr[A(D') ∈ E] ≥ P_lower − e^ε Q_upper,

and a witness is reported only if that lower bound exceeds the claimed δ.  A statistical audit
can refute a claim but never prove it, so without a witness it returns INCONCLUSIVE.

The engine itself (sampling runs, event selection, confirmation, Clopper–Pearson, e^ε rounded
up) is the one shared with :mod:`dps_verify.testing`: :mod:`dps_verify.verdict.montecarlo`.
This module only adapts the audit's anonymizers to it (:func:`as_sampler`).
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Hashable
from fractions import Fraction

from dps_verify.engine.distribution import randomized
from dps_verify.verdict.montecarlo import clopper_pearson


def clopper_pearson_lower(hits: int, n: int, alpha: float) -> float:
    """One-sided (1 − α) lower confidence bound (the shared engine's Clopper–Pearson)."""
    return clopper_pearson(hits, n, alpha)[0]


def clopper_pearson_upper(hits: int, n: int, alpha: float) -> float:
    """One-sided (1 − α) upper confidence bound (the shared engine's Clopper–Pearson)."""
    return clopper_pearson(hits, n, alpha)[1]


def is_black_box(fn: Callable) -> bool:
    """Whether ``fn`` takes ``(sample, rng)`` (two required positional parameters)."""
    if isinstance(fn, randomized):
        return False
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    required = [
        p for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(required) >= 2


def as_sampler(anonymizer: Callable) -> Callable[[tuple, random.Random], Hashable]:
    """Turn any accepted anonymizer into ``(sample, rng) -> output``."""
    if isinstance(anonymizer, randomized):
        def run_law(sample: tuple, rng: random.Random) -> Hashable:
            law = anonymizer.law(sample)
            u = Fraction(rng.random())
            acc = Fraction(0)
            last = None
            for y, p in law.items():
                acc += p
                last = y
                if u < acc:
                    return y
            return last

        return run_law
    if is_black_box(anonymizer):
        return anonymizer  # type: ignore[return-value]
    return lambda sample, rng: anonymizer(sample)
