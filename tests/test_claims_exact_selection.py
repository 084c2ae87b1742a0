"""Grid points, β searches and region crossings behind the claims and
figures are decided exactly or by certified enclosures, never by float thresholds.  Each
boundary is tested on both sides against a direct computation."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from dps_verify import bounds, exact
from dps_verify.core.binomial import pmf
from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import exp_compare
from dps_verify.core.params import beta_edge, in_paper_regime
from dps_verify.paper import figures
from dps_verify.paper.claims import beyond, cp_section3
from dps_verify.paper.claims.base import CORRECTED, REFUTED
from dps_verify.worstcase.closed_forms import neg_log1m_upper

BETA5 = Fraction(1, 40)


# ------------------------------------------------------------------ cp.fig5.k1: exact split
def test_fig5_k1_split_both_sides_of_ln_1_95():
    a, b = cp_section3.log_bracket(2 * (1 - BETA5))
    assert 0 < b - a <= Fraction(2, 10**15)
    assert exp_compare(a, Fraction(39, 20)) < 0 <= exp_compare(b, Fraction(39, 20))
    assert not cp_section3.fig5_k1_d_is_beta(a) and cp_section3.fig5_k1_d_is_beta(b)
    below, above = bounds.d_certified(1, BETA5, a), bounds.d_certified(1, BETA5, b)
    # brute force: just below, n = 2 is admissible (γ < 1/2) and its bad mass is Pr[Bin(2, β) ≥ 1]
    assert below.lower >= 1 - (1 - BETA5) ** 2 > BETA5
    assert above.lower == above.upper == BETA5  # n = 1 alone: Pr[Bin(1, β) = 1] = β
    assert pmf(1, 1, BETA5) == BETA5


def test_fig5_k1_is_corrected_and_a_wrong_split_is_refuted():
    assert cp_section3.check_fig5_k1().verdict == CORRECTED
    # γ ≥ 1/2 misread as e^ε ≥ 2: the points just above ln 1.95 have d = β although "not past"
    assert cp_section3.check_fig5_k1(split=Fraction(2)).verdict == REFUTED
    # a split below the true one: points just below ln 1.95 would have to equal β
    assert cp_section3.check_fig5_k1(split=Fraction(19, 10)).verdict == REFUTED


def test_eps_grid_membership_is_exact_at_the_edge():
    e = Fraction(1, 4)
    inside = beta_edge(e)  # rounded down: −ln(1 − inside) ≤ 1/4
    outside = inside + Fraction(1, 10**30)  # −ln(1 − outside) > 1/4 by ~1e-30
    assert in_paper_regime(inside, e) and not in_paper_regime(outside, e)
    assert e in figures.eps_grid(str(inside))
    assert e not in figures.eps_grid(str(outside))
    assert figures.eps_grid(str(inside))[0] == e
    assert figures.eps_grid("0.2")[0] == Fraction(1, 4)  # −ln 0.8 ≈ 0.223
    assert figures.eps_grid("0.2")[-1] == 2


# ------------------------------------------------------------------ beyond.*: certified β search
@pytest.mark.parametrize(("beta", "eps"), [("0.1", "1.0"), ("0.2", "0.25"), ("0.05", "2.0")])
def test_beyond_max_beta_is_certified_on_both_sides(beta, eps):
    target = bounds.d_certified(20, beta, eps).upper
    b = beyond.max_beta_exact(beta, eps, target)
    tol = beyond.BETA_TOL

    def delta(x: Fraction):
        return exact.sdgs_delta_certified(20, x, eps, "hockey-stick")
    assert delta(b).upper <= target
    edge = beta_edge(Fraction(eps), grid_bits=48)
    if b == edge:  # (0.2, 0.25): the whole regime qualifies
        assert (beta, eps) == ("0.2", "0.25")
    else:
        assert delta(b + tol).lower > target
    assert b >= Fraction(beta) - tol


def test_beyond_beta_search_rejects_a_wrong_target():
    target = bounds.d_certified(20, "0.1", "1.0").upper
    assert beyond.max_beta_exact("0.1", "1.0", target / 1000) < Fraction(1, 10) - beyond.BETA_TOL
    assert beyond.check_cell("0.1", "1.0").verdict != REFUTED
    assert beyond.check_cell("0.1", "1.0", "below-exact").verdict == REFUTED


# ------------------------------------------------------------------ fig-beta-gt-delta crossings
def test_sign_changes_finds_every_crossing_of_a_two_crossing_predicate():
    def decide(x: Fraction) -> bool | None:  # True outside (1/3, 2/3); undecided exactly at the ends
        v = (x - Fraction(1, 3)) * (x - Fraction(2, 3))
        return None if v == 0 else v > 0
    grid = [Fraction(i, 10) for i in range(11)]
    cs = figures.sign_changes(decide, grid, Fraction(1, 1000))
    assert [v for *_, v in cs] == [True, False]
    (a1, b1, _), (a2, b2, _) = cs
    assert a1 < Fraction(1, 3) < b1 and b1 - a1 <= Fraction(1, 500)
    assert a2 < Fraction(2, 3) < b2 and b2 - a2 <= Fraction(1, 500)
    assert decide(a1) is True and decide(b1) is False and decide(a2) is False and decide(b2) is True


def test_region_chart_refuses_more_than_one_crossing(monkeypatch):
    def fake(k, beta, eps):  # d ≥ β, then below, then ≥ β again: contradicts monotonicity
        return not (Fraction(1, 2) < eps < Fraction(1))
    monkeypatch.setattr(figures, "d_reaches_beta", fake)
    with pytest.raises(CertificationError, match="crosses"):
        figures.beta_gt_delta_boundary(2, "0.05")


@pytest.mark.parametrize(("k", "beta"), [(2, "0.05"), (3, "0.2"), (4, "0.1"), (2, "0.3")])
def test_d_is_nonincreasing_in_eps_and_crosses_beta_at_most_once(k, beta):
    """The monotonicity proof in figures.beta_gt_delta_crossings, checked with certified
    enclosures on a grid: no certified increase between neighbours, one crossing at most."""
    b = Fraction(beta)
    grid = [e for e in (Fraction(i, 100) for i in range(1, 151)) if in_paper_regime(b, e)]
    cs = [bounds.d_certified(k, b, e) for e in grid]
    assert not any(nxt.lower > prev.upper for prev, nxt in zip(cs, cs[1:]))
    signs = [True if c.lower >= b else False if c.upper < b else None for c in cs]
    decided = [s for s in signs if s is not None]
    assert sum(x != y for x, y in zip(decided, decided[1:])) <= 1
    crossings = figures.beta_gt_delta_crossings(k, beta)
    assert len(crossings) == (1 if decided[0] else 0)
    for lo, hi, before in crossings:
        assert before is True and hi - lo <= Fraction(1, 10**4)
        assert bounds.d_certified(k, b, lo).lower >= b > bounds.d_certified(k, b, hi).upper
        lo_f, hi_f = figures.beta_gt_delta_boundary(k, beta)
        assert (lo_f, hi_f) == (float(lo), float(hi))


def test_region_is_empty_when_d_is_below_beta_at_the_edge():
    lo, hi = figures.beta_gt_delta_boundary(2, "0.3")
    assert lo == hi == pytest.approx(-math.log(0.7))
    assert figures.d_reaches_beta(2, "0.3", neg_log1m_upper(Fraction(3, 10))) is False


# ------------------------------------------------------------------ cp.fig4: certified matching
def test_fig4_minimax_tie_at_beta_0_4_is_exact_and_goes_to_the_smaller_k():
    start, e = figures.FIG4_START, Fraction(6, 10)
    assert figures.delta_certified(69, "0.4", e).lower == figures.delta_certified(70, "0.4", e).upper
    g69, g70 = figures.log_gap(69, "0.4", start), figures.log_gap(70, "0.4", start)
    assert g69[0] == g69[1] == g70[0] == g70[1]  # the same exact rational: a true tie
    assert figures.fig4_matching_k("0.4", "minimax")[0] == 69
    assert figures.log_gap(68, "0.4", start)[0] > g69[1] and figures.log_gap(71, "0.4", start)[0] > g69[1]


def test_fig4_matching_refuses_an_undecided_minimum(monkeypatch):
    def blurred(k, beta, ref):  # every key overlaps the next: nothing can be certified
        return Fraction(1), Fraction(2) + Fraction(abs(k - 40), 10)
    monkeypatch.setitem(figures.FIG4_CRITERIA, "blurred", ("test", blurred, float))
    with pytest.raises(CertificationError, match="not certified"):
        figures.fig4_matching_k.__wrapped__("0.2", "blurred")


def test_beyond_exact_delta_rises_with_beta_on_a_grid():
    """Evidence for the (unproven) monotonicity behind max_beta_exact: on a 24-point grid from β
    to the answer, the exact δ never certifiedly drops, and every point meets the target."""
    beta, eps = "0.1", "1.0"
    target = bounds.d_certified(20, beta, eps).upper
    top = beyond.max_beta_exact(beta, eps, target)
    grid = [Fraction(beta) + (top - Fraction(beta)) * i / 24 for i in range(25)]
    cs = [exact.sdgs_delta_certified(20, b, eps, "hockey-stick") for b in grid]
    assert all(c.upper <= target for c in cs)
    assert not any(nxt.upper < prev.lower for prev, nxt in zip(cs, cs[1:]))
