"""The verdict policy of docs/verdict-policy.md, checked on the registry: every REFUTED entry
carries a witness meeting every hypothesis (premises checked over all datasets), every correction
carries its corrected statement, reading-dependent entries name their reading wherever the
verdict appears, and README's findings list is the registry's."""

from __future__ import annotations

import argparse
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from dps_verify.paper.claims import REGISTRY, Claim, Result
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, REFUTED
from dps_verify.paper.claims.runner import findings, run_claims

ROOT = Path(__file__).resolve().parents[1]
BY_ID = {c.id: c for c in REGISTRY}


# ------------------------------------------------------------------ REFUTED: witnesses
@pytest.fixture(scope="module")
def refuted_outcomes():
    return run_claims([c for c in REGISTRY if c.expected == REFUTED], parallel_proofs=False)


def test_every_refuted_entry_has_a_witness_meeting_every_hypothesis(refuted_outcomes):
    assert len(refuted_outcomes) >= 4
    for o in refuted_outcomes:
        assert o.result.verdict == REFUTED, o.claim.id
        wit = o.result.data.get("witness")
        assert isinstance(wit, dict) and wit.get("hypotheses"), o.claim.id
        for h in wit["hypotheses"]:
            assert h["holds"] is True and h.get("statement"), (o.claim.id, h)


def test_tr_theorem2_premise_is_checked_over_all_datasets(refuted_outcomes):
    o = next(o for o in refuted_outcomes if o.claim.id == "tr.theorem2")
    (prem,) = o.result.data["witness"]["hypotheses"]
    assert prem["holds"] and prem["beyond"] and prem["pairs"] > 50
    assert "XOR" not in o.result.figure and "5 > e^(ε1+ε2) = 4" in o.result.figure


# ------------------------------------------------------------------ premise negative controls
def test_the_xor_pair_premise_is_rejected_globally():
    """The old TR Thm 2 witness: A1 (size parity) looked (1/2, 1, 0)-UDP on one pair of six
    records ± t; over all datasets D = {t} vs ∅ gives δ = 1/2 and the claim's control says so."""
    from dps_verify.paper.claims import witnesses

    prem = witnesses.thm2_premise("xor")
    assert not prem.holds and prem.witness == (("t",), ()) and prem.worst == Fraction(1, 2)
    assert witnesses.thm2_check("xor").verdict == "NOT-MACHINE-CHECKABLE"
    assert witnesses.thm2_premise("rr").holds


def test_a_premise_checked_only_on_one_pair_is_not_established():
    from dps_verify.paper.claims import premises

    def law(ds):
        return {len(ds) % 2: Fraction(1)}
    p = premises.over_all_datasets("parity is 0-DP", law, ("a",), 1, Fraction(3), beyond="")
    assert not p.holds and p.witness is not None  # {a} vs ∅ already differs
    q = premises.over_all_datasets("constant is 0-DP", lambda ds: {0: Fraction(1)}, ("a",), 3,
                                   Fraction(1))
    assert q.witness is None and not q.holds  # no argument beyond the enumeration
    r = premises.over_all_datasets("constant is 0-DP", lambda ds: {0: Fraction(1)}, ("a",), 3,
                                   Fraction(1), beyond="the output never depends on the data")
    assert r.holds


def test_cp6_witness_rejects_an_am_that_is_dp_only_on_the_old_box():
    """The old check of A_m looked at #a <= 9, #b <= 3 only; an A_m equal to the witness's there
    but not ln 3-DP beyond passed it.  The global check rejects it and nothing is refuted."""
    from dps_verify.paper import cp6_witness as w

    box = [(a, b) for a in range(10) for b in range(4)]
    assert all(w.local_choice(("a",) * a + ("b",) * b) == w.choice(("a",) * a + ("b",) * b)
               for a, b in box)
    ok, how = w.am_premise(pick=w.local_choice)
    assert not ok and "(9, 0) vs (10, 0)" in how
    assert not w.check(pick=w.local_choice)["refuted"]
    res = w.check()
    assert res["refuted"] and res["dp"] and "beyond" in res["dp_how"]
    assert res["d"] == Fraction(1, 32) and res["delta"].lower == Fraction(17, 384)


def test_cp6_witness_reads_eps1_from_one_place():
    from dps_verify.paper import cp6_witness as w

    assert w.E_EPS1 == 3 and w.E_EPS == 12
    assert not w.am_premise(base=9)[0]  # a factor-9 A_m is not ln 3-DP


# ------------------------------------------------------------------ corrections
def test_every_correction_carries_its_corrected_statement():
    corr = [c for c in REGISTRY if c.expected == CORRECTED]
    assert len(corr) >= 14
    assert all(len(c.corrected) > 30 for c in corr)
    for i in ("tr.theorem1.strict", "tr.sec6.chernoff-positivity", "cp.theorem5.beta-gt-delta",
              "cp.theorem2.proof-strictness", "cp.fig5.k1", "cp.sec2.2.xor-noncomposition"):
        assert BY_ID[i].expected == CORRECTED, i
    c = BY_ID["tr.theorem1.strict"]
    r = c.with_reading(Result(CORRECTED, "x", "detail"))
    assert r.data["corrected"] == c.corrected and c.corrected in r.detail


def test_a_correction_without_its_statement_is_refused():
    with pytest.raises(ValueError, match="corrected statement"):
        Claim("x", "x", "x", "exact", CORRECTED, lambda: Result(CORRECTED, ""))


def test_refuted_entries_are_few_and_named():
    assert {c.id for c in REGISTRY if c.expected == REFUTED} == {
        "tr.theorem2", "cp.sec2.6.a1-alone-dps", "cp.appA3.steps", "cp.theorem6",
        "cp.sec3.4.exponential-mechanism"}


def test_cp_sec34_exponential_mechanism_decided_both_ways():
    """CP §3.4's construction: refuted under Def 3 with its premise checked globally; within d
    when the choice is made on the unsampled D; a sensitivity-2 quality fails the premise."""
    from dps_verify.paper.claims import witnesses

    r = witnesses.em_check()
    assert r.verdict == REFUTED and "27/656" in r.figure
    assert witnesses.em_check(on_sample=False).verdict == CONFIRMED
    assert witnesses.em_check(scale=2).verdict == "NOT-MACHINE-CHECKABLE"
    assert not witnesses.em_premise(2).holds and witnesses.em_premise().holds


# ------------------------------------------------------------------ readings
def test_cp_theorem6_has_a_decided_entry_per_reading():
    a, b = BY_ID["cp.theorem6"], BY_ID["cp.theorem6.full-data"]
    assert a.expected == REFUTED and b.expected == CONFIRMED
    assert "Def 3" in a.reading and "cp.theorem6.full-data" in a.other_reading
    assert "A.3" in b.reading and "cp.theorem6" in b.other_reading
    assert b.proofs == ("cp-theorem-6-full-data",)


def test_cp_theorem6_full_data_numeric_check_can_fail():
    from dps_verify.paper.claims.cp_section3 import full_data_family

    assert full_data_family().verdict == CONFIRMED
    assert full_data_family(on_sample=True).verdict == REFUTED


def _fake() -> Claim:
    return Claim("test.reading", "nowhere", "a reading-dependent statement", "exact", REFUTED,
                 lambda: Result(REFUTED, "δ = 1/2 > 0", "detail", {"witness": {}}),
                 reading="reading X (the sample)", other_reading="holds under reading Y: test.y")


def test_reading_is_printed_in_the_row_findings_json_and_html(tmp_path, monkeypatch, capsys):
    from dps_verify import report
    from dps_verify.cli import paper as cli_paper

    (o,) = run_claims([_fake()], parallel_proofs=False)
    assert o.result.figure.startswith("reading X (the sample): ")
    lines = findings([o])
    assert "reading X (the sample)" in lines[0][:160] and "holds under reading Y" in lines[1][:160]
    js = json.loads(Path(report.write_json([o], 1.0, tmp_path / "r.json")).read_text())
    (row,) = js["claims"]
    assert row["figure"].startswith("reading X") and row["data"]["reading"]["other"].startswith("holds")
    out = report.write_html([o], 1.0, tmp_path / "h")
    html = Path(out).read_text() if Path(out).is_file() else (Path(out) / "index.html").read_text()
    assert "reading X (the sample)" in html and "holds under reading Y" in html
    import dps_verify.paper.claims as claims_pkg
    monkeypatch.setattr(claims_pkg, "REGISTRY", [_fake()])
    args = argparse.Namespace(only=None, json=None, markdown=None, html=None, list=False)
    cli_paper.run(args)
    printed = capsys.readouterr().out
    row_line = next(ln for ln in printed.splitlines() if ln.startswith("test.reading"))
    assert "reading X (the sample)" in row_line
    assert "other reading: holds under reading Y" in printed


# ------------------------------------------------------------------ README
def test_readme_findings_list_is_the_registry():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### What the checks found (one line each)", 1)[1].split("\n## ", 1)[0]
    listed = {(m.group(1), m.group(2)) for m in
              re.finditer(r"^- \*\*(REFUTED|CORRECTION)\*\* `([^`]+)`", section, re.M)}
    name = {REFUTED: "REFUTED", CORRECTED: "CORRECTION"}
    registry = {(name[c.expected], c.id) for c in REGISTRY if c.expected in name}
    assert listed == registry
    n = {v: sum(c.expected == v for c in REGISTRY) for v in (REFUTED, CORRECTED)}
    assert f"{n[CORRECTED]} CONFIRMED-WITH-CORRECTION, {n[REFUTED]} REFUTED" in text


def test_floored_xor_laws_match_the_engine_and_the_integer_scan():
    """The count-state laws of the floored XOR parts equal the engine's exact laws, and the
    integer scan's worst δ equals the Fraction hockey-stick over the same pairs."""
    from dps_verify.engine.distribution import distribution
    from dps_verify.paper.claims import premises
    from dps_verify.paper.claims import witnesses as w

    f1, f2, _ = w._floored_xor(4)
    for n_o, m in ((3, 1), (5, 0), (2, 2), (6, 1), (0, 5)):
        ds = ("t",) * m + ("a",) * n_o
        for part, f in ((1, f1), (2, f2)):
            assert w._floored_law(n_o, m, part, 4) == dict(distribution(f, ds, Fraction(1, 2)).exact)
    worst = Fraction(0)
    for n in range(1, 9):
        for m in range(n + 1):
            p = w._floored_law(n - m, m, 2, 4)
            for q in ([w._floored_law(n - m - 1, m, 2, 4)] if n > m else []) + (
                    [w._floored_law(n - m, m - 1, 2, 4)] if m else []):
                worst = max(worst, premises.delta_at(p, q, Fraction(2)), premises.delta_at(q, p, Fraction(2)))
    prem = w.floored_xor_premise(2, floor=4, n_max=8)
    assert prem.data["scan_worst"] == str(worst) and worst > 0 and prem.worst >= worst


def test_sec26_and_sec27_premises_hold_globally_and_can_fail():
    """CP §2.6's A2 is ln(10/9)-DP and §2.7's instance is (1/5, ln(607/595), 0)-DPS over all
    datasets; a noisier claim (ln(1/α) below the truth) and a too-small e^ε' are rejected."""
    from dps_verify.paper.claims import premises
    from dps_verify.paper.claims import witnesses as w

    assert w.sec26_a2_premise(Fraction(9, 10)).holds
    assert w.sec27_premise().holds and w.SEC27_E_PRIME == Fraction(607, 595)
    rr = w.presence_rr("t", Fraction(524, 1000))
    from dps_verify.engine.distribution import distribution
    tight = premises.over_all_datasets(
        "claimed one step too small", lambda ds: distribution(rr, ds, Fraction(1, 5)).exact,
        ("t", "a"), 3, w.SEC27_E_PRIME - Fraction(1, 10**6), beyond="(argument)")
    assert not tight.holds and tight.witness == (("t",), ())


def test_floored_xor_tail_argument_holds_where_it_can_be_checked():
    """The written argument for datasets beyond the scan: neighbours (n, n − 1 records) differ in
    total variation by at most 3.5·Pr[Bin(n − 1, 1/2) < floor]; checked exactly for n ≤ 24."""
    from math import comb

    from dps_verify.paper.claims import witnesses as w

    floor = 4
    for n in range(floor + 1, 25):
        a = sum((Fraction(comb(n - 1, j), 2 ** (n - 1)) for j in range(floor)), Fraction(0))
        for m in range(n + 1):
            for part in (1, 2):
                p = w._floored_law(n - m, m, part, floor)
                for q in ([w._floored_law(n - m - 1, m, part, floor)] if n > m else []) + (
                        [w._floored_law(n - m, m - 1, part, floor)] if m else []):
                    tv = sum(abs(p.get(y, 0) - q.get(y, 0)) for y in set(p) | set(q)) / 2
                    assert tv <= Fraction(7, 2) * a, (n, m, part)


def _first_imports_in_a_child(mods: tuple[str, ...]) -> tuple[int, str]:
    """``(exit code, output)`` of a child that imports each of ``mods`` in turn, forgetting the
    theorem modules and dps_verify.paper (the kernel and its registry) before each.  The child
    is a ``fork`` of this process where there is one (sympy, z3 and cvc5 already imported, and
    the modules it forgets are not this process's: a fork has its own copy), else a fresh
    interpreter."""
    import importlib
    import os
    import subprocess
    import sys

    def first_imports(out) -> None:
        for mod in mods:
            for name in [n for n in sys.modules
                         if n.startswith(("dps_verify_proofs", "dps_verify.paper"))]:
                del sys.modules[name]
            importlib.import_module(mod)
            print("first import of", mod, "ok", file=out, flush=True)

    if not hasattr(os, "fork"):
        code = (f"import importlib, sys\nmods = {mods!r}\n"
                + "".join(line + "\n" for line in [
                    "for mod in mods:",
                    "    for name in [n for n in sys.modules",
                    "                 if n.startswith(('dps_verify_proofs', 'dps_verify.paper'))]:",
                    "        del sys.modules[name]",
                    "    importlib.import_module(mod)",
                    "    print('first import of', mod, 'ok', flush=True)"]))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120)
        return r.returncode, r.stdout + r.stderr[-500:]
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report through the pipe, never return into pytest
        code = 1
        try:
            os.close(rfd)
            with os.fdopen(wfd, "w") as out:
                try:
                    first_imports(out)
                    code = 0
                except BaseException as exc:  # noqa: BLE001 - reported to the parent
                    print(f"{type(exc).__name__}: {exc}", file=out, flush=True)
        finally:
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd) as fh:
        text = fh.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), text


def test_the_full_data_proof_module_loads_in_any_order():
    """A first import of cp_theorem_6 loads the kernel registry, which loads the App. A.3 module
    that reads cp_theorem_6's names: that must not fail on a partly initialised module."""
    code, out = _first_imports_in_a_child(("dps_verify_proofs.cp_theorem_6",
                                           "dps_verify_proofs.cp_theorem_6_full_data"))
    assert code == 0, out[-500:]
    assert out.count("first import of") == 2, out


def test_sec26_and_alg5_premise_checks_reject_a_smaller_claim():
    from dps_verify import mechanisms
    from dps_verify.engine.distribution import distribution
    from dps_verify.paper.claims import premises
    from dps_verify.paper.claims import witnesses as w

    assert not w.sec26_a2_premise(Fraction(9, 10), claimed=Fraction(10, 9) - Fraction(1, 100)).holds
    m = mechanisms.DeltaSampling(Fraction(1, 10))
    too_small = premises.over_all_datasets(
        "δ-sampling is (0, 1/20)-DP", lambda d: distribution(m, d, 1).exact, ("t", "a"), 3,
        Fraction(1), Fraction(1, 20), beyond="(argument)")
    assert not too_small.holds and too_small.witness == (("t",), ())


def test_cp_theorem6_full_data_states_thm5_precondition_and_proves_both_directions(
        proof_results):
    """The App. A.3 statement lists CP Thm 5's regime and delta = d(k, beta, eps - eps1) as
    hypotheses, concludes the hockey-stick bound in both directions, and is PROVED; without the
    regime the lemma cannot be applied (negative control)."""
    import importlib

    import sympy as sp

    from dps_verify.paper.kernel.core import Verdict, prove_sym

    m = importlib.import_module("dps_verify_proofs.cp_theorem_6_full_data")
    cp6 = importlib.import_module("dps_verify_proofs.cp_theorem_6")
    st = m.STATEMENT
    assert all(h in st.hypotheses for h in m.REGIME) and m.LINK in st.hypotheses
    assert (cp6.E2 * (1 - m.beta_) >= 1) in st.hypotheses
    S, T, E1, E2, d = cp6.S, cp6.T, cp6.E1, cp6.E2, cp6.d
    assert set(sp.And.make_args(st.conclusion)) == {S <= E1 * E2 * T + d, T <= E1 * E2 * S + d}
    res = proof_results.run("cp-theorem-6-full-data")  # the session's run (tests/conftest.py)
    assert res.verdict == Verdict.PROVED
    g = cp6.g_
    nonneg = [cp6.at(h, g) for h in cp6.TERM_HYPS[:5] + cp6.TERM_HYPS[6:8]]
    without_regime = prove_sym("control", "lemma's precondition not discharged", cp6.termwise(g),
                               [*nonneg, cp6.at(cp6.TERM_HYPS[5], g), m.LINK, m._thm5(False)])
    assert without_regime.verdict != Verdict.PROVED


def test_tr_theorem2_witness_is_stated_with_a_positive_eta_and_can_fail(monkeypatch):
    """Under TR Def 2 read literally (bad mass < delta) no mechanism is (eps, 0)-DP, so the parts
    are stated (1/2, ln 2, eta)-UDP with eta > 0; the pair's bad output (5/16 vs 1/16) refutes
    the composition for eta below 5/32 (TR Def 2) and 1/32 (hockey-stick), and not above."""
    from dps_verify.paper.claims import witnesses

    r = witnesses.thm2_check()
    wit = r.data["witness"]
    eta = Fraction(wit["delta1 = delta2 = eta"])
    assert r.verdict == "REFUTED" and 0 < eta < Fraction(1, 32) and str(eta) in r.figure
    assert Fraction(wit["pair delta (bad mass, TR Def 2)"]) == Fraction(5, 16)
    assert Fraction(wit["pair delta (hockey-stick, CP Def 2)"]) == Fraction(1, 16)
    assert "no mechanism" in r.detail and "5/32" in r.detail
    monkeypatch.setattr(witnesses, "THM2_ETA", Fraction(1, 20))  # 2*eta = 1/10 > 1/16: hockey-stick holds
    assert witnesses.thm2_check().verdict == "CONFIRMED"
