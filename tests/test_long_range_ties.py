"""Exact ties of the suppressed outcome in the segment scan and the smallest
maximiser on exact ties between group sizes.

F1: with ε = ln x and x = F(k−1; n−1)/F(k−1; n) exactly, the suppressed outcome's likelihood
ratio between D_{−t} (n−1 copies) and D (n copies) is exactly e^ε.  No ball decides that, so the
segment scan (measures/long_range.py) used to raise CertificationError; it now decides the tie
exactly (integers and E.less / exp_compare).  A tie is not bad: the bad sets are strict (ratio
> e^ε), it adds 0 to the hockey-stick sum and is no pointwise violation.

The brute force below is written from the definitions only: one recoding group of n copies of
t under sampled strongly-safe k-anonymization (CP Def. 3: each record kept with probability β;
the group's count j is published when j ≥ k, otherwise the group is suppressed, "⊥"), D versus
D_{−t}, exact Fractions.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.params import epsilon_param
from dps_verify.worstcase import long_range, sdgs

F = Fraction
SUPPRESSED = "⊥"


@cache
def _law(size: int, k: int, p: int, q: int) -> dict:
    """The group's output law for ``size`` copies of t, β = p/q: integers over q^size."""
    law: dict = {}
    for j in range(size + 1):
        out = j if j >= k else SUPPRESSED
        law[out] = law.get(out, 0) + comb(size, j) * p**j * (q - p) ** (size - j)
    return law


def brute(n: int, k: int, beta: Fraction, x: Fraction, definition: str, strict: bool = True) -> Fraction:
    """δ of (D with n copies of t, D_{−t}) at e^ε = x; ``strict=False`` is the wrong variant
    (bad set ratio ≥ e^ε) used as the negative control.  Exact: both laws as integers over q^n,
    x = a/b."""
    p, q = beta.numerator, beta.denominator
    P = _law(n, k, p, q)
    Q = {o: q * v for o, v in _law(n - 1, k, p, q).items()}  # over q^n too
    a, b = x.numerator, x.denominator
    outs = set(P) | set(Q)
    if definition == "hockey-stick":
        hs = max(sum(max(0, b * P.get(o, 0) - a * Q.get(o, 0)) for o in outs),
                 sum(max(0, b * Q.get(o, 0) - a * P.get(o, 0)) for o in outs))
        return F(hs, b * q**n)

    def bad(A: dict, B: dict, o: object) -> bool:
        u, v = b * A.get(o, 0), a * B.get(o, 0)
        return u > v if strict else u >= v

    S = {o for o in outs if bad(P, Q, o) or bad(Q, P, o)}
    return F(max(sum(P.get(o, 0) for o in S), sum(Q.get(o, 0) for o in S)), q**n)


def _ln(x: Fraction) -> object:
    return epsilon_param(f"ln({x.numerator}/{x.denominator})")


def _cdf(m: int, size: int, beta: Fraction) -> Fraction:
    return sum((comb(size, j) * beta**j * (1 - beta) ** (size - j) for j in range(min(m, size) + 1)), F(0))


# (k, β, e^ε, n at the tie): F(1; n−1)/F(1; n) = 2n/(n+1) for β = 1/2, (3/2)(n+1)/(n+2) for β = 1/3
SMALL_TIES = [(2, F(1, 2), F(198, 100), 99), (2, F(1, 3), F(1485, 1000), 98)]


@pytest.mark.parametrize("k, beta, x, n_tie", SMALL_TIES)
def test_small_ties_are_ties(k, beta, x, n_tie):
    assert _cdf(k - 1, n_tie - 1, beta) == x * _cdf(k - 1, n_tie, beta)
    assert x < 1 / (1 - beta)  # outside CP Thm 5's regime: the backward side (and z) is live


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
@pytest.mark.parametrize("k, beta, x, n_tie", SMALL_TIES)
def test_forced_segment_path_at_a_tie_matches_brute_force(k, beta, x, n_tie, definition):
    eps = _ln(x)
    got = sdgs.scan_segments_for_test(k, beta, eps, definition)  # used to raise at n = n_tie
    values = {n: brute(n, k, beta, x, definition) for n in range(1, 160)}
    best = max(values.values())
    assert got.lower <= best <= got.upper
    assert got.upper - got.lower <= best * F(1, 10**12)
    assert values[got.details["argmax_n"]] >= got.lower


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
@pytest.mark.parametrize("k, beta, x, n_tie", SMALL_TIES)
def test_per_n_value_at_the_tie_uses_the_strict_bad_set(k, beta, x, n_tie, definition):
    eps = _ln(x)
    sc = long_range._SegmentScan(k, beta, eps, definition, sdgs._Exp(eps), True, 96)
    assert sc.z(n_tie) is False  # the tie is not bad ...
    assert sc.z(n_tie + 1) is True  # ... and the ratio passes e^ε right after it
    assert sc.z(n_tie - 1) is False
    assert sc.z_exact(n_tie + 1) is True and sc.z_exact(n_tie - 1) is False  # agrees with the balls
    for n in (n_tie - 1, n_tie, n_tie + 1):
        v = sc.value(n, sc.fwd_T(n), sc.bwd_m(n), sc.z(n))
        lo, hi = long_range.arb_to_fractions(v)
        strict = brute(n, k, beta, x, definition)
        assert lo <= strict <= hi, (n, strict, lo, hi)
        if n == n_tie and definition == "pointwise":
            # negative control: a non-strict bad set counts the tied suppressed outcome, and
            # the value is then outside the scan's ball
            loose = brute(n, k, beta, x, definition, strict=False)
            assert loose != strict
            assert not (lo <= loose <= hi)
        if n == n_tie and definition == "hockey-stick":
            # the tied outcome adds Q − e^ε·P = 0: strictness cannot matter here
            assert brute(n, k, beta, x, definition, strict=False) == strict


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_tie_at_a_million_records_is_enclosed_between_its_neighbours(definition):
    # k = 2, β = 1e-4: x = F(1; n−1)/F(1; n) exactly at n = 10^6, a size the doubling probes
    beta, n = F(1, 10**4), 10**6
    x = (1 + (n - 2) * beta) / ((1 - beta) * (1 + (n - 1) * beta))
    assert (1 - beta) * (1 + (n - 1) * beta) * x == 1 + (n - 2) * beta
    tie = sdgs.sdgs_delta_certified(2, beta, _ln(x), definition)
    eta = F(1, 10**30)
    above = sdgs.sdgs_delta_certified(2, beta, _ln(x * (1 + eta)), definition)
    below = sdgs.sdgs_delta_certified(2, beta, _ln(x * (1 - eta)), definition)
    assert 0 < tie.lower <= tie.upper <= 1
    # δ is non-increasing in ε (both definitions): the tie sits between its neighbours
    assert above.lower <= tie.upper and tie.lower <= below.upper
    assert tie.upper - tie.lower <= tie.lower * F(1, 10**12)


# ties near n = 10^12: x = 2(1 − 10^−12) for β = 1/2 and its β = 1/3 analogue
LARGE_TIES = [(2, F(1, 2), 999_999_999_999), (2, F(1, 3), 999_999_999_998)]


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
@pytest.mark.parametrize("k, beta, n_tie", LARGE_TIES)
def test_forced_segment_path_at_a_tie_near_10_to_12(k, beta, n_tie, definition):
    # F(1; n−1)/F(1; n) in closed form (k = 2): 2n/(n+1) (β = 1/2), (3/2)(n+1)/(n+2) (β = 1/3)
    def ratio(n: int) -> Fraction:
        return F(2 * n, n + 1) if beta == F(1, 2) else F(3 * (n + 1), 2 * (n + 2))

    assert all(ratio(n) == _cdf(k - 1, n - 1, beta) / _cdf(k - 1, n, beta) for n in (2, 3, 10, 41))
    x = ratio(n_tie)
    eps = _ln(x)
    sc = long_range._SegmentScan(k, beta, eps, definition, sdgs._Exp(eps), True, 96)
    assert sc.z(n_tie) is False and sc.z(n_tie + 1) is True
    got = sdgs.scan_segments_for_test(k, beta, eps, definition)
    values = {n: brute(n, k, beta, x, definition) for n in range(1, 120)}
    best = max(values.values())
    assert got.lower <= best <= got.upper
    assert got.upper - got.lower <= best * F(1, 10**12)


@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("beta", [F(1, 2), F(1, 3), F(2, 7)])
def test_exact_suppressed_outcome_decision_matches_the_definition(k, beta):
    # z_n ⇔ F(k−1; n−1) > e^ε·F(k−1; n), strictly; e^ε at, just above and just below the ratio
    # (k = 1: the ratio is 1/(1−β) for every n, CP Thm 5's edge, so there is nothing to tie)
    checked = 0
    for n_tie in (k + 1, k + 5, 30):
        ratio = _cdf(k - 1, n_tie - 1, beta) / _cdf(k - 1, n_tie, beta)
        if ratio <= 1 or ratio >= 1 / (1 - beta):  # ε must be > 0 and outside CP Thm 5's regime
            continue
        for x in (ratio, ratio * (1 + F(1, 10**40)), ratio * (1 - F(1, 10**40))):
            eps = _ln(x)
            sc = long_range._SegmentScan(k, beta, eps, "pointwise", sdgs._Exp(eps), True, 96)
            for n in (n_tie - 1, n_tie, n_tie + 1):
                want = _cdf(k - 1, n - 1, beta) > x * _cdf(k - 1, n, beta)
                assert sc.z_exact(n) is want and sc.z(n) is want, (k, beta, x, n)
                checked += 1
    assert checked


def test_exact_tie_check_has_a_stated_limit(monkeypatch):
    k, beta, x, n_tie = SMALL_TIES[0]
    eps = _ln(x)
    monkeypatch.setattr(long_range, "EXACT_TIE_MAX_K", 1)
    sc = long_range._SegmentScan(k, beta, eps, "pointwise", sdgs._Exp(eps), True, 96)
    assert sc.z(n_tie + 1) is True  # decided by the balls: no exact check needed
    with pytest.raises(CertificationError, match="exact check is limited to k ≤ 1"):
        sc.z(n_tie)
    # the limit is inclusive: at EXACT_TIE_MAX_K = k the exact check decides the tie (not bad,
    # as the definition's strict inequality says), one below it refuses
    assert _cdf(k - 1, n_tie - 1, beta) == x * _cdf(k - 1, n_tie, beta)
    for limit in (k, k - 1):
        monkeypatch.setattr(long_range, "EXACT_TIE_MAX_K", limit)
        sc = long_range._SegmentScan(k, beta, eps, "pointwise", sdgs._Exp(eps), True, 96)
        if limit == k:
            assert sc.z(n_tie) is False
        else:
            with pytest.raises(CertificationError, match=f"exact check is limited to k ≤ {k - 1}"):
                sc.z(n_tie)


# ---- argmax_n is the smallest maximiser on exact ties ------------------------------------
# (k, β, e^ε, definition); the first five used to report a later maximiser (first found at
# (3, 1/3, 2) and (5, 1/3, 2)); ties at n = k (HS(k) = β^k, bounded part of the skipped range)
# and between two sizes walked downward (5, 1/10, 3/2: n = 10 and 11); the rest are ties the
# upward walk already resolved, and pointwise ones.
ARGMAX_TIES = [
    (3, F(1, 3), F(2), "hockey-stick"),
    (5, F(1, 3), F(2), "hockey-stick"),
    (3, F(1, 10), F(3, 2), "hockey-stick"),
    (5, F(1, 10), F(3, 2), "hockey-stick"),
    (4, F(1, 4), F(3), "hockey-stick"),
    (3, F(1, 2), F(3, 2), "hockey-stick"),
    (2, F(1, 3), F(2), "pointwise"),
    (3, F(1, 2), F(6, 5), "pointwise"),
]


@pytest.mark.parametrize("k, beta, x, definition", ARGMAX_TIES)
def test_argmax_is_the_smallest_maximiser(k, beta, x, definition):
    got = sdgs.sdgs_delta_certified(k, beta, _ln(x), definition)
    assert got.lower == got.upper  # exact: ties are decidable
    values = {n: brute(n, k, beta, x, definition) for n in range(1, 40)}
    best = max(values.values())
    assert got.lower == best
    maximisers = [n for n, v in values.items() if v == best]
    assert len(maximisers) >= 2  # a genuine tie (the check can tell smallest from later)
    assert got.details["argmax_n"] == maximisers[0]


# ---- the segment scan on exact ties: the value 1 over a whole segment ---------------------
# Outside CP Thm 5's regime, while γn < k and the suppressed outcome is bad backward, every
# output is bad and the pointwise δ is exactly 1 for several consecutive group sizes (found from
# the definitions: (2, 1/10, 21/20) at n = 10 .. 13, (2, 1/4, 11/10) at 3 .. 6, (3, 1/3, 11/10)
# at 5 .. 7, (3, 1/4, 11/10) at 8 and 9).  The segment's two end points are then exact balls of
# 1: the scan must report the smallest of the tied group sizes, as the exact walk does.
VALUE_ONE_TIES = [(2, F(1, 10), F(21, 20)), (2, F(1, 4), F(11, 10)), (3, F(1, 3), F(11, 10)),
                  (3, F(1, 4), F(11, 10))]


@pytest.mark.parametrize("k, beta, x", VALUE_ONE_TIES)
def test_segment_scan_reports_the_smallest_group_size_of_the_value_one(k, beta, x):
    ones = [n for n in range(1, 40) if brute(n, k, beta, x, "pointwise") == 1]
    assert len(ones) >= 2 and ones[1] == ones[0] + 1  # a genuine tie of neighbours
    got = sdgs.scan_segments_for_test(k, beta, _ln(x), "pointwise")
    assert got.lower == got.upper == 1
    assert got.details["argmax_n"] == ones[0]
    walk = sdgs.sdgs_delta_certified(k, beta, _ln(x), "pointwise")
    assert walk.lower == 1 and walk.details["argmax_n"] == ones[0]


# ---- ties of the Chernoff stopping rules -------------------------------------------------
# Both scans stop once an exponent bound times a group size reaches ℓ, the upper end (rounded up
# at 96 bits) of a ball of −ln(best lower end) (+ ln 2 outside the regime), compared as exact
# rationals.
# κ (d_by_runs) and kl_below (sdgs_by_segments) are parameters, so a caller can put the product
# exactly on ℓ: the documented rule (≥) stops there, a strict one a run or segment later; a
# product inside the ball of −ln(best), or reaching only −ln of the best ball's upper end, proves
# nothing and must not stop.


def _ell_ball(best: Fraction, backward: bool = False) -> tuple[Fraction, Fraction]:
    """The lower end of the 96-bit ball of −ln(best) (+ ln 2) and its upper end rounded up at
    96 bits, ℓ, which the scans compare against."""
    flint = pytest.importorskip("flint")
    with flint.ctx.workprec(96):
        ball = -long_range.arb_fraction(best).log() + (flint.arb(2).log() if backward else 0)
        return long_range.arb_to_fractions(ball)[0], long_range.arb_to_fractions(ball.upper())[1]


def _ell(best: Fraction, backward: bool = False) -> Fraction:
    """ℓ for a best lower end (see _ell_ball)."""
    return _ell_ball(best, backward)[1]


def _first_run(k, beta, eps):
    """(N_k, lower end, upper end) of the first run's ball U(k) = Pr[Bin(N_k, β) ≥ k]."""
    from dps_verify.worstcase.ball_binomial import BallBinomial

    N = long_range.Thresholds(beta, eps, sdgs._Exp(eps)).last_below(k)
    return (N, *long_range.arb_to_fractions(BallBinomial(beta, 96).upper_tail(k, N)))


# k = 1, β = 1/3, ε = 10: the first run is N_1 = 1 with U(1) = 1/3 (a ball of width about
# 2^−96 around it); the second is N_2 = 2 with U(2) = 1/9, so d = 1/3 at n = 1
RUN_CASE = (1, F(1, 3), F(10))


def test_runs_stop_at_a_run_whose_chernoff_product_ties_the_threshold():
    k, beta, eps = RUN_CASE
    N, lo, hi = _first_run(k, beta, eps)
    assert N == 1 and lo < F(1, 3) < hi
    kl = _ell(lo) / (N + 1)  # (N + 1)·κ = ℓ exactly
    assert 0 < kl <= sdgs.kl_lower(beta, eps)  # a valid exponent bound: the stop is proven
    c = long_range.d_by_runs(k, beta, eps, sdgs._Exp(eps), kl)
    assert c.details["runs"] == 1 and "stopped after run J = 1 (n = 1)" in c.how
    assert c.lower <= F(1, 3) <= c.upper


@pytest.mark.parametrize("window", ["between -ln of the value's ends", "inside the ball of -ln(lower end)"])
def test_runs_do_not_stop_before_the_product_passes_minus_ln_of_the_lower_end(window):
    """The stop is referred to the upper end ℓ of the ball of −ln(lower end of the best value):
    a κ with (N + 1)·κ below ℓ — between ℓ of the value's upper and of its lower end, or inside
    the ball of −ln(lower end) — does not stop at the first run; the second (3κ > ln 3) does."""
    k, beta, eps = RUN_CASE
    N, lo, hi = _first_run(k, beta, eps)
    ell_lo, ell_hi = _ell_ball(lo)
    below = _ell(hi) if window.startswith("between") else ell_lo
    assert below < ell_hi  # the window is not empty
    kl = (below + ell_hi) / (2 * (N + 1))
    assert below < (N + 1) * kl < ell_hi and kl <= sdgs.kl_lower(beta, eps)
    c = long_range.d_by_runs(k, beta, eps, sdgs._Exp(eps), kl)
    assert c.details["runs"] == 2 and "stopped after run J = 2 (n = 2)" in c.how
    assert c.lower <= F(1, 3) <= c.upper and c.details["argmax_n"] == 1


def _stop_n(how: str) -> int:
    return int(how.split("stopped at n = ")[1].split(":")[0])


@pytest.mark.parametrize("product", ["tie", "inside the ball"])
@pytest.mark.parametrize("k, beta, eps, backward", [
    (3, F(1, 2), F(1, 2), True),  # outside the regime: the two-tail stop decides
    (3, F(1, 10), F(1), False),  # in the regime: the forward Chernoff stop decides
])
def test_segment_scan_stops_where_the_chernoff_product_reaches_the_threshold(k, beta, eps, backward, product):
    """The scan's own stop at N with the best value b.  An exponent bound lowered so that the
    deciding product at N is exactly ℓ(b) (backward: kl_below, forward: κ) — still a valid
    bound, since the scan's own one passed there, and lower bounds only fail the earlier checks
    too — must still stop at N: the same stop, segments and enclosure.  Lowered into the ball of
    −ln(b) (+ ln 2), below its upper end, it proves nothing at N: the scan goes on."""
    E = sdgs._Exp(eps)
    kl = sdgs.kl_lower(beta, eps)
    ref = long_range.sdgs_by_segments(k, beta, eps, "pointwise", E, kl, sdgs.kl_lower_below)
    N = _stop_n(ref.how)
    lo, hi = _ell_ball(ref.lower, backward)
    need = hi if product == "tie" else (lo + hi) / 2
    assert lo < hi and ("both tails" in ref.how) is backward
    if backward:
        def lowered_below(c, b):
            return min(sdgs.kl_lower_below(c, b), need / (N - 1))

        got = long_range.sdgs_by_segments(k, beta, eps, "pointwise", E, kl, lowered_below)
    else:
        assert need / N <= kl
        got = long_range.sdgs_by_segments(k, beta, eps, "pointwise", E, need / N, sdgs.kl_lower_below)
    if product == "tie":
        assert _stop_n(got.how) == N and got.details["segments"] == ref.details["segments"]
    else:
        assert _stop_n(got.how) > N and got.details["segments"] > ref.details["segments"]
    assert (got.lower, got.upper) == (ref.lower, ref.upper)
