"""CP Thm 5's assembly: the PROVED verdict rests on proofs only.

The bad mass, the group's divergences and out-of-band masses and the whole output are chained
sums proved by induction; the last step concludes delta <= d for every group size; no claim
step is bounded, d is proved to be the max of its terms over a computed finite range (its
least-upper-bound definition and the cited Chernoff bound), the trusted givens are standard or
cited lemmas, and the exact scans are remarks nobody links to.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import sympy as sp
from dps_verify_proofs import cp_theorem_5 as cp5
from dps_verify_proofs import tr_theorem_6 as tr6

from dps_verify.paper.kernel.core import Verdict, aggregate, check_chain

FINAL = "CP Thm 5: delta = d for every D and t"
#: the links the last step must (transitively) rest on: the case split, the max over n <= n_m,
#: the monotone T, the sums over outputs and over the other groups' outputs, F > 0.
BACKBONE = ("bad mass <= d for every group size", "max over n: every n <= n_m",
            "monotone for n <= n_m", "case split, sums for every J", "outputs, sums for every J",
            "whole output, sums over x for every J", "whole output, sums over r for every Q",
            "T's summed Pascal for every J", "j = 0 ratio in [1 - beta, 1]", "F(K; m) > 0",
            "d is attained: d = max over n_m .. n_m + L",
            "d <= the max over n_m .. n_m + L (least upper bound)",
            "every term of d <= the max over n_m .. n_m + L", "finite max <= d for every o",
            "d's n_m term > 0")
NEW_CONTROLS = ("control: n_m term with threshold j > gamma n_m + 1",
                "control: case split without n <= n_m",
                "control: d's max without its n_m term",
                "control: T's summed Pascal off by one",
                "control: hockey-stick share without e^eps",
                "control: group bound without the sums over outputs",
                "control: pin of a weakened conclusion (d + 1)",
                "control: pin of a weakened conclusion (2d)",
                "control: statement with one direction only",
                "control: statement with the bound d + 1",
                "control: d's defining property over every n >= 0",
                "control: d attained from its upper-bound half alone",
                "control: every term below the finite max without the Chernoff bound")
PINS = ("pin: the conclusion is the paper's statement", "pin: the last step loses nothing",
        "pin: d's range starts at n_m")


@pytest.fixture(scope="module")
def result(proof_results):
    return proof_results.results["cp-theorem-5"]  # run once per session (tests/conftest.py)


def _step(result, name):
    return next(s for s in result.steps if s.name == name)


def _depends_on(result, name) -> set[str]:
    """Names of the steps ``name`` rests on, transitively (read off the recorded links)."""
    by_index = {i: s for i, s in enumerate(result.steps, 1)}
    seen: set[str] = set()
    todo = [name]
    while todo:
        s = _step(result, todo.pop())
        for link in s.links or []:
            m = re.match(r"step (\d+): ", link["from"])
            if m:
                dep = by_index[int(m.group(1))].name
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        for inner in s.discharges:
            if inner not in seen:
                seen.add(inner)
                todo.append(inner)
    return seen


def test_theorem_proved_and_every_step_as_recorded(result):
    assert result.verdict is Verdict.PROVED and result.ok
    assert not [s.name for s in result.steps + result.negative_controls if not s.ok]


def test_last_step_is_the_theorem_for_every_group_size(result):
    last = _step(result, FINAL)
    assert last.verdict is Verdict.PROVED
    assert last.solvers == {"z3": "unsat", "cvc5": "unsat"} and last.vacuity == {"z3": "sat"}
    assert last.over == (cp5.nn,)
    assert last.concludes == sp.And(*cp5.FINAL.args, cp5.D_MAX)
    assert last.concludes == cp5.STATEMENT.conclusion
    deps = _depends_on(result, FINAL)
    missing = [b for b in BACKBONE if b not in deps]
    assert not missing, missing


def test_proved_verdict_needs_no_bounded_check(result):
    claims = [s for s in result.steps if s.role == "claim"]
    assert all(s.verdict is Verdict.PROVED and not s.bound for s in claims)
    remarks = [s for s in result.steps if s.role == "remark"]
    names = [s.name for s in remarks]
    assert names == ["finite range against the engine's d", "exact cross-check"]
    assert all(r.verdict is Verdict.BOUNDED for r in remarks)
    assert remarks[0].bound == cp5.range_check_range()
    assert remarks[1].bound == cp5.cross_check_range()
    # the theorem verdict without the remarks is the same, and nothing links to them
    assert aggregate(claims) is Verdict.PROVED
    for s in result.steps:
        assert not any(r in ln["from"] for r in names for ln in s.links or []), s.name


def test_trusted_givens_are_the_standard_and_cited_lemmas(result):
    """Lemmas are labelled as such: the factorisation over the other groups (CP App. A.2),
    'hockey-stick = sum of positive parts', and for the finite range of d's max the cited
    Chernoff bound (the very fact tr-theorem-6 rests on), the event comparison and e^x
    increasing; nothing else is trusted."""
    kinds = {g.kind for g in result.given}
    assert kinds <= {"hypothesis", "definition", "setting", "lemma"}, kinds
    labels = {g.label for g in result.given if g.trusted}
    assert labels == {"other groups' law independent of t's group (CP App. A.2)",
                      "hockey-stick = sum of positive parts (standard)",
                      "multiplicative Chernoff bound (cited)", "events compared (standard)",
                      "e^x is increasing (standard)"}, labels
    chernoff = next(g for g in result.given if g.label == "multiplicative Chernoff bound (cited)")
    assert any(chernoff is g for g in tr6.GIVEN)
    # F(K; m) > 0 and F(K-1; m) >= 0 are proved (by induction), not given
    proved = {s.concludes for s in result.steps if s.verdict is Verdict.PROVED}
    for formula in (cp5.F(cp5.K, cp5.m) > 0, cp5.F(cp5.K - 1, cp5.m) >= 0):
        assert formula not in {g.formula for g in result.given}
        assert formula in proved
    j0 = _step(result, "j = 0 ratio in [1 - beta, 1]")
    positive = next(ln for ln in j0.links if ln["formula"] == "F(k - 1, n - 1) > 0")
    assert positive["from"].startswith("step") and "F(K; m) > 0" in positive["from"]


def test_every_smt_step_has_both_solvers_and_satisfiable_hypotheses(result):
    for s in result.steps:
        if s.role != "claim" or s.solvers is None:
            continue
        assert s.vacuity == {"z3": "sat"}, s.name
        want = "sat" if "witness" in s.method else "unsat"
        assert s.solvers == {"z3": want, "cvc5": want}, s.name
        assert s.links is not None and all(ln["from"] != "UNLINKED" for ln in s.links), s.name


def test_new_controls_rejected(result):
    controls = {c.name: c for c in result.negative_controls}
    for name in NEW_CONTROLS:
        c = controls[name]
        assert c.ok and c.verdict in (Verdict.REFUTED, Verdict.ERROR), name
        if c.verdict is Verdict.REFUTED:
            assert c.counterexample, name
            if c.solvers is not None:  # (structural controls have no solver query)
                assert c.vacuity == {"z3": "sat"}, name  # refuted on satisfiable hypotheses


@pytest.mark.parametrize("dropped", ["outputs, sums for every J", "max over n: every n <= n_m",
                                     "whole output, sums over r for every Q"])
def test_dropping_a_link_breaks_the_chain(result, dropped):
    """Without one induction the chaining check turns the theorem into an ERROR."""
    copies = [replace(s, links=None) for s in result.steps if s.name != dropped]
    problems = check_chain(copies, list(result.given))
    assert problems
    assert aggregate(copies) is Verdict.ERROR
    assert next(s for s in copies if s.name == FINAL).verdict is Verdict.ERROR


def test_conclusion_pinned_to_the_paper(result):
    """The conclusion is pinned to the paper: the last step concludes the one statement (both orders, CP Def 2 and
    TR Def 2, each <= d), rests on d >= 0 (proved), and its pins hold."""
    assert cp5.FINAL == cp5.statement(cp5.d) and cp5.PAPER_DELTA == cp5.d
    assert len(cp5.FINAL.args) == 4
    assert cp5.statement_check(cp5.FINAL)[0] is Verdict.PROVED
    last = _step(result, FINAL)
    assert (cp5.d >= 0) in last.assumes
    link = next(ln for ln in last.links if ln["formula"] == "d >= 0")
    assert link["from"].startswith("step") and "d >= 0" in link["from"]
    for name in PINS:
        assert _step(result, name).verdict is Verdict.PROVED, name


def test_finite_range_is_the_statements_and_computed():
    """L of the statement's conclusion d = MX(L + 1) is computable: finite_range gives n_m
    exactly and an L with (n_m + L) phi >= -ln(term(n_m)) (checked here in floats with margin)."""
    import math
    from fractions import Fraction

    beta, e_, k_ = Fraction(1, 2), Fraction(2), 6
    n_m, L_ = cp5.finite_range(k_, beta, e_)
    gam = (e_ - 1 + beta) / e_
    assert n_m == math.ceil(k_ / gam - 1) == 7
    term = float(cp5._tail(math.floor(gam * n_m) + 1, n_m, beta))
    phi = float(gam) * math.log(float(gam / beta)) - float(gam - beta)
    assert (n_m + L_) * phi >= -math.log(term) and (n_m + L_ - 2) * phi < -math.log(term)
    assert cp5.D_MAX in cp5.STATEMENT.conclusion.args
