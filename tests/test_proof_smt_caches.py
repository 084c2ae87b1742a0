"""The SMT back end's per-process memory (printed terms, z3 and cvc5 answers) changes no answer,
text or model: a term printed once is printed the same inside another formula, with its
declarations; an answer asked again is the one the solver gave, models are independent copies;
z3's ``unknown`` is never remembered, cvc5's only when its cause is deterministic (its work
limit or incompleteness, never the wall-clock guard), and an answer only for its own limit; and a
model is a function of the formulas alone, whatever z3 was asked before (it is searched in a new
context)."""

from __future__ import annotations

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


def _counting_cvc5_solvers(monkeypatch) -> list[int]:
    """Counts the cvc5 solvers ``cvc5_check`` makes: one per script it asks cvc5."""
    import cvc5

    made: list[int] = []
    real = cvc5.Solver

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(cvc5, "Solver", counting)
    return made


def _easy_script(name: str) -> str:
    """sat within cvc5's default limit, unknown within 1 unit of work."""
    x, y = z3.Reals(f"{name}_x {name}_y")
    return smt.to_smtlib([x * y > 2, x < 1, y < 5])


def test_a_cvc5_unknown_from_its_work_limit_is_remembered_for_that_limit(monkeypatch):
    """The work limit is a count (the same answer on any machine): its ``unknown`` is an
    answer for that script and limit, asked once; the same script within a larger limit is
    asked afresh."""
    made = _counting_cvc5_solvers(monkeypatch)
    text = _easy_script("cvc5_unk")
    assert smt.cvc5_check(text, rlimit=1) == smt.UNKNOWN and len(made) == 1
    assert smt._CVC5_ANSWERS[(text, 1)] == smt.UNKNOWN
    assert smt.cvc5_check(text, rlimit=1) == smt.UNKNOWN and len(made) == 1  # remembered
    assert smt.cvc5_check(text) == smt.SAT and len(made) == 2
    assert smt.cvc5_check(text) == smt.SAT and len(made) == 2  # sat is remembered


def test_a_cvc5_unknown_from_the_wall_clock_guard_is_never_remembered(monkeypatch):
    """An ``unknown`` the hang guard decided (1 ms here, on a query cvc5 cannot finish) depends
    on the machine's load: never kept, asked again."""
    made = _counting_cvc5_solvers(monkeypatch)
    monkeypatch.setattr(smt, "HANG_GUARD_MS", 1)
    hard = "\n".join(["(set-logic QF_NIA)", "(declare-fun a () Int)", "(declare-fun b () Int)",
                      "(declare-fun c () Int)", "(assert (> a 0))", "(assert (> b 0))",
                      "(assert (> c 0))", "(assert (= (+ (* a a a) (* b b b)) (* c c c)))",
                      "; guard test", "(check-sat)"])
    assert smt.cvc5_check(hard) == smt.UNKNOWN and len(made) == 1
    assert (hard, smt.CVC5_RLIMIT) not in smt._CVC5_ANSWERS
    assert smt.cvc5_check(hard) == smt.UNKNOWN and len(made) == 2  # asked again


def test_a_cvc5_answer_is_remembered_for_its_limit_only(monkeypatch):
    made = _counting_cvc5_solvers(monkeypatch)
    text = _easy_script("cvc5_lim")
    assert smt.cvc5_check(text) == smt.SAT and len(made) == 1
    assert smt.cvc5_check(text) == smt.SAT and len(made) == 1  # remembered at that limit
    # a lower limit is asked again: the answer within the default limit does not answer it
    assert smt.cvc5_check(text, rlimit=1) == smt.UNKNOWN and len(made) == 2
    assert smt.cvc5_check(text, rlimit=smt.CVC5_RLIMIT + 1) == smt.SAT and len(made) == 3


#: Two negative controls of the sensitivity lemma (``prove plan-utility-sensitivity``), as the
#: kernel prints them: the first (the bound k - 1) and the third (the hypotheses without G(x) = 0
#: below k).  The first, asked before the third, has created their shared subterms in another
#: order; that moved the model z3 finds for the third in its shared context (G(x) = -3 after
#: it, -5/2 alone) before models were searched in a new context.
_DECLARE = """
(declare-fun |G(x + 1){t}| () Real)
(declare-fun |G(x){t}| () Real)
(declare-fun k{t} () Int)
(declare-fun x{t} () Int)
"""
_SENSITIVITY_CONTROL_1 = _DECLARE + """
(assert (<= 1.0 (to_real k{t})))
(assert (=> (>= x{t} k{t}) (= |G(x){t}| (to_real x{t}))))
(assert (=> (< x{t} k{t}) (= 0.0 |G(x){t}|)))
(assert (=> (>= (+ 1.0 (to_real x{t})) (to_real k{t})) (= |G(x + 1){t}| (+ 1.0 (to_real x{t})))))
(assert (=> (< (+ 1.0 (to_real x{t})) (to_real k{t})) (= 0.0 |G(x + 1){t}|)))
(assert (<= 0.0 (to_real x{t})))
(assert (not (<= (+ (* (- 1.0) |G(x){t}|) |G(x + 1){t}|) (+ (- 1.0) (to_real k{t})))))
"""
_SENSITIVITY_CONTROL_3 = _DECLARE + """
(assert (<= 1.0 (to_real k{t})))
(assert (=> (>= x{t} k{t}) (= |G(x){t}| (to_real x{t}))))
(assert (=> (>= (+ 1.0 (to_real x{t})) (to_real k{t})) (= |G(x + 1){t}| (+ 1.0 (to_real x{t})))))
(assert (<= 0.0 (to_real x{t})))
(assert (not (and (<= 0.0 (+ (* (- 1.0) |G(x){t}|) |G(x + 1){t}|))
                  (<= (+ (* (- 1.0) |G(x){t}|) |G(x + 1){t}|) (to_real k{t})))))
"""


def test_a_model_does_not_depend_on_what_z3_was_asked_before():
    """The same formulas after two histories (alone; after a neighbouring query that creates
    their subterms in another order) get the same model, the one a brand-new z3 context gives.
    The names carry a suffix per history, so every term is new to the shared context."""
    def unsuffixed(model: dict[str, str] | None, t: str) -> dict[str, str]:
        assert model is not None
        return {name.removesuffix(t): value for name, value in model.items()}

    ctx = z3.Context()  # the reference: the formulas numbered afresh, nothing asked before
    alone = z3.Solver(ctx=ctx)
    alone.add(z3.parse_smt2_string(_SENSITIVITY_CONTROL_3.format(t=""), ctx=ctx))
    assert alone.check() == z3.sat
    expected = smt.model_dict(alone.model())

    models = {}
    for t, before in (("_alone", None), ("_after", _SENSITIVITY_CONTROL_1)):
        neighbour = z3.parse_smt2_string(before.format(t=t)) if before else None
        answer, model = smt.z3_check(list(z3.parse_smt2_string(
            _SENSITIVITY_CONTROL_3.format(t=t))))
        assert answer == smt.SAT
        models[t] = unsuffixed(model, t)
        del neighbour
    assert models == {"_alone": expected, "_after": expected}


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
