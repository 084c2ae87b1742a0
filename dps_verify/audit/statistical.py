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
"""

from __future__ import annotations

import inspect
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.engine.distribution import randomized
from dps_verify.verdict.montecarlo import clopper_pearson, exp_upper_float


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


def _key(y: object) -> Hashable:
    try:
        hash(y)
        return y  # type: ignore[return-value]
    except TypeError:
        return repr(y)


def draw(run: Callable, dataset: Sequence, beta: float, n: int, rng: random.Random) -> Counter:
    """Outputs of n independent runs of "sample D at β, then run the anonymizer"."""
    c: Counter = Counter()
    for _ in range(n):
        sample = tuple(r for r in dataset if rng.random() < beta)
        c[_key(run(sample, rng))] += 1
    return c


@dataclass
class Selected:
    index: int
    forward: bool
    event: frozenset
    estimate: float


def select_event(p: Counter, q: Counter, n: int, e_eps: float) -> tuple[bool, frozenset, float]:
    """Empirical best hockey-stick event and direction for one pair."""
    best: tuple[bool, frozenset, float] = (True, frozenset(), 0.0)
    for forward in (True, False):
        a, b = (p, q) if forward else (q, p)
        ev = frozenset(y for y, c in a.items() if c > e_eps * b.get(y, 0))
        est = (sum(a[y] for y in ev) - e_eps * sum(b.get(y, 0) for y in ev)) / n
        if est > best[2]:
            best = (forward, ev, est)
    return best


def confirm(
    run: Callable,
    first: Sequence,
    second: Sequence,
    event: frozenset,
    beta: float,
    e_eps: float,
    n: int,
    alpha_each: float,
    rng: random.Random,
) -> tuple[float, float, float, float, float]:
    """Fresh runs: (P̂(E), Q̂(E), P_lower, Q_upper, δ lower bound)."""
    hp = sum(c for y, c in draw(run, first, beta, n, rng).items() if y in event)
    hq = sum(c for y, c in draw(run, second, beta, n, rng).items() if y in event)
    p_lo = clopper_pearson_lower(hp, n, alpha_each)
    q_hi = clopper_pearson_upper(hq, n, alpha_each)
    return hp / n, hq / n, p_lo, q_hi, p_lo - e_eps * q_hi


def epsilon_float_upper(eps: Fraction) -> float:
    """e^ε rounded up (:func:`dps_verify.verdict.montecarlo.exp_upper_float`)."""
    return exp_upper_float(eps)
