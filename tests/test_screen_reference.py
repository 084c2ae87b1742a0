"""The float screen of verdict/screen.py is tight as well as sound: on laws with no output near
the edge e^ε its error is the documented one, so it decides the pairs itself instead of sending
them all to exact arithmetic (a loose screen is still sound, but every pair it cannot settle costs
an exact decision).  References: the exact δ of each definition from ``Fraction`` sums (CP Def. 2,
TR Def. 2) and the error terms of the module docstring (G = terms + m + 2 per probability, L
outputs, u = 2^-53)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dps_verify.verdict import screen

U = 2.0**-53
TERMS, M = 4, 2  # as passed below: G = TERMS + M + 2 = 8


def _decide(P, Q, e, d, pointwise):
    Pf = np.array([float(x) for x in P])
    Qf = np.array([float(x) for x in Q])
    return screen._decide_float(Pf, Qf, np.zeros(len(P), dtype=np.int64), 1, e, d, pointwise,
                                np.array([TERMS]), np.array([len(P)]), M)


def _exact_pointwise(P, Q, E):
    bad = [i for i in range(len(P)) if P[i] > E * Q[i] or Q[i] > E * P[i]]
    return max(sum((P[i] for i in bad), Fraction(0)), sum((Q[i] for i in bad), Fraction(0)))


# every ratio P/Q far from e^ε = 2 and from 1/2 (at least 20 % away): bad outputs on both sides
FAR = [
    ([Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)], [Fraction(1, 10), Fraction(3, 10), Fraction(6, 10)]),
    ([Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], [Fraction(1, 5), Fraction(35, 100), Fraction(45, 100)]),
    ([Fraction(1, 10), Fraction(9, 10)], [Fraction(7, 10), Fraction(3, 10)]),  # Q-side only
]


@pytest.mark.parametrize("P, Q", FAR)
def test_pointwise_float_screen_has_only_the_rounding_error_away_from_the_edge(P, Q):
    ref = _exact_pointwise(P, Q, Fraction(2))
    G = TERMS + M + 2
    st, dh, er = _decide(P, Q, 2.0, float(ref) / 2, True)
    assert abs(dh[0] - float(ref)) <= er[0]
    # lower and upper end both count exactly the bad outputs: only relative errors remain
    assert er[0] <= 2 * G * U * float(ref) + len(P) * U + 4 * U + 1e-30
    assert st[0] == 1  # δ = ref > ref/2 decided by the screen
    st, _, _ = _decide(P, Q, 2.0, float(ref) * 1.01, True)
    assert st[0] == 0  # cleared by the screen, no exact decision needed


@pytest.mark.parametrize("P, Q", FAR)
def test_hockey_stick_float_screen_error_is_the_documented_bound(P, Q):
    G = TERMS + M + 2
    _, _, er = _decide(P, Q, 2.0, 0.5, False)
    assert er[0] == 2.0 * (G + len(P) + 8) * U * (1.0 + 2.0)


@pytest.mark.parametrize("pointwise", [False, True])
def test_float_screen_settles_laws_with_every_ratio_well_inside_the_edge_as_zero(pointwise):
    """Ratios within [2/3, 3/2] at e^ε = 2: no output can be on the bad side, so δ = 0 exactly
    and a claim δ = 0 (hockey-stick; pointwise: 10^-12, above its 4u floor) is cleared by the
    screen."""
    P = [Fraction(3, 10), Fraction(3, 10), Fraction(4, 10)]
    Q = [Fraction(1, 4), Fraction(4, 10), Fraction(35, 100)]
    st, dh, er = _decide(P, Q, 2.0, 1e-12 if pointwise else 0.0, pointwise)
    assert st[0] == 0 and dh[0] <= er[0]
    if not pointwise:
        assert dh[0] == 0.0 and er[0] == 0.0
    else:
        assert er[0] <= len(P) * U + 4 * U + 1e-30


def test_float_screen_with_an_exact_tie_at_the_edge_sends_the_pair_to_exact_arithmetic():
    """P = e^ε·Q exactly (not bad: the bad set is P > e^ε Q) with the claim 0: the float screen
    cannot tell the side, so status 2 under both definitions."""
    P = [Fraction(1, 2), Fraction(1, 2)]
    Q = [Fraction(1, 4), Fraction(3, 4)]
    for pointwise in (False, True):
        st, _, _ = _decide(P, Q, 2.0, 0.0, pointwise)
        assert st[0] == 2


@pytest.mark.parametrize("missing", [0, 2, 9])
def test_a_sub_sample_missing_from_the_table_is_refused_not_looked_up_wrongly(missing):
    """The screen looks each sub-sample up by its key; one absent from the sorted table (below,
    among or above the present keys) is a RuntimeError naming it, never a neighbouring row."""
    keys = np.array([k for k in (0, 2, 5, 9) if k != missing], dtype=np.int64)
    tab = {"pow": np.array([1], dtype=np.int64), "keys_sorted": keys,
           "rows_sorted": np.arange(len(keys), dtype=np.int64)}
    present = screen._keys_to_rows(tab, keys.reshape(-1, 1))
    assert present.tolist() == list(range(len(keys)))
    with pytest.raises(RuntimeError, match="missing"):
        screen._keys_to_rows(tab, np.array([[missing]], dtype=np.int64))
    with pytest.raises(RuntimeError, match="missing"):
        screen._keys_to_rows(tab, np.array([[12]], dtype=np.int64))  # above every key


def test_float_screen_of_a_randomized_anonymizer_matches_the_exact_laws():
    """A randomized anonymizer with three outputs of different probabilities per sample (each
    output probability must be read from its own slot): the exhaustive search's screened worst δ
    and its verdicts on both sides of the exact worst δ, computed from the engine's exact laws
    (CP Def. 2) over every pair of size ≤ 3."""
    import itertools

    import dps_verify
    from dps_verify.core.types import Claim
    from dps_verify.engine.randomized import randomized
    from dps_verify.measures.divergence import delta_certified
    from dps_verify.verdict.exact_search import exhaustive_search

    def noisy(s):
        c = sum(1 for r in s if r == 1)
        return {c: Fraction(1, 2), c + 1: Fraction(1, 3), c + 2: Fraction(1, 6)}

    A = randomized(noisy)
    beta, eps = Fraction(1, 2), Fraction(1, 2)
    worst = Fraction(0)
    for n in range(1, 4):
        for D in itertools.combinations_with_replacement([0, 1], n):
            for i in range(n):
                P = dps_verify.distribution(A, list(D), beta).exact
                Q = dps_verify.distribution(A, list(D[:i] + D[i + 1:]), beta).exact
                worst = max(worst, delta_certified(P, Q, eps).upper)
    held = exhaustive_search(A, [0, 1], Claim(beta, eps, worst), max_size=3, executor="serial")
    assert held.witness is None and held.worst is not None
    assert abs(held.worst["delta_screened"] - float(worst)) <= 1e-12
    broken = exhaustive_search(A, [0, 1], Claim(beta, eps, worst * Fraction(999, 1000)),
                               max_size=3, executor="serial")
    assert broken.witness is not None and broken.witness.implied_delta > worst * Fraction(999, 1000)
