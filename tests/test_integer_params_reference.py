"""Counts (a number of releases T, a number of digits) are read the same way everywhere:
an int or a numpy integer is accepted and gives the int's answer; a truth value (bool, numpy
bool), a float that happens to be whole and a string are refused with one ParameterError line.

``core.params.integer_or_none`` is the one reader; the public functions of
``inverse.pld_discrete``, ``inverse.pld_sparse`` and ``inverse.releases.format_bound`` use it
(numpy integers used to be refused by the first two and by ``digits``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.params import integer_or_none, shown
from dps_verify.inverse import pld_discrete, pld_sparse
from dps_verify.inverse.releases import format_bound
from dps_verify.measures.pld import PrivacyLossDistribution

INTEGERS = [0, 1, -3, 7, 2**70, np.int64(5), np.int32(-2), np.uint8(255), np.int64(2**62)]
NOT_INTEGERS = [True, False, np.bool_(True), np.bool_(False), 2.0, np.float64(3.0), "4",
                Fraction(4), None, 1j, [1]]


@pytest.mark.parametrize("x", INTEGERS, ids=repr)
def test_integer_or_none_reads_ints_and_numpy_integers_as_python_ints(x: Any) -> None:
    got = integer_or_none(x)
    assert type(got) is int and got == int(x)


@pytest.mark.parametrize("x", NOT_INTEGERS, ids=repr)
def test_integer_or_none_refuses_truth_values_and_non_integers(x: Any) -> None:
    assert integer_or_none(x) is None


# one direction's exact privacy-loss law: loss ln 2 or ln(1/2) with mass 1/2 each, no ∞ atom
PLD = PrivacyLossDistribution({Fraction(2): Fraction(1, 2), Fraction(1, 2): Fraction(1, 2)}, Fraction(0))


def _by_definition(times: int, e_eps: Fraction) -> Fraction:
    """δ_T at e^ε of PLD by summing over the number j of ln 2 releases (CP Def. 2 on the
    T-fold product law: Σ P(L) (1 − e^ε / e^L)^+ with e^L = 2^(2j − T))."""
    from math import comb

    total = Fraction(0)
    for j in range(times + 1):
        ratio = Fraction(2) ** (2 * j - times)
        if ratio > e_eps:
            total += Fraction(comb(times, j), 2**times) * (1 - e_eps / ratio)
    return total


CALLS = [
    ("direct_delta", lambda t: pld_discrete.direct_delta(PLD, "ln(2)", t)),
    ("sparse_delta", lambda t: pld_sparse.sparse_delta(PLD, "ln(2)", t, rtol=0)),
]


@pytest.mark.parametrize("times", [np.int64(3), np.int32(3), np.uint8(3)], ids=repr)
def test_the_release_screen_takes_a_numpy_number_of_releases(times: Any) -> None:
    """screen_delta (a float screen) gives the int answer: it works on the validated int,
    never on the numpy value (whose fixed-width arithmetic could wrap)."""
    from dps_verify.inverse.releases import screen_delta

    assert screen_delta(5, 3, Fraction(1, 10), 1.0, times) == screen_delta(5, 3, Fraction(1, 10), 1.0, 3)


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("times", [np.int64(3), np.int32(3), np.uint8(3)], ids=repr)
def test_a_numpy_number_of_releases_gives_the_int_answer(name: str, call: Any, times: Any) -> None:
    want = call(3)
    got = call(times)
    assert (got.lower, got.upper) == (want.lower, want.upper)
    exact = _by_definition(3, Fraction(2))
    assert got.lower <= exact <= got.upper


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("times", [0, np.int64(0), True, np.bool_(True), 3.0, "3"], ids=repr)
def test_a_number_of_releases_that_is_not_a_count_is_refused(name: str, call: Any, times: Any) -> None:
    with pytest.raises(ParameterError, match="times must be an integer"):
        call(times)


def test_the_supports_estimates_take_numpy_releases() -> None:
    assert pld_discrete.direct_tuples(PLD, np.int64(4)) == pld_discrete.direct_tuples(PLD, 4) == 2**4
    assert pld_discrete.exact_support_estimate(PLD, np.int32(4)) == pld_discrete.exact_support_estimate(PLD, 4)


def test_sparse_release_budget_is_checked_on_the_numpy_value() -> None:
    with pytest.raises(ParameterError, match=r"\[1, 10\^9\]"):
        pld_sparse.sparse_delta(PLD, "ln(2)", np.int64(10**9 + 1))
    with pytest.raises(ParameterError, match="an integer of 80 bits"):
        pld_sparse.sparse_delta(PLD, "ln(2)", 2**79)


@pytest.mark.parametrize("digits", [np.int64(3), np.int32(3), np.uint8(3)], ids=repr)
def test_format_bound_takes_numpy_digits(digits: Any) -> None:
    assert format_bound(Fraction(1, 3), digits) == format_bound(Fraction(1, 3), 3) == "3.34e-01"


@pytest.mark.parametrize("digits", [0, np.int64(0), True, np.bool_(True), 3.0, "3"], ids=repr)
def test_format_bound_refuses_digits_that_are_not_a_count(digits: Any) -> None:
    with pytest.raises(ParameterError, match="digits must be an integer >= 1"):
        format_bound(Fraction(1, 3), digits)


HUGE = -(10**5000)  # Python refuses to print an int of more than 4300 digits


@pytest.mark.parametrize(("call", "message"), [
    (lambda: format_bound(Fraction(1, 3), HUGE), "digits must be an integer >= 1, got a negative integer of 16610 bits"),
    (lambda: pld_discrete.direct_delta(PLD, "ln(2)", HUGE), "times must be an integer >= 1"),
    (lambda: pld_sparse.sparse_delta(PLD, "ln(2)", HUGE), "times must be an integer in"),
], ids=["format_bound", "direct_delta", "sparse_delta"])
def test_a_count_too_long_to_print_is_refused_with_its_size(call: Any, message: str) -> None:
    with pytest.raises(ParameterError, match=message) as info:
        call()
    assert "a negative integer of 16610 bits" in str(info.value)


def test_releases_sizes_too_long_to_print_are_refused_with_their_size() -> None:
    from dps_verify.inverse.releases import group_pair

    for kwargs, name in (({"n": HUGE, "k": 2}, "n"), ({"n": 3, "k": HUGE}, "k")):
        with pytest.raises(ParameterError, match=f"{name} must be an integer >= .*a negative integer of 16610 bits"):
            group_pair(beta=Fraction(1, 3), **kwargs)


def test_shown_values() -> None:
    from dps_verify.core.params import shown

    assert shown(2**64) == "an integer of 65 bits"
    assert shown(2**64 - 1) == repr(2**64 - 1)
    assert shown(np.int64(-5)) == repr(np.int64(-5))
    assert shown("x" * 200) == repr("x" * 200)[:79] + "…"  # a cut value is marked as cut
    assert shown("x" * 78) == repr("x" * 78)  # 80 characters with the quotes: whole
    # a value whose first 80 characters look like another number is not silently cut
    assert shown(Fraction(10**70 + 1, 10**70), str).endswith("…")
    assert shown(Fraction(10**5000, 3)) == "a Fraction too large to print"
    assert shown(-(2**64)) == "a negative integer of 65 bits"
    assert shown(Fraction(3, 2), str) == "3/2"


@pytest.mark.parametrize(("call", "message"), [
    ("epsilon_param", "epsilon must be >= 0, got a negative integer of 16610 bits"),
    ("beta_param", "beta must satisfy 0 < beta < 1 .*, got an integer of 16610 bits"),
    ("delta_param", "delta must satisfy 0 <= delta <= 1, got an integer of 16610 bits"),
    ("rtol_param", "rtol must be >= 0 .*, got a negative integer of 16610 bits"),
    ("k_param", "k must be an integer >= 1 .*, got a negative integer of 16610 bits"),
])
def test_the_parameter_validators_refuse_huge_values_with_one_parameter_error(call: str, message: str) -> None:
    from dps_verify.core import params

    value = -HUGE if call in ("beta_param", "delta_param") else HUGE
    with pytest.raises(ParameterError, match=message):
        getattr(params, call)(value)


def test_format_bound_and_the_release_screen_refuse_huge_values_with_one_parameter_error() -> None:
    from dps_verify.inverse.releases import screen_delta

    with pytest.raises(ParameterError, match="got a negative integer of 16610 bits"):
        format_bound(HUGE)
    with pytest.raises(ParameterError, match="got a Fraction too large to print"):
        format_bound(Fraction(HUGE, 3))
    with pytest.raises(ParameterError, match="e \\(epsilon as a float\\) must be a finite number >= 0"):
        screen_delta(5, 3, Fraction(1, 10), HUGE, 3)


def test_count_param_on_both_sides_of_each_end() -> None:
    from dps_verify.core.params import count_param

    assert count_param(np.int64(2), 2, "c must be an integer in [2, 5]", 5) == 2
    assert count_param(5, 2, "c must be an integer in [2, 5]", 5) == 5
    assert type(count_param(np.uint8(3), 2, "c")) is int
    assert count_param(10**30, 2, "c") == 10**30  # no upper end without hi
    for bad in (1, 6, np.int64(1), True, 3.0, "3"):
        with pytest.raises(ParameterError, match=rf"^c must be an integer in \[2, 5\], got {re.escape(shown(bad))}$"):
            count_param(bad, 2, "c must be an integer in [2, 5]", 5)
