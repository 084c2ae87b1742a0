"""CP §3.1: clustering-and-local-recoding k-anonymizers (Alg. 1 CLR; Mondrian, CP [21]) are
not (β, ε, δ)-DPS for δ < β: one record with an extreme value moves a published range.

Pair: D = m ordinary records + one outlier o (beyond every ordinary value), D2 = D − o.  With
probability β the outlier is sampled; if at least k − 1 ordinary records are sampled too, the
published ranges reach o's value, which never happens under D2.  So, at every ε,
    β · Pr[Bin(m, β) ≥ k − 1]  ≤  δ  ≤  β,
and the lower end tends to β as m grows.  Property: the exact δ lies in that interval, and once
the lower end exceeds CP Thm 5's d(k, β, ε) the mechanism violates what every strongly-safe
k-anonymization guarantees.
Negative control: strongly-safe k-anonymization (random data-independent recodings) on the
same pairs never exceeds d(k, β, ε), so the detector "δ > d" does not fire.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from dps_verify import bounds
from dps_verify.core.binomial import cdf
from dps_verify.mechanisms import ClusterLocalRecoding, Mondrian, StronglySafeKAnonymizer
from dps_verify.testing import strategies as S
from dps_verify.testing.checks import LawCache, pair_witness

ORDINARY = ((0, 0), (1, 2), (2, 1))
OUTLIER = (9, 9)


@cache
def paper_d(k: int, beta: Fraction, eps: Fraction) -> Fraction:
    return bounds.d_certified(k, beta, eps).upper


def tail(m: int, k: int, beta: Fraction) -> Fraction:
    """Pr[Bin(m, β) ≥ k − 1]."""
    return Fraction(1) if k <= 1 else 1 - cdf(k - 2, m, beta)


def m_star(k: int, beta: Fraction, eps: Fraction) -> int:
    """Smallest m with β·Pr[Bin(m, β) ≥ k−1] > d(k, β, ε)."""
    m = 0
    while beta * tail(m, k, beta) <= paper_d(k, beta, eps):
        m += 1
    return m


#: Strategies the composite below draws from, built once (built inside it they were built
#: anew for every example; the draws are the same).
OUTLIER_BETAS = st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(2, 5)])
EPS_ABOVE_FLOOR = st.sampled_from([0, Fraction(1, 2), 1, 2])
ORDINARY_BASES = st.lists(st.sampled_from(ORDINARY), max_size=3)


@st.composite
def outlier_cases(draw: st.DrawFn):
    k = draw(st.integers(2, 3))
    beta = draw(OUTLIER_BETAS)
    eps = S.regime_floor(beta) + draw(EPS_ABOVE_FLOOR)
    base = draw(ORDINARY_BASES)
    m = max(len(base), m_star(k, beta, eps) + draw(st.integers(0, 2)))
    base = S.canonical(base + [ORDINARY[0]] * (m - len(base)))
    return (k, beta, eps), S.canonical(base + (OUTLIER,)), base


@given(outlier_cases(), st.sampled_from([ClusterLocalRecoding, Mondrian]))
def test_section_3_1_outlier_breaks_clr(case, algorithm):
    (k, beta, eps), D, D2 = case
    laws = LawCache(algorithm(k), beta)
    m = len(D2)
    lo = beta * tail(m, k, beta)
    for definition in ("hockey-stick", "pointwise"):
        w = pair_witness(laws, D, D2, eps, definition)
        assert lo <= w.implied_delta <= beta
        assert w.implied_delta > paper_d(k, beta, eps)  # worse than any strongly-safe one
    # The event witnessing it: some published range reaches the outlier's value.
    P, Q = laws(D), laws(D2)
    reach = [y for y in P if any(g[0][1] >= OUTLIER[0] for g, _ in y)]
    assert sum(P[y] for y in reach) >= lo and all(y not in Q for y in reach)


def test_section_3_1_delta_tends_to_beta():
    k, beta = 2, Fraction(1, 2)
    laws = LawCache(Mondrian(k), beta)
    base = (ORDINARY[0],) * 20 + (ORDINARY[1],) * 10
    w = pair_witness(laws, S.canonical(base + (OUTLIER,)), S.canonical(base), 5)
    assert beta - w.implied_delta < Fraction(1, 10**8)


@given(outlier_cases(), st.data())
def test_section_3_1_negative_control_strongly_safe_not_flagged(case, data):
    (k, beta, eps), D, D2 = case
    g = data.draw(S.recodings(ORDINARY + (OUTLIER,)))
    laws = LawCache(StronglySafeKAnonymizer(g, k), beta)
    for definition in ("hockey-stick", "pointwise"):
        assert pair_witness(laws, D, D2, eps, definition).implied_delta <= paper_d(k, beta, eps)
