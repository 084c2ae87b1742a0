"""Exact worst case of sampled strongly-safe k-anonymization (CP Thm 5) versus brute force."""

from fractions import Fraction

import pytest

from dps_verify import bounds, exact
from dps_verify import mechanisms as M
from dps_verify.measures.sdgs import n_min, scan_generic, scan_paper_regime

CASES = [
    (2, Fraction(1, 2), Fraction(1)),
    (3, Fraction(1, 3), Fraction(1, 2)),
    (3, Fraction(1, 5), Fraction(1, 4)),
    (4, Fraction(1, 4), Fraction(3, 2)),
]


@pytest.mark.parametrize("k,beta,eps", CASES)
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_fast_scan_equals_generic_engine(k, beta, eps, definition):
    fast = exact.sdgs_delta_certified(k, beta, eps, definition)
    slow = scan_generic(k, beta, eps, definition=definition, max_n=120)
    assert slow.lower == fast.lower or abs(slow.lower - fast.lower) <= Fraction(1, 10**30)
    assert fast.details["argmax_n"] == slow.details["argmax_n"]


@pytest.mark.parametrize("k,beta,eps", CASES)
def test_closed_form_equals_brute_force_over_datasets(k, beta, eps):
    """Enumerate real datasets (t's group of size n plus another group) with distribution()."""
    A = M.StronglySafeKAnonymizer(lambda r: r[0], k)
    best_hs, best_hs_lo, best_pw = Fraction(0), Fraction(0), Fraction(0)
    for n in range(1, 3 * k + 4):
        D = [("g", i) for i in range(n)] + [("h", 0)] * 2
        P = exact.distribution(A, D, beta)
        Q = exact.distribution(A, D[1:], beta)
        c = exact.delta_certified(P, Q, eps)
        best_hs, best_hs_lo = max(best_hs, c.upper), max(best_hs_lo, c.lower)
        best_pw = max(best_pw, exact.pointwise_delta_exact(P, Q, eps))
    hs = exact.sdgs_delta_certified(k, beta, eps, "hockey-stick")
    pw = exact.sdgs_delta_certified(k, beta, eps, "pointwise")
    if hs.details["argmax_n"] <= 3 * k + 3:
        assert abs(best_hs - hs.upper) <= Fraction(1, 10**25)
    if pw.details["argmax_n"] <= 3 * k + 3:
        assert best_pw == pw.upper
    # both hockey-stick values are enclosures of irrational numbers (e^ε): the brute force's
    # certified lower end must not exceed the scan's certified upper end
    assert best_hs_lo <= hs.upper and best_pw <= pw.upper


@pytest.mark.parametrize("k,beta,eps", [(20, Fraction(1, 10), Fraction(1)), (5, Fraction(1, 5), Fraction(1))] + CASES)
def test_pointwise_worst_case_equals_papers_d(k, beta, eps):
    """CP App. A.2: sup over all n equals the max over n >= n_m (monotone below n_m)."""
    assert exact.sdgs_delta(k, beta, eps, "pointwise") == bounds.d(k, beta, eps)
    assert exact.sdgs_delta(k, beta, eps, "hockey-stick") <= bounds.d(k, beta, eps)


def test_negative_control_threshold_k_minus_1_exceeds_bound():
    """A suppression threshold of k-1 (off by one) is caught: its exact delta exceeds d(k)."""
    k, beta, eps = 3, Fraction(1, 2), Fraction(1)
    A_bad = M.StronglySafeKAnonymizer(lambda r: 0, k, threshold=k - 1)
    worst = Fraction(0)
    for n in range(1, 12):
        P = exact.distribution(A_bad, list(range(n)), beta)
        Q = exact.distribution(A_bad, list(range(n - 1)), beta)
        worst = max(worst, exact.pointwise_delta_exact(P, Q, eps))
    assert worst > bounds.d_certified(k, beta, eps).upper


def test_n_min_definition():
    for k, beta, eps in CASES:
        import math

        n = n_min(k, beta, eps)
        g = 1 - float(1 - beta) * math.exp(-float(eps))
        assert g * n < k <= g * (n + 1) + 1e-12


def test_outside_theorem_regime_is_still_certified():
    c = exact.sdgs_delta_certified(4, Fraction(1, 4), Fraction(1, 10), "hockey-stick")
    assert c.exact or c.upper - c.lower < Fraction(1, 10**20)
    assert c.lower > 0


def test_scan_reports_how_it_stopped():
    c = scan_paper_regime(20, Fraction(1, 10), Fraction(1), measure="paper-d")
    assert "Chernoff" in c.how and c.details["argmax_n"] == 29


# ---- issue #10 item 1 / #17: exact on both sides of the regime edge ---------------------------

import math  # noqa: E402

import mpmath  # noqa: E402

from dps_verify.core.params import in_paper_regime  # noqa: E402


@pytest.mark.parametrize(
    "args,ref",
    [
        ((61, 1 - math.exp(-1), 1.0), "6.0988e-7"),
        ((20, "0.3", "0.2"), "0.0017706"),
        ((40, "0.25", "0.28"), "1.5006e-6"),
        ((100, "1/10", "7/125", "pointwise"), "4.1375e-5"),
        ((100, "16/25", "179/250"), "2.0414e-7"),
        ((5, "0.5", 89), "0.03125"),
    ],
)
def test_repros_outside_and_inside_the_regime(args, ref):
    c = exact.sdgs_delta_certified(*args)
    assert c.upper - c.lower <= Fraction(1, 10**15) * c.upper
    assert mpmath.nstr(c.safe, 5) == ref


@pytest.mark.parametrize(
    "k,beta,eps",
    [(2, Fraction(1, 2), Fraction(1, 5)), (3, Fraction(3, 10), Fraction(1, 5)), (2, Fraction(2, 5), Fraction(1, 2)),
     (3, Fraction(1, 4), Fraction(0)), (2, Fraction(1, 3), Fraction(1, 3)), (4, Fraction(1, 5), Fraction(1, 10))],
)
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_fast_scan_equals_engine_on_both_sides_of_the_edge(k, beta, eps, definition):
    """Brute force: per-n laws through the generic engine (divergence.py) for n ≤ 150."""
    fast = exact.sdgs_delta_certified(k, beta, eps, definition)
    slow = scan_generic(k, beta, eps, definition=definition, max_n=150)
    assert fast.details["argmax_n"] <= 150
    assert abs(slow.lower - fast.lower) <= Fraction(1, 10**25) * max(fast.upper, Fraction(1, 10**300))
    assert fast.lower <= slow.upper


def test_both_sides_of_the_edge_are_covered_by_the_cases():
    sides = {in_paper_regime(b, e) for _, b, e in [(2, Fraction(1, 2), Fraction(1, 5)), (2, Fraction(1, 3), Fraction(1, 3))]}
    assert sides == {False}
    assert in_paper_regime(Fraction(1, 10), Fraction(1))


def test_edge_crossing_is_continuous():
    """Moving β by 1e-30 across 1 − e^−1 at k = 61 no longer jumps from 6.1e-7 to 0.026."""
    from dps_verify.core.params import beta_edge

    b = beta_edge(Fraction(1))
    lo = exact.sdgs_delta(61, b, 1)
    hi = exact.sdgs_delta(61, b + Fraction(1, 10**30), 1)
    assert abs(hi - lo) < 1e-12


def test_pointwise_at_epsilon_zero_is_one_attained_at_k():
    c = exact.sdgs_delta_certified(3, "1/4", 0, "pointwise")
    assert c.lower == c.upper == 1 and c.details["argmax_n"] == 3


def test_sdgs_budget_error_names_the_parameter():
    """The exact walk over n still refuses by estimate; the long-range path (which now answers
    this input, tests/test_issue17_scale.py) has its own budget, also naming beta and epsilon."""
    from dps_verify.core.errors import CertificationError
    from dps_verify.measures import sdgs
    from dps_verify.measures.long_range import sdgs_by_segments

    b, e = Fraction(1, 10**12), Fraction(1, 10**13)
    with pytest.raises(CertificationError, match="epsilon"):
        sdgs.scan(5, b, e, measure="hockey-stick", long_range=False)
    with pytest.raises(CertificationError, match="SEGMENT_BUDGET = 2 .*beta = 1e-12 and epsilon = 1e-13"):
        sdgs_by_segments(5, b, e, "hockey-stick", sdgs._Exp(e), True, sdgs.kl_lower(b, e), sdgs.kl_lower_below, budget=2)
