"""Group factorisation: the factorised and generic paths give the same exact
law; the neighbouring-pair fast path gives the same δ as the full laws; budgets are enforced."""

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.engine.factorised import (
    differing_group_laws,
    neighbour_group_laws,
    product_law,
)
from dps_verify.engine.protocol import is_group_factorised, thresholded_count_law
from dps_verify.measures.pld import pair_delta

betas = st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(2, 7), Fraction(1, 10), Fraction(1)])


@st.composite
def small_cases(draw):
    n_groups = draw(st.integers(1, 4))
    dataset = draw(st.lists(st.integers(0, 40), min_size=0, max_size=9))
    k = draw(st.integers(1, 4))
    return n_groups, dataset, k, draw(betas)


def _anon(n_groups, k):
    return M.StronglySafeKAnonymizer(lambda r, m=n_groups: r % m, k)


@settings(max_examples=60, deadline=None)
@given(small_cases())
def test_factorised_equals_generic_exactly(case):
    n_groups, dataset, k, beta = case
    A = _anon(n_groups, k)
    fast = exact.distribution(A, dataset, beta)
    slow = exact.distribution(A, dataset, beta, factorised=False)
    assert fast.exact == slow.exact


@settings(max_examples=40, deadline=None)
@given(small_cases(), st.integers(0, 40), st.sampled_from([0, Fraction(1, 3), 1, 2]))
def test_neighbour_fast_path_equals_full_laws(case, extra, eps):
    n_groups, dataset, k, beta = case
    A = _anon(n_groups, k)
    big = [*dataset, extra]
    L, L2 = neighbour_group_laws(A, big, dataset, beta)
    P = exact.distribution(A, big, beta).exact
    Q = exact.distribution(A, dataset, beta).exact
    assert exact.delta_certified(L, L2, eps) == exact.delta_certified(P, Q, eps)
    assert exact.pointwise_delta_exact(L, L2, eps) == exact.pointwise_delta_exact(P, Q, eps)
    assert exact.epsilon(L, L2, Fraction(1, 50)) == exact.epsilon(P, Q, Fraction(1, 50))


def test_pld_of_group_pair_equals_pld_of_full_laws():
    A = _anon(3, 2)
    D = [0, 1, 2, 3, 4, 5, 6, 9]
    L, L2 = neighbour_group_laws(A, [*D, 12], D, Fraction(1, 2))
    P = exact.distribution(A, [*D, 12], Fraction(1, 2))
    Q = exact.distribution(A, D, Fraction(1, 2))
    assert pair_delta(L, L2, 1, times=3) == pair_delta(P, Q, 1, times=3)


def test_declarations():
    assert is_group_factorised(M.StronglySafeKAnonymizer(lambda r: r, 2))
    # The sample-based choice of recoding (CP Def. 6) is not a product over groups.
    eps_safe = M.EpsilonSafeKAnonymizer([lambda r: r, lambda r: 0], lambda s: [0, len(s)], 2)
    assert not is_group_factorised(eps_safe)
    assert not is_group_factorised(M.Mondrian(2))
    assert not is_group_factorised(lambda s: len(s))


def test_group_below_threshold_is_a_point_mass_and_law_computed_once_per_size():
    assert thresholded_count_law(3, Fraction(1, 2), 5) == {None: 1}
    A = _anon(16, 5)
    P = product_law(A, range(1000), Fraction(1, 2))
    assert sorted(P.laws_by_size) == [62, 63]
    assert P.joint_size() > 10**20


def test_every_group_below_k_gives_one_output():
    A = _anon(16, 100)
    d = exact.distribution(A, range(1000), Fraction(1, 2))
    assert d.exact == {(): 1}


def test_sixteen_groups_thousand_records_neighbour_delta():
    A = _anon(16, 5)
    D = list(range(1000))
    L, L2 = neighbour_group_laws(A, [*D, 1000], D, Fraction(1, 2))
    # the differing group has 63 vs 62 records (1000 = 16·62 + 8; key 1000 % 16 = 8)
    assert sum(L.values()) == 1 and L != L2
    ref = exact.distribution(_anon(1, 5), range(63), Fraction(1, 2)).exact
    ref2 = exact.distribution(_anon(1, 5), range(62), Fraction(1, 2)).exact
    assert exact.delta_certified(L, L2, 1) == exact.delta_certified(ref, ref2, 1)


def test_budgets():
    A = _anon(16, 5)
    with pytest.raises(CertificationError, match="max_terms"):  # lazy: refused when expanded
        _ = exact.distribution(A, range(1000), Fraction(1, 2)).exact
    with pytest.raises(CertificationError, match="max_terms"):
        exact.distribution(lambda s: len(s), range(40), Fraction(1, 2), max_terms=10**6)
    # exactly at the budget passes: 2^10 count vectors
    d = exact.distribution(lambda s: len(s), range(10), Fraction(1, 2), max_terms=2**10)
    assert sum(d.exact.values()) == 1
    with pytest.raises(CertificationError, match="max_terms"):
        exact.distribution(lambda s: len(s), range(10), Fraction(1, 2), max_terms=2**10 - 1)


def test_not_neighbours_rejected():
    A = _anon(2, 1)
    with pytest.raises(ParameterError, match="CP §2.1"):
        neighbour_group_laws(A, [1, 2, 3], [1], Fraction(1, 2))
    with pytest.raises(ParameterError, match="CP §2.1"):
        neighbour_group_laws(A, [1, 2], [3], Fraction(1, 2))
    P = product_law(A, [1, 2, 3], Fraction(1, 2))
    Q = product_law(A, [1], Fraction(1, 2))
    assert len(differing_group_laws(P, Q)) == 2


class _WronglyDeclared(M.StronglySafeKAnonymizer):
    """Negative control: publishes every sampled group once the *total* sample reaches the
    threshold (not per group) yet declares the per-group law — not a product law; the
    generic-vs-factorised comparison must notice."""

    def __call__(self, sample):
        return self.from_counts(dict(Counter(self.recode(r) for r in sample)))

    def from_counts(self, counts):
        if sum(counts.values()) < self.threshold:
            return ()
        return tuple(sorted(((g, c) for g, c in counts.items() if c), key=lambda kv: repr(kv[0])))


def test_negative_control_wrong_declaration_detected():
    A = _WronglyDeclared(lambda r: r % 2, 2)
    D = [0, 1, 1]
    # a user's class: the declaration is used only when asked for (engine.protocol)
    fast = exact.distribution(A, D, Fraction(1, 2), factorised=True)
    slow = exact.distribution(A, D, Fraction(1, 2), factorised=False)
    assert fast.exact != slow.exact


def test_negative_control_non_injective_assemble_breaks_cancellation():
    """If assemble forgets which group a count came from, outputs merge and the group pair's
    δ is no longer the δ of the full laws: the theorem needs injectivity."""

    class Merging(M.StronglySafeKAnonymizer):
        def assemble(self, parts):
            return tuple(sorted(c for c in parts.values() if c is not None))

    A = Merging(lambda r: r % 2, 1)
    D = [0, 1, 3]
    L, L2 = neighbour_group_laws(A, [*D, 2], D, Fraction(1, 2))
    P = exact.distribution(A, [*D, 2], Fraction(1, 2), factorised=True).exact
    Q = exact.distribution(A, D, Fraction(1, 2), factorised=True).exact
    assert exact.delta_certified(L, L2, 1).upper == Fraction(1, 4)
    assert exact.delta_certified(P, Q, 1).upper == Fraction(1, 16)
    # the correct (injective) mechanism agrees with its group pair
    B = _anon(2, 1)
    L, L2 = neighbour_group_laws(B, [*D, 2], D, Fraction(1, 2))
    P = exact.distribution(B, [*D, 2], Fraction(1, 2)).exact
    Q = exact.distribution(B, D, Fraction(1, 2)).exact
    assert exact.delta_certified(L, L2, 1) == exact.delta_certified(P, Q, 1)
