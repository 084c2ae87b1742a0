"""Spot checks that tie the encodings' trusted lemmas and definitions to the engine's own code.

Each function takes the lemma's formula (unused when the check is about the lemma's content,
which the statement's fingerprint pins) and returns ``(ok, note)``: exact instances computed by
the project's engine (:mod:`dps_verify.engine.distribution`, :mod:`dps_verify.measures.divergence`,
:mod:`dps_verify.worstcase`) against the closed form the encoding states (CP = ASIACCS 2012).
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from typing import Any, cast

from dps_verify.core.binomial import pmf
from dps_verify.engine.distribution import distribution
from dps_verify.measures.divergence import delta_certified, pointwise_delta_exact

#: fixed seed: the instances are part of the encoding, the same in every run.
SEED = 20120502


def _law(rng: random.Random, m: int) -> list[Fraction]:
    w = [rng.randint(0, 6) for _ in range(m)]
    if sum(w) == 0:
        w[0] = 1
    return [Fraction(x, sum(w)) for x in w]


def sampling_law(_formula: Any = None) -> tuple[bool, str]:
    """CP Def 3's sampling law as the encodings state it -- a sample T of m distinct records
    has probability b^|T| (1 - b)^(m - |T|) -- against the engine's exact law of "sample, then
    output the sample", and its total is 1 (the binomial theorem), for m <= 5 and three b."""
    count = 0
    for m in range(0, 6):
        for b in (Fraction(1, 3), Fraction(1, 2), Fraction(3, 4)):
            records = tuple(f"r{i}" for i in range(m))
            law = distribution(lambda s: tuple(sorted(s)), records, b).exact
            if sum(law.values()) != 1:
                return False, f"engine law does not sum to 1 at m={m}, b={b}"
            for keep in product((0, 1), repeat=m):
                sample = tuple(sorted(r for r, k in zip(records, keep) if k))
                s = sum(keep)
                if law.get(sample, Fraction(0)) != b ** s * (1 - b) ** (m - s):
                    return False, f"sample {sample} (m={m}, b={b}): engine {law.get(sample)}"
                count += 1
    return True, (f"{count} samples (m <= 5, b in 1/3, 1/2, 3/4): engine law = b^|T| (1-b)^(m-|T|), "
                  "total 1")


def hockey_as_sum(_formula: Any = None) -> tuple[bool, str]:
    """CP Def 2's hockey-stick divergence, sup over events O of P(O) - E P'(O), equals the sum
    of the positive parts max(P - E P', 0) (attained at O = {P > E P'}), and both directions'
    maximum lies in the engine's certified enclosure (measures.divergence.delta_certified);
    random exact laws on 2..4 outputs, E in {1, 2, 3}."""
    rng = random.Random(SEED)
    for trial in range(12):
        m = rng.randint(2, 4)
        P, Q = _law(rng, m), _law(rng, m)
        E = Fraction(rng.choice((1, 2, 3)))

        def pos(a: list[Fraction], c: list[Fraction], E: Fraction = E) -> Fraction:
            return sum((max(x - E * y, Fraction(0)) for x, y in zip(a, c)), Fraction(0))

        def sup(a: list[Fraction], c: list[Fraction], E: Fraction = E, m: int = m) -> Fraction:
            return max(sum((a[i] - E * c[i] for i in range(m) if o[i]), Fraction(0))
                       for o in product((0, 1), repeat=m))

        if pos(P, Q) != sup(P, Q) or pos(Q, P) != sup(Q, P):
            return False, f"trial {trial}: sum of positive parts != sup over events"
        eng = delta_certified(dict(enumerate(P)), dict(enumerate(Q)),
                              "0" if E == 1 else f"ln({E})")
        both = max(pos(P, Q), pos(Q, P))
        if not eng.lower <= both <= eng.upper:
            return False, f"trial {trial}: engine enclosure [{eng.lower}, {eng.upper}] misses {both}"
    return True, "12 random exact laws: sum of positive parts = sup over events = engine's delta"


def other_groups(_formula: Any = None) -> tuple[bool, str]:
    """CP App. A.2's reduction: with a data-independent recoding, the published counts of the
    other groups have one law under D and D_-t, independent of g(t)'s count -- the engine's
    exact law of sampled strongly-safe k-anonymization on two groups is the product of the
    marginals, and the other group's marginal is the same under D and D_-t."""
    for n, m, k in ((3, 2, 2), (4, 3, 2), (2, 4, 3)):
        for b in (Fraction(1, 3), Fraction(1, 2)):
            def anon(s: tuple, k: int = k) -> tuple[int, int]:
                cx, cy = s.count("x"), s.count("y")
                return (cx if cx >= k else 0, cy if cy >= k else 0)

            laws = [distribution(anon, ("x",) * nx + ("y",) * m, b).exact for nx in (n, n - 1)]
            margs = []
            for law in laws:
                mx: dict[int, Fraction] = {}
                my: dict[int, Fraction] = {}
                for out, pr in law.items():
                    ox, oy = cast(tuple[int, int], out)
                    mx[ox] = mx.get(ox, Fraction(0)) + pr
                    my[oy] = my.get(oy, Fraction(0)) + pr
                if any(law.get((ox, oy), Fraction(0)) != mx[ox] * my[oy]
                       for ox in mx for oy in my):
                    return False, f"n={n}, m={m}, k={k}, b={b}: joint law is not the product"
                margs.append(my)
            if margs[0] != margs[1]:
                return False, f"n={n}, m={m}, k={k}, b={b}: other group's law differs"
    return True, "6 instances: engine law = product of marginals, other group's law shared"


def binomial_pmf(_formula: Any = None) -> tuple[bool, str]:
    """f(x; m) = C(m, x) b^x (1 - b)^(m - x), the encodings' closed form, against the core's
    exact pmf (dps_verify.core.binomial)."""
    from math import comb

    for m in range(0, 9):
        for b in (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3)):
            for x in range(0, m + 1):
                if pmf(x, m, b) != comb(m, x) * b ** x * (1 - b) ** (m - x):
                    return False, f"pmf({x}; {m}, {b})"
    return True, "m <= 8, three b: closed form = core.binomial.pmf"


def pointwise_vs_engine(_formula: Any = None) -> tuple[bool, str]:
    """TR Def 2's pointwise delta (mass of the outputs whose ratio leaves [1/E, E]) as the
    encodings read it, against the engine's exact pointwise delta."""
    rng = random.Random(SEED + 1)
    for trial in range(12):
        m = rng.randint(2, 4)
        P, Q = _law(rng, m), _law(rng, m)
        E = Fraction(rng.choice((2, 3)))

        def bad(a: list[Fraction], c: list[Fraction], E: Fraction = E, m: int = m) -> Fraction:
            return sum((a[i] for i in range(m) if a[i] > E * c[i] or c[i] > E * a[i]),
                       Fraction(0))

        eng = pointwise_delta_exact(dict(enumerate(P)), dict(enumerate(Q)), f"ln({E})")
        if eng != max(bad(P, Q), bad(Q, P)):
            return False, f"trial {trial}: engine {eng}, encoding {max(bad(P, Q), bad(Q, P))}"
    return True, "12 random exact laws: bad-set mass = engine's pointwise delta"


def sdgs_within_d(_formula: Any = None) -> tuple[bool, str]:
    """CP Thm 5 (proved in cp-theorem-5) on exact instances: the engine's exact hockey-stick
    delta of sampled strongly-safe k-anonymization, D = n copies of g(t) vs D_-t, never exceeds
    the certified d(k, beta, eps) (worstcase.closed_forms.d_certified)."""
    from dps_verify.mechanisms.k_anonymization import StronglySafeKAnonymizer
    from dps_verify.worstcase.closed_forms import d_certified

    count = 0
    for k, beta, eps in ((2, Fraction(1, 2), "ln(3)"), (3, Fraction(1, 4), "ln(2)"),
                         (2, Fraction(1, 3), "ln(2)")):
        anon = StronglySafeKAnonymizer(lambda r: r, k)
        bound = d_certified(k, beta, eps)
        for n in range(1, 9):
            p = distribution(anon, ("x",) * n, beta)
            q = distribution(anon, ("x",) * (n - 1), beta)
            got = delta_certified(p, q, eps)
            if got.lower > bound.upper:
                return False, f"k={k}, beta={beta}, eps={eps}, n={n}: delta {got.lower} > d"
            count += 1
    return True, f"{count} exact instances (k in 2, 3; n <= 8): engine delta <= certified d"
