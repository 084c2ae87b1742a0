"""One value for a claimed (β, ε, δ)-DPS guarantee (CP Def. 3): :class:`Claim`, validated when
built, accepted by ``audit``, ``assert_dp`` and ``find_witness`` in place of the loose keyword
arguments (which keep working), and the enums of the fixed vocabularies."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

import dps_verify
from dps_verify.audit.core import audit
from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import ExactLog
from dps_verify.core.types import (
    AuditMethod,
    Bound,
    Claim,
    Definition,
    bound_param,
    definition_param,
    method_param,
)
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.testing.checks import assert_dp, find_witness


def test_claim_reads_exact_values_and_defaults_to_hockey_stick():
    c = Claim(0.1, 1, 1e-6)
    assert (c.beta, c.epsilon, c.delta) == (Fraction(1, 10), Fraction(1), Fraction(1, 10**6))
    assert c.definition is Definition.HOCKEY_STICK and c.definition == "hockey-stick"
    assert isinstance(Claim(1, "ln(11)", 0).epsilon, ExactLog)
    assert Claim("1/2", 0, 1, "pointwise").definition is Definition.POINTWISE
    assert Claim(0.5, 1, 0.1) == Claim(Fraction(1, 2), "1", "0.1")
    assert "definition = hockey-stick" in Claim(0.5, 1, 0.1).describe()


def test_claim_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Claim(0.5, 1, 0.1).beta = Fraction(1, 3)  # type: ignore[misc]


@pytest.mark.parametrize(("args", "names"), [
    ((0, 1, 0.1), "beta"),              # beta = 0: nothing is sampled
    ((1.5, 1, 0.1), "beta"),
    ((0.5, -0.1, 0.1), "epsilon"),
    ((0.5, 1, -1e-9), "delta"),
    ((0.5, 1, 1.5), "delta"),
    ((0.5, 1, 0.1, "pure"), "definition"),
    ((0.5, 1, 0.1, 3), "definition"),
    ((float("nan"), 1, 0.1), "beta"),
])
def test_claim_refuses_bad_values_with_a_parameter_error(args, names):
    with pytest.raises(ParameterError, match=names):
        Claim(*args)


def test_claim_edges_are_accepted():
    """Both ends of each range: β = 1 (a pipeline that samples itself), ε = 0, δ = 0 and 1."""
    assert Claim(1, 0, 0).beta == 1
    assert Claim(Fraction(1, 10**30), 0, 1).delta == 1


def test_claim_of_takes_either_the_value_or_loose_arguments():
    c = Claim(0.5, 1, 0.1, "pointwise")
    assert Claim.of(c) is c
    assert Claim.of(beta=0.5, epsilon=1, delta=0.1, definition="pointwise") == c
    assert Claim.of(beta=0.5, epsilon=1, delta=0.1).definition is Definition.HOCKEY_STICK
    with pytest.raises(ParameterError, match="not both"):
        Claim.of(c, beta=0.5)
    with pytest.raises(ParameterError, match="missing delta"):
        Claim.of(beta=0.5, epsilon=1)
    with pytest.raises(ParameterError, match="must be a Claim"):
        Claim.of((0.5, 1, 0.1))  # type: ignore[arg-type]


def test_enum_params():
    assert definition_param("pointwise") is Definition.POINTWISE
    assert method_param("exact") is AuditMethod.EXACT
    assert bound_param("paper") is Bound.PAPER
    with pytest.raises(ParameterError, match="method must be one of"):
        method_param("fast")
    with pytest.raises(ParameterError, match="bound must be one of"):
        bound_param("hockey stick")


def test_claim_and_enums_are_in_the_curated_api():
    assert dps_verify.Claim is Claim and dps_verify.AuditMethod is AuditMethod


RECORDS = [18, 22, 27, 35]


def _decade(age: int) -> int:
    return age // 10


def test_audit_with_a_claim_equals_audit_with_loose_arguments():
    A = StronglySafeKAnonymizer(_decade, 2, threshold=1)  # an off-by-one threshold: not closed form
    dom = {"records": RECORDS, "max_size": 4}
    by_value = audit(A, Claim(0.5, 1, 0.01), domain=dom, method="exact")
    loose = audit(A, beta=0.5, epsilon=1, delta=0.01, domain=dom, method="exact")
    a, b = by_value.to_dict(), loose.to_dict()
    for rep in (a, b):
        rep.pop("seconds", None)
    assert a == b and by_value.verdict == "FAIL"
    with pytest.raises(ParameterError, match="not both"):
        audit(A, Claim(0.5, 1, 0.01), domain=dom, delta=0.02)
    with pytest.raises(ParameterError, match="method must be one of"):
        audit(A, Claim(0.5, 1, 0.01), domain=dom, method="fast")


def test_assert_dp_and_find_witness_take_a_claim():
    A = StronglySafeKAnonymizer(_decade, 2)
    assert_dp(A, Claim(0.5, 1, 1), domain=RECORDS, max_size=2, shapes=False, max_examples=0)
    leaky = StronglySafeKAnonymizer(_decade, 2, threshold=1)
    with pytest.raises(AssertionError, match="not"):
        assert_dp(leaky, Claim(0.5, 1, 0.01), domain=RECORDS, max_size=2, shapes=False,
                  max_examples=0)
    pairs = [((18,), ())]
    w = find_witness(leaky, pairs, Claim(0.5, 1, 0.01))
    assert w is not None
    assert find_witness(leaky, pairs, beta=0.5, epsilon=1, delta=0.01) == w
    assert find_witness(leaky, pairs, Claim(0.5, 1, 1)) is None  # δ = 1 holds for everything


def test_the_exact_searches_take_a_claim():
    from dps_verify.verdict.exact_search import exhaustive_search, shape_search

    leaky = StronglySafeKAnonymizer(_decade, 2, threshold=1)
    claim = Claim(0.5, 1, 0.01)
    by_value = exhaustive_search(leaky, RECORDS, claim, max_size=2)
    loose = exhaustive_search(leaky, RECORDS, beta=0.5, epsilon=1, delta=0.01, max_size=2)
    assert by_value.witness is not None and by_value.witness == loose.witness
    assert shape_search(leaky, RECORDS, claim, max_records=8).witness is not None
    ok = shape_search(StronglySafeKAnonymizer(_decade, 2), RECORDS, Claim(0.5, 1, 1), max_records=8)
    assert ok.witness is None
    with pytest.raises(ParameterError, match="not both"):
        exhaustive_search(leaky, RECORDS, claim, beta=0.5)
