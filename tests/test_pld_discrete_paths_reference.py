"""The fall-back paths of inverse.pld_discrete that ordinary laws never take — a target below the
grid's width floor (direct sum, then the exact PLD), a grid over the bin budget (coarser grids,
the sparse enclosure kept, the refusal), the intersection of two enclosures, the direct sum's
tuple cap — each forced with the module's own budgets on a three-atom law and checked against
the exact T-fold hockey-stick δ (CP Def. 2 for independent releases), every T-tuple of outputs
enumerated in Fractions (milliseconds each)."""

import math
from fractions import Fraction as F

import numpy as np
import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import Certified
from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse.pld_sparse import sparse_promising
from dps_verify.measures.pld import PrivacyLossDistribution
from tests.test_inverse_edges_reference import _hs  # exact T-fold δ, every tuple enumerated
from tests.test_releases_exact_reference import _law  # the thresholded count's exact law

# a law with one rare output of loss ln 1000 (P-mass 1e-13): δ_T(ln 100) ≈ T·0.9e-13, below
# DISCRETE_FLOOR = 1e-12, no infinite loss, no dominant atom (not sparse-promising)
X, Y = F(1, 10**13), F(1, 10**16)
P = {0: F(1, 2), 1: F(1, 2) - X, 2: X}
Q = {0: F(1, 2) - Y, 1: F(1, 2), 2: Y}
EPS, E_X = "ln(100)", F(100)


def _pld() -> PrivacyLossDistribution:
    pld = PrivacyLossDistribution.from_exact_laws(P, Q)
    assert len(pld.ratios) == 3 and pld.infinity_mass == 0 and not sparse_promising(pld, 3)
    return pld


@pytest.mark.parametrize("times", [2, 3])
def test_enclose_deltas_below_the_grid_floor_takes_the_direct_sum(times: int) -> None:
    exact = _hs(P, Q, E_X, times)
    assert 0 < exact < D.DISCRETE_FLOOR
    (c,) = D.enclose_deltas([_pld()], EPS, times, exact_budget=0)  # the grid first, then below floor
    assert c.details["mode"] == "direct" and c.how.startswith("direct sum")
    assert c.lower <= exact <= c.upper <= exact * (1 + F(1, 10**9))


def test_enclose_deltas_below_the_grid_floor_goes_exact_past_the_direct_sum_cap(monkeypatch) -> None:
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 0)  # no direct sum: the exact PLD if affordable
    exact = _hs(P, Q, E_X, 2)
    (c,) = D.enclose_deltas([_pld()], EPS, 2, exact_budget=0)
    assert c.details["mode"] == "exact" and c.lower == exact == c.upper
    # not affordable (fallback budget below the cost 9): the grid enclosure stands, still valid
    (g,) = D.enclose_deltas([_pld()], EPS, 2, exact_budget=0, fallback_budget=8)
    assert g.details["mode"] == "discretised" and g.lower <= exact <= g.upper


def test_enclose_deltas_keeps_the_sparse_enclosure_when_no_grid_fits() -> None:
    # a group one record above k = 2 at β = 1/100: "suppressed" dominates (sparse-promising); with
    # a budget of 8 bins no grid fits, so the sparse enclosure is the answer (valid, if wide)
    p, q = _law(3, F(1, 100), 2), _law(2, F(1, 100), 2)
    pld = PrivacyLossDistribution.from_exact_laws(q, p)  # no infinite loss this way
    assert sparse_promising(pld, 2)
    exact = _hs(q, p, F(11, 10), 2)
    (c,) = D.enclose_deltas([pld], "ln(11/10)", 2, exact_budget=0, max_bins=8, rtol=1e-30)
    assert c.details["mode"] == "sparse" and c.lower <= exact <= c.upper
    # without a dominant atom there is nothing to fall back on: refused, naming the work budget
    with pytest.raises(CertificationError, match="times = 2 releases: even the coarsest grid"):
        D.enclose_deltas([_pld()], EPS, 2, exact_budget=0, max_bins=8)


def test_enclose_deltas_stops_refining_when_the_next_grid_is_over_the_budget(monkeypatch) -> None:
    # the first grid serves; every finer one is refused: the coarser enclosure is kept, once
    calls: list[int] = []
    real = D.discretised_delta

    def refuse_finer(pld, eps, times, h_exp, **kw):  # type: ignore[no-untyped-def]
        calls.append(h_exp)
        if len(calls) > 1:
            raise CertificationError("over the budget")
        return real(pld, eps, times, h_exp, **kw)

    monkeypatch.setattr(D, "discretised_delta", refuse_finer)
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    (c,) = D.enclose_deltas([PrivacyLossDistribution.from_exact_laws(p, q)], "ln(11/10)", 3,
                            exact_budget=0, rtol=1e-6)
    exact = _hs(p, q, F(11, 10), 3)
    assert c.details["mode"] == "discretised" and c.details["h_exp"] == calls[0]
    assert c.lower <= exact <= c.upper
    assert len(calls) <= 3  # the first grid, then one try per step size (jump, 1): no loop


def test_upper_below_a_target_below_the_floor_takes_the_direct_sum_or_the_exact_pld(monkeypatch) -> None:
    exact = _hs(P, Q, E_X, 2)
    monkeypatch.setattr(D, "DIRECT_QUICK_TUPLES", 0)  # the quick direct sum is skipped
    # reachable target: the direct sum (within DIRECT_MAX_TUPLES) certifies it
    c = D.upper_below([_pld()], EPS, 2, exact * F(101, 100), exact_budget=0)
    assert c.details["mode"] == "direct" and exact <= c.upper <= exact * F(101, 100)
    # a target below δ itself: the direct sum misses it, the exact PLD is affordable and taken
    c = D.upper_below([_pld()], EPS, 2, exact / 2, exact_budget=0)
    assert c.details["mode"] == "exact" and c.upper == exact
    # exact not affordable: the direct sum's bound is returned (above the target, still valid)
    c = D.upper_below([_pld()], EPS, 2, exact / 2, exact_budget=0, fallback_budget=0)
    assert c.details["mode"] == "direct" and exact <= c.upper <= exact * (1 + F(1, 10**9))


def test_upper_below_with_an_estimate_a_subnormal_step_below_the_target_still_bounds_delta(monkeypatch) -> None:
    # no direct sum, no exact PLD: the grid loop runs for a target of 1e-310 (below δ, so no grid
    # meets it) with an estimate one ulp (2^-1074) below it; the room (target − estimate)·0.8 is
    # then the smallest double and over/room >= δ/room is infinite.  The jump (work only) is
    # clamped at 6 halvings: the same grids and bound as an estimate of 0 (over/room past 2^6
    # there too), and above δ
    exact = _hs(P, Q, E_X, 2)
    monkeypatch.setattr(D, "DIRECT_QUICK_TUPLES", 0)
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 0)
    target = F(1, 10**310)
    near = math.nextafter(float(target), 0.0)
    assert math.isinf(float(exact) / ((float(target) - near) * 0.8))
    c = D.upper_below([_pld()], EPS, 2, target, estimate=near, exact_budget=0, fallback_budget=0)
    c0 = D.upper_below([_pld()], EPS, 2, target, estimate=0.0, exact_budget=0, fallback_budget=0)
    assert c.details["mode"] == "discretised" and exact <= c.upper < 1
    assert (c.upper, c.details["h_exps"]) == (c0.upper, c0.details["h_exps"])


def test_upper_below_goes_exact_when_no_grid_reaches_the_target() -> None:
    # a target below δ (no bound can reach it), above the grid floor: the grid bounds miss it,
    # and the exact PLD (cost 25 within exact_budget = 300, above its sixteenth) is taken
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(11, 10), 2)
    assert 300 // 16 < D.exact_compose_cost(pld, 2) <= 300
    c = D.upper_below([pld], "ln(11/10)", 2, exact / 2, exact_budget=300)
    assert c.details["mode"] == "exact" and c.upper == exact == c.lower
    # exact not affordable: the best grid bound (certified, above δ)
    g = D.upper_below([pld], "ln(11/10)", 2, exact / 2, exact_budget=0)
    assert g.details["mode"] == "discretised" and exact <= g.upper <= exact * F(11, 10)


def test_upper_below_takes_coarser_grids_until_one_fits_the_bin_budget() -> None:
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(11, 10), 3)
    target = exact * F(3, 2)
    coarsest = D.upper_below([pld], "ln(11/10)", 3, target, exact_budget=0)
    (h0,) = coarsest.details["h_exps"]
    # a hint far finer than the budget allows: each refused grid is retried one step coarser
    c = D.upper_below([pld], "ln(11/10)", 3, target, exact_budget=0, h_exp=[h0 - 12],
                      max_bins=4 * coarsest_bins(pld, h0))
    (h,) = c.details["h_exps"]
    assert h0 - 11 < h <= h0 and exact <= c.upper <= target
    # no grid fits at all and the exact PLD is over its budget: refused, naming the budget
    with pytest.raises(CertificationError, match="max_bins = 4 bins"):
        D.upper_below([pld], "ln(11/10)", 3, target, exact_budget=0, max_bins=4)


def coarsest_bins(pld: PrivacyLossDistribution, h_exp: int) -> int:
    return int(D.discretised_delta(pld, "ln(11/10)", 3, h_exp, upper_only=True).details["bins"])


def test_intersect_of_two_enclosures_is_their_overlap_with_the_narrower_text() -> None:
    a = Certified(F(1, 10), F(5, 10), "wide", {"mode": "a"})
    b = Certified(F(2, 10), F(6, 10), "narrower?", {"mode": "b"})
    c = D._intersect(a, b)
    assert (c.lower, c.upper) == (F(2, 10), F(5, 10)) and c.how == "wide"  # equal widths: the first
    n = Certified(F(3, 10), F(4, 10), "narrow", {"mode": "n"})
    for x, y in ((a, n), (n, a)):
        c = D._intersect(x, y)
        assert (c.lower, c.upper, c.how, c.details) == (F(3, 10), F(4, 10), "narrow", {"mode": "n"})
    assert D._intersect(a, None) is a and D._intersect(a, a) is a
    with pytest.raises(AssertionError, match="disjoint enclosures"):
        D._intersect(a, Certified(F(6, 10), F(7, 10), "", {}))
    # touching ends are not disjoint: the point enclosure
    t = D._intersect(a, Certified(F(5, 10), F(7, 10), "", {}))
    assert t.lower == t.upper == F(5, 10)


def test_direct_delta_refuses_more_tuples_than_its_cap() -> None:
    pld = PrivacyLossDistribution.from_exact_laws({0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)})
    assert D.direct_tuples(pld, 20) == D.DIRECT_MAX_TUPLES
    D.direct_delta(pld, 0, 1)  # within the cap
    with pytest.raises(CertificationError, match="times = 21: more than 1048576 tuples"):
        D.direct_delta(pld, 0, 21)


def test_norm2_upper_of_entries_above_the_probability_range() -> None:
    # n·max² above 2^20 is not scaled (the sum of 2^1000·x² could overflow): the bound still
    # holds, tightly; sixteen entries of 2^10 (scaled, the sum was 2^1024 = inf) included
    for x in (np.array([3000.0, 4.0, 0.5]), np.array([2.0**11] * 5), np.array([1e150, 1.0]),
              np.array([2.0**10] * 16), np.array([1.0] * (1 << 10) + [2.0**-600] * 3)):
        exact_sq = sum(F(float(v)) ** 2 for v in x)
        b = F(D._norm2_upper(x))
        assert b * b >= exact_sq and b * b <= exact_sq * (1 + F(1, 10**12))


# ---- the documented grid choices: the coarsest grid, the jump, the immediate exact case -------

# one interior atom, loss span ln 2.721 = 1.0010 (in [1, 257/256)): the coarsest grid, "about 256
# bins across one release's losses", is 2^floor(log2(span/256)) = 2^-8 (not 2^-9)
P2 = {0: F(1, 2), 1: F(1, 2)}
Q2 = {0: F(1000, 3721), 1: F(2721, 3721)}


def _pld2() -> PrivacyLossDistribution:
    pld = PrivacyLossDistribution.from_exact_laws(P2, Q2)
    assert 1 < D._loss_span(pld) < 257 / 256
    return pld


@pytest.mark.parametrize("times", [2, 3])
def test_enclose_deltas_starts_on_the_coarsest_grid_and_keeps_it_when_it_is_narrow_enough(times: int) -> None:
    exact = _hs(P2, Q2, F(11, 10), times)
    (c,) = D.enclose_deltas([_pld2()], "ln(11/10)", times, exact_budget=0, rtol=1.0)
    assert c.details["h_exp"] == -8 and c.details["mode"] == "discretised"
    assert c.lower <= exact <= c.upper <= c.lower * F(4, 3)  # the documented target, rtol/3


def test_enclose_deltas_refines_past_the_coarsest_grid_until_the_target_holds() -> None:
    # the coarsest grid (2^-8) is too wide for rtol = 0.01; the grid kept is finer and meets
    # the documented target upper <= (1 + rtol/3)·lower around the exact value (how many
    # halvings it jumps at once is a work heuristic: any number is sound)
    pld, rtol = _pld2(), 0.01
    first = D.discretised_delta(pld, "ln(11/10)", 2, -8, tail_mass=1e-11)
    assert first.upper > first.lower * (1 + F(rtol / 3))
    (c,) = D.enclose_deltas([pld], "ln(11/10)", 2, exact_budget=0, rtol=rtol)
    assert c.details["h_exp"] < -8
    exact = _hs(P2, Q2, F(11, 10), 2)
    assert c.lower <= exact <= c.upper <= c.lower * (1 + F(rtol / 3))


def test_upper_below_first_grid_is_the_coarsest_one_finer_by_half_log2_t() -> None:
    exact = _hs(P2, Q2, F(11, 10), 4)
    for times, h in ((2, -8), (3, -8), (4, -9)):
        target = _hs(P2, Q2, F(11, 10), times) * 2  # met by the first grid
        c = D.upper_below([_pld2()], "ln(11/10)", times, target, exact_budget=0)
        assert c.details["h_exps"] == [h] and c.details["mode"] == "discretised"
    assert exact <= c.upper <= exact * 2


def test_upper_below_goes_exact_at_once_up_to_a_sixteenth_of_the_budget() -> None:
    # cost 25 (the group of 6 against 5, T = 2): exact at once when 25 <= budget // 16
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    assert D.exact_compose_cost(pld, 2) == 25
    target = _hs(p, q, F(11, 10), 2) * 2
    assert D.upper_below([pld], "ln(11/10)", 2, target, exact_budget=400).details["mode"] == "exact"
    assert D.upper_below([pld], "ln(11/10)", 2, target, exact_budget=399).details["mode"] == "discretised"


def test_upper_below_below_the_floor_goes_exact_exactly_up_to_the_fallback_budget(monkeypatch) -> None:
    monkeypatch.setattr(D, "DIRECT_QUICK_TUPLES", 0)
    exact = _hs(P, Q, E_X, 2)
    assert D.exact_compose_cost(_pld(), 2) == 9
    for budget, mode in ((9, "exact"), (8, "direct")):
        c = D.upper_below([_pld()], EPS, 2, exact / 2, exact_budget=0, fallback_budget=budget)
        assert c.details["mode"] == mode and exact <= c.upper


def test_one_release_is_the_base_vector_itself() -> None:
    pld = _pld2()
    r0, idx = D._indices(pld, -8)
    base = D._split_base(pld, r0, idx, -8)
    tails = D._Tails([idx[r][1] for r in pld.ratios], list(pld.ratios.values()), 2.0**-8)
    for fft in (True, False):
        vec, bins = D._power(base, 1, tails, 1e-12, 4, fft)  # no window, no budget check
        assert vec is base and bins == len(base.data)
    c = D.discretised_delta(pld, "ln(11/10)", 1, -8)
    assert c.details["bins"] == len(base.data) and "a single release" in c.how


def test_power_window_is_the_smallest_power_of_two_holding_the_kept_range() -> None:
    pld = PrivacyLossDistribution.from_exact_laws(_law(6, F(1, 3), 2), _law(5, F(1, 3), 2))
    interior = 0
    for h_exp in (-3, -4, -6):
        r0, idx = D._indices(pld, h_exp)
        base = D._split_base(pld, r0, idx, h_exp)
        tails = D._Tails([idx[r][1] for r in pld.ratios], list(pld.ratios.values()), 2.0**h_exp,
                         idx_low=[idx[r][0] for r in pld.ratios])
        for times in (2, 3, 8, 100, 1000):
            for tau in (1e-6, 1e-16):
                lo, size, kept = D._window(base, times, tails, tau)
                need = max(kept, len(base.data))
                assert size & (size - 1) == 0 and size // 2 < need <= size
                # the window holds the kept Chernoff range, centred in it (equal room for both
                # tails, within one bin) unless that would leave the T-fold support
                full_lo = times * base.offset
                full_hi = full_lo + times * (len(base.data) - 1)
                c_lo, c_hi = tails.cut(times, tau)
                c_lo, c_hi = max(c_lo, full_lo), min(c_hi, full_hi)
                assert kept == c_hi - c_lo + 1 and lo <= c_lo and c_hi <= lo + size - 1
                if full_hi - full_lo + 1 < size:
                    assert lo == full_lo
                    continue
                assert full_lo <= lo and lo + size - 1 <= full_hi
                if full_lo < lo and lo + size - 1 < full_hi:
                    interior += 1
                    assert 0 <= (lo + size - 1 - c_hi) - (c_lo - lo) <= 1
    assert interior >= 3


def test_direct_tuples_counts_the_t_tuples_of_finite_atoms() -> None:
    assert D.direct_tuples(_pld(), 4) == 3**4 and D.direct_tuples(_pld2(), 1) == 2
    assert D.direct_tuples(PrivacyLossDistribution({}, F(1, 2)), 3) == 0  # no finite atom


# ---- the window's tails: only the upper one cut, the cut itself, the direct convolution's cost --

def _window_of(pld: PrivacyLossDistribution, times: int, h_exp: int, tau: float):
    """The base vector, tails and T-fold window that ``_power`` uses for ``pld`` on grid 2^h_exp."""
    r0, idx = D._indices(pld, h_exp)
    base = D._split_base(pld, r0, idx, h_exp)
    tails = D._Tails([idx[r][1] for r in pld.ratios], list(pld.ratios.values()), 2.0**h_exp,
                     idx_low=[idx[r][0] for r in pld.ratios])
    lo, size, _ = D._window(base, times, tails, tau)
    return base, tails, lo, size


# most mass at the smallest loss, three light atoms above: the T-fold window sits at the bottom
# of the full range and cuts only the upper tail
LOW_HEAVY = PrivacyLossDistribution({F(i + 1, 3): F(m, 100) for i, m in enumerate((97, 1, 1, 1))})


def test_mass_above_a_window_cut_only_at_the_top_is_charged_to_the_upper_end() -> None:
    pld, times, h_exp, tau = LOW_HEAVY, 10, -5, 1e-3
    base, tails, lo, size = _window_of(pld, times, h_exp, tau)
    full_lo = times * base.offset
    assert lo == full_lo and lo + size - 1 < full_lo + times * (len(base.data) - 1)  # top cut only
    vec, _ = D._power(base, times, tails, tau, 2**20)
    assert vec.extra == tails.bound(times, None, lo + size - 1) > 0
    exact = pld.self_compose(times).delta_certified(0).upper  # the exact T-fold δ at ε = 0
    c = D.discretised_delta(pld, 0, times, h_exp, tail_mass=tau)
    assert c.lower <= exact <= c.upper  # the cut-off top mass holds the whole δ here


@pytest.mark.parametrize("h_exp", [-3, -6])
def test_tail_cut_is_the_tightest_float_chernoff_cut_over_the_lambda_grid(h_exp: int) -> None:
    # hi = min over λ of (n ln M(λ) − ln τ)/(λh), lo = max over λ of (ln τ − n ln M(−λ))/(λh),
    # M(±λ) = Σ p_i e^(±λ h j_i) over the chain's indices (ceilings up, floors down)
    import mpmath

    pld = PrivacyLossDistribution.from_exact_laws(_law(6, F(1, 3), 2), _law(5, F(1, 3), 2))
    r0, idx = D._indices(pld, h_exp)
    probs = list(pld.ratios.values())
    up, down = [idx[r][1] for r in pld.ratios], [idx[r][0] for r in pld.ratios]
    tails = D._Tails(up, probs, 2.0**h_exp, idx_low=down)
    h = mpmath.mpf(2) ** h_exp
    for n, tau in ((3, 1e-12), (20, 1e-6)):
        with mpmath.workdps(40):
            def log_m(lam, js):  # type: ignore[no-untyped-def]
                return mpmath.log(sum(mpmath.mpf(p.numerator) / p.denominator * mpmath.exp(lam * h * j)
                                      for p, j in zip(probs, js)))
            lt = mpmath.log(tau)
            hi = min((n * log_m(lam, up) - lt) / (lam * h) for lam in map(mpmath.mpf, D._Tails.LAMBDAS))
            lo = max((lt - n * log_m(-lam, down)) / (lam * h) for lam in map(mpmath.mpf, D._Tails.LAMBDAS))
        got_lo, got_hi = tails.cut(n, tau)
        assert abs(got_hi - mpmath.ceil(hi)) <= 1 and abs(got_lo - mpmath.floor(lo)) <= 1
        assert got_lo < got_hi


def test_direct_convolve_cost_is_the_work_the_direct_power_performs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the estimate is checked against the multiply-adds numpy.convolve is actually given
    done = []
    real = np.convolve

    def counting(a, b):  # type: ignore[no-untyped-def]
        done.append(len(a) * len(b))
        return real(a, b)

    monkeypatch.setattr(np, "convolve", counting)
    for n in (1, 2, 7):
        base = D._Vec(np.full(n, 1.0 / n), 0, 0.0, 0.0)
        for times in range(1, 12):
            done.clear()
            vec, full = D._direct_power(base, times, 1 << 20)
            assert D.direct_convolve_cost(n, times) == sum(done)
            assert len(vec.data) == full == times * (n - 1) + 1  # the T-fold length


def test_upper_below_takes_the_quick_direct_sum_below_the_floor() -> None:
    # 3^2 tuples (far below DIRECT_QUICK_TUPLES): the direct sum first; it meets a reachable
    # target at once, and an unreachable one (below δ) falls through to the exact PLD
    exact = _hs(P, Q, E_X, 2)
    c = D.upper_below([_pld()], EPS, 2, exact * F(101, 100), exact_budget=0)
    assert c.details["mode"] == "direct" and exact <= c.upper <= exact * F(101, 100)
    c = D.upper_below([_pld()], EPS, 2, exact / 2, exact_budget=0)
    assert c.details["mode"] == "exact" and c.upper == exact


def test_upper_below_refines_past_a_missing_first_grid_until_the_target_is_met() -> None:
    # the first grid (2^-8) misses both targets; the grid that serves is finer and its upper end
    # lies between the exact delta and the target (how many halvings are jumped at once is a
    # work heuristic: any number is sound)
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(2), 2)
    for f in (1 + F(1, 10**3), 1 + F(1, 10**5)):
        target = exact * f
        c0 = D.discretised_delta(pld, "ln(2)", 2, -8, tail_mass=1e-18, upper_only=True)
        assert c0.upper > target  # the first grid misses
        c = D.upper_below([pld], "ln(2)", 2, target, estimate=float(exact), exact_budget=0)
        (h,) = c.details["h_exps"]
        assert exact <= c.upper <= target and h < -8


@pytest.mark.parametrize("times", [0, -1, True, 2.0, "2"])
def test_every_public_entry_refuses_a_number_of_releases_that_is_not_a_positive_integer(times) -> None:
    # one clear ParameterError before any work (a T of 0, a bool or a float has no T-fold law)
    from dps_verify.core.errors import ParameterError

    calls = [
        lambda: D.discretised_delta(_pld2(), "ln(11/10)", times, -8),
        lambda: D.direct_delta(_pld2(), "ln(11/10)", times),
        lambda: D.enclose_deltas([_pld2()], "ln(11/10)", times),
        lambda: D.upper_below([_pld2()], "ln(11/10)", times, F(1, 2)),
    ]
    for call in calls:
        with pytest.raises(ParameterError, match="times must be an integer >= 1"):
            call()


# infinite loss (P-mass Z, so the grid's lower end is about 2Z > 0) plus the rare output of loss
# ln 1000: δ_2(ln 100) = 1 − (1 − Z)² + (rare part) ≈ 7.3e-13, below DISCRETE_FLOOR
Z = F(275, 10**15)
P_INF = {0: F(1, 2), 1: F(1, 2) - X - Z, 2: X, 3: Z}


@pytest.mark.parametrize(("rtol", "made_up", "mode"), [
    (0.01, "a hundredth", "direct"),  # exactly 100 times narrower than the grid's: kept
    (0.01, "0.1 % wider", "exact"),  # a little less narrow: the exact PLD (affordable) instead
    (2.0, "up to the target", "direct"),  # wide, but its upper end is exactly the target: kept
])
def test_enclose_deltas_below_the_floor_keeps_a_direct_sum_at_the_target_or_a_hundred_times_narrower(
        monkeypatch, rtol: float, made_up: str, mode: str) -> None:
    # below the grid floor a direct sum (intersected with the grid's enclosure) is kept when its
    # upper end is at most the target (1 + rtol/3)·(largest lower end) or it is at least 100
    # times narrower than the grid's enclosure; else the exact PLD (affordable here) is taken.
    # The direct sum is replaced by a made-up enclosure of the exact δ inside the grid's
    pld = PrivacyLossDistribution.from_exact_laws(P_INF, Q)
    assert pld.infinity_mass == Z and not sparse_promising(pld, 2)
    exact = _hs(P_INF, Q, E_X, 2)
    grids: list[Certified] = []
    real_discrete = D._discrete

    def spy(*args, **kw):  # type: ignore[no-untyped-def]
        grids.append(real_discrete(*args, **kw))
        return grids[-1]

    def made_up_direct(pld, eps, times):  # type: ignore[no-untyped-def]
        old = grids[-1]
        target = old.lower * F(1 + rtol / 3)  # the float rtol/3, as documented
        if made_up == "up to the target":
            lo, hi = exact, target
        else:
            w = (old.upper - old.lower) / (100 if made_up == "a hundredth" else F(100) / (1 + F(1, 1000)))
            lo, hi = exact - w, exact
        assert old.lower <= lo <= exact <= hi <= old.upper
        return Certified(lo, hi, "made-up direct sum", {"mode": "direct", "times": times})

    monkeypatch.setattr(D, "_discrete", spy)
    monkeypatch.setattr(D, "direct_delta", made_up_direct)
    (c,) = D.enclose_deltas([pld], EPS, 2, exact_budget=0, rtol=rtol)
    (old,) = grids  # the coarsest grid, then below the floor at once
    target = old.lower * F(1 + rtol / 3)  # the float rtol/3, as documented
    assert 0 < old.lower <= exact <= old.upper and target < D.DISCRETE_FLOOR < old.upper
    assert c.details["mode"] == mode
    if mode == "exact":
        assert c.lower == exact == c.upper
    elif made_up == "a hundredth":
        assert c.how == "made-up direct sum" and c.upper - c.lower == (old.upper - old.lower) / 100 < exact - target
    else:
        assert c.how == "made-up direct sum" and (c.lower, c.upper) == (exact, target)


class _GivenCut:
    """A stand-in for the Chernoff tails: its float cut is the given index range."""

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def cut(self, times: int, tau: float) -> tuple[int, int]:
        return self.lo, self.hi


def _window_by_search(full_lo: int, full_hi: int, n: int, c_lo: int, c_hi: int) -> tuple[int, int, int]:
    """The documented window, found by search: keep the Chernoff range clipped to the T-fold
    support (the whole support when that is empty); the least power of two holding it and the
    one-release vector (n bins); of the windows of that length inside the support (the support's
    start when the support is shorter), the one leaving below the kept range the room nearest to
    half of the spare room, rounded down."""
    a, b = max(c_lo, full_lo), min(c_hi, full_hi)
    if a > b:
        a, b = full_lo, full_hi
    kept = b - a + 1
    size = next(p for p in (2**i for i in range(64)) if p >= kept and p >= n)
    if full_hi - full_lo + 1 < size:
        return full_lo, size, kept
    half = (size - kept) // 2
    starts = range(full_lo, full_hi - size + 2)
    lo = min(starts, key=lambda s: (abs((a - s) - half), s))
    return lo, size, kept


def test_power_window_is_the_documented_window_on_a_grid_of_cuts() -> None:
    # every clipping of the float cut (inside, past either end, empty, a single bin), kept
    # ranges of exactly a power of two, supports exactly as long as the window, one bin shorter
    # or longer, against the window found by search
    edges = {"single": 0, "pow2": 0, "fits": 0, "short": 0}
    for n in (1, 2, 3, 5, 8, 9):
        for offset in (-3, 0, 2):
            base = D._Vec(np.ones(n), offset, 0.0, 0.0)
            for times in (1, 2, 3, 7):
                full_lo = times * offset
                full_hi = full_lo + times * (n - 1)
                marks = sorted({full_lo - 2, full_lo, full_lo + 1, full_lo + 3, full_hi - 1, full_hi, full_hi + 4})
                for c_lo in marks:
                    for c_hi in marks + [c_lo + 7, c_lo + 8, c_lo - 1]:
                        got = D._window(base, times, _GivenCut(c_lo, c_hi), 1e-9)
                        lo, size, kept = _window_by_search(full_lo, full_hi, n, c_lo, c_hi)
                        assert got == (lo, size, kept), (n, offset, times, c_lo, c_hi)
                        edges["single"] += kept == 1 and full_hi > full_lo
                        edges["pow2"] += kept == size > n
                        edges["fits"] += full_hi - full_lo + 1 == size
                        edges["short"] += full_hi - full_lo + 2 == size
    assert all(edges.values()), edges  # each edge is met (else the check could not fail there)


@pytest.mark.parametrize(("times", "rel", "max_bins"), [
    (3, F(1, 10**12), D.DEFAULT_MAX_BINS), (3, F(5, 10**12), D.DEFAULT_MAX_BINS),
    (2, F(2, 10**12), D.DEFAULT_MAX_BINS), (3, F(1, 10**13), D.DEFAULT_MAX_BINS),
    (3, F(1, 10**12), 4 * 1276),  # the first grid (1276 bins) may be halved twice only
])
def test_upper_below_jumps_to_the_grid_the_estimate_asks_for(monkeypatch, times: int, rel: F,
                                                             max_bins: int) -> None:
    # a grid bound above the target: the next grid is ceil(log2(over/room)) halvings finer (at
    # most 6, and no more than fit the bin budget), over = bound − estimate, room =
    # 0.8·(target − estimate) (so over/room > 1.25: at least 1); the bound returned is certified
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(11, 10), times)
    target, estimate = exact * (1 + rel), float(exact)
    calls: list[tuple[int, Certified]] = []
    real = D.discretised_delta

    def spy(pld, eps, t, h_exp, **kw):  # type: ignore[no-untyped-def]
        calls.append((h_exp, real(pld, eps, t, h_exp, **kw)))
        return calls[-1][1]

    monkeypatch.setattr(D, "discretised_delta", spy)
    c = D.upper_below([pld], "ln(11/10)", times, target, estimate=estimate, exact_budget=0,
                      max_bins=max_bins)
    assert len(calls) >= 2 and exact <= c.upper
    for (h, g), (h_next, _) in zip(calls, calls[1:]):
        assert g.upper > target
        over, room = float(g.upper) - estimate, (float(target) - estimate) * 0.8
        assert over / room > 1.25
        jump = min(6, math.ceil(math.log2(over / room)), D._halvings_within(g, max_bins))
        assert h - h_next == jump
    # a finer grid whose bound is not below the best so far is the last one tried
    uppers = [g.upper for _, g in calls]
    assert all(i == len(calls) - 1 for i in range(1, len(calls)) if uppers[i] >= min(uppers[:i]))
    assert c.upper == min(uppers)


@pytest.mark.parametrize("estimate", [math.nan, math.inf, -math.inf])
def test_upper_below_ignores_an_estimate_that_is_not_finite(estimate: float) -> None:
    # the estimate is a float screen, not relied on: NaN or an infinity gives the bound of no
    # estimate (0.0), which holds
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(11, 10), 3)
    target = exact * (1 + F(1, 10**12))
    c = D.upper_below([pld], "ln(11/10)", 3, target, estimate=estimate, exact_budget=0)
    assert c == D.upper_below([pld], "ln(11/10)", 3, target, estimate=0.0, exact_budget=0)
    assert exact <= c.upper


# ---- each bins budget admits exactly max_bins; the window's top at the support's top ----------


def test_every_bins_budget_admits_exactly_max_bins() -> None:
    pld = PrivacyLossDistribution.from_exact_laws(_law(6, F(1, 3), 2), _law(5, F(1, 3), 2))
    r0, idx = D._indices(pld, -5)
    base = D._split_base(pld, r0, idx, -5)
    tails = D._Tails([idx[r][1] for r in pld.ratios], list(pld.ratios.values()), 2.0**-5,
                     idx_low=[idx[r][0] for r in pld.ratios])
    # the FFT power: its work measure is the kept Chernoff range
    _, _, kept = D._window(base, 50, tails, 1e-12)
    assert D._power(base, 50, tails, 1e-12, kept)[1] == kept
    with pytest.raises(D._TooBig):
        D._power(base, 50, tails, 1e-12, kept - 1)
    # the direct power: the whole T-fold support, T·(n − 1) + 1 bins
    full = 5 * (len(base.data) - 1) + 1
    assert D._direct_power(base, 5, full)[1] == full
    with pytest.raises(D._TooBig):
        D._direct_power(base, 5, full - 1)
    # one release's grid: last − first + 1 bins
    one = max(j for _, j in idx.values()) - min(i for i, _ in idx.values()) + 1
    D._check_grid_work(3, -5, idx, one)
    with pytest.raises(CertificationError, match=f"needs {one} bins"):
        D._check_grid_work(3, -5, idx, one - 1)


# most mass at the largest loss, three light atoms below: the T-fold window sits at the top of
# the full range and cuts only the lower tail
HIGH_HEAVY = PrivacyLossDistribution({F(i + 1, 3): F(m, 100) for i, m in enumerate((1, 1, 1, 97))})


def test_mass_below_a_window_cut_only_at_the_bottom_is_charged_and_nothing_above_it() -> None:
    pld, times, h_exp, tau = HIGH_HEAVY, 10, -5, 1e-3
    base, tails, lo, size = _window_of(pld, times, h_exp, tau)
    full_lo = times * base.offset
    full_hi = full_lo + times * (len(base.data) - 1)
    assert full_lo < lo and lo + size - 1 == full_hi  # bottom cut only, the top at the support's
    vec, _ = D._power(base, times, tails, tau, 2**20)
    assert vec.extra == tails.bound(times, lo, None) > 0
    exact = pld.self_compose(times).delta_certified(0).upper
    c = D.discretised_delta(pld, 0, times, h_exp, tail_mass=tau)
    assert c.lower <= exact <= c.upper


def test_direct_convolution_flushes_only_entries_below_1e_290() -> None:
    # an entry of exactly 1e-290 is kept; one ulp below it is flushed to 0 (charged √n·1e-290)
    one = D._Vec(np.array([1.0]), 0, 0.0, 0.0)
    for v, kept in ((1e-290, 1e-290), (math.nextafter(1e-290, 0), 0.0)):
        c = D._convolve(D._Vec(np.array([v, 0.5]), 0, 0.0, 0.0), one)
        assert c.data.tolist() == [kept, 0.5]


# ---- ties of enclose_deltas, upper_below, direct_delta and _intersect at their documented
# boundaries: each rule's equality case, forced with stubbed enclosures (milliseconds each).
# Every enclosure is sound whichever way a tie goes; these pin the documented rule (≤ or <).

THREE_P = {0: F(1, 2), 1: F(1, 3), 2: F(1, 6)}
THREE_Q = {0: F(1, 6), 1: F(1, 3), 2: F(1, 2)}


def _three() -> PrivacyLossDistribution:
    pld = PrivacyLossDistribution.from_exact_laws(THREE_P, THREE_Q)
    # 9 ratio products and 9 tuples at T = 2; no dominant atom
    assert D.exact_compose_cost(pld, 2) == 9 == D.direct_tuples(pld, 2) and not sparse_promising(pld, 2)
    return pld


def _grid_stub(monkeypatch, ends) -> list:  # type: ignore[no-untyped-def]
    """Stub enclose_deltas' grid enclosures: the k-th call returns ends(k) (lower, upper)."""
    grids: list = []

    def stub(pld, eps, times, h_exp, tail, max_bins, lower_only=False, fft=True):  # type: ignore[no-untyped-def]
        lo, hi = ends(len(grids))
        grids.append(h_exp)
        return Certified(lo, hi, f"grid {len(grids)}", {"h_exp": h_exp, "bins": 2, "mode": "discretised"})

    monkeypatch.setattr(D, "_discrete", stub)
    return grids


def _no(what: str):  # type: ignore[no-untyped-def]
    def fail(*args, **kw):  # type: ignore[no-untyped-def]
        raise AssertionError(f"{what} ran")
    return fail


def test_enclose_deltas_stops_at_an_upper_end_exactly_at_the_target(monkeypatch) -> None:
    # rtol 3/4: the grid's target is (1 + 1/4)·lower; an upper end exactly there is done
    grids = _grid_stub(monkeypatch, lambda k: (F(1, 2), F(5, 8)))
    (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0.75, exact_budget=0)
    assert len(grids) == 1 and c.upper == F(5, 8)


def test_enclose_deltas_target_exactly_at_the_grid_floor_stays_on_the_grid(monkeypatch) -> None:
    # lower 4/5·1e-12 at rtol 3/4: the target is exactly DISCRETE_FLOOR = 1e-12, not below it
    low = F(4, 5 * 10**12)
    grids = _grid_stub(monkeypatch, lambda k: (low, 2 * low))
    monkeypatch.setattr(D, "direct_delta", _no("the direct sum"))
    (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0.75, exact_budget=0, fallback_budget=0)
    assert low * F(5, 4) == F(1, 10**12) and len(grids) == 2 and c.details["mode"] == "discretised"


def test_enclose_deltas_below_the_floor_direct_sum_ties(monkeypatch) -> None:
    # below the floor the direct sum is kept when its upper end is exactly the target, or when
    # its width is exactly a hundredth of the grid's (then no grid runs again)
    low = F(4, 10**13)  # target (5/4)·low = 5e-13 at rtol 3/4
    for direct, grid_hi in (((low, low * F(5, 4)), 2 * low), ((F(6, 10**13), F(7, 10**13)), low + F(1, 10**11))):
        grids = _grid_stub(monkeypatch, lambda k, hi=grid_hi: (low, hi))
        monkeypatch.setattr(D, "direct_delta", lambda pld, eps, times, d=direct: Certified(d[0], d[1], "direct", {}))
        (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0.75, exact_budget=0, fallback_budget=0)
        assert len(grids) == 1 and (c.lower, c.upper) == direct and c.details["mode"] == "direct"


def test_enclose_deltas_below_the_floor_takes_the_direct_sum_at_exactly_its_tuple_cap(monkeypatch) -> None:
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 9)
    (c,) = D.enclose_deltas([_pld()], EPS, 2, exact_budget=0)
    assert c.details["mode"] == "direct"
    exact = _hs(P, Q, E_X, 2)
    (e,) = D.enclose_deltas([_pld()], EPS, 2, exact_budget=0, fallback_budget=9)
    assert c.lower <= exact <= c.upper and e.details["mode"] == "direct"
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 8)
    (e,) = D.enclose_deltas([_pld()], EPS, 2, exact_budget=0, fallback_budget=9)  # cost 9: exact
    assert e.details["mode"] == "exact" and e.lower == exact == e.upper


def test_enclose_deltas_refines_with_a_zero_largest_lower_end(monkeypatch) -> None:
    # no lower end above 0 (target 0, below the floor; no direct sum, no exact): the grid is
    # refined one halving at a time, never dividing by the zero room
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 0)
    grids = _grid_stub(monkeypatch, lambda k: (F(0), F(1, 2)))
    (c,) = D.enclose_deltas([_three()], 1, 2, exact_budget=0, fallback_budget=0)
    assert grids[1] == grids[0] - 1 and len(grids) == 2 and c.upper == F(1, 2)


def test_enclose_deltas_refines_again_after_a_width_shrunk_to_exactly_three_quarters(monkeypatch) -> None:
    # widths 1/4, 3/16 (exactly 3/4 of it: still shrinking), 3/16 (not: stop) at rtol 0
    widths = [F(1, 4), F(3, 16), F(3, 16)]
    grids = _grid_stub(monkeypatch, lambda k: (F(1, 2), F(1, 2) + widths[min(k, 2)]))
    D.enclose_deltas([_three()], 1, 2, rtol=0, exact_budget=0)
    assert len(grids) == 3


def test_enclose_deltas_keeps_the_finer_of_two_equally_wide_grids(monkeypatch) -> None:
    grids = _grid_stub(monkeypatch, lambda k: (F(1, 2) + F(k, 8), F(3, 4) + F(k, 8)))
    (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0, exact_budget=0)
    assert len(grids) == 2 and c.how == "grid 2"


def _upper_stub(monkeypatch, upper) -> list:  # type: ignore[no-untyped-def]
    """Stub upper_below's grid bounds: the k-th call's upper end is upper(k)."""
    grids: list = []

    def stub(pld, eps, times, h_exp, **kw):  # type: ignore[no-untyped-def]
        hi = upper(len(grids))
        grids.append(h_exp)
        return Certified(F(0), hi, f"grid {len(grids)}", {"h_exp": h_exp, "bins": 2})

    monkeypatch.setattr(D, "discretised_delta", stub)
    return grids


def test_upper_below_target_exactly_at_the_grid_floor_stays_on_the_grid(monkeypatch) -> None:
    monkeypatch.setattr(D, "direct_delta", _no("the direct sum"))
    grids = _upper_stub(monkeypatch, lambda k: D.DISCRETE_FLOOR / 2)
    c = D.upper_below([_three()], 1, 2, F(1, 10**12), exact_budget=0, fallback_budget=0)
    assert len(grids) == 1 and c.details["mode"] == "discretised"


def test_upper_below_below_the_floor_prefers_a_direct_sum_exactly_at_the_target(monkeypatch) -> None:
    # the quick direct sum (exactly at its tuple cap) is tried before the sparse enclosure and is
    # kept when its upper end is exactly the target; the sparse route is not asked
    from dps_verify.inverse import pld_sparse

    target = F(1, 10**13)
    monkeypatch.setattr(D, "DIRECT_QUICK_TUPLES", 9)
    monkeypatch.setattr(D, "direct_delta", lambda pld, eps, times: Certified(target / 2, target, "direct", {"mode": "direct"}))
    monkeypatch.setattr(pld_sparse, "sparse_promising", lambda pld, times: True)
    monkeypatch.setattr(pld_sparse, "sparse_delta", _no("the sparse enclosure"))
    c = D.upper_below([_three()], 1, 2, target, exact_budget=0)
    assert c.how == "direct" and c.upper == target


def test_upper_below_keeps_a_sparse_bound_exactly_at_the_target(monkeypatch) -> None:
    from dps_verify.inverse import pld_sparse

    target = F(1, 1000)
    monkeypatch.setattr(pld_sparse, "sparse_promising", lambda pld, times: True)
    monkeypatch.setattr(pld_sparse, "sparse_delta",
                        lambda pld, eps, times, rtol, floor: Certified(F(0), target, "sparse", {"mode": "sparse"}))
    monkeypatch.setattr(D, "discretised_delta", _no("a grid"))
    c = D.upper_below([_three()], 1, 2, target, exact_budget=0)
    assert c.how == "sparse" and c.upper == target


def test_upper_below_below_the_floor_direct_sum_at_exactly_its_cap_and_at_the_target(monkeypatch) -> None:
    # not quick (cap 0): the direct sum runs at exactly DIRECT_MAX_TUPLES = 9 tuples; at the
    # target exactly it is kept even though the exact PLD is affordable
    target = F(1, 10**13)
    monkeypatch.setattr(D, "DIRECT_QUICK_TUPLES", 0)
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 9)
    monkeypatch.setattr(D, "direct_delta", lambda pld, eps, times: Certified(target / 2, target, "direct", {"mode": "direct"}))
    monkeypatch.setattr(D, "discretised_delta", _no("a grid"))
    for fallback in (0, 9):
        c = D.upper_below([_three()], 1, 2, target, exact_budget=0, fallback_budget=fallback)
        assert c.how == "direct" and c.details["mode"] == "direct"


def test_upper_below_grid_loop_ties(monkeypatch) -> None:
    target = F(1, 1000)
    # an upper end exactly at the target: done after one grid, no exact PLD (cost 9 <= 100)
    grids = _upper_stub(monkeypatch, lambda k: target)
    c = D.upper_below([_three()], 1, 2, target, exact_budget=100)
    assert len(grids) == 1 and c.details["mode"] == "discretised" and c.upper == target
    # a finer grid no better than the best (equal upper ends): stop after it
    grids = _upper_stub(monkeypatch, lambda k: 2 * target)
    c = D.upper_below([_three()], 1, 2, target, exact_budget=0)
    assert len(grids) == 2 and c.how == "grid 1"
    # the grid misses the target: the exact PLD at a cost exactly its budget (9)
    grids = _upper_stub(monkeypatch, lambda k: 2 * target)
    c = D.upper_below([_three()], 1, 2, target, exact_budget=9)
    assert len(grids) == 2 and c.details["mode"] == "exact"


def test_direct_delta_sums_exactly_up_to_its_tuple_cap(monkeypatch) -> None:
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 9)
    exact = _hs(THREE_P, THREE_Q, F(2), 2)
    c = D.direct_delta(_three(), "ln(2)", 2)
    assert c.lower <= exact <= c.upper
    monkeypatch.setattr(D, "DIRECT_MAX_TUPLES", 8)
    with pytest.raises(CertificationError, match="more than 8 tuples"):
        D.direct_delta(_three(), "ln(2)", 2)


def test_intersect_of_touching_enclosures_is_the_point_and_a_tie_keeps_the_first_text() -> None:
    a = Certified(F(1, 4), F(1, 2), "first", {"k": 1})
    b = Certified(F(1, 2), F(3, 4), "second", {"k": 2})
    c = D._intersect(a, b)
    assert (c.lower, c.upper, c.how, c.details) == (F(1, 2), F(1, 2), "first", {"k": 1})
    c = D._intersect(b, a)
    assert (c.lower, c.upper, c.how) == (F(1, 2), F(1, 2), "second")


def test_upper_below_tries_coarser_grids_up_to_the_coarsest_and_no_further(monkeypatch) -> None:
    # every grid over the bin budget (stubbed): from the first grid one halving coarser at a
    # time up to the coarsest (about 256 bins across the losses), then the refusal names it
    grids: list = []

    def over(pld, eps, times, h_exp, **kw):  # type: ignore[no-untyped-def]
        grids.append(h_exp)
        raise CertificationError("over the budget")

    monkeypatch.setattr(D, "discretised_delta", over)
    pld = _three()
    coarsest = math.floor(math.log2(D._loss_span(pld) / 256))
    assert not sparse_promising(pld, 16)
    with pytest.raises(CertificationError, match=rf"even the grid h = 2\^{coarsest} needs more"):
        D.upper_below([pld], 1, 16, F(1, 1000), exact_budget=0)
    assert grids == [coarsest - 2, coarsest - 1, coarsest]  # the first: coarsest − ⌊log2(16)/2⌋


def test_enclose_deltas_sends_a_sparse_enclosure_just_past_rtol_to_the_grid(monkeypatch) -> None:
    # the complement of keeping one exactly within rtol: [L, (1 + rtol)·L + 2^-60] is refined on
    # the grid (sparse_delta stubbed; the grid enclosure recorded)
    from dps_verify.inverse import pld_sparse

    low = F(1, 1000)
    monkeypatch.setattr(pld_sparse, "sparse_delta",
                        lambda pld, eps, times, *, rtol, floor, max_atoms: Certified(
                            low, low * F(5, 4) + F(1, 2**60), "sparse", {"mode": "sparse"}))
    grids = _grid_stub(monkeypatch, lambda k: (low, low * F(9, 8)))
    a = PrivacyLossDistribution.from_exact_laws(_law(3, F(1, 100), 2), _law(2, F(1, 100), 2))
    (c,) = D.enclose_deltas([a], "ln(2)", 40, rtol=0.25, exact_budget=0)
    assert grids and c.upper == low * F(9, 8)  # the grid ran; its upper end is the narrower


def test_coarsest_grid_has_about_256_bins_across_a_span_just_below_one() -> None:
    # loss span ln(7307/2693) = 0.99817 in [255/256, 1): 2^floor(log2(span/256)) = 2^-9 (with 255
    # bins it would be 2^-8); both enclose_deltas and upper_below start there (T = 1 and T = 2)
    pld = PrivacyLossDistribution.from_exact_laws({0: F(1, 2), 1: F(1, 2)}, {0: F(2693, 10000), 1: F(7307, 10000)})
    assert 255 / 256 <= D._loss_span(pld) < 1
    (c,) = D.enclose_deltas([pld], "ln(11/10)", 2, exact_budget=0, rtol=10.0)
    assert c.details["h_exp"] == -9
    u = D.upper_below([pld], "ln(11/10)", 2, F(1), exact_budget=0)
    assert u.details["h_exps"] == [-9]


def test_enclose_deltas_refines_only_grids_whose_double_fits_the_bin_budget(monkeypatch) -> None:
    # a grid of 3 bins with max_bins = 5: the next grid (about 6 bins) would not fit, so the
    # first grid is the answer (rtol 0 never met; grid enclosures stubbed)
    calls: list = []

    def stub(pld, eps, times, h_exp, tail, max_bins, lower_only=False, fft=True):  # type: ignore[no-untyped-def]
        calls.append(h_exp)
        return Certified(F(1, 2), F(3, 4), "grid", {"h_exp": h_exp, "bins": 3, "mode": "discretised"})

    monkeypatch.setattr(D, "_discrete", stub)
    D.enclose_deltas([_three()], 1, 2, rtol=0, exact_budget=0, max_bins=5)
    assert len(calls) == 1
    calls.clear()
    D.enclose_deltas([_three()], 1, 2, rtol=0, exact_budget=0, max_bins=6)  # 3 · 2 <= 6: refined
    assert len(calls) == 2


def test_enclose_deltas_stops_when_the_next_grid_is_refused_without_retrying_the_same_grid(monkeypatch) -> None:
    # rtol 0: one halving at a time; the finer grid is over the budget (stubbed refusal), so the
    # coarser grid's enclosure stands and no grid is computed again
    calls: list = []

    def stub(pld, eps, times, h_exp, tail, max_bins, lower_only=False, fft=True):  # type: ignore[no-untyped-def]
        calls.append(h_exp)
        if len(calls) > 1:
            raise CertificationError("over the budget")
        return Certified(F(1, 2), F(3, 4), "grid", {"h_exp": h_exp, "bins": 2, "mode": "discretised"})

    monkeypatch.setattr(D, "_discrete", stub)
    (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0, exact_budget=0)
    assert calls == [calls[0], calls[0] - 1] and (c.lower, c.upper) == (F(1, 2), F(3, 4))


def test_enclose_deltas_falls_back_to_one_halving_when_the_jump_grid_is_refused(monkeypatch) -> None:
    # rtol 0.3 (grid rtol 0.1), first grid [1/2, 1]: the documented jump is
    # ceil(log2((1/2) / (0.7 · 1/2 · 0.1))) = 4 halvings; that grid is refused (stubbed), so one
    # halving is tried next, which meets the target 0.55
    calls: list = []

    def stub(pld, eps, times, h_exp, tail, max_bins, lower_only=False, fft=True):  # type: ignore[no-untyped-def]
        calls.append(h_exp)
        if len(calls) == 1 or h_exp == calls[0]:
            return Certified(F(1, 2), F(1), "first", {"h_exp": h_exp, "bins": 2, "mode": "discretised"})
        if h_exp == calls[0] - 4:
            raise CertificationError("over the budget")
        return Certified(F(1, 2), F(11, 20), "finer", {"h_exp": h_exp, "bins": 4, "mode": "discretised"})

    monkeypatch.setattr(D, "_discrete", stub)
    (c,) = D.enclose_deltas([_three()], 1, 2, rtol=0.3, exact_budget=0)
    assert calls == [calls[0], calls[0] - 4, calls[0] - 1] and c.upper == F(11, 20)
