"""The kernel's model check of a theorem's givens (dps_verify.paper.kernel.consistency).

CP Thm 5 and TR Thm 6 define d as a supremum by two givens: an upper bound of every term and
the least one (below any y < d some term, at a Skolem offset M(y), exceeds y).  Stated for
y <= d the second contradicts the first at y = d, and contradictory givens prove anything; the
chain alone does not notice (it uses the least-upper-bound half only below d).  The concrete
models declared by the two modules must make every given true as stated and expose the
contradicted variant, naming the definition -- the check made by the session's run of CP Thm 5
is read here, the contradicted variant is checked on the givens alone (fast); the full theorem
with the variant runs in the mutation test (tests/test_proof_mutations.py, deep profile).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from dps_verify.paper.kernel import consistency


def _modules():
    from dps_verify_proofs import cp_theorem_5 as cp5
    from dps_verify_proofs import tr_theorem_6 as tr6

    return cp5, tr6


def _swap(facts, old, new):
    out = [replace(f, formula=new) if f.formula == old else f for f in facts]
    assert sum(f.formula == new for f in out) == 1
    return out


def test_cp5_givens_hold_in_its_models_and_the_sup_definitions_are_covered(proof_results):
    cp5, _ = _modules()
    # the kernel's check of cp5.GIVEN against cp5.MODELS, made by the session's run of the
    # theorem (tests/conftest.py)
    r = proof_results.run("cp-theorem-5").decision.consistency
    assert r.problems == [] and r.models == 2
    checked = {c["formula"] for c in r.checks if c["result"] == "true"}
    for f in (cp5.LUB_LEAST, cp5.sup_d(cp5.m), *cp5.MX_DEFS, cp5.ELL_DEF, cp5.L_DEF):
        assert sp.sstr(f) in checked, f


def test_cp5_least_upper_bound_for_y_le_d_is_rejected_naming_the_definition():
    cp5, _ = _modules()
    bad = sp.Implies(cp5.y <= cp5.d, cp5.term_at(cp5.Mw(cp5.y)) > cp5.y)
    r = consistency.check(_swap(list(cp5.GIVEN), cp5.LUB_LEAST, bad), cp5.MODELS)
    assert len(r.problems) == 2  # false in both models, at y = d
    assert all("least upper bound" in p and "FALSE" in p for p in r.problems)
    assert "CONTRADICTED" in r.line


@pytest.mark.deep
def test_tr6_least_upper_bound_for_y_le_d_is_rejected_and_the_stated_one_holds():
    _, tr6 = _modules()
    assert consistency.check(list(tr6.GIVEN), tr6.MODELS).problems == []
    bad = tr6.SUP_LEAST.xreplace({sp.StrictLessThan(tr6.y_, tr6.d_): sp.LessThan(tr6.y_, tr6.d_)})
    r = consistency.check(_swap(list(tr6.GIVEN), tr6.SUP_LEAST, bad), tr6.MODELS)
    assert r.problems and all("least upper bound" in p for p in r.problems)


def test_an_undecidable_or_raising_model_is_a_problem_never_a_pass():
    x = sp.Symbol("x", real=True)
    f = sp.Function("f")
    from dps_verify.paper.kernel.core import given

    facts = given("definition", "f(x) > 0", f(x) > 0)

    def boom(_):
        raise ValueError("no value")

    r = consistency.check(facts, [consistency.Model("raises", lambda: ({x: 1}, {"f": boom}, {}))])
    assert r.problems and "undecided" in r.problems[0]
    r = consistency.check(facts, [consistency.Model("fails to build", lambda: 1 / 0)])
    assert r.problems and "ZeroDivisionError" in r.problems[0]


def test_a_theorem_without_models_says_it_is_not_model_checked():
    r = consistency.check([], ())
    assert r.problems == [] and "not model-checked" in r.line
