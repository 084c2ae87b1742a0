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

from dps_verify.core.numbers import Certified
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


@pytest.mark.parametrize(("n", "k", "beta", "eps", "times"), [
    (3, 3, F(1, 3), 0.5, 2), (4, 4, F(1, 2), 0.2, 3), (2, 5, F(1, 2), 0.2, 2), (1, 1, F(1, 3), 0.5, 2),
])
def test_screen_of_a_group_not_above_the_threshold(n: int, k: int, beta: F, eps: float, times: int) -> None:
    # n <= k: the group with n − 1 records is always suppressed (mass 1 on "suppressed"), the
    # group with n records publishes its count n only when n = k (mass β^k at infinite loss)
    s = R.screen_delta(n, k, beta, eps, times, 1 << 10)
    ref = _reference(n, k, beta, eps, times, 1 << 10) if n == k else 0.0
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
    real = R._screen_delta

    def spy(n: int, k: int, beta: F, e: float, times: int, bins: int = R.SCREEN_BINS[1]) -> float:
        s = real(n, k, beta, e, times, bins)
        seen.append((n, bins, s))
        return s

    monkeypatch.setattr(R, "_screen_delta", spy)
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


class _StopAfterCut(Exception):
    """Raised by the spy below once the kept atoms are seen (the rest of the screen is not needed)."""


def _kept_log_masses(monkeypatch: pytest.MonkeyPatch, logp: list[float], times: int) -> list[float]:
    """The log-masses the screen of one direction keeps: what it hands to its Chernoff range."""
    seen: list[list[float]] = []

    def spy(lp: np.ndarray, ell: np.ndarray, t: int, tau: float) -> tuple[float, float]:
        seen.append(sorted(lp.tolist()))
        raise _StopAfterCut

    monkeypatch.setattr(R, "_loss_range", spy)
    with pytest.raises(_StopAfterCut):
        R._screen_direction(np.array(logp), np.linspace(-1.0, 1.0, len(logp)), 0.0, 0.5, times, 1 << 8)
    return seen[0]


@pytest.mark.parametrize("heaviest", [0.0, -1.5])
def test_screen_keeps_the_atoms_heavier_than_the_noise_floor_per_release(monkeypatch, heaviest: float) -> None:
    # the documented mass floor SCREEN_NOISE/100/T (here above e^-60 of the heaviest atom):
    # an atom 0.005 nats above it is kept, one 0.005 nats below it or exactly at it is dropped
    # (a floor 1 % higher or lower, or per T releases the other way round, flips one of them)
    times = 3
    cut = math.log(R.SCREEN_NOISE / 100 / times)
    assert cut > heaviest - 60
    logp = [heaviest, cut + 0.005, cut - 0.005, cut, -200.0]
    assert _kept_log_masses(monkeypatch, logp, times) == sorted([heaviest, cut + 0.005])


@pytest.mark.parametrize("heaviest", [0.0, -1.5])
def test_screen_keeps_the_atoms_within_sixty_nats_of_the_heaviest(monkeypatch, heaviest: float) -> None:
    # 10^14 releases put the per-release noise floor (about -62.2 nats) below e^-60 of the
    # heaviest atom, so the 60-nat cut decides: 0.01 nats inside it kept, 0.01 outside or
    # exactly at it dropped
    times = 10**14
    assert math.log(R.SCREEN_NOISE / 100 / times) < heaviest - 60.5
    logp = [heaviest, heaviest - 59.99, heaviest - 60.01, heaviest - 60.0, heaviest - 61.0]
    assert _kept_log_masses(monkeypatch, logp, times) == sorted([heaviest, heaviest - 59.99])


@pytest.mark.parametrize(("bins", "times", "composed"), [
    (1 << 7, 7, 64),  # T·(m − 1) + 1 is a power of two: exactly that length, no padding
    (1 << 6, 4, 33),  # one past a power of two: the next power, so the top bin does not wrap
    (1 << 6, 8, 33),
    (1 << 6, 9, None),  # longer than the bins: the bins, the law folded onto a window
])
def test_screen_fft_length_is_the_least_power_of_two_holding_the_composed_law(
        monkeypatch: pytest.MonkeyPatch, bins: int, times: int, composed: int | None) -> None:
    # the T-fold law of an m-bin grid has T·(m − 1) + 1 bins: the screen transforms at the
    # least power of two holding them (at most ``bins``); without a fold its value is the
    # direct convolution's (nothing wraps around)
    from types import SimpleNamespace

    from scipy import fft as sfft

    seen: list[tuple[np.ndarray, int]] = []
    ranges: list[tuple[float, float]] = []
    real_range = R._loss_range

    def rfft(base: np.ndarray, size: int) -> np.ndarray:
        seen.append((base.copy(), size))
        return sfft.rfft(base, size)

    def loss_range(lp: np.ndarray, ell: np.ndarray, t: int, tau: float) -> tuple[float, float]:
        ranges.append(real_range(lp, ell, t, tau))
        return ranges[-1]

    monkeypatch.setattr(R, "sfft", SimpleNamespace(rfft=rfft, irfft=sfft.irfft))
    monkeypatch.setattr(R, "_loss_range", loss_range)
    logp, ell = np.log(np.array([0.5, 0.3, 0.2])), np.array([0.0, 0.35, 0.7])
    e = 0.2
    got = R._screen_direction(logp, ell, 0.0, e, times, bins)
    base, size = seen[0]
    total = times * (len(base) - 1) + 1
    if composed is not None:
        assert total == composed  # the edge this case is for
    least = 1
    while least < total:
        least *= 2
    assert size == min(bins, least)
    if total <= bins:  # the value: Σ law·(1 − e^(ε − loss))⁺ of the direct T-fold convolution
        law = np.array([1.0])
        for _ in range(times):
            law = np.convolve(law, base)
        (w_lo, w_hi), = ranges
        h = max((w_hi - w_lo) / (bins // 2), 0.7 / (bins // 2), 1e-12)
        loss = np.arange(len(law)) * h  # the least loss is T·0
        ref = float(np.sum(law * -np.expm1(np.minimum(e - loss, 0.0))))
        assert 0 < ref and got == pytest.approx(ref, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("k", "beta", "eps", "times", "rtol"), [
    (5, F(1, 3), "ln(2)", 2, 0.01),
    (3, F(1, 4), "ln(2)", 3, 0.05),
    (4, F(1, 2), "1/20", 14, 0.01),  # lower end > 1/2: top + rtol·(1 − lower) is the smaller
])
def test_screened_sizes_are_bounded_below_the_documented_target(
        monkeypatch: pytest.MonkeyPatch, k: int, beta: F, eps: str, times: int, rtol: float) -> None:
    # step 2 asks every size the cheap bound cannot settle for an upper bound below the target
    # max(goal, tail bound at the tail start), goal = max(top, min((1 + rtol)·lower,
    # top + rtol·(1 − lower))) over the enclosures (top: largest upper end, lower: largest lower
    # end): not below the largest enclosed upper end, and within rtol of the best lower end
    from dps_verify.core.params import epsilon_param

    targets: list[F] = []
    real = R.upper_below

    def spy(plds, e, t, target, **kw):  # type: ignore[no-untyped-def]
        targets.append(target)
        return real(plds, e, t, target, **kw)

    monkeypatch.setattr(R, "upper_below", spy)
    r = R.releases_delta(k, beta, eps, times, rtol=rtol)
    assert targets
    e = epsilon_param(eps)
    encl = [R.pair_delta_enclosure(*R.group_pair(n, k, beta), e, times, rtol=rtol) for n in r.enclosed]
    top, lower = max(c.upper for c in encl), max(c.lower for c in encl)
    goal = max(top, min(lower * F(1 + rtol), top + F(rtol) * (1 - lower)))
    target = max(goal, R.untruncated_bound(r.tail_from, beta, e, times))
    # one target throughout: no enclosure was added in step 2
    assert set(targets) == {target} and top < target <= lower * F(1 + rtol)
    assert r.delta.upper <= r.delta.lower * F(1 + rtol)


@pytest.mark.parametrize("noisy", ["first", "last"])
def test_a_screen_value_exactly_at_the_noise_level_is_noise(monkeypatch: pytest.MonkeyPatch, noisy: str) -> None:
    # k = 4, β = 1/1000, ε = 1, T = 2: every δ_T(n) is below SCREEN_NOISE (the worst about
    # 4.6e-12), so a screen value of exactly SCREEN_NOISE is noise: step 1 does not stop early
    # past it (its stop needs a peak above the noise) and does not enclose its size (that needs
    # a screen value above both the noise and the lower end at k); step 2 certifies every size
    # as always.  The result holds whatever the screen says: it meets the result of the real screen
    k, beta, eps, times = 4, F(1, 1000), "1", 2
    exact = R.releases_delta(k, beta, eps, times)
    assert exact.delta.upper < R.SCREEN_NOISE and exact.tail_from == 11
    at = k + 1 if noisy == "first" else exact.tail_from - 1
    seen: list[tuple[int, int]] = []

    def fake(n: int, kk: int, b: F, e: float, t: int, bins: int = R.SCREEN_BINS[1]) -> float:
        seen.append((n, bins))
        return R.SCREEN_NOISE if n == at else 0.0

    monkeypatch.setattr(R, "_screen_delta", fake)
    r = R.releases_delta(k, beta, eps, times)
    coarse_bins = R.SCREEN_BINS[0]
    # step 1 screened every size below the tail start before any fine screen
    assert seen[:r.tail_from - k - 1] == [(n, coarse_bins) for n in range(k + 1, r.tail_from)]
    assert at not in r.enclosed or at == exact.argmax_n
    assert r.enclosed == exact.enclosed and r.tail_from == exact.tail_from
    assert max(r.delta.lower, exact.delta.lower) <= min(r.delta.upper, exact.delta.upper)


@pytest.mark.parametrize(("at_k5", "last"), [(0.5, 6), (0.4, 5)])
def test_screened_first_step_stops_at_the_first_size_past_the_peak_plus_three_below_half_of_it(
        monkeypatch: pytest.MonkeyPatch, at_k5: float, last: int) -> None:
    # a made-up screen peaking at k + 1: the sizes k + 2..k + 4 (not past peak + 3) are at a
    # quarter of the peak, k + 5 at ``at_k5`` of it, k + 6 on at a quarter: step 1 screens coarse
    # from k + 1 up to the first size past peak + 3 strictly below half the peak (k + 5 at 0.4,
    # k + 6 when k + 5 is exactly at half), then the band of the peak (k + 1 alone) fine; the
    # result still holds (it meets the real screen's result)
    k, beta, eps, times = 3, F(1, 10**4), "1/2", 2
    exact = R.releases_delta(k, beta, eps, times)
    assert exact.tail_from > k + 7
    peak = 2.0**-20
    made_up = {k + 1: peak, k + 2: peak / 4, k + 3: peak / 4, k + 4: peak / 4, k + 5: peak * at_k5}
    seen: list[tuple[int, int]] = []

    def fake(n: int, kk: int, b: F, e: float, t: int, bins: int = R.SCREEN_BINS[1]) -> float:
        seen.append((n, bins))
        return made_up.get(n, peak / 4)

    monkeypatch.setattr(R, "_screen_delta", fake)
    r = R.releases_delta(k, beta, eps, times)
    coarse_bins, fine_bins = R.SCREEN_BINS
    assert seen[:last + 1] == [(n, coarse_bins) for n in range(k + 1, k + last + 1)] + [(k + 1, fine_bins)]
    assert max(r.delta.lower, exact.delta.lower) <= min(r.delta.upper, exact.delta.upper)


@pytest.mark.parametrize("grid_bounds", [False, True])
def test_screened_target_is_raised_to_the_documented_goal_after_each_enclosure(
        monkeypatch: pytest.MonkeyPatch, grid_bounds: bool) -> None:
    # a made-up screen peaking at k + 1 (a quarter of it elsewhere) makes step 2 enclose sizes
    # the screen missed (from an exact bound, or with grid bounds only by a new enclosure);
    # after each enclosure the target is again max(goal, tail bound at the tail start) over the
    # enclosures so far (goal as in the test above): every upper_below call is asked for that
    # target.  The result meets the result of the real screen
    from dps_verify.core.params import epsilon_param

    k, beta, eps, times, rtol = 2, F(1, 10), "ln(11/10)", 4, 0.01
    real_result = R.releases_delta(k, beta, eps, times)
    events: list[tuple[str, object, Certified]] = []
    real_encl, real_ub = R.pair_delta_enclosure, R.upper_below

    def encl(*args, **kw):  # type: ignore[no-untyped-def]
        c = real_encl(*args, **kw)
        events.append(("enclosure", None, c))
        return c

    def ub(plds, e, t, target, **kw):  # type: ignore[no-untyped-def]
        c = real_ub(plds, e, t, target, **(dict(kw, exact_budget=0) if grid_bounds else kw))
        events.append(("bound", target, c))
        return c

    peak = 2.0**-20
    monkeypatch.setattr(R, "_screen_delta", lambda n, *a, **kw: peak if n == k + 1 else peak / 4)
    monkeypatch.setattr(R, "pair_delta_enclosure", encl)
    monkeypatch.setattr(R, "upper_below", ub)
    r = R.releases_delta(k, beta, eps, times, rtol=rtol)
    tail = R.untruncated_bound(r.tail_from, beta, epsilon_param(eps), times)
    enclosures: list[Certified] = []
    targets = []
    for kind, target, c in events:
        if kind == "enclosure":
            enclosures.append(c)
            continue
        top, lower = max(e.upper for e in enclosures), max(e.lower for e in enclosures)
        goal = max(top, min(lower * F(1 + rtol), top + F(rtol) * (1 - lower)))
        assert target == max(goal, tail)
        targets.append(target)
        if c.upper > target and c.details.get("mode") in ("exact", "direct") and c.upper <= c.lower * F(1 + rtol):
            enclosures.append(c)  # an exact or narrow direct bound serves as the size's enclosure
    assert len(set(targets)) >= 2  # the target was raised after a step-2 enclosure
    assert max(r.delta.lower, real_result.delta.lower) <= min(r.delta.upper, real_result.delta.upper)


def _step2_first_target(screen) -> F:  # type: ignore[no-untyped-def]
    """The target of the first grid bound releases_delta(2, 1/10, ln(11/10), 4) asks for, with
    ``screen`` as its float screen."""
    targets: list[F] = []
    real_ub, real_screen = R.upper_below, R._screen_delta

    def ub(plds, e, t, target, **kw):  # type: ignore[no-untyped-def]
        targets.append(target)
        return real_ub(plds, e, t, target, **kw)

    R._screen_delta, R.upper_below = screen, ub
    try:
        R.releases_delta(2, F(1, 10), "ln(11/10)", 4)
    finally:
        R._screen_delta, R.upper_below = real_screen, real_ub
    return targets[0]


_FIRST_TARGET: dict[str, float] = {}


@pytest.mark.parametrize("side", ["below", "at", "above"])
def test_screened_step_two_screens_again_at_the_fine_length_within_three_percent_of_the_target(side: str) -> None:
    # a made-up screen peaking at k + 1 (a quarter of it elsewhere): step 1 stops at k + 5, so
    # step 2 screens k + 6 coarse first; that size (its cheap bound above the target) is screened
    # again at the fine length before its grid bound exactly when its coarse screen times 1.03
    # reaches the target: just below, exactly at and just above that threshold
    k, n0, peak = 2, 8, 2.0**-20
    coarse_bins, fine_bins = R.SCREEN_BINS

    def base(n: int, *a, **kw) -> float:  # type: ignore[no-untyped-def]
        return peak if n == k + 1 else peak / 4

    if "base" not in _FIRST_TARGET:  # the same for every case: computed once
        _FIRST_TARGET["base"] = float(_step2_first_target(base))
    t0 = _FIRST_TARGET["base"]
    v = t0 / 1.03
    while v * 1.03 < t0:
        v = math.nextafter(v, math.inf)
    while math.nextafter(v, 0.0) * 1.03 >= t0:
        v = math.nextafter(v, 0.0)
    # v: the least float with v·1.03 >= t0; here v·1.03 == t0 exactly (the tie itself)
    assert v * 1.03 == t0
    chosen = {"below": math.nextafter(v, 0.0), "at": v, "above": v * (1 + 2e-3)}[side]
    assert (chosen * 1.03 >= t0) == (side != "below")
    assert chosen * 1.04 >= t0 > chosen * 1.02  # a threshold 1 % higher or lower tells them apart
    seen: list[tuple[int, int]] = []

    def screen(n: int, kk: int, b: F, e: float, t: int, bins: int = fine_bins) -> float:
        seen.append((n, bins))
        return chosen if n == n0 else base(n)

    assert float(_step2_first_target(screen)) == t0  # the same first target
    assert seen[:6] == [(n, coarse_bins) for n in range(k + 1, k + 6)] + [(k + 1, fine_bins)]
    assert seen.count((n0, coarse_bins)) == 1
    assert ((n0, fine_bins) in seen) == (side != "below")


@pytest.mark.parametrize("k,n,beta,x,times", [(2, 3, F(1, 2), F(3, 2), 2),
                                              (3, 4, F(1, 4), F(11, 10), 3),
                                              (2, 5, F(1, 2), F(2), 2)])
def test_screen_delta_of_a_forward_dominated_pair_is_the_exact_delta(k, n, beta, x, times) -> None:
    # here the forward direction (U_n against U_(n-1)) has the larger exact T-fold delta, so the
    # screen's forward losses log P_n - log P_(n-1) are what it reports (float, within 1e-6)
    from tests.test_releases_exact_reference import _hs

    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    fwd, bwd = _hs(p, q, x, times), _hs(q, p, x, times)
    assert fwd > bwd * F(5, 4)
    assert abs(R.screen_delta(n, k, beta, math.log(x), times) / float(fwd) - 1) < 1e-6
