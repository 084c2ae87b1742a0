"""Edges of the exact worst-case scan (worstcase/sdgs.py) against references from the definitions.

The pieces of the exact walk that ordinary scans do not reach, each against exact Fractions or
mpmath at 60 digits:

* the exact comparisons and maxima of rationals (long integers past the cross-multiplication
  limit, near ties within 2^−40, exact ties, different denominators);
* truncated binomial tail sums: an enclosure of the exact sum, as tight as the documented
  2^−TAIL_BITS, and the empty/full tails;
* the thresholds where the float guess is far off (group sizes of 10^20 and more);
* the lower-tail Chernoff exponent at c ≤ 0 (−ln(1−β)) and at c = β (0);
* the tail bound's trivial cases, the refusals (unknown measure, value too large, exponent not
  certified, group sizes past 10^9) and a β built from GMP integers.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from math import comb

import gmpy2
import mpmath
import pytest

from dps_verify.core.errors import BudgetError, CertificationError, ParameterError
from dps_verify.worstcase import sdgs

F = Fraction
DPS = 60


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


# --- exact comparisons and maxima of rationals ---------------------------------------------


def _long_pairs():
    """(a, b, c, d) with a/b and c/d of several thousand bits: far apart, within 2^−40 (both
    sides), and equal with different representations."""
    b = (1 << 9000) + 12345
    d = (1 << 9100) + 777
    a = 3 * b // 7
    c = a * d // b  # c/d just below a/b (within one unit of 1/d)
    yield a, b, c, d
    yield a, b, c + 1, d  # just above
    yield a, b, 2 * a, 2 * b  # equal
    yield a, b, (a * d) // b // 2, d  # far below
    yield c, d, a, b


def test_cmp_of_long_fractions_equals_the_exact_comparison():
    """Past the 8192-bit cross-multiplication limit a float screen decides unless the two are
    within 2^−40; the sign must be the exact one in every case (near ties and ties included)."""
    for a, b, c, d in _long_pairs():
        a, b, c, d = map(gmpy2.mpz, (a, b, c, d))
        assert a.bit_length() + d.bit_length() > 8192
        assert sdgs._cmp(a, b, c, d) == _sign(F(int(a), int(b)) - F(int(c), int(d)))
        assert sdgs._cmp(c, d, a, b) == _sign(F(int(c), int(d)) - F(int(a), int(b)))


def test_cmp_decides_by_the_float_screen_only_outside_two_to_the_minus_40():
    """Long fractions 2^−39 apart (relative) are decided by the screen; 2^−41 apart they are
    within the screen's slack and decided exactly — the sign is the exact one either way."""
    b = gmpy2.mpz((1 << 9000) + 3)
    a = b // 3
    for shift in (38, 39, 41, 42):
        for sign in (1, -1):
            c = a * ((1 << shift) + sign)
            d = b << shift
            assert sdgs._cmp(c, d, a, b) == sign
            assert sdgs._cmp(a, b, c, d) == -sign


def test_cmp_of_zero_and_short_fractions():
    z = gmpy2.mpz
    assert sdgs._cmp(z(0), z(5), z(0), z(7)) == 0
    assert sdgs._cmp(z(0), z(5), z(1), z(7)) == -1
    assert sdgs._cmp(z(1), z(5), z(0), z(7)) == 1
    for a, b, c, d in [(1, 3, 2, 6), (1, 3, 1, 4), (1, 4, 1, 3)]:
        assert sdgs._cmp(z(a), z(b), z(c), z(d)) == _sign(F(a, b) - F(c, d))


@pytest.mark.parametrize("x, y", [
    ((1, 3, 7), (2, 5, 11)),  # different denominators, the second larger at both ends
    ((4, 6, 7), (2, 5, 11)),  # the first larger at both ends
    ((1, 6, 7), (2, 5, 11)),  # lower end from the second, upper end from the first
    ((3, 4, 9), (1, 2, 9)),  # the same denominator
    ((1, 2, 4), (2, 4, 8)),  # equal values, different denominators
])
def test_max_pair_is_the_max_of_each_end(x, y):
    lo, hi, den = sdgs._max_pair(x, y)
    assert F(int(lo), int(den)) == max(F(x[0], x[2]), F(y[0], y[2]))
    assert F(int(hi), int(den)) == max(F(x[1], x[2]), F(y[1], y[2]))
    lo, hi, den = sdgs._max_pair(y, x)
    assert F(int(lo), int(den)) == max(F(x[0], x[2]), F(y[0], y[2]))
    assert F(int(hi), int(den)) == max(F(x[1], x[2]), F(y[1], y[2]))


def test_max_frac_is_the_larger_value():
    z = gmpy2.mpz
    for num, den, x in [(1, 3, F(1, 2)), (2, 3, F(1, 2)), (1, 2, F(1, 2))]:
        n, d = sdgs._max_frac(z(num), z(den), x)
        assert F(int(n), int(d)) == max(F(num, den), x)


# --- truncated tail sums ----------------------------------------------------------------------


def _tail(n: int, T: int, p: int, q: int) -> int:
    return sum(comb(n, j) * p**j * (q - p) ** (n - j) for j in range(max(T, 0), n + 1))


def test_tail_enclosure_of_an_empty_or_full_tail():
    p, q = 1, 3
    for n in (0, 1, 5):
        for T in (-3, 0):
            assert sdgs.tail_enclosure(n, T, p, q) == (q**n, q**n) == (_tail(n, 0, p, q),) * 2
        assert sdgs.tail_enclosure(n, n + 1, p, q) == (0, 0)


@pytest.mark.parametrize("T", [0, -1])
def test_tail_enclosure_from_zero_is_the_exact_total_past_exact_tail_work(T):
    """Σ_{j≥T} N(n, j) for T ≤ 0 is the whole binomial sum, (p + (q − p))^n = q^n exactly, also
    where a tail from T ≥ 1 would be summed only to 2^−TAIL_BITS (n = 10000, q = 3: terms × n ×
    bits of q = 2·10^8 > EXACT_TAIL_WORK): a point, never a truncated enclosure of it."""
    n, p, q = 10_000, 1, 3
    assert (n + 1) * n * q.bit_length() > sdgs.EXACT_TAIL_WORK
    assert sdgs.tail_enclosure(n, T, p, q) == (q**n, q**n)


def test_truncated_tail_encloses_the_exact_sum_within_two_to_the_minus_tail_bits():
    """n = 3000, β = 2^16/(3·2^16) = 1/3 with 18-bit q (past EXACT_TAIL_WORK: the sum is
    truncated) from T just above the mean, where the term ratio is close to 1: lo ≤ exact ≤ hi
    and hi − lo ≤ 2^−TAIL_BITS·lo, with TAIL_BITS = 140 (and about that tight: above
    2^−142·lo, so the rule stops as soon as it may)."""
    n, p, q = 3000, 1 << 16, 3 << 16
    assert sdgs.TAIL_BITS == 140
    for T in (1010,):
        assert (n - T + 1) * n * q.bit_length() > sdgs.EXACT_TAIL_WORK
        lo, hi = sdgs.tail_enclosure(n, T, p, q)
        exact, c = 0, comb(n, T)  # Σ_{j ≥ T} C(n, j)·p^j·(q − p)^{n−j} with p = 2^16, q − p = 2^17
        for j in range(T, n + 1):
            exact += c << (16 * j + 17 * (n - j))
            c = c * (n - j) // (j + 1)
        assert lo <= exact <= hi
        assert (hi - lo) << 140 <= lo
        assert (hi - lo) << 142 > lo


# --- thresholds where the float guess is far off ---------------------------------------------


@pytest.mark.parametrize("n", [10**18 + 7, 10**20 + 7])
def test_slack_and_first_bad_at_huge_group_sizes(n):
    """slack(n) = the largest m ≥ 0 with m < n(1−β)e^−ε, first_bad(n) = n − slack(n): at
    n ≥ 10^20 the float guess is off by far more than its ±2 margin, so the walk must correct
    it in both directions (reference: mpmath at 60 digits)."""
    beta, eps = F(1, 3), F(1, 10)
    with mpmath.workdps(DPS):
        x = n * _mp(1 - beta) * mpmath.exp(-_mp(eps))
        want = int(mpmath.ceil(x)) - 1
    assert sdgs.slack(n, beta, eps) == want
    assert sdgs.first_bad(n, beta, eps) == n - want


def test_slack_walks_down_from_a_guess_that_is_too_high(monkeypatch):
    """A float guess far above the answer (a screen is never trusted) is walked down to it."""
    beta, eps, n = F(1, 3), F(1, 10), 1000
    with mpmath.workdps(DPS):
        want = int(mpmath.ceil(n * _mp(1 - beta) * mpmath.exp(-_mp(eps)))) - 1
    monkeypatch.setattr(sdgs, "eps_float", lambda e: -0.1)  # guess ≈ e^0.1·n(1−β), 122 too high
    assert sdgs.slack(n, beta, eps) == want


@pytest.mark.parametrize("k", [5, 10**18 + 3])
def test_least_start_and_first_bad_through_the_dyadic_enclosure(k):
    """_n_min_E(k) = the least n with γ(n+1) ≥ k, γ = 1 − (1−β)e^−ε, and _first_bad_E(n) =
    the least j > γn, at small and huge sizes (float guesses off by thousands), against mpmath."""
    beta, eps = F(1, 3), F(1, 2)
    E = sdgs._Exp(eps)
    q, r = beta.denominator, beta.denominator - beta.numerator
    with mpmath.workdps(DPS):
        g = 1 - _mp(1 - beta) * mpmath.exp(-_mp(eps))
        want_n = int(mpmath.ceil(k / g)) - 1
        n = 7 * k + 11
        want_j = int(mpmath.floor(g * n)) + 1
    assert sdgs._n_min_E(k, beta, eps, E) == want_n

    def fwd_bad(nn: int, j: int) -> bool:  # j > γn ⇔ (n−j)·q·e^ε < n·r
        return j >= nn or E.less((nn - j) * q, nn * r)

    assert sdgs._first_bad_E(n, beta, eps, fwd_bad) == want_j


# --- Chernoff exponents and tail bounds -------------------------------------------------------


@pytest.mark.parametrize("beta", [F(1, 3), F(1, 1000), F(999, 1000)])
def test_lower_tail_exponent_at_c_zero_is_minus_log_one_minus_beta(beta):
    """KL(0‖β) = −ln(1−β): the bound for c ≤ 0 is at most it and within 2^−40 of it."""
    with mpmath.workdps(DPS):
        want = -mpmath.log(_mp(1 - beta))
        for c in (F(0), F(-1, 5)):
            got = _mp(sdgs.kl_lower_below(c, beta))
            assert got <= want and got >= want * (1 - mpmath.mpf(2) ** -40)


def test_lower_tail_exponent_at_c_equal_beta_is_zero():
    """KL(β‖β) = 0, which no interval certifies positive: the bound is 0 (never above KL)."""
    for beta in (F(1, 3), F(1, 2)):
        assert sdgs.kl_lower_below(beta, beta) == 0


def test_tail_bound_trivial_cases():
    """At ε = 0 the pointwise value has no tail bound (1); outside the regime a rate point
    c_N ≥ β gives no backward bound (1); otherwise the bound is below 1."""
    beta = F(1, 2)
    for backward in (False, True):
        assert sdgs._tail_bound(10, 3, beta, F(0), _no_exponent_at_zero, None, backward, "pointwise") == 1
    eps = F(1, 10)
    kl = sdgs.kl_lower(beta, eps)
    # c_N = max(k, γ'N)/(N − 1) = 6/5 ≥ β at N = 6, k = 6
    assert sdgs._tail_bound(6, 6, beta, eps, lambda: kl, F(0), True, "hockey-stick") == 1
    assert sdgs._tail_bound(400, 1, beta, eps, lambda: kl, F(0), True, "hockey-stick") < 1


def _no_exponent_at_zero() -> Fraction:
    raise AssertionError("the tail bound at epsilon = 0 asked for a Chernoff exponent (there is none)")


def test_float_kl_at_the_ends():
    """KL(0‖b) = −ln(1−b) and KL(1‖b) = −ln b (screens, against mpmath)."""
    for b in (0.25, 0.5, 0.9):
        with mpmath.workdps(30):
            assert sdgs._float_kl(0.0, b) == pytest.approx(float(-mpmath.log(1 - mpmath.mpf(b))), rel=1e-12)
            assert sdgs._float_kl(1.0, b) == pytest.approx(float(-mpmath.log(mpmath.mpf(b))), rel=1e-12)


# --- refusals and inputs of scan ---------------------------------------------------------------


def test_scan_refuses_an_unknown_measure():
    with pytest.raises(ParameterError, match="measure must be paper-d, hockey-stick or pointwise, got 'tv'"):
        sdgs.scan(3, F(1, 2), F(1), measure="tv")


def test_scan_of_a_beta_built_from_gmp_integers_equals_the_plain_one():
    beta = F(gmpy2.mpz(1), gmpy2.mpz(3))
    assert type(beta.numerator) is not int
    for measure in ("paper-d", "pointwise"):
        got = sdgs.scan(3, beta, F(1), measure=measure)
        want = sdgs.scan(3, F(1, 3), F(1), measure=measure)
        assert (got.lower, got.upper) == (want.lower, want.upper)


def test_scan_refuses_a_value_too_large_to_write_and_suggests_a_k():
    """k = 10^9 at β = 1/2, ε = 1: the worst δ is about 10^−(bits·log10 2) with bits past
    MAX_VALUE_BITS; the error names both and a k of about k·MAX_VALUE_BITS/bits."""
    import re

    k = 10**9
    with pytest.raises(BudgetError, match="MAX_VALUE_BITS") as err:
        sdgs.scan(k, F(1, 2), F(1), measure="paper-d")
    msg = str(err.value)
    digits = float(re.search(r"about 10\^-([0-9.e+]+),", msg).group(1))
    bits = float(re.search(r"take about ([0-9.e+]+) bits", msg).group(1))
    k_max = int(re.search(r"about (\d+) or less", msg).group(1))
    assert bits > sdgs.MAX_VALUE_BITS
    assert digits == pytest.approx(bits * 0.30103, rel=2e-3)
    assert k_max == pytest.approx(k * sdgs.MAX_VALUE_BITS / bits, rel=2e-3)


@pytest.mark.parametrize("k, beta, eps, measure, long_range", [
    (10**6, F(1, 2), F(1), "paper-d", True),  # runs of equal threshold
    (3, F(1, 10**12), F(1, 10**9), "pointwise", True),  # segments (start n ≈ 3·10^9)
    (3, F(1, 2), F(1, 10), "hockey-stick", True),  # segments outside the regime
    (3, F(1, 10), F(1, 20), "pointwise", False),  # the exact walk outside the regime
])
def test_scan_refuses_when_the_chernoff_exponent_is_not_certified_positive(monkeypatch, k, beta, eps, measure,
                                                                           long_range):
    """A Chernoff exponent that cannot be certified positive stops every path (runs, segments,
    exact walk) with a refusal, never a stop taken on it."""
    monkeypatch.setattr(sdgs, "kl_lower", lambda *a, **kw: F(0))
    monkeypatch.setattr(sdgs, "EXACT_SDGS_WORK", 0 if measure == "hockey-stick" else sdgs.EXACT_SDGS_WORK)
    with pytest.raises(CertificationError, match="not certified positive"):
        sdgs.scan(k, beta, eps, measure=measure, long_range=long_range)


def test_exact_walk_refuses_a_start_past_a_billion_records():
    """Without the long-range paths a start n0 = k/γ − 1 > 10^9 (β = 10^−12, ε = 10^−10: γ =
    1 − (1−β)e^−ε ≈ 1.01·10^−10) is refused whatever the budget, the error naming β and n0."""
    import re

    k, beta, eps = 3, F(1, 10**12), F(1, 10**10)
    with pytest.raises(CertificationError, match=r"beta = 1e-12 puts the worst group size near n") as err:
        sdgs.scan(k, beta, eps, measure="paper-d", long_range=False, budget=10**30)
    with mpmath.workdps(DPS):
        n0 = k / (1 - _mp(1 - beta) * mpmath.exp(-_mp(eps))) - 1
    assert float(re.search(r"near n ≈ ([0-9.e+]+)", str(err.value)).group(1)) == pytest.approx(float(n0), rel=2e-3)


def test_exp_affine_encloses_a_minus_e_to_epsilon_times_b():
    """_Exp.affine(A, B): numerators over 2^s of A − e^ε·B clipped at 0, tight to 2^−60 when
    positive; B = 0 gives A exactly (mpmath at 60 digits)."""
    eps = F(3, 7)
    E = sdgs._Exp(eps)
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        for A, B in [(5, 0), (0, 0), (10**30, 3), (1000, 651), (1000, 653), (7, 1)]:
            lo, hi, s = E.affine(A, B)
            x = A - e * B
            if B == 0:
                assert lo == hi == A << s
            assert _mp(F(int(lo), 1 << s)) <= max(x, 0) <= _mp(F(int(hi), 1 << s))
            if x > 0:
                assert (hi - lo) << 60 <= hi


def _fail_first_check(monkeypatch) -> list[int]:
    """Make the scan's first exact check fail (return None) and every later one run; returns the
    list of starting group sizes the checks were called with."""
    real = sdgs._scan_from
    calls: list[int] = []

    def first_check_fails(k_, beta_, eps_, measure, n0, *rest):
        calls.append(n0)
        return None if len(calls) == 1 else real(k_, beta_, eps_, measure, n0, *rest)

    monkeypatch.setattr(sdgs, "_scan_from", first_check_fails)
    return calls


def test_exact_walk_restarted_at_k_gives_the_same_answer(monkeypatch):
    """When the skipped-range check fails the walk restarts at n = k: the answer is the one of
    the plain walk (its work re-estimated within the budget), and a capped walk restarts too."""
    k, beta, eps = 3, F(1, 2), F(1)
    want = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
    calls = _fail_first_check(monkeypatch)
    got = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
    assert calls[-1] == k and (got.lower, got.upper) == (want.lower, want.upper)
    calls.clear()  # a capped walk (max_n) is not held to the budget, restarted or not
    capped = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False, max_n=40, budget=1)
    assert calls[-1] == k and capped.lower <= want.upper and want.lower <= capped.upper


def test_restart_at_k_is_held_to_the_budget_by_its_re_estimated_work(monkeypatch):
    """The restart at n = k re-estimates the work as (n_stop − k + 1)·bits (the group sizes from
    k to the estimated stop, both ends counted): k = 100, β = 1/10, ε = 1/5 (n_m = 380, so the
    first estimate from n_m is smaller) with the first check failing refuses a budget just below
    that count, naming it, and a budget of exactly it is not refused by the estimate."""
    k, beta, eps = 100, F(1, 10), F(1, 5)
    est = sdgs._estimate(k, beta, eps, "pointwise", False)
    work = (est["n_stop"] - k + 1) * est["bits"]
    assert est["work"] < work * (1 - 1e-9)  # the first estimate passes both budgets below
    calls = _fail_first_check(monkeypatch)
    with pytest.raises(CertificationError, match=re.escape(f"estimated {work:.3g})")):
        sdgs.scan(k, beta, eps, measure="pointwise", long_range=False, budget=work * (1 - 1e-9))
    calls.clear()
    got = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False, budget=work)
    assert calls[-1] == k and calls[0] - k > 200 and got.lower > 0  # n_m = 380


def _message_number(pattern: str, msg: str) -> float:
    import re

    m = re.search(pattern, msg)
    assert m, msg
    return float(m.group(1))


def test_budget_error_at_epsilon_zero_names_the_slow_tail_and_its_estimate():
    """ε = 0, hockey-stick: the documented stop n_stop = 16·(k/β + 2) from n0 = k, work
    (n_stop − n0 + 1 + 200)·n_stop·log2 q bit-steps; past the budget the error says why."""
    import math

    k, beta = 10**5, F(1, 2)
    with pytest.raises(CertificationError, match=r"epsilon = 0: the tail bound decays only like 1/sqrt\(n\)") as err:
        sdgs.scan(k, beta, F(0), measure="hockey-stick", long_range=False, budget=10**6)
    n_stop = 16 * (k / beta + 2)
    work = float((n_stop - k + 1 + 200) * n_stop) * math.log2(beta.denominator)
    assert _message_number(r"estimated ([0-9.e+]+)\)", str(err.value)) == pytest.approx(work, rel=5e-3)


@pytest.mark.parametrize("measure", ["paper-d", "pointwise"])
def test_budget_error_for_a_large_k_names_k_and_the_start(measure):
    """k = 10^5, β = 1/2, ε = 1 in the regime: the walk would start near n0 = k/γ − 1 (γ = 1 −
    (1−β)e^−ε, mpmath); past the budget the error names k and that n0."""
    k, beta, eps = 10**5, F(1, 2), F(1)
    with pytest.raises(CertificationError, match=rf"k = {k} puts the worst group size near n") as err:
        sdgs.scan(k, beta, eps, measure=measure, long_range=False, budget=10**6)
    with mpmath.workdps(DPS):
        n0 = k / (1 - _mp(1 - beta) * mpmath.exp(-_mp(eps))) - 1
    assert _message_number(r"near n ≈ ([0-9.e+]+)", str(err.value)) == pytest.approx(float(n0), rel=5e-3)


def _kl_gamma(beta: Fraction, eps: Fraction) -> mpmath.mpf:
    """KL(γ‖β) with γ = 1 − (1−β)e^−ε, at 60 digits."""
    with mpmath.workdps(DPS):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        return g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))


@pytest.mark.parametrize("beta, eps", [(F(1, 3), F(1, 2)), (F(1, 10**6), F(1, 10**5)), (F(9, 10), F(5))])
def test_chernoff_exponent_by_intervals_when_the_ball_route_declines(monkeypatch, beta, eps):
    """kl_lower's mpmath-interval route (taken when the ball route returns None): a lower bound
    on KL(γ‖β) within 2^−20 relative of it (the documented 20 bits), like the ball route."""
    want = _kl_gamma(beta, eps)
    fast = sdgs.kl_lower(beta, eps)
    monkeypatch.setattr(sdgs, "_kl_lower_arb", lambda *a: None)
    slow = sdgs.kl_lower(beta, eps)
    with mpmath.workdps(DPS):
        for got in (fast, slow):
            assert want * (1 - mpmath.mpf(2) ** -20) <= _mp(got) <= want


def test_exp_affine_refines_e_to_epsilon_only_as_far_as_needed():
    """A − e^ε·B far from 0 is certain to 60 bits at the starting precision of e^ε: no
    refinement (each doubles the cost of the enclosure); a value within 2^−80 of 0 refines."""
    eps = F(3, 7)
    E = sdgs._Exp(eps)
    start = E.prec
    lo, hi, s = E.affine(10**6, 651)  # ≈ 10^6 − 651·1.535: far from 0
    assert E.prec == start and (hi - lo) << 60 <= hi
    with mpmath.workdps(DPS):
        B = 1 << 100
        A = int(mpmath.ceil(mpmath.exp(_mp(eps)) * B))  # A − e^ε·B ∈ (0, 1]: relative gap 2^−100
    E.affine(A, B)
    assert E.prec > start


def test_exact_walk_stops_at_four_times_its_budget_when_the_estimate_is_wrong(monkeypatch):
    """A lying work estimate (0 bit-steps) must not let the walk run past 4·budget bit-steps:
    each group size n costs the bit length of q^n, counted from the start n0 = k (outside the
    regime), and the walk refuses at the first n whose running total exceeds 4·budget."""
    import re

    k, beta, eps = 3, F(1, 10), F(1, 20)
    real = sdgs._estimate
    monkeypatch.setattr(sdgs, "_estimate", lambda *a: {**real(*a), "work": 0.0})
    budget = 200
    with pytest.raises(CertificationError, match=r"work limit reached \(WORK_BUDGET = 200 bit-steps\) at group size n = ") as err:
        sdgs.scan(k, beta, eps, measure="pointwise", long_range=False, budget=budget)
    n_stop = int(re.search(r"at group size n = (\d+)", str(err.value)).group(1))
    total, n = 0, k
    while True:
        total += (beta.denominator**n).bit_length()
        if total > 4 * budget:
            break
        n += 1
    assert n_stop == n


def _law(size: int, k: int, beta: Fraction) -> dict:
    """The published law of one group of ``size`` copies (counts below k suppressed as "⊥"), as
    exact integer numerators over q^size (β = p/q)."""
    p, q = beta.numerator, beta.denominator
    law: dict = {}
    for j in range(size + 1):
        out = j if j >= k else "⊥"
        law[out] = law.get(out, 0) + comb(size, j) * p**j * (q - p) ** (size - j)
    return law


def _brute_delta(n: int, k: int, beta: Fraction, eps: Fraction, measure: str) -> mpmath.mpf:
    """δ of (n copies, n − 1 copies) from the definitions (hockey-stick both ways, or the
    P-/Q-mass of the outputs whose ratio exceeds e^ε either way)."""
    P, Q = _law(n, k, beta), _law(n - 1, k, beta)
    outs = set(P) | set(Q)
    x = mpmath.exp(_mp(eps))
    qn, qm = mpmath.mpf(beta.denominator) ** n, mpmath.mpf(beta.denominator) ** (n - 1)
    p = {o: mpmath.mpf(P.get(o, 0)) / qn for o in outs}
    q = {o: mpmath.mpf(Q.get(o, 0)) / qm for o in outs}
    if measure == "hockey-stick":
        return max(mpmath.fsum(max(mpmath.mpf(0), p[o] - x * q[o]) for o in outs),
                   mpmath.fsum(max(mpmath.mpf(0), q[o] - x * p[o]) for o in outs))
    bad = [o for o in outs if p[o] > x * q[o] or q[o] > x * p[o]]
    return max(mpmath.fsum(p[o] for o in bad), mpmath.fsum(q[o] for o in bad))


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise"])
def test_beta_below_the_smallest_double_is_scanned_exactly(measure):
    """β = 2^−1100 (float(β) = 0.0): the float screens must not divide by it or take its log
    (they use ln β of the exact rational); the scan's enclosure contains the brute maximum over
    n = 3 .. 45 (the worst group size is n_m = 31; later values are smaller) at 60 digits."""
    k, beta, eps = 3, F(1, 1 << 1100), F(1, 10)
    assert float(beta) == 0.0
    c = sdgs.scan(k, beta, eps, measure=measure)
    with mpmath.workdps(DPS):
        top = max(_brute_delta(n, k, beta, eps, measure) for n in range(k, 46))
        assert _mp(c.lower) * (1 - mpmath.mpf(10) ** -40) <= top <= _mp(c.upper) * (1 + mpmath.mpf(10) ** -40)
        assert _brute_delta(c.details["argmax_n"], k, beta, eps, measure) == top


def test_float_screens_of_a_beta_below_the_smallest_double():
    """The work estimate of β = 2^−1100 is finite for ε > 0 (its start n0 ≈ k/γ − 1 with
    γ ≈ 1 − e^−ε, its value about β^k: 3300 bits), and KL(a‖0) = ∞ in the float screen."""
    est = sdgs._estimate(3, F(1, 1 << 1100), F(1, 10), "pointwise", False)
    with mpmath.workdps(DPS):
        g = 1 - mpmath.exp(-mpmath.mpf(1) / 10)
    assert est["n0"] == pytest.approx(float(3 / g - 1), rel=1e-9)
    assert est["value_bits"] == pytest.approx(3 * 1100, rel=0.01)
    assert sdgs._float_kl(0.5, 0.0) == float("inf") and sdgs._float_kl(0.0, 0.0) == 0.0


def test_chernoff_comparison_is_certain_or_false():
    """_chernoff_below(N, β, ε, num, den): True only when exp(−N·KL(γ‖β)) ≤ num/den is certain,
    False when it certainly fails and when the balls cannot decide (a best equal to the bound
    within 2^−330, mpmath at 100 digits) — never anything but a bool."""
    beta, eps, N = F(1, 3), F(1, 2), 40
    with mpmath.workdps(100):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
        bound = mpmath.exp(-N * kl)
        den = 1 << 330
        tie = int(mpmath.nint(bound * den))
        above, below = int(bound * den * (1 + mpmath.mpf(10) ** -6)), int(bound * den * (1 - mpmath.mpf(10) ** -6))
    assert sdgs._chernoff_below(N, beta, eps, above, den) is True
    assert sdgs._chernoff_below(N, beta, eps, below, den) is False
    assert sdgs._chernoff_below(N, beta, eps, tie, den) is False


def test_chernoff_comparison_decides_at_four_times_its_first_precision():
    """The comparison runs at 64 + bits(N) = 70 bits (N = 40), then once more at 4× that, 280
    bits: a best above the bound by a relative 2^−245 is within the 3× (210-bit) balls' width
    but certain at 280 bits, so it is True; below it by as much, False (mpmath at 150 digits)."""
    beta, eps, N = F(1, 3), F(1, 2), 40
    den = 1 << 400
    with mpmath.workdps(150):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
        bound = mpmath.exp(-N * kl)
        above = int(mpmath.ceil(bound * den * (1 + mpmath.mpf(2) ** -245)))
        below = int(mpmath.floor(bound * den * (1 - mpmath.mpf(2) ** -245)))
        assert above > bound * den > below
    assert sdgs._chernoff_below(N, beta, eps, above, den) is True
    assert sdgs._chernoff_below(N, beta, eps, below, den) is False


@pytest.mark.parametrize("beta, eps", [(F(1, 3), F(1, 2)), (F(1, 2), F(1, 10**6)), (F(9, 10), F(30)), (F(1, 10**9), F(2))])
def test_float_chernoff_exponent_screen_is_kl_of_gamma_and_beta(beta, eps):
    """The float screen of KL(γ‖β), γ = 1 − (1−β)e^{−ε}, against the definition at 60 digits
    (relative 10^−9: it only proposes stops, but it must propose them near the right n)."""
    with mpmath.workdps(DPS):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        want = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
    assert sdgs._float_kl_gamma(beta, eps) == pytest.approx(float(want), rel=1e-9)


def test_float_chernoff_exponent_screen_is_nan_where_floats_cannot_hold_it():
    """β below the smallest double, γ rounding to 1 (ε = 800), γ − β rounding to 0 (ε =
    10^−400, or 1 − β = 2^−1100): NaN, which makes the scan take the certified bound instead."""
    import math

    assert math.isnan(sdgs._float_kl_gamma(F(1, 1 << 1100), F(1)))
    assert math.isnan(sdgs._float_kl_gamma(F(1, 2), F(800)))
    assert math.isnan(sdgs._float_kl_gamma(F(1, 2), F(1, 10**400)))
    assert math.isnan(sdgs._float_kl_gamma(1 - F(1, 1 << 1100), F(1)))


def test_epsilon_zero_past_the_budget_is_refused_by_the_budget_even_with_the_long_range_paths():
    """ε = 0 has no Chernoff exponent, so the segment route (which needs KL(γ‖β) > 0) is never
    taken: past the work budget the exact walk's budget error says why, as with
    long_range=False."""
    for measure in ("hockey-stick", "pointwise"):
        with pytest.raises(CertificationError, match="WORK_BUDGET|work limit|budget"):
            sdgs.scan(10**5, F(1, 2), F(0), measure=measure, budget=10**6)


# --- how an enclosure says it was made --------------------------------------------------------


def test_tail_enclosure_is_exact_up_to_exact_tail_work_and_truncated_past_it():
    """(terms × n × bits of q) = 1000 · 2000 · 50 = 10^8 = EXACT_TAIL_WORK: summed to the last
    term (a point, the exact sum); one term more (T one lower) is past it: truncated, an
    enclosure [lo, hi] with lo < hi around the exact sum (β = 1/2^49: the terms fall fast)."""
    n, p, q = 2000, 1, 1 << 49
    assert q.bit_length() == 50 and sdgs.EXACT_TAIL_WORK == 10**8

    def tail(T: int) -> int:  # the definition's sum, in GMP integers (Python ints take 0.3 s)
        return int(sum(gmpy2.comb(n, j) * gmpy2.mpz(q - 1) ** (n - j) for j in range(T, n + 1)))

    assert sdgs.tail_enclosure(n, 1001, p, q) == (tail(1001),) * 2
    lo, hi = sdgs.tail_enclosure(n, 1000, p, q)
    assert lo < tail(1000) <= hi


def _d_or_pointwise_at(n: int, k: int, beta: Fraction, eps: Fraction, measure: str) -> Fraction:
    """CP Thm 5's d or the pointwise value at group size n in the paper's regime, from the
    definitions: the bad counts are j > γn ((n − j)e^ε < n(1 − β), decided at 60 digits, far
    from a tie), the suppressed outcome is never bad there."""
    p, q = beta.numerator, beta.denominator
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        bad = [j for j in range(n + 1) if (n - j) * e < n * _mp(1 - beta)]
    Pm = sum(comb(n, j) * p**j * (q - p) ** (n - j) for j in bad)
    if measure == "paper-d":
        return F(Pm, q**n)
    Qm = sum(q * comb(n - 1, j) * p**j * (q - p) ** (n - 1 - j) for j in bad if j >= k and j <= n - 1)
    Pm = sum(comb(n, j) * p**j * (q - p) ** (n - j) for j in bad if j >= k)
    return F(max(Pm, Qm), q**n)


@pytest.mark.parametrize("measure", ["paper-d", "pointwise", "hockey-stick"])
def test_how_text_says_tails_were_truncated_exactly_when_they_were(monkeypatch, measure):
    """k = 500, β = 1/2, ε = 2: the tails are cheap, summed exactly, and the how-text does not
    speak of truncation; with EXACT_TAIL_WORK = 0 they are truncated, the ends move apart
    around the same value (the definitions' value at the maximiser for d and pointwise), and
    the how-text says so with its bound, 2^−140 relative.  At k = 1000 (d) the ends are rounded
    to 256-bit dyadics but the tails are exact: that is said, truncation is not."""
    k, beta, eps = 500, F(1, 2), F(2)
    exact = sdgs.scan(k, beta, eps, measure=measure)
    assert "truncated" not in exact.how
    monkeypatch.setattr(sdgs, "EXACT_TAIL_WORK", 0)
    cut = sdgs.scan(k, beta, eps, measure=measure)
    assert "tails truncated with a geometric remainder bound (2^-140 relative)" in cut.how
    assert cut.lower < cut.upper
    assert cut.lower <= exact.upper and exact.lower <= cut.upper
    if measure != "hockey-stick":
        v = _d_or_pointwise_at(exact.details["argmax_n"], k, beta, eps, measure)
        assert exact.lower == exact.upper == v and cut.lower <= v <= cut.upper
    monkeypatch.setattr(sdgs, "EXACT_TAIL_WORK", 10**8)
    rounded = sdgs.scan(1000, beta, eps, measure="paper-d")
    assert "ends rounded outward to 256-bit dyadics" in rounded.how and "truncated" not in rounded.how


def test_how_text_names_a_truncated_tail_of_the_skipped_range(monkeypatch):
    """Hockey-stick in the regime computes the group sizes just below the start n_m from
    Pr[X_{n_m − 1} ≥ k]: when only that tail is an enclosure (widened by one unit here, still a
    valid enclosure), the how-text says tails were truncated; the walk's own tails are exact."""
    k, beta, eps = 500, F(1, 2), F(2)
    plain = sdgs.scan(k, beta, eps, measure="hockey-stick")
    n0 = plain.details["n_start"]
    assert "truncated" not in plain.how and f"≤ n < {n0} computed exactly" in plain.how
    real = sdgs.tail_enclosure

    def widened(n, T, p, q, rel_bits=sdgs.TAIL_BITS):
        lo, hi = real(n, T, p, q, rel_bits)
        skipped = sys._getframe(1).f_code.co_name == "_hockey_stick_below"
        return (lo, hi + 1) if skipped and (n, T) == (n0 - 1, k) else (lo, hi)

    monkeypatch.setattr(sdgs, "tail_enclosure", widened)
    got = sdgs.scan(k, beta, eps, measure="hockey-stick")
    assert "tails truncated" in got.how
    assert got.lower <= plain.upper and plain.lower <= got.upper


@pytest.mark.parametrize("measure", ["pointwise", "hockey-stick"])
@pytest.mark.parametrize("k, beta, eps", [(500, F(1, 2), F(2)), (5, F(1, 2), F(1, 10))])
def test_how_text_names_a_truncated_tail_under_the_smaller_group_alone(monkeypatch, k, beta, eps, measure):
    """The walk starts from two tails at its first group size n0: Pr[X_n0 ≥ T] and
    Pr[X_(n0−1) ≥ T].  When only the second is an enclosure (widened by one unit here, still a
    valid enclosure, as tail_enclosure's contract allows), the how-text says tails were
    truncated, and the value still overlaps the exact one.  Inside the regime (ε = 2, the walk
    starts at n_m) and outside it (ε = 1/10, it starts at k)."""
    plain = sdgs.scan(k, beta, eps, measure=measure)
    n0 = plain.details["n_start"]
    assert "truncated" not in plain.how
    real = sdgs.tail_enclosure
    widened_calls = []

    def widened(n, T, p, q, rel_bits=sdgs.TAIL_BITS):
        lo, hi = real(n, T, p, q, rel_bits)
        if sys._getframe(1).f_code.co_name == "_scan_from" and n == n0 - 1 and not widened_calls:
            widened_calls.append((n, T))
            return lo, hi + 1
        return lo, hi

    monkeypatch.setattr(sdgs, "tail_enclosure", widened)
    got = sdgs.scan(k, beta, eps, measure=measure)
    assert widened_calls
    assert "tails truncated with a geometric remainder bound (2^-140 relative)" in got.how
    assert got.lower <= plain.upper and plain.lower <= got.upper


@pytest.mark.parametrize("k, beta, eps, first", [(5, F(1, 3), F(1), True), (5, F(1, 2), F(1), False)])
def test_how_text_of_a_skipped_range_bounded_at_once_or_computed_down_to_k(k, beta, eps, first):
    """Hockey-stick in the regime with exact tails: the skipped range below n_m is bounded at
    its first group size (nothing computed) or computed down to k; the how-text names the part
    that holds the range's sizes (never an empty one) and speaks of no truncation."""
    got = sdgs.scan(k, beta, eps, measure="hockey-stick")
    n0 = got.details["n_start"]
    assert n0 > k and "truncated" not in got.how
    bounded = f"for {k} ≤ n < {n0} the value is ≤"
    computed = f"{k} ≤ n < {n0} computed exactly"
    assert (bounded in got.how) == first and (computed in got.how) == (not first), got.how
    assert "computed exactly" not in got.how if first else "the value is ≤ β" not in got.how


def test_pointwise_skipped_range_bound_equal_to_the_best_needs_no_restart(monkeypatch):
    """k = 4, β = 1/4, ε = 1 (the regime; the walk starts at n_m = 5, where the maximum 1/64 is,
    as the definitions give it): below n_m the value is Pr[X_n ≥ k], increasing in n, so the
    walk need not go below n_m when the upper end of Pr[X_{n_m − 1} ≥ k] is at most the best.
    That tail (exactly 1/256) widened to an upper end equal to the best, still an enclosure, is
    accepted; one unit above the best is not, and the walk restarts at n = k (same value)."""
    k, beta, eps = 4, F(1, 4), F(1)
    plain = sdgs.scan(k, beta, eps, measure="pointwise")
    n0 = plain.details["n_start"]
    assert n0 == 5 and plain.lower == plain.upper == F(1, 64) == max(
        _d_or_pointwise_at(n, k, beta, eps, "pointwise") for n in range(1, 40))
    assert _tail(n0 - 1, k, 1, 4) == 1  # Pr[X_4 ≥ 4]·4^4: the tail is 1/256
    real = sdgs.tail_enclosure
    for extra, start in ((0, n0), (1, k)):

        def widened(n, T, p, q, rel_bits=sdgs.TAIL_BITS, extra=extra):
            lo, hi = real(n, T, p, q, rel_bits)
            after_walk = "best" in sys._getframe(1).f_locals  # the skipped-range check
            return (lo, 4 + extra) if after_walk and (n, T) == (n0 - 1, k) else (lo, hi)

        monkeypatch.setattr(sdgs, "tail_enclosure", widened)
        got = sdgs.scan(k, beta, eps, measure="pointwise")
        assert got.details["n_start"] == start and got.lower == got.upper == F(1, 64)


def test_float_stop_screen_proposes_within_its_stated_tolerance(monkeypatch):
    """The float screen N·KL_f ≥ −ln(best)·(1 − 2^−30) − 10^−9 only orders the work: a stop it
    proposes is certified in ball arithmetic.  k = 2, β = 1/10, ε = 1/5 (pointwise, the regime)
    stops at N = 18 with the best 0.1496944 found at n = 7 (the definitions' maximum).  With the
    screen's KL_f replaced by a value whose N·KL_f lies 0.5·10^−9 below the threshold, the scan
    still stops at N = 18 (within the tolerance); 2·10^−9 below (a clear "not yet"), one n later,
    with the same certified value."""
    k, beta, eps = 2, F(1, 10), F(1, 5)
    plain = sdgs.scan(k, beta, eps, measure="pointwise")
    n, N = plain.details["argmax_n"], 18
    assert f"stopped at n = {N}:" in plain.how and plain.details["n_scanned"] == N - plain.details["n_start"]
    assert plain.lower == plain.upper == max(_d_or_pointwise_at(m, k, beta, eps, "pointwise") for m in range(1, 60))
    num, den = plain.lower * beta.denominator**n, beta.denominator**n  # the walk's best: integer over q^n
    assert num.denominator == 1
    need = sdgs._ln_f(den) - sdgs._ln_f(int(num))
    for below, stop in ((0.5e-9, N), (2e-9, N + 1)):
        kl_f = (need * (1 - 2.0**-30) - below) / N
        monkeypatch.setattr(sdgs, "_float_kl_gamma", lambda b, e, v=kl_f: v)
        got = sdgs.scan(k, beta, eps, measure="pointwise")
        assert f"stopped at n = {stop}:" in got.how, (below, got.how)
        assert got.lower == got.upper == plain.lower


def test_backward_stop_screen_asks_for_the_certified_log_within_its_tolerance(monkeypatch):
    """Outside the regime (k = 20, β = 1/2, ε = 1/2, pointwise: the backward rule stops at
    N = 65) a certified −ln(best) is computed once the float screen N·KL_f ≥ (−ln(best) + ln 2)
    ·(1 − 2^−30) − 10^−9 says the stop is near, and the stop needs N·KL_f ≥ (that certified
    value + ln 2)·(1 − 2^−30).  With KL_f replaced so that N·KL_f meets the second bound exactly
    at N = 65, the scan still stops there (the first screen, 10^−9 looser, asked in time); with
    N·KL_f 2·10^−9 short of it, one n later, with the same value."""
    k, beta, eps = 20, F(1, 2), F(1, 2)
    plain = sdgs.scan(k, beta, eps, measure="pointwise")
    n, N = plain.details["argmax_n"], 65
    assert f"stopped at n = {N}:" in plain.how and "c_N" in plain.how
    num, den = plain.lower * beta.denominator**n, beta.denominator**n
    assert num.denominator == 1 and plain.lower == plain.upper
    need = float(sdgs._neg_ln_upper(int(num), den) + sdgs._LN2_UP) * (1 - 2.0**-30)
    for short, stop in ((0.0, N), (2e-9, N + 1)):
        kl_f = (need - short) / N
        while N * kl_f < need - short:  # the product in floats meets the bound
            kl_f = math.nextafter(kl_f, math.inf)
        monkeypatch.setattr(sdgs, "_float_kl_gamma", lambda b, e, v=kl_f: v)
        got = sdgs.scan(k, beta, eps, measure="pointwise")
        assert f"stopped at n = {stop}:" in got.how, (short, got.how)
        assert got.lower == got.upper == plain.lower


@pytest.mark.parametrize("N, k, gp_hi", [
    (2, 1, None), (10, 3, Fraction(1, 2)), (10, 7, Fraction(1, 2)), (47752, 1, Fraction(989, 1000)),
    (50, 4, Fraction(-1, 3)), (1000, 40, Fraction(3, 100)), (64, 2, Fraction(0)),
])
def test_backward_rate_bounds_every_later_group_size(N: int, k: int, gp_hi: Fraction | None) -> None:
    """The backward stops' rate c_N is max(k, γ'·N)/(N − 1) with γ' clipped at 0 (the
    definition), and it bounds max(k, γ'·n')/(n' − 1) for every later size n' (checked over the
    next 300 sizes and far out): the property both backward stops rely on."""
    from dps_verify.worstcase.sdgs import _backward_rate

    g = max(gp_hi or Fraction(0), Fraction(0))
    c = _backward_rate(N, k, gp_hi)
    assert c == max(Fraction(k), g * N) / (N - 1)
    for n in [*range(N, N + 300), 10 * N, 10**9]:
        assert max(Fraction(k), g * n) / (n - 1) <= c


@pytest.mark.parametrize("beta, eps, N", [(F(1, 3), F(1, 2), 50), (F(1, 10), F(3), 7), (F(9, 10), F(100), 3)])
def test_chernoff_ball_says_below_exactly_when_exp_minus_n_kl_is_at_most_the_best(beta, eps, N):
    """_chernoff_below(N, β, ε, num, den) is True only when exp(−N·KL(γ‖β)) ≤ num/den is
    certain (KL at min(ε, 64), a lower bound): checked at 60 digits for a best value 10^−9 above
    that bound (True), and 10^−9 and a factor e^(1/2) below it (False: a stop there would
    leave later group sizes unbounded)."""
    with mpmath.workdps(DPS):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(min(eps, F(64))))
        bound = mpmath.exp(-N * (g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))))

        def best(factor):
            x = F(mpmath.nstr(bound * factor, 50))
            return x.numerator, x.denominator

        assert sdgs._chernoff_below(N, beta, eps, *best(1 + mpmath.mpf(10) ** -9))
        assert not sdgs._chernoff_below(N, beta, eps, *best(1 - mpmath.mpf(10) ** -9))
        assert not sdgs._chernoff_below(N, beta, eps, *best(mpmath.exp(-mpmath.mpf(1) / 2)))


def test_budget_error_blames_the_chernoff_exponent_only_past_fifty_times_the_start():
    """The refusal names the slow Chernoff stop when the estimated stop lies more than 50·n0
    past the start n0, and the worst group size's numbers otherwise: at exactly 50·n0 past it
    (a float tie) k is named."""
    est = {"n0": 100.0, "n_stop": 5100.0, "kl": 0.5, "work": 1e12, "bits": 5100.0}
    assert "k = 7 puts the worst group size near n ≈ 100" in str(sdgs._budget_error(7, F(1, 2), F(1), est, 1e9))
    est["n_stop"] = 5100.5
    assert "Chernoff exponent" in str(sdgs._budget_error(7, F(1, 2), F(1), est, 1e9))


def test_budget_error_measures_the_stop_against_a_start_of_at_least_one():
    """The 50·n0 rule takes n0 at least 1 (50·max(n0, 1)): for a start of 0.5 and a stop at 30
    (29.5 past it, below 50) the refusal names k, not the Chernoff exponent."""
    est = {"n0": 0.5, "n_stop": 30.0, "kl": 0.5, "work": 1e12, "bits": 30.0}
    msg = str(sdgs._budget_error(7, F(1, 2), F(1), est, 1e9))
    assert "k = 7 puts the worst group size" in msg and "Chernoff" not in msg


@pytest.mark.parametrize(("beta", "n0", "blamed"), [
    (F(1, 10**4), 2e6, "beta = 0.0001 puts"),  # both: a tiny beta far out
    (F(1, 10**4), 1e6, "k = 7 puts"),  # tiny beta, start not past 10^6
    (F(1, 2), 2e6, "k = 7 puts"),  # start past 10^6, beta not below 10^-3
    (F(1, 1000), 2e6, "k = 7 puts"),  # beta exactly 10^-3 is not below it
])
def test_budget_error_blames_beta_only_when_it_is_tiny_and_the_start_far(beta, n0, blamed):
    """Past the Chernoff case, the refusal blames β only when β < 10^−3 and the start n0 > 10^6
    (a small β puts the worst group size far out); otherwise it names k and the start."""
    est = {"n0": n0, "n_stop": n0 * 2, "kl": 0.5, "work": 1e12, "bits": 1e6}
    assert blamed in str(sdgs._budget_error(7, beta, F(1), est, 1e9))


def _kl_at(beta: Fraction, eps: Fraction) -> mpmath.mpf:
    b = _mp(beta)
    g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
    return g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))


@pytest.mark.parametrize(("eps", "used", "other"), [
    (F(127, 2), F(127, 2), F(64)),  # below the cap: KL at ε itself, not at 64
    (F(65), F(64), F(63)),  # past it: KL at 64 (a lower bound), not at 63
    (F(129, 2), F(64), F(129, 2)),  # past it: not at ε itself
    (F(129, 2), F(64), F(65)),  # nor at 65 (above ε: not a lower bound)
])
def test_chernoff_comparison_takes_kl_at_epsilon_capped_at_64(eps, used, other):
    """_chernoff_below evaluates KL(γ‖β) at min(ε, 64) (KL grows with ε, so a lower bound past
    64): a best between exp(−N·KL at min(ε, 64)) and exp(−N·KL at a neighbouring ε) (a relative
    gap of about 10^−25 at N = 40, β = 1/3, resolved by the 280-bit balls) is decided as the
    documented exponent says (mpmath at 150 digits): certain when it is above the documented
    bound, false when it is below."""
    beta, N, den = F(1, 3), 40, 1 << 400
    with mpmath.workdps(150):
        b_used, b_other = mpmath.exp(-N * _kl_at(beta, used)), mpmath.exp(-N * _kl_at(beta, other))
        assert abs(b_used / b_other - 1) > mpmath.mpf(10) ** -27
        mid = int(mpmath.sqrt(b_used * b_other) * den)
        above_documented = mid > b_used * den
    assert sdgs._chernoff_below(N, beta, eps, mid, den) is above_documented
