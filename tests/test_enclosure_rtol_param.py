"""The relative tolerance ``rtol`` of the δ enclosures (sparse composition, discretised PLD,
several releases) is a parameter like ε: finite and >= 0, or one clear ParameterError before any
work.  A negative or NaN rtol used to take whichever path its comparisons chose (NaN returned a
value on one path of the sparse composition and crashed on another).  rtol = 0 is accepted and
asks for the tightest enclosure: checked against the exact T-fold δ of the exact PLD (CP Def. 2).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.params import rtol_param
from dps_verify.inverse.pld_discrete import enclose_deltas
from dps_verify.inverse.pld_sparse import sparse_delta
from dps_verify.inverse.releases import releases_delta
from dps_verify.measures.pld import PrivacyLossDistribution, pair_delta_enclosure

EPS = Fraction(1, 10)
T = 3
#: one finite atom (the rest of the mass at infinite loss: q = 0) and two finite atoms (q > 0)
ONE = ({"a": Fraction(1)}, {"a": Fraction(1, 2), "b": Fraction(1, 2)})
TWO = ({"a": Fraction(1, 2), "b": Fraction(1, 2)}, {"a": Fraction(1, 4), "b": Fraction(3, 4)})
BAD = [-1.0, -1e-300, Fraction(-1, 10**30), float("nan"), float("inf"), float("-inf"), True, "x"]


def _meets_exact(c, laws: tuple[dict, dict]) -> None:  # type: ignore[no-untyped-def]
    """``c`` overlaps the exact PLD's enclosure of δ_T(ε) (128-bit balls of e^ε: width ~1e-38)."""
    e = PrivacyLossDistribution.from_exact_laws(*laws).self_compose(T).delta_certified(EPS)
    assert e.upper - e.lower <= Fraction(1, 10**30)
    assert c.lower <= e.upper and e.lower <= c.upper


def _refused(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ParameterError) as info:
        call()
    text = str(info.value)
    assert text.startswith("rtol must be") and "\n" not in text
    return text


@pytest.mark.parametrize("laws", [ONE, TWO], ids=["one finite atom", "two finite atoms"])
def test_sparse_composition_with_rtol_zero_sums_every_term_and_meets_the_exact_delta(laws) -> None:  # type: ignore[no-untyped-def]
    c = sparse_delta(PrivacyLossDistribution.from_exact_laws(*laws), EPS, T, rtol=0)
    _meets_exact(c, laws)
    assert c.upper - c.lower <= Fraction(1, 10**30)
    assert c.details["remainder"] == 0.0
    assert c.details["terms"] == (1 if laws is ONE else T + 1)


@pytest.mark.parametrize("rtol", BAD, ids=repr)
@pytest.mark.parametrize("laws", [ONE, TWO], ids=["one finite atom", "two finite atoms"])
def test_sparse_composition_refuses_a_negative_or_non_finite_rtol(laws, rtol) -> None:  # type: ignore[no-untyped-def]
    pld = PrivacyLossDistribution.from_exact_laws(*laws)
    _refused(lambda: sparse_delta(pld, EPS, T, rtol=rtol))


def test_discretised_enclosure_with_rtol_zero_refines_to_its_budget_around_the_exact_delta() -> None:
    # exact_budget=0 forces the grid; rtol = 0 once divided by zero when choosing the next grid
    pld = PrivacyLossDistribution.from_exact_laws(*TWO)
    (c,) = enclose_deltas([pld], EPS, T, rtol=0, exact_budget=0, max_bins=1 << 12)
    assert c.details["mode"] == "discretised"
    _meets_exact(c, TWO)
    assert c.details["bins"] * 2 > 1 << 12  # refined until the next grid is over the budget


@pytest.mark.parametrize("rtol", [-1.0, float("nan"), float("inf")], ids=repr)
def test_pair_and_releases_enclosures_refuse_a_bad_rtol_before_any_work(rtol: float) -> None:
    _refused(lambda: pair_delta_enclosure(*TWO, EPS, T, rtol=rtol))
    _refused(lambda: releases_delta(2, Fraction(1, 2), 1, 2, rtol=rtol))


def test_rtol_param_keeps_every_finite_non_negative_value() -> None:
    assert rtol_param(0) == 0.0 and rtol_param(Fraction(1, 4)) == 0.25 and rtol_param(0.01) == 0.01
    assert rtol_param(1e300) == 1e300
    assert "-1" in _refused(lambda: rtol_param(-1))
    assert "finite" in _refused(lambda: rtol_param(math.nan))
    assert "finite" in _refused(lambda: rtol_param(10**400))
