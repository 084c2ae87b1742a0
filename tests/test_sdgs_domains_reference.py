"""The private helpers of the exact worst-case walk (worstcase/sdgs.py) on both sides of the
domains their docstrings state, against exact Fractions and the definitions.

* ``_cmp`` (the sign of a/b − c/d) equals the exact comparison for numerators of either sign,
  short and past the 8192-bit cross-multiplication limit, far apart, at near ties within the
  float screen's 2^−40 band and at exact ties (also of tiny quotients, below 2^−40), and
  refuses a denominator ≤ 0;
* ``_Exp`` (the enclosure of e^ε) refuses ε < 0 and ``_Exp.less`` (e^ε·X < Y) refuses X < 0,
  each answering exactly just inside (ε = 0, X = 0);
* the KL ball ``_kl_lower_arb`` refuses ε ≤ 0 and β outside (0, 1);
* the walk ``_scan_from`` refuses a start n0 < k, k < 1 or β outside (0, 1) and, just inside
  (n0 = k = 1), gives the worst case of the brute force over group sizes;
* the public ``scan`` refuses β outside (0, 1) and ε < 0 with one ParameterError line naming
  the parameter, for every measure, and just inside (β near 0 and 1, ε = 0) answers as before.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from pathlib import Path

import gmpy2
import mpmath
import pytest

from dps_verify.core.numbers import exact_log
from dps_verify.worstcase import sdgs
from dps_verify.worstcase.sdgs_generic import output_laws

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "properties"))
import reference as R  # noqa: E402

F = Fraction
LONG = 9000  # bits: past the 8192-bit cross-multiplication limit of _cmp


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def _check(a: int, b: int, c: int, d: int) -> None:
    want = _sign(F(a, b) - F(c, d))
    z = gmpy2.mpz
    assert sdgs._cmp(z(a), z(b), z(c), z(d)) == want, (a.bit_length(), b.bit_length(), want)
    assert sdgs._cmp(z(c), z(d), z(a), z(b)) == -want


def _cases(bits: int, rng: random.Random):
    """(a, b, c, d), b, d > 0, with numerators of every sign pattern: far apart, exactly equal
    in other integers, and c/d off a/b by about 2^−100, 2^−45, 2^−41 and 2^−39 relative."""
    b = (1 << bits) + rng.getrandbits(bits - 1)
    d = (1 << (bits + 100)) + rng.getrandbits(bits)
    a0 = b // 3 + rng.getrandbits(bits // 2)
    for sa in (1, -1):
        for sc in (1, -1):
            a = sa * a0
            yield a, b, sc * (a0 * 5), b * 7  # far apart (or of opposite signs)
            yield a, b, sc * a0 * 3, b * 3  # equal values when the signs agree
            for rel in (100, 45, 41, 39):
                c = sc * ((a0 * d) // b)  # |c/d| within 1/d below |a/b|
                yield a, b, c + sc * ((c * sc) >> rel), d
                yield a, b, c - sc * ((c * sc) >> rel), d


@pytest.mark.parametrize("bits", [30, LONG])
def test_cmp_equals_the_exact_comparison_for_numerators_of_either_sign(bits):
    """Short products (exact cross-multiplication) and long ones (a float screen of 53-bit
    quotients with a band of 2^−40·|c/d|, then exact): the sign is the exact one for every
    sign of a and c, at near ties on both sides of the band and at exact ties. A band taken
    from y instead of |y| answers 1 at a tie of two equal negative quotients (the old screen's
    one-sided margins); a band reversed or missing answers from the floats inside it."""
    rng = random.Random(bits)
    for a, b, c, d in _cases(bits, rng):
        _check(a, b, c, d)
    z = gmpy2.mpz
    big = (1 << LONG) + 12345
    assert sdgs._cmp(z(-big), z(1), z(-big), z(1)) == 0  # a tie of negative values, long
    assert sdgs._cmp(z(-3 * big), z(3), z(-big), z(1)) == 0


def test_cmp_keeps_the_exact_sign_at_ties_of_quotients_below_the_band():
    """Long numerators over longer denominators: quotients near 2^−100 and 2^−3000, far below
    2^−40, so a band of |y| − 2^−40 (negative) or y − |y|·2^−40 would answer at a tie."""
    z = gmpy2.mpz
    for shift in (100, 3000):
        a = (1 << LONG) + 777
        b = a << shift
        for s in (1, -1):
            assert sdgs._cmp(z(s * a), z(b), z(s * 3 * a), z(3 * b)) == 0
            assert sdgs._cmp(z(s * a + s), z(b), z(s * a), z(b)) == s
            assert sdgs._cmp(z(s * a - s), z(b), z(s * a), z(b)) == -s


@pytest.mark.parametrize("bits", [3, LONG])
def test_cmp_refuses_a_denominator_that_is_not_positive(bits):
    """b > 0 and d > 0 is _cmp's domain (the cross-multiplication's sign assumes it): 0 and −1
    in either place raise ValueError; 1 in both places is just inside and exact."""
    z = gmpy2.mpz
    a = z((1 << bits) + 1)
    for b, d in ((0, 1), (1, 0), (-1, 1), (1, -1), (0, 0)):
        with pytest.raises(ValueError, match="positive denominators"):
            sdgs._cmp(a, z(b), a, z(d))
    assert sdgs._cmp(a, z(1), a, z(1)) == 0
    assert sdgs._cmp(a + 1, z(1), a, z(1)) == 1
    assert sdgs._cmp(-a, z(1), a, z(1)) == -1


def test_exp_refuses_a_negative_epsilon_and_is_exact_at_zero():
    """e^ε ≥ 1 is what _Exp.less relies on: ε < 0 (a rational just below 0, or ln(1/2))
    raises ValueError; ε = 0 (just inside) encloses e^0 = 1 and decides 1·X < Y exactly."""
    for eps in (F(-1, 10**30), F(-1), exact_log(F(1, 2))):
        with pytest.raises(ValueError, match="epsilon >= 0"):
            sdgs._Exp(eps)
    E = sdgs._Exp(F(0))
    assert E.lo <= (1 << E.s) and (E.hi is None or E.hi >= (1 << E.s))
    for X, Y in ((1, 1), (1, 2), (5, 5), (5, 4), (0, 1), (0, 0), (3, -1)):
        assert E.less(X, Y) == (X < Y)
    assert sdgs._Exp(exact_log(F(2))).less(1, 2) is False  # e^ln 2 · 1 = 2, not < 2


def test_exp_less_refuses_a_negative_multiplier():
    """X ≥ 0 is _Exp.less's domain: X = −1 raises ValueError (for Y of either sign); X = 0
    (just inside) answers 0 < Y."""
    E = sdgs._Exp(F(1, 3))
    for Y in (-5, 0, 1, 10**40):
        with pytest.raises(ValueError, match="X >= 0"):
            E.less(-1, Y)
        assert E.less(0, Y) == (Y > 0)
    # e^(1/3) ≈ 1.3956: 1 is below it, so 1·e^(1/3) < 2 and not < 1
    assert E.less(1, 2) and not E.less(1, 1) and not E.less(1, -1)


def _brute_max(k: int, beta: Fraction, eps: Fraction, measure: str, n_max: int) -> mpmath.mpf:
    best = mpmath.mpf(0)
    for n in range(k, n_max + 1):
        P, Q = output_laws(n, k, beta)
        v = R.hockey_stick(P, Q, eps) if measure == "hockey-stick" else R.as_mpf(R.pointwise(P, Q, eps))
        best = max(best, v)
    return best


@pytest.mark.parametrize("measure", ["paper-d", "pointwise", "hockey-stick"])
def test_walk_refuses_a_start_below_k_or_k_below_one(measure):
    """The walk's first group size n0 holds at least k ≥ 1 records: (k, n0) = (0, 0), (0, 3),
    (3, 2) and (1, 0) raise ValueError naming both; (1, 1), just inside, gives the worst case
    of the brute force over n ≤ 40 (β = 1/2, ε = 1, in CP Thm 5's regime; CP Thm 5's d is the
    Bin(n) tail past γn, the exact measures those of the output laws of TR Alg. 4)."""
    beta, eps = F(1, 2), F(1)
    E = sdgs._Exp(eps)
    for k, n0 in ((0, 0), (0, 3), (3, 2), (1, 0)):
        with pytest.raises(ValueError, match=f"k = {k}, n0 = {n0}"):
            sdgs._scan_from(k, beta, eps, measure, n0, E, False, None, sdgs.WORK_BUDGET)
    got = sdgs._scan_from(1, beta, eps, measure, 1, E, False, None, sdgs.WORK_BUDGET)
    assert got is not None
    with mpmath.workdps(40):
        if measure == "paper-d":
            gamma = 1 - (1 - mpmath.mpf(1) / 2) * mpmath.exp(-1)
            ref = max(
                sum(mpmath.binomial(n, j) / mpmath.mpf(2) ** n for j in range(n + 1) if j > gamma * n)
                for n in range(1, 41)
            )
        else:
            ref = _brute_max(1, beta, eps, measure, 40)
        lo = mpmath.mpf(got.lower.numerator) / got.lower.denominator
        hi = mpmath.mpf(got.upper.numerator) / got.upper.denominator
        assert lo <= ref * (1 + mpmath.mpf(10) ** -30) and ref <= hi * (1 + mpmath.mpf(10) ** -30)
        assert hi - lo <= hi * mpmath.mpf(2) ** -50


def test_walk_refuses_a_sampling_probability_outside_zero_to_one():
    """0 < β < 1 is the walk's domain (scan's): β = 0, 1, −1/2 and 3/2 raise ValueError naming
    β; β = 10^−9 and 1 − 10^−9, just inside, pass the check (k = 1, n0 = 1)."""
    for beta in (F(0), F(1), F(-1, 2), F(3, 2)):
        with pytest.raises(ValueError, match=f"0 < beta < 1, got {beta}"):
            sdgs._require_walk_start(1, 1, beta)
        with pytest.raises(ValueError, match="0 < beta < 1"):
            sdgs._scan_from(1, beta, F(1), "pointwise", 1, sdgs._Exp(F(1)), False, None, sdgs.WORK_BUDGET)
    for beta in (F(1, 10**9), 1 - F(1, 10**9)):
        assert sdgs._require_walk_start(1, 1, beta) is None


def test_chernoff_exponent_ball_refuses_epsilon_or_beta_outside_its_domain():
    """ε > 0 and 0 < β < 1 is the KL ball's domain (kl_lower's): ε = 0 and −1/2, β = 0 and 1
    raise ValueError (at β = 1 the ball would be the exact point 0); just inside (ε = 10^−6,
    β = 10^−9 and 1 − 10^−9, β = 1/2 at ε = 1) its lower end is ≤ KL(γ‖β) (mpmath, 50 digits)
    and positive."""
    for beta, eps in ((F(1, 2), F(0)), (F(1, 2), F(-1, 2)), (F(0), F(1)), (F(1), F(1))):
        with pytest.raises(ValueError, match="epsilon > 0 and 0 < beta < 1"):
            sdgs._kl_lower_arb(beta, eps, 64)
    with mpmath.workdps(50):
        for beta, eps in ((F(1, 2), F(1, 10**6)), (F(1, 10**9), F(1)), (1 - F(1, 10**9), F(1)), (F(1, 2), F(1))):
            got = sdgs._kl_lower_arb(beta, eps, 64)
            assert got is not None and got > 0
            b = mpmath.mpf(beta.numerator) / beta.denominator
            g = 1 - (1 - b) * mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator)
            kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
            assert mpmath.mpf(got.numerator) / got.denominator <= kl


@pytest.mark.parametrize("measure", ["paper-d", "hockey-stick", "pointwise"])
@pytest.mark.parametrize("beta", [F(0), F(1), F(-1, 2), F(3, 2)])
def test_scan_refuses_beta_outside_the_open_unit_interval(measure: str, beta: Fraction) -> None:
    with pytest.raises(sdgs.ParameterError) as err:
        sdgs.scan(2, beta, F(1), measure=measure)
    msg = str(err.value)
    assert "0 < beta < 1" in msg and "\n" not in msg


@pytest.mark.parametrize("measure", ["paper-d", "hockey-stick", "pointwise"])
def test_scan_refuses_a_negative_epsilon_and_accepts_zero(measure: str) -> None:
    with pytest.raises(sdgs.ParameterError, match="epsilon >= 0"):
        sdgs.scan(2, F(1, 2), F(-1, 10**30), measure=measure)
    if measure == "paper-d":  # ε = 0 is below CP Thm 5's regime edge: its own refusal
        with pytest.raises(sdgs.ParameterError, match="CP Thm 5"):
            sdgs.scan(2, F(1, 2), F(0), measure=measure)
        return
    got = sdgs.scan(2, F(1, 2), F(0), measure=measure)
    if measure == "pointwise":  # just inside, ε = 0: the group of k records is seen for sure
        assert got.lower == got.upper == 1
        return
    # just inside, ε = 0: the reference's supremum over group sizes (60 digits)
    want = R.sdgs_delta(2, F(1, 2), F(0), measure)
    lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (got.lower, got.upper))
    assert lo * (1 - mpmath.mpf(2) ** -150) <= want <= hi * (1 + mpmath.mpf(2) ** -150)


@pytest.mark.parametrize("beta", [F(1, 2**200), 1 - F(1, 2**20)])
def test_scan_accepts_beta_just_inside_the_open_unit_interval(beta: Fraction) -> None:
    got = sdgs.scan(1, beta, F(20), measure="paper-d")
    assert 0 < got.lower <= got.upper <= 1


def test_affine_without_an_upper_end_of_e_to_the_eps_keeps_a_lower_end_of_zero() -> None:
    """At ε = 4096 the enclosure of e^ε has no upper end (exp_dyadic's lo = 2^5900, hi = ∞),
    so A − e^ε·B has no certified positive lower end: ``affine`` must answer 0 there.  With
    A = ⌈e^4096⌉ and B = 1 the exact value lies in (0, 1), so any lower end ≥ 1 (over 2^0)
    would exceed it.  ⌈e^4096⌉ from a 6400-bit Arb ball whose ends have the same floor."""
    import flint

    with flint.ctx.workprec(6400):
        ball = flint.arb(4096).exp()
        lo_floor, hi_floor = ball.lower().floor().unique_fmpz(), ball.upper().floor().unique_fmpz()
    assert lo_floor == hi_floor  # the ball decides ⌊e^4096⌋ (e^4096 is not an integer)
    A = int(lo_floor) + 1  # 0 < A − e^4096 < 1
    E = sdgs._Exp(F(4096))
    assert E.hi is None
    lo, hi, s = E.affine(A, 1)
    assert lo == 0 and s == 0  # lo/2^s ≤ A − e^4096 < 1
    assert hi >= 1  # the upper end A − 2^5900 still encloses the value from above
