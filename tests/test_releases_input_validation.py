"""inverse.releases' public functions take only their documented domain: group sizes n >= 1,
thresholds k >= 0 (0: the untruncated pair), 0 < β < 1, ε >= 0, a number of releases >= 1,
exact laws (masses int or Fraction, each >= 0, summing to 1), a bound to print >= 0.  Outside
it each refuses with one ParameterError line that names the parameter, instead of returning a
number that looks certified (tv_bound at β = 1 used to return 0 where δ_T(0) = 1; chernoff_bound
of a negative mass or of masses that do not sum to 1 bounds nothing).  Each boundary is checked
on both sides: the value just inside is accepted and its result checked against the definition
(an exact T-fold reference, CP Def. 2) or against the same input written another valid way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.engine.protocol import SUPPRESSED
from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import _hs, _law

BETA, TIMES, EPS = F(1, 3), 2, "ln(2)"
P_LAW, Q_LAW = _law(3, BETA, 2), _law(2, BETA, 2)

# each public function called with one argument replaced: name -> (function, valid arguments)
CALLS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "group_pair": (R.group_pair, {"n": 3, "k": 2, "beta": BETA}),
    "tv_bound": (R.tv_bound, {"n": 3, "beta": BETA, "times": TIMES, "k": 2}),
    "untruncated_bound": (R.untruncated_bound, {"n": 3, "beta": BETA, "eps": EPS, "times": TIMES}),
    "thresholded_bound": (R.thresholded_bound,
                          {"n": 3, "k": 2, "beta": BETA, "eps": EPS, "times": TIMES}),
    "screen_delta": (R.screen_delta,
                     {"n": 3, "k": 2, "beta": BETA, "e": 0.5, "times": TIMES, "bins": 1 << 10}),
    "chernoff_bound": (R.chernoff_bound, {"p": P_LAW, "q": Q_LAW, "eps": EPS, "times": TIMES}),
    "format_bound": (R.format_bound, {"x": F(1, 3), "digits": 4}),
}

# (parameter, value outside the domain, text the message must contain)
OUTSIDE: list[tuple[str, Any, str]] = [
    ("n", 0, "n must be an integer >= 1"),  # just below 1
    ("n", -1, "n must be an integer >= 1"),
    ("n", True, "n must be an integer >= 1"),  # a boolean is not a size, though True == 1
    ("n", 3.0, "n must be an integer >= 1"),
    ("n", np.bool_(True), "n must be an integer >= 1"),  # numpy's truth value is no size either
    ("n", np.int64(0), "n must be an integer >= 1"),  # a numpy integer just below 1
    ("n", "3", "n must be an integer >= 1"),  # a string that spells an integer
    ("k", -1, "k must be an integer >= 0"),  # just below 0
    ("k", True, "k must be an integer >= 0"),
    ("k", 2.0, "k must be an integer >= 0"),
    ("k", np.bool_(False), "k must be an integer >= 0"),
    ("k", np.int64(-1), "k must be an integer >= 0"),
    ("k", "2", "k must be an integer >= 0"),
    ("beta", 0, "beta must satisfy 0 < beta < 1"),  # both ends of the open interval
    ("beta", 1, "beta must satisfy 0 < beta < 1"),
    ("beta", 1 + F(1, 2**60), "beta must satisfy 0 < beta < 1"),
    ("beta", -F(1, 2**60), "beta must satisfy 0 < beta < 1"),
    ("times", 0, "times must be an integer >= 1"),
    ("times", 2.0, "times must be an integer >= 1"),
    ("times", True, "times must be an integer >= 1"),
    ("eps", -F(1, 10**30), "epsilon must be >= 0"),  # just below 0
    ("e", -5e-324, "e (epsilon as a float) must be a finite number >= 0"),  # just below 0.0
    ("e", math.inf, "e (epsilon as a float) must be a finite number >= 0"),
    ("e", math.nan, "e (epsilon as a float) must be a finite number >= 0"),
    ("e", "0.5", "e (epsilon as a float) must be a finite number >= 0"),
    ("e", True, "e (epsilon as a float) must be a finite number >= 0"),
    ("e", False, "e (epsilon as a float) must be a finite number >= 0"),  # though False == 0
    ("e", np.bool_(False), "e (epsilon as a float) must be a finite number >= 0"),
    ("e", -F(1, 10**30), "e (epsilon as a float) must be a finite number >= 0"),  # a Fraction < 0
    ("e", np.float32(-1e-30), "e (epsilon as a float) must be a finite number >= 0"),
    ("e", np.float32("inf"), "e (epsilon as a float) must be a finite number >= 0"),
    ("e", 10**400, "e (epsilon as a float) must be a finite number >= 0"),  # past the float range
    ("e", F(10**400, 3), "e (epsilon as a float) must be a finite number >= 0"),
    ("e", 0.5j, "e (epsilon as a float) must be a finite number >= 0"),  # not a real number
    ("bins", 1, "bins (the screen's FFT length) must be an integer >= 2"),  # just below 2
    ("bins", True, "bins (the screen's FFT length) must be an integer >= 2"),
    ("bins", 1024.0, "bins (the screen's FFT length) must be an integer >= 2"),
    ("bins", np.int64(1), "bins (the screen's FFT length) must be an integer >= 2"),
    ("bins", np.bool_(True), "bins (the screen's FFT length) must be an integer >= 2"),
    ("p", [F(1)], "p must be a mapping"),
    ("p", {"a": 0.5, "b": F(1, 2)}, "p['a'] must be an exact mass"),  # a float mass
    ("p", {"a": True}, "p['a'] must be an exact mass"),
    ("p", {"a": F(3, 2), "b": F(-1, 2)}, "p['b'] must be a mass >= 0"),  # sums to 1
    ("p", {"a": F(1, 2)}, "the masses of p must sum to 1"),
    ("p", {"a": F(1, 2), "b": F(1, 2) + F(1, 2**100)}, "the masses of p must sum to 1"),
    ("p", {}, "the masses of p must sum to 1"),
    ("q", {"a": F(1, 2), "b": F(1, 2) - F(1, 2**100)}, "the masses of q must sum to 1"),
    ("q", {"a": F(-1, 10**30), "b": F(1) + F(1, 10**30)}, "q['a'] must be a mass >= 0"),
    ("x", -F(1, 10**40), "x (the bound to print) must be a finite number >= 0"),  # just below 0
    ("x", -5e-324, "x (the bound to print) must be a finite number >= 0"),
    ("x", True, "x (the bound to print) must be a finite number >= 0"),
    ("x", math.nan, "x (the bound to print) must be a finite number >= 0"),
    ("x", math.inf, "x (the bound to print) must be a finite number >= 0"),
    ("x", "a third", "x (the bound to print) must be a finite number >= 0"),
    ("x", "1/3", "x (the bound to print) must be a finite number >= 0"),  # spells a fraction
    ("x", "0", "x (the bound to print) must be a finite number >= 0"),
    ("x", None, "x (the bound to print) must be a finite number >= 0"),
    ("digits", 0, "digits must be an integer >= 1"),  # just below 1
    ("digits", True, "digits must be an integer >= 1"),
    ("digits", 4.0, "digits must be an integer >= 1"),
]


def _cases() -> list[Any]:
    out = []
    for name, (_, args) in CALLS.items():
        for param, value, text in OUTSIDE:
            if param in args:
                out.append(pytest.param(name, param, value, text, id=f"{name}-{param}-{value!r}"))
    return out


@pytest.mark.parametrize(("name", "param", "value", "text"), _cases())
def test_each_public_function_refuses_a_value_outside_its_domain_with_one_line_naming_it(
        name: str, param: str, value: Any, text: str) -> None:
    fn, args = CALLS[name]
    fn(**args)  # the valid call is accepted
    with pytest.raises(ParameterError, match=re.escape(text)) as info:
        fn(**{**args, param: value})
    assert "\n" not in str(info.value)



def _tv_definition(n: int, beta: F, times: int, k: int) -> F:
    """1 − (1 − TV)^T with TV the exact total variation of the thresholded pair (CP Def. 2 at
    ε = 0, one release, both directions alike)."""
    tv = _hs(_law(n, beta, k), _law(n - 1, beta, k), F(1), 1)
    return 1 - (1 - tv) ** times


@pytest.mark.parametrize(("n", "k", "beta"), [
    (1, 1, F(1, 3)),  # n = 1: one record against none
    (1, 0, F(1, 3)),  # k = 0: nothing suppressed
    (3, 0, F(1, 3)),
    (3, 1, 1 - F(1, 2**40)),  # β just below 1: the count m = ⌊nβ⌋ is n − 1, its largest
    (4, 4, 1 - F(1, 2**40)),  # m = k − 1 = n − 1
    (3, 2, F(1, 2**40)),  # β just above 0
    (5, 2, F(1, 2)),
])
def test_tv_bound_just_inside_each_end_of_its_domain_is_the_definition(n: int, k: int, beta: F) -> None:
    for times in (1, 3):
        want = _tv_definition(n, beta, times, k)
        got = R.tv_bound(n, beta, times, k)
        assert want <= got <= want + F(1, 2**100)
    # the same input written another valid way: a float β that reads as the same fraction
    assert R.tv_bound(3, 0.25, 2, 1) == R.tv_bound(3, F(1, 4), 2, 1)
    if k == 0:
        assert R.tv_bound(n, beta, 2) == R.tv_bound(n, beta, 2, 0)  # the default threshold


def test_tv_bound_below_the_threshold_is_zero_and_at_one_record_is_one_minus_the_kept_power() -> None:
    # n < k: both laws "suppressed" with certainty; n = k = 1: TV = β, so 1 − (1 − β)^T
    assert R.tv_bound(1, BETA, 3, 2) == 0 == R.tv_bound(3, BETA, 3, 4) == R.tv_bound(1, BETA, 3, 9)
    # ... also for β within the balls' 128-bit radius of 1, where the closed form's factor
    # (1 − β)^(n − 1 − m) has a negative exponent (m = k − 1 > n − 1) on a ball holding 0:
    # the exact 0, not a refusal
    for n, k, beta in ((2, 5, 1 - F(1, 2**200)), (1, 2, 1 - F(1, 2**130)), (3, 4, 1 - F(1, 2**120))):
        for times in (1, 3):
            assert R.tv_bound(n, beta, times, k) == 0
    got = R.tv_bound(1, BETA, 3, 1)
    assert 1 - (1 - BETA) ** 3 <= got <= 1 - (1 - BETA) ** 3 + F(1, 2**100)


@pytest.mark.parametrize("k", [0, 1])
def test_tv_bound_within_the_balls_precision_of_beta_one_is_at_most_one(k: int) -> None:
    # β = 1 − 2^-200: TV = β at n = 1, so the bound 1 − (1 − β)^T is within 2^-200 of 1, below
    # the 128-bit ball's radius: its upper end passes 1 and the bound must be capped at 1
    beta = 1 - F(1, 2**200)
    for times in (1, 2):
        assert 1 - (1 - beta) ** times <= R.tv_bound(1, beta, times, k) <= 1


@pytest.mark.parametrize(("n", "k"), [(1, 0), (1, 1), (2, 0), (4, 2), (3, 5)])
def test_group_pair_just_inside_its_domain_is_the_thresholded_binomial_pair(n: int, k: int) -> None:
    def law(m: int, beta: F) -> dict:  # the reference's 'S' is the engine's SUPPRESSED
        return {SUPPRESSED if o == "S" else o: v for o, v in _law(m, beta, k).items()}

    for beta in (F(1, 2**40), BETA, 1 - F(1, 2**40)):
        assert R.group_pair(n, k, beta) == (law(n, beta), law(n - 1, beta))
    assert R.group_pair(n, k, 0.25) == R.group_pair(n, k, F(1, 4))  # a float β read exactly


@pytest.mark.parametrize("x", [F(3, 2), F(2)])
def test_untruncated_and_thresholded_bounds_just_inside_their_domain(x: F) -> None:
    eps = f"ln({x})"
    # n = 1: the untruncated pair (one record against none) gets the trivial bound 1
    assert R.untruncated_bound(1, BETA, eps, 1) == 1
    # k = 0 suppresses nothing: the thresholded bound is the untruncated one
    for n in (2, 3, 5):
        assert R.thresholded_bound(n, 0, BETA, eps, TIMES) == R.untruncated_bound(n, BETA, eps, TIMES)
    # n = 1 with k = 0 and k = 1, and ε = 0 and times = 1: at least the exact δ (CP Def. 2)
    for n, k, e, xx, t in ((1, 0, eps, x, 2), (1, 1, eps, x, 2), (3, 2, 0, F(1), 1),
                           (2, 1, eps, x, 1)):
        b = R.thresholded_bound(n, k, BETA, e, t)
        p, q = _law(n, BETA, k), _law(n - 1, BETA, k)
        assert max(_hs(p, q, xx, t), _hs(q, p, xx, t)) <= b <= 1
    # β just inside both ends: at least the exact δ, and below 1 where the pair is far from
    # disjoint (β near 0: the smaller group almost surely suppressed too)
    for beta in (F(1, 2**40), 1 - F(1, 2**40)):
        b = R.thresholded_bound(3, 2, beta, eps, TIMES)
        p, q = _law(3, beta, 2), _law(2, beta, 2)
        assert max(_hs(p, q, x, TIMES), _hs(q, p, x, TIMES)) <= b <= 1
    assert R.thresholded_bound(3, 2, F(1, 2**40), eps, TIMES) < F(1, 10**9)


def test_chernoff_bound_takes_integer_and_zero_masses_as_the_same_law() -> None:
    # an int mass is the Fraction it equals, and a zero mass adds nothing: the same bound
    base = R.chernoff_bound({"a": F(1, 2), "b": F(1, 2)}, {"a": F(1)}, "ln(8)", 2)
    assert R.chernoff_bound({"a": F(1, 2), "b": F(1, 2)}, {"a": 1}, "ln(8)", 2) == base
    assert R.chernoff_bound({"a": F(1, 2), "b": F(1, 2), "c": 0}, {"a": F(1), "c": F(0)}, "ln(8)",
                            2) == base
    # a zero mass where the other law has mass: that output adds nothing to this direction
    # (it has no finite loss: it must not enter the atoms, whose logs need a positive mass)
    q2 = {"a": F(1, 2), "c": F(1, 2)}
    two = R.chernoff_bound({"a": F(1, 2), "b": F(1, 2)}, q2, "ln(8)", 2)
    assert R.chernoff_bound({"a": F(1, 2), "b": F(1, 2), "c": F(0)}, q2, "ln(8)", 2) == two
    assert R.chernoff_bound(q2, {"a": F(1, 2), "b": F(1, 2), "c": F(0)}, "ln(8)", 2) == two
    # masses that sum to 1 only exactly (1/3 three times): accepted, and at least the exact δ
    p, q = {"a": F(1, 3), "b": F(1, 3), "c": F(1, 3)}, {"a": F(1, 2), "b": F(1, 4), "c": F(1, 4)}
    b = R.chernoff_bound(p, q, "ln(2)", 1)
    assert max(_hs(p, q, F(2), 1), _hs(q, p, F(2), 1)) <= b <= 1
    # ε = 0 and times = 1 are inside
    assert max(_hs(P_LAW, Q_LAW, F(1), 1), _hs(Q_LAW, P_LAW, F(1), 1)) <= R.chernoff_bound(
        P_LAW, Q_LAW, 0, 1) <= 1


def test_chernoff_bound_of_the_engine_laws_is_the_pair_bound_of_one_record() -> None:
    # the public chernoff_bound of group_pair's laws is the one thresholded_bound uses at n = 1
    eps = "ln(3/2)"
    p, q = R.group_pair(1, 1, BETA)
    assert R.thresholded_bound(1, 1, BETA, eps, 3) == min(R.tv_bound(1, BETA, 3, 1),
                                                          R.chernoff_bound(p, q, eps, 3))


def test_screen_delta_just_inside_its_domain_is_the_exact_delta() -> None:
    # n = 1, k = 0 and k = 1, e = 0.0 (and the int 0), times = 1, bins = 2 (the shortest FFT):
    # a float screen of the exact δ (one release or two: no composition error to speak of)
    for n, k, e, x, t in ((1, 1, 0.0, F(1), 1), (1, 0, 0.0, F(1), 2), (2, 1, math.log(1.5), F(3, 2), 1)):
        p, q = _law(n, BETA, k), _law(n - 1, BETA, k)
        want = float(max(_hs(p, q, x, t), _hs(q, p, x, t)))
        assert R.screen_delta(n, k, BETA, e, t) == pytest.approx(want, rel=1e-9)
    assert R.screen_delta(1, 1, BETA, 0, 1) == R.screen_delta(1, 1, BETA, 0.0, 1)
    assert R.screen_delta(3, 2, 0.25, 0.5, 2) == R.screen_delta(3, 2, 0.25, 0.5, 2, R.SCREEN_BINS[1])
    two = R.screen_delta(3, 2, BETA, 0.5, 2, 2)
    assert 0 <= two <= 1 and R.screen_delta(2, 3, BETA, 0.5, 2, 2) == 0  # n < k: 0


@pytest.mark.parametrize("box", [np.int64, np.int32, np.uint8], ids=lambda t: t.__name__)
def test_numpy_integer_sizes_and_thresholds_give_the_int_answer(box: Callable[[int], Any]) -> None:
    # a numpy integer is an integer (operator.index takes it): the same result as the int,
    # at each end of the domain too (n = 1, k = 0)
    for n, k in ((3, 1), (1, 0), (1, 1), (5, 2), (2, 3)):
        assert R.group_pair(box(n), box(k), F(1, 2)) == R.group_pair(n, k, F(1, 2))
        assert R.tv_bound(box(n), BETA, 3, box(k)) == R.tv_bound(n, BETA, 3, k)
        assert R.untruncated_bound(box(n), BETA, EPS, 3) == R.untruncated_bound(n, BETA, EPS, 3)
        assert R.thresholded_bound(box(n), box(k), BETA, EPS, 3) == R.thresholded_bound(
            n, k, BETA, EPS, 3)
        assert R.screen_delta(box(n), box(k), BETA, 0.5, 2, 64) == R.screen_delta(n, k, BETA, 0.5, 2, 64)
        # the FFT length too, at its lower end (2) and at a usual length
        for bins in (2, 64):
            assert R.screen_delta(n, k, BETA, 0.5, 2, box(bins)) == R.screen_delta(n, k, BETA, 0.5, 2, bins)
    # the value handed on is a Python int (what the exact arithmetic below expects)
    assert type(R._size_param(np.int64(3))) is int and type(R._threshold_param(np.uint8(0))) is int


@pytest.mark.parametrize("e", [np.float32(0.5), np.float64(0.5), F(1, 2), np.int64(0), F(0),
                               np.float32(1e-30), F(1, 10**400)],
                         ids=lambda e: f"{type(e).__name__}({e})")
def test_screen_delta_takes_any_real_e_whose_float_is_finite_and_at_least_zero(e: Any) -> None:
    # any real number (not a bool or string) is used as its float: the float's answer
    for n, k in ((3, 2), (1, 1), (4, 0)):
        assert R.screen_delta(n, k, BETA, e, 2, 64) == R.screen_delta(n, k, BETA, float(e), 2, 64)
    # a Fraction whose float underflows to -0.0 is that float (0): accepted as ε = 0
    assert R.screen_delta(3, 2, BETA, -F(1, 10**400), 2, 64) == R.screen_delta(3, 2, BETA, 0.0, 2, 64)


def test_format_bound_just_inside_its_domain() -> None:
    # 0 prints as 0; a float is read by its binary value (0.1 is a little above 1/10, so its
    # rounding up is 1.001e-01: never below the float); one digit is allowed
    assert R.format_bound(0) == "0" == R.format_bound(0.0)
    assert R.format_bound(0.1) == "1.001e-01" and R.format_bound(F(1, 10)) == "1.000e-01"
    assert R.format_bound(5e-324) == "4.941e-324"
    assert R.format_bound(F(1, 3), 1) == "4e-01"
    assert R.format_bound(np.int64(3)) == R.format_bound(3) == "3.000e+00"
