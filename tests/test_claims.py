"""The claim registry (issue #5): every check returns its expected verdict, plus targeted
checks of the computations behind the key findings."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dps_verify import bounds
from dps_verify.measures import sdgs
from dps_verify.paper.claims import REGISTRY, VERDICTS, Claim, Result
from dps_verify.paper.claims.base import CONFIRMED, sig
from dps_verify.paper.claims.runner import run_claims


@pytest.fixture(scope="module")
def outcomes():
    return {o.claim.id: o for o in run_claims(REGISTRY)}


def test_every_claim_as_expected(outcomes):
    bad = {i: (o.result.verdict, o.claim.expected, o.result.detail[:200])
           for i, o in outcomes.items() if not o.ok}
    assert not bad


def test_registry_shape():
    ids = [c.id for c in REGISTRY]
    assert len(ids) == len(set(ids))
    assert all(c.expected in VERDICTS for c in REGISTRY)
    assert sum(c.id.startswith("cp.table2.") for c in REGISTRY) == 18
    assert sum(c.id.startswith("beyond.table2.") for c in REGISTRY) == 18
    assert sum(c.id.startswith("cp.table1.") for c in REGISTRY) == 6
    for required in ("cp.theorem1", "cp.theorem2", "cp.theorem3", "cp.proposition4", "cp.theorem5",
                     "cp.theorem6", "tr.theorem2", "tr.theorem3", "tr.corollary4", "tr.theorem5",
                     "tr.theorem6", "tr.figure7", "cp.fig4.k-matching", "cp.appA1.statement"):
        assert required in ids


def test_table2_cell_0_05_0_75_rounds_to_printed():
    c = bounds.d_certified(20, "0.05", "0.75")
    assert c.lower == c.upper
    assert Fraction(31949, 10**21) < c.lower < Fraction(31950, 10**21)  # 3.19495…e-17
    assert sig(c.lower) == "3.19e-17"


def test_sig_rounds_exactly():
    assert sig(Fraction(3195, 10**20)) == "3.20e-17"  # half-even on an exact tie: 3.195 -> 3.20
    assert sig(Fraction(9995, 1000)) == "1.00e+01"


def test_argmax_witness_off_nm():
    c = bounds.d_certified(5, "0.3", "1")
    assert sdgs.n_min(5, Fraction(3, 10), Fraction(1)) == 6 and c.details["argmax_n"] == 8


def test_k_plus_10_factor_is_about_1e5():
    r = bounds.d_certified(20, "0.2", 2).upper / bounds.d_certified(30, "0.2", 2).upper
    assert 1e5 < r < 1e6


def test_key_verdicts(outcomes):
    assert outcomes["tr.theorem2"].result.verdict == "REFUTED"
    assert outcomes["cp.sec2.6.a1-alone-dps"].result.verdict == "REFUTED"
    assert outcomes["cp.appA1.statement"].result.verdict == "CONFIRMED-WITH-CORRECTION"
    assert outcomes["cp.fig2.k-plus-10"].result.verdict == "CONFIRMED-WITH-CORRECTION"


def test_wrong_expectation_is_reported_unexpected():
    c = Claim("test.wrong", "nowhere", "a deliberately wrong entry", "none", "REFUTED",
              lambda: Result(CONFIRMED, "1 = 1"))
    (o,) = run_claims([c], parallel_proofs=False)
    assert not o.ok


def test_crashing_check_is_not_machine_checkable():
    def boom() -> Result:
        raise RuntimeError("boom")
    (o,) = run_claims([Claim("test.crash", "x", "x", "x", CONFIRMED, boom)], parallel_proofs=False)
    assert o.result.verdict == "NOT-MACHINE-CHECKABLE" and not o.ok
