"""measures.releases: findings of soundness review R3 (F2, F3, ε = 0 performance), each checked
against an exact T-fold reference written from the definitions (CP Def. 2, CP §2.7)."""

from fractions import Fraction
from math import comb

import pytest

from dps_verify.measures.releases import (
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


def _hs(p: dict, q: dict, x: Fraction, times: int) -> Fraction:
    """Exact T-fold hockey-stick δ at e^ε = x of (p, q), by enumerating the loss ratios."""
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
    return sum((pr if r is None else pr * max(Fraction(0), 1 - x / r) for r, pr in dist.items()),
               Fraction(0))


def exact_delta(n: int, k: int, beta: Fraction, x: Fraction, times: int) -> Fraction:
    if n < max(k, 1):
        return Fraction(0)
    p, q = _law(n, beta, k), _law(n - 1, beta, k)
    return max(_hs(p, q, x, times), _hs(q, p, x, times))


# ---- F2: (1 + rtol)·lower > 1 must not make the trivial bound 1 acceptable -----------------


def test_f2_near_one_sup_is_tight_not_vacuous():
    beta, x = Fraction(999, 1000), Fraction(1000)
    r = releases_delta(2, beta, "ln(1000)", 2)
    d2 = exact_delta(2, 2, beta, x, 2)
    assert float(d2) == pytest.approx(0.999996003999, abs=1e-12)
    assert all(exact_delta(n, 2, beta, x, 2) < d2 for n in range(3, 8))
    assert r.delta.lower <= d2 <= r.delta.upper < 1
    # the answer is exact here: n = 2 is enclosed exactly and every other size is below it
    assert r.delta.upper - r.delta.lower <= Fraction(1, 100) * (1 - r.delta.lower)


def test_f2_untruncated_bound_uses_one_minus_power_for_infinite_loss():
    beta, x = Fraction(999, 1000), Fraction(1000)
    for n in (3, 4, 10):
        exact_u = max(_hs(_law(n, beta, 0), _law(n - 1, beta, 0), x, 2),
                      _hs(_law(n - 1, beta, 0), _law(n, beta, 0), x, 2))
        b = untruncated_bound(n, beta, "ln(1000)", 2)
        assert exact_u <= b < 1
        assert exact_delta(n, 2, beta, x, 2) <= thresholded_bound(n, 2, beta, "ln(1000)", 2) < 1


@pytest.mark.parametrize("x", [Fraction(9998, 10000), Fraction(999999999, 10**9), Fraction(1, 3),
                               Fraction(1), Fraction(3, 10**40)])
def test_f2_bounds_print_rounded_up_and_below_one_stays_below_one(x):
    s = format_bound(x)
    assert Fraction(s) >= x
    assert (Fraction(s) < 1) == (x < 1)


def test_f2_cli_text_is_not_vacuous():
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
