"""The sparse composition (inverse/pld_sparse.py) against brute force over release tuples.

Reference: the T-fold δ at ε of one direction of a privacy-loss distribution (atoms ratio r with
P-mass p, Q-mass p/r, and P-mass p∞ where Q = 0) written from the definition (CP Def 2): every
T-tuple of atoms, its P-mass Π p_i and ratio Π r_i, δ = Σ max(0, P(t) − e^ε Q(t)) (Fractions,
e^ε by mpmath at 60 digits).  Edges: only mass at infinite loss, no rare atoms (q = 0), a sum
completed at j = T, truncations by ``max_atoms`` and ``MAX_PRODUCTS`` on both sides of their
limits, the stop by ``rtol`` and ``floor``, a tie for the dominant atom, ε = 0 and an exact-log ε,
the union bound of the remainder, the screen ``sparse_promising`` at its threshold.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import mpmath
import pytest

from dps_verify.core.params import epsilon_param
from dps_verify.inverse import pld_sparse as S
from dps_verify.measures.pld import PrivacyLossDistribution

F = Fraction
INF = None


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def brute(pld: PrivacyLossDistribution, eps, times: int) -> mpmath.mpf:
    atoms = [(r, p) for r, p in pld.ratios.items()] + ([(INF, pld.infinity_mass)] if pld.infinity_mass else [])
    with mpmath.workdps(60):
        e = mpmath.exp(_mp(eps.a) + mpmath.log(_mp(eps.r))) if hasattr(eps, "r") else mpmath.exp(_mp(F(eps)))
        total = mpmath.mpf(0)
        for tup in itertools.product(atoms, repeat=times):
            p = F(1)
            r: Fraction | None = F(1)
            for ri, pi in tup:
                p *= pi
                r = None if (r is None or ri is None) else r * ri
            if r is None:
                total += _mp(p)
            else:
                total += max(mpmath.mpf(0), _mp(p) - e * _mp(p / r))
        return total


def _pld(ratios: dict, inf: Fraction | int = 0) -> PrivacyLossDistribution:
    return PrivacyLossDistribution({F(r): F(p) for r, p in ratios.items()}, F(inf))


def _tight_and_enclosing(c, exact: mpmath.mpf, rel: float = 1e-25) -> bool:
    with mpmath.workdps(60):
        lo, hi = _mp(c.lower), _mp(c.upper)
        slack = mpmath.mpf(10) ** -45
        return lo - slack <= exact <= hi + slack and hi - lo <= rel * max(exact, mpmath.mpf(10) ** -40)


DOMINATED = _pld({F(1): F(96, 100), F(5): F(3, 100), F(1, 2): F(1, 100)})
DOMINATED_INF = _pld({F(11, 10): F(95, 100), F(1, 3): F(2, 100), F(7): F(2, 100)}, F(1, 100))


@pytest.mark.parametrize("pld", [DOMINATED, DOMINATED_INF])
@pytest.mark.parametrize("eps", [F(0), F(1, 4), F(2), "ln(3)"])
@pytest.mark.parametrize("times", [1, 2, 5])
def test_complete_sums_equal_the_brute_force_tightly(pld, eps, times):
    """rtol = 0: the sum runs to j = T, the remainder is 0 and the enclosure is the exact δ to
    the ball precision; the count of terms is T + 1."""
    e = epsilon_param(eps)
    c = S.sparse_delta(pld, e, times, rtol=0.0)
    assert _tight_and_enclosing(c, brute(pld, e, times)), (float(c.lower), float(c.upper))
    assert c.details["remainder"] == 0 and c.details["terms"] == times + 1 and c.details["times"] == times


def test_only_infinite_loss_and_no_rare_atom():
    c = S.sparse_delta(_pld({}, F(1, 10)), F(1), 3)
    exact = 1 - F(9, 10) ** 3
    assert c.lower <= exact <= c.upper and c.upper - c.lower < F(1, 10**30) and c.details["terms"] == 0
    c = S.sparse_delta(_pld({}, F(1)), F(0), 4)
    assert c.lower == c.upper == 1
    one_atom = _pld({F(3): F(9, 10)}, F(1, 10))  # q = 0: exact after the first term
    c = S.sparse_delta(one_atom, F(1, 2), 6)
    assert _tight_and_enclosing(c, brute(one_atom, F(1, 2), 6)) and c.details["terms"] == 1
    no_loss = _pld({F(1): F(1)})  # P = Q: δ = 0 exactly
    c = S.sparse_delta(no_loss, F(0), 5)
    assert c.lower == 0 and c.upper < F(1, 10**30)


@pytest.mark.parametrize("pld", [DOMINATED, DOMINATED_INF])
def test_truncated_sums_enclose_with_the_remainder_on_both_sides_of_the_atom_limit(pld):
    """max_atoms caps R^{*j}: with |R^{*1}| = 2 atoms and |R^{*2}| = 3, a cap of 3 lets the sum
    reach j = 2 and a cap of 2 stops it at j = 1; both enclose, the remainder covers the rest."""
    eps, times = F(1, 4), 6
    exact = brute(pld, eps, times)
    for cap, terms in ((3, 3), (2, 2), (1, 1)):
        c = S.sparse_delta(pld, eps, times, rtol=0.0, max_atoms=cap)
        assert c.details["terms"] == terms, cap
        rest = S.remainder_bound(times, terms - 1, 1 - max(pld.ratios.values()) - pld.infinity_mass)
        assert F(c.details["remainder"]) == 0 or abs(F(c.details["remainder"]) - rest) <= rest * F(1, 10**12)
        with mpmath.workdps(60):
            assert _mp(c.lower) <= exact <= _mp(c.upper)
            assert c.upper - c.lower <= rest + F(1, 10**30)


def test_the_product_limit_on_both_sides(monkeypatch):
    """One composition step R^{*j} * R takes |R^{*j}|·|R| ratio products: a limit equal to that
    count lets the step run, one less stops the sum there."""
    pld, eps, times = DOMINATED, F(1, 4), 6
    monkeypatch.setattr(S, "MAX_PRODUCTS", 2 * 2)  # |R^{*1}| = 2, |R| = 2
    assert S.sparse_delta(pld, eps, times, rtol=0.0).details["terms"] == 3
    monkeypatch.setattr(S, "MAX_PRODUCTS", 2 * 2 - 1)
    c = S.sparse_delta(pld, eps, times, rtol=0.0)
    assert c.details["terms"] == 2
    with mpmath.workdps(60):
        assert _mp(c.lower) <= brute(pld, eps, times) <= _mp(c.upper)


def test_the_sum_stops_once_the_remainder_is_within_a_quarter_of_rtol():
    """J is the least j with C(T, j+1)·q^(j+1) ≤ rtol/4 · max(lower sum so far, floor)."""
    pld, eps, times = DOMINATED, F(0), 12
    q = F(4, 100)
    full = S.sparse_delta(pld, eps, times, rtol=0.0)
    for rtol in (0.5, 0.01, 1e-6):
        c = S.sparse_delta(pld, eps, times, rtol=rtol)
        partial = [S.sparse_delta(pld, eps, times, rtol=0.0, max_atoms=m).lower for m in (1, 2, 3, 4, 10**6)]
        J = next(j for j in range(times) if S.remainder_bound(times, j, q) <= F(rtol) / 4 * partial[min(j, 4)])
        assert c.details["terms"] == J + 1, rtol
        assert c.lower <= full.upper and full.lower <= c.upper
        assert c.upper - c.lower <= F(rtol) * c.lower
    # a floor above the value lets the sum stop earlier
    c = S.sparse_delta(pld, eps, times, rtol=0.01, floor=F(1, 2))
    J = next(j for j in range(times) if S.remainder_bound(times, j, q) <= F(1, 100) / 4 * F(1, 2))
    assert c.details["terms"] == J + 1


def test_the_dominant_atom_is_the_heaviest_and_a_tie_takes_the_larger_ratio():
    pld = _pld({F(1, 2): F(2, 100), F(2): F(49, 100), F(3): F(49, 100)})
    assert S.dominant_share(pld) == (F(49, 100), F(51, 100))
    assert S.dominant_share(_pld({}, F(1, 2))) == (0, 0)
    c = S.sparse_delta(pld, F(1, 4), 4, rtol=0.0)
    assert "mass 0.49" in c.how
    assert _tight_and_enclosing(c, brute(pld, F(1, 4), 4))
    # a heavy dominant atom keeps a long composition tight (a light one would not)
    heavy = _pld({F(1): F(998, 1000), F(3): F(1, 1000), F(1, 3): F(1, 1000)})
    c = S.sparse_delta(heavy, F(1, 2), 200)
    assert 0 < c.lower and c.upper - c.lower <= F(1, 100) * c.lower and c.details["terms"] < 12


def test_remainder_is_the_union_bound_and_bounds_the_exact_tail():
    """Pr[more than j of T releases land off the dominant atom] = Pr[Bin(T, q) > j] ≤ C(T, j+1) q^(j+1)."""
    for T, q in ((5, F(1, 10)), (12, F(1, 3)), (3, F(1))):
        for j in range(T + 1):
            bound = S.remainder_bound(T, j, q)
            assert bound == comb(T, j + 1) * q ** (j + 1)
            tail = sum((comb(T, i) * q**i * (1 - q) ** (T - i) for i in range(j + 1, T + 1)), F(0))
            assert tail <= bound


def test_sparse_path_is_promising_up_to_an_expected_twentieth_of_a_rare_release():
    pld = _pld({F(1): F(99, 100), F(2): F(1, 100)})
    assert S.sparse_promising(pld, 5)  # q·T = 1/20 exactly
    assert not S.sparse_promising(pld, 6)
    assert not S.sparse_promising(_pld({F(1): F(983, 1000), F(2): F(17, 1000)}), 3)  # 0.051 > 1/20
    assert not S.sparse_promising(_pld({}, F(1)), 1)
    assert S.sparse_promising(_pld({F(3): F(1)}), 10**9)


def test_ball_precision_is_stated():
    c = S.sparse_delta(DOMINATED, F(1, 4), 3, rtol=0.0)
    assert "ball arithmetic (128 bits)" in c.how


def test_a_tiny_mass_at_infinite_loss_keeps_a_nonnegative_enclosure():
    pld = _pld({F(1): F(1) - F(1, 10**40)}, F(1, 10**40))
    c = S.sparse_delta(pld, F(1, 2), 3)
    assert 0 <= c.lower <= 1 - (1 - F(1, 10**40)) ** 3 <= c.upper


def test_the_stop_includes_a_remainder_equal_to_its_threshold():
    """The rule is 'remainder ≤ rtol/4 · max(lower sum, floor)': with the floor chosen so that
    the remainder after j = 1 equals the threshold exactly, the sum stops there (2 terms)."""
    pld, times, rtol = DOMINATED, 12, 0.01
    floor = 4 * S.remainder_bound(times, 1, F(4, 100)) / F(rtol)
    assert floor > 1 / 10 and S.remainder_bound(times, 0, F(4, 100)) > F(rtol) / 4 * floor
    assert S.sparse_delta(pld, F(0), times, rtol=rtol, floor=floor).details["terms"] == 2
    assert S.sparse_delta(pld, F(0), times, rtol=rtol, floor=floor * (1 - F(1, 10**9))).details["terms"] == 3


def test_the_default_atom_limit_is_20000():
    """R with exactly 20000 atoms may be composed once (R^{*1} has 20000 atoms: 2 terms); with
    20001 the sum stops at j = 0 (1 term)."""
    for atoms, terms in ((20_000, 2), (20_001, 1)):
        rare = {F(i + 2): F(1, 10 * atoms) for i in range(atoms)}
        pld = PrivacyLossDistribution({F(1): F(9, 10), **rare})
        # ε = 30 > every loss: each atom's term is skipped after one ball test (fast)
        assert S.sparse_delta(pld, F(30), 1, rtol=0.0).details["terms"] == terms


def test_the_default_product_limit_is_50000(monkeypatch):
    """One composition step R^{*j} * R may take at most MAX_PRODUCTS = 50000 ratio products.  It
    is a work budget: the result is an enclosure either way, so the work done is what tells.  R
    with exactly 50000 atoms is composed once from R^{*0} = {1} (1 · 50000 products); with 50001
    the sum stops at j = 0 without composing (a spy stands in for the composition: cheap)."""
    calls: list[int] = []

    def spy(a, b):
        calls.append(len(a) * len(b))
        return {}

    monkeypatch.setattr(S, "_compose", spy)
    mass = F(1, 10**6)  # one shared object: building 50001 atoms stays cheap
    ratios = [F(i + 2) for i in range(50_001)]
    for atoms, composed in ((50_000, [50_000]), (50_001, [])):
        calls.clear()
        pld = PrivacyLossDistribution({F(1): 1 - atoms * mass, **dict.fromkeys(ratios[:atoms], mass)})
        S.sparse_delta(pld, F(30), 1, rtol=0.0)
        assert calls == composed, atoms
