"""The capped scan of worstcase/sdgs.py (``scan(..., max_n=N)``): the later group sizes are
bounded by the proven tail of the stopping rule, and the enclosure must hold the uncapped worst
case.  The tail is checked against its definition computed here with mpmath at 50 digits:
exp(−N·KL(γ‖β)) forward, plus exp(−(N−1)·KL(c_N‖β)) backward with c_N = max(k, γ'N)/(N−1)
(γ = 1 − (1−β)e^−ε, γ' = 1 − (1−β)e^ε), and at ε = 0 the total-variation bound β·max_j f(j; N−1)
(module docstring of sdgs.scan; CP Thm 5's setting)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath
import pytest

from dps_verify.worstcase.sdgs import scan


def _kl(g, b):
    return g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize("k, beta, eps, measure, cap, n_start", [
    (3, Fraction(1, 5), Fraction(1), "hockey-stick", 6, 4),
    (3, Fraction(1, 5), Fraction(1), "pointwise", 3, 4),  # capped before the start n_m
    (2, Fraction(1, 10), Fraction(1, 2), "hockey-stick", 6, 4),
])
def test_capped_scan_in_the_paper_regime_is_bounded_by_the_forward_chernoff_tail(
        k, beta, eps, measure, cap, n_start):
    full = scan(k, beta, eps, measure=measure)
    capped = scan(k, beta, eps, measure=measure, max_n=cap)
    assert capped.lower <= full.lower <= full.upper <= capped.upper
    N = max(cap, n_start) + 1
    with mpmath.workdps(50):
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        tail = mpmath.exp(-N * _kl(g, b))
        up = _mp(capped.upper)
        assert tail <= up <= tail * (1 + mpmath.mpf(2) ** -40)


@pytest.mark.parametrize("cap", [200, 400])
def test_capped_scan_outside_the_regime_adds_the_backward_chernoff_tail(cap):
    k, beta, eps = 3, Fraction(1, 2), Fraction(1, 10)  # eps < -ln(1 - beta): backward bad set
    full = scan(k, beta, eps, measure="hockey-stick")
    capped = scan(k, beta, eps, measure="hockey-stick", max_n=cap)
    assert capped.lower == full.lower and capped.upper >= full.upper
    N = cap + 1
    with mpmath.workdps(50):
        b, e = _mp(beta), _mp(eps)
        g, gp = 1 - (1 - b) * mpmath.exp(-e), 1 - (1 - b) * mpmath.exp(e)
        c = max(k, gp * N) / (N - 1)
        tail = mpmath.exp(-N * _kl(g, b)) + mpmath.exp(-(N - 1) * _kl(c, b))
        up = _mp(capped.upper)
        assert tail <= up <= tail * (1 + mpmath.mpf(2) ** -40)


def test_capped_scan_outside_the_regime_is_one_while_the_backward_rule_cannot_apply():
    capped = scan(3, Fraction(1, 2), Fraction(1, 10), measure="hockey-stick", max_n=50)
    assert capped.upper == 1  # c_N >= beta: no backward bound yet, the value 1 is the bound
    assert capped.lower == scan(3, Fraction(1, 2), Fraction(1, 10), measure="hockey-stick").lower


@pytest.mark.parametrize("cap", [4, 9, 13])
def test_capped_scan_at_epsilon_zero_is_bounded_by_the_total_variation_tail(cap):
    k, beta = 3, Fraction(1, 5)
    full = scan(k, beta, Fraction(0), measure="hockey-stick")
    capped = scan(k, beta, Fraction(0), measure="hockey-stick", max_n=cap)
    tv = beta * max(comb(cap, j) * beta**j * (1 - beta) ** (cap - j) for j in range(cap + 1))
    assert capped.lower <= full.lower <= full.upper <= capped.upper
    assert capped.upper == max(tv, capped.lower)
    pointwise = scan(k, beta, Fraction(0), measure="pointwise", max_n=cap)
    assert pointwise.lower == pointwise.upper == 1  # the pointwise value is 1 from n = k on


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_infinite_epsilon_gives_beta_to_the_k_exactly(definition):
    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    for eps in (float("inf"), "inf", " +Infinity"):
        c = sdgs_delta_certified(4, Fraction(1, 3), eps, definition)
        assert c.lower == c.upper == Fraction(1, 81) and c.details["argmax_n"] == 4


def test_infinite_epsilon_refuses_the_edge_beta_and_an_unknown_definition():
    from dps_verify.core.errors import ParameterError
    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    with pytest.raises(ParameterError, match="edge"):
        sdgs_delta_certified(4, "edge", "inf")
    with pytest.raises(ParameterError, match="definition"):
        sdgs_delta_certified(4, Fraction(1, 3), "inf", "pointwize")
    with pytest.raises(ParameterError, match="definition"):
        sdgs_delta_certified(4, Fraction(1, 3), 1, "pointwize")


def _n_min_reference(k: int, beta: Fraction, r: Fraction | None = None,
                     eps: Fraction | None = None) -> int:
    """Least n with γ(n+1) ≥ k, i.e. (n+1−k)·e^ε ≥ (n+1)(1−β) (CP App. A.2), by a linear walk,
    with e^ε = r exactly or e^eps at 60 digits."""
    n = 0
    with mpmath.workdps(60):
        e = r if r is not None else mpmath.exp(_mp(eps))
        one_minus = 1 - beta if r is not None else 1 - _mp(beta)
        while n + 1 - k <= 0 or (n + 1 - k) * e < (n + 1) * one_minus:
            n += 1
    return n


@pytest.mark.parametrize("k, beta, r", [
    (21, Fraction(1, 2), Fraction(5, 3)),  # k/γ − 1 an exact integer: the float guess is one high
    (9, Fraction(1, 2), Fraction(7, 5)),
    (5, Fraction(1, 3), Fraction(3, 2)),
])
def test_n_min_at_an_exact_tie_is_the_least_group_size(k, beta, r):
    from dps_verify.core.numbers import exact_log
    from dps_verify.worstcase.sdgs import n_min

    assert n_min(k, beta, exact_log(r)) == _n_min_reference(k, beta, r=r)


@pytest.mark.parametrize("k, beta, eps", [
    (3, Fraction(1, 2), Fraction(50)),  # γ rounds to 1.0: the float guess k − 1 is one low
    (1, Fraction(1, 3), Fraction(40)),
    (4, Fraction(1, 10), Fraction(1)),
])
def test_n_min_corrects_a_float_guess_from_below(k, beta, eps):
    from dps_verify.worstcase.sdgs import n_min

    assert n_min(k, beta, eps) == _n_min_reference(k, beta, eps=eps)


def test_dyadic_enclosure_of_e_to_the_epsilon_refines_and_decides_exactly():
    """sdgs._Exp: lo/2^s ≤ e^ε ≤ hi/2^s at every refinement (checked at 6000 digits), refining
    stops at 2^14 bits or for a huge ε (no upper end); less(X, Y) = [e^ε·X < Y] exactly."""
    from dps_verify.worstcase.sdgs import _Exp

    E = _Exp(Fraction(1, 3))
    widths = []
    with mpmath.workdps(6000):
        ref = mpmath.exp(mpmath.mpf(1) / 3)
        while True:
            assert mpmath.mpf(E.lo) / 2**E.s <= ref <= mpmath.mpf(E.hi) / 2**E.s
            widths.append(Fraction(int(E.hi - E.lo), 2**E.s))
            if not E.refine():
                break
        assert E.prec == 2**14 and len(widths) == 8  # 128, 256, ..., 16384 bits: the cap, not past it
        assert all(b < a for a, b in zip(widths, widths[1:]))
        # exact decisions, including a Y whose side the first enclosure cannot tell
        X = 3**40
        Y = int(mpmath.floor(ref * X))
        assert _Exp(Fraction(1, 3)).less(X, Y + 1) and not _Exp(Fraction(1, 3)).less(X, Y)
        near = int(mpmath.floor(ref * 2**400))
        assert not _Exp(Fraction(1, 3)).less(2**400, near)
        assert _Exp(Fraction(1, 3)).less(2**400, near + 1)
    assert E.less(0, 1) and not E.less(0, 0) and not E.less(0, -3) and not E.less(5, 0)
    huge = _Exp(Fraction(5000))
    assert huge.hi is None and not huge.refine()
    assert not huge.less(1, 2**5000) and huge.less(0, 1)


@pytest.mark.parametrize("bits, certain", [(10_000, True), (20_000, False)])
def test_e_to_the_epsilon_is_refined_for_a_cancelling_difference_up_to_two_to_the_fourteen_bits(bits, certain):
    """_Exp.affine encloses A − e^ε·B (clipped at 0) and doubles the precision of e^ε until 60
    bits of the result are certain, at most up to 2^14 bits.  With B = 2^bits and A = ⌈e^ε·B⌉ the
    difference is below 1 while A has `bits` bits: 10^4 bits of cancellation are absorbed below
    the cap (60 certain bits at 2^14 bits; 2^13 would not do), 2·10^4 are not, and the enclosure
    comes back at the cap as a wider one that still holds the value (checked against mpmath at
    more bits than both sides carry)."""
    from dps_verify.worstcase.sdgs import _Exp

    eps = Fraction(1, 3)
    with mpmath.workprec(bits + 200):
        B = 2**bits
        A = int(mpmath.ceil(mpmath.exp(mpmath.mpf(1) / 3) * B))
    E = _Exp(eps)
    lo, hi, s = E.affine(A, B)
    assert E.prec == 2**14 and not E.refine()
    with mpmath.workprec(bits + s + 200):
        value = (A - mpmath.exp(mpmath.mpf(1) / 3) * B) * mpmath.mpf(2) ** s
        assert 0 < value < mpmath.mpf(2) ** s  # a difference below 1 (the cancelling case)
        assert lo <= value <= hi
    assert (((hi - lo) << 60) <= hi) is certain
    # the hockey-stick enclosure's how-text states the limit
    how = scan(3, Fraction(1, 5), Fraction(1), measure="hockey-stick").how
    assert "raised until 60 bits of each value are certain or 16384 bits are reached" in how


@pytest.mark.parametrize("eps, ball", [
    (Fraction(1, 10**30), True), (Fraction(4095), True), (Fraction(8191, 2), True),
    (Fraction(0), False), (Fraction(4096), False), (Fraction(4097), False),
])
def test_e_to_the_epsilon_comes_from_a_flint_ball_exactly_for_epsilon_in_0_to_4096(eps, ball):
    """_exp_dyadic_arb: integers lo/2^s ≤ e^ε ≤ hi/2^s from a python-flint ball for 0 < ε < 4096
    (checked at 2000 digits), None outside that open range (the mpmath.iv version then)."""
    from dps_verify.worstcase.sdgs import _exp_dyadic_arb

    got = _exp_dyadic_arb(eps, 128)
    assert (got is not None) is ball
    if got is not None:
        lo, hi, s = got
        with mpmath.workdps(2000):
            ref = mpmath.exp(_mp(eps)) * mpmath.mpf(2) ** s
            assert lo <= ref <= hi and hi - lo <= ref * mpmath.mpf(2) ** -120


@pytest.mark.parametrize("cap", [3, 4])
def test_capped_forward_walk_at_epsilon_zero_bounds_later_group_sizes_by_one(cap):
    """At ε = 0, γ = β and the Chernoff exponent KL(γ‖β) is 0: the cap's tail bound of the
    forward walk (called here directly, without the backward set) is exp(0) = 1, and the capped
    enclosure must hold the value of a later group size (n = 5: 1/2 for k = 3, β = 1/2)."""
    from dps_verify.worstcase.sdgs import WORK_BUDGET, _Exp, _scan_from

    beta, eps = Fraction(1, 2), Fraction(0)
    later = _scan_from(3, beta, eps, "pointwise", 5, _Exp(eps), False, 5, WORK_BUDGET)
    capped = _scan_from(3, beta, eps, "pointwise", 3, _Exp(eps), False, cap, WORK_BUDGET)
    assert later.lower == Fraction(1, 2)
    assert capped.upper == 1 >= later.lower
    assert "later n bounded by 1 (enclosure widened)" in capped.how


def test_hockey_stick_skip_screen_equals_the_exact_comparison_with_the_best_lower_end():
    """The screen may skip a value only when (Ah − (E.lo/2^s)·Bl)/qn ≤ best lower end holds
    exactly; checked against Fractions for numerators 0, 1 and 2 and best lower ends 0, 1/2, 1."""
    from types import SimpleNamespace

    from gmpy2 import mpz

    from dps_verify.worstcase.sdgs import _Best, _hs_below_best

    for best_lo in (Fraction(0), Fraction(1, 2), Fraction(1)):
        best = _Best()
        best.lo_num, best.lo_den = mpz(best_lo.numerator), mpz(best_lo.denominator)
        best.hi_num, best.hi_den = mpz(1), mpz(1)
        best.n = 1
        for ah in (3, 4, 5):  # top = ah − 3·1 = 0, 1, 2 over qn = 1
            E = SimpleNamespace(lo=mpz(3), s=0)
            top = Fraction(ah - 3)
            assert _hs_below_best(E, mpz(ah), mpz(1), mpz(1), best) == (top <= best_lo), (ah, best_lo)
