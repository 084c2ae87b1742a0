"""The SMT back end's per-process memory (printed terms, z3 answers) changes no answer, text or
model: a term printed once is printed the same inside another formula, with its declarations;
an answer asked again is the one z3 gave, models are independent copies; and a model is a
function of the formulas alone, whatever z3 was asked before (it is searched in a new context)."""

from __future__ import annotations

import random

import z3

from dps_verify.paper.kernel import smt


def _uncached_text(assertions: list[z3.BoolRef]) -> str:
    saved = dict(smt._PRINTED)
    smt._PRINTED.clear()
    try:
        return smt.to_smtlib(assertions)
    finally:
        smt._PRINTED.clear()
        smt._PRINTED.update(saved)


def test_a_term_printed_before_keeps_its_text_and_declarations():
    x, y = z3.Reals("cache_x cache_y")
    n = z3.Int("cache_n")
    shared = x * x + 1 > y
    formulas = [shared, z3.Or(shared, z3.ToReal(n) < x), y >= 0]
    expected = _uncached_text(formulas)
    smt.to_smtlib([shared])  # the shared term (and x, y) now come from the memory
    smt.to_smtlib([z3.ToReal(n) < x])
    got = smt.to_smtlib(formulas)
    assert got == expected
    assert "(declare-fun cache_x () Real)" in got and "(declare-fun cache_n () Int)" in got
    assert "(set-logic QF_NIRA)" in got  # the mixed logic, learnt from a remembered term


def test_pure_real_is_per_term_and_sees_integers_and_quantifiers():
    x = z3.Real("pure_x")
    k = z3.Int("pure_k")
    assert smt._pure_real([x * x >= 0, x + 1 > x])
    assert not smt._pure_real([x > 0, z3.ToReal(k) >= x])  # an integer symbol deep inside
    assert not smt._pure_real([x > 0, z3.ToReal(z3.IntVal(2)) > x])  # an integer numeral
    assert not smt._pure_real([z3.ForAll([x], x * x >= 0)])
    assert smt._pure_real([x * x >= 0])  # what is remembered is per term, not per list


def test_an_answer_asked_again_is_the_same_and_its_model_a_copy():
    x, y = z3.Reals("again_x again_y")
    fs = [x * y > 2, x < 1, y < 5]
    first = smt.z3_check(fs)
    assert first[0] == smt.SAT and first[1] is not None
    first[1]["again_x"] = "spoiled"
    second = smt.z3_check(list(fs))
    assert second[0] == smt.SAT and second[1] is not None
    assert second[1]["again_x"] != "spoiled"
    assert smt.z3_check(fs, model=False) == (smt.SAT, None)
    assert smt.z3_check([x * x < 0]) == (smt.UNSAT, None)
    assert smt.z3_check([x * x < 0], model=False) == (smt.UNSAT, None)


def test_a_model_asked_after_a_vacuity_check_is_still_found():
    x = z3.Real("vac_x")
    fs = [x * x == 2, x > 0]
    assert smt.z3_check(fs, model=False) == (smt.SAT, None)  # remembered without a model
    answer, model = smt.z3_check(fs)
    assert answer == smt.SAT and model is not None and model["vac_x"].startswith("~1.41421")


def test_unknown_is_never_remembered():
    a, b, c = z3.Ints("unk_a unk_b unk_c")
    hard = [a > 0, b > 0, c > 0, a ** 3 + b ** 3 == c ** 3, a < 10 ** 6]
    assert smt.z3_check(hard, rlimit=100)[0] == smt.UNKNOWN
    key = (tuple(smt._node_key(f) for f in hard), 100, smt.HANG_GUARD_MS)
    assert key not in smt._ANSWERS


def test_a_model_does_not_depend_on_what_z3_was_asked_before():
    """The third control of the sensitivity lemma: in z3's shared context its model used to
    read G(x) = -3 or G(x) = -5/2 depending on the terms created before it."""
    from dps_verify_proofs import plan_utility_sensitivity as lemma

    def witness() -> dict[str, str] | None:
        smt._ANSWERS.clear()  # ask z3 again, not the memory
        return lemma.negative_controls()[2].counterexample

    first = witness()
    assert first is not None
    kept = []
    for trial in range(3):  # create (and drop) other terms, so later terms get other numbers
        rnd = random.Random(trial)
        terms = [z3.Real(f"perturb{trial}_{i}") * rnd.randint(1, 9)
                 for i in range(rnd.randint(50, 400))]
        kept.append(terms[: rnd.randint(0, len(terms))])
        del terms
        assert witness() == first


def test_a_remembered_translation_is_used_only_where_a_fresh_one_would_agree():
    import sympy as sp

    from dps_verify.paper.kernel import core

    k_int = sp.Symbol("trk", integer=True)
    k_real = sp.Symbol("trk", real=True)
    f = sp.Function("TRF")
    term = k_int ** 2 + f(k_int - 1) >= 1
    env: dict[str, z3.ExprRef] = {}
    first = core.to_z3(term, env)
    assert list(env) == ["trk", "TRF(trk - 1)"] and env["trk"].sort() == z3.IntSort()
    env2: dict[str, z3.ExprRef] = {}
    again = core.to_z3(term, env2)  # remembered: the same z3 term and the same env
    assert again.eq(first) and list(env2) == list(env) and env2["trk"].eq(env["trk"])
    # an env that already reads trk as a real (an earlier formula's real trk) translates the
    # term afresh with that constant, as before, never with the remembered integer one
    env3: dict[str, z3.ExprRef] = {}
    core.to_z3(k_real > 0, env3)
    mixed = core.to_z3(term, env3)
    assert not mixed.eq(first) and env3["trk"].sort() == z3.RealSort()
    # ... and what it made there is not remembered for an empty env
    env4: dict[str, z3.ExprRef] = {}
    assert core.to_z3(term, env4).eq(first) and env4["trk"].sort() == z3.IntSort()


def test_a_statement_unfolds_a_formula_as_it_did_and_keeps_its_fingerprint():
    import dataclasses

    import sympy as sp

    from dps_verify.paper.kernel.statement import Statement

    x = sp.Symbol("ux", positive=True)
    g = sp.Function("UG")
    st = Statement("ref", "a paraphrase", (x > 0,), g(x) >= 0,
                   definitions=(sp.Eq(g(x), x ** 2),))
    assert st.unfold(g(x + 1) >= 0) == ((x + 1) ** 2 >= 0)
    assert st.unfold(g(x + 1) >= 0) == ((x + 1) ** 2 >= 0)  # remembered, the same
    before = st.fingerprint
    other = dataclasses.replace(st, conclusion=g(x) > 0)  # a new statement: its own memory
    assert other.fingerprint != before and st.fingerprint == before
    assert other.unfold(g(x)) == x ** 2
