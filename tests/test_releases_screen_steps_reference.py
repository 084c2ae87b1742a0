"""inverse.releases' screened algorithm against references computed from the definition
(CP Def. 2, CP §2.7) with nothing of the module's arithmetic.  The float screen: where the T-fold
loss law is longer than the FFT it is folded onto a window, which must sit on the Chernoff range
of the loss (a misplaced window aliases the bulk of the law a window-length away; reference: the
exact binomial law of a two-atom loss); where the backward direction (the smaller group's law
against the larger one's) has the larger T-fold δ the screen reports it (reference: every T-tuple
enumerated).  The steps: step 2 visits the sizes in decreasing screen order, and after step 1's
enclosure the tail start is searched again against the raised top.  The screen orders work only
(never a bound): these tests pin it to the estimate and the order the module doc describes."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import _hs, _law


def _two_atom_delta(p1: float, l0: float, l1: float, e: float, times: int) -> float:
    """E[(1 − e^(e − L))⁺] for L the sum of ``times`` independent losses, each l1 with
    probability p1 and l0 otherwise (a binomial lattice: L = T·l0 + j·(l1 − l0))."""
    out = 0.0
    for j in range(times + 1):
        log_pj = (math.lgamma(times + 1) - math.lgamma(j + 1) - math.lgamma(times - j + 1)
                  + j * math.log(p1) + (times - j) * math.log1p(-p1))
        loss = times * l0 + j * (l1 - l0)
        if loss > e:
            out += math.exp(log_pj) * -math.expm1(e - loss)
    return out


@pytest.mark.parametrize(("p1", "l0", "l1", "eps"), [
    (0.5, 0.1, 0.3, 200.0),  # the window in the middle of the composed support, far above 0
    (0.995, 0.1, 0.3, 299.0),  # the window clamped at the top of the composed support
    (0.005, 0.1, 0.3, 101.0),  # the window clamped at its bottom
    (0.5, -0.3, 0.1, -99.0),  # negative losses: the window far below 0
])
def test_folded_screen_reads_the_window_around_the_chernoff_range(p1: float, l0: float, l1: float,
                                                                  eps: float) -> None:
    # 1000 releases of a two-atom loss on 4096 bins: the composed grid law is ~10^4 bins long,
    # so it is folded; the exact law is binomial.  Within 2 % (grid splitting of the lattice);
    # a window off by half its length reads the bulk a window-length too high or too low
    times, bins = 1000, 1 << 12
    logp, ell = np.log(np.array([1 - p1, p1])), np.array([l0, l1])
    ref = _two_atom_delta(p1, l0, l1, eps, times)
    assert 0.1 < ref < 0.9
    s = R._screen_direction(logp, ell, 0.0, eps, times, bins)
    assert s == pytest.approx(ref, rel=0.02)


def test_screen_of_one_direction_adds_the_mass_at_infinite_loss() -> None:
    # each release has infinite loss with probability p_inf: the T-fold law has mass
    # 1 − (1 − p_inf)^T there, and the rest is the two-atom law's T-fold sum scaled by
    # (1 − p_inf)^T (the finite atoms here are the two-atom law times 1 − p_inf)
    times, p_inf = 1000, 1e-4
    logp, ell = np.log(np.array([0.5, 0.5]) * (1 - p_inf)), np.array([0.1, 0.3])
    ref = -math.expm1(times * math.log1p(-p_inf)) + (1 - p_inf) ** times * _two_atom_delta(
        0.5, 0.1, 0.3, 200.0, times)
    s = R._screen_direction(logp, ell, p_inf, 200.0, times, 1 << 12)
    assert s == pytest.approx(ref, rel=0.02)


@pytest.mark.parametrize(("k", "n", "beta", "x", "times"), [
    (1, 2, F(1, 4), F(11, 10), 2),  # backward 0.2145 against forward 0.2023
    (1, 3, F(1, 10), F(11, 10), 3),  # backward 0.1053 against forward 0.0995
])
def test_screen_delta_of_a_backward_dominated_pair_is_the_exact_delta(k: int, n: int, beta: F, x: F,
                                                                       times: int) -> None:
    # the backward direction (U_(n-1) against U_n, thresholded at k) has the larger exact T-fold
    # delta by about 6 %, so the screen must report it (float, within 1e-6 of the exact value)
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    fwd, bwd = _hs(p, q, x, times), _hs(q, p, x, times)
    assert bwd > fwd * F(105, 100)
    assert abs(R.screen_delta(n, k, beta, math.log(x), times) / float(bwd) - 1) < 1e-6


def test_screened_second_step_visits_sizes_in_decreasing_screen_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # a made-up screen with ties: step 1 encloses its first largest size (k + 1); step 2 then
    # asks every other size below the tail start for its cheap bound in decreasing screen order,
    # equal screens in increasing n (the module doc, step 4); the order only moves work, so the
    # result must still enclose the exact worst case (CP Def. 2, every T-tuple enumerated)
    from tests.test_releases_exact_reference import exact_delta

    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    levels = (0.9, 0.3, 0.9, 0.6, 0.3, 0.6)

    def fake(n: int, *args: object, **kw: object) -> float:
        return levels[(n - k - 1) % len(levels)]

    visited: list[int] = []
    real = R._thresholded_bound

    def spy(n: int, *args: object, **kw: object) -> F:
        visited.append(n)
        return real(n, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(R, "_screen_delta", fake)
    monkeypatch.setattr(R, "_thresholded_bound", spy)
    r = R.releases_delta(k, beta, "ln(11/10)", times)
    assert r.tail_from >= k + 8
    assert r.enclosed[:2] == (k, k + 1)
    expected = sorted((n for n in range(k + 2, r.tail_from)), key=lambda n: (-fake(n), n))
    assert visited == expected
    worst = max(exact_delta(n, k, beta, x, times) for n in range(k, 9))
    assert r.delta.lower <= worst <= r.delta.upper


@pytest.mark.parametrize(("k", "beta", "eps", "times"), [
    (2, F(1, 10), "ln(11/10)", 4),  # n = 5 enclosed in step 1: the tail start moves from 28 to 15
    (5, F(1, 3), "ln(2)", 2),  # n = 6: from 18 to 13
])
def test_screened_tail_start_is_searched_again_after_the_first_enclosure(k: int, beta: F, eps: str,
                                                                        times: int) -> None:
    # the module doc, step 3: once the screen's argmax is enclosed, the target is its larger
    # upper end and the tail start is searched again against it: the size used is one whose
    # untruncated bound is within the raised top while the size before it is not (the search's
    # certified local boundary), below where the search against n = k alone ended
    from dps_verify.core.params import epsilon_param

    r = R.releases_delta(k, beta, eps, times)
    e = epsilon_param(eps)
    assert len(r.enclosed) == 2  # k and the screen's argmax; nothing enclosed in step 2
    encl = [R.pair_delta_enclosure(*R.group_pair(n, k, beta), e, times, rtol=0.01) for n in r.enclosed]
    top, top_k = max(c.upper for c in encl), encl[0].upper

    def untr(a: int) -> F:
        return R.untruncated_bound(a, beta, e, times)

    assert untr(r.tail_from) <= max(top, R.ATOL) < untr(r.tail_from - 1)
    assert untr(r.tail_from) > top_k  # against n = k alone the tail would start later
    assert r.tail_bound == untr(r.tail_from) and r.scanned == (k, r.tail_from - 1)


@pytest.mark.parametrize(("k", "beta", "eps", "times"), [
    (2, F(1, 10), "ln(11/10)", 4),  # step 1 runs twice (an enclosure, the tail searched again)
    (5, F(1, 3), "ln(2)", 2),
])
def test_screened_algorithm_screens_each_size_at_most_once_per_length(monkeypatch: pytest.MonkeyPatch,
                                                                      k: int, beta: F, eps: str,
                                                                      times: int) -> None:
    # a size's coarse screen is kept once made, and a size screened again at the fine length is
    # never screened there a second time (in step 1's second pass nor in step 2): the screens
    # are deterministic, so a repeat is only work
    seen: list[tuple[int, int]] = []
    real = R._screen_delta

    def spy(n: int, kk: int, b: F, e: float, t: int, bins: int = R.SCREEN_BINS[1]) -> float:
        seen.append((n, bins))
        return real(n, kk, b, e, t, bins)

    monkeypatch.setattr(R, "_screen_delta", spy)
    r = R.releases_delta(k, beta, eps, times)
    assert len(seen) == len(set(seen))
    assert set(range(k + 1, r.tail_from)) <= {n for n, _ in seen}  # every size below the tail
    assert any(bins == R.SCREEN_BINS[1] for _, bins in seen)


def test_screened_result_names_the_sparse_route_when_no_grid_was_used() -> None:
    # k = 3, β = 1/1000, ε = 1/2, T = 20: the groups above k are almost always suppressed, so
    # their δ (about 1e-7) is certified by the sparse enclosure (exact in ball arithmetic up to a
    # union-bound remainder), no discretised grid anywhere: the result's mode says "sparse"
    r = R.releases_delta(3, F(1, 1000), "1/2", 20)
    kinds = set(r.details["bounds_by_kind"])
    assert "sparse" in kinds and "discretised" not in kinds
    assert r.mode == "sparse" == r.delta.details["mode"]
    assert 0 < r.delta.lower <= r.delta.upper < F(1, 10**6)


def test_screened_result_of_exact_enclosures_and_cheap_bounds_is_exact() -> None:
    # k = 2, β = 10^-4, ε = 1, T = 1000: n = k is enclosed exactly and the three sizes below the
    # tail start are settled by their Chernoff/TV bounds (no grid, no sparse sum): the result's
    # mode is "exact" (a cheap bound is a closed-form ball bound, not a route of its own)
    r = R.releases_delta(2, F(1, 10**4), "1", 1000)
    assert r.enclosed == (2,) and set(r.details["bounds_by_kind"]) == {"cheap"}
    assert r.mode == "exact" == r.delta.details["mode"]


def test_screened_first_step_refines_every_size_when_the_screen_is_zero_everywhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a screen of 0.0 for every size: the peak is 0 and every screened size is within
    # SCREEN_BAND of it (0·1.05 >= 0), so each is screened again at the fine length, once; the
    # result still holds (the screen only orders work)
    from tests.test_releases_exact_reference import exact_delta

    seen: list[tuple[int, int]] = []

    def zero(n: int, kk: int, b: F, e: float, t: int, bins: int = R.SCREEN_BINS[1]) -> float:
        seen.append((n, bins))
        return 0.0

    monkeypatch.setattr(R, "_screen_delta", zero)
    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    r = R.releases_delta(k, beta, "ln(11/10)", times)
    coarse = [n for n, bins in seen if bins == R.SCREEN_BINS[0]]
    fine = [n for n, bins in seen if bins == R.SCREEN_BINS[1]]
    assert coarse == list(range(k + 1, r.tail_from)) and sorted(fine) == coarse
    assert max(exact_delta(n, k, beta, x, times) for n in range(k, k + 6)) <= r.delta.upper


def test_untruncated_screen_is_the_split_grid_estimate_without_a_suppressed_atom() -> None:
    # k = 0: no threshold, so no "suppressed" atom (an empty sum of masses would add an atom of
    # log-mass -inf whose loss -inf - (-inf) is not a number); the screen is the estimate of the
    # untruncated pair's finite atoms (counts 0..n-1) and raises no floating-point warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = R.screen_delta(5, 0, F(1, 3), 1.0, 3, 1 << 12)
    p, q = _law(5, F(1, 3), 0), _law(4, F(1, 3), 0)
    ref = max(float(_hs(p, q, F(math.e), 3)), float(_hs(q, p, F(math.e), 3)))
    assert s == pytest.approx(ref, rel=1e-3)


@pytest.mark.parametrize("width", [F(3, 2), F(1)])
def test_screened_step_two_takes_a_direct_bound_as_an_enclosure_only_within_rtol(
        monkeypatch: pytest.MonkeyPatch, width: F) -> None:
    # a made-up screen peaking at k + 1 leaves the worst size n = 5 to step 2, whose bound
    # for it is a valid but wide "direct" interval [δ, width·δ] (width 1: the vacuous upper end 1).
    # Such a bound misses the target; it may stand for the size's enclosure only when its upper
    # end is within (1 + rtol) of its lower end, so here n = 5 is enclosed in full and the
    # result is as narrow as asked (a wide interval taken as the enclosure would set the upper end)
    from dps_verify.core.numbers import Certified
    from tests.test_releases_exact_reference import exact_delta

    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    worst = exact_delta(5, k, beta, x, times)
    real = R.upper_below

    def ub(plds, e, t, target, **kw):  # type: ignore[no-untyped-def]
        if plds[0].infinity_mass == beta**5:  # the worst size (its count 5 has mass β^5)
            return Certified(worst, worst * width if width > 1 else F(1), "wide", {"mode": "direct"})
        return real(plds, e, t, target, **kw)

    monkeypatch.setattr(R, "_screen_delta", lambda n, *a, **kw: 1.0 if n == k + 1 else 0.25)
    monkeypatch.setattr(R, "upper_below", ub)
    r = R.releases_delta(k, beta, "ln(11/10)", times)
    assert 5 in r.enclosed and 5 < r.tail_from
    assert r.delta.lower <= worst <= r.delta.upper <= r.delta.lower * F(101, 100)


@pytest.mark.parametrize(("mode", "width"), [("exact", F(1)), ("direct", F(1)),
                                             ("direct", F(1 + 0.01))])
def test_screened_step_two_takes_a_narrow_exact_or_direct_bound_as_the_enclosure(
        monkeypatch: pytest.MonkeyPatch, mode: str, width: F) -> None:
    # as above, but step 2's bound for the worst size n = 5 is [δ, width·δ] with its exact δ
    # (a point, or exactly (1 + rtol) wide: the boundary, in): it misses the target, yet it
    # already encloses δ_T(5) within rtol, so it stands for that size's enclosure and no second
    # enclosure of n = 5 is made
    from dps_verify.core.numbers import Certified
    from tests.test_releases_exact_reference import exact_delta

    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    worst = exact_delta(5, k, beta, x, times)
    real_ub, real_encl = R.upper_below, R.pair_delta_enclosure
    enclosed: list[int] = []

    def ub(plds, e, t, target, **kw):  # type: ignore[no-untyped-def]
        if plds[0].infinity_mass == beta**5:  # the worst size (its count 5 has mass β^5)
            return Certified(worst, worst * width, "narrow", {"mode": mode})
        return real_ub(plds, e, t, target, **kw)

    def encl(p: dict, q: dict, *args: object, **kw: object) -> Certified:
        enclosed.append(max(o for o in p if o is not None))
        return real_encl(p, q, *args, **kw)  # type: ignore[arg-type]

    # step 1 encloses k + 1 (the screen's peak); step 2 visits n = 5 first (the next largest
    # screen), while the target is still set by n = 2, 3 (below δ_T(5))
    monkeypatch.setattr(R, "_screen_delta", lambda n, *a, **kw: {k + 1: 1.0, 5: 0.5}.get(n, 0.25))
    monkeypatch.setattr(R, "upper_below", ub)
    monkeypatch.setattr(R, "pair_delta_enclosure", encl)
    r = R.releases_delta(k, beta, "ln(11/10)", times)
    assert 5 in r.enclosed and 5 not in enclosed and enclosed[:2] == [k, k + 1]
    assert r.delta.lower == worst and r.delta.upper == worst * width
