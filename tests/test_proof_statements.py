"""The kernel decides PROVED only for a theorem's own statement (dps_verify.paper.kernel.statement).

Toy chains (tiny formulas, real z3 + cvc5) show each way a chain can miss its statement -- a
dropped, weakened or re-scoped conclusion, an extra or narrowed hypothesis, a changed statement --
turned into an ERROR that names the step; the registered theorems' statements are pinned by their
reviewed fingerprints.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel import THEOREMS
from dps_verify.paper.kernel.core import Verdict, check_chain, given, prove_sym
from dps_verify.paper.kernel.reviewed import FINGERPRINTS
from dps_verify.paper.kernel.statement import Counterexample, Evidence, Statement, decide, refute

x, y = sp.symbols("x y", real=True)
F = sp.Function("F")
HYPS = given("hypothesis", "x >= 1", x >= 1) + given("definition", "F(x) = 2x", sp.Eq(F(x), 2 * x))
STATEMENT = Statement("toy", "F(x) >= 2 when x >= 1", hypotheses=(x >= 1,),
                      definitions=(sp.Eq(F(x), 2 * x),), conclusion=F(x) >= 2)


def _decide(steps, statement=STATEMENT, facts=HYPS, reviewed="same"):
    check_chain(steps, facts)
    fp = statement.fingerprint if reviewed == "same" else reviewed
    return decide(statement, steps, fp)


def test_the_statement_itself_is_proved():
    step = prove_sym("F(x) >= 2", "", F(x) >= 2, [x >= 1, sp.Eq(F(x), 2 * x)])
    dec = _decide([step])
    assert not dec.problems and dec.final == [step]
    tb = dec.trust()
    assert tb["steps"] == 1 and set(tb["facts"]) == {"hypothesis", "definition"}


def test_conclusion_matched_after_unfolding_definitions():
    step = prove_sym("2x >= 2", "", 2 * x >= 2, [x >= 1])
    assert not _decide([step]).problems


def test_weakened_conclusion_is_an_error_naming_the_step():
    step = prove_sym("F(x) >= 1", "", F(x) >= 1, [x >= 1, sp.Eq(F(x), 2 * x)])
    dec = _decide([step])
    assert dec.problems and "F(x) >= 1" in dec.problems[0] and "(F(x) >= 1)" in dec.problems[0]


def test_dropped_final_step_is_an_error():
    first = prove_sym("x >= 1 restated", "", x >= 1, [x >= 1])
    dec = _decide([first])
    assert dec.problems and "no PROVED step concludes" in dec.problems[0]


def test_rescoped_conclusion_is_an_error():
    # proved only under an extra premise x >= 2: its conclusion is an implication
    step = prove_sym("F(x) >= 2 for x >= 2", "", F(x) >= 2, [x >= 1, sp.Eq(F(x), 2 * x)],
                     premises=[x >= 2])
    assert _decide([step]).problems


def test_extra_hypothesis_is_an_error_naming_the_step():
    facts = HYPS + given("hypothesis", "y = 0", sp.Eq(y, 0))
    step = prove_sym("F(x) >= 2", "", F(x) >= 2, [x >= 1, sp.Eq(F(x), 2 * x), sp.Eq(y, 0)])
    dec = _decide([step], facts=facts)
    assert any("step 1 (F(x) >= 2) rests on the given Eq(y, 0)" in p for p in dec.problems)


def test_narrowed_hypothesis_is_an_error():
    facts = given("hypothesis", "x >= 2", x >= 2) + HYPS[1:]
    step = prove_sym("F(x) >= 2", "", F(x) >= 2, [x >= 2, sp.Eq(F(x), 2 * x)])
    dec = _decide([step], facts=facts)
    assert any("rests on the given x >= 2" in p for p in dec.problems)


def test_unreviewed_or_missing_statement_is_an_error():
    step = prove_sym("F(x) >= 2", "", F(x) >= 2, [x >= 1, sp.Eq(F(x), 2 * x)])
    dec = _decide([step], reviewed="0000000000000000")
    assert any("not the reviewed one" in p for p in dec.problems)
    assert decide(None, [step], None).problems


def test_conjunction_from_two_steps():
    both = Statement("toy", "both", hypotheses=(x >= 1,), conclusion=sp.And(x >= 0, x + 1 >= 2))
    s1 = prove_sym("x >= 0", "", x >= 0, [x >= 1])
    s2 = prove_sym("x + 1 >= 2", "", x + 1 >= 2, [x >= 1])
    dec = _decide([s1, s2], statement=both, facts=HYPS[:1])
    assert not dec.problems and len(dec.final) == 2
    dec = _decide([prove_sym("x >= 0", "", x >= 0, [x >= 1])], statement=both, facts=HYPS[:1])
    assert dec.problems and "x + 1 >= 2" in dec.problems[0]


def test_a_statement_step_not_proved_is_named():
    bad = prove_sym("F(x) >= 3", "", F(x) >= 3, [x >= 1, sp.Eq(F(x), 2 * x)])
    three = Statement("toy", "false", hypotheses=(x >= 1,), definitions=STATEMENT.definitions,
                      conclusion=F(x) >= 3)
    dec = _decide([bad], statement=three)
    assert bad.verdict is Verdict.REFUTED
    assert dec.problems and "step 1 (F(x) >= 3)" in dec.problems[0]


def test_fingerprint_is_the_hash_of_the_text():
    other = Statement("toy", "F(x) >= 2 when x >= 1", hypotheses=(x >= 2,),
                      definitions=STATEMENT.definitions, conclusion=F(x) >= 2)
    assert other.fingerprint != STATEMENT.fingerprint
    assert "hypothesis: x >= 1" in STATEMENT.text()
    assert "x in real" in STATEMENT.text() and "F(...) in real (opaque function)" in STATEMENT.text()


def test_every_theorem_declares_its_reviewed_statement():
    """Pins: changing a statement changes its fingerprint, which must be re-recorded (reviewed)
    in dps_verify/paper/kernel/reviewed.py."""
    for tid, mod in THEOREMS.items():
        st = getattr(mod, "STATEMENT", None)
        assert isinstance(st, Statement), f"{tid} declares no STATEMENT"
        assert FINGERPRINTS.get(tid) == st.fingerprint, (
            f"{tid}: statement fingerprint {st.fingerprint} is not the reviewed "
            f"{FINGERPRINTS.get(tid)}")
    assert set(FINGERPRINTS) <= set(THEOREMS)


# ---------------------------------------------------------------- refutations by a witness
G = sp.Function("G")
FALSE_CLAIM = Statement("toy", "G(x) <= x when x >= 1", hypotheses=(x >= 1, y >= 0),
                        conclusion=G(x) <= x + y)


def _witness(vals, interpret=None):
    return Counterexample("toy", lambda: vals, interpret or {"G": lambda v: 3 * v})


def test_a_witness_meeting_every_hypothesis_refutes():
    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "given"), y: Evidence(1, "given")}))
    assert ref.verdict is Verdict.REFUTED and not ref.problems
    assert [c["at the witness"] for c in ref.checks] == ["true", "true", "FALSE"]


def test_a_witness_missing_a_hypothesis_is_an_error():
    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "given"), y: Evidence(-1, "given")}))
    assert ref.verdict is Verdict.ERROR
    assert any("misses the hypothesis y >= 0" in p for p in ref.problems)


def test_a_witness_where_the_conclusion_holds_is_an_error():
    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "given"), y: Evidence(9, "given")}))
    assert ref.verdict is Verdict.ERROR and "refutes nothing" in ref.problems[-1]


def test_an_incomplete_or_missing_value_is_an_error():
    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "scan only", complete=False),
                                        y: Evidence(1, "given")}))
    assert ref.verdict is Verdict.ERROR and "not established" in ref.problems[0]
    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "given")}))
    assert ref.verdict is Verdict.ERROR and "no value for y" in ref.problems[0]


def test_an_implementation_that_raises_decides_nothing():
    def boom(v):
        raise ValueError("no")

    ref = refute(FALSE_CLAIM, _witness({x: Evidence(2, "given"), y: Evidence(1, "given")},
                                       {"G": boom}))
    assert ref.verdict is Verdict.ERROR and "undecided" in ref.problems[-1]


def test_refuted_theorems_are_decided_by_their_witness(proof_results):
    for tid in ("cp-theorem-6", "tr-theorem-2"):
        r = proof_results.results[tid]  # run once per session (tests/conftest.py)
        assert r.verdict is Verdict.REFUTED and r.ok, tid
        assert r.decision.refutation.verdict is Verdict.REFUTED, tid
        assert "refutation" in r.to_dict(), tid
