"""core.search: the one certified monotone inverse at its edges."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.search import boundary_rational, least_integer


@pytest.mark.parametrize("t", [3, 10, 1000, 10**6])
def test_least_integer_matches_brute_force(t):
    assert least_integer(lambda k: k >= t, lo=1) == t
    assert least_integer(lambda k: k >= t, lo=1, guess=t * 7 + 1) == t
    assert least_integer(lambda k: k >= t, lo=t) == t


def test_least_integer_refuses_empty_range_and_limit():
    with pytest.raises(CertificationError):
        least_integer(lambda k: True, lo=10, limit=5)
    with pytest.raises(CertificationError):
        least_integer(lambda k: k >= 100, lo=1, limit=50)


@pytest.mark.parametrize("tol", [F(1, 10**3), F(1, 10**25), F(1, 10**30)])
def test_boundary_rational_keeps_its_tolerance(tol):
    third = F(1, 3)
    x = boundary_rational(lambda v: v >= third, F(0), F(1), tol, want="least")
    assert x >= third and x - third <= tol
    y = boundary_rational(lambda v: v <= third, F(0), F(1), tol, want="greatest")
    assert y <= third and third - y <= tol


def test_boundary_rational_rejects_bad_arguments():
    with pytest.raises(ValueError):
        boundary_rational(lambda v: True, F(0), F(1), F(0), want="least")
    with pytest.raises(ValueError):
        boundary_rational(lambda v: True, F(0), F(1), F(1, 10), want="middle")


def test_max_beta_paper_bound_is_a_local_boundary_not_global():
    """bounds.max_beta's certificate is local (documented): the paper's d is a sawtooth in β."""
    from dps_verify.core.numbers import to_fraction
    from dps_verify.inverse.questions import max_beta
    from dps_verify.worstcase.closed_forms import d

    half, target = F(1, 2), F(1, 10)
    b = to_fraction(max_beta(2, half, target, bound="paper", tol="1e-6"))
    assert to_fraction(d(2, b, half)) <= target  # admissible
    assert to_fraction(d(2, b + F(1, 10**6), half)) > target  # a failing β within tol above
    # a larger β satisfies the target again: "largest" holds only locally for this bound
    assert to_fraction(d(2, F(183, 1000), half)) <= target
