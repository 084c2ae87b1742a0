"""inverse.releases near its edges — δ close to 1, a target below the discretised enclosure's
width floor, ε = 0 — each checked against an exact T-fold reference written from the
definitions (CP Def. 2, CP §2.7)."""

from fractions import Fraction
from functools import cache
from math import comb

import pytest

from dps_verify.inverse.releases import (
    format_bound,
    releases_delta,
    thresholded_bound,
    untruncated_bound,
)


def _law(m: int, beta: Fraction, k: int) -> dict:
    """Sampled count of m records thresholded at k ('S' = suppressed); k = 0: untruncated."""
    out: dict = {}
    for j in range(m + 1):
        o = j if j >= k else "S"
        out[o] = out.get(o, Fraction(0)) + comb(m, j) * beta**j * (1 - beta) ** (m - j)
    return out


def _t_fold(p: dict, q: dict, times: int) -> dict:
    """The exact law of the T-fold likelihood ratio of (p, q): ratio -> P-mass (None: Q = 0)."""
    one: dict = {}
    for o, pr in p.items():
        if pr:
            r = None if q.get(o, 0) == 0 else pr / q[o]
            one[r] = one.get(r, Fraction(0)) + pr
    dist = {Fraction(1): Fraction(1)}
    for _ in range(times):
        nxt: dict = {}
        for r1, p1 in dist.items():
            for r2, p2 in one.items():
                r = None if r1 is None or r2 is None else r1 * r2
                nxt[r] = nxt.get(r, Fraction(0)) + p1 * p2
        dist = nxt
    return dist


def _hs_of(dist: dict, x: Fraction) -> Fraction:
    """Hockey-stick δ at e^ε = x of a T-fold ratio law (:func:`_t_fold`)."""
    return sum((pr if r is None else pr * max(Fraction(0), 1 - x / r) for r, pr in dist.items()),
               Fraction(0))


def _hs(p: dict, q: dict, x: Fraction, times: int) -> Fraction:
    """Exact T-fold hockey-stick δ at e^ε = x of (p, q), by enumerating the loss ratios."""
    return _hs_of(_t_fold(p, q, times), x)


@cache  # the T-fold laws of a size, both directions, independent of e^ε (n = 362: seconds)
def _pair_t_fold(n: int, k: int, beta: Fraction, times: int) -> tuple[dict, dict]:
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    return _t_fold(p, q, times), _t_fold(q, p, times)


@cache  # the grid-floor tests read the same exact values
def exact_delta(n: int, k: int, beta: Fraction, x: Fraction, times: int) -> Fraction:
    if n < max(k, 1):
        return Fraction(0)
    return max(_hs_of(d, x) for d in _pair_t_fold(n, k, beta, times))


# ---- near 1: (1 + rtol)·lower > 1 must not make the trivial bound 1 acceptable -----------------


def test_near_one_sup_is_tight_not_vacuous():
    beta, x = Fraction(999, 1000), Fraction(1000)
    r = releases_delta(2, beta, "ln(1000)", 2)
    d2 = exact_delta(2, 2, beta, x, 2)
    assert float(d2) == pytest.approx(0.999996003999, abs=1e-12)
    assert all(exact_delta(n, 2, beta, x, 2) < d2 for n in range(3, 8))
    assert r.delta.lower <= d2 <= r.delta.upper < 1
    # the answer is exact here: n = 2 is enclosed exactly and every other size is below it
    assert r.delta.upper - r.delta.lower <= Fraction(1, 100) * (1 - r.delta.lower)


def test_untruncated_bound_uses_one_minus_power_for_infinite_loss():
    beta, x = Fraction(999, 1000), Fraction(1000)
    for n in (3, 4, 10):
        exact_u = max(_hs(_law(n, beta, 0), _law(n - 1, beta, 0), x, 2),
                      _hs(_law(n - 1, beta, 0), _law(n, beta, 0), x, 2))
        b = untruncated_bound(n, beta, "ln(1000)", 2)
        assert exact_u <= b < 1
        assert exact_delta(n, 2, beta, x, 2) <= thresholded_bound(n, 2, beta, "ln(1000)", 2) < 1


@pytest.mark.parametrize("x", [Fraction(9998, 10000), Fraction(999999999, 10**9), Fraction(1, 3),
                               Fraction(1), Fraction(3, 10**40)])
def test_bounds_print_rounded_up_and_below_one_stays_below_one(x):
    s = format_bound(x)
    assert Fraction(s) >= x
    assert (Fraction(s) < 1) == (x < 1)


def test_cli_text_is_not_vacuous():
    import contextlib
    import io

    from dps_verify.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["delta", "--k", "2", "--beta", "999/1000", "--epsilon", "ln(1000)",
                     "--releases", "2"])
    out = buf.getvalue()
    assert code == 0, out
    assert "9.999961e-01" in out and "bound 1)" not in out and "bound 1;" not in out


# ---- a target beneath the discretised enclosure's width floor ---------------------------------


def test_upper_below_reaches_a_target_below_the_grid_floor():
    from dps_verify.inverse.pld_discrete import DISCRETE_FLOOR, upper_below
    from dps_verify.inverse.releases import _pair_plds

    beta = Fraction(1, 2)
    plds = _pair_plds(362, 200, beta)
    target = Fraction(1, 10**27)
    assert target < DISCRETE_FLOOR
    c = upper_below(plds, 1, 2, target)
    # e^1 is irrational: bracket the exact value between e = 2.718281828459045... bounds
    lo_x, hi_x = Fraction(2718281828459045, 10**15), Fraction(2718281828459046, 10**15)
    assert exact_delta(362, 200, beta, hi_x, 2) <= c.upper <= target
    assert c.lower <= exact_delta(362, 200, beta, lo_x, 2)
    assert c.details["mode"] in ("exact", "direct", "sparse")  # not the grid: it cannot get there


def test_pair_enclosure_is_narrow_below_the_grid_floor():
    from dps_verify.inverse.releases import group_pair
    from dps_verify.measures.pld import pair_delta_enclosure

    beta = Fraction(1, 2)
    c = pair_delta_enclosure(*group_pair(362, 200, beta), 1, 2, rtol=0.01)
    lo_x, hi_x = Fraction(2718281828459045, 10**15), Fraction(2718281828459046, 10**15)
    assert c.lower <= exact_delta(362, 200, beta, lo_x, 2)
    assert exact_delta(362, 200, beta, hi_x, 2) <= c.upper
    assert c.upper <= Fraction(101, 100) * c.lower  # was [0, 2.8e-14]


def test_target_missed_is_reported():
    from dps_verify.inverse.releases import _target_missed

    assert _target_missed(Fraction(1), Fraction(1), 0.01, "x") is None
    assert _target_missed(Fraction(100), Fraction(101), 0.01, "x") is None
    note = _target_missed(Fraction(1, 10**24), Fraction(3, 10**14), 0.01, "the enclosure at n = 362")
    assert note is not None and "target width missed" in note and "n = 362" in note
    assert "inf" in str(_target_missed(Fraction(0), Fraction(1, 10**20), 0.01, "y"))


def test_cli_prints_target_missed(monkeypatch):
    import contextlib
    import dataclasses
    import io

    import dps_verify.inverse.releases as rel
    from dps_verify.cli import main

    real = rel.releases_delta

    def wide(*a, **kw):
        r = real(*a, **kw)
        return dataclasses.replace(r, target_missed="target width missed: upper/lower = 7 > 1 + rtol = 1.01, set by test")

    monkeypatch.setattr(rel, "releases_delta", wide)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["delta", "--k", "3", "--beta", "1/2", "--epsilon", "1", "--releases", "1"]) == 0
    assert "target width missed: upper/lower = 7" in buf.getvalue()


# ---- ε = 0: the tail bound from the total variation distance ----------------------------------


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(1, 2), Fraction(1, 10**4), Fraction(9, 10)])
@pytest.mark.parametrize("times", [1, 2, 3])
def test_tv_bound_contains_exact_untruncated_delta_at_eps_zero(beta, times):
    from dps_verify.inverse.releases import tv_bound

    for n in (1, 2, 3, 5, 8):
        p, q = _law(n, beta, 0), _law(n - 1, beta, 0)
        d = max(_hs(p, q, Fraction(1), times), _hs(q, p, Fraction(1), times))
        b = tv_bound(n, beta, times)
        assert d <= b <= 1
        if times == 1:
            assert b - d < Fraction(1, 10**30)  # the 1-fold TV is exact


def test_tv_bound_negative_control_one_fold_tv_is_not_a_t_fold_bound():
    from dps_verify.inverse.releases import tv_bound

    beta = Fraction(1, 3)
    p, q = _law(4, beta, 0), _law(3, beta, 0)
    assert max(_hs(p, q, Fraction(1), 3), _hs(q, p, Fraction(1), 3)) > tv_bound(4, beta, 1)


def test_eps_zero_small_beta_finishes_with_the_exact_sup():
    beta = Fraction(1, 10**4)
    r = releases_delta(1, beta, 0, 3)
    exact = 1 - (1 - beta) ** 3  # n = 1 against the empty group, three releases
    assert r.delta.lower == r.delta.upper == exact
    assert r.argmax_n == 1 and r.tail_from == 2 and r.target_missed is None


@pytest.mark.parametrize("n,k,beta,x,times", [
    (8, 3, Fraction(1, 3), Fraction(3, 2), 3), (6, 2, Fraction(1, 3), Fraction(1), 3),
    (5, 1, Fraction(1, 2), Fraction(4, 3), 4), (30, 20, Fraction(1, 2), Fraction(5, 2), 2),
])
def test_direct_sum_contains_exact_delta(n, k, beta, x, times):
    from dps_verify.inverse.pld_discrete import direct_delta
    from dps_verify.inverse.releases import _pair_plds

    eps = f"ln({x})"
    exact = exact_delta(n, k, beta, x, times)
    cs = [direct_delta(p, eps, times) for p in _pair_plds(n, k, beta)]
    lo, hi = max(c.lower for c in cs), max(c.upper for c in cs)
    assert lo <= exact <= hi
    assert hi - lo <= Fraction(1, 10**9) * max(exact, Fraction(1, 10**300))


def test_direct_sum_negative_control_dropped_widening_is_caught(monkeypatch):
    """Rounding the weights 1 − e^(ε − loss) inward instead of outward (a negative margin)
    makes the 'enclosure' miss the exact value: the same check rejects it."""
    from dps_verify.inverse import pld_discrete as D
    from dps_verify.inverse.releases import _pair_plds

    monkeypatch.setattr(D, "WEIGHT_MARGIN", -2.0**-20)  # shrink g instead of widening it
    beta = Fraction(1, 3)
    exact = exact_delta(6, 2, beta, Fraction(1), 3)
    cs = [D.direct_delta(p, 0, 3) for p in _pair_plds(6, 2, beta)]
    assert not (max(c.lower for c in cs) <= exact <= max(c.upper for c in cs))


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(9, 10), Fraction(1, 10**3)])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_thresholded_tv_bound_contains_exact_delta_at_eps_zero(beta, k):
    from dps_verify.inverse.releases import tv_bound

    for n in range(1, 11):
        for times in (1, 2):
            d = exact_delta(n, k, beta, Fraction(1), times)
            b = tv_bound(n, beta, times, k)
            assert d <= b <= 1 and d <= thresholded_bound(n, k, beta, 0, times) <= b
            if times == 1:
                assert b - d < Fraction(1, 10**30)


def test_eps_zero_interior_worst_beyond_n_limit_finishes_and_says_the_target_was_missed():
    """k = 5, β = 1e-4, ε = 0: the worst size is near n ≈ 4/β, beyond n_limit; the result
    must still come (upper end from the tail bound) and say that the width was missed."""
    r = releases_delta(5, Fraction(1, 10**4), 0, 3, n_limit=128)
    assert r.target_missed is not None and "tail" in r.target_missed
    assert r.delta.upper >= exact_delta(129, 5, Fraction(1, 10**4), Fraction(1), 1)



@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("beta", [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
def test_cheap_bound_of_each_direction_holds_for_small_groups(k: int, beta: Fraction) -> None:
    # each direction's cheap bound is at least that direction's exact T-fold delta of the
    # thresholded pair (forward U_n against U_(n-1) with the mass at infinite loss; backward the
    # reverse, its suppressed atom at the positive loss ln(S_(n-1)/S_n)), every T-tuple
    # enumerated in Fractions; so is the thresholded bound (their maximum, capped by TV)
    from dps_verify.core.params import epsilon_param
    from dps_verify.inverse.releases import _pair_direction_bounds

    for n in range(k, k + 3):
        p, q = _law(n, beta, k), _law(n - 1, beta, k)
        for eps, x in ((0, Fraction(1)), ("ln(11/10)", Fraction(11, 10)), ("ln(3/2)", Fraction(3, 2))):
            for times in (1, 2, 3):
                fwd, bwd = _hs(p, q, x, times), _hs(q, p, x, times)
                b_fwd, b_bwd = _pair_direction_bounds(n, k, beta, epsilon_param(eps), times)
                assert fwd <= b_fwd and bwd <= b_bwd, (n, eps, times)
                assert max(fwd, bwd) <= thresholded_bound(n, k, beta, eps, times)
