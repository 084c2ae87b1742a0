"""CP Thm 1 (proof CP App. A.1): (β₁, ε₁, δ₁)-DPS implies (β₂, ε₂, δ₂)-DPS for β₂ ≤ β₁, with
ε₂ = ln(1 + (β₂/β₁)(e^{ε₁} − 1)) and δ₂ = (β₂/β₁)δ₁ (``bounds.amplify``).

Scope of the property.  DPS quantifies over *all* datasets; a test can only enumerate some.  The
universe here is U = every multiset of at most N records over a small domain (N = 3).  U is
closed under sub-multisets, which is exactly what the proof needs: A^{β₂}(D) = A^{β₁}(T) with T
a β₂/β₁-sample of D, and the assumption is applied to neighbours (T, T − t) ⊆ U.  So we compute
δ₁ = max over all neighbouring pairs in U of the exact hockey-stick δ of A^{β₁} at ε₁ (CP Def. 2)
and check the conclusion on every neighbouring pair in U.

Mechanisms: random finite mechanisms (one random stochastic row per dataset in U).
Negative control: a sampler that ignores the requested rate β₂ and samples at β₁.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from dps_verify import bounds, exact
from dps_verify.core.numbers import to_fraction
from dps_verify.testing import strategies as S
from dps_verify.testing.checks import LawCache

N = 3


#: Strategies the composite below draws from, built once (built inside it they were built
#: anew for every example; the draws are the same).
SMALL_DOMAINS = S.domains(max_attributes=1, max_value=1, max_records=2)
BETAS = S.betas(6, allow_one=True)
EPSILONS = S.epsilons(max_epsilon=2, step=4)

@st.composite
def theorem1_cases(draw: st.DrawFn):
    """(domain, mechanism, β₁, β₂, ε₁)."""
    dom = draw(SMALL_DOMAINS)
    mech = draw(S.finite_mechanisms(dom, N, n_outputs=draw(st.integers(2, 3))))
    b1 = draw(BETAS)
    b2 = draw(BETAS.filter(lambda b: b <= b1))
    e1 = draw(EPSILONS)
    return dom, mech, b1, b2, e1


def universe_delta(mech, dom, beta, eps, *, upper: bool) -> Fraction:
    """max over neighbouring pairs in U of the exact hockey-stick δ at ε (enclosure end)."""
    laws = LawCache(mech, beta)
    best = Fraction(0)
    for D, D2 in S.all_pairs(dom, N):
        c = exact.delta_certified(laws(D), laws(D2), eps)
        best = max(best, c.upper if upper else c.lower)
    return best


def theorem1_violation(case, *, sampler_rate=None) -> str | None:
    dom, mech, b1, b2, e1 = case
    d1 = universe_delta(mech, dom, b1, e1, upper=True)
    e2, d2 = bounds.amplify(e1, d1, b1, b2)
    e2, d2 = to_fraction(e2), to_fraction(d2)
    got = universe_delta(mech, dom, b2 if sampler_rate is None else sampler_rate(case), e2, upper=False)
    if got > d2:
        return f"delta at beta2 = {float(got):.6g} > delta2 = {float(d2):.6g} (eps2 = {float(e2):.6g})"
    return None


@given(theorem1_cases())
def test_theorem1_amplification(case):
    assert theorem1_violation(case) is None


def test_theorem1_is_tight_for_randomized_response_like_tables():
    """Sanity: for a mechanism that publishes presence of a record at β₁ = 1, the bound is met
    with equality at ε₁ = 0 (δ₂ = β₂ δ₁ = β₂)."""
    dom = (("a",),)
    table = {d: ((Fraction(1), Fraction(0)) if d else (Fraction(0), Fraction(1)))
             for d in S.all_datasets(dom, N)}
    mech = S.TableMechanism(table)
    b2 = Fraction(1, 3)
    assert universe_delta(mech, dom, b2, 0, upper=False) == b2


def test_negative_control_sampler_ignoring_beta_is_caught():
    case = find(
        theorem1_cases().filter(lambda c: c[3] < c[2]),
        lambda c: theorem1_violation(c, sampler_rate=lambda c: c[2]) is not None,
        # a negative control only has to be caught: no shrinking of the first failing case
        settings=settings(max_examples=300, database=None, derandomize=True,
                          phases=(Phase.explicit, Phase.generate)),
    )
    assert theorem1_violation(case, sampler_rate=lambda c: c[2]) is not None
