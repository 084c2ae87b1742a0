"""The paper checks compare certified enclosures with the paper's printed digits by converting
mpmath and float ends to exact Fractions; a negative end must stay negative (mpmath's
``man_exp`` gives the mantissa without its sign), or an enclosure of -x would "agree" with a
printed x."""

from fractions import Fraction

import mpmath
import pytest

from dps_verify.paper.claims.base import agrees_with_printed, exact_rational


@pytest.mark.parametrize("text", ["-0.5", "0.5", "-3", "3", "-1e-30", "1e-30", "-1e30", "0"])
def test_an_mpf_reads_as_the_exact_rational_it_holds_with_its_sign(text: str) -> None:
    with mpmath.workprec(200):
        x = mpmath.mpf(text)
        got = exact_rational(x)
        assert mpmath.mpf(got.numerator) / got.denominator == x  # exact at 200 bits
    assert (got < 0) == text.startswith("-") and (got == 0) == (text == "0")


def test_floats_ints_and_fractions_keep_their_value() -> None:
    assert exact_rational(-0.75) == Fraction(-3, 4)
    assert exact_rational(0.1) == Fraction(0.1)  # the binary float, exactly
    assert exact_rational(-7) == -7 and exact_rational(Fraction(-1, 3)) == Fraction(-1, 3)
    assert exact_rational(mpmath.mpf(-2) ** -70) == Fraction(1, 2**70)
    assert exact_rational(-mpmath.mpf(2) ** -70) == Fraction(-1, 2**70)


def test_a_negative_enclosure_does_not_agree_with_a_positive_printed_value() -> None:
    half = mpmath.mpf("0.5")
    assert agrees_with_printed(half, half, "0.5")  # positive control
    assert not agrees_with_printed(-half, -half, "0.5")
    assert agrees_with_printed(-half, -half, "-0.5")


@pytest.mark.parametrize("x", [mpmath.inf, -mpmath.inf, mpmath.nan])
def test_a_non_finite_value_is_refused(x: mpmath.mpf) -> None:
    with pytest.raises(ValueError):
        exact_rational(x)


def test_an_enclosure_with_an_infinite_end_agrees_with_no_printed_value() -> None:
    """mpmath's man_exp of inf is (0, -456): read that way, an infinite upper end became 0."""
    assert not agrees_with_printed(mpmath.mpf("0.5"), mpmath.inf, "0.5")
    assert not agrees_with_printed(-mpmath.inf, mpmath.mpf("0.5"), "0.5")
    assert not agrees_with_printed(mpmath.nan, mpmath.nan, "0.5")
