"""Exact worst case of sampled strongly-safe k-anonymization (CP Thm 5) versus brute force."""

from fractions import Fraction

import pytest

from dps_verify import bounds, exact
from dps_verify import mechanisms as M
from dps_verify.worstcase.sdgs import n_min, scan_paper_regime
from dps_verify.worstcase.sdgs_generic import scan_generic

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


# ---- exact on both sides of the regime edge -----------------------------------------------------

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
    this input, tests/test_worstcase_extreme_parameters.py) has its own budget, also naming beta and epsilon."""
    from dps_verify.core.errors import CertificationError
    from dps_verify.worstcase import sdgs
    from dps_verify.worstcase.long_range import sdgs_by_segments

    b, e = Fraction(1, 10**12), Fraction(1, 10**13)
    with pytest.raises(CertificationError, match="epsilon"):
        sdgs.scan(5, b, e, measure="hockey-stick", long_range=False)
    with pytest.raises(CertificationError, match="SEGMENT_BUDGET = 2 .*beta = 1e-12 and epsilon = 1e-13"):
        sdgs_by_segments(5, b, e, "hockey-stick", sdgs._Exp(e), sdgs.kl_lower(b, e), sdgs.kl_lower_below, budget=2)


# ---- the certified closed forms near the float limit ------------------------------------
# The scan's float screens (KL exponent, −ln of the best value, start/threshold guesses) only
# order the work; the e^ε enclosure, the Chernoff stop and the hockey-stick ends are ball or
# integer arithmetic.  Each piece is checked against exact Fraction arithmetic
# (core.numbers.exp_compare decides e^ε against a rational exactly), on both sides of every
# boundary, with negative controls.

from dps_verify.core.binomial import upper_tail  # noqa: E402
from dps_verify.core.errors import ParameterError  # noqa: E402
from dps_verify.core.numbers import exp_compare  # noqa: E402
from dps_verify.core.params import beta_edge  # noqa: E402
from dps_verify.worstcase import sdgs  # noqa: E402


def _brute_d(k, beta, eps, n_max):
    """CP Thm 5's d by definition, in Fractions: n ≥ n_m ⇔ γ(n+1) ≥ k ⇔ (n+1−k)e^ε ≥
    (n+1)(1−β); j > γn ⇔ j = n or (n−j)e^ε < n(1−β); every n < n_max.  (max, argmax)."""
    best, arg = Fraction(-1), None
    for n in range(1, n_max):
        if n + 1 - k <= 0 or exp_compare(eps, Fraction((n + 1) * (1 - beta)) / (n + 1 - k)) < 0:
            continue
        j = next(j for j in range(n + 1) if j == n or exp_compare(eps, n * (1 - beta) / (n - j)) < 0)
        v = upper_tail(j, n, beta)
        if v > best:
            best, arg = v, n
    return best, arg


D_EDGES = [
    (1, Fraction(1, 3), Fraction(1)),  # k = 1
    (3, Fraction(1, 3), Fraction(1)),  # argmax above n_m
    (4, Fraction(1, 2), Fraction(1)),  # argmax above n_m
    (3, Fraction(1, 500), Fraction(1, 2)),  # β → 0
    (4, Fraction(99, 100), Fraction(5)),  # β → 1 (needs ε ≥ ln 100 ≈ 4.61)
    (4, Fraction(1, 10), Fraction(105361, 10**6)),  # ε just above −ln(0.9) = 0.1053605…
    (5, beta_edge(Fraction(1, 2)), Fraction(1, 2)),  # β = the edge, rounded down
    (60, Fraction(1, 2), Fraction(1)),  # larger k
]


@pytest.mark.parametrize("k,beta,eps", D_EDGES)
def test_d_equals_fraction_brute_force_at_the_edges(k, beta, eps):
    c = bounds.d_certified(k, beta, eps)
    n_max = max(4 * c.details["argmax_n"], 40)
    ref, arg = _brute_d(k, beta, eps, n_max)
    assert c.lower <= ref <= c.upper and c.details["argmax_n"] == arg
    # exact unless the tails were truncated (β = edge has a 10^40 denominator): then 2^-140 wide
    assert c.exact or (c.upper - c.lower) * 2**130 <= c.upper


def test_d_just_outside_the_regime_is_refused():
    """ε = −ln(1−β) is the edge: just below it (β a hair above 1 − e^−ε) CP Thm 5 does not apply."""
    with pytest.raises(ParameterError, match="-ln"):
        bounds.d_certified(4, Fraction(1, 10), Fraction(105360, 10**6))  # < −ln(0.9)
    with pytest.raises(ParameterError):
        bounds.d_certified(5, beta_edge(Fraction(1, 2)) + Fraction(1, 10**30), Fraction(1, 2))
    with pytest.raises(ParameterError):
        bounds.chernoff_delta(5, beta_edge(Fraction(1, 2)) + Fraction(1, 10**30), Fraction(1, 2))
    assert not sdgs.in_regime_fast(Fraction(1, 10), Fraction(105360, 10**6))
    assert sdgs.in_regime_fast(Fraction(1, 10), Fraction(105361, 10**6))
    assert not sdgs.in_regime_fast(Fraction(1, 10), Fraction(0))


HS_EDGES = [
    (1, Fraction(1, 3), Fraction(1)),
    (2, Fraction(1, 200), Fraction(1, 2)),
    (3, Fraction(99, 100), Fraction(5)),
    (3, Fraction(1, 10), Fraction(105361, 10**6)),  # just inside the regime
    (3, Fraction(1, 10), Fraction(105360, 10**6)),  # just outside: backward bad sets too
]


@pytest.mark.parametrize("k,beta,eps", HS_EDGES)
def test_hockey_stick_enclosure_contains_the_generic_engine(k, beta, eps):
    fast = exact.sdgs_delta_certified(k, beta, eps, "hockey-stick")
    slow = scan_generic(k, beta, eps, definition="hockey-stick", max_n=80)
    assert fast.lower <= slow.upper and slow.lower <= fast.upper
    assert fast.upper - fast.lower <= Fraction(1, 10**30) * max(fast.upper, Fraction(1, 10**300))


@pytest.mark.parametrize("eps", [Fraction(1, 10**30), Fraction(1, 3), Fraction(1), Fraction(105361, 10**6),
                                 Fraction(7, 2), Fraction(4095)])
def test_arb_exp_enclosure_brackets_e_to_the_epsilon(eps):
    sdgs.clear_caches()
    lo, hi, s = sdgs._exp_dyadic_arb(eps, 128)
    assert exp_compare(eps, Fraction(lo, 1 << s)) > 0 and exp_compare(eps, Fraction(hi, 1 << s)) < 0
    assert (hi - lo) * 2**100 <= lo  # about 128 bits
    # negative control: the same exact check rejects an enclosure moved by one unit of 2^-s
    # past e^ε's side (a mis-rounded end)
    assert not exp_compare(eps, Fraction(hi + (hi - lo) + 1, 1 << s)) > 0


def test_affine_ends_enclose_a_minus_e_eps_b():
    eps = Fraction(3, 4)
    E = sdgs._Exp(eps)
    for A, B in [(10**40, 4 * 10**39), (3**90, 3**89), (7**50, 0), (123456789, 57000000)]:
        lo, hi, s = sdgs._affine_iv(E, sdgs.mpz(A), sdgs.mpz(A), sdgs.mpz(B), sdgs.mpz(B))
        if B == 0:
            assert lo == hi == A << s
            continue
        # lo/2^s ≤ A − e^ε·B ⇔ e^ε ≤ (A − lo/2^s)/B, and A − e^ε·B ≤ hi/2^s ⇔ e^ε ≥ (A − hi/2^s)/B
        assert exp_compare(eps, (A - Fraction(int(lo), 1 << s)) / B) <= 0
        assert exp_compare(eps, (A - Fraction(int(hi), 1 << s)) / B) >= 0
        assert (hi - lo) << 60 <= hi


@pytest.mark.parametrize("N,beta,eps", [(30, Fraction(1, 10), Fraction(1)), (200, Fraction(1, 500), Fraction(1, 2)),
                                        (5, Fraction(99, 100), Fraction(70))])
def test_chernoff_stop_is_decided_soundly(N, beta, eps):
    """_chernoff_below(N, …, best) claims exp(−N·KL(γ‖β)) ≤ best: checked at 60 digits, and
    its negative control (a best 1e-9 relatively below the bound) is refused."""
    import mpmath

    with mpmath.workdps(60):
        b, e = mpmath.mpf(beta.numerator) / beta.denominator, mpmath.mpf(eps.numerator) / eps.denominator
        e = min(e, mpmath.mpf(64))
        g = 1 - (1 - b) * mpmath.exp(-e)
        bound = mpmath.exp(-N * (g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))))
        den = 2**400
        above = int(mpmath.ceil(bound * (1 + mpmath.mpf(10) ** -9) * den))
        below = int(mpmath.floor(bound * (1 - mpmath.mpf(10) ** -9) * den))
    assert sdgs._chernoff_below(N, beta, eps, above, den)
    assert not sdgs._chernoff_below(N, beta, eps, below, den)


@pytest.mark.parametrize("k,beta,eps", [(3, Fraction(1, 3), Fraction(1)), (4, Fraction(1, 2), Fraction(1)),
                                        (20, Fraction(1, 5), Fraction(1, 4))])
def test_lying_float_screens_do_not_change_the_certified_answer(monkeypatch, k, beta, eps):
    """Negative control for the screens: a KL screen that says "stop now" everywhere and a
    −ln(best) screen of 0 make the scan propose stopping at its first group size; the ball
    Chernoff test refuses until it is true, so d and the hockey-stick value are unchanged
    (and d still equals the Fraction brute force, whose argmax lies above n_m in two cases)."""
    d0 = bounds.d_certified(k, beta, eps)
    h0 = exact.sdgs_delta_certified(k, beta, eps)
    sdgs.clear_caches()
    monkeypatch.setattr(sdgs, "_float_kl_gamma", lambda *a: 1e300)
    monkeypatch.setattr(sdgs, "_ln_f", lambda x: 0.0)
    d1 = bounds.d_certified(k, beta, eps)
    h1 = exact.sdgs_delta_certified(k, beta, eps)
    assert (d1.lower, d1.upper, d1.details["argmax_n"]) == (d0.lower, d0.upper, d0.details["argmax_n"])
    assert (h1.lower, h1.upper) == (h0.lower, h0.upper)
    ref, arg = _brute_d(k, beta, eps, 4 * d0.details["argmax_n"] + 20)
    assert d1.lower == ref and d1.details["argmax_n"] == arg


def test_a_certifier_that_trusts_the_screen_is_caught(monkeypatch):
    """Mutant: the ball Chernoff test replaced by "yes" while the screen lies.  The scan then
    stops at n_m and misses the maximiser above it; the brute-force comparison catches it."""
    k, beta, eps = 3, Fraction(1, 3), Fraction(1)
    ref, arg = _brute_d(k, beta, eps, 40)
    sdgs.clear_caches()
    monkeypatch.setattr(sdgs, "_float_kl_gamma", lambda *a: 1e300)
    monkeypatch.setattr(sdgs, "_ln_f", lambda x: 0.0)
    monkeypatch.setattr(sdgs, "_chernoff_below", lambda *a: True)
    bad = bounds.d_certified(k, beta, eps)
    assert bad.lower < ref and bad.details["argmax_n"] != arg


@pytest.mark.parametrize("k,b,e", [(1, "0.5", "1"), (4, "0.99", "5"), (3, "1e-3", "0.7"), (10**6, "0.1", "1"),
                                   (20, "edge", "0.5"), (5, "0.1", "0.105361")])
def test_chernoff_delta_encloses_the_60_digit_value(k, b, e):
    import mpmath

    from dps_verify.core.params import resolve_beta

    beta = resolve_beta(b, Fraction(e))
    v = bounds.chernoff_delta(k, beta, e)
    with mpmath.workdps(60):
        bb = mpmath.mpf(beta.numerator) / beta.denominator
        ee = mpmath.mpf(Fraction(e).numerator) / Fraction(e).denominator
        g = 1 - (1 - bb) * mpmath.exp(-ee)
        ref = mpmath.exp(-k * (mpmath.log(g / bb) - (g - bb) / g))
        assert v >= ref and abs(v - ref) <= mpmath.mpf(2) ** -50 * ref


def test_hockey_stick_skip_only_when_certainly_below_the_best():
    """sdgs._hs_below_best (the scan skips a group size whose value is certainly ≤ the best
    lower end): true just above the exact value, false just below it (negative control)."""
    import mpmath

    E = sdgs._Exp(Fraction(1))
    A, B, qn = sdgs.mpz(10**40), sdgs.mpz(3 * 10**39), sdgs.mpz(10**45)
    with mpmath.workdps(60):
        v = (mpmath.mpf(10**40) - mpmath.e * 3 * 10**39) / 10**45
        den = 2**300
        above = int(mpmath.ceil(v * (1 + mpmath.mpf(10) ** -20) * den))
        below = int(mpmath.floor(v * (1 - mpmath.mpf(10) ** -20) * den))
    best = sdgs._Best()
    best.offer(sdgs.mpz(above), sdgs.mpz(above), sdgs.mpz(den), 7)
    assert sdgs._hs_below_best(E, A, B, qn, best)
    best = sdgs._Best()
    best.offer(sdgs.mpz(below), sdgs.mpz(below), sdgs.mpz(den), 7)
    assert not sdgs._hs_below_best(E, A, B, qn, best)
