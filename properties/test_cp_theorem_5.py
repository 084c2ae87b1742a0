"""CP Thm 5 (proof CP App. A.2): sampled strongly-safe k-anonymization is (β, ε, d(k,β,ε))-DPS
for 0 < β < 1 and ε ≥ −ln(1−β).

Properties
- for random data-independent recodings, shaped datasets (groups near n_m = ⌈k/γ−1⌉, outliers,
  duplicates, empty and tiny) and add/remove neighbours, the exact δ of the sampled mechanism is
  ≤ d(k, β, ε) under the pointwise definition the proof bounds (TR Def. 2) and hence under the
  hockey-stick definition of the statement (CP Def. 2); it is also ≤ the exact worst case
  ``sdgs_delta`` of :mod:`dps_verify.sdgs`;
- the closed-form worst case equals brute force over one-group datasets, and the pointwise
  worst case equals the paper's d.
Negative controls: suppression threshold k−1, and a sampler that ignores β (keeps everything).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from dps_verify import bounds, exact
from dps_verify.core.numbers import exp_interval
from dps_verify.core.params import epsilon_param
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.testing import strategies as S
from dps_verify.testing.checks import LawCache, pair_witness
from dps_verify.verdict.witness import bad_set

DOMAIN_MAX = dict(max_attributes=2, max_value=2, max_records=3)


@cache
def paper_d(k: int, beta: Fraction, eps: Fraction) -> Fraction:
    return bounds.d_certified(k, beta, eps).upper


@cache
def worst(k: int, beta: Fraction, eps: Fraction, definition: str) -> Fraction:
    return exact.sdgs_delta_certified(k, beta, eps, definition).upper


#: Strategies the composite below draws from, built once (built inside it they were built
#: anew for every example; the draws are the same).
SDGS_PARAMS = S.sdgs_params(max_k=5)
DOMAINS = S.domains(**DOMAIN_MAX)


@st.composite
def theorem5_cases(draw: st.DrawFn, *, threshold_shift: int = 0, min_k: int = 1):
    """(anonymizer, (k, β, ε), D, D2) for CP Thm 5; ``threshold_shift`` = −1 builds the broken
    Apply of the negative control."""
    k, beta, eps = draw(SDGS_PARAMS)
    k = max(k, min_k)
    dom = draw(DOMAINS)
    g = draw(S.recodings(dom))
    anon = StronglySafeKAnonymizer(g, k, threshold=k + threshold_shift)
    data = S.datasets(dom, max_size=5, params=(k, beta, eps), max_group=30)
    D, D2 = draw(S.neighbours(dom, data=data))
    return anon, (k, beta, eps), D, D2


def theorem5_violation(case, *, beta_used=None) -> str | None:
    """None if the case respects CP Thm 5's bound under both definitions, else a message."""
    anon, (k, beta, eps), D, D2 = case
    laws = LawCache(anon, beta if beta_used is None else beta_used)
    bound = paper_d(k, beta, eps)
    for definition in ("pointwise", "hockey-stick"):
        w = pair_witness(laws, D, D2, eps, definition)
        if w.implied_delta > bound:
            return f"{definition} delta {float(w.implied_delta):.4g} > d = {float(bound):.4g}\n{w.describe()}"
        if w.implied_delta > worst(k, beta, eps, definition):
            return f"{definition} delta exceeds the exact worst case sdgs_delta\n{w.describe()}"
    return None


@given(theorem5_cases())
def test_theorem5_exact_delta_below_d(case):
    assert theorem5_violation(case) is None


@cache
def one_group_laws(k: int, beta: Fraction) -> LawCache:
    """The exact laws of one-recoding-group datasets under sampled strongly-safe
    k-anonymization: a law depends on k, β and the dataset, not on ε, so the examples with the
    same (k, β) read the same laws (26 distinct pairs among the default profile's 40 examples)."""
    return LawCache(StronglySafeKAnonymizer(lambda r: "g", k), beta)


def one_group_brute_force(laws: LawCache, eps: Fraction, N: int) -> dict[str, Fraction]:
    """max over 1 ≤ n ≤ N of the δ that :func:`pair_witness` implies for D = n copies of t,
    D2 = D − t, under each definition, computed as its ``witness_from_laws`` computes it: the
    same bad sets (``verdict.witness.bad_set``, decided exactly) and the same exact sums, the
    hockey-stick's e^ε rounded up as there.  Each direction's bad set is formed once for both
    definitions, and each dataset's law once (the law of n copies is also the neighbour's at
    n + 1): pair_witness per definition formed both twice."""
    eps = epsilon_param(eps)
    hi_e = exp_interval(eps)[1]
    law = [laws(("t",) * n) for n in range(N + 1)]
    best = {"pointwise": Fraction(0), "hockey-stick": Fraction(0)}
    for n in range(1, N + 1):
        P, Q = law[n], law[n - 1]
        bad = {(0, 1): bad_set(P, Q, eps), (1, 0): bad_set(Q, P, eps)}
        for (i, j), ev in bad.items():  # hockey-stick: each direction's bad set, A − e^ε B
            A, B = (P, Q)[i], (P, Q)[j]
            a = sum((A[y] for y in ev), Fraction(0))
            b = sum((B.get(y, Fraction(0)) for y in ev), Fraction(0))
            best["hockey-stick"] = max(best["hockey-stick"], a - hi_e * b if b else a)
        union = set(bad[0, 1]) | set(bad[1, 0])  # pointwise: both bad sets, the larger mass
        a = sum((P.get(y, Fraction(0)) for y in union), Fraction(0))
        b = sum((Q.get(y, Fraction(0)) for y in union), Fraction(0))
        best["pointwise"] = max(best["pointwise"], a, b)
    return best


@given(S.sdgs_params(max_k=6))
def test_theorem5_closed_form_equals_brute_force(params):
    """Brute force over one-recoding-group datasets D = n copies of t, D2 = D − t (the
    reduction of CP App. A.2), n ≤ N, against ``sdgs_delta`` and CP's d."""
    k, beta, eps = params
    N = 30
    brute = one_group_brute_force(one_group_laws(k, beta), eps, N)
    for definition in ("pointwise", "hockey-stick"):
        c = exact.sdgs_delta_certified(k, beta, eps, definition)
        assert brute[definition] <= c.upper
        if c.details.get("argmax_n", N + 1) <= N:
            if definition == "pointwise":
                assert brute[definition] == c.upper
            else:  # hockey-stick: our witness rounds e^eps up, so equality within rounding
                assert c.upper - brute[definition] <= Fraction(1, 10**30)
    # The pointwise worst case is the paper's d (CP App. A.2's monotonicity argument).
    assert worst(k, beta, eps, "pointwise") == paper_d(k, beta, eps)


# --------------------------------------------------------------------------- negative controls

#: negative controls only have to be caught: the first failing case is enough, so no shrinking
#: (shrinking it was almost all of their cost)
NEG = settings(max_examples=300, database=None, derandomize=True, phases=(Phase.explicit, Phase.generate))


def test_negative_control_threshold_k_minus_1_is_caught():
    from hypothesis import find

    case = find(
        theorem5_cases(threshold_shift=-1, min_k=2),
        lambda c: theorem5_violation(c) is not None,
        settings=NEG,
    )
    assert "delta" in theorem5_violation(case)


def test_negative_control_sampler_ignoring_beta_is_caught():
    from hypothesis import find

    case = find(
        theorem5_cases(),
        lambda c: theorem5_violation(c, beta_used=Fraction(1)) is not None,
        settings=NEG,
    )
    # Without sampling, any group of >= k records is published verbatim (CP Prop. 4).
    anon, (k, *_), D, D2 = case
    assert max(len(D), len(D2)) >= k


@pytest.mark.parametrize("k", [2, 3])
def test_shrunk_counterexample_is_small_and_readable(k):
    """The threshold-(k−1) counterexample shrinks to one group of copies of one record."""
    from hypothesis import find

    case = find(
        theorem5_cases(threshold_shift=-1, min_k=k),
        lambda c: theorem5_violation(c) is not None,
        settings=NEG,
    )
    anon, _, D, D2 = case
    assert len(set(D) | set(D2)) <= 2
    assert "Recoding(" in repr(anon.recode)
