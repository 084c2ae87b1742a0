"""The certified core against independent references, on the edges that reach each line.

Every test compares a function of the trust base (exact numbers, the divergences, the float and
integer screens of the exact search) with a brute force written here from the definitions
(``Fraction`` loops, or ``mpmath`` at 120 digits), on inputs chosen to reach one particular
line: exact-log ε with a rational offset, support mismatch, pointwise mode of the float screen,
near-ties within a few ulp of e^ε, branches that the public paths reach rarely.  The mutation
run (``python -m benchmarks.mutation``) uses these tests to kill single-line mutants of those
lines; each test names the mistake it rules out.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import gmpy2
import mpmath
import numpy as np
import pytest

from dps_verify.core.numbers import (
    Certified,
    ExactLog,
    exact_log,
    exp_compare,
    exp_interval,
    fraction_from_ints,
    fraction_to_mpf,
    iv_lower,
    iv_precision,
    iv_upper,
    round_outward,
)
from dps_verify.measures.divergence import (
    delta_certified,
    delta_exceeds,
    pointwise_delta_exact,
)
from dps_verify.verdict import screen

U = 2.0**-53


def _mp_value(x: ExactLog | Fraction) -> mpmath.mpf:
    """a + ln r (or a rational) at 120 digits, from the definition."""
    with mpmath.workdps(120):
        if isinstance(x, ExactLog):
            return mpmath.mpf(x.a.numerator) / x.a.denominator + mpmath.log(
                mpmath.mpf(x.r.numerator) / x.r.denominator)
        return mpmath.mpf(x.numerator) / x.denominator


# ---------------------------------------------------------------- exact-log ε with an offset


@pytest.mark.parametrize("r, a", [(11, Fraction(1, 2)), (11, Fraction(-3, 7)), (Fraction(1, 3), 2),
                                  (Fraction(7, 5), Fraction(-1, 1000))])
def test_exact_log_interval_includes_the_rational_offset(r, a):
    """ε = a + ln r (ε − ε₁ of CP Thm 6 with a rational ε₁): the enclosure is of a + ln r, not
    of ln r alone."""
    x = exact_log(r, a)
    assert isinstance(x, ExactLog)
    with iv_precision(200):
        v = x.interval()
        lo, hi = iv_lower(v), iv_upper(v)
    ref = _mp_value(x)
    with mpmath.workdps(120):
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo < Fraction(1, 2**150)
    # the same number reached through arithmetic: (ln r) − (−a)
    y = exact_log(r) + a
    assert y == x
    assert float(x) == pytest.approx(float(ref), rel=1e-15)
    # and used where it matters: the two rounded ends bracket the value
    up, down = fraction_to_mpf(x, "u", 80), fraction_to_mpf(x, "d", 80)
    with mpmath.workdps(120):
        assert down <= ref <= up


@pytest.mark.parametrize("r, a", [(11, Fraction(-3)), (Fraction(1, 4), Fraction(1, 2)),
                                  (3, Fraction(0)), (2, Fraction(0)), (Fraction(2, 7), Fraction(0))])
def test_exact_log_abs_is_the_absolute_value(r, a):
    """Both signs, and a positive value below 1 (ln 2): abs compares with 0, not with 1."""
    x = exact_log(r, a)
    ref = _mp_value(x)
    got = abs(x)
    with mpmath.workdps(120):
        assert abs(_mp_value(got) - abs(ref)) < mpmath.mpf(10) ** -100
    assert got >= 0
    assert (got == x) == (ref > 0)


@pytest.mark.parametrize("r, a", [(11, Fraction(1, 2)), (Fraction(1, 5), Fraction(3, 2))])
def test_exp_interval_of_exact_log_with_offset_encloses_e_to_the_a_times_r(r, a):
    x = exact_log(r, a)
    lo, hi = exp_interval(x, 160)
    with mpmath.workdps(120):
        ref = mpmath.exp(_mp_value(x))
        assert mpmath.mpf(lo.numerator) / lo.denominator <= ref <= mpmath.mpf(hi.numerator) / hi.denominator
    # the comparison with a rational on either side of e^a·r
    mid = Fraction(str(mpmath.nstr(ref, 30)))
    below, above = mid * (1 - Fraction(1, 10**20)), mid * (1 + Fraction(1, 10**20))
    assert exp_compare(x, below) == 1 and exp_compare(x, above) == -1


# ---------------------------------------------------------------- big-integer helpers


def test_fraction_from_ints_large_operands_reduce_with_a_positive_denominator():
    """The GMP branch (denominators of ≥ 2000 bits) returns the same Fraction as Python's own
    normalisation, including a negative denominator (sign moved to the numerator)."""
    g = 3**500
    num, den = 7 * g, (2**2100 + 1) * g
    whole = ((2**2100 + 1) * 5, -(2**2100 + 1))  # reduces to -5/-1: the smallest negative denominator
    for n, d in ((num, den), (-num, den), (num, -den), (-num, -den), whole, (-whole[0], whole[1])):
        got = fraction_from_ints(n, d)
        ref = Fraction(n, d)
        assert got == ref
        assert got.denominator > 0 and got.denominator == ref.denominator
        assert got.numerator == ref.numerator
        assert (got < 0) == (ref < 0)


@pytest.mark.parametrize("num_lo, num_hi, den", [
    (3 << 2400, (3 << 2400) + 5, (5 << 1100) + 1),   # value ≫ 1: the t < 0 branch
    (7, 9, (1 << 1500) + 3),                          # value ≪ 1
    (-(1 << 1300) - 1, (1 << 1300) + 1, (1 << 1100) + 7),  # negative lower end
    (-1, 1, (1 << 1100) + 7),                         # numerators ±1: tiny but never 0
    (0, 1, (1 << 1100) + 7),                          # an exact 0 end stays 0
    (1 << 1359, 1 << 1359, (1 << 1100) + 7),          # t = -1 exactly: the t < 0 branch's edge
    (3 * ((1 << 1100) + 7), 3 * ((1 << 1100) + 7), (1 << 1100) + 7),  # exact ends (t ≥ 0)
    (((1 << 1100) + 7) << 1500, ((1 << 1100) + 7) << 1500, (1 << 1100) + 7),  # exact (t < 0)
])
def test_round_outward_encloses_and_keeps_about_bits_significant_bits(num_lo, num_hi, den):
    lo, hi = round_outward(num_lo, num_hi, den, bits=256)
    assert lo <= Fraction(num_lo, den) and Fraction(num_hi, den) <= hi
    # an end keeps its sign: a positive δ never rounds to 0, a negative one never to 0
    assert (lo > 0) == (num_lo > 0) and (lo < 0) == (num_lo < 0)
    assert (hi > 0) == (num_hi > 0) and (hi < 0) == (num_hi < 0)
    for end, exact in ((lo, Fraction(num_lo, den)), (hi, Fraction(num_hi, den))):
        if exact != 0:
            assert abs(end - exact) <= abs(exact) * Fraction(1, 2**250)


def test_round_outward_is_exact_for_small_denominators():
    assert round_outward(3, 5, 7) == (Fraction(3, 7), Fraction(5, 7))


def test_certified_value_is_the_midpoint_and_safe_is_the_upper_end():
    """The displayed value of an enclosure is its midpoint (never below the lower end, so a
    positive δ never displays as 0 or negative), and the safe value is the upper end rounded up."""
    c = Certified(Fraction(1, 3), Fraction(1, 2), "test enclosure")
    with mpmath.workdps(40):
        assert abs(c.value - mpmath.mpf(5) / 12) < mpmath.mpf(10) ** -14
        assert c.safe >= mpmath.mpf(1) / 2
    tiny = Certified(Fraction(1, 10**400), Fraction(1, 10**400), "exact")
    assert tiny.exact and tiny.value > 0 and tiny.safe >= tiny.value


# ---------------------------------------------------------------- the divergences


def _hockey_ref(P, Q, eps):
    with mpmath.workdps(120):
        e = mpmath.exp(_mp_value(eps) if isinstance(eps, ExactLog) else mpmath.mpf(eps.numerator) / eps.denominator)
        ys = set(P) | set(Q)

        def one(X, Y):
            return sum((max(mpmath.mpf(0), mpmath.mpf(X.get(y, 0).numerator) / X.get(y, Fraction(0)).denominator
                            - e * (mpmath.mpf(Y.get(y, 0).numerator) / Y.get(y, Fraction(0)).denominator))
                        for y in ys), mpmath.mpf(0))

        return max(one(P, Q), one(Q, P))


def test_delta_exceeds_counts_no_q_mass_on_outputs_q_never_produces():
    """p = {0: 1}, q = {1: 1}: the bad set {0} has no q-mass, δ = 1 > 1/2."""
    assert delta_exceeds({0: 1}, {1: 1}, 1, Fraction(1, 2))
    assert delta_exceeds({0: Fraction(1, 2), 1: Fraction(1, 2)}, {1: 1}, 1, Fraction(49, 100))
    assert not delta_exceeds({0: Fraction(1, 2), 1: Fraction(1, 2)}, {1: 1}, 1, Fraction(1, 2))


LAWS = [
    ({0: Fraction(1, 2), 1: Fraction(1, 2)}, {1: Fraction(1)}),
    ({0: Fraction(1, 3), 1: Fraction(2, 3)}, {1: Fraction(1, 4), 2: Fraction(3, 4)}),
    ({"a": Fraction(9, 10), "b": Fraction(1, 10)}, {"a": Fraction(1, 10), "b": Fraction(9, 10)}),
    ({0: Fraction(1, 7), 1: Fraction(2, 7), 2: Fraction(4, 7)},
     {0: Fraction(1, 7), 1: Fraction(4, 7), 3: Fraction(2, 7)}),
]


@pytest.mark.parametrize("P, Q", LAWS)
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 3), Fraction(1), exact_log(3),
                                 exact_log(2, Fraction(1, 5))])
def test_divergences_match_the_definition_with_support_mismatch(P, Q, eps):
    ref = _hockey_ref(P, Q, eps)
    c = delta_certified(P, Q, eps)
    with mpmath.workdps(120):
        lo, hi = mpmath.mpf(c.lower.numerator) / c.lower.denominator, mpmath.mpf(c.upper.numerator) / c.upper.denominator
        assert lo <= ref + mpmath.mpf(10) ** -100 and ref <= hi + mpmath.mpf(10) ** -100
    # delta_exceeds agrees with the enclosure on either side of the value
    if ref > 0:
        below = Fraction(str(mpmath.nstr(ref * (1 - mpmath.mpf(10) ** -12), 30)))
        above = Fraction(str(mpmath.nstr(ref * (1 + mpmath.mpf(10) ** -12), 30)))
        assert delta_exceeds(P, Q, eps, below)
        assert not delta_exceeds(P, Q, eps, above)
    else:
        assert not delta_exceeds(P, Q, eps, 0)
    # pointwise δ (TR Def. 2) from its definition: the outputs whose loss exceeds ε either way
    with mpmath.workdps(120):
        e = mpmath.exp(_mp_value(eps) if isinstance(eps, ExactLog) else mpmath.mpf(eps.numerator) / eps.denominator)
        Pm = {y: _mp_value(Fraction(v)) for y, v in P.items()}
        Qm = {y: _mp_value(Fraction(v)) for y, v in Q.items()}
        bad = [y for y in set(P) | set(Q)
               if (P.get(y, 0) > 0 and (Q.get(y, 0) == 0 or Pm[y] > e * Qm[y]))
               or (Q.get(y, 0) > 0 and (P.get(y, 0) == 0 or Qm[y] > e * Pm[y]))]
    pw = max(sum((P.get(y, Fraction(0)) for y in bad), Fraction(0)),
             sum((Q.get(y, Fraction(0)) for y in bad), Fraction(0)))
    assert pointwise_delta_exact(P, Q, eps) == pw


# ---------------------------------------------------------------- the float screen


def _decide(P, Q, e, d, pointwise):
    Pf = np.array([float(x) for x in P])
    Qf = np.array([float(x) for x in Q])
    b_grp = np.zeros(len(P), dtype=np.int64)
    return screen._decide_float(Pf, Qf, b_grp, 1, e, d, pointwise, np.array([4]),
                                np.array([len(P)]), 2)


def _exact_pw(P, Q, E):
    bad = [i for i in range(len(P)) if (P[i] > 0 and P[i] > E * Q[i]) or (Q[i] > 0 and Q[i] > E * P[i])]
    return max(sum((P[i] for i in bad), Fraction(0)), sum((Q[i] for i in bad), Fraction(0)))


def _exact_hs(P, Q, E):
    return max(sum((max(Fraction(0), P[i] - E * Q[i]) for i in range(len(P))), Fraction(0)),
               sum((max(Fraction(0), Q[i] - E * P[i]) for i in range(len(P))), Fraction(0)))


SCREEN_LAWS = [
    # pointwise δ (0.6) far above the hockey-stick δ (0.6 − 2·0.25 = 0.1) at e^ε = 2
    ([Fraction(6, 10), Fraction(4, 10)], [Fraction(1, 4), Fraction(3, 4)]),
    ([Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], [Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)]),
    # most of the mass on the bad side in both directions (pointwise 0.7, hockey-stick 0.4)
    ([Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)], [Fraction(1, 10), Fraction(3, 10), Fraction(6, 10)]),
    # every output bad, one in each direction (pointwise 1, hockey-stick 0.7)
    ([Fraction(9, 10), Fraction(1, 10)], [Fraction(1, 10), Fraction(9, 10)]),
]


@pytest.mark.parametrize("P, Q", SCREEN_LAWS)
@pytest.mark.parametrize("pointwise", [False, True])
def test_float_screen_encloses_the_exact_delta_of_its_definition(P, Q, pointwise):
    """ε = ln 2 (e^ε = 2 exactly in floats): the screen's δ̂ ± err encloses the exact δ of the
    definition it is asked for — the pointwise mode must not return the (smaller) hockey-stick
    value, nor the other way round — and a status is never wrong."""
    E = Fraction(2)
    ref = _exact_pw(P, Q, E) if pointwise else _exact_hs(P, Q, E)
    other = _exact_hs(P, Q, E) if pointwise else _exact_pw(P, Q, E)
    assert ref != other  # the case tells the two definitions apart
    for d in (ref / 2, ref * Fraction(99, 100), ref, ref * Fraction(101, 100), (ref + 1) / 2):
        st, dh, er = _decide(P, Q, 2.0, float(d), pointwise)
        assert abs(dh[0] - float(ref)) <= er[0] + 1e-15
        if st[0] == 1:
            assert ref > d
        if st[0] == 0:
            assert ref <= d
    st, _, _ = _decide(P, Q, 2.0, float(ref) / 2, pointwise)
    assert st[0] == 1


@pytest.mark.parametrize("pointwise", [False, True])
@pytest.mark.parametrize("sign", [+1, -1])
def test_float_screen_near_tie_within_a_few_ulp_is_never_decided_wrongly(pointwise, sign):
    """P(y) = e^ε·Q(y)·(1 ± 2^-50): which side of e^ε the ratio lies on is beyond the float
    error; the screen must answer 2 (exact arithmetic) or the right status, never the wrong one."""
    q0 = Fraction(1, 3)
    p0 = 2 * q0 * (1 + sign * Fraction(1, 2**50))
    P = [p0, 1 - p0]
    Q = [q0, 1 - q0]
    E = Fraction(2)
    ref = _exact_pw(P, Q, E) if pointwise else _exact_hs(P, Q, E)
    for d in (Fraction(0), Fraction(1, 10**20), p0 / 2, p0 * Fraction(9, 10)):
        st, dh, er = _decide(P, Q, 2.0, float(d), pointwise)
        if st[0] == 1:
            assert ref > d, (d, ref)
        if st[0] == 0:
            assert ref <= d, (d, ref)


# true laws and float inputs perturbed inside the screen's documented error (relative γ_G per
# probability, G = 8 in ``_decide``): ratio exactly e^ε = 2 made to look above it, and a ratio
# 12u above 2 made to look below it
_UF = Fraction(1, 2**53)
PERTURBED = [
    ([Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)],
     [Fraction(1, 2) * (1 + 8 * _UF), Fraction(1, 2)], [Fraction(1, 4) * (1 - 8 * _UF), Fraction(3, 4)]),
    ([Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4) * (1 - 12 * _UF), Fraction(3, 4) + 3 * _UF],
     [Fraction(1, 2) * (1 - 8 * _UF), Fraction(1, 2)], [Fraction(1, 4) * (1 - 5 * _UF), Fraction(3, 4) + 3 * _UF]),
]


@pytest.mark.parametrize("P, Q, Pf, Qf", PERTURBED)
@pytest.mark.parametrize("pointwise", [False, True])
@pytest.mark.parametrize("swap", [False, True])
def test_float_screen_tolerates_the_input_error_it_documents(P, Q, Pf, Qf, pointwise, swap):
    """The float screen takes probabilities with relative error up to γ_G (module docstring of
    verdict.screen); inputs that far off a near-tie must never get a wrong status (a margin of
    2u/G instead of 2Gu would call the first output bad, or the second one good)."""
    if swap:  # the other direction of the pair (Q against P)
        P, Q, Pf, Qf = Q, P, Qf, Pf
    G = 8
    gamma = G * _UF / (1 - G * _UF)
    for x, xf in zip(P + Q, Pf + Qf):
        assert Fraction(float(xf)) == xf and abs(xf - x) <= gamma * x  # inside the error model
    E = Fraction(2)
    ref = _exact_pw(P, Q, E) if pointwise else _exact_hs(P, Q, E)
    for d in (Fraction(0), Fraction(1, 10**6), Fraction(1, 10), Fraction(2, 5)):
        st, dh, er = _decide(Pf, Qf, 2.0, float(d), pointwise)
        assert abs(dh[0] - float(ref)) <= er[0] + 1e-15, (d, float(ref), dh[0], er[0])
        if st[0] == 1:
            assert ref > d, (d, ref)
        if st[0] == 0:
            assert ref <= d, (d, ref)


def _int_ex(eps_lo: float, eps_hi: float, d: Fraction, q: int, n: int) -> dict:
    return {"q": q, "p": 1, "e_lo": eps_lo, "e_hi": eps_hi, "T": {n: float(d * q**n)},
            "Tfloor": {n: float(math.floor(d * q**n))}}


@pytest.mark.parametrize("pointwise", [False, True])
def test_integer_screen_near_tie_goes_to_exact_arithmetic(pointwise):
    """Integer laws P·q^n, Q·q^n with P(y) one unit above 2·Q(y) (relative 3·2^-40) while e^ε is
    only known within 2(1 ± 2^-36): the output's side is undecidable from the enclosure, so
    status 2 — never a wrong 0/1."""
    q, n = 2, 40
    scale = q**n
    Qi = [scale // 3, scale - scale // 3]
    Pi = [2 * Qi[0] + 1, scale - 2 * Qi[0] - 1]
    P = np.array(Pi, dtype=float)
    qQ = np.array(Qi, dtype=float)
    b_grp = np.zeros(2, dtype=np.int64)
    for d in (Fraction(0), Fraction(1, 10**6), Fraction(Pi[0], scale) * Fraction(9, 10)):
        ex = _int_ex(2.0 * (1 - 2.0**-36), 2.0 * (1 + 2.0**-36), d, q, n)
        st, _ = screen._decide_int(P, qQ, b_grp, 1, ex, n, pointwise)
        assert st[0] == 2, (d, st)
    # far from a tie the same screen decides, and correctly
    Pi2 = [3 * Qi[0], scale - 3 * Qi[0]]
    ex = _int_ex(2.0 * (1 - 2.0**-50), 2.0 * (1 + 2.0**-50), Fraction(1, 10**6), q, n)
    st, best = screen._decide_int(np.array(Pi2, dtype=float), qQ, b_grp, 1, ex, n, pointwise)
    E = Fraction(2)
    Pf = [Fraction(x, scale) for x in Pi2]
    Qf = [Fraction(x, scale) for x in Qi]
    ref = _exact_pw(Pf, Qf, E) if pointwise else _exact_hs(Pf, Qf, E)
    assert ref > Fraction(1, 10**6) and st[0] == 1
    assert best[0] / scale == pytest.approx(float(ref), rel=1e-9)


@pytest.mark.parametrize("pointwise", [False, True])
@pytest.mark.parametrize("sign", [+1, -1])
def test_integer_screen_tie_in_the_last_bit_with_an_exact_e_to_the_eps(pointwise, sign):
    """e^ε = 2 known exactly (e_lo = e_hi = 2.0) and integer laws over q^n = 2^53 (exact
    floats): P(y) = 2·Q(y) ± 1 with Q(y) = 2^51, a relative gap of 2^-52 — below the float
    products' rounding, so only the screen's 4u margin separates the sides.  The status must
    follow the exact δ of the definition (1 only above d, 0 only at or below it)."""
    q, n = 2, 53
    scale = q**n
    Qi = [2**51, scale - 2**51]
    Pi = [2**52 + sign, scale - 2**52 - sign]
    assert all(float(x) == x for x in Pi + Qi)  # exact float integers
    Pf = [Fraction(x, scale) for x in Pi]
    Qf = [Fraction(x, scale) for x in Qi]
    E = Fraction(2)
    ref = _exact_pw(Pf, Qf, E) if pointwise else _exact_hs(Pf, Qf, E)
    b_grp = np.zeros(2, dtype=np.int64)
    for d in (Fraction(0), Fraction(1, 10**20), Fraction(1, 10)):
        ex = _int_ex(2.0, 2.0, d, q, n)
        st, _ = screen._decide_int(np.array(Pi, dtype=float), np.array(Qi, dtype=float), b_grp, 1,
                                   ex, n, pointwise)
        if st[0] == 1:
            assert ref > d, (d, ref)
        if st[0] == 0:
            assert ref <= d, (d, ref)


_S53 = 2**53
_B52 = 2**52 - 1
# (P·q^n, Q·q^n, e^ε as a Fraction, its float enclosure) over q^n = 2^53, exact float integers
INT_EDGE_CASES = [
    # an output Q never produces: δ·q^n is A itself, compared with ⌊δ·q^n⌋
    ([3, _S53 - 3], [0, _S53], Fraction(2), 2.0, 2.0),
    # ε = 0 (e^ε = 1 exactly, margin 0): δ·q^n = 2^52 is a float integer, ties with δ exactly
    ([2**52 + 2**51, 2**51], [2**51, 2**52 + 2**51], Fraction(1), 1.0, 1.0),
    # e^ε = 5/4 exactly but 5/4·Q(y) is not a float: P(y) = ⌈5/4·Q(y)⌉ is bad by 1/4 unit
    ([(5 * _B52) // 4 + 1, _S53 - (5 * _B52) // 4 - 1], [_B52, _S53 - _B52], Fraction(5, 4), 1.25, 1.25),
]


@pytest.mark.parametrize("Pi, Qi, E, e_lo, e_hi", INT_EDGE_CASES)
@pytest.mark.parametrize("pointwise", [False, True])
def test_integer_screen_on_its_exact_edges(Pi, Qi, E, e_lo, e_hi, pointwise):
    """The integer screen against the exact δ of the definition at δ = the exact value, one
    unit below and above it (q^n = 2^53): no Q-mass on the bad side, ε = 0, and an exact e^ε
    whose products with Q are rounded.  A status 1 needs δ > d, a status 0 needs δ ≤ d."""
    q, n = 2, 53
    assert all(float(x) == x for x in Pi + Qi) and sum(Pi) == sum(Qi) == _S53
    Pf = [Fraction(x, _S53) for x in Pi]
    Qf = [Fraction(x, _S53) for x in Qi]
    ref = _exact_pw(Pf, Qf, E) if pointwise else _exact_hs(Pf, Qf, E)
    assert ref > 0
    b_grp = np.zeros(2, dtype=np.int64)
    for d in (Fraction(0), ref - Fraction(1, _S53), ref, ref + Fraction(1, _S53)):
        ex = _int_ex(e_lo, e_hi, d, q, n)
        st, _ = screen._decide_int(np.array(Pi, dtype=float), np.array(Qi, dtype=float), b_grp, 1,
                                   ex, n, pointwise)
        if st[0] == 1:
            assert ref > d, (d * _S53, ref * _S53)
        if st[0] == 0:
            assert ref <= d, (d * _S53, ref * _S53)


# ---------------------------------------------------------------- the worst-case scan over n


def _mpfr(x: mpmath.mpf, prec: int) -> gmpy2.mpfr:
    """``x`` as an MPFR number of ``prec`` bits (exact: ``x`` has at most ``prec`` bits)."""
    sign, man, exp, _ = x._mpf_
    q = gmpy2.mpq(man) * gmpy2.mpq(2) ** exp
    return gmpy2.mpfr(-q if sign else q, prec)


def _mpf(x: gmpy2.mpfr) -> mpmath.mpf:
    """An MPFR number as an mpmath number (exact at the current precision)."""
    man, exp = x.as_mantissa_exp()
    return mpmath.mpf((int(man), int(exp)))


@functools.cache
def _brute_sup(k: int, beta: Fraction, eps: Fraction, n_max: int) -> dict[bool, tuple]:
    """max over k ≤ n ≤ n_max of the measure of (group of n) vs (group of n − 1), at 60 digits,
    for both definitions (keyed by ``pointwise``): (value, smallest argmax).

    The binomial laws Bin(n, β) come from Pascal's rule (sums of positive terms: no
    cancellation), each pair of neighbouring groups is compared output by output.  Every sum,
    difference and product is one correctly rounded (to nearest, ties to even) operation at
    mpmath's 60-digit precision (203 bits), done by MPFR for speed: the same numbers as mpmath's
    arithmetic at that precision, operation by operation.  e^ε and β are mpmath's.  k ≥ 1."""
    assert k >= 1
    with mpmath.workdps(60):
        prec = mpmath.mp.prec
        e_mp = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        b_mp = mpmath.mpf(beta.numerator) / beta.denominator
        slack_mp = 1 + mpmath.mpf(10) ** -40
    ctx = gmpy2.context(precision=prec, round=gmpy2.RoundToNearest)
    mul, add = ctx.mul, ctx.add
    e, b, slack = _mpfr(e_mp, prec), _mpfr(b_mp, prec), _mpfr(slack_mp, prec)
    c = ctx.sub(1, b)
    zero = gmpy2.mpfr(0, prec)
    best = {False: (zero, None), True: (zero, None)}
    prev = [gmpy2.mpfr(1, prec)]  # Bin(0, β)
    for n in range(1, n_max + 1):
        # Pascal's rule: cur[j] = β·prev[j−1] + (1−β)·prev[j], each product rounded
        cur = ([mul(c, prev[0])] + [add(mul(b, x), mul(c, y)) for x, y in zip(prev, prev[1:])]
               + [mul(b, prev[-1])])
        if n >= k:
            # the suppressed outcome (index 0) sums the counts below k, left to right
            p0 = q0 = zero
            for j in range(k):
                p0 = add(p0, cur[j])
                q0 = add(q0, prev[j])
            P = [p0] + cur[k:]
            Q = [q0] + prev[k:] + [zero]
            # outputs 1..k−1 have mass 0 in both laws (never bad, no hockey-stick term)
            hs_p = hs_q = pw_p = pw_q = zero
            for p, q in zip(P, Q):
                eq, ep = mul(e, q), mul(e, p)
                up, uq = p > eq, q > ep  # p > 0 and p > e·q, since e·q ≥ 0 (and q likewise)
                if up:
                    hs_p = add(hs_p, ctx.sub(p, eq))
                if uq:
                    hs_q = add(hs_q, ctx.sub(q, ep))
                if up or uq:
                    pw_p, pw_q = add(pw_p, p), add(pw_q, q)
            for pointwise, v in ((False, max(hs_p, hs_q)), (True, max(pw_p, pw_q))):
                if v > mul(best[pointwise][0], slack):
                    best[pointwise] = (v, n)
        prev = cur
    with mpmath.workdps(60):
        return {pw: (_mpf(v), arg) for pw, (v, arg) in best.items()}


# (k, β, ε): in the regime (the skipped range k ≤ n < n_m matters), and outside it (ε below
# −ln(1−β): the backward direction, the suppressed outcome, and the out-of-regime stopping rule)
SCAN_CASES = [
    (3, Fraction(1, 2), Fraction(1)),
    (5, Fraction(1, 10), Fraction(1, 5)),
    (4, Fraction(1, 3), Fraction(1, 10)),
    (2, Fraction(1, 2), Fraction(1, 4)),
    (6, Fraction(3, 4), Fraction(1, 2)),
    (3, Fraction(1, 5), Fraction(1, 50)),
    (1, Fraction(1, 10), Fraction(1, 5)),  # k = 1 in the regime: n_m = 3, walked down to n = 1
]


@pytest.mark.parametrize("k, beta, eps", SCAN_CASES)
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_worst_case_scan_is_the_supremum_over_group_sizes(k, beta, eps, definition):
    """The scan's certified value is at least the measure at every group size up to 200 (a
    stopping rule that stops early is caught), and equals the brute force at its argmax."""
    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    c = sdgs_delta_certified(k, beta, eps, definition)
    ref, arg = _brute_sup(k, beta, eps, 200)[definition == "pointwise"]
    with mpmath.workdps(60):
        hi = mpmath.mpf(c.upper.numerator) / c.upper.denominator
        lo = mpmath.mpf(c.lower.numerator) / c.lower.denominator
        assert hi >= ref * (1 - mpmath.mpf(10) ** -30), (float(hi), float(ref), arg)
        if c.details.get("argmax_n") is not None and c.details["argmax_n"] <= 200:
            assert lo <= ref * (1 + mpmath.mpf(10) ** -30), (float(lo), float(ref), arg)


def _kl(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """KL(Bern(a) ‖ Bern(b)) with 0·ln 0 = 0."""
    out = mpmath.mpf(0)
    if a > 0:
        out += a * mpmath.log(a / b)
    if a < 1:
        out += (1 - a) * mpmath.log((1 - a) / (1 - b))
    return out


# outside CP Thm 5's regime the scan stops on the sum of an upper and a lower Chernoff bound
STOP_CASES = [
    (20, Fraction(1, 2), Fraction(1, 2), "pointwise"),
    (20, Fraction(1, 2), Fraction(1, 2), "hockey-stick"),
    (5, Fraction(1, 2), Fraction(1, 10), "hockey-stick"),
    (2, Fraction(1, 2), Fraction(1, 2), "pointwise"),
    (20, Fraction(1, 2), Fraction(1, 10), "pointwise"),
]


@pytest.mark.parametrize("k, beta, eps, definition", STOP_CASES)
def test_out_of_regime_stop_is_justified_by_both_chernoff_bounds(k, beta, eps, definition):
    """Where the scan says it stopped at n = N outside the regime, recompute its certificate from
    the definitions: every group size n' ≥ N has measure ≤ exp(−n'·KL(γ‖β)) (published counts
    above γn') + exp(−(N−1)·KL(c_N‖β)) (counts below γ'n', or suppressed), c_N = max(k, γ'N)/(N−1),
    γ = 1 − (1−β)e^−ε, γ' = 1 − (1−β)e^ε; both terms together must be below the value found."""
    import re

    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    c = sdgs_delta_certified(k, beta, eps, definition)
    m = re.search(r"stopped at n = (\d+): for every n' ≥ \d+, exp\(−n'·KL\(γ‖β\)\) \+ exp", c.how)
    assert m, c.how  # this case reaches the out-of-regime stopping rule
    N = int(m.group(1))
    with mpmath.workdps(60):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        g = 1 - (1 - b) / e
        gp = 1 - (1 - b) * e
        assert gp > 0  # outside the regime
        cN = max(mpmath.mpf(k), gp * N) / (N - 1)
        assert cN < b
        bound = mpmath.exp(-N * _kl(g, b)) + mpmath.exp(-(N - 1) * _kl(cN, b))
        best = mpmath.mpf(c.lower.numerator) / c.lower.denominator
        assert bound <= best, (N, float(bound), float(best))
