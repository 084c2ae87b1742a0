"""The divergences of measures/divergence.py against the laws they are defined on, on the paths the
other tests reach rarely: two product laws that differ in more than one group (the cancellation
of the shared groups, without which the joint law would be expanded), each function checked
against the same measure of the expanded laws of only the differing groups (CP Def. 2,
TR Def. 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dps_verify
from dps_verify.measures.divergence import (
    delta_certified,
    delta_exceeds,
    epsilon,
    pointwise_delta_exact,
)
from dps_verify.mechanisms import StronglySafeKAnonymizer


def _group(r: int) -> int:
    return r % 16


ANON = StronglySafeKAnonymizer(_group, 2)
DATA = list(range(16 * 6))  # 16 groups of 6 records: 7^16 joint outputs, far past the budget
BETA = Fraction(1, 2)


@pytest.fixture(scope="module")
def pairs():
    """(P, Q) over all 16 groups, differing in groups 0 and 1 (records 0 and 1 removed), and the
    expanded laws of those two groups alone (the reference)."""
    P = dps_verify.distribution(ANON, DATA, BETA)
    Q = dps_verify.distribution(ANON, DATA[2:], BETA)
    two = [r for r in DATA if _group(r) in (0, 1)]
    Pr = dict(dps_verify.distribution(ANON, two, BETA).expand())
    Qr = dict(dps_verify.distribution(ANON, two[2:], BETA).expand())
    return P, Q, Pr, Qr


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 2), Fraction(1)])
def test_measures_of_product_laws_differing_in_two_groups_cancel_the_shared_ones(pairs, eps):
    """Every measure cancels the 14 shared groups (expanding them would be refused)."""
    P, Q, Pr, Qr = pairs
    ref = delta_certified(Pr, Qr, eps)
    assert delta_certified(P, Q, eps) == ref
    assert pointwise_delta_exact(P, Q, eps) == pointwise_delta_exact(Pr, Qr, eps)
    assert epsilon(P, Q, Fraction(1, 2)) == epsilon(Pr, Qr, Fraction(1, 2))
    # delta_exceeds on both sides of the value
    assert delta_exceeds(P, Q, eps, ref.lower - Fraction(1, 10**9))
    assert not delta_exceeds(P, Q, eps, ref.upper + Fraction(1, 10**9))
