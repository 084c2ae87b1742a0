"""inverse.pld_discrete's float error terms are the bounds its module doc proves (lemmas (c),
(c'), (d) and the norm bounds), and every ball or interval evaluation runs at the documented 128
bits.  Each term is re-derived here from the documented formula (the same float evaluation, so
that a constant or a factor off by one ulp of the bound shows), and checked to be a bound: at
least the true quantity computed exactly in Fractions (milliseconds each)."""

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


VECTORS = [np.array([0.25, 0.5, 0.125, 0.125]), np.linspace(1e-300, 1e-3, 777),
           np.array([1e-200] * 3 + [0.9]), np.array([2.0**10])]


@pytest.mark.parametrize("x", VECTORS)
def test_norm2_upper_is_the_documented_bound(x: np.ndarray) -> None:
    # ‖x‖₂² ≤ (1 + 1.01(n + 2)u)·S (S the float sum of the squares of 2^500·x), then √, one
    # unscaling (1 + 4u) and √n·2^-537 for the underflowed squares, rounded up
    n = len(x)
    y = x * 2.0**500
    ssq = float(np.sum(y * y)) * (1 + 1.01 * (n + 2) * U)
    doc = _up(math.sqrt(ssq) * (1 + 4 * U) / 2.0**500 + math.sqrt(n) * 2.0**-537)
    got = D._norm2_upper(x)
    assert got == doc
    assert F(got) ** 2 >= _exact_norm2_sq(x)
    assert D._norm2_upper(np.array([])) == 0.0


@pytest.mark.parametrize("x", VECTORS[:3])
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
    assert D._power_error(s1, s2, err2, size, times) == doc * (1 + 2.0**-20)
    # the same bound in exact arithmetic (at 200 digits) is not above the float one by more than
    # the evaluation's few ulps, covered by the factor 1 + 2^-20
    with mpmath.workdps(200):
        m = (2 * mpmath.log(size, 2) + 4) * 8 * mpmath.mpf(U)
        ee = m * s2 + err2
        rr = s1 + mpmath.sqrt(size) * ee
        g = (1 + 8 * mpmath.mpf(U)) ** (2 * times) - 1
        exact = mpmath.sqrt(2) * (times * rr ** (times - 1) * ee + g * rr**times + m * rr**times * (1 + g))
        assert exact <= D._power_error(s1, s2, err2, size, times)


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
    # rationals through _arb_q and iv_from_fraction: record the working precision at each call
    import flint

    seen: set[tuple[str, int]] = set()
    arb_q, iv_q = D._arb_q, D.iv_from_fraction

    def spy_arb(x):  # type: ignore[no-untyped-def]
        seen.add(("arb", flint.ctx.prec))
        return arb_q(x)

    def spy_iv(x):  # type: ignore[no-untyped-def]
        seen.add(("iv", mpmath.iv.prec))
        return iv_q(x)

    monkeypatch.setattr(D, "_arb_q", spy_arb)
    monkeypatch.setattr(D, "iv_from_fraction", spy_iv)
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)  # infinite loss one way, none the other
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_exact_laws(a, b)
        D.discretised_delta(pld, "ln(11/10)", 3, -7)  # indices, split, tails, final sums
        D.direct_delta(pld, "ln(11/10)", 2)
    assert seen == {("arb", 128), ("iv", 128)}
