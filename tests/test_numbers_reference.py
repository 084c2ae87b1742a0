"""core/numbers.py on the paths that the arithmetic tests reach rarely, each against a reference
computed here from the definition (``Fraction``, or ``mpmath`` at 120 digits): the refusals of
bad inputs, exact-log arithmetic with offsets on both sides, the interval helpers at their
edges (unbounded or point intervals, a precision limit), and the printing of certified values
(rounded up or down, negative, zero, exact-log)."""

from __future__ import annotations

import math
import pickle
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import (
    EXP_INTERVAL_MAX_EPS,
    Certified,
    ExactLog,
    exact_log,
    exp_affine_enclosure,
    exp_compare,
    exp_interval,
    format_down,
    format_up,
    iv_adaptive,
    iv_lower,
    iv_relative_width,
    iv_upper,
    log_upper_mpf,
    to_fraction,
)


def _mp(x: ExactLog | Fraction) -> mpmath.mpf:
    """a + ln r (or a rational) at 120 digits, from the definition."""
    with mpmath.workdps(120):
        if isinstance(x, ExactLog):
            return (mpmath.mpf(x.a.numerator) / x.a.denominator
                    + mpmath.log(mpmath.mpf(x.r.numerator) / x.r.denominator))
        return mpmath.mpf(x.numerator) / x.denominator


# ------------------------------------------------------------------------------ to_fraction


@pytest.mark.parametrize("bad", [True, False, float("inf"), float("nan"), Decimal("Infinity"),
                                 Decimal("NaN"), mpmath.mpf("inf"), mpmath.mpf("nan"), "nan",
                                 "-inf", "Infinity", "1/0", "one", [1], None])
def test_to_fraction_refuses_booleans_non_finite_values_and_non_numbers(bad):
    with pytest.raises(ParameterError):
        to_fraction(bad)


def test_to_fraction_reads_each_kind_of_number_exactly():
    assert to_fraction(np.float32(0.5)) == Fraction(1, 2)
    assert to_fraction(np.float32(0.1)) == Fraction(repr(float(np.float32(0.1))))
    assert to_fraction(np.int64(-7)) == Fraction(-7)
    assert to_fraction(Decimal("0.125")) == Fraction(1, 8)
    assert to_fraction(mpmath.mpf(3) / 8) == Fraction(3, 8)
    assert to_fraction(mpmath.mpf(2) ** 70) == Fraction(2**70)
    assert to_fraction(" 3/7 ") == Fraction(3, 7)
    assert to_fraction(0.1) == Fraction(1, 10)


# ------------------------------------------------------------------------------- ExactLog


@pytest.mark.parametrize("r", [Fraction(1), Fraction(0), Fraction(-2)])
def test_exact_log_refuses_r_one_and_non_positive_r(r):
    with pytest.raises(ParameterError):
        ExactLog(r)


def test_exact_log_is_immutable_and_pickles_to_an_equal_value():
    x = ExactLog(Fraction(11), Fraction(1, 3))
    with pytest.raises(AttributeError):
        x.r = Fraction(2)
    assert pickle.loads(pickle.dumps(x)) == x
    assert +x is x


@pytest.mark.parametrize("x, y", [
    (ExactLog(Fraction(2), Fraction(1, 2)), ExactLog(Fraction(3), Fraction(1, 3))),
    (ExactLog(Fraction(2), Fraction(-1, 2)), ExactLog(Fraction(1, 5), Fraction(3))),
    (ExactLog(Fraction(7, 3)), ExactLog(Fraction(3, 7), Fraction(5, 4))),  # logs cancel
])
def test_exact_log_sums_and_differences_with_offsets_equal_the_reference(x, y):
    with mpmath.workdps(120):
        for got, want in ((x + y, _mp(x) + _mp(y)), (x - y, _mp(x) - _mp(y)),
                          (y - x, _mp(y) - _mp(x))):
            assert abs(_mp(got) - want) < mpmath.mpf(10) ** -100
        for c in (Fraction(1, 3), 2, Fraction(-5, 2)):
            fc = _mp(Fraction(c))
            for got, want in ((x + c, _mp(x) + fc), (c + x, _mp(x) + fc), (x - c, _mp(x) - fc),
                              (c - x, fc - _mp(x))):
                assert abs(_mp(got) - want) < mpmath.mpf(10) ** -100


def test_exact_logs_with_the_same_log_compare_by_their_offsets():
    lo, hi = ExactLog(Fraction(2)), ExactLog(Fraction(2), Fraction(1))
    assert lo < hi and lo <= hi and hi > lo and hi >= lo
    assert not (hi < lo) and not (hi <= lo) and not (lo > hi) and not (lo >= hi)
    assert lo <= ExactLog(Fraction(2)) and lo >= ExactLog(Fraction(2))
    assert not (lo < ExactLog(Fraction(2))) and not (lo > ExactLog(Fraction(2)))


def test_exact_log_refuses_comparison_and_arithmetic_with_floats():
    x = ExactLog(Fraction(3))
    assert (x == "ln(3)") is False and (x != "ln(3)") is True
    for op in (lambda: x < 1.5, lambda: x >= 0.5, lambda: x + 1.5, lambda: 1.5 + x,
               lambda: x - 1.5, lambda: 1.5 - x, lambda: x < True):
        with pytest.raises(TypeError):
            op()


# ------------------------------------------------------------------------ interval helpers


def test_interval_ends_that_are_unbounded_are_refused():
    v = mpmath.iv.mpf(["-inf", "1"])
    with pytest.raises(CertificationError):
        iv_lower(v)
    assert iv_upper(v) == 1
    assert iv_relative_width(v) is None


@pytest.mark.parametrize("lo, hi, want", [
    (0, 0, Fraction(0)), (-1, 2, None), (0, 1, None), (-2, -1, Fraction(1)),
    (Fraction(3, 4), 1, Fraction(1, 3)),
])
def test_relative_width_of_an_interval(lo, hi, want):
    v = mpmath.iv.mpf([mpmath.mpf(Fraction(lo).numerator) / Fraction(lo).denominator,
                       mpmath.mpf(Fraction(hi).numerator) / Fraction(hi).denominator])
    assert iv_relative_width(v) == want


def test_iv_adaptive_reaches_the_asked_relative_accuracy_and_refuses_past_its_limit():
    # (1 + x) - 1 at x = 1/(3·2^200) cancels about 200 bits: 128 and 256 bits are too few
    x = Fraction(1, 3 * 2**200)
    v = iv_adaptive(lambda: (1 + mpmath.iv.mpf(1) / (3 * 2**200)) - 1, rel_bits=64)
    assert iv_lower(v) <= x <= iv_upper(v)
    assert 0 < iv_relative_width(v) <= Fraction(1, 2**64)
    point = iv_adaptive(lambda: mpmath.iv.mpf(0))  # a point interval at 0 is exact
    assert iv_lower(point) == iv_upper(point) == 0
    # a point at infinity is exact too: returned from the first evaluation, not refined and refused
    calls = []
    for end in (mpmath.inf, -mpmath.inf):
        calls.clear()
        point = iv_adaptive(lambda end=end: calls.append(1) or mpmath.iv.mpf([end, end]), max_prec=512)
        assert point._mpi_[0] == point._mpi_[1] and calls == [1]
    with pytest.raises(CertificationError, match="MAX_PREC"):
        iv_adaptive(lambda: mpmath.iv.mpf([-1, 1]), max_prec=512)
    with pytest.raises(CertificationError, match="512"):
        iv_adaptive(lambda: mpmath.iv.mpf([1, 2]), max_prec=512)
    with pytest.raises(CertificationError, match="within 16384 bits"):  # the default limit
        iv_adaptive(lambda: mpmath.iv.mpf([1, 2]))


def test_exp_interval_refuses_an_epsilon_too_large_for_exact_rationals():
    with pytest.raises(CertificationError, match="too large"):
        exp_interval(Fraction(EXP_INTERVAL_MAX_EPS + 1))
    with pytest.raises(CertificationError, match="too large"):
        exp_interval(Fraction(-EXP_INTERVAL_MAX_EPS - 1))


def test_exp_compare_decides_huge_epsilon_by_powers_of_two_and_refuses_what_it_cannot_decide():
    assert exp_compare(Fraction(1), Fraction(2)) == 1  # e > 2 without the shortcut (floor 1 < 2 bits)
    assert exp_compare(Fraction(3), Fraction(15)) == 1  # shortcut: 15 < 2^4, e^3 > 2^3 ... decided
    assert exp_compare(Fraction(3), Fraction(21)) == -1  # e^3 = 20.09
    assert exp_compare(Fraction(10**6), Fraction(2**1000)) == 1
    with pytest.raises(CertificationError, match="too large"):
        exp_compare(Fraction(2**20), Fraction(2 ** (2**20 + 64)))
    # a rational inside every enclosure of e up to MAX_PREC cannot be separated from e: refused
    with mpmath.workprec(40000):
        e = to_fraction(+mpmath.e)
    with pytest.raises(CertificationError, match="precision limit"):
        exp_compare(Fraction(1), e)


def test_exp_affine_enclosure_refines_a_cancelling_difference_to_60_bits():
    with mpmath.workprec(400):
        e_near = to_fraction(+mpmath.e) + Fraction(1, 2**300)  # A - e·1 is 2^-300: cancels 300 bits
        lo, hi = exp_affine_enclosure(e_near, Fraction(1), Fraction(1))
        ref = mpmath.mpf(e_near.numerator) / e_near.denominator - mpmath.e
    ref_q = to_fraction(ref)
    assert lo <= ref_q * (1 + Fraction(1, 2**80)) and hi >= ref_q * (1 - Fraction(1, 2**80))
    assert 0 < hi - lo <= abs(hi) / 2**60
    assert exp_affine_enclosure(Fraction(1, 3), Fraction(0), Fraction(5)) == (Fraction(1, 3),) * 2
    assert exp_affine_enclosure(Fraction(1, 3), Fraction(1, 4), 0) == (Fraction(1, 12),) * 2


def test_log_upper_is_zero_at_one_and_an_upper_bound_above():
    assert log_upper_mpf(Fraction(1)) == 0
    for x in (Fraction(3), Fraction(11, 10), Fraction(10**30)):
        got = log_upper_mpf(x)
        with mpmath.workprec(300):
            ref = mpmath.log(mpmath.mpf(x.numerator) / x.denominator)
            assert ref <= got <= ref * (1 + mpmath.mpf(2) ** -50)  # rounded up to 53 bits


# ----------------------------------------------------------------------- printing, Certified


def test_formatting_rounds_up_or_down_at_both_signs_and_prints_zero_and_exact_logs():
    third = Fraction(1, 3)
    assert format_up(third, 3) == "3.34e-01" and format_down(third, 3) == "3.33e-01"
    assert format_up(-third, 3) == "-3.33e-01" and format_down(-third, 3) == "-3.34e-01"
    assert format_up(Fraction(0)) == "0" and format_down(Fraction(0)) == "0"
    assert format_up(Fraction(2, 3), 1) == "7e-01" and format_down(Fraction(2, 3), 1) == "6e-01"
    assert format_up(Fraction(9999, 1000), 3) == "1.00e+01"  # carry into the next decade
    x = exact_log(Fraction(11))
    assert format_up(x) == format_down(x) == "ln(11)"


def test_certified_refuses_a_reversed_enclosure_and_reports_its_width_and_digits():
    with pytest.raises(ValueError):
        Certified(Fraction(2), Fraction(1), "reversed")
    exact = Certified(Fraction(1, 3), Fraction(1, 3), "exact")
    assert exact.exact and exact.relative_width() == 0.0 and exact.digits() == 10**6
    assert str(exact) == "3.333333333333334e-01 (exact)"
    c = Certified(Fraction(99, 100), Fraction(1), "interval")
    assert not c.exact
    assert c.relative_width() == pytest.approx(0.01, rel=1e-15)
    assert c.digits() == math.floor(-math.log10(0.01))
    assert str(c) == "[9.900000000000000e-01, 1.000000000000000e+00] (interval)"
    assert "lower=9.9000000000000000e-01" in repr(c) and "upper=1.0000000000000000e+00" in repr(c)
    wide = Certified(Fraction(-1), Fraction(1), "wide")
    assert wide.relative_width() == 2.0 and wide.digits() == 0
    zero = Certified(Fraction(-1), Fraction(0), "up to zero")
    assert zero.relative_width() == 0.0
    assert c.safe >= 1 and c.value == mpmath.mpf("0.995")


@pytest.mark.parametrize("k", [1, 30, 60, 64, 100, 200])
@pytest.mark.parametrize("sign", [1, -1])
def test_exp_interval_encloses_e_to_a_tiny_epsilon(k, sign):
    """mpmath's iv.exp returns the point 1 + 2^-100 for e^(2^-100) at 128 bits (its ends are
    not rounded outward there); the enclosure of e^ε must hold it strictly inside."""
    x = Fraction(sign, 2**k)
    lo, hi = exp_interval(x)
    with mpmath.workprec(1200):
        ref = mpmath.exp(mpmath.mpf(sign) / 2**k)
        assert mpmath.mpf(lo.numerator) / lo.denominator < ref < mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo <= hi / 2**120
    # the exact comparison with a rational just above the first-order value 1 + x
    assert exp_compare(x, 1 + x) == 1
    assert exp_compare(x, 1 + x + x * x) == -1
    assert exp_compare(x, 1 + x + x * x / 2 + Fraction(1, 2**(4 * k + 8))) == sign


def test_exp_interval_limit_is_two_to_the_twenty():
    """The documented size limit: e^(2^20) is enclosed (about 1.5 million bits), beyond it refused."""
    assert EXP_INTERVAL_MAX_EPS == 2**20
    lo, hi = exp_interval(Fraction(2**20))
    assert 1 < lo < hi and hi.numerator.bit_length() > 1_500_000


def test_exp_affine_enclosure_refines_up_to_its_16384_bit_limit():
    """A − e^ε·B cancelling 10000 bits: 8192 bits of e^ε are not enough, 16384 are."""
    with mpmath.workprec(10100):
        e_near = to_fraction(+mpmath.e) + Fraction(1, 2**10000)
    lo, hi = exp_affine_enclosure(e_near, Fraction(1), Fraction(1))
    assert 0 < lo <= hi and hi - lo <= hi / 2**60


def test_exp_affine_enclosure_without_q_mass_needs_no_e_to_the_epsilon():
    """B = 0: A − e^ε·0 = A exactly, even for an ε too large to enclose e^ε."""
    huge = Fraction(10**30)
    assert exp_affine_enclosure(Fraction(1, 3), Fraction(0), huge) == (Fraction(1, 3),) * 2
    with pytest.raises(CertificationError):
        exp_affine_enclosure(Fraction(1, 3), Fraction(1, 4), huge)


def test_exp_compare_refines_up_to_max_prec_itself():
    """A rational 2^-30000 away from e: 16384 bits of e cannot separate it, MAX_PREC = 32768
    bits can, so the sign is decided (not refused)."""
    with mpmath.workprec(30100):
        e = to_fraction(+mpmath.e)
    assert exp_compare(Fraction(1), e + Fraction(1, 2**30000)) == -1
    assert exp_compare(Fraction(1), e - Fraction(1, 2**30000)) == 1


def test_exp_dyadic_represents_a_huge_epsilon_by_its_documented_lower_bound():
    """ε ≥ 4096 (EXP_HUGE): only lo = 2^5900 ≤ e^ε is returned (hi None = +∞); below it an
    integer enclosure."""
    from dps_verify.core.numbers import EXP_HUGE, EXP_HUGE_BITS, exp_dyadic

    assert EXP_HUGE == 4096 and EXP_HUGE_BITS == 5900
    assert exp_dyadic(Fraction(4096)) == (1 << 5900, None, 0)
    assert exp_dyadic(Fraction(10**9)) == (1 << 5900, None, 0)
    lo, hi, s = exp_dyadic(Fraction(4095))
    assert hi is not None and lo < hi
    with mpmath.workprec(6200):
        ref = mpmath.exp(4095)
        assert mpmath.mpf(lo) / 2**s <= ref <= mpmath.mpf(hi) / 2**s
    assert 4096 * math.log2(math.e) > 5909  # e^4096 > 2^5909 > 2^5900: the bound holds


def test_exp_compare_decides_a_rational_equal_to_an_end_of_the_enclosure():
    """e^ε (ε ≠ 0 rational) is irrational: r equal to the upper end of its enclosure at the
    precision limit is still above e^ε, and equal to the lower end below it."""
    from dps_verify.core.numbers import MAX_PREC

    lo, hi = exp_interval(Fraction(1, 3), MAX_PREC)
    assert exp_compare(Fraction(1, 3), hi) == -1
    assert exp_compare(Fraction(1, 3), lo) == 1
    assert exp_compare(Fraction(-2**21), Fraction(0)) == 1  # e^ε > 0 = r, however small e^ε
    assert exp_compare(Fraction(-2**21), Fraction(-1)) == 1


def test_exact_log_is_never_false():
    """a + ln r (r ≠ 1) is never 0, so an exact-log ε is truthy (callers test ``if eps``)."""
    assert bool(exact_log(Fraction(11))) is True
    assert bool(ExactLog(Fraction(1, 2), Fraction(1))) is True


def test_exp_affine_enclosure_stops_refining_once_the_value_is_certainly_not_positive():
    """A = the 128-bit lower end of e^ε: A − e^ε ≤ 0 is certain at once, so the 128-bit
    enclosure is returned (no refinement to 60 significant bits of a value only compared with 0)."""
    lo_e, _ = exp_interval(Fraction(1, 3))
    lo, hi = exp_affine_enclosure(lo_e, Fraction(1), Fraction(1, 3))
    assert hi == 0 and lo < 0 and hi - lo > Fraction(1, 2**140)
    with mpmath.workdps(80):
        ref = _mp(lo_e) - mpmath.exp(mpmath.mpf(1) / 3)
        assert _mp(lo) <= ref <= 0


def test_exact_log_comparison_with_a_non_number_names_the_exact_log():
    """Comparing an exact-log ε with a value it cannot order (a string, None) is a TypeError that
    says so, for each of the four orderings."""
    eps = exact_log(Fraction(3))
    for other in ("1", None):
        for compare in (eps.__lt__, eps.__le__, eps.__gt__, eps.__ge__):
            with pytest.raises(TypeError, match="cannot compare an exact-log epsilon"):
                compare(other)


def test_iv_exp_of_unbounded_intervals_keeps_the_unbounded_ends():
    """e^t over [0, +∞] is [1, +∞], over [−∞, 0] it is [0, 1] (e^−∞ = 0), over the whole line
    [0, +∞]: an infinite end of the argument is never enclosed by a finite one."""
    from dps_verify.core.numbers import iv_exp, iv_precision

    with iv_precision(53):
        up = iv_exp(mpmath.iv.mpf([0, mpmath.inf]))
        down = iv_exp(mpmath.iv.mpf([-mpmath.inf, 0]))
        both = iv_exp(mpmath.iv.mpf([-mpmath.inf, mpmath.inf]))
    assert up.a == 1 and up.b == mpmath.inf
    assert down.a == 0 and down.b == 1
    assert both.a == 0 and both.b == mpmath.inf


def test_exp_affine_enclosure_stops_at_its_16384_bit_limit():
    """A − e·1 with A above e by 2^-20000: 16384 bits of e (the documented limit) cannot resolve
    it, so the enclosure returned at the limit still straddles 0 (sound, not refined further)."""
    with mpmath.workprec(20200):
        e_near = to_fraction(+mpmath.e) + Fraction(1, 2**20000)
        ref = mpmath.mpf(e_near.numerator) / e_near.denominator - mpmath.e
        lo, hi = exp_affine_enclosure(e_near, Fraction(1), Fraction(1))
        assert lo < 0 < ref <= mpmath.mpf(hi.numerator) / hi.denominator


def test_exp_dyadic_of_an_exact_log_rounds_outward_to_prec_plus_two_bits():
    """ε = ln(5/3) exactly: e^ε = 5/3 is not dyadic, so its ends are rounded outward to
    prec + 2 bits after the point (a relative 2^-prec, as documented): lo ≤ 5/3 ≤ hi with
    hi − lo = 2^-(prec+2)."""
    from dps_verify.core.numbers import exp_dyadic

    for prec in (64, 128, 300):
        lo, hi, s = exp_dyadic(exact_log(Fraction(5, 3)), prec)
        assert hi is not None
        assert Fraction(lo, 2**s) <= Fraction(5, 3) <= Fraction(hi, 2**s)
        assert Fraction(hi - lo, 2**s) <= Fraction(1, 2 ** (prec + 2))
        assert s == prec + 2  # the documented rounding point (finer would only cost work)


def test_iv_exp_of_an_undefined_interval_is_undefined_and_refused():
    """A NaN end (an undefined argument) gives the NaN interval, whose ends iv_lower and iv_upper
    refuse: never a finite enclosure of e^NaN."""
    from mpmath import libmp

    from dps_verify.core.numbers import iv_exp, iv_precision

    with iv_precision(53):
        for ends in ((libmp.fnan, libmp.fnan), (libmp.fzero, libmp.fnan), (libmp.fnan, libmp.fzero)):
            v = iv_exp(mpmath.iv.make_mpf(ends))
            assert v._mpi_ == (libmp.fnan, libmp.fnan)
            with pytest.raises(CertificationError):
                iv_lower(v)
            with pytest.raises(CertificationError):
                iv_upper(v)


def test_iv_exp_encloses_e_to_the_ends_rounded_outward():
    """Each end of iv_exp([a, b]) is e^a rounded down and e^b rounded up at iv.prec bits:
    against e^a, e^b at 300 digits the result holds them within a few ulps outside."""
    from dps_verify.core.numbers import iv_exp, iv_precision

    for a, b in (("0.1", "0.2"), ("-3.5", "-3.5"), ("1e-30", "2"), ("-700", "700")):
        with iv_precision(64):
            v = iv_exp(mpmath.iv.mpf([a, b]))
            lo, hi = iv_lower(v), iv_upper(v)
        with mpmath.workdps(300):
            ea, eb = mpmath.exp(mpmath.mpf(a)), mpmath.exp(mpmath.mpf(b))
            lo_m, hi_m = mpmath.mpf(lo.numerator) / lo.denominator, mpmath.mpf(hi.numerator) / hi.denominator
            assert lo_m < ea and eb < hi_m  # strictly: e^t is irrational for these t
            assert ea - lo_m <= ea * mpmath.mpf(2) ** -62 and hi_m - eb <= eb * mpmath.mpf(2) ** -62


def test_iv_exp_beyond_arb_exponent_range_gives_zero_below_and_infinity_above():
    """t = ±2^(10^20): Arb cannot bound e^t by a finite number above (nor a positive one below),
    so the enclosure is [0, +∞] (and [0, tiny] for −t): sound, never a finite end below the
    truth above or a negative end below.  Arb's working precision is restored afterwards."""
    import flint

    from dps_verify.core.numbers import iv_exp, iv_precision

    before = flint.ctx.prec
    big = mpmath.mpf((0, 1, 10**20, 1))
    with iv_precision(53):
        up = iv_exp(mpmath.iv.mpf([big, big]))
        down = iv_exp(mpmath.iv.mpf([-big, -big]))
        tiny = iv_exp(mpmath.iv.mpf([-(10**6), -(10**6)]))
    assert flint.ctx.prec == before
    assert up.a == 0 and up.b == mpmath.inf
    assert down.a == 0 and 0 < down.b < mpmath.mpf(10) ** -(10**6)
    with mpmath.workdps(60):
        ref = mpmath.exp(-(10**6))
        assert 0 < tiny.a < ref < tiny.b


def test_iv_adaptive_asks_64_bits_by_default():
    """An interval of relative width 0.75·2^-64 (the same at every precision) meets the default
    of 64 correct bits at once, and can never meet 65: the default is exactly 64."""
    from mpmath import libmp

    ends = (libmp.from_int(1), libmp.from_man_exp(2**66 + 3, -66))  # 1 and 1 + 3·2^-66 exactly

    def fn():
        return mpmath.iv.make_mpf(ends)

    v = iv_adaptive(fn)
    assert v.a == 1 and iv_relative_width(v) == Fraction(3, 2**66)
    with pytest.raises(CertificationError, match="65 correct bits"):
        iv_adaptive(fn, rel_bits=65, max_prec=512)


def test_dyadic_values_are_read_exactly_at_both_signs_of_the_exponent():
    """mpf values m·2^e with e < 0, e = 0 and e > 0, of either sign, read as the exact rationals
    (mpmath's man_exp gives the mantissa without its sign: a negative mpf once read positive, so
    a negative probability or ε given as an mpf passed validation)."""
    for m, e in ((3, -70), (5, 0), (7, 40), (-3, -1), (-1, 0), (-9, 3)):
        x = mpmath.mpf((1 if m < 0 else 0, abs(m), e, abs(m).bit_length()))
        assert to_fraction(x) == m * Fraction(2) ** e
    assert to_fraction(7) == Fraction(7) and to_fraction(np.int64(-7)) == Fraction(-7)


def test_a_negative_mpf_probability_or_epsilon_is_refused():
    from dps_verify.core.params import epsilon_param
    from dps_verify.measures.divergence import delta_certified

    with pytest.raises(ParameterError, match=">= 0"):
        delta_certified({0: mpmath.mpf("-0.5"), 1: mpmath.mpf("1.5")}, {0: Fraction(1)}, 0)
    with pytest.raises(ParameterError, match=">= 0"):
        epsilon_param(mpmath.mpf("-0.25"))
    assert to_fraction(mpmath.mpf("-3e-30")) < 0 and to_fraction(mpmath.mpf("-0.0")) == 0


def test_round_outward_keeps_256_bits_by_default_and_is_exact_up_to_1024_bit_denominators():
    """Default bits = 256: a denominator of at most 4·256 bits is kept exactly, one bit longer
    is rounded to dyadic ends of about 256 significant bits around the exact value."""
    from dps_verify.core.numbers import round_outward

    den = 3 * 2**1021  # 1023 bits: exact
    assert round_outward(1, 2, den) == (Fraction(1, den), Fraction(2, den))
    den = 3 * 2**1023 + 1  # 1025 bits: rounded outward
    lo, hi = round_outward(den // 3, den // 3 + 1, den)
    assert lo <= Fraction(den // 3, den) and Fraction(den // 3 + 1, den) <= hi
    assert lo.denominator & (lo.denominator - 1) == 0  # dyadic
    assert round_outward(den // 3, den // 3 + 1, den) == round_outward(den // 3, den // 3 + 1, den, 256)
    assert round_outward(den // 3, den // 3 + 1, den) != round_outward(den // 3, den // 3 + 1, den, 255)


def test_iv_adaptive_refines_an_enclosure_that_still_contains_zero():
    """e^(2^-200) − 1 ≈ 2^-200: at 128 and 256 bits its enclosure still contains 0 (no relative
    width), so iv_adaptive must refine (to 512 bits here) instead of returning it; the result
    excludes 0 and has 64 correct bits.  Reference: 2^-200 < value = x + x²/2 + … < 2^-200 + 2^-400."""
    from dps_verify.core.numbers import iv_exp, iv_from_fraction

    precs = []

    def fn():
        precs.append(mpmath.iv.prec)
        return iv_exp(iv_from_fraction(Fraction(1, 2**200))) - 1

    v = iv_adaptive(fn)
    assert precs == [128, 256, 512]
    w = iv_relative_width(v)
    assert w is not None and w <= Fraction(1, 2**64)
    assert Fraction(1, 2**200) < iv_lower(v)
    assert iv_upper(v) < Fraction(1, 2**200) + Fraction(1, 2**400)


def test_exact_powers_of_ten_print_with_a_one_digit_mantissa():
    """x = 10^k exactly (the bit-length estimate of the exponent is one low for some k): the
    mantissa is 1.00…, never 10.0…, rounded up or down."""
    for k in range(-12, 13):
        x = Fraction(10) ** k
        assert format_up(x, 3) == f"1.00e{k:+03d}" == format_down(x, 3)
        assert format_up(x, 1) == f"1e{k:+03d}"


def test_format_down_reads_ints_and_floats_exactly():
    assert format_down(1, 3) == "1.00e+00" and format_down(0.25, 3) == "2.50e-01"
    assert format_down(-0.25, 2) == "-2.5e-01"


def test_exp_affine_enclosure_stops_at_the_first_precision_with_60_certain_bits():
    """1 − e·(1/3) ≈ 0.094 is resolved to 60 bits at the first precision (128 bits): the
    enclosure is returned there, not refined to the 16384-bit limit."""
    lo, hi = exp_affine_enclosure(Fraction(1), Fraction(1, 3), Fraction(1))
    assert 0 < lo < hi and hi - lo <= hi / 2**60
    assert hi - lo > hi / 2**200  # 128-bit ends, not thousands of bits


def test_single_value_refuses_an_enclosure_wider_than_one_part_in_ten_to_the_fifteen():
    from dps_verify.core.numbers import single_value

    assert single_value(Certified(Fraction(1), 1 + Fraction(9, 10**16), "tight")) >= 1
    with pytest.raises(CertificationError, match="1e-15"):
        single_value(Certified(Fraction(1), 1 + Fraction(2, 10**15), "too wide"))


def test_single_value_measures_the_width_against_a_positive_upper_end_only():
    """The width limit is relative to the upper end when it is positive (a tiny value far from 1
    is held to 1e-15 of itself, not of 1); an upper end of 0 is the exact value 0 of a
    non-negative quantity, returned however far below 0 the lower end of the enclosure lies."""
    from dps_verify.core.numbers import single_value

    tiny = Fraction(1, 10**20)
    assert single_value(Certified(tiny * (1 - Fraction(5, 10**16)), tiny, "tight")) >= 1e-20
    with pytest.raises(CertificationError, match="1e-15"):
        single_value(Certified(tiny * (1 - Fraction(2, 10**15)), tiny, "too wide"))
    # the limit itself is allowed: a relative width of exactly 1e-15 passes
    assert single_value(Certified(1 - Fraction(1, 10**15), Fraction(1), "at the limit")) == 1
    for lower in (-Fraction(1, 10**30), Fraction(-1), Fraction(0)):
        assert single_value(Certified(lower, Fraction(0), "rounded below 0"), "delta") == 0


def _directed(x: Fraction, bits: int, up: bool) -> Fraction:
    """x rounded to ``bits`` significant bits toward +inf (up) or -inf, from the definition:
    2^k <= |x| < 2^(k+1), grid 2^(k - bits + 1), floor or ceiling of x on that grid."""
    if x == 0:
        return Fraction(0)
    a = abs(x)
    k = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** k > a:
        k -= 1
    grid = Fraction(2) ** (k - bits + 1)
    steps = -((-x) // grid) if up else x // grid
    return steps * grid


def test_round_outward_rounds_each_end_outward_to_bits_significant_bits():
    """A denominator of at most 4·bits bits is kept exactly; one bit longer, the lower end is
    the largest and the upper end the smallest number of ``bits`` significant bits on its
    side of the exact value (both signs, zero, an end that is already on the grid)."""
    from dps_verify.core.numbers import round_outward

    for bits in (8, 53):
        small = 2 ** (4 * bits) - 1  # 4·bits bits: exact
        assert round_outward(-5, 7, small, bits) == (Fraction(-5, small), Fraction(7, small))
        for den in (2 ** (4 * bits) + 1, 3 ** 200 + 2, 7 * 2 ** 5000 + 3):
            for lo_num, hi_num in ((1, 2), (den // 3, den // 3 + 1), (-den - 11, -5), (0, 0),
                                   (-(den << 3), den << 9), (-1, 10 ** 60)):
                lo, hi = round_outward(lo_num, hi_num, den, bits)
                assert lo == _directed(Fraction(lo_num, den), bits, up=False), (bits, den, lo_num)
                assert hi == _directed(Fraction(hi_num, den), bits, up=True), (bits, den, hi_num)
                # Python ints, also from GMP integers (python-flint takes Python ints only)
                import gmpy2

                for end in (lo, hi, *round_outward(gmpy2.mpz(lo_num), gmpy2.mpz(hi_num), gmpy2.mpz(den), bits)):
                    assert type(end.numerator) is int and type(end.denominator) is int


def test_exact_ends_of_intervals_and_mpfs_are_fractions_of_python_ints():
    """iv_lower/iv_upper, to_fraction of an mpf and the claims' exact_rational give the exact
    value (sign included) as a Fraction of Python ints, though mpmath's gmpy backend hands out
    mpz terms (python-flint and json take Python ints only)."""
    from mpmath import libmp

    from dps_verify.core.numbers import iv_lower, iv_upper
    from dps_verify.paper.claims.base import exact_rational

    x = mpmath.iv.mpf([-1, 2]) / 3
    lo, hi = iv_lower(x), iv_upper(x)
    assert lo < Fraction(-1, 3) < Fraction(2, 3) < hi
    assert Fraction(-1, 3) - lo < Fraction(1, 2**50) and hi - Fraction(2, 3) < Fraction(1, 2**50)
    v = mpmath.mpf(-3) / 7
    ends = (lo, hi, to_fraction(v), exact_rational(v), exact_rational(-0.1))
    assert ends[2] == ends[3] == Fraction(*libmp.to_rational(v._mpf_)) < 0
    assert ends[4] == Fraction(*(-0.1).as_integer_ratio())
    for end in ends:
        assert type(end.numerator) is int and type(end.denominator) is int
    with pytest.raises(ValueError):
        exact_rational(mpmath.inf)


def test_log_fraction_of_rationals_of_any_size_against_mpmath():
    """ln x in floats for x from a subnormal double down to 10^-5000, and for a normal x written
    with 400-digit terms (where a difference of two logarithms of about 921 would lose digits),
    within 1e-14 relative of the 50-digit value."""
    from dps_verify.core.numbers import log_fraction

    cases = [Fraction(1, 3), Fraction(10**400 + 1, 3 * 10**400), Fraction(7, 10**300),
             Fraction(10**299, 10**599 - 1), Fraction(3, 10**320), Fraction(1, 10**400),
             Fraction(3, 7 * 10**5000), Fraction(10**300, 3)]
    import gmpy2

    gmp = Fraction(gmpy2.mpz(3), gmpy2.mpz(10) ** 400)  # terms as GMP integers (beta_edge's grid)
    assert not isinstance(gmp.denominator, int)
    cases.append(gmp)
    for x in cases:
        with mpmath.workdps(50):
            ref = float(mpmath.log(mpmath.mpf(x.numerator) / x.denominator))
        assert math.isclose(log_fraction(x), ref, rel_tol=1e-14, abs_tol=0.0), x


def test_a_non_finite_string_is_refused_as_not_finite():
    from dps_verify.core.numbers import to_fraction

    for text in ("nan", "inf", " -Infinity ", "+inf"):
        with pytest.raises(ParameterError, match="must be finite"):
            to_fraction(text, "beta")


@pytest.mark.parametrize("r, a", [(Fraction(11), Fraction(0)), (Fraction(1, 2), Fraction(0)),
                                  (Fraction(3, 7), Fraction(1, 3)), (Fraction(2), Fraction(-3)),
                                  (Fraction(10**30 + 1, 10**30), Fraction(0)),
                                  (Fraction(5), Fraction(-7, 10))])
def test_fraction_to_mpf_rounds_an_exact_log_as_mpmath_rounds_its_120_digit_value(r, a):
    """a + ln r of either sign (one within 10^-30 of 0) at 10, 53 and 80 bits in each of
    mpmath's five directions is the 120-digit value rounded once in that direction: the same
    rounding a Fraction gets, with no enclosure width or guard bits left in the answer."""
    from mpmath import libmp

    from dps_verify.core.numbers import fraction_to_mpf

    x = exact_log(r, a)
    ref = _mp(x)
    for prec in (10, 53, 80):
        for rounding in "udcfn":
            want = mpmath.mp.make_mpf(libmp.mpf_pos(ref._mpf_, prec, rounding))
            assert fraction_to_mpf(x, rounding, prec) == want, (prec, rounding)
    # the default precision is mpmath's working one
    assert fraction_to_mpf(x, "c") == mpmath.mp.make_mpf(libmp.mpf_pos(ref._mpf_, mpmath.mp.prec, "c"))


@pytest.mark.parametrize("r", [Fraction(3), Fraction(2, 7)])
def test_fraction_to_mpf_refines_an_exact_log_within_2_to_the_minus_200_of_a_rounding_boundary(r):
    """x = 1 + (ln r − L) with L = ln r truncated to 200 bits, so 0 < |x − 1| < 2^-199: at 53
    bits its first enclosures straddle the boundary 1 and the ends round apart in every
    direction but nearest; the answer must still be the 120-digit value rounded once (more
    precision until both ends agree, not a guess from the first enclosure)."""
    from mpmath import libmp

    from dps_verify.core.numbers import fraction_to_mpf

    with mpmath.workdps(120):
        ln = mpmath.log(mpmath.mpf(r.numerator) / r.denominator)
        trunc = Fraction(int(mpmath.floor(ln * 2**200)), 2**200)
    x = exact_log(r, 1 - trunc)
    ref = _mp(x)
    with mpmath.workdps(120):
        assert 0 < ref - 1 < mpmath.mpf(2) ** -199
    for rounding in "udcfn":
        want = mpmath.mp.make_mpf(libmp.mpf_pos(ref._mpf_, 53, rounding))
        assert fraction_to_mpf(x, rounding, 53) == want, rounding
    assert fraction_to_mpf(x, "c", 53) > 1 == fraction_to_mpf(x, "f", 53)
