"""The trust base core/numbers.py: exact reading, enclosures, safe rounding, no global state."""

from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import (
    Certified,
    exp_compare,
    exp_dyadic,
    exp_interval,
    format_down,
    format_up,
    round_outward,
    single_value,
    to_fraction,
)


def test_no_global_mpmath_state_after_running_every_proof_in_process(proof_results):
    """Every proof runs in-process (once per session, the shared ``proof_results`` fixture of
    tests/conftest.py); mpmath's precisions and d(20, 0.1, 1)'s bits are unchanged by them."""
    from dps_verify.paper.kernel import THEOREMS

    assert set(proof_results.results) == set(THEOREMS)
    assert proof_results.mpmath_state_after == proof_results.mpmath_state_before  # bit-identical d


@pytest.mark.parametrize(
    "x,want",
    [(0.1, Fraction(1, 10)), (Decimal("0.1"), Fraction(1, 10)), ("1e-40", Fraction(1, 10**40)),
     (np.float64(0.05), Fraction(1, 20)), (np.int64(3), Fraction(3)), ("2/7", Fraction(2, 7)),
     (mpmath.mpf(0.5), Fraction(1, 2))],
)
def test_inputs_are_read_exactly(x, want):
    assert to_fraction(x) == want


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 10**30), Fraction(37, 3), Fraction(5000)])
def test_exp_dyadic_encloses_e_to_the_eps(eps):
    lo, hi, s = exp_dyadic(eps)
    with mpmath.workprec(600):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        assert mpmath.mpf(lo) / 2**s <= e
        if hi is not None:
            assert e <= mpmath.mpf(hi) / 2**s


def test_exp_compare_near_a_tie_and_at_huge_epsilon():
    lo, hi = exp_interval(Fraction(1), 400)
    assert exp_compare(Fraction(1), lo) == 1 and exp_compare(Fraction(1), hi) == -1
    assert exp_compare(Fraction(10**30), Fraction(10**100)) == 1
    assert exp_compare(Fraction(0), Fraction(1)) == 0


def test_format_up_and_down_round_the_safe_way():
    x = Fraction(3468196635573, 10**625)
    assert format_up(x) == "3.469e-613" and format_down(x) == "3.468e-613"
    assert format_up(Fraction(1, 3), 3) == "3.34e-01" and format_down(Fraction(1, 3), 3) == "3.33e-01"
    assert format_up(Fraction(999999, 10**6), 3) == "1.00e+00"


def test_round_outward_contains_the_value():
    num, den = 3**5000 + 1, 7**3000
    lo, hi = round_outward(num, num, den)
    assert lo <= Fraction(num, den) <= hi and (hi - lo) / hi < Fraction(1, 2**250)


def test_single_value_refuses_a_loose_enclosure():
    with pytest.raises(CertificationError, match="1e-15"):
        single_value(Certified(Fraction(1), Fraction(2), "test"), "x")
    v = single_value(Certified(Fraction(1, 3), Fraction(1, 3), "exact"))
    assert to_fraction(v) >= Fraction(1, 3)
