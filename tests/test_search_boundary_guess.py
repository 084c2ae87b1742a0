"""core.search.boundary_rational with a float guess: the guess saves evaluations and never
changes what is certified; min_epsilon / max_beta stay extremal with their screens."""

from fractions import Fraction

import mpmath
import pytest

from dps_verify import bounds, exact
from dps_verify.core.search import boundary_rational

X = Fraction(3, 7)  # the boundary (not dyadic: never hit exactly)
TOL = Fraction(1, 10**9)


def _run(want, guess):
    calls = []

    def pred(x):
        calls.append(x)
        return x >= X if want == "least" else x <= X

    lo, hi = Fraction(0), Fraction(1)
    r = boundary_rational(pred, lo, hi, TOL, want=want, guess=guess)
    return r, calls


@pytest.mark.parametrize("want", ["least", "greatest"])
@pytest.mark.parametrize("guess", [None, X, X + Fraction(1, 10**12), X - Fraction(3, 10**8), Fraction(99, 100),
                                   Fraction(1, 100), Fraction(0), Fraction(1)])
def test_guess_never_changes_the_certified_answer(want, guess):
    r, calls = _run(want, guess)
    assert (r >= X) if want == "least" else (r <= X)  # pred(r)
    assert abs(r - X) <= TOL  # a failing point within tol was evaluated
    failing = [c for c in calls if (c < X if want == "least" else c > X)]
    assert failing and min(abs(c - r) for c in failing) <= TOL


def test_a_good_guess_costs_a_few_evaluations():
    _, no_guess = _run("least", None)
    _, good = _run("least", X + Fraction(1, 10**12))
    assert len(no_guess) >= 29 and len(good) <= 4


def test_min_epsilon_and_max_beta_stay_extremal_with_their_screens():
    tol = mpmath.mpf("1e-9")
    e = bounds.min_epsilon(20, "0.1", "1e-6", "hockey-stick")
    assert exact.sdgs_delta(20, "0.1", e) <= 1e-6 < exact.sdgs_delta(20, "0.1", e - tol)
    e = bounds.min_epsilon(61, "0.3", "1e-8")
    assert bounds.d(61, "0.3", e) <= 1e-8 < bounds.d(61, "0.3", e - tol)
    b = bounds.max_beta(61, "ln(11)", "1e-8", "hockey-stick")
    assert exact.sdgs_delta(61, b, "ln(11)") <= 1e-8 < exact.sdgs_delta(61, b + tol, "ln(11)")


@pytest.mark.parametrize("k,b,e,bound", [(10, "0.6", "0.3", "hockey-stick"), (10, "0.6", "0.3", "pointwise"),
                                         (5, "0.7", "0.5", "pointwise"), (40, "0.25", "0.28", "hockey-stick")])
def test_the_float_screen_below_the_edge_tracks_the_exact_value(k, b, e, bound):
    """The screen's doubles (forward + backward + suppressed outcome) agree with the certified
    value to ~1e-9 relative; a guess, never a verdict."""
    from dps_verify.inverse.screen import _delta_float_outside

    v = exact.sdgs_delta_certified(k, b, e, bound)
    f = _delta_float_outside(k, float(b), float(e), 1e-9, bound, 10**6)
    assert f is not None and abs(f - float(v.upper)) <= 1e-9 * float(v.upper)


def test_min_epsilon_below_the_edge_is_extremal_with_the_guess():
    tol = mpmath.mpf("1e-9")
    for bound in ("hockey-stick", "pointwise"):
        e = bounds.min_epsilon(100, "0.5", "1e-6", bound)
        assert e < mpmath.log(2)  # below CP Thm 5's edge −ln(1 − 1/2)
        assert exact.sdgs_delta(100, "0.5", e, bound) <= 1e-6 < exact.sdgs_delta(100, "0.5", e - tol, bound)
