"""The sensitivity proof behind ``dps-verify plan --select-with`` (proofs/plan_utility_sensitivity.py)."""

from __future__ import annotations

from dps_verify.paper.kernel import THEOREMS, run
from dps_verify.paper.kernel.core import Verdict


def test_sensitivity_is_proved_step_by_step_and_controls_are_rejected():
    assert "plan-utility-sensitivity" in THEOREMS
    r = run("plan-utility-sensitivity")
    claims = [s for s in r.steps if s.role == "claim"]
    assert claims and all(s.verdict is Verdict.PROVED for s in claims)
    assert r.negative_controls and all(c.ok for c in r.negative_controls)
    dec = getattr(r, "decision", None)
    if dec is not None:  # a kernel that checks statements: nothing but (maybe) the review mark
        assert [p for p in dec.problems if "fingerprint" not in p] == []
        assert dec.final, "no step concludes the statement"


def test_the_module_says_what_it_trusts():
    mod = THEOREMS["plan-utility-sensitivity"]
    kinds = {f.kind for f in mod.GIVEN}
    assert "lemma" in kinds and {f.label for f in mod.GIVEN if f.kind == "lemma"} == {
        "binomial coupling (Pascal's rule)", "linearity of expectation", "expectation between the extremes"}


def test_a_wrong_coupling_lemma_fails_its_spot_check():
    """Negative control for the trusted lemma: beta and 1 - beta swapped is caught exactly."""
    import pytest
    import sympy as sp

    lemmas = pytest.importorskip("dps_verify.paper.kernel.lemmas")
    mod = THEOREMS["plan-utility-sensitivity"]
    check = lemmas.at_points(mod._points(), mod._interpret)
    assert check(mod.COUPLING)[0]
    wrong = sp.Eq(mod.EG(mod.n + 1), (1 - mod.b) * mod.EGs(mod.n) + mod.b * mod.EG(mod.n))
    assert not check(wrong)[0]
