"""Edges of the exact worst-case walk (worstcase/sdgs.py) that the scans reach rarely, against
references written here from the definitions.

* the walk from n = k (the restart ``scan`` takes when its skipped-range check fails) in CP Thm
  5's regime at k = 1: the threshold J_n stays at 1 for a few group sizes, so the tails grow by
  β f(0; n) each step; the maximum over n ≥ 1 of the per-n measure is the brute force's, with
  the output laws of TR Alg. 4 (CP App. A.2) and the measures of CP Def. 2 / TR Def. 2;
* the best-value record keeps the group size of its first value even when that value is 0
  (the maximiser of the values offered so far);
* CP Thm 5's regime test asks ε > 0 as well as ε ≥ −ln(1−β): at β = 0 and ε = 0 it is False;
* the long comparison's float screen keeps the exact sign at a near tie whose float quotients
  are in the wrong order, and the stop screen's float logarithm of a long integer is accurate.
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction
from pathlib import Path

import gmpy2
import mpmath
import pytest

from dps_verify.worstcase import sdgs
from dps_verify.worstcase.sdgs_generic import output_laws

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "properties"))
import reference as R  # noqa: E402

F = Fraction


def _brute_max(k: int, beta: Fraction, eps: Fraction, measure: str, n_max: int) -> tuple[mpmath.mpf, int]:
    """(max, smallest maximiser) over 1 ≤ n ≤ n_max of the per-n measure of (P_n, Q_n)."""
    best, arg = mpmath.mpf(-1), 0
    for n in range(max(k, 1), n_max + 1):
        P, Q = output_laws(n, k, beta)
        v = R.hockey_stick(P, Q, eps) if measure == "hockey-stick" else R.as_mpf(R.pointwise(P, Q, eps))
        if v > best * (1 + mpmath.mpf(10) ** -40):
            best, arg = v, n
    return best, arg


@pytest.mark.parametrize("measure", ["pointwise", "hockey-stick"])
@pytest.mark.parametrize(("beta", "eps"), [(F(1, 10), F(1, 5)), (F(1, 5), F(1, 2))])
def test_walk_from_k_one_in_the_regime_equals_the_brute_force(measure, beta, eps):
    """β = 1/10, ε = 1/5 (γ ≈ 0.263, n_m = 3) and β = 1/5, ε = 1/2 (γ ≈ 0.515, n_m = 1):
    in the regime, walked from n = 1 as the restart does, the threshold J_n = 1 at n = 1 (and
    n = 2, 3 at the first), so the first tails need N(n, 0) = (q − p)^n; the maximum and its
    smallest maximiser are the brute force's over n ≤ 60 (the values fall far below by then)."""
    assert sdgs.in_regime_fast(beta, eps)
    got = sdgs._scan_from(1, beta, eps, measure, 1, sdgs._Exp(eps), False, None, sdgs.WORK_BUDGET)
    assert got is not None
    ref, arg = _brute_max(1, beta, eps, measure, 60)
    with mpmath.workdps(60):
        lo = mpmath.mpf(got.lower.numerator) / got.lower.denominator
        hi = mpmath.mpf(got.upper.numerator) / got.upper.denominator
        assert lo * (1 - mpmath.mpf(10) ** -30) <= ref <= hi * (1 + mpmath.mpf(10) ** -30)
    assert got.details["argmax_n"] == arg and got.details["n_start"] == 1
    whole = sdgs.scan(1, beta, eps, measure=measure)
    assert (whole.lower, whole.upper) == (got.lower, got.upper)


def test_best_keeps_the_group_size_of_a_first_value_of_zero():
    """An exact 0 offered first at n = 3 is the best so far, at n = 3; so is an enclosure
    [0, 1/4] offered first (its upper end kept); a later equal lower end keeps n = 3."""
    b = sdgs._Best()
    b.offer(0, 0, 1, 3)
    assert (b.n, b.lo_num, b.hi_num) == (3, 0, 0) and b.exact()
    b.offer(0, 0, 8, 4)
    assert b.n == 3
    e = sdgs._Best()
    e.offer(0, 1, 4, 3)
    assert (e.n, e.lo_num, e.hi_num, e.hi_den) == (3, 0, 1, 4) and not e.exact()
    e.offer(0, 1, 8, 5)
    assert e.n == 3 and (e.hi_num, e.hi_den) == (1, 4)


def test_regime_needs_a_positive_epsilon_even_at_beta_zero():
    """CP Thm 5's regime is ε > 0 and ε ≥ −ln(1−β): at β = 0, ε = 0 the second holds (0 ≥ 0)
    and the first does not; at β = 0 any ε > 0 is in it; at β = 1/2 the edge is ln 2 (exact)."""
    assert sdgs.in_regime_fast(F(0), F(0)) is False
    assert sdgs.in_regime_fast(F(0), F(1, 10**6)) is True
    assert sdgs.in_regime_fast(F(1, 2), F(0)) is False
    assert sdgs.in_regime_fast(F(1, 2), F(69314718, 10**8)) is False  # just below ln 2
    assert sdgs.in_regime_fast(F(1, 2), F(69314719, 10**8)) is True


@pytest.mark.parametrize(
    ("k", "beta", "eps"), [(2, F(3, 4), F(89, 107)), (4, F(1, 4), F(121, 701)), (4, F(3, 4), F(89, 214))]
)
def test_pointwise_below_the_edge_where_the_published_side_has_the_larger_bad_mass(k, beta, eps):
    """Below CP Thm 5's edge the pointwise value is max(P(B), Q(B)) over the forward and the
    backward bad outputs together.  Mostly Q(B) is the larger; at these three inputs P(B) is,
    at the maximiser, so the P side's backward mass counts: the exact value and its smallest
    maximiser are the brute force's (n ≤ 60)."""
    assert not sdgs.in_regime_fast(beta, eps)
    got = sdgs.scan(k, beta, eps, measure="pointwise")
    ref, arg = _brute_max(k, beta, eps, "pointwise", 60)
    assert got.lower == got.upper and R.as_mpf(got.lower) == ref
    assert got.details["argmax_n"] == arg
    P, Q = output_laws(arg, k, beta)
    with mpmath.workdps(60):
        x = mpmath.exp(R.as_mpf(eps))
    bad = [y for y in set(P) | set(Q) if Q.get(y, 0) == 0 or R.as_mpf(max(P[y], Q[y]) / min(P[y], Q[y])) > x]
    assert sum(P.get(y, 0) for y in bad) > sum(Q.get(y, 0) for y in bad)


@pytest.mark.parametrize(("beta", "eps"), [(F(1, 3), F(1)), (F(1, 2), F(1, 10)), (F(9, 10), F(5))])
def test_first_bad_at_a_huge_group_size_is_found_from_a_close_float_guess(beta, eps):
    """At n = 10^7 the walk's threshold J_n, the least j > γn, is the 50-digit reference's
    ⌊γn⌋ + 1 (γ n is irrational: no tie), found within 1 s of CPU: the float guess starts the
    exact walk a few steps from it (a guess off by a fraction of n would take ~10^6 exact steps)."""
    n = 10**7
    p, q = beta.numerator, beta.denominator
    E = sdgs._Exp(eps)

    def fwd_bad(m: int, j: int) -> bool:  # j > γm ⇔ (m − j)·q·e^ε < m·(q − p), as the walk decides it
        return j >= m or E.less((m - j) * q, m * (q - p))

    with mpmath.workdps(50):
        g = 1 - (1 - R.as_mpf(beta)) * mpmath.exp(-R.as_mpf(eps))
        want = int(mpmath.floor(g * n)) + 1
    assert R.call_limited(sdgs._first_bad_E, n, beta, eps, fwd_bad, seconds=1.0) == want
    assert R.call_limited(sdgs.first_bad, n, beta, eps, seconds=1.0) == want  # through slack's guess


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("beta", [F(1, 2), F(1, 3)])
def test_hockey_stick_past_the_huge_epsilon_threshold_is_beta_to_the_k(k, beta):
    """ε = 4097 ≥ 4096: e^ε has no finite upper end in the module's enclosure (only a lower one,
    2^5900), and at the start n = k the neighbour's tail is empty (B = 0): the value there is
    Pr[X_k ≥ k] = β^k exactly, the whole worst case (only 'all k sampled' stays bad as ε grows),
    reached at once, within 2 s of CPU."""
    got = R.call_limited(sdgs.scan, k, beta, F(4097), measure="hockey-stick", seconds=2.0)
    assert got.lower == got.upper == beta**k and got.details["argmax_n"] == k


def test_affine_of_a_zero_multiple_is_exact_even_without_an_upper_end_of_e_to_the_epsilon():
    """A − e^ε·0 = A exactly, also at ε = 4097 where e^ε's enclosure has no finite upper end
    (the general route would give the lower end 0 there): (A·2^s, A·2^s) over 2^s, for
    _Exp.affine and _affine_iv alike."""
    for eps in (F(4097), F(1, 3)):
        E = sdgs._Exp(eps)
        assert (E.hi is None) == (eps == 4097)
        lo, hi, s = E.affine(5, 0)
        assert lo == hi == 5 << s
        lo, hi, s = sdgs._affine_iv(E, 5, 7, 0, 0)
        assert (lo, hi) == (5 << s, 7 << s)


def _near_tie_with_floats_the_wrong_way() -> tuple[int, int, int, int]:
    """Long integers a/b < c/d (c/d − a/b = 1/(b·K), relative ~2^−100) whose 53-bit float
    quotients order the other way, x = fl(a)/fl(b) > y = fl(c)/fl(d) (a seeded search; about one
    draw in two qualifies)."""
    rng = random.Random(7)
    for _ in range(200):
        a = rng.getrandbits(5000) | 1 << 4999
        b = rng.getrandbits(5000) | 1 << 4999
        K = (1 << 100) + 2 * rng.getrandbits(90) + 1
        c, d = a * K + 1, b * K
        if gmpy2.mpfr(a) / gmpy2.mpfr(b) > gmpy2.mpfr(c) / gmpy2.mpfr(d):
            return a, b, c, d
    raise AssertionError("no near tie found")


def test_long_comparison_is_exact_where_the_float_quotients_order_the_wrong_way():
    """_cmp screens products past 8192 bits with 53-bit float quotients and a margin of 2^−40;
    at a near tie whose float quotients are in the wrong order it must still give the exact
    sign (a margin below the floats' error would answer from the floats), both ways round,
    and 0 for equal values written with other integers."""
    a, b, c, d = _near_tie_with_floats_the_wrong_way()
    assert a * d < c * b and a.bit_length() + d.bit_length() > 8192
    assert sdgs._cmp(gmpy2.mpz(a), gmpy2.mpz(b), gmpy2.mpz(c), gmpy2.mpz(d)) == -1
    assert sdgs._cmp(gmpy2.mpz(c), gmpy2.mpz(d), gmpy2.mpz(a), gmpy2.mpz(b)) == 1
    assert sdgs._cmp(gmpy2.mpz(a * 3), gmpy2.mpz(b * 3), gmpy2.mpz(a), gmpy2.mpz(b)) == 0


@pytest.mark.parametrize("bits", [1, 999, 1000, 1001, 5000, 10**5])
def test_float_log_of_a_long_integer_is_accurate(bits):
    """_ln_f (the stop screen's ln of q^n-sized integers) is within 10^−12 relative of ln x for
    x = 2^(bits−1) + 12345 and x = 3^⌈bits/1.585⌉, below and past 1000 bits (60 digits)."""
    for x in (2 ** (bits - 1) + 12345, 3 ** math.ceil(bits / 1.585)):
        with mpmath.workdps(60):
            ref = mpmath.log(x)
            assert abs(sdgs._ln_f(gmpy2.mpz(x)) - ref) <= abs(ref) * mpmath.mpf(10) ** -12 + mpmath.mpf(10) ** -300


@pytest.mark.parametrize(("measure", "k", "beta", "eps"), [
    ("pointwise", 30, F(1, 10), F(1, 20)),
    ("hockey-stick", 10, F(1, 2), F(1, 10)),
])
def test_backward_walk_bounds_minus_log_best_only_when_the_chernoff_stop_is_within_reach(
    monkeypatch, measure, k, beta, eps
):
    """Below CP Thm 5's edge the walk stops once N·KL(γ‖β) and the lower-tail term each reach
    −ln(best) + ln 2 (each bound ≤ best/2); a float screen of that threshold decides when the
    certified −ln(best) is computed. At every such computation N·KL(γ‖β) (mpmath, 30 digits)
    is at least −ln(best) + ln 2 up to the screen's 2^−30 relative slack: a screen without the
    ln 2 (or with −ln 2) asks earlier, a group size or more before the threshold."""
    seen: list[tuple[int, object, object]] = []
    real = sdgs._neg_ln_upper

    def spy(num, den):
        seen.append((sys._getframe(1).f_locals["N"], num, den))
        return real(num, den)

    monkeypatch.setattr(sdgs, "_neg_ln_upper", spy)
    assert not sdgs.in_regime_fast(beta, eps)
    sdgs.scan(k, beta, eps, measure=measure, long_range=False)
    assert seen
    with mpmath.workdps(30):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        g = 1 - (1 - b) * mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator)
        kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
        for N, num, den in seen:
            need = mpmath.log(mpmath.mpf(int(den)) / int(num)) + mpmath.log(2)
            assert N * kl >= need * (1 - mpmath.mpf(2) ** -29) - mpmath.mpf(10) ** -8, (N, float(N * kl), float(need))


def test_best_keeps_the_first_of_equal_upper_ends_so_its_rounding_is_that_of_the_first():
    """The best record moves its upper end only for a strictly larger one: an equal upper end
    offered later (1/3 over 3·2^2000 after 1/3 over 3·2^10) leaves the stored fraction as it
    was, so the scan's ends are those of the first (round_outward rounds only denominators past
    1024 bits: here 1/3 exactly, not a 256-bit dyadic above it)."""
    best = sdgs._Best()
    z = gmpy2.mpz
    best.offer(z(1) << 9, z(1) << 10, z(3) << 10, 1)
    best.offer(z(1) << 1999, z(1) << 2000, z(3) << 2000, 2)
    assert (best.hi_num, best.hi_den) == (1 << 10, 3 << 10)
    assert (best.lo_num, best.lo_den, best.n) == (1 << 9, 3 << 10, 1)
    lower, upper, widened = sdgs._outward_ends(best)
    assert (lower, upper, widened) == (Fraction(1, 6), Fraction(1, 3), False)
