"""The claim registry: every check returns its expected verdict, plus targeted
checks of the computations behind the key findings.

The whole registry runs under the deep profile here (``test_every_claim_as_expected``) and on
every CI run as its main job (``dps-verify paper``, which exits 1 on any unexpected verdict:
``tests/test_cmd_paper.py``); the default run checks the entries the verdict policy constrains
(every correction, refutation and reading) and the key findings."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dps_verify import bounds
from dps_verify.paper.claims import REGISTRY, VERDICTS, Claim, Result
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, REFUTED, sig
from dps_verify.paper.claims.runner import run_claims
from dps_verify.worstcase import sdgs

#: The key findings read by ``test_key_verdicts``.
KEY_FINDINGS = ("tr.theorem2", "cp.sec2.6.a1-alone-dps", "cp.appA1.statement", "cp.fig2.k-plus-10")


@pytest.fixture(scope="module")
def outcomes():
    """Every registered claim (deep profile only: about 10 s of CPU on top of the proofs)."""
    return {o.claim.id: o for o in run_claims(REGISTRY)}


@pytest.fixture(scope="module")
def policy_outcomes():
    """The entries the verdict policy constrains (expected correction or refutation, or a
    stated reading) and the key findings."""
    chosen = [c for c in REGISTRY
              if c.expected in (CORRECTED, REFUTED) or c.reading or c.id in KEY_FINDINGS]
    return {o.claim.id: o for o in run_claims(chosen)}


def _unexpected(outcomes) -> dict:
    return {i: (o.result.verdict, o.claim.expected, o.result.detail[:200])
            for i, o in outcomes.items() if not o.ok}


@pytest.mark.deep
def test_every_claim_as_expected(outcomes):
    assert not _unexpected(outcomes)


def test_every_correction_refutation_and_reading_as_expected(policy_outcomes):
    assert len(policy_outcomes) >= 20
    assert not _unexpected(policy_outcomes)


def test_registry_shape():
    ids = [c.id for c in REGISTRY]
    assert len(ids) == len(set(ids))
    assert all(c.expected in VERDICTS for c in REGISTRY)
    assert sum(c.id.startswith("cp.table2.") for c in REGISTRY) == 18
    assert sum(c.id.startswith("beyond.table2.") for c in REGISTRY) == 18
    assert sum(c.id.startswith("cp.table1.") for c in REGISTRY) == 7  # 6 cells + ln 11 ≈ 2.40
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


def test_key_verdicts(policy_outcomes):
    outcomes = policy_outcomes
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


def test_new_entries_registered_with_their_verdicts():
    by_id = {c.id: c for c in REGISTRY}
    expected = {
        "cp.theorem5.beta-gt-delta": "CONFIRMED-WITH-CORRECTION",
        "tr.theorem1.strict": "CONFIRMED-WITH-CORRECTION",
        "cp.intro.factor-beta": "CONFIRMED-WITH-CORRECTION", "cp.sec2.2.leaks-r": "CONFIRMED-WITH-CORRECTION",
        "cp.table1.ln11-value": "CONFIRMED", "cp.sec2.4.smith-every-beta": "CONFIRMED",
        "cp.theorem2.proof-strictness": "CONFIRMED-WITH-CORRECTION", "cp.sec3.2.crowd-of-k": "CONFIRMED",
        "tr.definition1.two-sided": "CONFIRMED", "tr.sec4.F-definition": "CONFIRMED-WITH-CORRECTION",
        "tr.sec4.towards-practical": "CONFIRMED", "tr.definition5.constant-f": "CONFIRMED",
        "tr.sec6.chernoff-positivity": "CONFIRMED-WITH-CORRECTION",
        "cp.sec2.2.xor-noncomposition": "CONFIRMED-WITH-CORRECTION",
        "cp.intro.first-link": "NOT-MACHINE-CHECKABLE",
        "cp.sec3.1.data-dependent-recodings": "NOT-MACHINE-CHECKABLE",
        "cp.sec3.2.all-anonymizers-am-apply": "NOT-MACHINE-CHECKABLE",
        "cp.sec4.related-work": "NOT-MACHINE-CHECKABLE", "tr.sec7.related-work": "NOT-MACHINE-CHECKABLE",
    }
    for i, v in expected.items():
        assert by_id[i].expected == v, i


def test_nmc_entries_give_a_reason():
    nmc = [c for c in REGISTRY if c.expected == "NOT-MACHINE-CHECKABLE"]
    assert len(nmc) >= 40
    assert all(c.method.startswith("not machine-checkable: ") and len(c.method) > 30 for c in nmc)


def test_nmc_without_reason_is_rejected():
    with pytest.raises(ValueError, match="reason"):
        Claim("x", "x", "x", "exact", "NOT-MACHINE-CHECKABLE", lambda: Result(CONFIRMED, ""))


def test_failed_negative_control_makes_the_claim_unexpected():
    c = Claim("test.ctrl", "x", "x", "x", CONFIRMED, lambda: Result(CONFIRMED, "ok"),
              control=lambda: Result(CONFIRMED, "a wrong variant passes too"), control_expected="REFUTED")
    (o,) = run_claims([c], parallel_proofs=False)
    assert o.result.verdict == CONFIRMED and not o.ok and "NEGATIVE CONTROL FAILED" in o.result.detail


def test_key_checks_have_negative_controls():
    by_id = {c.id: c for c in REGISTRY}
    for i in ("cp.appA1.statement", "cp.table2.beta0.05.eps0.25", "cp.theorem5", "cp.def3.beta-gt-delta",
              "cp.sec2.2.xor-noncomposition", "cp.fig5.k2", "cp.theorem6", "tr.theorem2",
              "beyond.table2.beta0.1.eps1.0", "cp.fig4.k-matching", "cp.fig6.frontier"):
        assert by_id[i].control is not None, i


def test_printed_interval_is_half_a_unit_each_side():
    from dps_verify.paper.claims.base import agrees_with_printed, printed_interval
    assert printed_interval("6.83e-10") == (Fraction(6825, 10**13), Fraction(6835, 10**13))
    assert printed_interval("2.40") == (Fraction(2395, 1000), Fraction(2405, 1000))
    assert agrees_with_printed(Fraction(2395, 1000), Fraction(2405, 1000), "2.40")
    assert not agrees_with_printed(Fraction(2394, 1000), Fraction(2400, 1000), "2.40")
    assert not agrees_with_printed(Fraction(2400, 1000), Fraction(2406, 1000), "2.40")


def test_fig4_sequences_depend_on_the_criterion():
    from dps_verify.paper import figures
    seqs = figures.fig4_sequences()
    assert seqs == {"minimax": [21, 34, 69], "at-eps-1": [21, 35, 77], "l2": [21, 33, 67]}
    assert figures.fig4_match("0.2") == figures.fig4_matching_k("0.2", "minimax")
    with pytest.raises(ValueError):
        figures.fig4_matching_k("0.2", "median")


def test_k1_exact_delta_is_beta_so_def3_fails():
    from dps_verify import exact
    for b in ("0.05", "0.5"):
        for e in ("0.06", "3"):
            if b == "0.5" and e == "0.06":
                continue
            x = exact.sdgs_delta_certified(1, b, e, "hockey-stick")
            assert x.lower == x.upper == Fraction(b)


@pytest.mark.parametrize("which", [pytest.param("policy_outcomes", id="policy-entries"),
                                   pytest.param("outcomes", id="every-claim", marks=pytest.mark.deep)])
def test_outcomes_follow_the_verdict_policy(which, request):
    """docs/verdict-policy.md on the real run: a correction prints its corrected statement, a
    refutation carries a witness whose hypotheses all hold, a reading-dependent entry shows its
    reading in the key figure (default run: every entry expected to be one of those)."""
    for o in request.getfixturevalue(which).values():
        if o.result.verdict == "CONFIRMED-WITH-CORRECTION":
            assert o.result.data.get("corrected") == o.claim.corrected and o.claim.corrected in o.result.detail
        if o.result.verdict == "REFUTED":
            hyps = o.result.data["witness"]["hypotheses"]
            assert hyps and all(h["holds"] is True for h in hyps), o.claim.id
        if o.claim.reading:
            assert o.result.figure.startswith(o.claim.reading), o.claim.id
