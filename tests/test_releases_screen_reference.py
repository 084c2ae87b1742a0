"""inverse.releases' float screen is the estimate its docstring describes, recomputed here from
the exact laws with nothing of the module's own arithmetic: each direction's finite atoms (within
60 nats of the heaviest and above SCREEN_NOISE/100/T in mass) are split between the two
neighbours of a grid, keeping their mean loss; the step is the largest of the float Chernoff
range of the T-fold loss (tail mass SCREEN_NOISE/100 per side, over the module's λ grid) and the
one-release span, each over half the bins, and 1e-12; the T-fold law of the split grid by direct
convolution (every index, no FFT and no folding); δ = mass at infinite loss + Σ mass·(1 − e^(ε −
loss))⁺ (CP Def. 2), the larger of the two directions.  The screen only orders work (never a
bound), so its step, window and kept atoms are checked as its documented choices: a coarser or
finer grid moves the estimate by far more than the FFT's rounding or the folded-in tail mass."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import _law

TAU = R.SCREEN_NOISE / 100


def _ln(x: F) -> float:
    return math.log(x.numerator) - math.log(x.denominator)


def _split_grid_estimate(atoms: list[tuple[F, F]], p_inf: F, e: float, times: int, bins: int) -> float:
    """One direction: ``atoms`` = (P-mass, P/Q ratio) of the finite atoms, ``p_inf`` the
    P-mass at infinite loss."""
    inf = 1 - (1 - float(p_inf)) ** times
    heaviest = max(_ln(p) for p, _ in atoms)
    kept = [(p, r) for p, r in atoms if _ln(p) > max(heaviest - 60, math.log(TAU / times))]
    if not kept:  # every finite atom below the screen's mass floor: the infinite part alone
        return inf
    logp = np.array([_ln(p) for p, _ in kept])
    ell = np.array([_ln(r) for _, r in kept])
    # Chernoff range of the T-fold loss: each tail about TAU, the best λ of the grid per side
    his, los = [], []
    for lam in R.LAMBDAS:
        up = float(np.logaddexp.reduce(logp + lam * ell))  # ln M(λ), ln M(−λ)
        down = float(np.logaddexp.reduce(logp - lam * ell))
        his.append((times * up - math.log(TAU)) / lam)
        los.append((math.log(TAU) - times * down) / lam)
    w_lo, w_hi = max(los), min(his)
    w_hi = max(w_hi, w_lo)
    lo, span = float(ell.min()), float(ell.max() - ell.min())
    h = max((w_hi - w_lo) / (bins // 2), span / (bins // 2), 1e-12)
    base = np.zeros(int(math.floor(span / h)) + 2)
    for a, b in zip(logp, ell):
        x = (b - lo) / h
        j = math.floor(x)
        base[j] += math.exp(a) * (1 - (x - j))
        base[j + 1] += math.exp(a) * (x - j)
    law = np.array([1.0])
    for _ in range(times):
        law = np.convolve(law, base)
    loss = times * lo + np.arange(len(law)) * h
    return inf + float(np.sum(law * -np.expm1(np.minimum(e - loss, 0.0))))


def _reference(n: int, k: int, beta: F, e: float, times: int, bins: int) -> float:
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    fwd = [(p[o], p[o] / q[o]) for o in p if o in q]
    bwd = [(q[o], q[o] / p[o]) for o in q if o in p]
    p_inf = sum((p[o] for o in p if o not in q), F(0))
    assert all(o in p for o in q)  # the smaller group has no output of its own
    return max(_split_grid_estimate(fwd, p_inf, e, times, bins), _split_grid_estimate(bwd, F(0), e, times, bins))


@pytest.mark.parametrize(("n", "k", "beta", "eps", "times", "bins"), [
    (5, 2, F(1, 3), 1.0, 3, 1 << 12),  # a window wider than the one-release span
    (9, 2, F(1, 4), 0.5, 2, 1 << 12),
    (6, 3, F(1, 2), 1.5, 4, 1 << 10),
    (6, 3, F(1, 2), 1.5, 50, 1 << 10),  # the T-fold law folded onto the window (total > bins)
    (9, 2, F(1, 4), 2.0, 400, 1 << 10),  # folded, the window far above the least total loss
    (6, 3, F(1, 2), 1.5, 300, 1 << 9),
    (9, 2, F(1, 4), 40.0, 2000, 1 << 10),  # the window starts 21 and 398 bins above the least loss
    (5, 2, F(1, 3), 1.0, 1, 1 << 12),  # one release: the span sets the step
    (3, 1, 1 - F(1, 10**15), 1.0, 2, 1 << 12),  # no finite atom of the larger group kept
    (40, 3, F(1, 20), 0.7, 2, 1 << 12),  # light atoms below the screen's mass floor dropped
])
def test_screen_is_the_documented_split_grid_estimate(n: int, k: int, beta: F, eps: float, times: int,
                                                      bins: int) -> None:
    s = R.screen_delta(n, k, beta, eps, times, bins)
    ref = _reference(n, k, beta, eps, times, bins)
    assert 0 < ref <= 1
    assert s == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_screen_default_is_the_fine_pass() -> None:
    ref = _reference(5, 2, F(1, 3), 1.0, 3, R.SCREEN_BINS[1])
    assert R.screen_delta(5, 2, F(1, 3), 1.0, 3) == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert abs(_reference(5, 2, F(1, 3), 1.0, 3, R.SCREEN_BINS[0]) - ref) > ref * 1e-7


def test_a_coarser_screen_grid_moves_the_estimate_far_beyond_the_tolerance_used() -> None:
    # the negative control of the check above: the same estimate at 2/3 of the bins (a grid
    # step 1.5 times coarser) differs by far more than rel 1e-9
    ref = _reference(5, 2, F(1, 3), 1.0, 3, 1 << 12)
    coarse = _reference(5, 2, F(1, 3), 1.0, 3, (1 << 12) * 2 // 3)
    assert abs(coarse - ref) > ref * 1e-7


def _screen_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, float]]:
    """Every float screen releases_delta asks for: (size n, bins, value)."""
    seen: list[tuple[int, int, float]] = []
    real = R.screen_delta

    def spy(n: int, k: int, beta: F, e: float, times: int, bins: int = R.SCREEN_BINS[1]) -> float:
        s = real(n, k, beta, e, times, bins)
        seen.append((n, bins, s))
        return s

    monkeypatch.setattr(R, "screen_delta", spy)
    return seen


@pytest.mark.parametrize(("k", "beta", "eps", "times"), [
    (5, F(1, 3), "ln(2)", 2),  # the coarse screen halves 5 sizes past its peak: it stops there
    (2, F(1, 10), "ln(11/10)", 4),  # it runs up to the tail start
])
def test_screened_first_step_screens_upwards_until_the_screen_halved_then_refines_the_top(
        monkeypatch: pytest.MonkeyPatch, k: int, beta: F, eps: str, times: int) -> None:
    # the documented first step: coarse screens of k + 1, k + 2, ... in order; past the running
    # peak (by more than 3 sizes) it stops at the first size below half the peak (a peak above
    # the screen's noise), else at the tail start; then every size within SCREEN_BAND of the peak
    # is screened again at the fine bins, in the order first screened
    seen = _screen_calls(monkeypatch)
    r = R.releases_delta(k, beta, eps, times)
    coarse_bins, fine_bins = R.SCREEN_BINS
    first = next(i for i, (_, bins, _) in enumerate(seen) if bins == fine_bins)
    coarse = seen[:first]
    assert [n for n, _, _ in coarse] == list(range(k + 1, k + 1 + len(coarse)))
    assert all(bins == coarse_bins for _, bins, _ in coarse)
    top, peak = 0.0, k
    for i, (n, _, s) in enumerate(coarse):
        if s > top:
            top, peak = s, n
            stop = False
        else:
            stop = n > peak + 3 and s < top / 2 and top > R.SCREEN_NOISE
        if i < len(coarse) - 1:
            assert not stop
        else:  # the last coarse screen: the stop rule, or the size below the tail start (the
            # tail start of the first step, which later steps can only lower)
            assert stop or n >= r.tail_from - 1
    fine = [n for n, bins, _ in seen[first:] if bins == fine_bins]
    band = [n for n, _, s in coarse if s * R.SCREEN_BAND >= top]
    assert fine[:len(band)] == band
    # step 2: every other size is certified below the target (a cheap or a grid bound), none
    # enclosed beyond k and the screen's worst size
    assert len(r.enclosed) == 2 and sum(r.details["bounds_by_kind"].values()) == r.tail_from - k - 2


def test_format_bound_of_exactly_one_is_the_plain_rounded_up_form() -> None:
    # only a bound below 1 gets more digits (so that it never prints as 1); 1 itself, and
    # bounds above it, print at the asked digits
    from dps_verify.core.numbers import format_up

    for x in (F(1), F(3, 2), F(10**6 + 1)):
        assert R.format_bound(x) == format_up(x, 4)
    below = F(10**9 - 1, 10**9)
    assert F(R.format_bound(below)) < 1 and F(format_up(below, 4)) >= 1
