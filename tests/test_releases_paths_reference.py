"""inverse.releases on the paths its default inputs never take — sizes below the threshold and
below two records, the previous scan algorithm (``method="scan"``: enclosure budget, tail start
not found), a tail-start search cut short by ``n_limit``, a float screen that is wrong (it only
orders work: the result must hold whatever it says), the finite range ``n_max`` — each checked
against the exact T-fold δ of the thresholded count (CP Def. 2, CP §2.7), every T-tuple of
outputs enumerated in Fractions, on small groups (milliseconds to a few tenths of a second)."""

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import _law, exact_delta  # exact law and T-fold δ


def _holds(r: R.ReleasesResult, k: int, beta: F, x: F, times: int, upto: int) -> F:
    """The result encloses the sup over n, which is attained at or below ``upto`` for the
    parameters used here; its width note appears exactly when it is wider than asked."""
    worst = max(exact_delta(n, k, beta, x, times) for n in range(k, upto + 1))
    assert r.delta.lower <= worst <= r.delta.upper <= 1  # (δ_T(n) decreases past ``upto``)
    met = r.delta.upper <= r.delta.lower * F(101, 100)
    assert (r.target_missed is None) is met
    assert ("target width missed" in r.delta.how) is not met
    return worst


@pytest.mark.parametrize("k,beta,times", [(3, F(1, 4), 2), (5, F(2, 3), 1)])
def test_cheap_bounds_at_both_sides_of_the_threshold(k: int, beta: F, times: int) -> None:
    # below k both part laws are "suppressed" with certainty (δ = 0); at k the released count k
    # has infinite loss, so δ > 0 at every ε, and each bound is at least the exact value
    for eps, x in ((0, F(1)), ("ln(3/2)", F(3, 2))):
        assert exact_delta(k - 1, k, beta, x, times) == 0
        assert R.thresholded_bound(k - 1, k, beta, eps, times) == 0
        assert R.tv_bound(k - 1, beta, times, k) == 0
        at_k = exact_delta(k, k, beta, x, times)
        assert 0 < at_k <= R.thresholded_bound(k, k, beta, eps, times) <= 1
        assert exact_delta(k, k, beta, F(1), times) <= R.tv_bound(k, beta, times, k)
    # the untruncated pair needs two records (U_1 against U_0): below that the trivial bound 1
    assert R.untruncated_bound(1, beta, 0, times) == 1
    u2 = R.untruncated_bound(2, beta, 0, times)
    assert exact_delta(2, 0, beta, F(1), times) <= u2 < 1


def test_an_unknown_method_is_refused() -> None:
    with pytest.raises(ParameterError, match="method must be 'screen' or 'scan', got 'fast'"):
        R.releases_delta(2, F(1, 4), 0, 2, method="fast")


@pytest.mark.parametrize("k,beta,eps,x,times", [(2, F(1, 4), 0, F(1), 2),
                                                (3, F(1, 2), "ln(3/2)", F(3, 2), 3)])
def test_scan_method_encloses_the_worst_size(k, beta, eps, x, times) -> None:
    r = R.releases_delta(k, beta, eps, times, method="scan")
    worst = _holds(r, k, beta, x, times, r.tail_from - 1)
    assert r.covers_all_n and r.bound_source == "enclosure" and r.target_missed is None
    assert r.scanned == (k, r.tail_from - 1)  # every size below the tail start, one by one
    assert f"n in [{k}, {r.tail_from - 1}] enclosed" in r.delta.how
    assert r.delta.lower == worst == r.delta.upper  # every size exact here
    assert r.argmax_n == min(n for n in r.enclosed if exact_delta(n, k, beta, x, times) == worst)
    assert set(r.details["fine_enclosures"]) == set(r.enclosed)
    assert r.details["coarse_enclosures"] == []


def test_scan_method_without_enclosure_budget_keeps_the_cheap_bound() -> None:
    # only n = k is enclosed; the worst size n = 3 keeps its Chernoff/TV bound, which sets the
    # upper end (wider than asked, and said so)
    k, beta, x, times = 2, F(1, 4), F(1), 2
    r = R.releases_delta(k, beta, 0, times, method="scan", max_enclosures=0)
    _holds(r, k, beta, x, times, r.tail_from - 1)
    assert r.enclosed == (k,) and r.bound_source == "cheap"
    assert r.delta.upper == R.thresholded_bound(r.argmax_n, k, beta, 0, times)
    assert "enclosure budget max_enclosures = 0 reached" in r.delta.how


@pytest.mark.parametrize("method", ["scan", "screen"])
def test_tail_start_not_searched_past_n_limit(method: str) -> None:
    # n_limit = k: no size above k is searched, the tail bound of the untruncated pair at k + 1
    # covers every n > k and sets the upper end
    k, beta, x, times = 2, F(1, 4), F(1), 2
    r = R.releases_delta(k, beta, 0, times, method=method, n_limit=k)
    _holds(r, k, beta, x, times, 6)
    assert r.tail_from == k + 1 and r.bound_source == "tail" and r.argmax_n == k + 1
    assert r.delta.upper == r.tail_bound == R.untruncated_bound(k + 1, beta, 0, times)
    assert r.delta.lower == exact_delta(k, k, beta, x, times)
    assert r.target_missed is not None and "monotone tail bound for n >= 3" in r.target_missed


def test_tail_start_not_found_below_n_limit() -> None:
    # n_limit = 4: the untruncated bounds at 3 and 4 stay above the enclosed δ, so no tail start
    # is found; the bound at n_limit + 1 = 5 is used as it is, and the sizes 3..4 are bounded
    k, beta, x, times = 2, F(1, 4), F(1), 2
    r = R.releases_delta(k, beta, 0, times, n_limit=4)
    worst = _holds(r, k, beta, x, times, 8)
    assert r.tail_from == 5 and r.tail_bound == R.untruncated_bound(5, beta, 0, times)
    assert r.delta.lower == worst  # the worst size (3) is enclosed exactly
    assert r.delta.upper == max(r.tail_bound, R.thresholded_bound(4, k, beta, 0, times))


@pytest.mark.parametrize("screen,max_enclosures", [(lambda n, *a, **kw: 0.0, 6),
                                                    (lambda n, *a, **kw: 1.0 / n, 0)])
def test_screened_result_holds_whatever_the_float_screen_says(monkeypatch, screen, max_enclosures) -> None:
    # the worst size is n = 5 (not k = 2); a screen that says nothing or ranks the smallest size
    # first only changes the order of work: every size is certified
    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    monkeypatch.setattr(R, "_screen_delta", screen)
    r = R.releases_delta(k, beta, "ln(11/10)", times, max_enclosures=max_enclosures)
    worst = _holds(r, k, beta, x, times, 8)
    assert worst == exact_delta(5, k, beta, x, times)
    assert r.scanned == (k, r.tail_from - 1)
    assert sum(r.details["bounds_by_kind"].values()) + len(r.enclosed) == r.tail_from - k


def test_finite_range_encloses_each_size_and_says_it_covers_only_that_range() -> None:
    k, beta, x, times = 2, F(1, 4), F(1), 2
    r = R.releases_delta(k, beta, 0, times, n_max=4)
    assert not r.covers_all_n and r.scanned == (2, 4) and r.enclosed == (2, 3, 4)
    worst = max(exact_delta(n, k, beta, x, times) for n in (2, 3, 4))
    assert r.delta.lower == worst == r.delta.upper and r.argmax_n == 3 == r.delta.details["argmax_n"]
    assert "n in [2, 4] only" in r.delta.how and r.tail_from is None


@pytest.mark.parametrize("n_max", [2, 3])
def test_finite_range_encloses_the_worst_size_up_to_n_max_and_no_further(n_max: int) -> None:
    # δ_2(n) at ε = 0, k = 2, β = 1/4 grows from n = 2 to its peak at n = 3: a range ending
    # below the peak must not take in the next size (its δ would lift both ends past the range's)
    k, beta, x, times = 2, F(1, 4), F(1), 2
    deltas = {n: exact_delta(n, k, beta, x, times) for n in range(k, n_max + 2)}
    assert deltas[k] < deltas[k + 1] > deltas[k + 2] if n_max == 3 else deltas[k] < deltas[k + 1]
    r = R.releases_delta(k, beta, 0, times, n_max=n_max)
    worst = max(deltas[n] for n in range(k, n_max + 1))
    assert r.delta.lower == worst == r.delta.upper and r.enclosed == tuple(range(k, n_max + 1))
    assert k <= r.argmax_n <= n_max and deltas[r.argmax_n] == worst


def _grid_enclosures(monkeypatch) -> None:
    """Every size's enclosure through the discretised PLD (exact_budget = 0) instead of the
    exact one, so that the enclosures are true intervals (coarse and fine ones differ)."""
    real = R.pair_delta_enclosure
    monkeypatch.setattr(R, "pair_delta_enclosure",
                        lambda p, q, eps, times, **kw: real(p, q, eps, times, exact_budget=0, **kw))


@pytest.mark.parametrize("k,beta,eps,x,times", [(2, F(1, 4), 0, F(1), 2),
                                                (3, F(1, 2), "ln(3/2)", F(3, 2), 3)])
def test_scan_method_with_grid_enclosures_refines_the_top_size(monkeypatch, k, beta, eps, x, times) -> None:
    # sizes above the running bound get a coarse enclosure (rtol 0.2) first; the size that
    # stays on top gets a fine one (rtol 0.01), so the result is as narrow as asked
    _grid_enclosures(monkeypatch)
    r = R.releases_delta(k, beta, eps, times, method="scan")
    _holds(r, k, beta, x, times, 6)
    assert r.mode == "discretised" and r.target_missed is None
    fine, coarse = r.details["fine_enclosures"], r.details["coarse_enclosures"]
    assert coarse and set(fine) | set(coarse) == set(r.enclosed) and k in fine
    assert r.argmax_n in fine  # the top size was refined
    assert r.delta.upper <= exact_delta(r.argmax_n, k, beta, x, times) * F(101, 100)


def test_finite_range_says_when_its_enclosures_are_wider_than_asked(monkeypatch) -> None:
    _grid_enclosures(monkeypatch)
    k, beta, x, times = 2, F(1, 4), F(1), 2
    r = R.releases_delta(k, beta, 0, times, n_max=3, rtol=1e-12)
    worst = max(exact_delta(n, k, beta, x, times) for n in (2, 3))
    assert r.delta.lower <= worst <= r.delta.upper and r.mode == "discretised"
    excess = r.delta.upper / r.delta.lower - 1
    assert excess > F(1, 10**12)
    assert r.target_missed is not None and r.target_missed in r.delta.how
    assert "set by the enclosure at n = 3" in r.target_missed
    # a ratio this close to 1 is named by its excess, rounded up (never "1" or "1.001")
    shown = r.target_missed.split("upper/lower = 1 + ")[1].split(" ")[0]
    assert excess <= F(shown) <= excess * F(1001, 1000)
    assert "> 1 + rtol = 1 + 1e-12," in r.target_missed


@pytest.mark.parametrize("max_enclosures", [1, 0])
def test_screened_sizes_that_no_bound_brings_below_the_target(monkeypatch, max_enclosures) -> None:
    # a per-size bound that never reaches the target (the vacuous bound 1, as from a grid over
    # its budget): each such size is a worst size the screen missed and is enclosed, up to
    # 1 + 2·max_enclosures enclosures in all; past that, its Chernoff/TV bound is kept and may set the
    # upper end (said so)
    from dps_verify.core.numbers import Certified

    monkeypatch.setattr(R, "upper_below",
                        lambda *a, **kw: Certified(F(0), F(1), "vacuous", {"mode": "discretised"}))
    k, beta, x, times = 2, F(1, 10), F(11, 10), 4
    r = R.releases_delta(k, beta, "ln(11/10)", times, max_enclosures=max_enclosures)
    worst = _holds(r, k, beta, x, times, 8)
    assert r.delta.lower == worst == exact_delta(5, k, beta, x, times)  # n = 5 is enclosed
    # n = k, the screen's argmax n = 5 (step 1, always), then misses while the budget lasts
    assert 5 in r.enclosed and len(r.enclosed) == max(2, 1 + 2 * max_enclosures)
    kinds = r.details["bounds_by_kind"]
    assert set(kinds) == {"cheap"} and kinds["cheap"] + len(r.enclosed) == r.tail_from - k
    cheap = [n for n in range(k + 1, r.tail_from) if n not in r.enclosed]
    assert r.bound_source == "bound" and r.argmax_n in cheap
    assert r.delta.upper == max(R.thresholded_bound(n, k, beta, "ln(11/10)", times) for n in cheap)


def test_every_cheap_bound_ball_runs_at_the_documented_128_bits(monkeypatch) -> None:
    # the Chernoff and TV bounds read β, the masses and the ratios through arb_fraction and leave
    # their balls through _upper, inside the working-precision blocks: record the precision
    import flint

    seen: set[int] = set()
    arb_q, upper = R.arb_fraction, R._upper

    def spy_q(x):  # type: ignore[no-untyped-def]
        seen.add(flint.ctx.prec)
        return arb_q(x)

    def spy_up(x):  # type: ignore[no-untyped-def]
        seen.add(flint.ctx.prec)
        return upper(x)

    monkeypatch.setattr(R, "arb_fraction", spy_q)
    monkeypatch.setattr(R, "_upper", spy_up)
    beta = F(1, 3)
    R.thresholded_bound(4, 2, beta, "ln(3/2)", 3)  # _pair_bound, thresholded
    R.thresholded_bound(1, 1, beta, "ln(3/2)", 3)  # chernoff_bound on the exact laws
    R.untruncated_bound(5, beta, "ln(3/2)", 3)  # tv_bound and _pair_bound, untruncated
    assert seen == {R.BALL_PREC} == {128}


# ---- the cheap bounds against their definitions, evaluated independently at 60 digits ---------


def _chernoff_reference(p: dict, q: dict, x: F, times: int):  # type: ignore[no-untyped-def]
    """The module doc's bound, min over the screened λ grid: per direction
    1 − (1 − p∞)^T + C_λ x^(−λ) M(λ)^T, C_λ = λ^λ/(1 + λ)^(1+λ), M(λ) = Σ P·(P/Q)^λ over the
    outputs Q can produce (capped at 1); the worse direction.  mpmath at 60 digits."""
    import mpmath

    def mp(v: F):  # type: ignore[no-untyped-def]
        return mpmath.mpf(v.numerator) / v.denominator

    out = mpmath.mpf(0)
    with mpmath.workdps(60):
        for a, b in ((p, q), (q, p)):
            p_inf = sum((v for o, v in a.items() if v and not b.get(o)), F(0))
            inf = 1 - (1 - mp(p_inf)) ** times
            fin = [(mp(v), mp(v / b[o])) for o, v in a.items() if v and b.get(o)]
            best = min(inf + (lam**lam / (1 + lam) ** (1 + lam)) * mp(x) ** (-lam)
                       * sum(pr * r**lam for pr, r in fin) ** times
                       for lam in (mpmath.mpf(float(v)) for v in R.LAMBDAS))
            out = max(out, min(best, mpmath.mpf(1)))
    return out


@pytest.mark.parametrize("n,k,beta,x,times", [(4, 2, F(1, 3), F(3, 2), 3), (6, 2, F(1, 4), F(2), 5),
                                              (5, 3, F(1, 2), F(11, 10), 2), (8, 0, F(1, 3), F(3, 2), 4),
                                              (3, 1, F(1, 5), F(1), 2)])
def test_cheap_bounds_are_their_definitions_at_the_best_screened_lambda(n, k, beta, x, times) -> None:
    # the Chernoff bound (both forms: from the exact laws, and from the closed-form binomial laws
    # of the pair) is the smallest over the λ grid, to float accuracy and never below it; the TV
    # bound is 1 − (1 − TV)^T of the exact TV of the (thresholded) pair; the cheap bound is the
    # smaller of the two, and all are at least the exact δ
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    eps = "0" if x == 1 else f"ln({x})"
    ref = _chernoff_reference(p, q, x, times)
    import mpmath

    for b in (R.chernoff_bound(p, q, eps, times),
              R._pair_bound(n, k or None, beta, R.epsilon_param(eps), times)):
        with mpmath.workdps(60):
            bm = mpmath.mpf(b.numerator) / b.denominator
            assert ref * (1 - mpmath.mpf(10) ** -40) <= bm <= ref * (1 + mpmath.mpf(10) ** -13)
    tv1 = sum((max(F(0), v - q.get(o, F(0))) for o, v in p.items()), F(0))
    tv = R.tv_bound(n, beta, times, k)
    assert 1 - (1 - tv1) ** times <= tv <= (1 - (1 - tv1) ** times) * (1 + F(1, 10**30))
    cheap = R.thresholded_bound(n, k, beta, eps, times) if k else R.untruncated_bound(n, beta, eps, times)
    assert cheap == min(tv, R._pair_bound(n, k or None, beta, R.epsilon_param(eps), times))
    assert exact_delta(n, k, beta, x, times) <= cheap


@pytest.mark.parametrize("n,k,beta,x,times", [(6, 2, F(1, 4), F(2), 5), (5, 2, F(1, 10), F(11, 10), 4),
                                              (7, 3, F(1, 2), F(3, 2), 3), (4, 1, F(1, 3), F(1), 6),
                                              (9, 2, F(1, 3), F(5, 4), 2)])
def test_float_screen_tracks_the_exact_delta_at_interior_sizes(n, k, beta, x, times) -> None:
    # the screen only orders work, but it is meant to be an estimate: the mean-preserving split
    # keeps its error of second order in the grid step (at most 1.3e-5 relative at 4096 bins and
    # 8e-7 at 16384 here, folded window included: a grid 1.5 times coarser is outside the
    # tolerance); β as a float or as the exact Fraction
    import math

    exact = float(exact_delta(n, k, beta, x, times))
    for bins, tol in zip(R.SCREEN_BINS, (2e-5, 1.5e-6)):
        for b in (float(beta), beta):
            s = R.screen_delta(n, k, b, math.log(x), times, bins)
            assert abs(s / exact - 1) <= tol, (bins, s, exact)



def test_float_screen_for_beta_within_a_float_ulp_of_one() -> None:
    # β = 1 − 10^-20: float(β) = 1 and the released count n has mass β^n, which rounds to 1.0;
    # the screen then takes the infinite-loss part 1 − (1 − p∞)^T as 1 (no log1p(−1))
    beta = 1 - F(1, 10**20)
    for n in (2, 3):
        exact = float(exact_delta(n, 2, beta, F(3), 2))
        for bins in R.SCREEN_BINS:
            assert R.screen_delta(n, 2, beta, 1.0986122886681098, 2, bins) == 1.0 == exact


@pytest.mark.parametrize("k,beta,eps,times", [(2, F(1, 4), "ln(11/10)", 6), (3, F(1, 2), "ln(3/2)", 3)])
def test_screened_sizes_are_those_above_k_below_the_tail_start(k, beta, eps, times) -> None:
    # here the first tail start is the final one: every size k < n < A is screened once, and no
    # other size
    r = R.releases_delta(k, beta, eps, times)
    assert r.details["screened"] == r.tail_from - k - 1 > 0


def test_scan_method_for_a_tiny_beta_starts_the_tail_above_k() -> None:
    # β = 10^-400: every bound is below ATOL = 1e-30, so the tail start is the first size
    # searched, k + 1 (not k: the size k is enclosed); the note says a tail start was found
    beta = F(1, 10**400)
    r = R.releases_delta(2, beta, 1, 2, method="scan")
    assert r.tail_from == 3 and r.enclosed == (2,) and r.bound_source == "tail"
    assert r.delta.lower == 1 - (1 - beta**2) ** 2 == exact_delta(2, 2, beta, F(3), 2)
    assert r.delta.upper == R.untruncated_bound(3, beta, 1, 2) < R.ATOL
    assert "monotone tail bound for n >= 3" in r.delta.how and "no tail start found" not in r.delta.how
    cut = R.releases_delta(2, beta, 1, 2, method="scan", n_limit=2)
    assert "no tail start found up to n_limit = 2" in cut.delta.how


def test_the_fft_error_model_is_named_exactly_when_a_grid_bound_may_rest_on_it(monkeypatch) -> None:
    # exact everywhere: no FFT, no assumption named; a grid bound composed by FFT: named once;
    # the same grid bounds composed by direct convolution (fft=False): not named
    from dps_verify.inverse.pld_discrete import FFT_ASSUMPTION

    exact = R.releases_delta(2, F(1, 4), 0, 2)
    assert exact.mode == "exact" and FFT_ASSUMPTION not in exact.delta.how
    real = R.pair_delta_enclosure
    monkeypatch.setattr(R, "pair_delta_enclosure",
                        lambda p, q, eps, times, **kw: real(p, q, eps, times, exact_budget=0, **kw))
    for fft in (True, False):
        r = R.releases_delta(2, F(1, 4), 0, 2, n_max=3, fft=fft)
        assert r.mode == "discretised"
        assert r.delta.how.count(FFT_ASSUMPTION) == (1 if fft else 0)
