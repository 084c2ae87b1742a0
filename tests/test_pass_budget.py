"""A PASS within a time budget: the anonymizer's cost is probed, the sizes that fit are searched
and the report says which; a faulty anonymizer still FAILs with the same witness; at β = 1 the
leak shapes need only the datasets and their neighbours."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from dps_verify.engine.count_vectors import SampleMemo
from dps_verify.engine.distribution import distribution, randomized
from dps_verify.measures.divergence import delta_certified
from dps_verify.testing import assert_dp
from dps_verify.verdict.budget import CallCost, plan_pass, shape_seconds
from dps_verify.verdict.exact_search import shape_search

DOM = [0, 1, 2, 3]
BETA = Fraction(1, 2)


def _flip_law(s):
    """Randomized response (flip 1/4) on "at least two records equal 3"."""
    bit = sum(1 for r in s if r == 3) >= 2
    return {bit: Fraction(3, 4), (not bit): Fraction(1, 4)}


flip = randomized(_flip_law)


def _presence_law(s):
    """Randomized response (ln 3) on "record 3 is in the sample"."""
    bit = 3 in s
    return {bit: Fraction(3, 4), (not bit): Fraction(1, 4)}


presence = randomized(_presence_law)


def test_tiny_budget_cuts_the_sizes_and_the_report_says_so():
    rep = assert_dp(flip, beta=BETA, epsilon=2, delta=0, domain=DOM, max_size=6,
                    max_examples=0, time_budget=1e-6)
    assert rep.exhaustive.max_size < 6
    assert rep.shapes.max_size < 96
    text = rep.summary()
    assert f"every dataset of 1..{rep.exhaustive.max_size} records" in text
    assert "time budget" in text and "(asked 6)" in text and "(asked 96)" in text


def test_no_budget_searches_every_size_asked():
    rep = assert_dp(flip, beta=BETA, epsilon=2, delta=0, domain=DOM, max_size=3,
                    max_examples=0, shapes=False, time_budget=None)
    assert rep.exhaustive.max_size == 3 and not any("time budget" in n for n in rep.notes)


def test_faulty_randomized_still_fails_with_the_same_witness_under_the_budget():
    """Negative control: the budget never hides a witness at the sizes it searches."""
    msgs = []
    for budget in (None, 20.0):
        with pytest.raises(AssertionError) as err:
            assert_dp(presence, beta=BETA, epsilon=Fraction(1, 2), delta=0, domain=DOM,
                      max_size=4, max_examples=0, time_budget=budget)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "minimal" in msgs[0]


def test_plan_predicts_more_time_for_more_shapes_and_counts_shared_samples_once():
    cost = CallCost()
    cost.add(1, 1.0, 1)
    cost.add(64, 1.0, 1)
    crowds = [(n, {0: n}) for n in (1, 2, 4, 8)]
    # crowds of one value share their sub-samples: 9 samples in all, not 2 + 3 + 5 + 9
    assert list(shape_seconds(cost, crowds, BETA, m=4))[-1][1] == pytest.approx(9.0, rel=1e-3)
    assert list(shape_seconds(cost, crowds, Fraction(1), m=4))[-1][1] == pytest.approx(8.0, rel=1e-3)
    plan = plan_pass(flip, DOM, beta=BETA, eps=Fraction(2), max_size=5, max_records=32,
                     budget=1e-6, memo=SampleMemo(flip))
    assert plan.exhaustive_size == 1 and plan.shape_records == 1


def _crowd_threshold(s):
    """Publishes the records of a value seen at least 9 times: a leak beyond the exhaustive
    sizes, on a crowd."""
    c = Counter(s)
    return tuple(sorted((v, n) for v, n in c.items() if n >= 9))


def _sampling_pipeline_law(s, k=3):
    """Samples by itself (1/2), then publishes the values kept at least k times."""
    import math

    law: dict = {}
    c = Counter(s)
    items = sorted(c.items())

    def rec(i, out, pr):
        if i == len(items):
            law[out] = law.get(out, 0) + pr
            return
        v, n = items[i]
        for kept in range(n + 1):
            w = Fraction(math.comb(n, kept), 2**n)
            rec(i + 1, out + (((v, kept),) if kept >= k else ()), pr * w)

    rec(0, (), Fraction(1))
    return law


sampling_pipeline = randomized(_sampling_pipeline_law)


def test_beta_one_shapes_use_only_the_datasets_and_their_neighbours():
    res = shape_search(sampling_pipeline, DOM, beta=1, epsilon=1, delta=1, max_records=8,
                       executor="serial")
    assert res.witness is None
    # every shape's D and D - x, far fewer than all their sub-samples
    assert res.samples <= 2 * res.pairs + res.datasets


def test_beta_one_shape_witness_is_exact():
    """Negative control of the β = 1 screen: a deterministic leak on a crowd of 9 is found, and
    its δ is the exact one (here 1: the two outputs differ)."""
    res = shape_search(_crowd_threshold, DOM, beta=1, epsilon=1, delta=Fraction(1, 2),
                       max_records=24, executor="serial")
    w = res.witness
    assert w is not None
    P = distribution(_crowd_threshold, w.dataset, 1).exact
    Q = distribution(_crowd_threshold, w.neighbour, 1).exact
    assert delta_certified(P, Q, 1).lower == 1 == w.implied_delta


# -- declared post-processing of a strongly-safe table --------------------------------------

SMALL = [0, 1, 2, 3]
PBETA, PEPS = Fraction(1, 5), Fraction(1)


def pair_table(s):
    """Strongly-safe k-anonymization (k = 3) with the recoding r -> r // 2."""
    c = Counter(r // 2 for r in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 3))


def _rr_law(s):
    shown = pair_table(s) != ()
    return {shown: Fraction(3, 4), (not shown): Fraction(1, 4)}


def _peeking_law(s):
    """Claims to post-process the table but also looks at the sample size."""
    shown = pair_table(s) != () or len(s) == 4
    return {shown: Fraction(3, 4), (not shown): Fraction(1, 4)}


def median_table(s):
    """Not strongly-safe: groups by 'below the sample median' (a data-dependent recoding)."""
    if not s:
        return ()
    med = sorted(s)[len(s) // 2]
    c = Counter(r < med for r in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 3))


def _rr_median_law(s):
    shown = median_table(s) != ()
    return {shown: Fraction(3, 4), (not shown): Fraction(1, 4)}


def _declared(law, table):
    anon = randomized(law)
    anon.post_processes = table
    return anon


def _check(anon):
    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    d = sdgs_delta_certified(3, PBETA, PEPS).upper
    return assert_dp(anon, beta=PBETA, epsilon=PEPS, delta=d, domain=SMALL, max_size=5,
                     max_examples=0, shapes=False, time_budget=None)


def test_declared_post_processing_of_a_strongly_safe_table_is_recognised():
    rep = _check(_declared(_rr_law, pair_table))
    assert rep.recognised is not None and rep.recognised.k == 3
    text = rep.summary()
    assert "declared post-processing of pair_table" in text
    assert "closed under post-processing" in text and "size <= 5" in text


@pytest.mark.parametrize("law, table", [(_peeking_law, pair_table), (_rr_median_law, median_table)],
                         ids=["law-looks-past-the-table", "table-not-strongly-safe"])
def test_false_declarations_are_not_recognised(law, table):
    """Negative controls: a law that also reads the sample, and a table that is not
    strongly-safe k-anonymization, are not recognised (the PASS stays a finite search)."""
    rep = _check(_declared(law, table))
    assert rep.recognised is None and "recognised" not in rep.summary()


def test_undeclared_randomized_post_processing_is_not_recognised():
    rep = _check(randomized(_rr_law))
    assert rep.recognised is None


def test_report_shows_the_size_of_the_shared_law_cache():
    rep = assert_dp(flip, beta=BETA, epsilon=2, delta=0, domain=DOM, max_size=3,
                    max_examples=5, shapes=True, time_budget=None, shape_records=8)
    assert rep.cache is not None and rep.cache["samples"] > 0 and rep.cache["hits"] > 0
    assert "law cache:" in rep.summary() and "bound 2000000" in rep.summary()


def _raises_on_three_records(s):
    if len(s) == 3:
        raise ZeroDivisionError("three")
    return len(s) % 2


def test_a_fault_is_reported_on_the_same_sample_with_or_without_the_budget():
    """The probe never turns a fault of the audited code into a different error: the search
    reports it on its own smallest sample either way."""
    from dps_verify.core.errors import AuditedCodeError

    msgs = []
    for budget in (None, 20.0):
        with pytest.raises(AuditedCodeError) as err:
            assert_dp(_raises_on_three_records, beta=BETA, epsilon=1, delta=1, domain=DOM,
                      max_size=4, max_examples=0, time_budget=budget)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "ZeroDivisionError" in msgs[0]
