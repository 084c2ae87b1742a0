"""The proof export re-checkable without dps-verify: chain graph, certificates and SMT-LIB files
re-run by proofs/recheck_smt2.py with the solver binaries; `prove --trust` prints the computed
trust base.

``prove`` reads the session's proof results here (fixture ``prove_reads_session_proofs``,
tests/conftest.py): these tests are about what is printed and exported, the proofs themselves
are checked in tests/test_proofs_all.py.  The re-check script starts a solver process per file
and solver, so the default run gives it one exported file of each kind (claim step, vacuity
check, negative control) and the deep profile every file of the theorem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dps_verify import cli

SCRIPT = Path(__file__).resolve().parents[1] / "proofs" / "recheck_smt2.py"


def test_export_writes_chain_graph_and_certificates(tmp_path, capsys, prove_reads_session_proofs):
    out = tmp_path / "smt"
    assert cli.main(["prove", "tr-theorem-3", "--smt2", str(out)]) == 0
    capsys.readouterr()
    chain = (out / "tr-theorem-3" / "chain.txt").read_text()
    assert "## statement" in chain and "fingerprint: " in chain
    assert "concluded by: step 6 (two-sided bound)" in chain
    assert "    from: given (hypothesis)" in chain and "obligation: 06-two-sided-bound.smt2" in chain
    assert "## trust base" in chain and "[hypothesis] r <= E" in chain
    certs = (out / "tr-theorem-3" / "certificates.txt").read_text()
    assert "Cor 4 equivalent form (eps > 0) (sympy): PROVED" in certs
    assert "control: Cor 4 form at eps >= 0 (pole at eps = 0) (sympy): OPEN" in certs


def _kind(f: Path) -> str:
    if f.name.endswith(".vacuity.smt2"):
        return "vacuity"
    return "control" if "-control-" in f.name else "claim"


@pytest.mark.parametrize("every_file", [
    pytest.param(False, id="one-file-of-each-kind"),
    pytest.param(True, id="every-file", marks=pytest.mark.deep)])
def test_recheck_script_one_line_per_file_and_catches_a_wrong_answer(
        every_file, tmp_path, capsys, prove_reads_session_proofs):
    out = tmp_path / "smt"
    assert cli.main(["prove", "tr-theorem-5", "--smt2", str(out)]) == 0
    capsys.readouterr()
    files = sorted(out.glob("*/*.smt2"))
    assert {_kind(f) for f in files} == {"claim", "vacuity", "control"}
    if not every_file:
        first = {}
        for f in files:
            first.setdefault(_kind(f), f)
        for f in set(files) - set(first.values()):
            f.unlink()
        files = sorted(first.values())
        assert {f.read_text().split("\n", 1)[0].rsplit(" ", 1)[1] for f in files} == {"sat", "unsat"}
    done = subprocess.run([sys.executable, str(SCRIPT), str(out), "--timeout", "10"],
                          capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(lines) == len(files) + 1 and all(ln.startswith("ok\t") for ln in lines[:-1])
    assert "z3 " in lines[0] and "cvc5" in lines[0]
    assert lines[-1] == f"{len(files)}/{len(files)} files answered as expected"
    # negative control: a file whose recorded answer is wrong is reported, exit code 1
    victim = next(f for f in files if not f.name.endswith("vacuity.smt2"))
    text = victim.read_text().splitlines()
    text[0] = text[0].replace("expected unsat", "expected sat")
    victim.write_text("\n".join(text) + "\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(out), "--only", "z3"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and f"CHECK\t{victim.relative_to(out)}" in done.stdout


def test_prove_trust_prints_the_computed_trust_base(capsys, prove_reads_session_proofs):
    assert cli.main(["prove", "tr-theorem-6", "--trust"]) == 0
    out = capsys.readouterr().out
    assert "trust base: 7 steps in the chain" in out
    assert "[lemma]" in out and "multiplicative Chernoff bound (cited)" in out
    assert "taken on trust beyond the statement: " in out
    assert cli.main(["prove", "tr-theorem-6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)[0]
    lemmas = data["trust_base"]["facts"]["lemma"]
    chern = next(f for f in lemmas if f.get("label") == "multiplicative Chernoff bound (cited)")
    assert "Mitzenmacher & Upfal" in chern["source"]
    assert chern["spot check"].startswith("passed: ")
    assert data["statement"]["reviewed"] is True and data["statement_problems"] == []
