"""inverse.pld_discrete's float error terms are the bounds its module doc proves (lemmas (c),
(c'), (d) and the norm bounds), and every ball or interval evaluation runs at the documented 128
bits.  Each term is checked in two halves: an equality that PINS the documented formula (the
same float evaluation re-typed here, so a changed constant or factor shows; it is a pin of the
formula, not an independent check), and an independent half: the term is at least the true
quantity computed exactly in Fractions or at 200 digits (milliseconds each)."""

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution
from tests.test_releases_exact_reference import _law  # the thresholded count's exact law

U = 2.0**-53


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _exact_norm2_sq(x: np.ndarray) -> F:
    return sum((F(float(v)) ** 2 for v in x), F(0))


# the last: a norm near 1e-160, where the √n·2^-537 term for underflowed squares is not
# absorbed by the rounding of the rest
VECTORS = [np.array([0.25, 0.5, 0.125, 0.125]), np.linspace(1e-300, 1e-3, 777),
           np.array([1e-200] * 3 + [0.9]), np.array([2.0**10]), np.array([1e-160] * 4)]


@pytest.mark.parametrize("x", VECTORS)
def test_norm2_upper_is_the_documented_bound(x: np.ndarray) -> None:
    # ‖x‖₂² ≤ (1 + 1.01(n + 2)u)·S (S the float sum of the squares of 2^500·x), then √, one
    # unscaling (1 + 4u) and √n·2^-537 for the underflowed squares, rounded up
    n = len(x)
    y = x * 2.0**500
    ssq = float(np.sum(y * y)) * (1 + 1.01 * (n + 2) * U)
    doc = _up(math.sqrt(ssq) * (1 + 4 * U) / 2.0**500 + math.sqrt(n) * 2.0**-537)
    got = D._norm2_upper(x)
    assert got == doc  # pin of the documented formula
    assert F(got) ** 2 >= _exact_norm2_sq(x)
    assert D._norm2_upper(np.array([])) == 0.0


@pytest.mark.parametrize("x", VECTORS[:3] + VECTORS[4:])
def test_vector_norms_are_the_documented_bounds(x: np.ndarray) -> None:
    n, err = len(x), 3e-17
    v = D._Vec(x, 0, err, 0.0)
    assert v.norm1() == _up(float(np.sum(x)) * (1 + 1.01 * n * U) + math.sqrt(n) * err)
    assert v.norm2() == _up(D._norm2_upper(x) + err)
    assert F(v.norm1()) >= sum((F(float(t)) for t in x), F(0)) + F(err)


@pytest.mark.parametrize("s1,s2,err2,size,times", [(1.0, 0.6, 1e-16, 1024, 7),
                                                    (0.9, 0.3, 0.0, 1 << 16, 100),
                                                    (1.0, 1.0, 2e-15, 2, 1)])
def test_power_error_is_the_documented_bound(s1, s2, err2, size, times) -> None:
    # μ = (2ℓ + 4)η, e = μ s₂ + err, r = s₁ + √N e,
    # √2·[T r^(T−1) e + ((1 + ε)^(2T) − 1) r^T + μ r^T (1 + ε)^(2T)]·(1 + 2^-20), ε = η = 8u
    mu = (2 * math.log2(size) + 4) * 8 * U
    e = mu * s2 + err2
    r = s1 + math.sqrt(size) * e
    grow = math.expm1(2 * times * math.log1p(8 * U))
    doc = math.sqrt(2) * (times * r ** (times - 1) * e + grow * r**times + mu * r**times * (1 + grow))
    assert D._power_error(s1, s2, err2, size, times) == doc * (1 + 2.0**-20)  # pin of the formula
    # the same bound in exact arithmetic (at 200 digits) is not above the float one by more than
    # the evaluation's few ulps, covered by the factor 1 + 2^-20
    with mpmath.workdps(200):
        m = (2 * mpmath.log(size, 2) + 4) * 8 * mpmath.mpf(U)
        ee = m * s2 + err2
        rr = s1 + mpmath.sqrt(size) * ee
        g = (1 + 8 * mpmath.mpf(U)) ** (2 * times) - 1
        exact = mpmath.sqrt(2) * (times * rr ** (times - 1) * ee + g * rr**times + m * rr**times * (1 + g))
        assert exact <= D._power_error(s1, s2, err2, size, times)


def test_convolve_error_of_tiny_vectors_carries_the_flush_term() -> None:
    # products near 1e-290: the rounding terms are about 1e-306, so the √n·1e-290 charged for
    # flushing entries below 1e-290 to 0 is what the error bound is made of
    a = D._Vec(np.array([1e-150, 1e-150]), 0, 0.0, 0.0)
    b = D._Vec(np.array([1e-140]), 0, 0.0, 0.0)
    c = D._convolve(a, b)
    assert list(c.data) == [0.0, 0.0]  # 1e-290 (rounded below 1e-290) flushed
    assert c.err2 >= math.sqrt(2) * 1e-290 >= math.sqrt(2) * float(1e-150 * 1e-140)
    assert c.err2 <= math.sqrt(2) * 1e-290 * (1 + 1e-10)


def test_convolve_error_is_the_documented_young_bound() -> None:
    # lemma (c'): err_a·‖b̂‖₁ + ‖a‖₁·err_b + 1.01(m + 1)u·‖â‖₂‖b̂‖₁ + √n·m·2^-1074, plus the
    # flush √n·1e-290, rounded up with (1 + 8u)
    a = D._Vec(np.array([0.5, 0.25, 0.125, 1e-300]), 3, 1e-17, 0.0)
    b = D._Vec(np.array([0.75, 0.2]), -1, 2e-17, 0.0)
    c = D._convolve(a, b)
    n, m = 5, 2
    bhat1 = _up(float(np.sum(b.data)) * (1 + 1.01 * 2 * U))
    rounding = 1.01 * (m + 1) * U * D._norm2_upper(a.data) * bhat1 + math.sqrt(n) * m * 2.0**-1074
    err = a.err2 * bhat1 + a.norm1() * b.err2 + rounding + math.sqrt(n) * 1e-290
    assert c.err2 == _up(err * (1 + 8 * U)) and c.offset == 2 and c.extra == 0.0
    exact = [sum((F(float(a.data[i])) * F(float(b.data[j])) for i in range(4) for j in range(2)
                  if i + j == k), F(0)) for k in range(n)]
    assert c.data[4] == 0.0 < exact[4]  # 2e-301 is flushed, within the charged √n·1e-290
    assert all(abs(F(float(v)) - x) <= F(c.err2) for v, x in zip(c.data, exact))


@pytest.mark.parametrize("upper", [True, False])
def test_final_sum_is_the_documented_bound(upper: bool) -> None:
    # lemma (d): Σ c_j f(x_j)·(1 ± slack) ± err·‖w‖₂(1 + 2^-40) ± extra, slack = 1.01(n + 2)u +
    # 2·2^-40, the shift rounded outward from a 128-bit interval
    data = np.array([0.1, 0.2, 0.3, 0.25, 0.15])
    vec = D._Vec(data, -2, 1e-16, 1e-18)
    h, times, eps = 2.0**-3, 2, F(1, 5)
    with mpmath.workprec(128):
        anchor = mpmath.iv.log(mpmath.iv.mpf(3) / 2)
    got = D._final(vec, times, anchor, eps, h, upper)
    with D.iv_precision(128):
        shift = D.iv_from_fraction(eps) - times * anchor
        e_shift = float(mpmath.mpf(shift.a if upper else shift.b))
    e_shift = math.nextafter(e_shift, -math.inf if upper else math.inf)
    j = np.arange(5, dtype=np.float64)
    x = e_shift - (-2 + j) * h
    w = np.where(x < 0, -np.expm1(np.minimum(x, 0.0)), 0.0)
    s = float(np.sum(data * w))
    slack = 1.01 * (5 + 2) * U + 2 * 2.0**-40
    wn = D._norm2_upper(w) * (1 + 2.0**-40)
    if upper:
        assert got == _up(s * (1 + slack) + vec.err2 * wn + vec.extra)
    else:
        assert got == max(0.0, math.nextafter(s * (1 - slack) - vec.err2 * wn - vec.extra, -math.inf))
    # and it bounds the exact sum Σ c_j max(0, 1 − e^(ε − T·ln(3/2) − (offset + j)h))
    with mpmath.workdps(60):
        ex = sum(float(c) * max(mpmath.mpf(0), 1 - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator
                 - times * mpmath.log(mpmath.mpf(3) / 2) - (-2 + i) * mpmath.mpf(h)))
                 for i, c in enumerate(data))
        assert (got >= ex + vec.extra) if upper else (got <= ex)


def test_every_ball_and_interval_runs_at_the_documented_128_bits(monkeypatch) -> None:
    # the module's ball (python-flint) and interval (mpmath iv) evaluations all read the exact
    # rationals through arb_fraction and iv_from_fraction: record the working precision at each call
    import flint

    seen: set[tuple[str, int]] = set()
    arb_q, iv_q = D.arb_fraction, D.iv_from_fraction

    def spy_arb(x):  # type: ignore[no-untyped-def]
        seen.add(("arb", flint.ctx.prec))
        return arb_q(x)

    def spy_iv(x):  # type: ignore[no-untyped-def]
        seen.add(("iv", mpmath.iv.prec))
        return iv_q(x)

    monkeypatch.setattr(D, "arb_fraction", spy_arb)
    monkeypatch.setattr(D, "iv_from_fraction", spy_iv)
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)  # infinite loss one way, none the other
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_exact_laws(a, b)
        D.discretised_delta(pld, "ln(11/10)", 3, -7)  # indices, split, tails, final sums
        D.direct_delta(pld, "ln(11/10)", 2)
    assert seen == {("arb", 128), ("iv", 128)}


@pytest.mark.parametrize("h_exp", [-2, -5])
def test_split_vector_keeps_both_masses_and_its_error_term_is_the_documented_one(h_exp: int) -> None:
    # lemma (a'): each atom of ratio r between grid points i, i + 1 (losses a + ih, a = ln r0)
    # goes to i with share s = (e^(−(ℓ − ℓ_i)) − e^(−h))/(1 − e^(−h)) of its P-mass, the rest
    # to i + 1; then Σ_j P_j = Σ P (P-mass kept) and Σ_j P_j e^(−(a + jh)) = Σ Q (Q-mass kept)
    import flint

    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(q, p)  # no infinite loss this way
    r0, idx = D._indices(pld, h_exp)
    v = D._split_base(pld, r0, idx, h_exp)
    with mpmath.workdps(60):
        h = mpmath.mpf(2) ** h_exp
        a = mpmath.log(mpmath.mpf(r0.numerator) / r0.denominator)
        exact = {}
        for r, pr in pld.ratios.items():
            lo, hi = idx[r]
            m = mpmath.mpf(pr.numerator) / pr.denominator
            ell = mpmath.log(mpmath.mpf(r.numerator) / r.denominator)
            if hi == lo + 1:
                s = (mpmath.exp(-(ell - a - lo * h)) - mpmath.exp(-h)) / (1 - mpmath.exp(-h))
                exact[lo] = exact.get(lo, 0) + m * s
                exact[hi] = exact.get(hi, 0) + m * (1 - s)
            else:
                assert lo == hi  # only the anchor sits on the grid here
                exact[hi] = exact.get(hi, 0) + m
        assert all(v.offset + j in exact or v.data[j] == 0 for j in range(len(v.data)))
        err = mpmath.sqrt(sum((mpmath.mpf(float(v.data[j - v.offset])) - x) ** 2 for j, x in exact.items()))
        assert err <= v.err2
        p_mass = sum(mpmath.mpf(x.numerator) / x.denominator for x in pld.ratios.values())
        q_mass = sum(mpmath.mpf((x / r).numerator) / (x / r).denominator for r, x in pld.ratios.items())
        assert abs(sum(exact.values()) - p_mass) < mpmath.mpf(10) ** -50
        assert abs(sum(x * mpmath.exp(-(a + j * h)) for j, x in exact.items()) - q_mass) < mpmath.mpf(10) ** -50
    # the error term: per part, the ball radius (exact as a float), 2u of the rounded mass and 2^-1000; the
    # sums into a bin (c − 1)u of the total for c parts in the fullest bin; rounded up (1 + 4u)
    err_doc = 0.0
    with flint.ctx.workprec(128):
        hb = flint.arb(2) ** h_exp
        l0 = flint.arb(flint.fmpq(r0.numerator, r0.denominator)).log()
        for r, pr in pld.ratios.items():
            lo, hi = idx[r]
            pb = flint.arb(flint.fmpq(pr.numerator, pr.denominator))
            if hi == lo + 1:
                t = flint.arb(flint.fmpq(r.numerator, r.denominator)).log() - l0 - lo * hb
                s = ((-t).exp() - (-hb).exp()) / (1 - (-hb).exp())
                parts = [pb * s, pb * (1 - s)]
            else:
                parts = [pb]
            for m in parts:
                err_doc += float(m.rad()) + 2 * U * max(float(m.mid()), 0.0) + 2.0**-1000
    counts = {}
    for r in pld.ratios:
        lo, hi = idx[r]
        for j in ((lo, hi) if hi == lo + 1 else (hi,)):
            counts[j] = counts.get(j, 0) + 1
    err_doc += (max(counts.values()) - 1) * U * float(v.data.sum()) * (1 + 4 * U)
    assert v.err2 == _up(err_doc * (1 + 4 * U))


def test_tail_cut_of_a_very_fine_grid_is_exact_integers_and_the_window_clips_it() -> None:
    # grid step 2^-80: the Chernoff cut in grid indices lies far beyond 2^62; floor and ceil of
    # the finite float ends are exact Python integers, and the window stays in the full range
    probs = [F(1, 2), F(1, 3), F(1, 6)]
    tails = D._Tails([0, 2**70, 2**71], probs, 2.0**-80)
    lo, hi = tails.cut(3, 1e-12)
    assert isinstance(lo, int) and isinstance(hi, int) and lo < 0 < 2**62 < hi
    base = D._Vec(np.array([0.5, 0.0, 0.5]), 0, 0.0, 0.0)
    w_lo, size, kept = D._window(base, 3, D._Tails([0, 2], [F(1, 2), F(1, 2)], 2.0**-80), 1e-12)
    assert (w_lo, size, kept) == (0, 8, 7)  # the whole range 0..6 of three releases


@pytest.mark.parametrize("masses", [
    [F(1, 3), F(2, 3)],
    [F(1, 10**310), F(3, 10**312), F(1, 7 * 10**315)],  # subnormal floats: the 2^-1000 terms
])
def test_rounded_base_vector_error_is_the_documented_bound(masses: list) -> None:
    # three atoms (two share a bin): each float(p) is within u·p of p plus the underflow of a
    # subnormal; the term charged is 3u·‖p‖₁·(1 + 4u) + 2^-1000 per atom
    from types import SimpleNamespace

    ratios = [F(2), F(3), F(5)][:len(masses)]
    pld = SimpleNamespace(ratios=dict(zip(ratios, masses)))
    idx = {r: (j // 2, j // 2) for j, r in enumerate(ratios)}
    v = D._base_vector(pld, idx, 0)
    doc = 3 * U * float(sum(masses)) * (1 + 4 * U) + len(masses) * 2.0**-1000
    assert v.err2 == doc and v.offset == 0 and v.extra == 0.0
    exact = {}
    for r, p in zip(ratios, masses):
        exact[idx[r][0]] = exact.get(idx[r][0], F(0)) + p
    true_err_sq = sum((F(float(v.data[j])) - p) ** 2 for j, p in exact.items())
    assert true_err_sq <= F(v.err2) ** 2


def test_fft_power_error_term_is_the_documented_bound_rounded_up() -> None:
    # the T-fold vector's error: _power_error of the base's norms, plus √N·1e-290 for the
    # flushed entries, times (1 + 8u) for that float sum, rounded up (pin of the formula)
    pld = PrivacyLossDistribution.from_exact_laws(_law(6, F(1, 3), 2), _law(5, F(1, 3), 2))
    r0, idx = D._indices(pld, -6)
    base = D._split_base(pld, r0, idx, -6)
    tails = D._Tails([idx[r][1] for r in pld.ratios], list(pld.ratios.values()), 2.0**-6,
                     idx_low=[idx[r][0] for r in pld.ratios])
    for times in (2, 7, 100):
        _, size, _ = D._window(base, times, tails, 1e-16)
        v, _ = D._power(base, times, tails, 1e-16, D.DEFAULT_MAX_BINS)
        err = D._power_error(base.norm1(), base.norm2(), base.err2, size, times) + math.sqrt(size) * 1e-290
        assert v.err2 == _up(err * (1 + 8 * U)) and len(v.data) == size


def test_chernoff_mass_bound_of_a_side_is_at_most_one() -> None:
    # a cut far inside the law (the Chernoff bound M(λ)^n e^(−λht) above 1 at every λ): the
    # mass outside is charged as 1 per side (rounded up, then 1 + 4u per side and for the sum)
    probs = [F(1, 2), F(1, 3), F(1, 6)]
    tails = D._Tails([0, 5, 9], probs, 2.0**-4)
    one_side = _up(_up(1.0) * (1 + 4 * U) * (1 + 4 * U))
    assert tails.bound(3, None, -100) == one_side
    assert tails.bound(3, 200, None) == one_side
    # a bound whose ball overflows (10^100 releases: M(λ)^n past arb's finite range) is charged 1
    assert tails.bound(10**100, None, 0) == one_side
    both = tails.bound(3, 200, -100)
    assert 2 <= both == _up((_up(1.0) * (1 + 4 * U) + _up(1.0) * (1 + 4 * U)) * (1 + 4 * U))
    # and a cut at the top of the support is charged its small Chernoff bound, at least the
    # mass there (index 27 = three releases at 9: (1/6)^3)
    far = tails.bound(3, None, 27)
    assert F(1, 216) <= F(far) < F(1, 100)


def _direct_documented(pld: PrivacyLossDistribution, eps: str, times: int) -> tuple[F, F]:
    """direct_delta's float interval sum re-typed from its docstring (a pin of the formula):
    128-bit ball ends of 1 − (1 − p∞)^T, of each ln r and of ε; masses and log-ratios widened one ulp, every
    product and sum of endpoints one ulp outward; the weights 1 − e^(−d) trusted to 2^-40;
    the two float sums of N terms widened by γ_N = 1.01·(N + 4)·u relative and N·2^-1074."""
    import flint

    from dps_verify.core.params import epsilon_param
    from dps_verify.inverse.pld_sparse import arb_one_minus_power
    from dps_verify.worstcase.ball_binomial import arb_epsilon

    down, up = -math.inf, math.inf
    with flint.ctx.workprec(128):
        inf_lo, inf_hi = D._arb_ends(arb_one_minus_power(pld.infinity_mass, times))
        e_lo, e_hi = D._arb_ends(arb_epsilon(epsilon_param(eps)))
        ends = [D._arb_ends(flint.arb(flint.fmpq(r.numerator, r.denominator)).log()) for r in pld.ratios]
    probs = [float(p) for p in pld.ratios.values()]
    one = [(max(math.nextafter(p, down), 0.0), math.nextafter(p, up),
            math.nextafter(float(a), down), math.nextafter(float(b), up)) for p, (a, b) in zip(probs, ends)]
    tuples = one
    for _ in range(times - 1):
        tuples = [(max(math.nextafter(a[0] * b[0], down), 0.0), math.nextafter(a[1] * b[1], up),
                   math.nextafter(a[2] + b[2], down), math.nextafter(a[3] + b[3], up))
                  for a in tuples for b in one]
    n = len(tuples)
    gamma = 1.01 * (n + 4) * U
    his, los = [], []
    for p_lo, p_hi, l_lo, l_hi in tuples:
        d_lo = math.nextafter(l_lo - math.nextafter(float(e_hi), up), down)
        d_hi = math.nextafter(l_hi - math.nextafter(float(e_lo), down), up)
        his.append(p_hi * min(max(-math.expm1(-d_hi), 0.0) * (1 + 2.0**-40), 1.0))
        los.append(p_lo * (max(-math.expm1(-d_lo), 0.0) * (1 - 2.0**-40)))
    s_hi = _up(float(np.sum(np.array(his))) * (1 + gamma) + n * 2.0**-1074)
    s_lo = max(0.0, math.nextafter(float(np.sum(np.array(los))) * (1 - gamma) - n * 2.0**-1074, down))
    upper = min(F(1), inf_hi + F(s_hi))
    return min(upper, max(inf_lo, F(0)) + F(s_lo)), upper


# a rare output of loss ln 1000 (P-mass 1e-13), and outputs whose P-mass 1e-320 is a subnormal
# float (the N·2^-1074 underflow terms then show in both ends)
_RARE = ({0: F(1, 2), 1: F(1, 2) - F(1, 10**13), 2: F(1, 10**13)},
         {0: F(1, 2) - F(1, 10**16), 1: F(1, 2), 2: F(1, 10**16)})
_SUBNORMAL = ({0: 1 - F(1, 10**320), 1: F(1, 10**320)}, {0: 1 - F(1, 10**330), 1: F(1, 10**330)})
# half the P-mass at infinite loss, the other half at loss ln(5e19): the widened sum passes 1
_PAST_ONE = ({0: F(1, 2), 1: F(1, 2)}, {0: F(1, 10**20), 2: 1 - F(1, 10**20)})


@pytest.mark.parametrize(("laws", "eps", "times"), [
    (_RARE, "ln(100)", 2), (_RARE, "ln(100)", 3), (_RARE, "1/10", 4),
    ((_law(6, F(1, 3), 2), _law(5, F(1, 3), 2)), "ln(11/10)", 3),
    ((_law(5, F(1, 3), 2), _law(6, F(1, 3), 2)), "1/20", 2),
    (_SUBNORMAL, "ln(3)", 1), (_SUBNORMAL, "ln(3)", 2),
    (_PAST_ONE, "ln(2)", 1), (_PAST_ONE, "ln(2)", 2),
])
def test_direct_sum_is_the_documented_float_interval_sum(laws: tuple, eps: str, times: int) -> None:
    from tests.test_inverse_edges_reference import _hs  # exact T-fold δ, every tuple enumerated

    p, q = laws
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    c = D.direct_delta(pld, eps, times)
    assert (c.lower, c.upper) == _direct_documented(pld, eps, times)  # pin of the formula
    # independent half: it encloses the exact δ, for every case.  δ at e^ε = x decreases in x, so
    # for rationals x_lo <= e^ε <= x_hi the exact δ lies in [δ(x_hi), δ(x_lo)]: e^ε rational
    # (ε = ln r) gives x_lo = x_hi = r, otherwise an outward 300-bit mpmath interval of e^ε
    x_lo, x_hi = _exp_enclosure(eps)
    assert x_lo <= x_hi and x_hi - x_lo <= F(1, 2**280)
    assert c.lower <= _hs(p, q, x_hi, times) <= _hs(p, q, x_lo, times) <= c.upper


def _exp_enclosure(eps: str) -> tuple[F, F]:
    """Rationals x_lo <= e^ε <= x_hi, for ε written "ln(r)" (exact) or as a rational (mpmath
    interval arithmetic at 300 bits, outward; independent of the ball code under test)."""
    if eps.startswith("ln("):
        r = F(eps[3:-1])
        return r, r
    e = F(eps)
    iv, prec = mpmath.iv, mpmath.iv.prec
    try:
        iv.prec = 300
        y = iv.exp(iv.mpf(e.numerator) / e.denominator)
    finally:
        iv.prec = prec
    lo, hi = (F(*map(int, mpmath.libmp.to_rational(end))) for end in y._mpi_)
    return lo, hi


def test_base_vector_error_covers_a_bin_of_many_atoms_whose_additions_all_round_away() -> None:
    """A bin holding 1/2 and ten atoms of 0.99·2^-54 each: every float addition of a tiny atom
    to 1/2 rounds back to 1/2, so the float bin misses about 9.9u of the mass ‖p‖₁ ≈ 1/2 — more
    than a flat 3u·‖p‖₁ — and the error charged must cover it (exact rational check)."""
    from types import SimpleNamespace

    tiny = F(99, 100 * 2**54)
    masses = [F(1, 2)] + [tiny] * 10
    ratios = [F(2) + F(j, 10**6) for j in range(len(masses))]
    pld = SimpleNamespace(ratios=dict(zip(ratios, masses)))
    idx = {r: (0, 0) for r in ratios}
    v = D._base_vector(pld, idx, 0)
    true_err = abs(F(float(v.data[0])) - sum(masses))
    assert float(v.data[0]) == 0.5 and true_err > 3 * F(U) * sum(masses)  # the flat bound fails
    assert true_err <= F(v.err2)


def test_infinite_loss_mass_of_a_law_without_one_is_exactly_zero_at_both_ends() -> None:
    # no mass at infinite loss: 1 - (1 - 0)^T is exactly 0, so neither end is widened by a
    # rounding step (the general path would round the upper end up to the least subnormal)
    for times in (1, 2, 10**6):
        assert D._inf_mass(F(0), times) == (0.0, 0.0)
    lo, hi = D._inf_mass(F(1, 4), 2)  # 1 - (3/4)^2 = 7/16, enclosed outward
    assert lo <= 7 / 16 <= hi and 0 < hi - lo < 1e-15
