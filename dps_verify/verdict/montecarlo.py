"""The one Monte-Carlo engine: select an event on some runs, confirm it on fresh runs.

For a pair (D, D') the sampled mechanism A^β (CP Def. 3) is run ``n_select`` times on each
dataset; the empirical hockey-stick event O = {y : p̂(y) > e^ε q̂(y)} is selected in each
direction.  Fresh, independent runs then count how often each dataset lands in O, and one-sided
Clopper–Pearson bounds give p_lo ≤ Pr[A^β(D) ∈ O] and q_hi ≥ Pr[A^β(D') ∈ O].  Since every event
satisfies δ ≥ Pr[A(D) ∈ O] − e^ε Pr[A(D') ∈ O] (CP Def. 2), p_lo − e^ε q_hi is a lower bound on δ
with the stated confidence; e^ε is rounded *up* (:func:`exp_upper_float`), so the bound stays
safe.  With m confirmed events, each bound is taken at level α/(2m) (Bonferroni), so the chance
that any reported bound exceeds the truth is at most α — over the sampler's draws and the
audited code's own randomness, which :func:`run_sampled` keeps apart (the audited code is never
handed the generator that draws the samples, and gets a fresh one of its own on every run).  This
is no sandbox: code that inspects the interpreter (caller frames, ``gc``) or patches dps_verify
can forge any statistical result; run untrusted code in a process of its own.

Used by :mod:`dps_verify.testing.blackbox` and :mod:`dps_verify.audit`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import exp_interval

if TYPE_CHECKING:
    import numpy as np


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson bounds: Pr[p < lo] ≤ α and Pr[p > hi] ≤ α separately."""
    if not 0 <= successes <= trials or trials <= 0:
        raise ParameterError("need 0 <= successes <= trials and trials >= 1")
    from scipy.stats import beta as beta_dist  # imported lazily: scipy is slow to import

    lo = 0.0 if successes == 0 else float(beta_dist.ppf(alpha, successes, trials - successes + 1))
    hi = (
        1.0
        if successes == trials
        else float(beta_dist.ppf(1 - alpha, successes + 1, trials - successes))
    )
    return lo, hi


def exp_upper_float(eps: Fraction) -> float:
    """A float ≥ e^ε (the interval upper end, rounded up to the next float; an exact log
    ``ln(x)`` gives x itself)."""
    return math.nextafter(float(exp_interval(eps)[1]), math.inf)


def _key(y: object) -> Hashable:
    try:
        hash(y)
        return y  # type: ignore[return-value]
    except TypeError:
        return repr(y)


def _stream_seed(seq: np.random.SeedSequence) -> int:
    """A 128-bit ``random.Random`` seed from a :class:`numpy.random.SeedSequence`."""
    words = seq.generate_state(2, "uint64")
    return int(words[0]) << 64 | int(words[1])


def run_sampled(
    fn: Callable[[tuple, random.Random], Hashable],
    dataset: Sequence[Hashable],
    beta: float,
    n: int,
    rng: random.Random,
) -> Counter:
    """Counts of ``fn(sample, fn_rng)`` over ``n`` fresh Bernoulli(β) samples of ``dataset``.

    ``fn`` is the audited code and is never handed ``rng`` nor the generator that draws the
    samples.  ``rng`` is read once, before ``fn`` first runs: 128 bits of it seed a
    :class:`numpy.random.SeedSequence` (as :func:`dps_verify.distributed.task_seeds` derives
    task seeds) whose two children seed two private generators — one draws each record's
    Bernoulli(β) inclusion, the other a 64-bit seed per run for a fresh ``random.Random``
    handed to ``fn`` on that run alone.  So whatever ``fn`` does with its generator (``seed``,
    ``setstate``, a data-dependent number of draws, replacing its methods) changes neither
    which records the samples include nor what ``rng`` gives the caller afterwards, and cannot
    reach another run's randomness: the runs are independent draws of A^β(D) (CP Def. 3), as
    the Clopper–Pearson bounds of :func:`event_bounds` assume (their confidence is over the
    sampler's draws and ``fn``'s own) — unless ``fn`` keeps state of its own between calls
    (globals, the ``random`` module), which no sampler can undo.  The counts depend only on
    ``rng``'s state (reproducible per seed).  A fresh generator costs about 4 µs per run.
    This guards against misuse of the generator ``fn`` is given, not against code that reaches
    into this frame (``sys._getframe``, ``gc``): in one process nothing can, as such code could
    as well patch this module.
    """
    import numpy as np  # imported lazily, as scipy in clopper_pearson

    include_seq, fn_seq = np.random.SeedSequence(rng.getrandbits(128)).spawn(2)
    draw = random.Random(_stream_seed(include_seq)).random  # the sampler's own: never handed to fn
    run_seed = random.Random(_stream_seed(fn_seq)).getrandbits  # one seed per run, for fn
    out: Counter = Counter()
    for _ in range(n):
        sample = tuple([r for r in dataset if draw() < beta])
        out[_key(fn(sample, random.Random(run_seed(64))))] += 1
    return out


def empirical_event(a: Counter, b: Counter, e_eps: float) -> tuple:
    """The empirical bad set O = {y : â(y) > e^ε b̂(y)} of one direction, as a tuple sorted by
    ``repr`` (deterministic across runs, unlike set order).  With equal run counts the
    comparison is on raw counts, ``count_a(y) > e^ε count_b(y)``, so no division rounds it."""
    na, nb = max(sum(a.values()), 1), max(sum(b.values()), 1)
    scale = e_eps * (na / nb)  # e^ε exactly when both sides ran equally often
    return tuple(sorted((y for y, c in a.items() if c > scale * b.get(y, 0)), key=repr))


def select_event(p: Counter, q: Counter, e_eps: float) -> tuple[bool, tuple, float]:
    """The empirical best hockey-stick event: ``(forward, event, estimate)``.

    In each direction the event is :func:`empirical_event` (``forward`` compares ``p`` against
    ``q``, otherwise ``q`` against ``p``); ``estimate`` is p̂(O) − e^ε q̂(O) per run.  The
    direction with the larger estimate wins, the forward one on a tie.  Every output in a
    non-empty event contributes a positive term, so ``estimate > 0`` exactly when the event is
    non-empty; when neither direction has one the result is ``(True, (), 0.0)``.
    """
    n_p = max(sum(p.values()), 1)
    n_q = max(sum(q.values()), 1)
    best: tuple[bool, tuple, float] = (True, (), 0.0)
    for forward in (True, False):
        a, b, na, nb = (p, q, n_p, n_q) if forward else (q, p, n_q, n_p)
        ev = empirical_event(a, b, e_eps)
        est = (sum(a[y] for y in ev) - e_eps * (na / nb) * sum(b.get(y, 0) for y in ev)) / na
        if ev and est > best[2]:
            best = (forward, ev, est)
    return best


def event_bounds(
    hits_first: int, hits_second: int, n: int, e_eps: float, alpha_each: float
) -> tuple[float, float, float]:
    """From ``n`` confirming runs per dataset: ``(p_lo, q_hi, p_lo − e^ε q_hi)``, the one-sided
    Clopper–Pearson bounds at level ``alpha_each`` each and the δ lower bound they give
    (CP Def. 2; ``e_eps`` must already be rounded up, :func:`exp_upper_float`)."""
    p_lo, _ = clopper_pearson(hits_first, n, alpha_each)
    _, q_hi = clopper_pearson(hits_second, n, alpha_each)
    return p_lo, q_hi, p_lo - e_eps * q_hi


def confirm_event(
    run: Callable,
    first: Sequence,
    second: Sequence,
    event: tuple,
    beta: float,
    e_eps: float,
    n: int,
    alpha_each: float,
    rng: random.Random,
) -> tuple[float, float, float, float, float]:
    """Fresh runs: (P̂(O), Q̂(O), p_lo, q_hi, δ lower bound p_lo − e^ε q_hi; 0 for O = ∅)."""
    ev = set(event)
    hp = sum(c for y, c in run_sampled(run, first, beta, n, rng).items() if y in ev)
    hq = sum(c for y, c in run_sampled(run, second, beta, n, rng).items() if y in ev)
    p_lo, q_hi, d_lo = event_bounds(hp, hq, n, e_eps, alpha_each)
    return hp / n, hq / n, p_lo, q_hi, d_lo if ev else 0.0


__all__ = [
    "clopper_pearson",
    "confirm_event",
    "empirical_event",
    "event_bounds",
    "exp_upper_float",
    "run_sampled",
    "select_event",
]
