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
    best_hs, best_pw = Fraction(0), Fraction(0)
    for n in range(1, 3 * k + 4):
        D = [("g", i) for i in range(n)] + [("h", 0)] * 2
        P = exact.distribution(A, D, beta)
        Q = exact.distribution(A, D[1:], beta)
        best_hs = max(best_hs, exact.delta_certified(P, Q, eps).upper)
        best_pw = max(best_pw, exact.pointwise_delta_exact(P, Q, eps))
    hs = exact.sdgs_delta_certified(k, beta, eps, "hockey-stick")
    pw = exact.sdgs_delta_certified(k, beta, eps, "pointwise")
    if hs.details["argmax_n"] <= 3 * k + 3:
        assert abs(best_hs - hs.upper) <= Fraction(1, 10**25)
    if pw.details["argmax_n"] <= 3 * k + 3:
        assert best_pw == pw.upper
    assert best_hs <= hs.upper and best_pw <= pw.upper


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
