"""CP Thm 6 (proof CP App. A.3): an ε₁-safe k-anonymization (CP Def. 6: the recoding is chosen
by an ε₁-DP mechanism, then Apply) is (β, ε, d(k, β, ε − ε₁))-DPS for ε ≥ −ln(1−β) + ε₁.

Generated mechanisms: the exponential mechanism over a random family of 1–3 random recodings
with random additive quality scores of sensitivity 1 (ε₁ = 2 ln w, w ∈ {2, 3/2, 5/4, 3}).
Two readings of "sample, then anonymize" are checked:
- the recoding chosen on the *sample* (CP Def. 3 applied literally);
- the recoding chosen on the full dataset, as CP App. A.3's factorisation assumes.
Both under the hockey-stick definition (the theorem's statement, CP Def. 2) and the pointwise
one (what App. A.3 bounds).
Negative controls: Apply with suppression threshold k−1 while d is computed for k (found by
search), and a recoding choice that is not ε₁-DP at all (it switches on one record's presence).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from dps_verify import bounds
from dps_verify.mechanisms import EpsilonSafeKAnonymizer
from dps_verify.testing import strategies as S
from dps_verify.testing.checks import LawCache, witness_from_laws

DOMAIN_MAX = dict(max_attributes=2, max_value=2, max_records=3)


@cache
def paper_d(k: int, beta: Fraction, eps: Fraction) -> Fraction:
    return bounds.d_certified(k, beta, eps).upper


#: Strategies the composite below draws from, built once (built inside it they were built
#: anew for every example; the draws are the same).
SDGS_PARAMS = S.sdgs_params(max_k=4, extra=1)
DOMAINS = S.domains(**DOMAIN_MAX)


@st.composite
def theorem6_cases(draw: st.DrawFn, *, threshold_shift: int = 0, min_k: int = 1):
    """(anonymizer, (k, β, ε, ε₁⁺), D, D2) with ε − ε₁⁺ in CP Thm 5's regime, where ε₁⁺ is a
    rational upper bound on ε₁ = 2 ln w.  ``threshold_shift = −1`` builds the broken Apply."""
    k, beta, extra = draw(SDGS_PARAMS)
    k = max(k, min_k)
    dom = draw(DOMAINS)
    anon = draw(S.epsilon_safe_anonymizers(dom, k + threshold_shift))
    e1 = S.epsilon1_upper(anon.w, anon.sensitivity)
    data = S.datasets(dom, max_size=4, params=(k, beta, extra), max_group=20)
    D, D2 = draw(S.neighbours(dom, data=data))
    return anon, (k, beta, e1 + extra, e1), D, D2


def laws_for(anon: EpsilonSafeKAnonymizer, beta: Fraction, D, D2, where: str):
    if where == "sample":
        laws = LawCache(anon, beta)
        return laws(D), laws(D2)
    return anon.choice_on_full_data(D, beta), anon.choice_on_full_data(D2, beta)


def theorem6_violation(case, where: str = "sample") -> str | None:
    anon, (k, beta, eps, e1), D, D2 = case
    bound = paper_d(k, beta, eps - e1)  # ≥ d(k, β, ε − ε₁) since ε₁ ≤ ε₁⁺ and d decreases in ε
    P, Q = laws_for(anon, beta, D, D2, where)
    for definition in ("pointwise", "hockey-stick"):
        w = witness_from_laws(P, Q, eps, D, D2, definition)
        if w.implied_delta > bound:
            return f"{definition} delta {float(w.implied_delta):.4g} > d = {float(bound):.4g}\n{w.describe()}"
    return None


@given(theorem6_cases())
def test_theorem6_choice_on_sample_below_d(case):
    assert theorem6_violation(case, "sample") is None


@given(theorem6_cases())
def test_theorem6_choice_on_full_data_below_d(case):
    assert theorem6_violation(case, "full") is None


#: negative controls only have to be caught: the first failing case is enough, so no shrinking
#: (shrinking it was almost all of their cost)
NEG = settings(max_examples=300, database=None, derandomize=True, phases=(Phase.explicit, Phase.generate))


def test_negative_control_threshold_k_minus_1_is_caught():
    for where in ("sample", "full"):
        case = find(
            theorem6_cases(threshold_shift=-1, min_k=2),
            lambda c, w=where: theorem6_violation(c, w) is not None,
            settings=NEG,
        )
        assert theorem6_violation(case, where) is not None


def test_negative_control_data_dependent_choice_is_caught():
    """The "ε₁-safe" premise matters: a choice that flips on one record's presence (a CLR-style
    data-dependent recoding, CP §3.1) reveals that record whenever its group is published."""
    dom = ((0,), (1,))
    to_a = S.Recoding(((dom[0], "a"), (dom[1], "a")))
    to_b = S.Recoding(((dom[0], "b"), (dom[1], "b")))
    # score_b jumps by 60 when record (1,) is present: sensitivity 60, not 1 as claimed.
    scores = S.AdditiveScores(((1, 0), (0, 60)), dom)
    anon = EpsilonSafeKAnonymizer([to_a, to_b], scores, 2, weight_base=2, sensitivity=1)
    k, beta = 2, Fraction(1, 2)
    e1 = S.epsilon1_upper(anon.w, 1)
    extra = S.regime_floor(beta)
    D2 = (dom[0],) * 10
    D = D2 + (dom[1],)
    for where in ("sample", "full"):
        assert theorem6_violation((anon, (k, beta, e1 + extra, e1), D, D2), where) is not None
