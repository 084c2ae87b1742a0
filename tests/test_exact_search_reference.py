"""What an exact search reports it covered, against what it was asked and did.

A PASS is only as good as the coverage it states (the largest dataset size whose pairs were
all checked): a search that checks sizes 1..n must say n, not less and not more.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dps_verify.core.types import Claim
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.verdict.exact_search import shape_search


def _decade(age: int) -> int:
    return age // 10


def test_shape_search_pass_states_the_largest_size_it_checked():
    res = shape_search(StronglySafeKAnonymizer(_decade, 2), [3, 17, 25], Claim(0.5, 1, 1),
                       max_records=6, executor="serial")
    assert res.witness is None
    assert res.sizes == [1, 2, 3, 4, 5, 6]  # every size up to the one asked, in order
    assert res.max_size == 6 == res.requested_size


def test_shape_search_pass_counts_every_dataset_it_screened():
    """The dataset count of a PASS is the number of shapes screened: every shape the family
    yields for these records (one dataset each), counted here from the family itself."""
    from dps_verify.engine.count_vectors import Atoms
    from dps_verify.verdict.shapes import leak_shapes

    anon = StronglySafeKAnonymizer(_decade, 2)
    res = shape_search(anon, [3, 17, 25], Claim(0.5, 1, 1), max_records=6, executor="serial")
    shapes = list(leak_shapes(Atoms(anon, [3, 17, 25]).values, ks=[2], beta=Fraction(1, 2),
                              eps=Fraction(1), max_records=6))
    assert res.witness is None and shapes
    assert res.datasets == len(shapes)


# ------------------------------------------------------------- β = 1: the screen without sampling
# At β = 1 nothing is sampled, A^β(D) = A(D) is a point mass for a deterministic anonymizer, so
# δ(D, D − x) is 1 when A(D) ≠ A(D − x) and 0 otherwise, under either definition: the brute force.

def _brute_delta(anonymizer, dataset, neighbour) -> int:
    return int(anonymizer(list(dataset)) != anonymizer(list(neighbour)))


def test_search_at_beta_one_clears_every_pair_in_integers_and_tracks_the_worst():
    anon = StronglySafeKAnonymizer(_decade, 2)
    res = shape_search(anon, [3, 17, 25], Claim(1, 1, 1), max_records=6, executor="serial")
    assert res.witness is None and res.sizes == [1, 2, 3, 4, 5, 6]
    assert res.exact_checks == 0  # δ ≤ 1 = claim: every pair cleared by the integer enclosure
    worst = res.worst
    assert worst is not None and worst["delta_screened"] == 1.0
    assert worst["size"] == 2 == len(worst["dataset"])  # size 1: A(D) = A(D − x) (suppressed)
    target = worst["target"]
    rest = list(worst["dataset"])
    rest.remove(target)
    assert _brute_delta(anon, worst["dataset"], rest) == 1
    # the same shapes through the sampled screen (β = 1/2): the same pairs are counted
    half = shape_search(anon, [3, 17, 25], Claim(Fraction(1, 2), 1, 1), max_records=6,
                        executor="serial")
    assert res.pairs == half.pairs > 0
    pointwise = shape_search(anon, [3, 17, 25], Claim(1, 1, 1, "pointwise"), max_records=6,
                             executor="serial")
    assert pointwise.witness is None and pointwise.pairs == res.pairs
    assert pointwise.exact_checks == pointwise.pairs  # pointwise pairs all go to exact decisions


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_search_at_beta_one_finds_the_smallest_pair_whose_outputs_differ(definition):
    anon = StronglySafeKAnonymizer(_decade, 2)
    for v in (3, 17, 25):  # size 1: suppressed either way, δ = 0
        assert _brute_delta(anon, [v], []) == 0
    res = shape_search(anon, [3, 17, 25], Claim(1, 1, Fraction(1, 2), definition),
                       max_records=6, executor="serial")
    w = res.witness
    assert w is not None and w.implied_delta == 1
    assert len(w.dataset) == 2 and _brute_delta(anon, w.dataset, w.neighbour) == 1
    assert res.sizes == [1, 2]


# ------------------------------------------------------------- work estimates (budgets)
# A search refuses or shrinks past its budget from these estimates, so each is checked against
# the enumeration it stands for, counted by brute force over the count vectors.

def _vectors(m: int, n: int):
    import itertools

    return [c for c in itertools.product(range(n + 1), repeat=m) if sum(c) == n]


def _subsamples(c) -> int:
    import math

    return math.prod(v + 1 for v in c)


@pytest.mark.parametrize("m, n", [(1, 1), (1, 5), (2, 1), (2, 4), (3, 3), (4, 2), (3, 6)])
def test_work_estimates_count_the_enumeration_they_budget(m, n):

    from dps_verify.verdict.exact_search import _parent_terms, count_datasets, estimate_work

    assert count_datasets(m, n) == sum(len(_vectors(m, s)) for s in range(1, n + 1))
    # level by parents: every dataset E of <= n - 1 records enumerates its sub-samples once,
    # for m + 1 laws (E and the m datasets E + x)
    parents = (m + 1) * sum(_subsamples(c) for s in range(n) for c in _vectors(m, s))
    assert estimate_work(m, n, parents=True) == parents
    # per dataset: pairs (sub-sample, rest) of every dataset up to n, times min(n, m) + 1
    pairs = sum(_subsamples(c) for s in range(n + 1) for c in _vectors(m, s))
    assert estimate_work(m, n) == (min(n, m) + 1) * pairs
    assert estimate_work(m, n) >= sum(_subsamples(c) * (1 + sum(1 for v in c if v))
                                      for s in range(1, n + 1) for c in _vectors(m, s))
    if n >= 2:  # average sub-samples of a dataset of n - 1 records, times m + 1 lookups
        level = _vectors(m, n - 1)
        avg = (m + 1) * sum(_subsamples(c) for c in level) // len(level)
        assert _parent_terms(m, n) == max(1, avg)


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_exhaustive_search_cuts_to_the_largest_size_its_budget_covers(relation):
    """A budget of exactly the estimate for size 3 searches sizes 1..3; one term less, 1..2
    (domain of 3 values: the replace-one estimate is the same, times max(1, (m - 1) // 2) = 1)."""
    import warnings

    from dps_verify.verdict.exact_search import estimate_work, exhaustive_search

    anon = StronglySafeKAnonymizer(_decade, 2)
    domain = [3, 17, 25]
    budget = estimate_work(3, 3, parents=True)
    for work_budget, sizes in ((budget, [1, 2, 3]), (budget - 1, [1, 2])):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            res = exhaustive_search(anon, domain, Claim(Fraction(1, 2), 1, 1), max_size=5,
                                    work_budget=work_budget, executor="serial", relation=relation)
        assert res.sizes == sizes and res.max_size == sizes[-1] and res.requested_size == 5
        assert any("raise work_budget" in note for note in res.notes)


def test_exhaustive_search_replace_one_budget_scales_with_the_replacements():
    """m = 5 values: a replace-one pair set is (m - 1) // 2 = 2 times the add-remove work."""
    import warnings

    from dps_verify.verdict.exact_search import estimate_work, exhaustive_search

    anon = StronglySafeKAnonymizer(_decade, 2)
    domain = [3, 17, 25, 31, 44]
    budget = estimate_work(5, 2, parents=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        add = exhaustive_search(anon, domain, Claim(Fraction(1, 2), 1, 1), max_size=3,
                                work_budget=budget, executor="serial")
        rep = exhaustive_search(anon, domain, Claim(Fraction(1, 2), 1, 1), max_size=3,
                                work_budget=2 * budget, executor="serial", relation="replace-one")
        rep_short = exhaustive_search(anon, domain, Claim(Fraction(1, 2), 1, 1), max_size=3,
                                      work_budget=2 * budget - 1, executor="serial",
                                      relation="replace-one")
    assert add.sizes == [1, 2] == rep.sizes and rep_short.sizes == [1]


def test_undecided_pairs_without_a_witness_are_a_certification_error():
    """A search that found no violation but left pairs undecided is no PASS: raise_undecided
    refuses it, naming the count and an example; with a witness (or nothing undecided) it is
    silent."""
    from dataclasses import replace

    from dps_verify.core.errors import CertificationError
    from dps_verify.verdict.exact_search import raise_undecided
    from dps_verify.verdict.witness import Witness

    res = shape_search(StronglySafeKAnonymizer(_decade, 2), [3, 17, 25], Claim(0.5, 1, 1),
                       max_records=3, executor="serial")
    raise_undecided(res)  # nothing undecided: silent
    w = Witness(dataset=(3, 17), neighbour=(3,), event=(), p_event=Fraction(1, 2),
                q_event=Fraction(1, 4), epsilon=Fraction(1), implied_delta=Fraction(0))
    pending = replace(res, undecided=[w, w])
    with pytest.raises(CertificationError, match=r"2 pair\(s\).*D = \[3, 17\]"):
        raise_undecided(pending)
    raise_undecided(replace(pending, witness=w))  # a violation was found: that is the verdict


def test_exhaustive_search_reports_a_worst_pair_whose_exact_delta_is_the_screened_one():
    """The level-by-parents screen's worst pair (dataset, dataset − target): its exact δ from the
    engine's laws (CP Def. 2) equals the screened float δ."""
    import dps_verify
    from dps_verify.measures.divergence import delta_certified
    from dps_verify.verdict.exact_search import exhaustive_search

    anon = StronglySafeKAnonymizer(_decade, 2)
    beta = Fraction(1, 2)
    res = exhaustive_search(anon, [3, 17, 25], Claim(beta, 1, 1), max_size=4, executor="serial")
    worst = res.worst
    assert worst is not None and worst["target"] in worst["dataset"]
    rest = list(worst["dataset"])
    rest.remove(worst["target"])
    P = dps_verify.distribution(anon, list(worst["dataset"]), beta).exact
    Q = dps_verify.distribution(anon, rest, beta).exact
    assert abs(float(delta_certified(P, Q, 1).upper) - worst["delta_screened"]) <= 1e-12
