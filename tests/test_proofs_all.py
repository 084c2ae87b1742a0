"""Tests for proofs/: every theorem verdict, every step, every negative control."""

from __future__ import annotations

import json

import pytest
import sympy as sp
import z3

from dps_verify import cli
from dps_verify.paper.kernel import THEOREMS
from dps_verify.paper.kernel.core import Verdict, aggregate, prove_sym, sympy_step, z3_prove

IDS = list(THEOREMS)


@pytest.fixture(scope="module")
def results(proof_results):
    return proof_results.results  # every proof, run once per session (tests/conftest.py)


def test_registry_complete():
    core = ["cp-theorem-1", "cp-theorem-2", "cp-theorem-3", "cp-proposition-4",
            "cp-theorem-5", "cp-theorem-6", "tr-definition-2", "tr-theorem-2",
            "tr-theorem-3", "tr-theorem-5", "tr-theorem-6"]
    assert [i for i in IDS if i in core] == core  # other readings may be registered too


@pytest.mark.parametrize("tid", IDS)
def test_theorem_verdict_as_expected(results, tid):
    r = results[tid]
    assert r.verdict == THEOREMS[tid].EXPECTED
    bad = [s.name for s in r.steps if not s.ok]
    assert not bad, bad


@pytest.mark.parametrize("tid", IDS)
def test_negative_controls_rejected(results, tid):
    controls = results[tid].negative_controls
    assert controls, "every proof ships a negative control"
    for c in controls:
        assert c.ok, (c.name, c.verdict)
        assert c.verdict != Verdict.PROVED


@pytest.mark.parametrize("tid", IDS)
def test_refutations_carry_witnesses(results, tid):
    for s in results[tid].steps + results[tid].negative_controls:
        if s.verdict == Verdict.REFUTED:
            assert s.counterexample, s.name


def test_expected_verdicts(results):
    got = {i: r.verdict for i, r in results.items()}
    assert got["tr-theorem-2"] == Verdict.REFUTED
    assert got["cp-theorem-6"] == Verdict.REFUTED
    assert all(v == Verdict.PROVED for i, v in got.items()
               if i not in ("tr-theorem-2", "cp-theorem-6"))


def test_every_verdict_kind_occurs(results):
    kinds = {s.verdict for r in results.values() for s in r.steps + r.negative_controls}
    assert kinds == set(Verdict)


def test_specific_findings(results):
    typo = next(s for s in results["cp-theorem-1"].steps if "A.1 restatement" in s.name)
    assert typo.verdict == Verdict.REFUTED and typo.role == "remark"
    assert float(typo.counterexample["eps2 (typo)"]) < 0
    comp = results["tr-theorem-2"].steps[0].counterexample
    assert comp["ratio"] == "5" and comp["claimed bound e^(eps1'+eps2')"] == "4"
    approx = next(s for s in results["tr-theorem-6"].steps if "approximation" in s.name)
    assert approx.verdict == Verdict.REFUTED
    def3 = next(s for s in results["cp-theorem-6"].steps if s.name.startswith("theorem under"))
    assert def3.verdict == Verdict.REFUTED and def3.role == "claim"
    assert def3.counterexample["exact hockey-stick delta"].startswith("17/384")
    assert def3.counterexample["d(5, 1/2, ln 4)"].startswith("1/32")
    ctl = {c.name: c.verdict for c in results["cp-theorem-6"].negative_controls}
    assert ctl["control: the witness with A_m run on the unsampled D"] == Verdict.BOUNDED
    # a witness that does not meet the theorem's hypotheses (A_m not eps1-DP) is an ERROR
    assert ctl["control: the witness with an A_m that is not ln 3-DP"] == Verdict.ERROR
    mix = next(s for s in results["cp-theorem-6"].steps if "pointwise" in s.name)
    assert mix.counterexample["mixture bad mass under D"] == "5/12"


def test_z3_prove_basics():
    x = z3.Real("x")
    assert z3_prove(x * x >= 0)[0] == Verdict.PROVED
    v, model, _ = z3_prove(x >= 1, [x >= 0])
    assert v == Verdict.REFUTED and model is not None


def test_vacuous_step_is_error_never_proved():
    x = sp.Symbol("x", real=True)
    s = prove_sym("vac", "", x >= 5, [x >= 1, x <= 0])
    assert s.verdict == Verdict.ERROR and "vacuous" in s.note
    assert s.vacuity == {"z3": "unsat"}
    assert aggregate([s, prove_sym("ok", "", x ** 2 >= 0)]) == Verdict.ERROR


def test_proved_steps_have_two_solvers_or_certificate(results):
    for r in results.values():
        for s in r.steps + r.negative_controls:
            if s.verdict != Verdict.PROVED:
                continue
            if s.solvers is not None:
                assert s.vacuity == {"z3": "sat"}, (r.theorem_id, s.name)
                if any(q.kind == "implies" for q in s.queries):
                    assert s.solvers == {"z3": "unsat", "cvc5": "unsat"}, (r.theorem_id, s.name)
            else:
                assert s.certificate, (r.theorem_id, s.name)


def test_bounded_is_never_proved(results):
    for r in results.values():
        for s in r.steps + r.negative_controls:
            if s.bound:
                assert s.verdict != Verdict.PROVED, (r.theorem_id, s.name)


def test_sympy_no_force_sqrt_control():
    a, c = sp.symbols("a c", real=True)
    bad = sympy_step("sqrt split", "", sp.sqrt(a * c), sp.sqrt(a) * sp.sqrt(c),
                     expected=Verdict.REFUTED, at={a: -1, c: -1})
    assert bad.verdict == Verdict.REFUTED and bad.ok
    ap, cp = sp.symbols("a c", positive=True)
    good = sympy_step("sqrt split (positive)", "", sp.sqrt(ap * cp), sp.sqrt(ap) * sp.sqrt(cp))
    assert good.verdict == Verdict.PROVED and good.certificate


def test_z3_limit_is_open_never_proved():
    # A hard nonlinear integer query with a tiny budget must come back OPEN (never PROVED):
    # a 1 ms wall-clock guard, and a resource limit of 100 units (deterministic).
    a, b, c = z3.Ints("a b c")
    hard = z3.Not(z3.And(a > 0, b > 0, c > 0, a ** 3 + b ** 3 == c ** 3))
    verdict, model, _ = z3_prove(hard, [a < 10 ** 6], timeout_ms=1)
    assert verdict in (Verdict.OPEN, Verdict.REFUTED) and verdict != Verdict.PROVED
    verdict, model, _ = z3_prove(hard, [a < 10 ** 6], rlimit=100)
    assert verdict is Verdict.OPEN


def test_solver_limits_are_resource_limits():
    """The limits that decide OPEN are counts of solver work (z3 rlimit, cvc5 rlimit-per), so
    a loaded machine cannot turn a step OPEN; an exhausted cvc5 limit is unknown, never unsat."""
    from dps_verify.paper.kernel import smt

    assert smt.Z3_RLIMIT > 0 and smt.CVC5_RLIMIT > 0 and smt.CVC5_BOUNDED_RLIMIT > 0
    x = z3.Real("x")
    easy = smt.to_smtlib([x * x < 0])
    assert smt.cvc5_check(easy) == "unsat"
    hard = "\n".join(["(set-logic QF_NIA)", "(declare-fun a () Int)", "(declare-fun b () Int)",
                      "(declare-fun c () Int)", "(assert (> a 0))", "(assert (> b 0))",
                      "(assert (> c 0))", "(assert (= (+ (* a a a) (* b b b)) (* c c c)))",
                      "(check-sat)"])
    assert smt.cvc5_check(hard, rlimit=50) == "unknown"


def test_sympy_helper_and_aggregate():
    a, b = sp.symbols("a b", real=True)
    ok = sympy_step("sq", "", (a + b) ** 2, a ** 2 + 2 * a * b + b ** 2)
    bad = sympy_step("sq", "", (a + b) ** 2, a ** 2 + b ** 2, expected=Verdict.REFUTED)
    assert ok.verdict == Verdict.PROVED and bad.verdict == Verdict.REFUTED and bad.ok
    s1 = prove_sym("p", "", a ** 2 >= 0)
    s2 = prove_sym("r", "", a >= 0, expected=Verdict.REFUTED)
    assert aggregate([s1]) == Verdict.PROVED
    assert aggregate([s1, s2]) == Verdict.REFUTED
    s2.role = "remark"
    assert aggregate([s1, s2]) == Verdict.PROVED


def test_cli_list_and_errors(capsys):
    assert cli.main(["prove"]) == 0
    assert "cp-theorem-1" in capsys.readouterr().out
    assert cli.main(["prove", "no-such-theorem"]) == 2
    assert "unknown theorem id" in capsys.readouterr().err


def test_cli_runs_theorem(capsys):
    assert cli.main(["prove", "tr-theorem-2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["verdict"] == "REFUTED" and data[0]["ok"]
    assert cli.main(["prove", "cp-proposition-4", "--latex"]) == 0
    assert "\\wedge" in capsys.readouterr().out


def _file_kind(f) -> str:
    lines = f.read_text().splitlines()
    if f.name.endswith(".vacuity.smt2"):
        return "vacuity"
    if "-control-" in f.name:
        return "control"
    return "finite instance" if len(lines) > 1 and "finite instance" in lines[1] else "claim"


@pytest.mark.parametrize("theorems", [
    # CP Thm 2 alone has every kind of file: claim steps, vacuity checks, negative controls and
    # finite instances (checked below)
    pytest.param(("cp-theorem-2",), id="cp2"),
    # the larger exports (CP Thm 1 ~60 files, CP Thm 5 ~200): deep profile
    pytest.param(("cp-theorem-1", "cp-theorem-2", "cp-theorem-5"), id="cp1-cp2-cp5",
                 marks=pytest.mark.deep)])
def test_smt2_export_rechecked_by_both_solvers(theorems, tmp_path, capsys,
                                               prove_reads_session_proofs):
    """Exported files parse in z3 and cvc5 and both give the recorded answer (claim steps:
    exactly; finite instances / controls: cvc5 may say unknown within its limit).  ``prove``
    exports the session's proof results (the proofs are the ones checked above)."""
    from pathlib import Path

    from dps_verify.paper.kernel.export import slug
    from dps_verify.paper.kernel.smt import CVC5_BOUNDED_RLIMIT, CVC5_RLIMIT, cvc5_check

    out = tmp_path / "smt"
    (tmp_path / "smt").mkdir()
    (out / "mine.txt").write_text("not ours")
    assert cli.main(["prove", *theorems, "--smt2", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (out / "mine.txt").read_text() == "not ours"  # never touched
    # a claim step decided by both solvers, with satisfiable hypotheses, and its one file
    nn, step = next((i, s) for i, s in enumerate(data[0]["steps"], 1)
                    if s["role"] == "claim" and s.get("solvers") == {"z3": "unsat", "cvc5": "unsat"})
    assert step["vacuity"] == {"z3": "sat"}
    stem = out / theorems[0] / f"{nn:02d}-{slug(step['name'])}"
    assert any(Path(f"{stem}{tail}.smt2").is_file() for tail in ("", "-q1"))
    files = sorted(out.rglob("*.smt2"))
    assert {_file_kind(f) for f in files} == {"claim", "vacuity", "control", "finite instance"}
    for f in files:
        text = f.read_text()
        expected = text.splitlines()[0].rsplit("expected ", 1)[1]
        s = z3.Solver()
        s.set("timeout", 10_000)
        s.from_string(text)
        got_z3 = str(s.check())
        got_cvc5 = cvc5_check(text, CVC5_BOUNDED_RLIMIT if "instance" in f.name else CVC5_RLIMIT)
        if expected == "unknown":
            continue
        assert got_z3 == expected, f
        assert got_cvc5 in (expected, "unknown"), f
        if "control" not in f.name and "instance" not in f.name:
            assert got_cvc5 == expected, f


def test_smtlib_printer_quotes_and_unary_sums():
    from dps_verify.paper.kernel.smt import cvc5_check, to_smtlib

    x, y = z3.Real("K'0_1"), z3.Real("y")
    text = to_smtlib([z3.Sum([x]) > 1, z3.Sum([x, y]) < 0, y >= 0])
    assert "|K'0_1|" in text and "(+ |K'0_1|)" not in text
    assert cvc5_check(text) == "unsat"
    s = z3.Solver()
    s.from_string(text)
    assert s.check() == z3.unsat


def test_readme_proof_table_is_generated(results):
    from pathlib import Path

    from dps_verify.paper.kernel.table import FILES, given_block, readme_block

    root = Path(__file__).resolve().parents[1]
    for rel in FILES:
        text = (root / rel).read_text()
        assert readme_block(results[i] for i in IDS) in text, (
            f"{rel}'s proof table is stale: python -m dps_verify.paper.kernel.table --write")
    assert given_block(results[i] for i in IDS) in (root / "docs/proofs.md").read_text()


def test_table_shows_what_is_trusted(results):
    """The 'taken on trust' column lists every given that is not a hypothesis, definition or
    setting (cited / imported lemmas, prose links), and nothing for fully chained theorems."""
    from dps_verify.paper.kernel.core import Fact
    from dps_verify.paper.kernel.table import proof_table, trusted

    rows = {line.split(" | ")[0].strip("| "): line for line in
            proof_table(results[i] for i in IDS).splitlines()[2:]}
    assert "lemma: multiplicative Chernoff bound (cited)" in rows["tr-theorem-6"]
    # a refuted theorem shows the kernel's check of its witness against the statement
    assert "(refuted: witness checked by the kernel, REFUTED)" in rows["cp-theorem-6"]
    assert "conclusion FALSE" in rows["tr-theorem-2"]
    # the sampling law summing to 1 is a lemma (binomial theorem), shown as trusted
    assert "trusted: lemma: sampling law sums to 1 (binomial theorem) |" in rows["cp-theorem-1"]
    assert "trusted: nothing beyond the statement |" in rows["cp-theorem-2"]
    x = sp.Symbol("x", real=True)
    assert trusted([Fact(x > 0, "a hypothesis")]) == "none"
    assert trusted([Fact(x > 0, "why: more", "prose-link")]) == "prose-link: why"
    assert trusted([Fact(x > 0, "w", "lemma", label="L")] * 2) == "lemma: L"


# ------------------------------------------------- the former prose links


def test_cp1_decomposition_is_a_proved_step(results):
    """Z = (1 - b)X + bY and the DPS bounds between X and Y are conclusions of PROVED steps
    (inductions over the samples of D_-t), never given facts; the directions use them."""
    from dps_verify_proofs import cp_theorem_1 as m

    r = results["cp-theorem-1"]
    formulas = [g.formula for g in r.given]
    assert m.DECOMP not in formulas and not any(f in formulas for f in m.DPS_XY)
    assert all(g.kind != "prose-link" for g in r.given)
    dec = next(s for s in r.steps if s.name == "decomposition Z = (1 - b) X + b Y")
    assert dec.verdict == Verdict.PROVED and dec.concludes == m.DECOMP
    assert any("decomposition over samples: every N" in ln["from"] for ln in dec.links)
    for name in ("upper direction", "lower direction (rearranged)", "lower direction (final)"):
        s = next(s for s in r.steps if s.name == name)
        sources = " ".join(ln["from"] for ln in s.links)
        assert "step 8: decomposition Z" in sources and "DPS summed" in sources, name


def test_cp1_wrong_decomposition_rejected(results):
    ctl = {c.name: c for c in results["cp-theorem-1"].negative_controls}
    wrong = ctl["control: decomposition Z = (1 - b) Y + b X, inductive step"]
    assert wrong.verdict == Verdict.REFUTED and wrong.counterexample
    assert ctl["control: upper direction without the decomposition's proof"].verdict == Verdict.ERROR
    assert ctl["control: sampling split with the factors exchanged"].verdict == Verdict.REFUTED


def test_tr6_c_positive_is_chained(results):
    from dps_verify_proofs import tr_theorem_6 as m

    r = results["tr-theorem-6"]
    assert all(g.kind != "prose-link" for g in r.given)
    assert not any(g.formula == (m.c_ > 0) for g in r.given)
    phi = next(s for s in r.steps if s.name.startswith("phi(gamma, beta) > 0"))
    assert phi.verdict == Verdict.PROVED and phi.concludes == m.PHI_POS
    assert "h(1) = 0" in phi.certificate and "log(u)" in phi.certificate
    c = next(s for s in r.steps if s.name == "c > 0")
    assert c.verdict == Verdict.PROVED
    assert any(ln["from"].startswith("step 2: phi") for ln in c.links)


def test_tr6_phi_certificate_rejects_wrong_variants():
    from dps_verify_proofs import tr_theorem_6 as m

    assert m._phi_positive()[0] == Verdict.PROVED
    flipped = sp.Lt(m.PHI_CLAIM.lhs, 0)
    assert m._phi_positive(flipped)[0] == Verdict.REFUTED
    wrong_sign = m._phi_positive(sp.Gt(-m.PHI_CLAIM.lhs, 0), lambda u: -m.h_true(u))
    assert wrong_sign[0] == Verdict.REFUTED and wrong_sign[1]["gamma"] == "1/2"
    # an h that is not phi's (identity fails) is never PROVED, even if h' > 0
    assert m._phi_positive(h=lambda u: u * sp.log(u) - u + 2)[0] != Verdict.PROVED
    region = m._phi_positive(region=(m.b_ > 0, m.g_ >= m.b_))
    assert region[0] == Verdict.REFUTED and region[1]["beta"] == region[1]["gamma"] == "1/2"


def test_export_expected_answers_for_controls():
    """A vacuous (ERROR) control exports unsat twice; a multi-obligation refuted control marks
    only its refuting obligation 'sat'."""
    from dps_verify.paper.kernel.export import expected_answers

    x = sp.Symbol("x", real=True)
    vac = prove_sym("vac", "", x >= 5, [x >= 1, x <= 0], expected=Verdict.ERROR)
    assert expected_answers(vac, vac.queries[0]) == ("unsat", "unsat")
    two = z3_all_control()
    answers = [expected_answers(two, q)[0] for q in two.queries]
    assert sorted(answers) == ["sat", "unsat"]


def z3_all_control():
    from dps_verify.paper.kernel.core import z3_all

    x = z3.Real("x")
    return z3_all("two", "", [(x >= 0, [x >= 1]), (x >= 2, [x >= 1])], expected=Verdict.REFUTED)


# ------------------------------------------------------------------------------ chaining


def test_every_claim_step_is_chained(results):
    """Every SMT claim step states its assumptions, and each is linked to a given formula or
    to an earlier PROVED step (none UNLINKED); CP Thm 5's j = 0 step uses the induction."""
    for r in results.values():
        for s in r.steps:
            if s.role != "claim" or s.solvers is None:
                continue
            assert s.links is not None, (r.theorem_id, s.name)
            assert all(ln["from"] != "UNLINKED" for ln in s.links), (r.theorem_id, s.name)
    j0 = next(s for s in results["cp-theorem-5"].steps if s.name.startswith("j = 0"))
    sources = {ln["from"] for ln in j0.links}
    assert any(src.startswith("step") and "summed Pascal for every K" in src for src in sources)
    assert not any("summed" in src and src.startswith("given") for src in sources)


def test_chain_rejects_unproved_assumption():
    from dps_verify.paper.kernel.core import Fact, chain_control, check_chain

    x, y = sp.symbols("x y", real=True)
    facts = [Fact(x >= 1, "toy hypothesis")]
    lone = prove_sym("uses y >= x", "", y >= 1, [x >= 1, y >= x])
    assert check_chain([lone], facts) and lone.verdict == Verdict.ERROR
    assert "unlinked" in lone.note
    first = prove_sym("y >= x from x >= 1", "", y >= x, [x >= 1], premises=[sp.Eq(y, 2 * x)])
    then = prove_sym("uses it", "", y >= 1, [x >= 1, y >= x])
    # first's conclusion is an implication (premise y = 2x), not y >= x: still unlinked
    assert check_chain([first, then], facts) and then.verdict == Verdict.ERROR
    facts = [*facts, Fact(sp.Eq(y, 2 * x), "toy definition", "definition")]
    good = prove_sym("y >= x", "", y >= x, [x >= 1, sp.Eq(y, 2 * x)])
    use = prove_sym("uses it", "", y >= 1, [x >= 1, y >= x])
    assert not check_chain([good, use], facts) and use.verdict == Verdict.PROVED
    # order matters: a step may only use *earlier* conclusions
    good2 = prove_sym("y >= x", "", y >= x, [x >= 1, sp.Eq(y, 2 * x)])
    use2 = prove_sym("uses it", "", y >= 1, [x >= 1, y >= x])
    assert check_chain([use2, good2], facts) and use2.verdict == Verdict.ERROR
    ctl = chain_control("ctl", "", [prove_sym("lone", "", y >= 1, [x >= 1, y >= x])], facts)
    assert ctl.verdict == Verdict.ERROR and ctl.ok


def test_chain_instances_respect_ranges():
    from dps_verify.paper.kernel.core import instance_of

    F = sp.Function("F")
    K = sp.Symbol("K", integer=True, nonnegative=True)
    k = sp.Symbol("k", integer=True, positive=True)
    fact = F(K - 1) >= 0
    assert instance_of(fact, (K,), F(k - 2) >= 0) == {"K": "k - 1"}
    assert instance_of(fact, (K,), F(k - 3) >= 0) is None  # K = k - 2 may be negative
    assert instance_of(fact, (), F(k - 2) >= 0) is None
    assert instance_of(fact, (K,), F(k - 2) > 0) is None


def test_induction_needs_fitting_parts():
    from dps_verify.paper.kernel.core import induction

    T = sp.Function("T")
    n = sp.Symbol("n", integer=True, nonnegative=True)

    def P(x):
        return T(x) >= 0

    base = prove_sym("base", "", P(0), [T(0) >= 0])
    step = prove_sym("step", "", P(n + 1), [P(n), T(n + 1) >= T(n)], local=[P(n)], over=(n,))
    assert induction("ok", "", P, n, 0, base, step).verdict == Verdict.PROVED
    wrong = prove_sym("step'", "", P(n + 2), [P(n), T(n + 2) >= T(n)], local=[P(n)], over=(n,))
    assert induction("bad", "", P, n, 0, base, wrong).verdict == Verdict.ERROR
    # an inductive step not stated for every n could lean on a fact about one n only
    narrow = prove_sym("step''", "", P(n + 1), [P(n), T(n + 1) >= T(n)], local=[P(n)])
    assert induction("narrow", "", P, n, 0, base, narrow).verdict == Verdict.ERROR


def test_cp6_screen_reproduces_the_search():
    """The float screen that found CP Thm 6's counterexample (paper/cp6_search.py) exceeds d on
    the configuration it was found at, and stays below d when A_m cannot depend on the sample
    (e^eps1 = 1: strongly safe, CP Thm 5).  Evidence only; the verdict is the exact witness."""
    from dps_verify.paper.cp6_search import screen
    from dps_verify.paper.cp6_witness import d_bound

    d = float(d_bound()[0])  # d(5, 1/2, ln 4) = 1/32, exact
    found, table = screen(0.5, 3.0, 4.0, 5, 6, 2)
    assert found > 1.1 * d and all(0 <= v <= 1 for v in table.values())
    constant, _ = screen(0.5, 1.0, 4.0, 5, 6, 2)
    assert constant <= d + 1e-9


def test_remarks_are_never_in_a_trust_base(results):
    """Cross-checks are evidence only: no PROVED theorem's chain rests on a remark (CP Thm 5's
    sup over n is the definition of d, not the bounded exact cross-check)."""
    for tid, r in results.items():
        if r.verdict is Verdict.PROVED:
            assert r.decision.final, tid
            assert all(s.role == "claim" for s in r.decision.steps), tid
    cp5 = results["cp-theorem-5"]
    assert not any("cross-check" in s.name for s in cp5.decision.steps)
    assert any("d(k, beta, eps) = max over n >= n_m" in f.why for f in cp5.decision.facts)


def test_cross_check_remarks_state_the_range_they_ran(monkeypatch):
    from dps_verify_proofs import cp_theorem_5 as c5
    from dps_verify_proofs import tr_theorem_6 as t6

    monkeypatch.setattr(c5, "CROSS_N_MAX", 12)
    monkeypatch.setattr(c5, "CROSS_K_MAX", 2)
    verdict, _, note = c5._cross_check()
    assert verdict is Verdict.BOUNDED and "1 <= n <= 12" in note and "1 <= k <= 2" in note
    monkeypatch.setattr(t6, "GRID_K_MAX", 1)
    monkeypatch.setattr(t6, "GRID_N_EXTRA", 2)
    verdict, _, note = t6._grid()
    assert verdict is Verdict.BOUNDED and "1 <= k <= 1" in note and "n_m..n_m+1" in note


def test_remark_ranges_are_computed_from_the_code(results, monkeypatch):
    """A finite cross-check states the range the code runs, never a fixed text: each remark's
    bound is built from the constants its check uses (changing one changes the text)."""
    from dps_verify_proofs import cp_theorem_2 as cp2
    from dps_verify_proofs import cp_theorem_3 as cp3
    from dps_verify_proofs import cp_theorem_5 as cp5
    from dps_verify_proofs import tr_theorem_6 as tr6

    from dps_verify.paper import cp6_witness

    def bounds(tid):
        return [s.bound for s in results[tid].steps if s.role == "remark" and s.bound]

    m1, m2 = cp2.INSTANCE_SIZES
    assert bounds("cp-theorem-2") == [f"|Range(A1)| = {m1}, |Range(A2)| = {m2}"]
    assert bounds("cp-theorem-3") == [f"|Range| = {cp3.INSTANCE_SIZE}"]
    assert bounds("cp-theorem-5") == [cp5.range_check_range(), cp5.cross_check_range()]
    assert tr6.grid_range() in bounds("tr-theorem-6")
    assert bounds("cp-theorem-6-full-data") == [
        f"the {len(cp6_witness.FAMILY)} members of cp6_witness.FAMILY"]
    monkeypatch.setattr(cp5, "CROSS_N_MAX", 7)
    monkeypatch.setattr(tr6, "GRID_K_MAX", 3)
    assert "1 <= n <= 7" in cp5.cross_check_range() and "1 <= k <= 3" in tr6.grid_range()
