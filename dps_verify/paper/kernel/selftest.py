"""Negative controls of the kernel's own guards, run with a theorem (``kernel_controls()``).

Each control builds a tiny proof that one guard must reject -- a solver that lies, a derived
assumption taken from a given, an induction whose base proves something else, a certificate
that decided another formula, a pole hidden by cancellation, a chain whose last step concludes
less than the statement, an extra hypothesis, an unreviewed statement, a lemma failing its spot
check, a refutation whose witness misses a hypothesis or that has no witness, definitions no
model satisfies -- and records
ERROR (or OPEN) when the guard rejects it, PROVED when it let it through.
Every control is expected to be rejected, so disabling a guard changes a recorded verdict; the
mutation test (tests/test_proof_mutations.py) applies one mutant per guard and requires that.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sympy as sp

_x, _y = sp.symbols("x y", real=True)
_k = sp.Symbol("k", integer=True, nonnegative=True)
_F = sp.Function("F")


def _control(name: str, statement: str, run: Callable[[], tuple[bool, str]],
             expected: Any = None) -> Any:
    """A control Step: ERROR when ``run`` reports the guard rejected the bad proof."""
    from dps_verify.paper.kernel.core import Step, Verdict

    t0 = time.perf_counter()
    rejected, note = run()
    verdict = Verdict.ERROR if rejected else Verdict.PROVED
    return Step(name, statement, None, "kernel guard", verdict, expected or Verdict.ERROR,
                time.perf_counter() - t0, None, note)


def _lying_cvc5() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core, smt

    saved = smt.cvc5_check
    smt.cvc5_check = lambda text, ms=0: smt.SAT  # type: ignore[assignment]
    try:
        step = core.prove_sym("x + 1 > x", "", _x + 1 > _x, [])
    finally:
        smt.cvc5_check = saved  # type: ignore[assignment]
    ok = step.verdict is core.Verdict.ERROR and step.solvers == {"z3": "unsat", "cvc5": "sat"}
    return ok, f"{step.verdict.value}: {step.solvers}"


def _derived_from_given() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    facts = core.given("hypothesis", "y >= x", _y >= _x) + core.given("hypothesis", "x >= 1",
                                                                      _x >= 1)
    step = core.prove_sym("y >= 1", "", _y >= 1, [_x >= 1, _y >= _x], derived=[_y >= _x])
    problems = core.check_chain([step], facts)
    return bool(problems), problems[0] if problems else "accepted a derived assumption from a given"


def _induction_wrong_base() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    def p(v: Any) -> Any:
        return _F(v) >= 1

    facts = core.given("definition", "F(0) = 0, F(k + 1) = F(k) + 1", sp.Eq(_F(0), 0),
                       sp.Eq(_F(_k + 1), _F(_k) + 1), over=(_k,))
    base = core.prove_sym("F(0) >= 0", "", _F(0) >= 0, [sp.Eq(_F(0), 0)])  # not P(0)
    step = core.prove_sym("P(k + 1)", "", p(_k + 1), [p(_k), sp.Eq(_F(_k + 1), _F(_k) + 1)],
                          local=[p(_k)], over=(_k,))
    core.check_chain([base, step], facts)
    # the rule's own verdict (before the chaining check, which would also miss P(0))
    ind = core.induction("every k", "", p, _k, 0, base, step, over=(_k,))
    return (ind.verdict is not core.Verdict.PROVED and "base proves P(start)" in ind.note,
            f"{ind.verdict.value}: {ind.note[:120]}")


def _certificate_other_formula() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    concl = sp.Implies(_x > 0, _F(_x) > 0)
    fdef = sp.Eq(_F(_x), _x ** 2)  # F(x) > 0 would need x^2 > 0
    other = sp.Implies(_x > 0, _x ** 3 > 0)  # what the check decided: not the conclusion
    step = core.timed("F > 0", "", "custom", lambda: (core.Verdict.PROVED, None, "cert", other),
                      concludes=concl, definitions=[fdef])
    return step.verdict is core.Verdict.ERROR, f"{step.verdict.value}: {step.note[:120]}"


def _sympy_tie() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    fdef = sp.Eq(_F(_x), 2 * _x)
    # certifies x + x = 2x but records F(x) = 3x
    step = core.sympy_step("F(x) = 3x", "", _x + _x, 2 * _x, concludes=sp.Eq(_F(_x), 3 * _x),
                           definitions=[fdef])
    return step.verdict is core.Verdict.ERROR, f"{step.verdict.value}: {step.note[:120]}"


def _pole_hidden() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    with sp.evaluate(False):
        lhs = (_y * (_x - 1)) / (_x - 1)  # undefined at x = 1; sympy would cancel it
    step = core.sympy_step("y (x - 1)/(x - 1) = y", "", lhs, _y)
    return step.verdict is not core.Verdict.PROVED, f"{step.verdict.value}"


def _toy_statement(conclusion: Any, hyps: tuple[Any, ...] = (_x >= 1,)) -> Any:
    from dps_verify.paper.kernel.statement import Statement

    return Statement("kernel control", "toy", hypotheses=hyps, conclusion=conclusion)


def _decide(steps: list[Any], facts: list[Any], stmt: Any, reviewed: str | None = "same"
            ) -> tuple[bool, str]:
    from dps_verify.paper.kernel import core, statement

    core.check_chain(steps, facts)
    dec = statement.decide(stmt, steps, stmt.fingerprint if reviewed == "same" else reviewed)
    return bool(dec.problems), dec.problems[0] if dec.problems else "accepted"


def _weaker_conclusion() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    facts = core.given("hypothesis", "x >= 1", _x >= 1)
    step = core.prove_sym("x >= 0", "", _x >= 0, [_x >= 1])
    return _decide([step], facts, _toy_statement(_x + 1 >= 2))


def _extra_hypothesis() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    facts = core.given("hypothesis", "x >= 1", _x >= 1) + core.given("hypothesis", "y = 5",
                                                                     sp.Eq(_y, 5))
    step = core.prove_sym("x + y >= 6", "", _x + _y >= 6, [_x >= 1, sp.Eq(_y, 5)])
    return _decide([step], facts, _toy_statement(_x + _y >= 6))


def _unreviewed() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core

    facts = core.given("hypothesis", "x >= 1", _x >= 1)
    step = core.prove_sym("x >= 0", "", _x >= 0, [_x >= 1])
    return _decide([step], facts, _toy_statement(_x >= 0), reviewed="0" * 16)


def _false_lemma() -> tuple[bool, str]:
    from dps_verify.paper.kernel import core
    from dps_verify.paper.kernel.lemmas import at_points

    # 'x^2 >= x for every x' (false for 0 < x < 1), spot-checked where it fails
    lemma = core.given("lemma", "x^2 >= x", _x ** 2 >= _x, source="a false toy lemma",
                       spot=at_points([{_x: 2}, {_x: sp.Rational(1, 2)}], {}))
    facts = core.given("hypothesis", "x >= 1", _x >= 1) + lemma
    step = core.prove_sym("x^2 >= 1", "", _x ** 2 >= 1, [_x >= 1, _x ** 2 >= _x])
    stmt = _toy_statement(_x ** 2 >= 1)
    from dps_verify.paper.kernel.statement import Statement

    stmt = Statement(stmt.reference, stmt.paraphrase, stmt.hypotheses, stmt.conclusion,
                     lemmas=(_x ** 2 >= _x,))
    return _decide([step], facts, stmt)


def _run_module_gate() -> tuple[bool, str]:
    from types import SimpleNamespace

    from dps_verify.paper.kernel import core, runner

    facts = core.given("hypothesis", "x >= 1", _x >= 1)
    module = SimpleNamespace(
        CLAIM="toy", REFERENCE="kernel control", EXPECTED=core.Verdict.PROVED, GIVEN=facts,
        STATEMENT=_toy_statement(_x + 1 >= 2),  # the chain proves only x >= 0
        steps=lambda: [core.prove_sym("x >= 0", "", _x >= 0, [_x >= 1])],
        negative_controls=lambda: [])
    r = runner.run_module("kernel-control", module)
    return r.verdict is core.Verdict.ERROR, f"{r.verdict.value}"


def _witness_missing_hypothesis() -> tuple[bool, str]:
    from dps_verify.paper.kernel.statement import Counterexample, Evidence, refute

    # 'x^2 >= x whenever x >= 1' at x = 1/2: the conclusion fails, but the hypothesis too
    stmt = _toy_statement(_x ** 2 >= _x)
    ref = refute(stmt, Counterexample("x = 1/2", lambda: {_x: Evidence(sp.Rational(1, 2), "toy")}))
    return ref.verdict.value == "ERROR", "; ".join(ref.problems) or "refuted by a bad witness"


def _run_reviewed(key: str, module: Any) -> Any:
    """``runner.run_module(key, module)`` with the module's statement reviewed for the duration
    of the run, so that only the guard under test can make its verdict an ERROR."""
    from dps_verify.paper.kernel import reviewed, runner

    reviewed.FINGERPRINTS[key] = module.STATEMENT.fingerprint
    try:
        return runner.run_module(key, module)
    finally:
        reviewed.FINGERPRINTS.pop(key, None)


def _refuted_without_witness() -> tuple[bool, str]:
    from types import SimpleNamespace

    from dps_verify.paper.kernel import core

    facts = core.given("hypothesis", "x >= 1", _x >= 1)
    stmt = _toy_statement(_x >= 2)
    module = SimpleNamespace(
        CLAIM="toy", REFERENCE="kernel control", EXPECTED=core.Verdict.REFUTED, GIVEN=facts,
        STATEMENT=stmt, steps=lambda: [core.prove_sym("x >= 2", "", _x >= 2, [_x >= 1],
                                                      expected=core.Verdict.REFUTED)],
        negative_controls=lambda: [])
    r = _run_reviewed("kernel-control-refuted", module)  # only the missing witness can reject
    return r.verdict is core.Verdict.ERROR, f"{r.verdict.value}: {r.decision.problems}"


def _contradictory_definitions() -> tuple[bool, str]:
    from types import SimpleNamespace

    from dps_verify.paper.kernel import core
    from dps_verify.paper.kernel.consistency import Model
    from dps_verify.paper.kernel.statement import Statement

    # d the sup of t(n) = 1/(n + 1), n >= 0, with its 'least' half stated for y <= d: at
    # y = d it asks for a term above d, against the upper-bound half
    t, m = sp.Function("t"), sp.Function("M", integer=True, nonnegative=True)
    upper = _x >= t(_k)
    least = sp.Implies(_y <= _x, t(m(_y)) > _y)
    facts = (core.given("hypothesis", "x >= 1/2", _x >= sp.Rational(1, 2))
             + core.given("definition", "x = sup of t: an upper bound", upper, over=(_k,))
             + core.given("definition", "x = sup of t: the least (stated with y <= x)", least,
                          over=(_y,)))
    stmt = Statement("kernel control", "toy", (_x >= sp.Rational(1, 2),), _x >= 0,
                     definitions=(upper, least))
    model = Model("x = 1, t(n) = 1/(n + 1), M(y) = 0", lambda: (
        {_x: 1}, {"t": lambda n: sp.Rational(1, int(n) + 1), "M": lambda y: sp.Integer(0)},
        {_k: [0, 1, 5], _y: [1, sp.Rational(1, 2), 0]}))
    module = SimpleNamespace(
        CLAIM="toy", REFERENCE="kernel control", EXPECTED=core.Verdict.PROVED, GIVEN=facts,
        STATEMENT=stmt, MODELS=(model,),
        steps=lambda: [core.prove_sym("x >= 0", "", _x >= 0, [_x >= sp.Rational(1, 2)])],
        negative_controls=lambda: [])
    r = _run_reviewed("kernel-control-contradictory", module)  # only the model check can reject
    return r.verdict is core.Verdict.ERROR, f"{r.verdict.value}: {r.decision.problems}"


def kernel_controls() -> list[Any]:
    """One negative control per kernel guard (all expected ERROR: the guard rejects)."""
    return [
        _control("kernel control: cvc5 consulted (a lying cvc5 answer is a disagreement)",
                 "cvc5's slot answers 'sat' on a true claim: the step must be an ERROR "
                 "(solvers disagree), never a copy of z3's answer.", _lying_cvc5),
        _control("kernel control: derived assumption taken from a given",
                 "A step declares y >= x derived (an earlier step's conclusion) but only a "
                 "given states it: unlinked.", _derived_from_given),
        _control("kernel control: induction base proving another formula",
                 "Base concludes F(0) >= 0, not P(0) = F(0) >= 1: the induction rule must not "
                 "fire.", _induction_wrong_base),
        _control("kernel control: certificate decided another formula",
                 "A custom check decided x^3 > 0 for x > 0, the step records F(x) > 0 with "
                 "F(x) = x^2: not tied.", _certificate_other_formula),
        _control("kernel control: sympy certificate not tied to its conclusion",
                 "x + x = 2x certified, F(x) = 3x recorded: not tied.", _sympy_tie),
        _control("kernel control: domain check before cancellation",
                 "y (x - 1)/(x - 1) = y written unevaluated: undefined at x = 1, so never "
                 "certified.", _pole_hidden),
        _control("kernel control: statement identity (weaker conclusion)",
                 "The chain ends in x >= 0; the statement says x + 1 >= 2.", _weaker_conclusion),
        _control("kernel control: extra hypothesis",
                 "The chain rests on y = 5, which the statement does not list.", _extra_hypothesis),
        _control("kernel control: unreviewed statement",
                 "The statement's fingerprint is not the recorded one.", _unreviewed),
        _control("kernel control: trusted lemma failing its spot check",
                 "x^2 >= x taken as a lemma; false at x = 1/2.", _false_lemma),
        _control("kernel control: witness missing a hypothesis",
                 "x = 1/2 falsifies x^2 >= x but misses the hypothesis x >= 1: the "
                 "kernel's witness check must report an ERROR, never REFUTED.",
                 _witness_missing_hypothesis),
        _control("kernel control: REFUTED needs a witness of the statement",
                 "A theorem whose step refutes x >= 2 but that declares no WITNESS is an "
                 "ERROR.", _refuted_without_witness),
        _control("kernel control: contradictory definitions (no model)",
                 "x defined as the sup of 1/(n + 1) with its least-upper-bound half stated for "
                 "y <= x (so at y = x some term exceeds x): the givens' model check must make "
                 "the theorem an ERROR.", _contradictory_definitions),
        _control("kernel control: theorem verdict gated by its statement",
                 "A theorem whose every step is PROVED but whose chain misses its statement "
                 "(and whose statement was never reviewed) is an ERROR.", _run_module_gate),
    ]
