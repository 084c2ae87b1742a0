"""The work schedule of inverse.pld_discrete's refinement loops, as documented: which grids
:func:`enclose_deltas` and :func:`upper_below` try, with which tail mass per Chernoff cut, and
when :func:`enclose_deltas` refines the lower end alone.  Every enclosure is sound whatever the
schedule (other tests check them against the exact T-fold δ); these tests pin the schedule's
observable effect, so that a changed jump, tail or stopping rule is seen.  Each grid tried is
recorded by a spy around the module's grid enclosure and checked against the documented rule,
re-derived here from the recorded enclosures (exact Fractions): a jump is the fewest halvings
n in [1, 6] that should bring the width within the allowed room (the rounding part of the width
halves with h), capped by the bins budget; the tail mass per cut is the largest one in
[1e-18, 1e-10] whose cuts together take at most a fiftieth of the allowed width."""

from __future__ import annotations

import math
from fractions import Fraction as F
from typing import Any

import pytest

from dps_verify.core.numbers import Certified
from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution
from tests.test_releases_exact_reference import _law


def _fewest_halvings(over: F, room: F) -> int:
    """Fewest n in [1, 6] with over / 2^n <= room (6 if none; 1 without a positive room)."""
    if room <= 0 or over <= 0:
        return 1
    for n in range(1, 7):
        if over <= room * 2**n:
            return n
    return 6


def _halvings_in_budget(bins: int, max_bins: int) -> int:
    """Most halvings n >= 1 with bins·2^n <= max_bins (bins double per halving), at least 1."""
    n = 1
    while bins * 2 ** (n + 1) <= max_bins:
        n += 1
    return n


def _cuts(times: int) -> int:
    return 2 * times.bit_length() + 2


def _tail(allowed: float, times: int) -> float:
    """The largest tail mass per cut in [1e-18, 1e-10] whose cuts take at most allowed/50."""
    return min(1e-10, max(1e-18, allowed / 50 / _cuts(times)))


def _coarsest(pld: Any) -> int:
    """About 256 bins across one release's losses: h = 2^floor(log2(span / 256))."""
    logs = [math.log(r.numerator) - math.log(r.denominator) for r in pld.ratios]
    return math.floor(math.log2(max(max(logs) - min(logs), 1e-3) / 256))


@pytest.fixture
def grids(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float, bool, Certified]]:
    """Every grid enclosure enclose_deltas makes: (h_exp, tail mass, lower_only, result)."""
    seen: list[tuple[int, float, bool, Certified]] = []
    real = D._discrete

    def spy(pld: Any, eps: F, times: int, h_exp: int, tail: float, max_bins: int,
            lower_only: bool = False, fft: bool = True) -> Certified:
        c = real(pld, eps, times, h_exp, tail, max_bins, lower_only=lower_only, fft=fft)
        seen.append((h_exp, tail, lower_only, c))
        return c

    monkeypatch.setattr(D, "_discrete", spy)
    return seen


def _check_enclose_schedule(pld: Any, times: int, rtol: float, seen: list, result: Certified,
                            max_bins: int = D.DEFAULT_MAX_BINS) -> None:
    room_rate = F(rtol / 3)  # the grid's target: upper <= (1 + rtol/3)·lower
    h, tail, lower_only, cur = seen[0]
    assert (h, tail, lower_only) == (_coarsest(pld), 1e-11, False)
    settled = False
    for h_new, tail, lower_only, new in seen[1:]:
        lo, width = cur.lower, cur.upper - cur.lower
        assert cur.upper > lo * (1 + room_rate)  # the loop went on: the target was not met
        jump = min(_fewest_halvings(width, lo * room_rate * F(7, 10)),
                   _halvings_in_budget(cur.details["bins"], max_bins))
        assert cur.details["bins"] * 2 <= max_bins  # a finer grid (twice the bins) may fit
        assert h - h_new == jump
        assert tail == pytest.approx(_tail(float(lo * room_rate), times), rel=1e-12, abs=0)
        assert lower_only == settled  # a settled upper end: only the lower chain is refined
        if settled:  # the upper end stays the coarser grid's (the lower chain alone is 1 above)
            assert new.upper == 1
            new = Certified(new.lower, cur.upper, "", new.details)
        else:
            # second order in h: the upper end moved by at most a tenth of the room times
            # (4^halvings - 1) means it has converged
            settled = abs(cur.upper - new.upper) <= lo * room_rate / 10 * (4**jump - 1)
        h = h_new
        shrunk = new.upper - new.lower <= width * F(3, 4)
        if new.upper - new.lower <= width:
            cur = new
        if not shrunk:
            assert h_new == seen[-1][0]  # a width that no longer shrinks stops the refinement
    assert (result.lower, result.upper) == (cur.lower, cur.upper)
    # why the last grid is the last: the target met, a width that stopped shrinking, or no
    # room for a grid of twice the bins
    h, _, _, last = seen[-1]
    met = cur.upper <= cur.lower * (1 + room_rate)
    stalled = len(seen) > 1 and last.upper - last.lower > (seen[-2][3].upper - seen[-2][3].lower) * F(3, 4)
    assert met or stalled or last.details["bins"] * 2 > max_bins or h < D.MIN_H_EXP


def _coin(q0: F) -> PrivacyLossDistribution:
    return PrivacyLossDistribution.from_exact_laws({0: F(1, 2), 1: F(1, 2)}, {0: q0, 1: 1 - q0})


@pytest.mark.parametrize(("q0", "times", "eps", "rtol", "max_bins", "calls"), [
    (F(2, 5), 20, "4", 0.01, D.DEFAULT_MAX_BINS, 2),  # δ = 1.4e-6: the tail from the width allowed
    (F(2, 5), 20, "4", 0.01, 20_000, 2),  # room for twice the first grid's 8,321 bins, not thrice
    (F(9, 20), 30, "2.7", 0.01, D.DEFAULT_MAX_BINS, 2),  # a finer grid that is wider: stops
    (F(2, 5), 12, "2.5", 0.003, D.DEFAULT_MAX_BINS, 1),  # the coarsest grid is narrow enough
    (F(2, 5), 8, "1", 0.0001, D.DEFAULT_MAX_BINS, 2),  # a jump of the most halvings, 6
    (F(9, 20), 30, "1", 0.0001, D.DEFAULT_MAX_BINS, 2),  # a width that shrank by less than 1/4
    (F(1, 3), 8, "1", 0.0001, D.DEFAULT_MAX_BINS, 3),  # three grids
    (F(2, 5), 8, "1", 0.00001, D.DEFAULT_MAX_BINS, 3),  # 10 halvings wanted, 6 jumped
])
def test_enclose_deltas_tries_the_documented_grids_and_tails(grids: list, q0: F, times: int, eps: str,
                                                            rtol: float, max_bins: int, calls: int) -> None:
    (c,) = D.enclose_deltas([_coin(q0)], eps, times, exact_budget=0, rtol=rtol, max_bins=max_bins)
    assert len(grids) == calls
    _check_enclose_schedule(_coin(q0), times, rtol, grids, c, max_bins)


def test_enclose_deltas_refines_against_the_largest_lower_end_of_all_directions(grids: list) -> None:
    # the maximum over two directions is wanted: the one whose upper end is far below the other's
    # lower end keeps its coarsest grid (alone, it would be refined to rtol)
    big, small = _coin(F(1, 3)), _coin(F(9, 20))
    D.enclose_deltas([small], "1", 30, exact_budget=0, rtol=0.0001)
    assert len(grids) == 2
    grids.clear()
    out = D.enclose_deltas([small, big], "1", 30, exact_budget=0, rtol=0.0001)
    assert out[0].upper < out[1].lower
    assert [g[0] for g in grids] == [-11, -9, -15]  # small: coarsest only; big: refined once


def test_enclose_deltas_stops_when_a_finer_grid_shrinks_the_width_by_less_than_a_quarter(grids: list) -> None:
    # the group of 4 records against 5 at beta = 1/2 thresholded at 2, e^eps = 4, T = 12: the
    # second grid's width is 0.84 of the first's and still over the target, yet refining stops
    # there (the narrower kept)
    pld = PrivacyLossDistribution.from_exact_laws(_law(4, F(1, 2), 2), _law(5, F(1, 2), 2))
    (c,) = D.enclose_deltas([pld], "ln(4)", 12, exact_budget=0, rtol=0.01)
    assert len(grids) == 2
    (_, _, _, first), (_, _, _, second) = grids
    w1, w2 = first.upper - first.lower, second.upper - second.lower
    assert w1 * F(3, 4) < w2 < w1 and second.upper > second.lower * (1 + F(0.01 / 3))
    _check_enclose_schedule(pld, 12, 0.01, grids, c)


def test_enclose_deltas_refines_only_the_lower_end_once_the_upper_end_settled(grids: list) -> None:
    # the group of 5 records against 4 at beta = 1/2 thresholded at 2, e^eps = 3, T = 6: the
    # second grid moves the upper end by less than the settling rule allows, so the third grid
    # composes the rounded-down chain alone and the upper end stays the second grid's
    pld = PrivacyLossDistribution.from_exact_laws(_law(5, F(1, 2), 2), _law(4, F(1, 2), 2))
    (c,) = D.enclose_deltas([pld], "ln(3)", 6, exact_budget=0, rtol=0.003)
    assert [g[2] for g in grids] == [False, False, True]
    _check_enclose_schedule(pld, 6, 0.003, grids, c)
    assert c.upper == grids[1][3].upper
    # its text: the third grid's lower-end text, relabelled as an enclosure whose upper end is
    # the second grid's, and one width (of the combined enclosure) at the end
    third = grids[2][3].how.rsplit("; width", 1)[0]
    assert third.startswith("discretised PLD lower bound (rounded-down chain only): ")
    assert c.how == (third.replace("discretised PLD lower bound (rounded-down chain only):",
                                   f"discretised PLD enclosure (upper end from the split chain on the "
                                   f"grid 2^{grids[1][0]}):")
                     + f"; width {float(c.upper - c.lower):.3g}")
    assert c.how.count("; width") == 1 and c.details["upper_h_exp"] == grids[1][0]


def test_enclose_deltas_gives_two_sparse_directions_a_cheap_pass_then_a_full_one(monkeypatch) -> None:
    # with two or more sparse-promising directions each gets a first pass of at most 500 atoms,
    # then a full one (20,000) against the largest lower end then known; a single one gets the
    # full pass at once
    from dps_verify.inverse import pld_sparse

    seen: list[tuple[int, F, int]] = []
    real = pld_sparse.sparse_delta

    def spy(pld: Any, eps: Any, times: int, *, rtol: float, floor: F, max_atoms: int) -> Certified:
        c = real(pld, eps, times, rtol=rtol, floor=floor, max_atoms=max_atoms)
        seen.append((id(pld), floor, max_atoms))
        return c

    monkeypatch.setattr(pld_sparse, "sparse_delta", spy)
    p, q = _law(3, F(1, 100), 2), _law(2, F(1, 100), 2)
    a, b = PrivacyLossDistribution.from_exact_laws(p, q), PrivacyLossDistribution.from_exact_laws(q, p)
    assert pld_sparse.sparse_promising(a, 40) and pld_sparse.sparse_promising(b, 40)
    out = D.enclose_deltas([a, b], "ln(2)", 40, exact_budget=0)
    firsts, seconds = seen[:2], seen[2:]
    assert [(i, m) for i, _, m in firsts] == [(id(a), 500), (id(b), 500)]
    assert [(i, m) for i, _, m in seconds] == [(id(a), 20_000), (id(b), 20_000)]
    assert firsts[0][1] == 0 and seconds[0][1] >= max(firsts[0][1], firsts[1][1])
    assert seconds[0][1] > 0 and len(out) == 2
    seen.clear()
    D.enclose_deltas([a], "ln(2)", 40, exact_budget=0)
    assert [(i, m) for i, _, m in seen] == [(id(a), 20_000)]


@pytest.fixture
def upper_grids(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float, Certified]]:
    """Every grid upper_below tries: (h_exp, tail mass, result)."""
    seen: list[tuple[int, float, Certified]] = []
    real = D.discretised_delta

    def spy(pld: Any, eps: Any, times: int, h_exp: int, **kw: Any) -> Certified:
        assert kw["upper_only"]
        c = real(pld, eps, times, h_exp, **kw)
        seen.append((h_exp, kw["tail_mass"], c))
        return c

    monkeypatch.setattr(D, "discretised_delta", spy)
    return seen


@pytest.mark.parametrize("excess", [F(1, 10**3), F(1, 10**5)])
def test_upper_below_jumps_the_documented_halvings_with_the_documented_tail(upper_grids: list,
                                                                           excess: F) -> None:
    from tests.test_inverse_edges_reference import _hs

    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    exact = _hs(p, q, F(2), 2)
    target = exact * (1 + excess)
    estimate = float(exact) * (1 - 1e-9)
    c = D.upper_below([pld], "ln(2)", 2, target, estimate=estimate, exact_budget=0)
    assert exact <= c.upper <= target and len(upper_grids) >= 2
    tail = min(1e-10, max(1e-18, float(target) / 100 / _cuts(2)))
    h, _, prev = upper_grids[0]
    assert h == _coarsest(pld) - 0  # floor(log2(2) / 2) = 0: the coarsest grid
    for h_new, t, cur in upper_grids[1:]:
        assert t == tail
        over = F(float(prev.upper) - estimate)
        room = F((float(target) - estimate) * 0.8)
        jump = min(_fewest_halvings(over, room), _halvings_in_budget(prev.details["bins"], D.DEFAULT_MAX_BINS))
        assert h - h_new == jump and prev.upper > target
        h, prev = h_new, cur
    assert upper_grids[0][1] == tail and prev.upper <= target and c.details["h_exps"] == [h]


def test_upper_below_starts_one_grid_coarser_than_a_hint_but_never_above_the_coarsest(upper_grids: list) -> None:
    p, q = _law(6, F(1, 3), 2), _law(5, F(1, 3), 2)
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    coarsest = _coarsest(pld)
    for hint, first in ((coarsest - 3, coarsest - 2), (coarsest + 5, coarsest)):
        upper_grids.clear()
        D.upper_below([pld], "ln(2)", 2, F(1), h_exp=[hint], exact_budget=0)
        assert [g[0] for g in upper_grids] == [first]


def test_enclose_deltas_never_takes_an_exact_direction_to_the_grid(grids: list) -> None:
    # e^(1/10) is irrational, so the exact enclosure has a width (about 5e-38 relative); at
    # rtol = 0 it is still not "within rtol" of itself, yet an exact direction is final
    pld = PrivacyLossDistribution.from_exact_laws({0: F(1, 2), 1: F(1, 2)}, {0: F(1000, 3721), 1: F(2721, 3721)})
    (c,) = D.enclose_deltas([pld], "1/10", 2, rtol=0.0)
    assert c.details["mode"] == "exact" and grids == []
    assert 0 < c.upper - c.lower < c.lower * F(1, 10**30)
