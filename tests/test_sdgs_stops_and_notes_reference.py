"""Stopping points, run-time work and how-texts of the exact worst-case walk (worstcase/sdgs.py)
against references computed here from the definitions.

* at ε = 0 the hockey-stick walk stops at the first *scheduled* group size N (n0 + 1, then
  N + max(1, ⌊N/16⌋)) where β·max pmf Bin(N−1, β) = TV(Bin(N), Bin(N−1)) is at most the best
  value, the values being the exact total variations of the output laws (CP App. A.2);
* the value 1 (the largest possible) ends the walk at once and the how-text says so;
* the how-text names a skipped range k ≤ n < n0 exactly when the walk started above k;
* the run-time work guard counts Σ bits(q^n) over the group sizes walked, refusing past 4×budget;
* the downward walk of the skipped range (hockey-stick) stops where β f(k−1; n−1) ≤ best with
  n − 1 at or below the last increasing point of f(k−1; ·), an exact tie included;
* n_min refuses k < 1, and the scan's n_min through e^ε's enclosure equals the definition's least
  n with γ(n+1) ≥ k also at β = 1;
* the Chernoff ball comparison runs first at 64 + bits(N) bits, then at 4× that.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from math import comb

import mpmath
import pytest

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.worstcase import sdgs
from dps_verify.worstcase.sdgs_generic import output_laws

F = Fraction


def _tv(n: int, k: int, beta: Fraction) -> Fraction:
    """TV(P_n, Q_n) of the output laws, exactly: the hockey-stick δ at ε = 0."""
    P, Q = output_laws(n, k, beta)
    return sum((max(P.get(j, F(0)) - Q.get(j, F(0)), F(0)) for j in set(P) | set(Q)), F(0))


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _max_pmf(m: int, beta: Fraction) -> Fraction:
    return max(comb(m, j) * beta**j * (1 - beta) ** (m - j) for j in range(m + 1))


def _tv_stop_reference(k: int, beta: Fraction) -> tuple[int, Fraction]:
    """(stop N, best value) of the ε = 0 hockey-stick walk from n0 = k, brute force."""
    best, n, next_check = F(0), k, k
    while True:
        best = max(best, _tv(n, k, beta))
        N = n + 1
        if N >= next_check:
            if beta * _max_pmf(N - 1, beta) <= best:
                return N, best
            next_check = N + max(1, N // 16)
        n += 1


@pytest.mark.parametrize("k, beta", [(5, F(1, 10)), (1, F(1, 10)), (20, F(1, 2)), (2, F(1, 3)), (4, F(2, 5)), (2, F(7, 10))])
def test_epsilon_zero_hockey_stick_stops_at_the_first_scheduled_tv_check_below_the_best(k, beta):
    stop, best = _tv_stop_reference(k, beta)
    got = sdgs.scan(k, beta, F(0), measure="hockey-stick")
    assert got.lower <= best <= got.upper
    assert f"stopped at n = {stop}: for every n' ≥ {stop}, δ ≤ TV" in got.how
    assert got.details["n_start"] == k and got.details["n_scanned"] == stop - k


@pytest.mark.parametrize("k, beta, eps", [(3, F(1, 2), F(0)), (1, F(1, 2), F(0)), (5, F(1, 3), F(1, 10))])
def test_the_value_one_ends_the_pointwise_walk_and_its_how_text_says_so(k, beta, eps):
    got = sdgs.scan(k, beta, eps, measure="pointwise")
    n = got.details["argmax_n"]
    # the definition: the pointwise δ of the output laws at that group size is 1, below it < 1
    from dps_verify.measures.divergence import pointwise_delta_exact

    assert pointwise_delta_exact(*output_laws(n, k, beta), eps) == 1
    assert all(pointwise_delta_exact(*output_laws(m, k, beta), eps) < 1 for m in range(1, n))
    assert got.lower == got.upper == 1
    assert got.how.endswith(f"stopped at n = {n}: the value 1 (the largest possible) is attained")
    assert got.details["n_scanned"] == n - got.details["n_start"] + 1


@pytest.mark.parametrize(
    "k, beta, eps, measure",
    [
        (1, F(1, 2), F(0), "hockey-stick"),
        (3, F(1, 2), F(5), "hockey-stick"),  # in the regime with n_m ≤ k: start at k
        (3, F(1, 2), F(5), "pointwise"),
        (5, F(1, 3), F(1, 10), "hockey-stick"),  # below the edge: start at k
        (4, F(1, 2), F(1), "hockey-stick"),  # start at n_m > k
        (4, F(1, 2), F(1), "pointwise"),
    ],
)
def test_how_text_names_a_skipped_range_exactly_when_the_walk_started_above_k(k, beta, eps, measure):
    got = sdgs.scan(k, beta, eps, measure=measure)
    start = got.details["n_start"]
    # the start is the least n ≥ k with γ(n + 1) ≥ k in the regime, k below it (definition)
    regime = eps > 0 and math.exp(float(eps)) * float(1 - beta) >= 1
    want = k
    if regime:
        while not (want + 1 - k > 0 and (want + 1 - k) * mpmath.e ** mpmath.mpf(float(eps)) >= (want + 1) * float(1 - beta)):
            want += 1
    assert start == max(want, k)
    assert (f"for {k} ≤ n < " in got.how) == (start > k)


def test_work_guard_counts_the_bits_of_q_to_the_n_over_the_group_sizes_walked():
    """k = 5, β = 1/3, ε = 1/10 (below the edge, start at k = 5): W = Σ bits(3^n) over the group
    sizes walked before the stop; a budget of W/4 lets the walk finish, (W − 1)/4 refuses it."""
    k, beta, eps = 5, F(1, 3), F(1, 10)
    whole = sdgs.scan(k, beta, eps, measure="hockey-stick", long_range=False)
    last = k + whole.details["n_scanned"] - 1  # the walk stops at this n before counting it
    W = sum((3**n).bit_length() for n in range(k, last))
    E = sdgs._Exp(eps)
    got = sdgs._scan_from(k, beta, eps, "hockey-stick", k, E, True, None, W / 4)
    assert got is not None and (got.lower, got.upper) == (whole.lower, whole.upper)
    with pytest.raises(CertificationError, match=f"at group size n = {last - 1};"):
        sdgs._scan_from(k, beta, eps, "hockey-stick", k, E, True, None, (W - 1) / 4)


def _exact_best(v: Fraction) -> sdgs._Best:
    return sdgs._Best(lo_num=v.numerator, lo_den=v.denominator, hi_num=v.numerator, hi_den=v.denominator, n=99)


def _f(j: int, m: int, beta: Fraction) -> Fraction:
    return comb(m, j) * beta**j * (1 - beta) ** (m - j) if 0 <= j <= m else F(0)


def test_downward_walk_takes_the_bound_at_the_last_increasing_point():
    """k = 3, β = 1/3: f(2; m) increases up to m = 6 = (k − 1)/β (brute force below), so at
    n0 − 1 = 7 (m = 6) the bound β f(2; 6) ≤ 1 already covers every smaller n: nothing is
    computed and n0 comes back."""
    k, beta = 3, F(1, 3)
    fs = [_f(k - 1, m, beta) for m in range(k - 1, 7)]
    assert all(a <= b for a, b in zip(fs, fs[1:], strict=False)) and _f(k - 1, 7, beta) < _f(k - 1, 6, beta)
    assert sdgs._hockey_stick_below(k, beta, sdgs._Exp(F(2)), 8, _exact_best(F(1))) == (8, False)
    # one further up (m = 7, past the peak) the value at n = 8 is computed first
    assert sdgs._hockey_stick_below(k, beta, sdgs._Exp(F(2)), 9, _exact_best(F(1))) == (9 - 1, False)


@pytest.mark.parametrize("offset, want", [(0, 24), (1, 24), (-1, None)])
def test_downward_walk_stops_at_an_exact_tie_of_its_bound_with_the_best(offset, want):
    """k = 20, β = 1/2, ε = 1, n0 = 24: the bound at n = 23 is β f(19; 22) = C(22, 19)/2^23.  A
    best equal to it (or above) stops the walk at once; just below it, n = 23 is computed."""
    k, beta, n0 = 20, F(1, 2), 24
    bound = beta * _f(k - 1, n0 - 2, beta)
    assert bound == F(comb(22, 19), 2**23)
    best = _exact_best(bound + F(offset, 2**80))
    n_low, truncated = sdgs._hockey_stick_below(k, beta, sdgs._Exp(F(1)), n0, best)
    assert not truncated
    if want is None:
        assert n_low < n0
    else:
        assert n_low == want


@pytest.mark.parametrize("k", [0, -1, -5])
def test_least_start_refuses_k_below_one(k):
    with pytest.raises(ParameterError, match="k >= 1"):
        sdgs.n_min(k, F(1, 2), F(1))


@pytest.mark.parametrize("k, beta, eps", [(1, F(1, 2), F(1)), (1, F(1, 10), F(5)), (3, F(1), F(1)), (7, F(1), F(1, 3))])
def test_least_start_equals_the_definition_also_at_beta_one(k, beta, eps):
    """n_m = least n ≥ 0 with n + 1 − k > 0 and (n + 1 − k) e^ε ≥ (n + 1)(1 − β) (brute force)."""
    n = 0
    while not (n + 1 - k > 0 and (n + 1 - k) * mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator) >= (n + 1) * _mp(1 - beta)):
        n += 1
    assert sdgs.n_min(k, beta, eps) == n
    assert sdgs._n_min_E(k, beta, eps, sdgs._Exp(eps)) == n


def test_chernoff_ball_comparison_runs_at_64_plus_the_bits_of_n_then_four_times_that(monkeypatch):
    """A spy on python-flint's precision: an undecided first ball (a best equal to the bound
    within its radius) is evaluated at 64 + bits(N) bits, then at 4× that; the answers agree with
    a 200-digit reference of exp(−N·KL(γ‖β)) ≤ best."""
    import flint

    seen: list[int] = []

    class Ctx:
        @property
        def prec(self) -> int:
            return flint.ctx.prec

        @prec.setter
        def prec(self, v: int) -> None:
            seen.append(v)
            flint.ctx.prec = v

    class Flint:
        arb, fmpq, ctx = flint.arb, flint.fmpq, Ctx()

    monkeypatch.setattr(sdgs, "_flint_or_none", lambda: Flint)
    beta, eps, N = F(1, 3), F(2), 1000
    with mpmath.workdps(200):
        b = mpmath.mpf(1) / 3
        g = 1 - (1 - b) * mpmath.exp(-2)
        bound = mpmath.exp(-N * (g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))))
        man, exp_ = mpmath.frexp(bound)
        num = int(mpmath.floor(man * mpmath.mpf(2) ** 400)) + 2**200  # 2^-200 above the bound
        den = 2 ** (400 - int(exp_))
        assert mpmath.mpf(num) / den > bound
    first = 64 + N.bit_length()
    # far above and far below: decided by the first ball
    for x, want in ((2 * num, True), (num // 2, False)):
        seen.clear()
        assert sdgs._chernoff_below(N, beta, eps, x, den) is want
        assert seen[0] == first and len(seen) == 2  # set, then restored
    # within 2^-200 of the bound: undecided at the first precision, decided at 4x
    seen.clear()
    assert sdgs._chernoff_below(N, beta, eps, num, den) is True
    assert seen[:2] == [first, 4 * first]
    seen.clear()
    assert sdgs._chernoff_below(N, beta, eps, num - 2**201, den) is False  # 2^-200 below
    assert seen[:2] == [first, 4 * first]


def test_restarted_walk_refused_by_its_budget_names_the_start_k():
    """After a failed skipped-range check the estimate restarts at n = k: a refusal then names
    the start k (not n_m) as where the worst group size lies."""
    k, beta, eps = 100, F(1, 10), F(1, 5)
    est = sdgs._estimate(k, beta, eps, "pointwise", False)
    work = (est["n_stop"] - k + 1) * est["bits"]
    real = sdgs._scan_from
    calls: list[int] = []

    def first_check_fails(k_, beta_, eps_, measure, n0, *rest):
        calls.append(n0)
        return None if len(calls) == 1 else real(k_, beta_, eps_, measure, n0, *rest)

    sdgs_scan_from = pytest.MonkeyPatch()
    sdgs_scan_from.setattr(sdgs, "_scan_from", first_check_fails)
    try:
        with pytest.raises(CertificationError, match=re.escape(f"near n ≈ {k} (")):
            sdgs.scan(k, beta, eps, measure="pointwise", long_range=False, budget=work * (1 - 1e-9))
    finally:
        sdgs_scan_from.undo()
    assert calls[0] > k + 200  # the first start was n_m = 380


def _least_bad_reference(n: int, beta: Fraction, eps: Fraction) -> int:
    """Least j with j > γn, γ = 1 − (1−β)e^−ε: j ≥ n or (n − j)e^ε < n(1 − β) (60 digits)."""
    with mpmath.workdps(60):
        e = mpmath.exp(_mp(eps))
        return next(j for j in range(n + 1) if j >= n or (n - j) * e < n * _mp(1 - beta))


@pytest.mark.parametrize("n, beta, eps", [(50, F(1, 3), F(1, 2)), (997, F(1, 10), F(1, 5)), (40, F(1, 2), F(1))])
def test_first_bad_walks_down_from_a_float_guess_that_is_too_high(monkeypatch, n, beta, eps):
    """The float guess of the least bad j taken at a larger ε (so it lies above the answer): the
    exact downward walk still returns the least j > γn."""
    want = _least_bad_reference(n, beta, eps)

    def fwd_bad(m: int, j: int) -> bool:
        return j >= m or sdgs._Exp(eps).less((m - j) * beta.denominator, m * (beta.denominator - beta.numerator))

    monkeypatch.setattr(sdgs, "eps_float", lambda e: float(e) + 4.0)
    gamma_high = 1 - float(1 - beta) * math.exp(-float(eps) - 4.0)
    assert int(gamma_high * n) > want  # the guess is above the answer
    assert sdgs._first_bad_E(n, beta, eps, fwd_bad) == want


@pytest.fixture
def no_flint(monkeypatch):
    """python-flint reported missing: the e^ε cache is emptied before and after (its entries
    would otherwise outlive the patch)."""
    sdgs.clear_caches()
    monkeypatch.setattr(sdgs, "_flint_or_none", lambda: None)
    yield
    monkeypatch.undo()
    sdgs.clear_caches()


def test_ball_routes_decline_without_python_flint(no_flint):
    """Without python-flint the ball helpers decline (None / False) and the mpmath.iv routes give
    the enclosures: e^ε bracketed, KL(γ‖β) bounded below (60-digit references)."""
    beta, eps = F(1, 3), F(1, 2)
    assert sdgs._exp_dyadic_arb(eps, 64) is None
    assert sdgs._kl_lower_arb(beta, eps, 64) is None
    assert sdgs._chernoff_below(10, beta, eps, 1, 2) is False
    E = sdgs._Exp(eps)
    with mpmath.workdps(60):
        e = mpmath.exp(_mp(eps))
        assert E.lo <= e * 2**E.s <= E.hi
        b = _mp(beta)
        g = 1 - (1 - b) * mpmath.exp(-_mp(eps))
        kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
        lo = sdgs.kl_lower(beta, eps)
        assert 0 < _mp(lo) <= kl and _mp(lo) > kl * (1 - mpmath.mpf(2) ** -19)


def _route_taken(monkeypatch, measure: str, work: float, budget: float = sdgs.WORK_BUDGET) -> list[str]:
    """Which route scan takes when its float estimate says ``work`` bit-steps (k = 3, β = 1/2,
    ε = 1, in CP Thm 5's regime): the exact walk and both long-range paths are spies."""
    from dps_verify.core.numbers import Certified
    from dps_verify.worstcase import long_range

    calls: list[str] = []
    real = sdgs._estimate
    done = Certified(lower=F(0), upper=F(0), how="spy", details={})

    def estimate(*args):
        return {**real(*args), "work": work}

    def spy(name):
        def record(*args, **kwargs):
            calls.append(name)
            return done

        return record

    monkeypatch.setattr(sdgs, "_estimate", estimate)
    monkeypatch.setattr(sdgs, "_scan_from", spy("exact walk"))
    monkeypatch.setattr(long_range, "sdgs_by_segments", spy("segments"))
    monkeypatch.setattr(long_range, "d_by_runs", spy("runs"))
    sdgs.scan(3, F(1, 2), F(1), measure=measure, budget=budget)
    return calls


@pytest.mark.parametrize(
    "measure, limit, far",
    [("hockey-stick", 10**9, "segments"), ("pointwise", 10**9, "segments"), ("paper-d", 2 * 10**8, "runs")],
)
def test_exact_walk_is_left_past_its_documented_work_limit(monkeypatch, measure, limit, far):
    """The exact measures leave the exact walk for segments past 10^9 estimated bit-steps (about
    1–2 s of walk), CP Thm 5's d for runs past 2·10^8: at the limit the walk, just past it the
    long-range path; a budget below the limit moves the switch down to the budget."""
    assert _route_taken(monkeypatch, measure, float(limit)) == ["exact walk"]
    assert _route_taken(monkeypatch, measure, math.nextafter(float(limit), math.inf)) == [far]
    if far == "segments":
        assert _route_taken(monkeypatch, measure, 1e6, budget=1e6) == ["exact walk"]
        assert _route_taken(monkeypatch, measure, 1e6 + 1, budget=1e6) == ["segments"]


def test_chernoff_ball_comparison_with_a_zero_best_is_false():
    """exp(−N·KL(γ‖β)) > 0, so it is never ≤ a best value of 0: python-flint's ball of ln 0 is
    NaN, undecided both ways (v ≥ 0 and v < 0 are both False), and the answer is False."""
    assert sdgs._chernoff_below(10, F(1, 3), F(1, 2), 0, 5) is False
    assert sdgs._chernoff_below(10**6, F(1, 3), F(1, 2), 0, 1) is False


def test_cmp_with_a_zero_side_equals_the_exact_comparison_short_and_long():
    """A zero numerator on either side (or both), with short denominators and with ones past the
    cross-multiplication limit (the float screen's path): the sign of the Fraction difference."""
    big = (1 << 9000) + 7
    cases = [(0, 1, 0, 1), (0, 5, 3, 7), (3, 7, 0, 5), (0, big, 1, big), (1, big, 0, big), (0, 3, 0, big),
             (0, big, 0, 3), (5, 3 * big, 0, 1), (big, 3, 0, big)]
    for a, b, c, d in cases:
        x, y = F(a, b), F(c, d)
        assert sdgs._cmp(sdgs.mpz(a), sdgs.mpz(b), sdgs.mpz(c), sdgs.mpz(d)) == (x > y) - (x < y), (a, b, c, d)


@pytest.mark.parametrize("beta, eps", [(F(1, 2), F(1)), (F(1, 3), F(2)), (F(1, 10), F(1, 2))])
def test_value_size_estimate_at_a_start_of_exactly_1e300_is_the_chernoff_exponent_times_n(beta, eps):
    """From n* = 10^300 on, the float estimate of −ln δ is KL(γ‖β)·n* (the lgamma form of the
    binomial term loses about 14 digits there): k chosen so that n* = k/γ is exactly the double
    1e300; KL from its definition at 40 digits (γ as the screen forms it in floats)."""
    from dps_verify.worstcase.gamma_gap import gamma_minus_beta_float

    b = float(beta)
    g = b + gamma_minus_beta_float(b, float(eps))
    k = next(kk for kk in (int(1e300 * g) + d for d in (0, 1, -1, 2, -2)) if max(kk / g, float(kk)) == 1e300)
    est = sdgs._estimate(k, beta, eps, "pointwise", False)
    with mpmath.workdps(40):
        G, B = mpmath.mpf(g), _mp(beta)
        kl = G * mpmath.log(G / B) + (1 - G) * mpmath.log((1 - G) / (1 - B))
        want = kl * mpmath.mpf(1e300) / mpmath.log(2)
        assert abs(est["value_bits"] / want - 1) < mpmath.mpf(1e-15)


class _FakeExp:
    """An enclosure lo/2^s ≤ e^ε ≤ hi/2^s given by hand (hi None: no upper end)."""

    def __init__(self, lo: int, hi: int | None, s: int) -> None:
        self.lo, self.hi, self.s = sdgs.mpz(lo), (None if hi is None else sdgs.mpz(hi)), s


@pytest.mark.parametrize(
    "lo, hi, As, B",
    [(11, 12, 100, 5), (11, 12, 50, 5), (11, None, 100, 5), (11, None, 50, 5), (11, 12, 56, 5), (11, 12, 0, 0)],
)
def test_clipped_affine_is_a_minus_each_end_of_e_to_eps_times_b_clipped_at_zero(lo, hi, As, B):
    """Numerators over 2^s of A − e^ε·B, A = As/2^s: the lower one from e^ε's upper end (0 when
    there is none), the upper one from its lower end, each max'd with 0 (and hi ≥ lo)."""
    E = _FakeExp(lo, hi, 4)
    want_lo = F(0) if hi is None else max(F(As) - F(hi) * B, F(0))
    want_hi = max(F(As) - F(lo) * B, want_lo)
    assert sdgs._clipped_affine(E, sdgs.mpz(As), sdgs.mpz(B)) == (want_lo, want_hi)


def test_max_pair_keeps_a_common_denominator_and_takes_each_maximum():
    """(lo, hi, den) triples: each end of the result is the larger end (Fractions), and a common
    denominator is kept as it is (not squared: ends past 1024 bits get rounded outward)."""
    d = 3**300 << 70
    got = sdgs._max_pair((5, 9, d), (7, 8, d))
    assert got == (7, 9, d)
    got = sdgs._max_pair((5, 9, 12), (7, 8, 18))
    assert F(got[0], got[2]) == max(F(5, 12), F(7, 18)) and F(got[1], got[2]) == max(F(9, 12), F(8, 18))


def test_backward_hockey_stick_ends_stay_exact_rationals_below_1024_bits():
    """k = 120, β = 1/3, ε = 1/10 (below CP Thm 5's edge): the maximum at n = 300 is an integer
    enclosure over 3^300·2^s (about 600 bits), so its ends are those rationals, not 256-bit
    dyadics (whose denominators are powers of 2), and the how-text names no rounding."""
    got = sdgs.scan(120, F(1, 3), F(1, 10), measure="hockey-stick", long_range=False)
    assert got.details["argmax_n"] == 300
    assert "rounded outward" not in got.how
    for end in (got.lower, got.upper):
        assert end.denominator % 3 == 0 and end.denominator.bit_length() <= 1024


@pytest.mark.parametrize("N, beta", [(2, F(1, 10)), (7, F(2, 5)), (30, F(7, 10)), (41, F(1, 3))])
def test_tail_bound_at_epsilon_zero_is_beta_times_the_largest_pmf_and_bounds_later_tv(N, beta):
    """At ε = 0 the hockey-stick tail bound from N on is β·max_j f(j; N − 1, β) (brute force),
    and it is at least TV(P_n, Q_n) for n = N .. N + 5 (the exact output laws); pointwise: 1."""
    got = sdgs._tail_bound(N, 1, beta, F(0), _no_exponent_at_zero, None, False, "hockey-stick")
    assert got == beta * _max_pmf(N - 1, beta)
    for k in (1, 2):
        assert all(_tv(n, k, beta) <= got for n in range(N, N + 6))
    assert sdgs._tail_bound(N, 1, beta, F(0), _no_exponent_at_zero, None, True, "pointwise") == 1


def _no_exponent_at_zero() -> F:
    raise AssertionError("the tail bound at epsilon = 0 asked for a Chernoff exponent (there is none)")


@pytest.mark.parametrize("N, k, beta, eps, backward", [(50, 3, F(1, 3), F(1, 2), False), (400, 5, F(2, 5), F(1, 10), True),
                                                       (200, 2, F(1, 2), F(1, 20), True), (9, 1, F(1, 10), F(3), False)])
def test_tail_bound_is_the_sum_of_the_chernoff_terms_it_names(N, k, beta, eps, backward):
    """ε > 0: exp(−N·KL) (forward), plus exp(−(N − 1)·KL(c_N‖β)) with c_N = max(k, γ'⁺N)/(N − 1)
    below the edge (γ'⁺ from e^ε's lower end), capped at 1, each rounded up (60-digit check)."""
    kl = sdgs.kl_lower(beta, eps)
    E = sdgs._Exp(eps)
    gp_hi = 1 - (1 - beta) * F(int(E.lo), 1 << E.s) if backward else None
    got = sdgs._tail_bound(N, k, beta, eps, lambda: kl, gp_hi, backward, "hockey-stick")
    with mpmath.workdps(60):
        want = mpmath.exp(-_mp(kl) * N)
        if backward:
            c = max(F(k), max(gp_hi, F(0)) * N) / (N - 1)
            assert c < beta
            want += mpmath.exp(-_mp(sdgs.kl_lower_below(c, beta)) * (N - 1))
        want = min(want, mpmath.mpf(1))
        assert want <= _mp(got) <= want * (1 + mpmath.mpf(2) ** -60) or (want == 1 and got == 1)


_NEG_LN_CASES = [(1, 2), (3, 7), (1, 3**200), (5**90, 7**80), (2**300 - 1, 2**300), (1, 1), (10**40, 10**40 + 1)]


def _check_neg_ln_upper() -> None:
    for num, den in _NEG_LN_CASES:
        got = sdgs._neg_ln_upper(sdgs.mpz(num), sdgs.mpz(den))
        with mpmath.workdps(80):
            true = -mpmath.log(mpmath.mpf(num) / den)
            assert true <= _mp(got), (num, den)
            # 64 bits of num/den, then a 128-bit ball: within 2^-60 of the value or absolutely
            assert _mp(got) - true <= max(true, mpmath.mpf(1)) * mpmath.mpf(2) ** -60, (num, den)


def test_neg_ln_upper_bounds_minus_log_within_64_bits_by_balls():
    """−ln(num/den) from num/den rounded down to 64 bits, in python-flint balls: never below the
    80-digit value, at most 2^−60 (relative, or absolute below 1) above it."""
    _check_neg_ln_upper()


def test_neg_ln_upper_bounds_minus_log_within_64_bits_without_python_flint(no_flint):
    """The same bound through mpmath intervals when python-flint is reported missing."""
    _check_neg_ln_upper()


_ROUNDING_CASES = [(1, 3), (3, 7), (5**90, 7**80), (10**40, 10**40 + 1), (1, 3**200)]


def _sixty_four_bits_down(num: int, den: int) -> tuple[int, int]:
    """(m, s) with m/2^s = num/den rounded down to 64 significant bits (2^63 ≤ m < 2^64)."""
    s = den.bit_length() - num.bit_length() + 64
    m = (num << s) // den
    if m >= 1 << 64:
        s -= 1
        m = (num << s) // den
    assert (1 << 63) <= m < (1 << 64)
    return m, s


def test_neg_ln_upper_is_the_ball_of_its_documented_64_bit_rounding():
    """Ball route: −ln(num/den) ≤ t·ln 2 − ln x, x = ⌊num·2^t/den⌋, t = bits(den) − bits(num) + 64
    (x of 64 or 65 bits); the answer is that number's 128-bit ball's upper end, so within 2^−120
    (relative, or absolute below 1) above it (80 digits) — a t of 63 or 65 moves it by about
    2^−64 relative, far outside."""
    for num, den in _ROUNDING_CASES:
        bound = sdgs._neg_ln_upper(sdgs.mpz(num), sdgs.mpz(den))
        t = den.bit_length() - num.bit_length() + 64
        x = (num << t) // den
        with mpmath.workdps(80):
            got = _mp(bound)
            want = t * mpmath.log(2) - mpmath.log(x)
            assert want <= got <= want + max(want, mpmath.mpf(1)) * mpmath.mpf(2) ** -120, (num, den)


def test_neg_ln_upper_without_python_flint_is_minus_log_of_num_over_den_rounded_down_to_64_bits(no_flint):
    """Interval route: −ln of num/den rounded down to 64 significant bits (mpmath from_rational,
    direction 'f'), as a 128-bit interval's upper end: within 2^−120 (relative, or absolute
    below 1) above −ln(m/2^s) (80 digits); 63 or 65 bits move it by about 2^−64, outside."""
    for num, den in _ROUNDING_CASES:
        bound = sdgs._neg_ln_upper(sdgs.mpz(num), sdgs.mpz(den))
        m, s = _sixty_four_bits_down(num, den)
        with mpmath.workdps(80):
            got = _mp(bound)
            want = s * mpmath.log(2) - mpmath.log(m)
            assert want <= got <= want + max(want, mpmath.mpf(1)) * mpmath.mpf(2) ** -120, (num, den)


def test_neg_ln_upper_with_python_flint_needs_no_mpmath_fallback(monkeypatch):
    """With python-flint the ball route answers every case itself (64 bits of num/den are
    positive for 0 < num ≤ den): the mpmath route is made to fail, and the bounds still hold."""

    def no_fallback(*args, **kwargs):
        raise AssertionError("the mpmath route of _neg_ln_upper was taken")

    monkeypatch.setattr(sdgs.libmp, "from_rational", no_fallback)
    _check_neg_ln_upper()


@pytest.mark.parametrize(
    ("k", "beta", "eps"),
    [(1, Fraction(1, 10), Fraction(1, 5)), (5, Fraction(1, 10), Fraction(1, 2)),
     (10, Fraction(1, 20), Fraction(1, 4))],
)
def test_the_skipped_range_note_names_only_ranges_that_hold_a_group_size(
        k: int, beta: Fraction, eps: Fraction) -> None:
    """The hockey-stick how-text splits the sizes below the walk's start into a bounded part and
    an exactly computed part; at k = 1 the bounded part is empty and must not be named (it read
    "for 1 ≤ n < 1 ...")."""
    how = sdgs.sdgs_delta_certified(k, beta, eps, "hockey-stick").how
    ranges = [(int(a), int(b)) for a, b in re.findall(r"(\d+) ≤ n < (\d+)", how)]
    assert ranges, how
    assert all(a < b for a, b in ranges), how
