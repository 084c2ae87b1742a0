"""CP Thm 2 (post-processing) and CP Thm 3 (mixtures) for (β, ε, δ)-DPS.

Random finite mechanisms A₁, A₂ on U = all multisets of ≤ N records over a small domain
(see test_cp_theorem_1 for why U is enumerated), random post-processing kernels K and mixing
weights p.  With δ(M) = max over neighbouring pairs in U of the exact hockey-stick δ of M^β at ε
(CP Def. 2):
- Thm 2: δ(K ∘ A₁) ≤ δ(A₁), and pair by pair as well (the data-processing inequality);
- Thm 3: δ(A_p) ≤ max(δ(A₁), δ(A₂)) (pair by pair: ≤ p δ₁ + (1−p) δ₂).
Negative controls: a "post-processing" whose kernel peeks at the dataset size, and a "mixture"
whose coin depends on the data.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.engine.distribution import randomized
from dps_verify.testing import strategies as S
from dps_verify.testing.checks import LawCache

N = 3
#: negative controls only have to be caught: the first failing case is enough, so no shrinking
#: (shrinking it was almost all of their cost)
NEG = settings(max_examples=300, database=None, derandomize=True, phases=(Phase.explicit, Phase.generate))


def pair_deltas(mech, dom, beta, eps) -> dict:
    """Exact enclosures of δ for every neighbouring pair in U."""
    laws = LawCache(mech, beta)
    return {
        (D, D2): exact.delta_certified(laws(D), laws(D2), eps) for D, D2 in S.all_pairs(dom, N)
    }


def post_processed(mech, kernel) -> randomized:
    r = randomized(lambda s: kernel.push(mech.law(s)))
    r.sufficient_statistic = None
    return r


def peeking(mech, kernel) -> randomized:
    """Not post-processing: uses the kernel only on samples of odd size, else the identity."""
    r = randomized(lambda s: kernel.push(mech.law(s)) if len(s) % 2 else mech.law(s))
    r.sufficient_statistic = None
    return r


#: Strategies the composite below draws from, built once (built inside it they were built
#: anew for every example; the draws are the same).
SMALL_DOMAINS = S.domains(max_attributes=1, max_value=1, max_records=2)
BETAS = S.betas(6, allow_one=True)
EPSILONS = S.epsilons(2, 4)

@st.composite
def theorem2_cases(draw: st.DrawFn):
    dom = draw(SMALL_DOMAINS)
    m = draw(st.integers(2, 3))
    mech = draw(S.finite_mechanisms(dom, N, n_outputs=m))
    kernel = draw(S.kernels(m, draw(st.integers(1, 3))))
    return dom, mech, kernel, draw(BETAS), draw(EPSILONS)


def theorem2_violation(case, wrap=post_processed) -> str | None:
    dom, mech, kernel, beta, eps = case
    before = pair_deltas(mech, dom, beta, eps)
    after = pair_deltas(wrap(mech, kernel), dom, beta, eps)
    for pair, c in after.items():
        if c.lower > before[pair].upper:
            return f"pair {pair}: delta after {float(c.lower):.4g} > before {float(before[pair].upper):.4g}"
    if max(c.lower for c in after.values()) > max(c.upper for c in before.values()):
        return "worst case grew"
    return None


@given(theorem2_cases())
def test_theorem2_post_processing(case):
    assert theorem2_violation(case) is None


def test_theorem2_negative_control_peeking_kernel_is_caught():
    case = find(
        theorem2_cases(), lambda c: theorem2_violation(c, peeking) is not None, settings=NEG
    )
    assert theorem2_violation(case, peeking) is not None


@st.composite
def theorem3_cases(draw: st.DrawFn):
    dom = draw(SMALL_DOMAINS)
    p, a1, a2 = draw(S.mixtures(dom, N, n_outputs=draw(st.integers(2, 3))))
    return dom, p, a1, a2, draw(BETAS), draw(EPSILONS)


def data_dependent_mix(p, a1, a2) -> randomized:
    """Not a mixture in the sense of CP Thm 3: A₁ on samples of odd size, A₂ otherwise."""
    r = randomized(lambda s: a1.law(s) if len(s) % 2 else a2.law(s))
    r.sufficient_statistic = None
    return r


def theorem3_violation(case, make=S.mix) -> str | None:
    dom, p, a1, a2, beta, eps = case
    d1 = pair_deltas(a1, dom, beta, eps)
    d2 = pair_deltas(a2, dom, beta, eps)
    dm = pair_deltas(make(p, a1, a2), dom, beta, eps)
    worst = max(max(c.upper for c in d1.values()), max(c.upper for c in d2.values()))
    got = max(c.lower for c in dm.values())
    if got > worst:
        return f"mixture delta {float(got):.4g} > max of components {float(worst):.4g}"
    for pair, c in dm.items():
        if c.lower > p * d1[pair].upper + (1 - p) * d2[pair].upper:
            return f"pair {pair}: mixture exceeds the convex combination"
    return None


@given(theorem3_cases())
def test_theorem3_mixture(case):
    assert theorem3_violation(case) is None


def test_theorem3_negative_control_data_dependent_coin_is_caught():
    case = find(
        theorem3_cases(),
        lambda c: theorem3_violation(c, data_dependent_mix) is not None,
        settings=NEG,
    )
    assert theorem3_violation(case, data_dependent_mix) is not None


def test_mixture_weight_edges():
    """p = 0 and p = 1 give back the components exactly."""
    dom = (("a",),)
    a1 = S.TableMechanism({d: (Fraction(1), Fraction(0)) for d in S.all_datasets(dom, N)})
    a2 = S.TableMechanism({d: (Fraction(1, 2), Fraction(1, 2)) for d in S.all_datasets(dom, N)})
    for p, ref in ((Fraction(1), a1), (Fraction(0), a2)):
        assert S.mix(p, a1, a2).law((("a",),)) == ref.law((("a",),))
