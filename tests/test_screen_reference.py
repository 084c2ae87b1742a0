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
