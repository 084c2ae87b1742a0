"""The constants of inverse.pld_discrete and inverse.releases that a certified number rests on
satisfy the inequalities their soundness needs (module doc of pld_discrete, lemmas (c), (c'),
(d)): the unit roundoff is at least binary64's, the complex-multiplication charge covers
√2·γ₂ (Higham Lemma 3.5), the FFT charge η covers Higham's η = μ + γ₄(√2 + μ) for twiddles
within μ = u, the weight margin covers the few ulps of the weight evaluation, and every Chernoff
parameter λ is positive (Markov's inequality for e^(λX) needs λ > 0).  A larger (more
conservative) value passes; a smaller, unsound one fails.  Work budgets and heuristics (grid
sizes, screen band and noise, λ grids' extent, budgets, defaults), where any value is sound, are
pinned below at their documented values and, where a law reaches them cheaply, by the route each
selects exactly at its boundary."""

import math

import numpy as np

from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import releases as R

UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2  # 2^-53


def _gamma(n: int, u: float = UNIT_ROUNDOFF) -> float:
    return n * u / (1 - n * u)


def test_unit_roundoff_covers_binary64() -> None:
    assert D.U >= UNIT_ROUNDOFF


def test_complex_multiplication_charge_covers_sqrt2_gamma2() -> None:
    assert D.CMUL >= math.sqrt(2) * _gamma(2)


def test_fft_charge_covers_highams_eta_for_twiddles_within_u() -> None:
    mu = UNIT_ROUNDOFF
    assert D.ETA >= mu + _gamma(4) * (math.sqrt(2) + mu)


def test_weight_margin_covers_the_weight_evaluation() -> None:
    # one rounded subtraction (u), expm1 within a few ulp (glibc: < 1 ulp; charged 4), the
    # negation and max exact: at least 6u relative
    assert D.WEIGHT_MARGIN >= 6 * UNIT_ROUNDOFF


def test_every_chernoff_parameter_is_positive() -> None:
    assert all(lam > 0 for lam in D._Tails.LAMBDAS)
    assert len(R.LAMBDAS) > 0 and bool(np.all(R.LAMBDAS > 0)) and bool(np.all(np.isfinite(R.LAMBDAS)))


# ---- work budgets, grids and schedule bounds: their documented values and what they select ----
#
# Any value of these is sound (every route they choose between is certified), so a changed one
# gives no wrong number; it changes which route runs, how much work is done or when a user is
# refused.  Each is pinned here at its documented value (docs/accounting.md and the module docs)
# and, where a law reaches it cheaply, by the route it selects exactly at its boundary, written
# with the documented number itself (a test reading the constant back would move with it).

from fractions import Fraction  # noqa: E402
from typing import Any  # noqa: E402

import mpmath  # noqa: E402
import pytest  # noqa: E402

from dps_verify.core.errors import CertificationError  # noqa: E402
from dps_verify.core.numbers import Certified  # noqa: E402
from dps_verify.measures.pld import PrivacyLossDistribution  # noqa: E402

DOCUMENTED_PLD_DISCRETE = {
    "EXACT_COST_BUDGET": 20_000,  # docs/accounting.md: the exact PLD up to 20 000 ratio products
    "EXACT_FALLBACK_BUDGET": 100_000,  # 5 · EXACT_COST_BUDGET below DISCRETE_FLOOR
    "DISCRETE_FLOOR": Fraction(1, 10**12),  # docs/accounting.md: target < 1e-12 absolute
    "DEFAULT_MAX_BINS": 1 << 20,
    "DIRECT_CONVOLVE_BUDGET": 3 * 10**8,  # multiply-adds of fft=False per chain
    "DEFAULT_TAIL_MASS": 1e-16,
    "MIN_H_EXP": -60,  # finest grid 2^-60
    "EXACT_BITS_BUDGET": 1 << 20,  # bits of one composed exact number
    "MAX_GRID_TIMES": 1 << 1000,
    "DIRECT_MAX_TUPLES": 1 << 20,  # docs/accounting.md: at most 2^20 tuples (m^T)
    "DIRECT_QUICK_TUPLES": 1 << 17,
    "MAX_RELEASES": 10**9,
}
DOCUMENTED_RELEASES = {
    "BALL_PREC": 128,
    "ATOL": Fraction(1, 10**30),
    "COARSE_PER_FINE": 8,
    "SCREEN_BINS": (1 << 12, 1 << 14),
    "SCREEN_BAND": 1.05,
    "SCREEN_NOISE": 1e-11,
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED_PLD_DISCRETE))
def test_pld_discrete_budget_has_its_documented_value(name: str) -> None:
    value = getattr(D, name)
    assert value == DOCUMENTED_PLD_DISCRETE[name] and type(value) is type(DOCUMENTED_PLD_DISCRETE[name])


@pytest.mark.parametrize("name", sorted(DOCUMENTED_RELEASES))
def test_releases_budget_has_its_documented_value(name: str) -> None:
    value = getattr(R, name)
    assert value == DOCUMENTED_RELEASES[name] and type(value) is type(DOCUMENTED_RELEASES[name])


def test_chernoff_lambda_grids_are_the_documented_powers_of_two() -> None:
    # the grid's cut: λ = 2^-6 … 2^8 (one per power); releases' cheap bound: 65 points 2^-8 … 2^8
    assert D._Tails.LAMBDAS == [2.0**k for k in range(-6, 9)]
    assert R.LAMBDAS.tolist() == [2.0 ** (k / 4) for k in range(-32, 33)]


def test_public_entries_default_to_the_fft_route_and_the_documented_budgets() -> None:
    import inspect

    for f in (D.discretised_delta, D.enclose_deltas, D.upper_below):
        assert inspect.signature(f).parameters["fft"].default is True
    ps = inspect.signature(D.enclose_deltas).parameters
    assert (ps["times"].default, ps["rtol"].default, ps["max_bins"].default) == (1, 0.01, 1 << 20)
    for f in (D.enclose_deltas, D.upper_below):
        ps = inspect.signature(f).parameters
        assert (ps["exact_budget"].default, ps["fallback_budget"].default) == (20_000, 100_000)
    ps = inspect.signature(D.discretised_delta).parameters
    assert (ps["tail_mass"].default, ps["upper_only"].default, ps["lower_only"].default) == (1e-16, False, False)


def _spread_pair(m: int) -> tuple[dict, dict]:
    """p uniform on m outputs, q ∝ 1, 2, …, m: m distinct ratios each way."""
    s = m * (m + 1) // 2
    return {i: Fraction(1, m) for i in range(1, m + 1)}, {i: Fraction(i, s) for i in range(1, m + 1)}


def test_pair_epsilon_composes_exactly_up_to_fifty_times_the_exact_cost_budget(monkeypatch) -> None:
    # measures.pld.pair_epsilon refuses past 50 · 20 000 = 10^6 ratio products: 125 distinct
    # ratios at T = 3 cost exactly 125² + 125·C(126, 2) = 10^6 (composed), 126 cost 1 024 002
    # (refused).  The composition itself is stubbed (the budget check is what is tested)
    from dps_verify.measures import pld as pld_mod

    monkeypatch.setattr(PrivacyLossDistribution, "self_compose", lambda self, times: self)
    p, q = _spread_pair(125)
    assert D.exact_compose_cost(PrivacyLossDistribution.from_exact_laws(p, q), 3) == 10**6
    assert pld_mod.pair_epsilon(p, q, 0, 3) > 0
    p, q = _spread_pair(126)
    with pytest.raises(CertificationError, match="about 1024002 ratio products"):
        pld_mod.pair_epsilon(p, q, 0, 3)


def test_direct_power_refuses_exactly_past_three_hundred_million_multiply_adds(monkeypatch) -> None:
    # fft=False at T = 28: a base of 986 bins costs 299 868 481 multiply-adds (composed), 987 bins
    # cost 300 477 590 (refused before any convolution); the convolution is stubbed
    calls: list[int] = []

    def stub(a: Any, b: Any) -> Any:
        calls.append(len(a.data))
        return a

    monkeypatch.setattr(D, "_convolve", stub)
    assert D.direct_convolve_cost(986, 28) == 299_868_481 <= 3 * 10**8
    assert D.direct_convolve_cost(987, 28) == 300_477_590 > 3 * 10**8
    vec, full = D._direct_power(D._Vec(np.zeros(986), 0, 0.0, 0.0), 28, 1 << 20)
    assert full == 28 * 985 + 1 and calls
    calls.clear()
    with pytest.raises(D._TooBig):
        D._direct_power(D._Vec(np.zeros(987), 0, 0.0, 0.0), 28, 1 << 20)
    assert calls == []


def test_direct_route_refusal_names_three_hundred_million_multiply_adds() -> None:
    # two losses 0 and ln(3/2) on the grid 2^-12: a base of about 1660 bins, at T = 28 far past
    # the direct convolutions' budget; the one error line names it (and the FFT route has none)
    pld = PrivacyLossDistribution({Fraction(1): Fraction(1, 2), Fraction(3, 2): Fraction(1, 2)}, Fraction(0))
    with pytest.raises(CertificationError, match=r"or 3\.0e\+08 multiply-adds \(fft=False\)"):
        D.discretised_delta(pld, 1, 28, -12, fft=False)


def test_exact_cost_counts_a_law_of_exactly_the_bits_budget_and_refuses_one_bit_more() -> None:
    # ratio 3/2 (2 + 2 bits) with mass 1/2 (1 + 2 bits): T = 2^18 releases need exactly 2^20 bits
    # per composed number (counted: one ratio, cost 0), T = 2^18 + 1 four bits more (10^18 + 1)
    one = PrivacyLossDistribution({Fraction(3, 2): Fraction(1, 2)}, Fraction(1, 2))
    assert D.exact_bits_estimate(one, 1 << 18) == 1 << 20
    assert D.exact_compose_cost(one, 1 << 18) < 10**18
    assert D.exact_compose_cost(one, (1 << 18) + 1) == 10**18 + 1


@pytest.mark.parametrize("n", [1, 10**6])
def test_chernoff_cut_is_the_best_over_the_documented_lambda_grid(n: int) -> None:
    # losses ±1 with masses 1/2 on the grid 2^-8 (indices ±256): M(±λ) = cosh λ exactly, so the
    # cut of each side is min over λ = 2^-6 … 2^8 of (n ln cosh λ − ln τ)/(λh) (mpmath, 50
    # digits); n = 1 takes the largest λ, n = 10^6 the smallest (a grid one power shorter or
    # longer at either end moves the cut by hundreds of thousands of bins, or by 18 at n = 1)
    h = 2.0**-8
    tails = D._Tails([256, -256], [Fraction(1, 2), Fraction(1, 2)], h)
    tau = 1e-16
    with mpmath.workdps(50):
        ref = min((n * mpmath.log(mpmath.cosh(lam)) - mpmath.log(tau)) / (lam * mpmath.mpf(h))
                  for lam in (mpmath.mpf(2) ** k for k in range(-6, 9)))
    lo, hi = tails.cut(n, tau)
    assert abs(hi - int(mpmath.ceil(ref))) <= 1 and abs(lo + int(mpmath.ceil(ref))) <= 1


def test_enclose_deltas_second_sparse_pass_stops_against_the_largest_lower_end_known(monkeypatch) -> None:
    # two sparse-promising directions of very different δ (the group of 3 against 2 and back,
    # β = 1/100, T = 40): the full pass of each stops summing against the LARGEST lower end then
    # known (the first pass's of both, then the other's refreshed one), not a smaller one
    from dps_verify.inverse import pld_sparse
    from tests.test_releases_exact_reference import _law

    seen: list[tuple[int, Fraction, Certified]] = []
    real = pld_sparse.sparse_delta

    def spy(pld: Any, eps: Any, times: int, *, rtol: float, floor: Fraction, max_atoms: int) -> Certified:
        c = real(pld, eps, times, rtol=rtol, floor=floor, max_atoms=max_atoms)
        seen.append((id(pld), floor, c))
        return c

    def no_grid(*args: Any, **kw: Any) -> Certified:
        raise AssertionError("a grid ran for a sparse enclosure within rtol of the largest lower end")

    monkeypatch.setattr(pld_sparse, "sparse_delta", spy)
    monkeypatch.setattr(D, "_discrete", no_grid)
    p, q = _law(3, Fraction(1, 100), 2), _law(2, Fraction(1, 100), 2)
    a, b = PrivacyLossDistribution.from_exact_laws(p, q), PrivacyLossDistribution.from_exact_laws(q, p)
    out = D.enclose_deltas([a, b], "ln(2)", 40, exact_budget=0)
    (_, f_a1, a1), (_, f_b1, b1), (_, f_a2, a2), (_, f_b2, b2) = seen
    assert a1.lower != b1.lower  # so the largest and the smallest lower end differ
    assert (f_a1, f_b1) == (0, a1.lower)
    assert f_a2 == max(a1.lower, b1.lower) and f_b2 == max(a2.lower, b1.lower)
    # then a direction goes to the grid only if its upper end is above (1 + rtol)·(the largest
    # lower end) and its own lower end: b's δ is tiny (its enclosure [0, 7.8e-6] is wide
    # against itself) but far below a's, so both sparse enclosures stand and no grid runs
    assert b2.lower * Fraction(101, 100) < b2.upper <= a2.lower * Fraction(101, 100)
    assert [c.details["mode"] for c in out] == ["sparse", "sparse"] and out == [a2, b2]
    # alone, a's own sparse enclosure (within rtol of its own lower end) stands too
    seen.clear()
    (alone,) = D.enclose_deltas([a], "ln(2)", 40, exact_budget=0)
    assert alone.details["mode"] == "sparse" and [f for _, f, _ in seen] == [0]


def _three_atoms() -> PrivacyLossDistribution:
    # no dominant atom (not sparse-promising), cost 9 at T = 2 (> exact_budget = 0)
    p = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    q = {0: Fraction(1, 6), 1: Fraction(1, 3), 2: Fraction(1, 2)}
    return PrivacyLossDistribution.from_exact_laws(p, q)


def test_enclose_deltas_refines_to_the_first_grid_below_two_to_the_minus_sixty(monkeypatch) -> None:
    # a width that halves with h and never meets rtol = 0 (grid enclosures stubbed: [1/2 − h,
    # 1/2 + h]): one halving at a time from the coarsest grid until the first grid finer than the
    # documented finest step 2^-60, i.e. 2^-61, then it stops
    grids: list[int] = []

    def stub(pld: Any, eps: Any, times: int, h_exp: int, tail: float, max_bins: int,
             lower_only: bool = False, fft: bool = True) -> Certified:
        grids.append(h_exp)
        w = Fraction(2) ** h_exp
        return Certified(Fraction(1, 2) - w, Fraction(1, 2) + w, "stub",
                         {"h_exp": h_exp, "bins": 2, "mode": "discretised"})

    monkeypatch.setattr(D, "_discrete", stub)
    (c,) = D.enclose_deltas([_three_atoms()], 1, 2, rtol=0, exact_budget=0)
    assert grids == list(range(grids[0], -62, -1)) and c.details["h_exp"] == -61


def test_upper_below_refines_down_to_the_grid_two_to_the_minus_sixty_and_no_further(monkeypatch) -> None:
    # a target never met (grid upper ends stubbed: 1/2 + h > 1/2): one halving at a time until
    # the documented finest grid 2^-60, then the bound reached there is returned
    grids: list[int] = []

    def stub(pld: Any, eps: Any, times: int, h_exp: int, **kw: Any) -> Certified:
        grids.append(h_exp)
        return Certified(Fraction(0), Fraction(1, 2) + Fraction(2) ** h_exp, "stub",
                         {"h_exp": h_exp, "bins": 2})

    monkeypatch.setattr(D, "discretised_delta", stub)
    c = D.upper_below([_three_atoms()], 1, 2, Fraction(1, 2), exact_budget=0)
    assert grids == list(range(grids[0], -61, -1))
    assert c.details["h_exps"] == [-60] and c.upper == Fraction(1, 2) + Fraction(2) ** -60


def test_upper_below_stops_after_one_grid_when_the_estimate_equals_the_target() -> None:
    # an estimate equal to float(target) says no grid can certify the target: the first grid's
    # bound is returned at once (there is no room left to size a jump by).  δ_2(ln(11/10)) of
    # the three-atom law is above the target 1/100, so every certified upper end misses it
    from tests.test_inverse_edges_reference import _hs

    p = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    q = {0: Fraction(1, 6), 1: Fraction(1, 3), 2: Fraction(1, 2)}
    exact = _hs(p, q, Fraction(11, 10), 2)
    target = Fraction(1, 100)
    assert exact > target
    c = D.upper_below([_three_atoms()], "ln(11/10)", 2, target, estimate=float(target), exact_budget=0)
    assert c.details["mode"] == "discretised" and len(c.details["h_exps"]) == 1
    assert exact <= c.upper


def test_releases_result_built_without_the_optional_fields_claims_only_its_scanned_range() -> None:
    # the conservative defaults of the public result type: an enclosure over the scanned sizes
    # only (not over every n), no tail bound, nothing enclosed, the bound from the enclosure
    c = Certified(Fraction(1, 4), Fraction(1, 2), "test")
    r = R.ReleasesResult(c, 3, (2, 5), "exact")
    assert r.covers_all_n is False and r.tail_from is None and r.tail_bound is None
    assert (r.enclosed, r.bound_source, r.details, r.target_missed) == ((), "enclosure", {}, None)


def test_enclose_deltas_keeps_a_sparse_enclosure_whose_upper_end_is_exactly_within_rtol(monkeypatch) -> None:
    # a sparse enclosure [L, (1 + rtol)·L] is within rtol of the largest lower end L exactly: it
    # stands and no grid runs (sparse_delta stubbed to return exactly that)
    from dps_verify.inverse import pld_sparse
    from tests.test_releases_exact_reference import _law

    def stub(pld: Any, eps: Any, times: int, *, rtol: float, floor: Fraction, max_atoms: int) -> Certified:
        low = Fraction(1, 1000)
        return Certified(low, low * Fraction(1 + rtol), "stub", {"mode": "sparse"})

    def no_grid(*args: Any, **kw: Any) -> Certified:
        raise AssertionError("a grid ran for a sparse enclosure within rtol of the largest lower end")

    monkeypatch.setattr(pld_sparse, "sparse_delta", stub)
    monkeypatch.setattr(D, "_discrete", no_grid)
    a = PrivacyLossDistribution.from_exact_laws(_law(3, Fraction(1, 100), 2), _law(2, Fraction(1, 100), 2))
    (c,) = D.enclose_deltas([a], "ln(2)", 40, rtol=0.25, exact_budget=0)
    assert (c.lower, c.upper, c.how) == (Fraction(1, 1000), Fraction(1, 800), "stub")


def test_public_names_of_both_modules_are_listed_and_defined() -> None:
    # the star-import surface: every listed name is defined, and the entry points are listed
    for mod, entry in ((D, {"enclose_delta", "enclose_deltas", "discretised_delta", "direct_delta",
                            "exact_compose_cost", "EXACT_COST_BUDGET", "MAX_RELEASES"}),
                       (R, {"releases_delta", "ReleasesResult", "screen_delta", "thresholded_bound",
                            "tv_bound", "untruncated_bound", "chernoff_bound", "group_pair"})):
        assert entry <= set(mod.__all__) and all(hasattr(mod, name) for name in mod.__all__)
