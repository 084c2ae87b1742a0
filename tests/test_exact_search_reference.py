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
