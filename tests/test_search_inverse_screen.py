"""min_k through a float screen + exact neighbours: the answer is the certified extremal k,
the screen only saves evaluations, and its one-group-size refutation is sound."""

from fractions import Fraction

import pytest

from dps_verify import bounds, exact
from dps_verify.core.params import beta_edge, epsilon_param
from dps_verify.inverse import screen as inverse_screen
from dps_verify.inverse.screen import certified_value_above, min_k_screen
from dps_verify.worstcase import sdgs

GRID = [(e, dl) for e in ("0.5", "1", "1.5", "2") for dl in ("1e-5", "1e-6", "1e-8")]


def _delta(k, b, e, bound):
    return bounds.d_certified(k, b, e) if bound == "paper" else exact.sdgs_delta_certified(k, b, e, bound)


@pytest.mark.parametrize("bound", ["paper", "hockey-stick"])
def test_min_k_grid_at_the_edge_is_extremal_and_the_screen_is_exact(bound):
    for e, dl in GRID[::2] if bound == "hockey-stick" else GRID:
        eps, b, d = Fraction(e), beta_edge(Fraction(e)), Fraction(dl)
        k = bounds.min_k(b, e, dl, bound)
        assert _delta(k, b, e, bound).upper <= d < _delta(k - 1, b, e, bound).lower
        s = min_k_screen(b, eps, d, bound)
        assert s is not None and s.guess == k  # the float screen lands on the answer here
        assert s.refutes(k - 1) and not s.refutes(k)


@pytest.mark.parametrize("bound", ["paper", "pointwise", "hockey-stick"])
def test_refutation_is_sound_near_the_answer(bound):
    """Whenever the one-group-size certificate says δ(k) > target, the full scan agrees."""
    b, e, d = Fraction(3, 10), Fraction(1, 2), Fraction(1, 10**4)
    s = min_k_screen(b, e, d, bound)
    assert s is not None
    for k in range(max(1, s.guess - 4), s.guess + 4):
        c = bounds.d_certified(k, b, e) if bound == "paper" else exact.sdgs_delta_certified(k, b, e, bound)
        if s.refutes(k):
            assert c.lower > d
        if c.upper <= d:
            assert not s.refutes(k)


@pytest.mark.parametrize("shift", [-7, -1, 1, 9])
def test_a_wrong_screen_costs_time_not_the_answer(monkeypatch, shift):
    want = bounds.min_k("edge", "1", "1e-6")
    real = inverse_screen.min_k_screen

    def off(*a, **kw):
        s = real(*a, **kw)
        s.guess = max(1, s.guess + shift)
        return s

    monkeypatch.setattr(inverse_screen, "min_k_screen", off)
    assert bounds.min_k("edge", "1", "1e-6") == want


def test_negative_control_dropping_the_n_m_guard_breaks_the_certificate(monkeypatch):
    """CP Thm 5's d only maximises over n ≥ n_m(k); a certificate that forgets the guard
    'refutes' the true answer (and min_k would then return a k that is too large)."""
    b = beta_edge(Fraction(1))
    k = bounds.min_k(b, 1, "1e-6")
    nm = sdgs.n_min(k, b, Fraction(1))
    assert not certified_value_above(k, nm - 3, b, Fraction(1), Fraction(1, 10**6), "paper")
    monkeypatch.setattr(sdgs, "n_min", lambda *a: 1)
    assert certified_value_above(k, nm - 3, b, Fraction(1), Fraction(1, 10**6), "paper")


def test_screen_declines_where_it_does_not_apply():
    assert min_k_screen(Fraction(1, 2), Fraction(0), Fraction(1, 10**6), "paper") is None  # ε = 0
    assert min_k_screen(Fraction(1, 2), Fraction(1), Fraction(1), "paper") is None  # δ = 1
    assert min_k_screen(Fraction(1, 10**6), Fraction(1, 10**6), Fraction(1, 10**9), "paper") is None  # N huge
    # exact-log ε: the screen and the certificate work with e^ε = 11 exactly
    ln11 = epsilon_param("ln(11)")
    s = min_k_screen(Fraction(10, 11), ln11, Fraction(1, 10**6), "paper")
    assert s is not None and s.guess == bounds.min_k("edge", ln11, "1e-6")


@pytest.mark.parametrize("bound", ["pointwise", "hockey-stick"])
def test_outside_the_regime_only_refutations_and_they_are_sound(bound, monkeypatch):
    """β = 1/2, ε = 3/10 < ln 2: no guess; every refutation agrees with the full scan, and the
    pointwise k-by-k check (δ not monotone in k there) gives the same answer with and without."""
    b, e, d = Fraction(1, 2), Fraction(3, 10), Fraction(1, 10**3)
    s = min_k_screen(b, e, d, bound)
    assert s is not None and s.guess is None
    refuted = 0
    for k in range(1, 40, 3):
        if s.refutes(k):
            refuted += 1
            assert exact.sdgs_delta_certified(k, b, e, bound).lower > d
    assert refuted >= 3
    want = bounds.min_k(b, e, d, bound)
    monkeypatch.setattr(inverse_screen, "min_k_screen", lambda *a, **kw: None)
    assert bounds.min_k(b, e, d, bound) == want
