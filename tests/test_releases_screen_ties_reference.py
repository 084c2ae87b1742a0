"""The screened algorithm's comparisons at exact ties (module doc of
:mod:`dps_verify.inverse.releases`, "The screened algorithm"), with the float screen, the
enclosures and the bounds replaced by fixed values so that a tie can be made exactly:

* step 1's peak is the *first* size with the largest screen value (a later equal value is no
  new peak), and step 1 stops at the first size past the peak plus three whose screen is
  *strictly* below half the peak, only when the peak is *strictly* above ``SCREEN_NOISE``;
* step 1 encloses the screen's argmax only when its screen is *strictly* above the enclosed
  lower end of n = k;
* step 2 screens a size again at the fine length when its screen times 1.03 is *at least* the
  target, and keeps a bound from upper_below that is *at most* the target.

Each choice only orders work or decides which certified statement a size rests on; the tests pin
the documented rule so that a change of it is seen.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from dps_verify.core.numbers import Certified
from dps_verify.inverse import releases as R

K, BETA, EPS, TIMES = 2, F(1, 20), F(1, 10), 4
VALUE = F(1, 100)  # every enclosure: the exact point VALUE
COARSE, FINE = R.SCREEN_BINS
TAIL = 20  # the untruncated bound is 1 below n = 20 and 0 from it on


def _setup(monkeypatch: pytest.MonkeyPatch, screens: dict[int, float], cheap: F) -> tuple[
        list[tuple[int, int]], list[int]]:
    """Fixed screens (by size; 1e-6 where not given), enclosures and tail bound; ``cheap`` is
    every size's cheap bound.  Returns the screen calls (size, bins) and the enclosed sizes."""
    calls: list[tuple[int, int]] = []
    made: list[int] = []

    def screen(n: int, k: int, b: object, e: float, t: int, bins: int = FINE) -> float:
        calls.append((n, bins))
        return screens.get(n, 1e-6)

    def enclosure(p: dict, *a: object, **kw: object) -> Certified:
        made.append(max(o for o in p if isinstance(o, int)))
        return Certified(VALUE, VALUE, "fixed", {"mode": "exact"})

    monkeypatch.setattr(R, "_screen_delta", screen)
    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: cheap)
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1) if n < TAIL else F(0))
    return calls, made


def _step_one_coarse(calls: list[tuple[int, int]]) -> list[int]:
    """The sizes step 1 screened at the coarse length (the calls before the first fine one)."""
    first_fine = next(i for i, (_, bins) in enumerate(calls) if bins == FINE)
    return [n for n, _ in calls[:first_fine]]


@pytest.mark.parametrize(("screens", "coarse"), [
    # a later size equal to the peak is no new peak: stop at 7 = 3 + 3 + 1 (not at 8)
    ({3: 4e-3, 4: 4e-3, 5: 1e-3, 6: 1e-3, 7: 1e-3, 8: 1e-3}, [3, 4, 5, 6, 7]),
    # exactly half the peak is not below half: go on to the next size
    ({3: 4e-3, 4: 1e-3, 5: 1e-3, 6: 1e-3, 7: 4e-3 / 2, 8: 1e-3}, [3, 4, 5, 6, 7, 8]),
    # below half of the peak (though above a third of it): stop there
    ({3: 4e-3, 4: 1e-3, 5: 1e-3, 6: 1e-3, 7: 1.5e-3, 8: 1e-3}, [3, 4, 5, 6, 7]),
    # a peak exactly at SCREEN_NOISE is noise: no stop, every size below the tail start
    ({3: R.SCREEN_NOISE, **{n: R.SCREEN_NOISE / 4 for n in range(4, TAIL)}}, list(range(3, TAIL))),
])
def test_step_one_peak_and_stop_at_ties(monkeypatch: pytest.MonkeyPatch, screens: dict[int, float],
                                        coarse: list[int]) -> None:
    calls, made = _setup(monkeypatch, screens, VALUE / 2)
    r = R.releases_delta(K, BETA, EPS, TIMES)
    assert _step_one_coarse(calls) == coarse
    assert r.tail_from == TAIL and made == [K] and r.delta.upper == VALUE


def test_step_one_does_not_enclose_an_argmax_whose_screen_equals_the_enclosed_lower_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls, made = _setup(monkeypatch, {3: float(VALUE)}, VALUE / 2)
    r = R.releases_delta(K, BETA, EPS, TIMES)
    assert made == [K] and r.enclosed == (K,)


def _tie_screen(target: float) -> float:
    """A float s with s * 1.03 == target exactly (searched near target / 1.03)."""
    s = target / 1.03
    for _ in range(64):
        if s * 1.03 == target:
            return s
        s = math.nextafter(s, math.inf if s * 1.03 < target else -math.inf)
    raise AssertionError("no float tie found")


def test_step_two_screens_again_when_the_screen_times_1_03_equals_the_target(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # rtol 0.01: the target is VALUE·(1 + 0.01) (the float 1.01 as a Fraction); size 8 is past
    # step 1's stop (peak 3 at VALUE, sizes 4..7 far below half of it), so step 2 screens it
    # coarse first, then again at the fine length since its screen times 1.03 is the target
    target = VALUE * F(1 + 0.01)
    tie = _tie_screen(float(target))
    calls, made = _setup(monkeypatch, {3: float(VALUE), 8: tie}, F(1))
    monkeypatch.setattr(R, "upper_below", lambda *a, **kw: Certified(
        F(0), VALUE, "fixed bound", {"mode": "sparse"}))
    R.releases_delta(K, BETA, EPS, TIMES)
    assert _step_one_coarse(calls) == [3, 4, 5, 6, 7]
    assert calls.count((8, COARSE)) == 1 and calls.count((8, FINE)) == 1
    assert made == [K]


def test_step_two_keeps_a_bound_equal_to_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first size step 2 visits (size 3, the largest screen) gets a bound exactly at the
    # target VALUE·(1 + 0.01): it is kept as that size's bound (and sets the upper end); no size
    # besides n = k is enclosed
    target = VALUE * F(1 + 0.01)
    calls, made = _setup(monkeypatch, {3: 5e-3}, F(1))
    seen: list[int] = []

    def upper_below(*a: object, **kw: object) -> Certified:
        seen.append(len(seen))
        return Certified(F(0), target if len(seen) == 1 else VALUE, "fixed bound",
                         {"mode": "sparse"})

    monkeypatch.setattr(R, "upper_below", upper_below)
    r = R.releases_delta(K, BETA, EPS, TIMES)
    assert made == [K] and r.bound_source == "bound" and r.argmax_n == 3
    assert r.delta.upper == target and r.target_missed is None
