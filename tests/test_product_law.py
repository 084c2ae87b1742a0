"""The public lazy product law (engine/product_law.py) and the cancellation theorem.

Every measure of two product laws is checked against the same measure of the expanded joint
laws (the brute force) on small datasets, on both sides of the edges (ε = 0, β = 1, a group
below / at / above the threshold, several groups differing); the integer-weight group laws
against the Fraction ones; and the full Adult table through the public API.
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

import dps_verify
from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.engine.product_law import (
    ProductDistribution,
    cancel_common_groups,
    thresholded_count_weights,
)
from dps_verify.engine.protocol import thresholded_count_law
from dps_verify.measures.divergence import delta_certified, delta_exceeds, pointwise_delta_exact
from dps_verify.measures.pld import pair_delta
from dps_verify.mechanisms import StronglySafeKAnonymizer

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult.data"


def _parity(r: int) -> int:
    return r % 3


ANON = StronglySafeKAnonymizer(_parity, 2)
D = (0, 3, 6, 1, 4, 2)


def _expanded(law: ProductDistribution) -> dict:
    return dict(law.expand())


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 30])
@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(1, 2), Fraction(1)])
@pytest.mark.parametrize("threshold", [1, 2, 5])
def test_integer_weights_equal_the_fraction_law(size: int, beta: Fraction, threshold: int) -> None:
    weights, den = thresholded_count_weights(size, beta, threshold)
    assert {y: Fraction(w, den) for y, w in weights.items()} == thresholded_count_law(
        size, beta, threshold)


def test_distribution_is_lazy_and_expands_to_the_generic_law() -> None:
    P = dps_verify.distribution(ANON, D, Fraction(1, 2))
    assert isinstance(P, ProductDistribution)
    generic = dps_verify.distribution(ANON, D, Fraction(1, 2), factorised=False)
    assert P.exact == generic.exact
    assert dict(P) == dict(generic)  # the mapping view (mpf values) too


NEIGHBOURS = [
    (D + (9,), D),  # add to a group at the threshold
    (D, D[1:]),  # remove from a group of 3
    (D + (5,), D),  # group of 1 -> 2: crosses the threshold
    (D + (7,), D + (7, 10)),  # below the threshold on both sides: cancels to nothing
    (D + (9, 10), D),  # two groups differ (not neighbours): joint law of both
]


@pytest.mark.parametrize("first,second", NEIGHBOURS)
@pytest.mark.parametrize("eps", [0, Fraction(1, 2), 1, 3])
@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(1)])
def test_measures_of_two_product_laws_equal_the_expanded_ones(first, second, eps, beta) -> None:
    P, Q = dps_verify.distribution(ANON, first, beta), dps_verify.distribution(ANON, second, beta)
    Pe, Qe = _expanded(P), _expanded(Q)
    assert delta_certified(P, Q, eps) == delta_certified(Pe, Qe, eps)
    assert pointwise_delta_exact(P, Q, eps) == pointwise_delta_exact(Pe, Qe, eps)
    assert dps_verify.epsilon(P, Q, Fraction(1, 100)) == dps_verify.epsilon(Pe, Qe, Fraction(1, 100))
    assert pair_delta(P, Q, eps, times=2) == pair_delta(Pe, Qe, eps, times=2)
    for d in (0, Fraction(1, 100), Fraction(1, 3)):
        assert delta_exceeds(P, Q, eps, d) == delta_exceeds(Pe, Qe, eps, d)


def test_a_leaking_pair_is_found_through_the_product_law() -> None:
    """Negative control: threshold 1 publishes a lone record, so δ = β at any ε."""
    leaky = StronglySafeKAnonymizer(_parity, 2, threshold=1)
    P = dps_verify.distribution(leaky, (0, 3, 6, 1), Fraction(1, 3))  # 1 alone in its group
    Q = dps_verify.distribution(leaky, (0, 3, 6), Fraction(1, 3))
    assert delta_certified(P, Q, 2).lower == Fraction(1, 3)


def test_two_different_mechanisms_are_refused() -> None:
    other = StronglySafeKAnonymizer(_parity, 3)
    P, Q = dps_verify.distribution(ANON, D, 1), dps_verify.distribution(other, D, 1)
    with pytest.raises(ParameterError, match="one anonymizer"):
        cancel_common_groups(P, Q)


def test_expansion_estimates_its_work_and_refuses_past_the_budget() -> None:
    big = StronglySafeKAnonymizer(lambda r: r % 16, 2)
    data = list(range(16 * 60))  # 16 groups of 60 records: ~60^16 joint outputs
    P = dps_verify.distribution(big, data, Fraction(1, 10))
    Q = dps_verify.distribution(big, data[1:], Fraction(1, 10))
    assert P.joint_size() > 10**25
    with pytest.raises(CertificationError, match="max_terms"):
        P.expand()
    assert dps_verify.delta(P, Q, 1) > 0  # measured without expanding


def _adult_rows() -> list[tuple[str, ...]]:
    with ADULT.open() as fh:
        return [tuple(x.strip() for x in r) for r in csv.reader(fh) if r]


def _adult_recode(r: tuple[str, ...]) -> tuple:
    return (int(r[0]) // 10 * 10, r[9], r[8] == "White", r[5][:7])


@pytest.mark.skipif(not ADULT.exists(), reason="the shared UCI Adult file is not present")
def test_delta_over_all_adult_records_through_the_public_api() -> None:
    rows = _adult_rows()
    assert len(rows) == 32_561
    A = StronglySafeKAnonymizer(_adult_recode, 5)
    P = dps_verify.distribution(A, rows, Fraction(1, 10))
    sizes = P.sizes
    # remove a record of the smallest group of at least 6 records: its group law is small
    victim = min((r for r in rows if sizes[_adult_recode(r)] >= 6),
                 key=lambda r: sizes[_adult_recode(r)])
    i = rows.index(victim)
    Q = dps_verify.distribution(A, rows[:i] + rows[i + 1:], Fraction(1, 10))
    n = sizes[_adult_recode(victim)]
    L = thresholded_count_law(n, Fraction(1, 10), 5)
    L2 = thresholded_count_law(n - 1, Fraction(1, 10), 5)
    assert delta_certified(P, Q, 1) == delta_certified(L, L2, 1)
    assert dps_verify.delta(P, Q, 1) == dps_verify.delta(L, L2, 1) > 0
    assert dps_verify.pointwise_delta(P, Q, 1) == dps_verify.pointwise_delta(L, L2, 1)
