"""inverse.pld_discrete and inverse.releases on the edges their other tests do not reach — a law
with no finite loss, one record against none (k = 1), a bound whose decimal form needs forty
digits to stay below 1, the work estimates of the exact composition — each checked against an
exact reference written from the definitions (CP Def. 2 for independent releases, CP §2.7 for
the thresholded count), in Fractions, for tiny T and group sizes (milliseconds each)."""

import math
from fractions import Fraction
from math import comb

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Certified
from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import releases as R
from dps_verify.measures.pld import PrivacyLossDistribution
from tests.test_releases_exact_reference import _law  # the thresholded count's exact law


def _hs(p: dict, q: dict, x: Fraction, times: int) -> Fraction:
    """Exact T-fold hockey-stick δ at e^ε = x of (p, q): every T-tuple of outputs enumerated."""
    tuples = {(): Fraction(1)}
    for _ in range(times):
        tuples = {t + (o,): pr * p[o] for t, pr in tuples.items() for o in p if p[o]}
    out = Fraction(0)
    for t, pr in tuples.items():
        qt = Fraction(1)
        for o in t:
            qt *= q.get(o, Fraction(0))
        out += max(Fraction(0), pr - x * qt)
    return out


# ---- direct_delta: a law whose every output has infinite loss --------------------------------


@pytest.mark.parametrize("times", [1, 2, 3])
def test_direct_delta_of_disjoint_supports_is_one(times: int) -> None:
    # P and Q never share an output: every release has infinite loss, δ_T(ε) = 1 for every ε
    p, q = {0: Fraction(1)}, {1: Fraction(1)}
    pld = PrivacyLossDistribution.from_exact_laws(p, q)
    assert not pld.ratios
    c = D.direct_delta(pld, 1, times)
    assert c.lower <= _hs(p, q, Fraction(3), times) == 1 <= c.upper <= 1


@pytest.mark.parametrize("mass", [Fraction(1, 3), Fraction(1, 10**30)])
def test_direct_delta_of_an_infinite_loss_part_alone_encloses_one_minus_the_power(mass) -> None:
    # a sub-probability PLD with mass only at infinite loss (a part of a larger law)
    pld = PrivacyLossDistribution({}, mass)
    for times in (1, 2, 5):
        exact = 1 - (1 - mass) ** times
        c = D.direct_delta(pld, 0, times)
        assert c.lower <= exact <= c.upper
        # an enclosure, not [0, 1]: 1 − (1 − p∞)^T in 128-bit balls loses about 2^-128 absolute
        # to the cancellation, so a tiny p∞ gets a relative width near 1e-9 (not 1e-12)
        assert c.upper - c.lower <= exact * Fraction(1, 10**6)


# ---- exact_compose_cost: the ratio products of repeated squaring, counted by brute force ------


def _support_bound(m: int, n: int) -> int:
    return 1 if m == 1 else comb(n + m - 1, m - 1)


def _reference_cost(m: int, times: int) -> int:
    """Ratio products of self_compose's repeated squaring: binary digits of T from the lowest;
    a square of the running power (n releases) costs est(n)², a multiply into the accumulator
    (a releases so far) est(a)·est(n)."""
    cost, acc, power = 0, 0, 1
    for bit in reversed(bin(times)[2:]):
        if bit == "1":
            if acc:
                cost += _support_bound(m, acc) * _support_bound(m, power)
            acc += power
        if acc < times:
            cost += _support_bound(m, power) ** 2
            power *= 2
    assert acc == times
    return cost


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_exact_compose_cost_counts_the_products_of_repeated_squaring(m: int) -> None:
    pld = PrivacyLossDistribution({Fraction(i + 1, 7): Fraction(1, m) for i in range(m)})
    for times in (1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 100):
        assert D.exact_compose_cost(pld, times) == _reference_cost(m, times), times
        # the support bound is C(T + m − 1, m − 1): T-multisets of m ratios
        assert D.exact_support_estimate(pld, times) == _support_bound(m, times)


def test_exact_compose_cost_stops_counting_past_every_budget() -> None:
    # huge T: counting stops once the cost exceeds 10^18 (far above every budget) and the value
    # returned is still past it, so every comparison with a budget answers as the full count
    pld = PrivacyLossDistribution({Fraction(i + 1, 7): Fraction(1, 6) for i in range(6)})
    c = D.exact_compose_cost(pld, 2**40 + 1)
    assert c > 10**18
    assert c < _reference_cost(6, 2**40 + 1)  # it did stop early (the full count is larger)


# ---- the work estimates are public: a times that is not a release count is refused ----------

_ONE_RATIO = PrivacyLossDistribution({Fraction(2): Fraction(1, 2)}, Fraction(1, 2))
_THREE_RATIOS = PrivacyLossDistribution({Fraction(i + 1, 7): Fraction(1, 3) for i in range(3)})

#: each public work estimate, called on a law and a number of releases
_ESTIMATES = {
    "exact_support_estimate": D.exact_support_estimate,
    "exact_bits_estimate": D.exact_bits_estimate,
    "exact_compose_cost": D.exact_compose_cost,
    "direct_tuples": D.direct_tuples,
    "direct_convolve_cost": lambda pld, times: D.direct_convolve_cost(len(pld.ratios), times),
}


# -1 last: without the check, times = -1 never ends direct_convolve_cost's loop (-1 >> 1 == -1)
# nor exact_compose_cost's for one ratio; 0 first fails such a code at once
@pytest.mark.parametrize("bad", [0, True, 2.0, "2", -1])
@pytest.mark.parametrize("name", sorted(_ESTIMATES))
def test_work_estimates_refuse_a_times_that_is_not_a_release_count(name: str, bad: object) -> None:
    # without the check: one finite ratio and times = -1 or 2.0 gave a support of 1 (the m <= 1
    # branch), the bits estimate a negative number or a float, direct_tuples a float
    for pld in (_ONE_RATIO, _THREE_RATIOS):
        with pytest.raises(ParameterError) as e:
            _ESTIMATES[name](pld, bad)
        assert str(e.value) == f"times must be an integer >= 1 (number of releases), got {bad!r}"


def _reference_convolve_cost(n: int, times: int) -> int:
    """Multiply-adds of the direct power's repeated squaring, from the lengths of the partial
    powers (a releases of an n-bin base: a·(n − 1) + 1 bins), binary digits of T from the lowest."""
    def length(a: int) -> int:
        return a * (n - 1) + 1

    cost, acc, power = 0, 0, 1
    for bit in reversed(bin(times)[2:]):
        if bit == "1":
            if acc:
                cost += length(acc) * length(power)
            acc += power
        if acc < times:
            cost += length(power) ** 2
            power *= 2
    return cost


@pytest.mark.parametrize("times", [1, 2, 3, 7, 13])
def test_work_estimates_of_a_release_count_are_their_definitions(times: int) -> None:
    for pld in (_ONE_RATIO, _THREE_RATIOS):
        m = len(pld.ratios)
        bits = max(x.numerator.bit_length() + x.denominator.bit_length()
                   for r, p in pld.ratios.items() for x in (r, p))
        assert D.exact_support_estimate(pld, times) == _support_bound(m, times)
        assert D.exact_bits_estimate(pld, times) == times * bits
        assert D.exact_compose_cost(pld, times) == _reference_cost(m, times)
        assert D.direct_tuples(pld, times) == m**times
        assert D.direct_convolve_cost(m, times) == _reference_convolve_cost(m, times)
    # a huge count is a count: accepted (no float, no cap here; the budgets decide)
    assert D.exact_support_estimate(_THREE_RATIOS, 2**40 + 1) == comb(2**40 + 3, 2)
    assert D.direct_convolve_cost(3, 2**40 + 1) == _reference_convolve_cost(3, 2**40 + 1)


# ---- releases: one record against none, and the decimal form near 1 ---------------------------


@pytest.mark.parametrize("beta", [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
@pytest.mark.parametrize("times", [1, 2, 3])
def test_thresholded_bound_of_one_record_against_none(beta: Fraction, times: int) -> None:
    # n = k = 1: the record is released (count 1) with probability β, else suppressed; with no
    # record the output is always suppressed, so δ_T(ε) = 1 − (1 − β)^T at every ε
    p, q = _law(1, beta, 1), _law(0, beta, 1)
    exact = max(_hs(p, q, Fraction(2), times), _hs(q, p, Fraction(2), times))
    assert exact == 1 - (1 - beta) ** times
    tv = R.tv_bound(1, beta, times, 1)
    b = R.thresholded_bound(1, 1, beta, "ln(2)", times)
    assert exact <= b <= tv  # the smaller of the TV and Chernoff bounds; TV is tight here
    assert tv - exact <= exact * Fraction(1, 10**20)


@pytest.mark.parametrize("n,beta,times", [(3, Fraction(1, 3), 2), (5, Fraction(2, 7), 3),
                                          (4, Fraction(1, 10), 1)])
def test_tv_bound_is_at_least_the_exact_t_fold_tv_bound(n: int, beta: Fraction, times: int) -> None:
    # TV(Bin(n, β), Bin(n − 1, β)) in Fractions, then 1 − (1 − TV)^T: the ball's upper end must
    # not fall below the exact rational (its lower end would)
    p, q = _law(n, beta, 0), _law(n - 1, beta, 0)
    tv1 = sum((max(Fraction(0), p[o] - q.get(o, Fraction(0))) for o in p), Fraction(0))
    exact = 1 - (1 - tv1) ** times
    b = R.tv_bound(n, beta, times)
    assert exact <= b <= exact * (1 + Fraction(1, 10**20))
    assert _hs(p, q, Fraction(1), times) <= b


@pytest.mark.parametrize("times", [1, 2, 5])
def test_chernoff_bound_of_disjoint_supports_is_one(times: int) -> None:
    p, q = {0: Fraction(1)}, {1: Fraction(1)}
    assert R.chernoff_bound(p, q, 1, times) == 1 == _hs(p, q, Fraction(3), times)


def test_format_bound_needs_forty_digits_to_stay_below_one() -> None:
    # 1 − 10^-39 / 2 rounds up to 1 at 39 significant digits; at 40 it is 0.(39 nines)5 exactly
    x = 1 - Fraction(1, 2 * 10**39)
    s = R.format_bound(x)
    assert x <= Fraction(s) < 1
    y = Fraction(1, 3)
    assert y <= Fraction(R.format_bound(y)) <= y * (1 + Fraction(1, 1000))
    assert R.format_bound(Fraction(1)) == R.format_bound(1) and Fraction(R.format_bound(1)) == 1


def test_tv_bound_stays_at_most_one_when_its_ball_straddles_one() -> None:
    # β = 1 − 10^-50 is not a 128-bit float: the ball of TV(Bin(1, β), Bin(0, β)) = β contains
    # 1, so 1 − (1 − TV)^T has an upper end above 1; a δ bound is capped at 1
    beta = 1 - Fraction(1, 10**50)
    for times in (1, 3):
        b = R.tv_bound(1, beta, times)
        assert 1 - (1 - beta) ** times <= b <= 1


def test_untruncated_bound_for_beta_within_a_float_ulp_of_one() -> None:
    # n = 2, β = 1 − 10^-20: float(β) rounds to 1, so the float screen must take ln(1 − β)
    # from the exact β; at ε = 200 the forward direction's δ is its infinite-loss mass β² (< 1)
    # and the backward one is ~0: the bound encloses β² from above and stays below 1
    beta = 1 - Fraction(1, 10**20)
    assert float(beta) == 1.0
    p, q = _law(2, beta, 0), _law(1, beta, 0)
    x = Fraction(10**87)  # > e^200: the exact δ at ln x is at most δ(200)
    exact = max(_hs(p, q, x, 1), _hs(q, p, x, 1))
    assert exact == beta**2
    b = R.untruncated_bound(2, beta, 200, 1)
    assert exact <= b < 1


def test_releases_delta_for_beta_within_a_float_ulp_of_one_is_an_enclosure() -> None:
    from dps_verify.inverse.releases import releases_delta

    res = releases_delta(2, 1 - Fraction(1, 10**20), 1, 2)
    assert res.delta.lower <= res.delta.upper <= 1 and res.delta.lower > Fraction(99, 100)



def test_target_missed_names_a_ratio_past_the_float_range_rounded_up() -> None:
    # β = 10^-400, k = 2, T = 2: the worst size n = 2 has δ = 1 − (1 − β²)² (the count 2 is
    # released only under n = 2) about 2e-800, while the tail bound from n = 3 is about 1e-114;
    # upper/lower is far past 1e308, where float() overflowed. The note names it exactly, rounded up
    beta = Fraction(1, 10**400)
    r = R.releases_delta(2, beta, 1, 2)
    exact = 1 - (1 - beta**2) ** 2
    assert exact == max(_hs(_law(2, beta, 2), _law(1, beta, 2), Fraction(3), 2),
                        _hs(_law(1, beta, 2), _law(2, beta, 2), Fraction(3), 2))
    assert r.delta.lower <= exact <= r.delta.upper
    assert r.target_missed is not None and r.target_missed in r.delta.how
    shown = r.target_missed.split("upper/lower = ")[1].split(" ")[0]
    ratio = r.delta.upper / r.delta.lower
    assert ratio > 10**600 and ratio <= Fraction(shown) <= ratio * (1 + Fraction(1, 1000))

# ---- pld_discrete: the direct sum is tight, and the refinement's documented rules ---------------


@pytest.mark.parametrize("times", [1, 2, 3])
def test_direct_delta_is_a_tight_enclosure_of_the_exact_t_fold_delta(times: int) -> None:
    # a group of 4 records against 3, sampled at 1/3, thresholded at 2; e^ε = 11/10
    beta, x = Fraction(1, 3), Fraction(11, 10)
    p, q = _law(4, beta, 2), _law(3, beta, 2)
    for a, b in ((p, q), (q, p)):
        exact = _hs(a, b, x, times)
        c = D.direct_delta(PrivacyLossDistribution.from_exact_laws(a, b), "ln(11/10)", times)
        assert 0 < exact and c.lower <= exact <= c.upper < 1
        assert c.upper - c.lower <= exact * Fraction(1, 10**9)  # both ends near the exact value


def test_tail_for_spends_at_most_a_fiftieth_of_the_allowed_width_on_the_cuts() -> None:
    for times in (1, 2, 7, 100):
        cuts = 2 * times.bit_length() + 2
        for lower in (Fraction(1, 10), Fraction(1, 10**6), Fraction(3, 10**9)):
            for rtol in (0.3, 0.01, 0.001):
                tail = D._tail_for(lower, rtol, times)
                assert 1e-18 <= tail <= 1e-10
                assert tail * cuts <= float(lower) * rtol / 50 * (1 + 1e-12) or tail == 1e-18
        # lower end 0 (no target width yet): a fixed moderate tail, not the 1e-18 floor
        assert D._tail_for(Fraction(0), 0.01, times) == 1e-15


def test_halvings_within_counts_the_halvings_that_fit_the_bin_budget() -> None:
    for max_bins in (2**10, 2**20, 3 * 2**12):
        for bins in (1, 2, 3, 5, 64, 1000):
            c = Certified(Fraction(0), Fraction(1), "", {"bins": bins})
            h = D._halvings_within(c, max_bins)
            if bins * 2 <= max_bins:  # bins double per halving: the most that stay within
                assert bins * 2**h <= max_bins < bins * 2 ** (h + 1), (bins, max_bins, h)
            else:
                assert h == 1  # at least one (a jump past the budget is refused and retried)
    assert D._halvings_within(Certified(Fraction(0), Fraction(1), "", {}), 2**20) == 6


def test_upper_settled_at_a_tenth_of_the_room_scaled_by_the_second_order_rate() -> None:
    room = Fraction(1, 1000)
    for halvings in (1, 2, 3):
        edge = room / 10 * (4**halvings - 1)
        old = Certified(Fraction(0), Fraction(1, 2) + edge, "", {})
        for change, settled in ((edge, True), (edge * Fraction(1001, 1000), False)):
            new = Certified(Fraction(0), Fraction(1, 2) + edge - change, "", {})
            assert D._upper_settled(old, new, halvings, room) is settled
            assert D._upper_settled(new, old, halvings, room) is settled


def test_base_vector_error_bound_is_the_documented_one() -> None:
    # each float(p) within u·p, sums adding u each: 3u·‖p‖₁ (+ 2^-1000 per atom), rounded up
    pld = PrivacyLossDistribution.from_exact_laws(_law(6, Fraction(1, 3), 2), _law(5, Fraction(1, 3), 2))
    _, idx = D._indices(pld, -6)
    v = D._base_vector(pld, idx, 0)
    mass = float(sum(pld.ratios.values()))
    assert v.err2 == 3 * D.U * mass * (1 + 4 * D.U) + len(pld.ratios) * 2.0**-1000
    assert abs(float(v.data.sum()) - mass) <= v.err2 * len(v.data)


def test_upper_below_starts_one_grid_coarser_than_the_hint() -> None:
    # a group of 20 records against 19, β = 1/10, k = 3, three releases at ε = 1: composed on a
    # grid (exact cost 3402 > 20000/16, no dominant atom); the hint is the grid that served
    # minus one, so the first grid tried (hint + 1) is the one that served and is kept
    pld = PrivacyLossDistribution.from_exact_laws(*R.group_pair(20, 3, Fraction(1, 10)))
    exact = pld.self_compose(3).delta_certified(1)
    target = exact.upper * Fraction(21, 20)
    first = D.upper_below([pld], 1, 3, target)
    assert first.details["mode"] == "discretised"
    (h0,) = first.details["h_exps"]
    again = D.upper_below([pld], 1, 3, target, h_exp=[h0 - 1])
    assert again.details["h_exps"] == [h0]
    for c in (first, again):
        assert exact.lower <= c.upper <= target


def test_power_window_covers_the_chernoff_range_inside_the_full_range() -> None:
    # laws whose heaviest atom is the largest loss: the upper tail is not cut, so the window is
    # pushed against the top of the full range [T·offset, T·offset + T·(len − 1)]
    clamped = 0
    for masses in ((1, 1, 1, 97), (1, 2, 7, 90), (5, 5, 90)):
        tot = sum(masses)
        pld = PrivacyLossDistribution({Fraction(i + 1, 3): Fraction(m, tot) for i, m in enumerate(masses)})
        for h_exp in (-3, -5):
            _, idx = D._indices(pld, h_exp)
            base = D._base_vector(pld, idx, 0)
            tails = D._Tails([idx[r][0] for r in pld.ratios], list(pld.ratios.values()), 2.0**h_exp)
            for times in (5, 20, 60):
                for tau in (1e-3, 1e-10):
                    lo, size, kept = D._window(base, times, tails, tau)
                    full_lo = times * base.offset
                    full_hi = full_lo + times * (len(base.data) - 1)
                    cut_lo, cut_hi = tails.cut(times, tau)
                    cut_lo, cut_hi = max(cut_lo, full_lo), min(cut_hi, full_hi)
                    assert size >= kept == cut_hi - cut_lo + 1 and size & (size - 1) == 0
                    assert lo <= cut_lo and cut_hi <= lo + size - 1  # the kept range is inside
                    if full_hi - full_lo + 1 >= size:
                        assert full_lo <= lo and lo + size - 1 <= full_hi  # no bin wasted outside
                        clamped += lo + size - 1 == full_hi
    assert clamped  # the top edge was reached (else this test could not fail there)


# ---- releases: the screened worst case accounts for every size; the screen at n = k + 1 -------


@pytest.mark.parametrize("k,beta,eps,x,times", [
    (2, Fraction(1, 4), 0, Fraction(1), 2),
    (3, Fraction(1, 2), "ln(3/2)", Fraction(3, 2), 3),
    (2, Fraction(1, 10), "ln(11/10)", Fraction(11, 10), 4),
])
def test_screened_worst_case_encloses_or_bounds_every_size(k, beta, eps, x, times) -> None:
    r = R.releases_delta(k, beta, eps, times)
    assert r.scanned == (k, r.tail_from - 1)
    kinds = r.details["bounds_by_kind"]
    # each size below the tail start is either enclosed or given a certified bound, once
    assert sum(kinds.values()) + len(r.enclosed) == r.tail_from - k
    assert all(kind in ("exact", "direct", "sparse", "discretised", "cheap") for kind in kinds)
    worst = max(max(_hs(_law(n, beta, k), _law(n - 1, beta, k), x, times),
                    _hs(_law(n - 1, beta, k), _law(n, beta, k), x, times))
                for n in range(k, min(r.tail_from, 9)))
    assert r.delta.lower <= worst <= r.delta.upper
    # the width note appears exactly when upper > (1 + rtol)·lower (default rtol 0.01)
    met = r.delta.upper <= r.delta.lower * Fraction(1.01)
    assert (r.target_missed is None) is met and ("target width missed" in r.delta.how) is not met


@pytest.mark.parametrize("k,beta,times,x", [(3, Fraction(1, 4), 2, Fraction(3, 2)),
                                            (5, Fraction(1, 3), 3, Fraction(11, 10))])
def test_float_screen_one_record_above_the_threshold(k, beta, times, x) -> None:
    # n = k + 1: the suppressed atom of n − 1 = k records merges counts 0..k − 1 of k records
    n = k + 1
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    exact = float(max(_hs(p, q, x, times), _hs(q, p, x, times)))
    e = math.log(x)
    for bins in R.SCREEN_BINS:
        s = R.screen_delta(n, k, float(beta), e, times, bins)
        assert exact * 0.99 <= s <= exact * 1.01, (bins, s, exact)
