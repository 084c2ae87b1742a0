"""Re-check an SMT-LIB 2 export of ``dps-verify prove all --smt2 DIR`` with the solver binaries.

Usage::

    python proofs/recheck_smt2.py DIR [--timeout SECONDS]

Every ``DIR/<proof-id>/*.smt2`` file states its expected answer on its first line (``; ...
expected unsat``).  Each file is given to the z3 binary and to cvc5, one line per file::

    ok      cp-theorem-2/05-assembled-cp-def-2-for-a2-a1.smt2  expected unsat  z3 unsat  cvc5 unsat

and the last line counts the files whose answers are not the expected ones (exit code 1 if any).
The script imports nothing from dps_verify: it reads the exported text only.

A finite-instance obligation (a CHECKED-BOUNDED cross-check, marked on its second line) needs
z3's expected answer only; cvc5 may answer ``unknown`` there, as in ``dps-verify prove``.

Solvers: the ``z3-solver`` wheel installs a ``z3`` binary next to the Python interpreter (also
looked up on PATH).  The ``cvc5`` wheel ships no binary: a ``cvc5`` binary on PATH (a release
from https://github.com/cvc5/cvc5/releases) is used when present, otherwise cvc5's own SMT-LIB
parser through its Python API (no dps_verify code) runs the file in a child process; the line
says which (``cvc5`` or ``cvc5-api``).  ``--only z3`` or ``--only cvc5`` runs one solver.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: cvc5 through its own Python parser, in a child process (the wheel has no binary).
_CVC5_API = """
import sys, cvc5
s = cvc5.Solver(); s.setOption("tlimit-per", sys.argv[2]); sm = cvc5.SymbolManager(s)
p = cvc5.InputParser(s, sm); p.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[1])
out = []
while True:
    c = p.nextCommand()
    if c.isNull():
        break
    r = c.invoke(s, sm).strip()
    if r:
        out.append(r)
print(out[-1] if out else "unknown")
"""


def expected(path: Path) -> tuple[str, bool]:
    """The expected answer (first line) and whether the file is a finite instance checked by
    z3 alone (second line; cvc5 may answer unknown there, as in ``dps-verify prove``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    first = lines[0] if lines else ""
    want = first.rsplit("expected ", 1)[-1].strip() if "expected " in first else "?"
    return want, len(lines) > 1 and lines[1].startswith("; finite instance")


def z3_binary() -> str | None:
    here = Path(sys.executable).parent / "z3"
    return str(here) if here.exists() else shutil.which("z3")


def run(cmd: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 5)
    except subprocess.TimeoutExpired:
        return "timeout"
    lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
    answer = lines[-1] if lines else (done.stderr.strip().splitlines() or ["error"])[-1]
    if answer.startswith("unknown"):  # cvc5: "unknown (INCOMPLETE)"
        return "unknown"
    return answer if answer in ("sat", "unsat") else f"error({answer[:40]})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Re-check a dps-verify SMT-LIB 2 export with the "
                                 "z3 and cvc5 solvers, one line per file.")
    ap.add_argument("directory")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per file and solver")
    ap.add_argument("--only", choices=("z3", "cvc5"), help="run one solver only")
    args = ap.parse_args(argv)
    root = Path(args.directory)
    files = sorted(root.glob("*/*.smt2"))
    if not files:
        print(f"no .smt2 files under {root}", file=sys.stderr)
        return 2
    z3 = z3_binary()
    cvc5 = shutil.which("cvc5")
    if args.only != "cvc5" and z3 is None:
        print("no z3 binary (pip install z3-solver)", file=sys.stderr)
        return 2
    ms = str(int(args.timeout * 1000))
    bad = 0
    for f in files:
        want, finite = expected(f)
        got = {}
        if args.only != "cvc5":
            got["z3"] = run([str(z3), f"-T:{int(args.timeout)}", str(f)], args.timeout)
        if args.only != "z3":
            if cvc5:
                got["cvc5"] = run([cvc5, f"--tlimit-per={ms}", str(f)], args.timeout)
            else:
                got["cvc5-api"] = run([sys.executable, "-c", _CVC5_API, str(f), ms],
                                      args.timeout)
        ok = all(v == want or (finite and k != "z3" and v == "unknown")
                 for k, v in got.items())
        bad += not ok
        answers = "  ".join(f"{k} {v}" for k, v in got.items())
        print(f"{'ok' if ok else 'CHECK'}\t{f.relative_to(root)}\texpected {want}\t{answers}",
              flush=True)
    print(f"{len(files) - bad}/{len(files)} files answered as expected"
          + (f"; {bad} to check" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
