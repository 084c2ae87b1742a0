"""Property: the sparse enclosure (measures.pld_sparse) and the upper-only bound
(pld_discrete.upper_below) contain the exact T-fold δ.

Reference: :func:`tests.test_pld_discrete_properties.multinomial_delta` (exact sum over count
vectors, independent of both paths).  Negative controls: the same checks reject a sparse
enclosure that drops the remainder term, and an "upper bound" taken from the optimistic
(rounded-down) grid chain.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import pld_sparse as S
from dps_verify.inverse.releases import group_pair
from dps_verify.measures.pld import PrivacyLossDistribution, pair_delta_enclosure
from tests.test_pld_discrete_properties import multinomial_delta


@st.composite
def dominated_pairs(draw):
    """P, Q on 2–5 outcomes, outcome 0 heavy under both (a dominant atom), others light; zero
    weights allowed (infinite losses both ways)."""
    m = draw(st.integers(2, 5))
    heavy = draw(st.sampled_from([50, 1000, 10**6]))
    light = st.sampled_from([0, 1, 2, 3, 7])
    ws = [heavy] + draw(st.lists(light, min_size=m - 1, max_size=m - 1))
    vs = [heavy + draw(st.integers(-3, 3))] + draw(st.lists(light, min_size=m - 1, max_size=m - 1))
    return ({i: Fraction(w, sum(ws)) for i, w in enumerate(ws)},
            {i: Fraction(v, sum(vs)) for i, v in enumerate(vs)})


EPS = st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1), Fraction(3)])


def _violations(p, q, eps, times, max_atoms):
    bad = []
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_pair(a, b)
        if not pld.ratios:
            continue
        enc = S.sparse_delta(pld, eps, times, max_atoms=max_atoms)
        lo, hi = multinomial_delta(pld, eps, times)
        if not (enc.lower <= hi and lo <= enc.upper):
            bad.append((a, b, times, eps, float(enc.lower), float(enc.upper), float(lo)))
    return bad


@settings(max_examples=40)
@given(dominated_pairs(), EPS, st.integers(1, 12), st.sampled_from([1, 3, 20_000]))
@example(({0: Fraction(999, 1000), 1: Fraction(1, 1000)}, {0: Fraction(1)}), Fraction(1), 5, 1)
@example(({0: Fraction(99, 100), 1: Fraction(1, 200), 2: Fraction(1, 200)},
          {0: Fraction(98, 100), 1: Fraction(1, 100), 2: Fraction(1, 100)}), Fraction(0), 12, 3)
def test_sparse_encloses_exact(pair, eps, times, max_atoms):
    """max_atoms = 1 or 3 forces a truncated sum, so the remainder bound is what keeps the upper
    end above the exact value."""
    assert _violations(*pair, eps, times, max_atoms) == []


def test_sparse_is_exact_when_the_sum_is_complete():
    p = {0: Fraction(9, 10), 1: Fraction(1, 10)}
    q = {0: Fraction(19, 20), 1: Fraction(1, 20)}
    pld = PrivacyLossDistribution.from_pair(p, q)
    enc = S.sparse_delta(pld, Fraction(1, 2), 4, rtol=0.0)  # rtol 0: runs to j = T
    lo, hi = multinomial_delta(pld, Fraction(1, 2), 4)
    assert enc.details["remainder"] == 0 and enc.lower <= hi and lo <= enc.upper
    assert enc.upper - enc.lower < Fraction(1, 10**30)


def test_negative_control_dropped_remainder_is_rejected(monkeypatch):
    """Forgetting the remainder (releases with more than J rare outcomes) leaves an upper end
    below the exact δ, and the same containment check sees it."""
    monkeypatch.setattr(S, "remainder_bound", lambda times, j, q: Fraction(0))
    p = {0: Fraction(94, 100), 1: Fraction(5, 100), 2: Fraction(1, 100)}
    q = {0: Fraction(98, 100), 1: Fraction(1, 100), 2: Fraction(1, 100)}
    assert _violations(p, q, Fraction(1), 8, max_atoms=1) != []
    monkeypatch.undo()
    assert _violations(p, q, Fraction(1), 8, max_atoms=1) == []


def test_small_delta_is_tight_where_the_grid_is_not():
    """The case that motivated the sparse path: k = 20, β = 1/10, ε = 2, T = 10, n = 25 has δ ≈ 3.3e-20,
    far below the discretised PLD's absolute error; the sparse enclosure is within 1e-6 relative."""
    p, q = group_pair(25, 20, Fraction(1, 10))
    enc = pair_delta_enclosure(p, q, 2, 10)
    assert enc.details["mode"] == "sparse"
    assert 0 < enc.lower and enc.upper <= enc.lower * Fraction(1000001, 1000000)
    assert enc.upper < Fraction(1, 10**19)


@settings(max_examples=25)
@given(dominated_pairs() | st.builds(lambda a, b: (a, b),
                                     st.just({0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}),
                                     st.just({0: Fraction(1, 3), 1: Fraction(1, 2), 2: Fraction(1, 6)})),
       EPS, st.integers(2, 10), st.sampled_from([Fraction(0), Fraction(1, 10**6), Fraction(1, 100), Fraction(1, 2)]))
def test_upper_below_is_an_upper_bound(pair, eps, times, target):
    """Forced onto the pessimistic grid chain (exact_budget = 0), whatever the target."""
    p, q = pair
    plds = [PrivacyLossDistribution.from_pair(p, q), PrivacyLossDistribution.from_pair(q, p)]
    plds = [x for x in plds if x.ratios]
    if not plds:
        return
    c = D.upper_below(plds, eps, times, target, exact_budget=0, max_bins=1 << 14)
    exact = max(multinomial_delta(x, eps, times)[0] for x in plds)
    assert exact <= c.upper and c.lower <= max(multinomial_delta(x, eps, times)[1] for x in plds)


def test_negative_control_optimistic_chain_as_upper_bound_is_rejected(monkeypatch):
    """Taking the upper end from the rounded-down chain (wrong rounding direction) gives an
    'upper bound' below the exact δ, which the same check rejects."""
    real = D.discretised_delta

    def wrong(pld, eps, times, h_exp, **kw):
        kw.pop("upper_only", None)
        c = real(pld, eps, times, h_exp, **kw)
        return D.Certified(c.lower, c.lower, c.how, c.details)

    monkeypatch.setattr(D, "discretised_delta", wrong)
    p = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    q = {0: Fraction(1, 3), 1: Fraction(1, 2), 2: Fraction(1, 6)}
    pld = PrivacyLossDistribution.from_pair(p, q)
    misses = 0
    for times in (3, 5, 8):
        for eps in (Fraction(0), Fraction(1, 4), Fraction(1, 2)):
            # a target above DISCRETE_FLOOR: below it the grid is not used at all
            c = D.upper_below([pld], eps, times, Fraction(1, 10**9), exact_budget=0, max_bins=1 << 14)
            misses += c.upper < multinomial_delta(pld, eps, times)[0]
    assert misses > 0


@pytest.mark.parametrize("n", [21, 23, 26])
def test_releases_sizes_match_exact(n):
    p, q = group_pair(n, 20, Fraction(1, 10))
    enc = pair_delta_enclosure(p, q, 2, 3)
    ref = max(multinomial_delta(PrivacyLossDistribution.from_pair(a, b), Fraction(2), 3)[1]
              for a, b in ((p, q), (q, p)))
    assert enc.lower <= ref <= enc.upper or (enc.lower <= ref and ref - enc.upper < Fraction(1, 10**40))
