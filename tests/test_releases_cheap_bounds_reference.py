"""inverse.releases' cheap bounds, each direction on its own, against the module doc's bound
written from its definition at 60 digits (mpmath) with nothing of the module's arithmetic:
per direction (P, Q), 1 − (1 − p∞)^T + C_λ e^(−λε) M(λ)^T, minimised over the screened λ grid,
capped at 1, and at least the exact T-fold hockey-stick δ of that direction (CP Def. 2, every
T-tuple enumerated).  Also: chernoff_bound refuses a number of releases that is not a positive
integer, and format_bound prints a bound below 1 with the fewest digits (at least the asked
ones) that keep it below 1, rounded up."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.params import epsilon_param
from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import _hs, _law


def _mp(v: F) -> mpmath.mpf:
    return mpmath.mpf(v.numerator) / v.denominator


def _direction_reference(a: dict, b: dict, x: F, times: int) -> mpmath.mpf:
    """The bound of one direction (P, Q) = (a, b), min over the screened λ grid, capped at 1."""
    with mpmath.workdps(60):
        p_inf = sum((v for o, v in a.items() if v and not b.get(o)), F(0))
        inf = 1 - (1 - _mp(p_inf)) ** times
        fin = [(_mp(v), _mp(v / b[o])) for o, v in a.items() if v and b.get(o)]
        if not fin:
            return min(inf, mpmath.mpf(1))
        best = min(inf + (lam**lam / (1 + lam) ** (1 + lam)) * _mp(x) ** (-lam)
                   * sum(pr * r**lam for pr, r in fin) ** times
                   for lam in (mpmath.mpf(float(v)) for v in R.LAMBDAS))
        return min(best, mpmath.mpf(1))


def _close_above(bound: F, ref: mpmath.mpf) -> bool:
    """``bound`` is the reference to float accuracy of the λ screen, never below it."""
    with mpmath.workdps(60):
        b = _mp(bound)
        return bool(ref * (1 - mpmath.mpf(10) ** -40) <= b <= ref * (1 + mpmath.mpf(10) ** -12))


@pytest.mark.parametrize(("n", "k", "beta", "x", "times"), [
    (4, 2, F(1, 3), F(3, 2), 3),
    (6, 2, F(1, 4), F(2), 5),
    (5, 3, F(1, 2), F(11, 10), 2),
    (3, 1, F(1, 2), F(3), 2),  # forward: β^3 = 1/8 at infinite loss, 1 − (7/8)^2 < 2/8
    (8, 0, F(1, 3), F(3, 2), 4),  # untruncated
    (5, 0, F(1, 4), F(2), 3),
])
def test_each_direction_of_the_pair_bound_is_its_definition(n: int, k: int, beta: F, x: F,
                                                            times: int) -> None:
    # forward: U_n (thresholded at k) against U_(n-1); backward: the reverse.  Each bound must be
    # its own direction's screened-λ Chernoff bound (a wrong loss sign in the λ screen of one
    # direction picks a worse λ), and at least that direction's exact δ
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    eps = epsilon_param(f"ln({x})")
    fwd, bwd = R._pair_direction_bounds(n, k or None, beta, eps, times)
    ref_f, ref_b = _direction_reference(p, q, x, times), _direction_reference(q, p, x, times)
    assert ref_f < 1 and ref_b < 1  # neither capped: the λ screen decides both
    assert _close_above(fwd, ref_f) and _close_above(bwd, ref_b)
    assert _hs(p, q, x, times) <= fwd and _hs(q, p, x, times) <= bwd


@pytest.mark.parametrize("times", [2, 3])
def test_chernoff_bound_with_a_large_mass_at_infinite_loss(times: int) -> None:
    # P = {a: 1/2, b: 1/2}, Q = {a: 1}: half of P's mass has infinite loss; its T-fold part is
    # 1 − (1/2)^T (3/4 at T = 2), not the union bound T/2 (1 at T = 2); at ε = ln 8 the finite
    # part adds little.  The bound is the forward direction's definition and at least the exact δ
    p, q, x = {"a": F(1, 2), "b": F(1, 2)}, {"a": F(1)}, F(8)
    b = R.chernoff_bound(p, q, "ln(8)", times)
    ref = max(_direction_reference(p, q, x, times), _direction_reference(q, p, x, times))
    assert ref < 1 and _close_above(b, ref)
    assert _hs(p, q, x, times) <= b < 1 - F(1, 2) ** times + F(1, 10)


@pytest.mark.parametrize("times", [0, -1, 1.5, "2", True])
def test_chernoff_bound_refuses_a_number_of_releases_that_is_not_a_positive_integer(times: object) -> None:
    p, q = _law(3, F(1, 3), 1), _law(2, F(1, 3), 1)
    with pytest.raises(ParameterError):
        R.chernoff_bound(p, q, "ln(2)", times)  # type: ignore[arg-type]


def _rounded_up(x: F, digits: int) -> F:
    """x rounded up to ``digits`` significant decimal digits (0 < x), exactly."""
    e = math.floor(math.log10(x.numerator) - math.log10(x.denominator))
    while F(10) ** e > x:  # the float log may be one off near a power of 10
        e -= 1
    while F(10) ** (e + 1) <= x:
        e += 1
    unit = F(10) ** (e - digits + 1)
    return math.ceil(x / unit) * unit


@pytest.mark.parametrize("x", [F(1, 3), F(99995, 100000), F(999951, 1000000), 1 - F(1, 10**7),
                               F(7, 2), F(1)])
def test_format_bound_takes_the_fewest_digits_that_keep_a_bound_below_one_below_one(x: F) -> None:
    # reference: the least digits >= 4 whose rounding up of x stays below 1 when x < 1 (4 digits
    # otherwise); the printed value is that rounding, with that many significant digits
    digits = 4
    while x < 1 and _rounded_up(x, digits) >= 1:
        digits += 1
    s = R.format_bound(x)
    assert F(s) == _rounded_up(x, digits)
    mantissa = s.split("e")[0].replace(".", "")
    assert len(mantissa) == digits


@pytest.mark.parametrize(("n", "k"), [(1, 2), (2, 3), (4, 5)])
def test_thresholded_bound_below_the_threshold_is_zero(n: int, k: int) -> None:
    # n < k: both groups publish "suppressed" with certainty, so every T-fold δ is exactly 0
    # (not merely a small Chernoff bound), also for β within the 128-bit balls' radius of 1
    for beta in (F(1, 3), 1 - F(1, 2**200)):
        assert R.thresholded_bound(n, k, beta, "ln(2)", 3) == 0
        p, q = _law(n, beta, k), _law(n - 1, beta, k)
        assert _hs(p, q, F(2), 3) == 0 == _hs(q, p, F(2), 3)


@pytest.mark.parametrize(("beta", "x", "times"), [(F(1, 3), F(3, 2), 2), (F(1, 3), F(2), 3)])
def test_thresholded_bound_of_one_record_uses_the_exact_laws_and_larger_groups_the_closed_form(
        beta: F, x: F, times: int) -> None:
    # k = 1, n = 1 (one record against none): the smaller of the TV bound and the Chernoff bound
    # of the exact laws, whose balls are narrower than the closed form's; from n = 2 on the
    # closed form of the binomial pair.  Each is at least the exact δ_T(n) (CP Def. 2)
    eps = epsilon_param(f"ln({x})")
    one = R.thresholded_bound(1, 1, beta, eps, times)
    assert one == min(R.tv_bound(1, beta, times, 1),
                      R.chernoff_bound(*R.group_pair(1, 1, beta), eps, times))
    # the two routes differ only by their balls' rounding here (equal as floats), so these
    # inputs tell the routes apart only at that level: the exact laws' bound is the narrower,
    # the one the size-one route is for; should a python-flint release make the two equal,
    # this fails and the inputs must be changed, since the equalities would then be vacuous
    assert one < min(R.tv_bound(1, beta, times, 1), R._pair_bound(1, 1, beta, eps, times))
    for k in (1, 2):
        two = R.thresholded_bound(2, k, beta, eps, times)
        assert two == min(R.tv_bound(2, beta, times, k), R._pair_bound(2, k, beta, eps, times))
        assert two > min(R.tv_bound(2, beta, times, k),
                         R.chernoff_bound(*R.group_pair(2, k, beta), eps, times))
    for n, k, b in ((1, 1, one), (2, 2, two)):
        p, q = _law(n, beta, k), _law(n - 1, beta, k)
        assert max(_hs(p, q, x, times), _hs(q, p, x, times)) <= b
