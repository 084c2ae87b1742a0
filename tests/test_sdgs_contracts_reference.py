"""Contracts of the exact worst-case walk's helpers (worstcase/sdgs.py) that no scan's answer
shows, each checked against a reference written here from the helper's documented meaning:

* ``_first_bad_E`` answers the least outcome j in [0, n] of Bin(n) with ``fwd_bad(n, j)``
  (CP Thm 5's threshold: the least j > γn) for every monotone test, including one that calls
  every outcome bad (γ < 0), whatever its float start guess;
* ``scan`` hands the segment route the estimate's Chernoff stopping point as a work hint
  exactly where the comment above it says (pointwise always; the hockey-stick only in CP Thm
  5's regime, where no TV cut can stop it earlier), and None otherwise;
* the stop rule's float screens (a float KL forced to lie low, placed against the screens'
  margins, in pointwise scans below CP Thm 5's edge and in its regime): the certified steps
  (``_neg_ln_upper``, ``_chernoff_below``) run only at group sizes N with
  N·kl_f ≥ need_f·(1 − 2^-30) − 10^-9, the certified comparison N·KL ≥ need only where
  N·kl_f ≥ float(need)·(1 − 2^-30), and the stop comes at the first N past those screens (a
  lying screen only moves the stop; the certified value is the honest scan's);
* ``_Exp.affine`` raises the precision of e^ε until CERTAIN_BITS bits of A − e^ε·B are
  certain also when the first enclosure's upper end is one unit (an exact-log ε with
  e^ε = 2 − 1/(3·2^130): the true value is 2^-130/3, exact), and ``_affine_iv`` for each end;
* the hockey-stick's backward direction (Q_n − e^ε P_n)+ can decide the supremum below CP Thm
  5's edge (k = 20, β = 949/1000, ε = 1/100: at n = 21 it is above every forward value): the
  walk's maximum against the brute force over the exact output laws.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import mpmath
import pytest

from dps_verify.core.numbers import exact_log
from dps_verify.worstcase import long_range, sdgs

F = Fraction


# ---- _first_bad_E: the least bad outcome ------------------------------------------------------


def _least_bad(n: int, bad) -> int:
    """Brute force: the least outcome j in [0, n] with bad(n, j) (j = n is always bad)."""
    return next(j for j in range(n + 1) if bad(n, j))


@pytest.mark.parametrize("beta, eps", [(F(1, 2), F(1)), (F(1, 10), F(1, 100)), (F(9, 10), F(5)), (F(1, 3), F(0))])
@pytest.mark.parametrize("n", [1, 2, 7, 30])
def test_first_bad_is_the_least_bad_outcome_for_every_monotone_test(beta, eps, n):
    # thresholds t: outcomes j >= t are bad (t = 0: every outcome, the test of a gamma < 0;
    # t = n: only j = n, as the scan's fwd_bad always calls j = n bad)
    for t in range(n + 1):
        def bad(m, j, t=t):
            assert m == n
            return j >= t

        assert sdgs._first_bad_E(n, beta, eps, bad) == _least_bad(n, bad) == t


@pytest.mark.parametrize("beta, eps", [(F(1, 2), F(1)), (F(9, 10), F(5)), (F(1, 3), F(0))])
@pytest.mark.parametrize("n", [1, 5, 40])
def test_first_bad_stops_at_outcome_zero_when_every_outcome_is_bad(beta, eps, n):
    """A test that calls every integer bad (j > γn with γ < 0 also calls j = -1 bad): the
    answer is the least outcome 0, never the non-outcome -1."""
    asked = []

    def every_j_bad(m, j):
        asked.append(j)
        return True

    assert sdgs._first_bad_E(n, beta, eps, every_j_bad) == 0
    assert min(asked) >= 0  # no outcome outside [0, n] is asked about


def test_least_bad_reference_rejects_a_walk_to_minus_one():
    """Negative control: a walk that goes one step past 0 answers -1, which the brute force
    (over the outcomes 0..n) does not."""

    def walk_past_zero(n, bad):
        j = n
        while j > -1 and bad(n, j - 1):
            j -= 1
        return j

    every = lambda m, j: True  # noqa: E731
    assert walk_past_zero(5, every) == -1 != _least_bad(5, every)


# ---- scan's work hint for the segment route ------------------------------------------------------


class _Handed(Exception):
    pass


def _hint(monkeypatch, k, beta, eps, measure):
    seen = {}

    def spy(*args, est_n_stop=None, **kw):
        seen["hint"] = est_n_stop
        raise _Handed

    monkeypatch.setattr(long_range, "sdgs_by_segments", spy)
    with pytest.raises(_Handed):
        sdgs.scan(k, beta, eps, measure=measure, budget=1)  # past any budget: the segment route
    return seen["hint"]


# (k, beta, eps, in CP Thm 5's regime eps >= -ln(1 - beta)), far from its edge either way
_REGIME_CASES = [
    (5, F(1, 2), F(1), True),  # ln 2 = 0.69 < 1
    (5, F(1, 2), F(1, 2), False),
    (20, F(1, 10), F(1, 2), True),  # -ln 0.9 = 0.105
    (20, F(1, 10), F(1, 20), False),
]


@pytest.mark.parametrize("k, beta, eps, regime", _REGIME_CASES)
@pytest.mark.parametrize("measure", ["pointwise", "hockey-stick"])
def test_segment_route_gets_the_chernoff_hint_only_where_no_tv_cut_can_stop_earlier(monkeypatch, k, beta, eps,
                                                                                   regime, measure):
    assert regime == (float(eps) >= -math.log1p(-float(beta)))  # the cases' regime, in floats
    hint = _hint(monkeypatch, k, beta, eps, measure)
    if measure == "hockey-stick" and not regime:
        assert hint is None
    else:
        est = sdgs._estimate(k, beta, eps, measure, not regime and measure != "paper-d")
        assert hint == est["n_stop"]
        assert math.isfinite(hint) and hint >= k


# ---- the stop rule's float screens ------------------------------------------------------------

_MARGIN = 1 - 2.0**-30
# pointwise scans with a best far below 1 (so need_f·2^-31 > 10^-9: the screens' windows exist),
# below CP Thm 5's edge (the backward rule; −ln 2 = −0.693 < −13/20) and in its regime
_BACKWARD = (40, F(1, 2), F(13, 20))
_FORWARD = (10, F(1, 10), F(1, 2))  # −ln 0.9 = 0.105 < 1/2


def _record_walk(monkeypatch, case, kl_f=None):
    """Run the pointwise scan of ``case`` (with the float KL screen forced to ``kl_f``) and
    record, per certified step (_neg_ln_upper, _chernoff_below), the group size n of the walk's
    step and the best's ends it was asked about; also the group size named by the stop."""
    log = {"n": None, "calls": []}
    offer, neg_ln, below = sdgs._Best.offer, sdgs._neg_ln_upper, sdgs._chernoff_below

    def offer_spy(self, lo, hi, den, n):
        log["n"] = n
        return offer(self, lo, hi, den, n)

    def neg_ln_spy(num, den):
        log["calls"].append((log["n"], num, den))
        return neg_ln(num, den)

    def below_spy(N, beta, eps, num, den):
        assert N == log["n"] + 1
        log["calls"].append((log["n"], num, den))
        return below(N, beta, eps, num, den)

    monkeypatch.setattr(sdgs._Best, "offer", offer_spy)
    monkeypatch.setattr(sdgs, "_neg_ln_upper", neg_ln_spy)
    monkeypatch.setattr(sdgs, "_chernoff_below", below_spy)
    if kl_f is not None:
        monkeypatch.setattr(sdgs, "_float_kl_gamma", lambda *a: kl_f)
    k, beta, eps = case
    res = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
    stop = int(re.search(r"stopped at n = (\d+)", res.how).group(1))
    return res, stop, log["calls"]


def _need_f(num, den, backward: bool) -> float:
    """The screen's float −ln(best) (+ ln 2 for the backward rule), from the best's ends."""
    v = float(mpmath.log(mpmath.mpf(int(den))) - mpmath.log(mpmath.mpf(int(num))))
    return v + (math.log(2) if backward else 0.0)


def _placed_kl_f(monkeypatch, case, at) -> tuple[float, int, float, object]:
    """A float KL that lies low, placed so that at group size N* (three times the honest stop)
    N*·kl_f = at(need_f); returns (kl_f, N*, need_f, the honest result)."""
    with monkeypatch.context() as m:
        honest, stop, calls = _record_walk(m, case)
    _, num, den = calls[-1]  # the stop's own step: the final best (unchanged after it)
    need_f = _need_f(num, den, case is _BACKWARD)
    n_star = 3 * stop
    return at(need_f) / n_star, n_star, need_f, honest


@pytest.mark.parametrize("case", [_BACKWARD, _FORWARD], ids=["backward", "forward"])
def test_certified_steps_run_only_past_their_float_screen(monkeypatch, case):
    # N*·kl_f halfway between the screens at margins 2^-29 and 2^-30 (a gap of need_f·2^-30)
    kl_f, n_star, need_f, honest = _placed_kl_f(monkeypatch, case, lambda nf: nf * _MARGIN - 1e-9 - nf * 2.0**-31)
    res, stop, calls = _record_walk(monkeypatch, case, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)  # a lying screen changes no value
    assert calls and stop > n_star
    for n, num, den in calls:
        assert (n + 1) * kl_f >= _need_f(num, den, case is _BACKWARD) * _MARGIN - 1e-9
    # the placement is sharp: N* lies inside the window a margin of 2^-29 would let through
    assert need_f * (1 - 2.0**-29) - 1e-9 <= n_star * kl_f < need_f * _MARGIN - 1e-9


@pytest.mark.parametrize("case", [_BACKWARD, _FORWARD], ids=["backward", "forward"])
def test_stop_comes_at_the_first_group_size_past_the_float_screens(monkeypatch, case):
    # N*·kl_f past the screens at a margin of 2^-30 by need_f·2^-32, short of those at 2^-31
    kl_f, n_star, need_f, honest = _placed_kl_f(monkeypatch, case, lambda nf: nf * _MARGIN + nf * 2.0**-32)
    res, stop, calls = _record_walk(monkeypatch, case, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)
    assert stop == n_star
    if case is _BACKWARD:
        _, num, den = calls[-1]
        need = float(sdgs._neg_ln_upper(num, den) + sdgs._LN2_UP)
        assert n_star * kl_f >= need * _MARGIN
        assert n_star * kl_f < need * (1 - 2.0**-31)
    assert n_star * kl_f < need_f * (1 - 2.0**-31) - 1e-9  # sharp: a margin of 2^-31 fails at N*


def test_certified_stop_comparison_runs_only_past_its_float_screen(monkeypatch):
    # N*·kl_f passes the screen in front of _neg_ln_upper (by 0.5e-9) but not the one in front
    # of the certified comparison: the stop comes one group size later, at N* + 1
    kl_f, n_star, need_f, honest = _placed_kl_f(monkeypatch, _BACKWARD, lambda nf: nf * _MARGIN - 0.5e-9)
    res, stop, calls = _record_walk(monkeypatch, _BACKWARD, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)
    _, num, den = calls[-1]
    need = float(sdgs._neg_ln_upper(num, den) + sdgs._LN2_UP)
    assert n_star * kl_f < need * _MARGIN  # the screen fails at N* ...
    assert (n_star + 1) * kl_f >= need * _MARGIN  # ... and passes at N* + 1
    assert stop == n_star + 1


def _tie_placed_kl_f(monkeypatch, case, threshold) -> tuple[float, int, object, tuple]:
    """A float KL that lies low and puts N*·kl_f exactly on a screen's threshold (in floats):
    N* is the least power of 2 past three times the honest stop, so N*·(x / N*) == x exactly;
    ``threshold(num, den)`` is the screen's float threshold for the final best num/den."""
    with monkeypatch.context() as m:
        honest, stop, calls = _record_walk(m, case)
    _, num, den = calls[-1]
    n_star = 1 << (3 * stop).bit_length()
    x = threshold(num, den)
    kl_f = x / n_star
    assert n_star * kl_f == x
    return kl_f, n_star, honest, (num, den)


def _screen_need_f(num, den, backward: bool) -> float:
    """need_f exactly as the screen forms it (its float logarithms of the best's ends)."""
    return sdgs._ln_f(den) - sdgs._ln_f(num) + (sdgs._LN2_F if backward else 0.0)


def test_certified_log_of_the_best_is_computed_at_a_group_size_exactly_on_its_screen(monkeypatch):
    kl_f, n_star, honest, _ = _tie_placed_kl_f(
        monkeypatch, _BACKWARD, lambda num, den: _screen_need_f(num, den, True) * _MARGIN - 1e-9)
    res, stop, calls = _record_walk(monkeypatch, _BACKWARD, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)
    assert calls[0][0] + 1 == n_star  # computed at N* itself (the screen is N·kl_f >= ..., not >)
    assert stop == n_star + 1  # the certified comparison's own screen fails at N*


def test_chernoff_stop_is_taken_at_a_group_size_exactly_on_its_screen(monkeypatch):
    kl_f, n_star, honest, _ = _tie_placed_kl_f(
        monkeypatch, _FORWARD, lambda num, den: _screen_need_f(num, den, False) * _MARGIN - 1e-9)
    res, stop, calls = _record_walk(monkeypatch, _FORWARD, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)
    assert [n + 1 for n, _, _ in calls] == [n_star]  # one certified step, at N*, and it stops
    assert stop == n_star


def test_backward_stop_is_taken_at_a_group_size_exactly_on_the_comparison_screen(monkeypatch):
    def threshold(num, den):
        return float(sdgs._neg_ln_upper(num, den) + sdgs._LN2_UP) * _MARGIN

    kl_f, n_star, honest, (num, den) = _tie_placed_kl_f(monkeypatch, _BACKWARD, threshold)
    assert n_star * kl_f >= _screen_need_f(num, den, True) * _MARGIN - 1e-9  # the first screen passes too
    res, stop, calls = _record_walk(monkeypatch, _BACKWARD, kl_f)
    assert (res.lower, res.upper) == (honest.lower, honest.upper)
    assert stop == n_star


# ---- _Exp.affine at an upper end of one unit -----------------------------------------------------


def _certain(lo, hi) -> bool:
    return hi == 0 or ((hi - lo) << sdgs.CERTAIN_BITS) <= hi


def test_affine_refines_an_enclosure_whose_upper_end_is_one_unit():
    s0 = sdgs.BASE_PREC + 2  # exp_dyadic's s for an exact-log e^eps = r (non-dyadic r)
    r = 2 - F(1, 3 << s0)
    E = sdgs._Exp(exact_log(r))
    assert E.s == s0 and (2 << s0) - E.lo == 1  # the first enclosure's upper end is one unit
    true = 2 - r  # = 2^-130 / 3, exact
    lo, hi, s = E.affine(2, 1)
    assert F(int(lo), 1 << s) <= true <= F(int(hi), 1 << s)
    assert _certain(lo, hi)
    # negative control: the first enclosure, (0, 1) over 2^130, encloses the value but has no
    # certain bit, and the same check rejects it
    assert F(0) <= true <= F(1, 1 << s0)
    assert not _certain(0, 1)


@pytest.mark.parametrize("Al, Ah, Bl, Bh, which", [
    (2, 2**200, 1, 1, "lower"),  # lower end 2 - e^eps at one unit, upper end certain from the start
    (0, 2, 1, 1, "upper"),  # lower end clipped to 0 (0 - e^eps < 0), upper end 2 - e^eps at one unit
])
def test_interval_affine_refines_an_end_whose_first_upper_end_is_one_unit(Al, Ah, Bl, Bh, which):
    """_affine_iv encloses A − e^ε·B over A ∈ [Al, Ah], B ∈ [Bl, Bh] and raises the precision
    until each end is CERTAIN_BITS-bit accurate: the end at 2 − e^ε (exact 2^-130/3) is that
    close to its exact value, not the first enclosure's (0, 1) over 2^130."""
    s0 = sdgs.BASE_PREC + 2
    r = 2 - F(1, 3 << s0)
    E = sdgs._Exp(exact_log(r))
    assert (2 << E.s) - E.lo == 1
    lo, hi, s = sdgs._affine_iv(E, Al, Ah, Bl, Bh)
    exact_lo, exact_hi = max(Al - r * Bh, F(0)), Ah - r * Bl  # the ends' exact values (e^eps = r)
    lo_f, hi_f = F(int(lo), 1 << s), F(int(hi), 1 << s)
    assert lo_f <= exact_lo and hi_f >= exact_hi  # an enclosure
    tol = F(1, 1 << sdgs.CERTAIN_BITS)
    if which == "lower":
        assert exact_lo - lo_f <= tol * exact_lo
        assert not exact_lo - 0 <= tol * exact_lo  # negative control: the first lower end, 0, fails
    else:
        assert hi_f - exact_hi <= tol * exact_hi
        assert not F(1, 1 << s0) - exact_hi <= tol * exact_hi  # the first upper end, 2^-130, fails


# ---- the hockey-stick's backward direction can decide the supremum ---------------------------


def _hockey_stick_directions(k: int, beta: Fraction, eps: Fraction, n: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(forward, backward) hockey-stick values of one group size's output laws (TR Alg. 4:
    P_n = sample of n, Q_n = of n − 1; CP Def. 2): sum over outputs of (P − e^ε Q)+ and of
    (Q − e^ε P)+, at 300 bits from the exact laws."""
    from dps_verify.worstcase.sdgs_generic import output_laws

    with mpmath.workprec(300):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        P, Q = output_laws(n, k, beta)

        def mp(x: Fraction) -> mpmath.mpf:
            return mpmath.mpf(x.numerator) / x.denominator

        keys = set(P) | set(Q)
        fwd = mpmath.fsum(max(mp(P.get(x, F(0))) - e * mp(Q.get(x, F(0))), 0) for x in keys)
        bwd = mpmath.fsum(max(mp(Q.get(x, F(0))) - e * mp(P.get(x, F(0))), 0) for x in keys)
    return fwd, bwd


def test_backward_direction_decides_the_hockey_stick_supremum_below_the_edge():
    """k = 20, β = 949/1000, ε = 1/100 (far below CP Thm 5's edge −ln(0.051) = 2.98): at
    n = 21 the backward value (Q_n − e^ε P_n)+ = 0.355110 is above every forward value (the
    largest, also at n = 21, is 0.354506), so a walk that loses the backward pair reports a
    maximum 6·10^-4 too low.  The capped walk (n ≤ 25) and the uncapped scan both enclose the
    brute-force supremum, and the capped walk's lower end is within 2^-50 of it."""
    k, beta, eps, cap = 20, F(949, 1000), F(1, 100), 25
    vals = [_hockey_stick_directions(k, beta, eps, n) for n in range(k, cap + 1)]
    ref = max(max(f, b) for f, b in vals)
    fwd_only = max(f for f, _ in vals)
    assert ref == vals[1][1] and ref - fwd_only > mpmath.mpf("5e-4")  # n = 21's backward value
    capped = sdgs.scan(k, beta, eps, measure="hockey-stick", max_n=cap)
    assert capped.details["argmax_n"] == 21
    with mpmath.workprec(300):
        lo = mpmath.mpf(capped.lower.numerator) / capped.lower.denominator
        hi = mpmath.mpf(capped.upper.numerator) / capped.upper.denominator
        assert lo <= ref <= hi
        assert ref - lo <= ref * mpmath.mpf(2) ** -50
        assert not ref - fwd_only <= ref * mpmath.mpf(2) ** -50  # negative control: the forward maximum fails
    full = sdgs.scan(k, beta, eps, measure="hockey-stick")  # past the budget: the segment route
    with mpmath.workprec(300):
        full_lo = mpmath.mpf(full.lower.numerator) / full.lower.denominator
        full_hi = mpmath.mpf(full.upper.numerator) / full.upper.denominator
        assert full_hi >= ref  # the supremum over every n is at least the capped one
        assert ref - full_lo <= ref * mpmath.mpf(2) ** -50  # and its best lower end is n = 21's


# ---- _n_min_E from float guesses that are wrong ------------------------------------------------


def _least_start(k: int, beta: Fraction, eps: Fraction) -> int:
    """Brute force of n_m (CP App. A.2): the least n >= 0 with (n + 1 − k)·e^ε >= (n + 1)(1 − β),
    i.e. γ(n + 1) >= k, at 200 bits (the cases below are far from ties)."""
    with mpmath.workprec(200):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        b = mpmath.mpf(beta.numerator) / beta.denominator
        return next(n for n in range(0, 10**6) if n + 1 - k > 0 and (n + 1 - k) * e >= (n + 1) * (1 - b))


@pytest.mark.parametrize("lie", ["gamma_zero", "guess_high", "guess_higher", "guess_low"])
@pytest.mark.parametrize("k", [1, 4, 30])
def test_least_start_is_exact_whatever_the_float_guess(monkeypatch, lie, k):
    """The float γ only proposes where _n_min_E's exact walk starts: a float ε of −ln 2 (γ is
    0.0 exactly at β = 1/2: the guess falls back to k), a quarter or 1/3.5 of ε (γ too small:
    guesses far above n_m, an odd and an even distance away, walked down one by one) or four
    times ε (walked up) give the brute-force n_m."""
    beta, eps = F(1, 2), F(3, 2)  # in CP Thm 5's regime: 3/2 > ln 2
    want = _least_start(k, beta, eps)
    true_eps = float(eps)
    fake = {"gamma_zero": -math.log(2), "guess_high": true_eps / 4, "guess_higher": true_eps / 3.5,
            "guess_low": true_eps * 4}[lie]
    if lie == "gamma_zero":
        assert 1 - (1 - float(beta)) * math.exp(-min(fake, 700.0)) == 0.0
    monkeypatch.setattr(sdgs, "eps_float", lambda e: fake)
    assert sdgs._n_min_E(k, beta, eps, sdgs._Exp(eps)) == want
    if lie.startswith("guess_high") and k > 1:  # the guess really is above n_m (the walk down is exercised)
        g = 1 - (1 - float(beta)) * math.exp(-fake)
        assert math.ceil(k / g - 1) > want
