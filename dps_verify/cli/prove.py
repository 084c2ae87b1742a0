"""``dps-verify prove``: run the symbolic proofs of ``proofs/``.

``dps-verify prove`` lists the theorems; ``dps-verify prove ID [ID ...]`` (or ``all``) prints
each step with its verdict, method and solver time.  Exit code 0 iff every selected theorem
(and each of its steps and negative controls) has the verdict recorded as expected.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import sympy as sp

from dps_verify.cli import COMMANDS

NAME = "prove"
HELP = COMMANDS[NAME]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("theorems", nargs="*", metavar="ID",
                        help="theorem id(s) such as cp-theorem-1, or 'all'")
    parser.add_argument("--latex", action="store_true", help="print expressions as LaTeX")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--smt2", metavar="DIR",
                        help="also write every SMT query as SMT-LIB 2 under DIR/<proof-id>/ "
                             "(<nn>-<step>.smt2: negated claim, expected unsat; "
                             "<nn>-<step>.vacuity.smt2: hypotheses, expected sat), the chain "
                             "graph (chain.txt: where each assumption comes from) and the "
                             "solver-free certificates (certificates.txt)")
    parser.add_argument("--no-controls", action="store_true",
                        help="do not print the negative controls (they still run)")
    parser.add_argument("--trust", action="store_true",
                        help="print only each theorem's statement and its computed trust base: "
                             "every given fact (hypothesis, definition, lemma, ...) the final "
                             "conclusion depends on through the chain, with its kind")


def _expr_text(expr: Any, latex: bool) -> str:
    if expr is None:
        return ""
    if latex:
        return sp.latex(expr)
    return sp.pretty(expr, use_unicode=True, wrap_line=False)


def run(args: argparse.Namespace) -> int:
    from dps_verify.core.errors import UsageError
    from dps_verify.paper.kernel import THEOREMS, run

    ids: list[str] = list(args.theorems)
    if not ids:
        if args.json:
            print(json.dumps([{"id": k, "reference": m.REFERENCE, "claim": m.CLAIM,
                               "expected": m.EXPECTED.value} for k, m in THEOREMS.items()],
                             indent=2))
        else:
            _print_list(THEOREMS)
        return 0
    if ids == ["all"]:
        ids = list(THEOREMS)
    unknown = [i for i in ids if i not in THEOREMS]
    if unknown:
        raise UsageError(f"unknown theorem id {unknown[0]!r}; choose from {', '.join(THEOREMS)}")
    results = [run(i) for i in ids]
    if args.smt2:
        from dps_verify.paper.kernel.export import export_smt2

        written = export_smt2(results, args.smt2)
        n_smt = sum(1 for w in written if w.endswith(".smt2"))
        print(f"wrote {n_smt} SMT-LIB 2 files, the chain graphs (chain.txt) and the "
              f"certificates (certificates.txt) under {args.smt2}; re-check them without "
              "dps-verify: python proofs/recheck_smt2.py " + args.smt2, file=sys.stderr)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    elif args.trust:
        for r in results:
            _print_trust(r)
    else:
        for r in results:
            _print_result(r, latex=args.latex, controls=not args.no_controls)
        total = sum(r.seconds for r in results)
        bad = [r.theorem_id for r in results if not r.ok]
        print(f"{len(results)} theorem(s), {total:.2f} s; "
              + ("all verdicts as expected" if not bad else f"UNEXPECTED: {', '.join(bad)}"))
    return 0 if all(r.ok for r in results) else 1


def _print_list(theorems: dict[str, Any]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover
        for k, m in theorems.items():
            print(f"{k:18} {m.EXPECTED.value:16} {m.REFERENCE}  {m.CLAIM}")
        return
    table = Table(title="dps-verify prove: theorems")
    for col in ("id", "expected", "reference", "claim"):
        table.add_column(col, overflow="fold")
    for k, m in theorems.items():
        table.add_row(k, m.EXPECTED.value, m.REFERENCE, m.CLAIM)
    Console().print(table)


def _print_statement(r: Any) -> None:
    st, dec = r.statement, r.decision
    if st is None:
        print("   statement: NONE DECLARED")
        return
    mark = "reviewed" if dec is not None and dec.reviewed else "NOT REVIEWED"
    print(f"   statement ({st.reference}; fingerprint {st.fingerprint}, {mark}): {st.paraphrase}")
    if st.reading:
        print(f"      reading: {st.reading}")
    print(f"      for: {', '.join(f'{n} {d}' for n, d in st.variables())}")
    print(f"      hypotheses: {'; '.join(sp.sstr(h) for h in st.hypotheses) or 'none'}")
    if st.definitions:
        print(f"      definitions: {len(st.definitions)} formulas (see --json)")
    if st.lemmas:
        print(f"      lemmas: {'; '.join(sp.sstr(h) for h in st.lemmas)}")
    print(f"      conclusion: {sp.sstr(st.conclusion)}")
    if dec is not None:
        if dec.final:
            names = ", ".join(f"'{s.name}'" for s in dec.final)
            print(f"      concluded by: {names}")
        ref = getattr(dec, "refutation", None)
        if ref is not None:
            print(f"      witness (checked by the kernel against the statement): "
                  f"{ref.verdict.value}")
            for name, val in ref.values.items():
                print(f"         {name} = {val}")
            for c in ref.checks:
                print(f"         [{c['kind']}] {c['formula']}: {c['at the witness']}")
        cons = getattr(dec, "consistency", None)
        if cons is not None:
            print(f"      consistency of the givens (kernel): {cons.line}")
        for p in dec.problems:
            print(f"      ERROR: {p}")


def _print_trust(r: Any) -> None:
    """The statement and the computed trust base of one theorem (``prove ID --trust``)."""
    print(f"== {r.theorem_id}: {r.reference}: {r.verdict.value}")
    _print_statement(r)
    dec = r.decision
    if dec is None or not dec.final:
        print("   trust base: none computed (no chain proves the statement)")
        print()
        return
    tb = dec.trust()
    methods = ", ".join(f"{n} by {m}" for m, n in tb["methods"].items())
    print(f"   trust base: {tb['steps']} steps in the chain ({methods}); the given facts:")
    for kind, facts in tb["facts"].items():
        print(f"   [{kind}] {len(facts)}")
        for f in facts:
            label = f" ({f['label']})" if "label" in f else ""
            print(f"      {f['formula']}{label}")
    print(f"   givens model-checked: {tb['consistency']}")
    print(f"   taken on trust beyond the statement: {'; '.join(tb['trusted']) or 'nothing'}")
    print()


def _print_result(r: Any, *, latex: bool, controls: bool) -> None:
    mark = "ok" if r.ok else "UNEXPECTED"
    print(f"== {r.theorem_id}: {r.reference}")
    print(f"   claim: {r.claim}")
    print(f"   verdict: {r.verdict.value} (expected {r.expected.value}) [{mark}] "
          f"in {r.seconds:.2f} s")
    if r.summary:
        print(f"   {r.summary}")
    _print_statement(r)
    if r.given:
        print(f"   given ({len(r.given)} formulas; every claim step may assume only these and "
              "conclusions of earlier PROVED steps):")
        by_why: dict[tuple[str, str], list[str]] = {}
        for g in r.given:
            by_why.setdefault((g.kind, g.why), []).append(sp.sstr(g.formula))
        for (kind, why), formulas in by_why.items():
            print(f"      [{kind}] {why}: {'; '.join(formulas)}")
    groups = [("step", r.steps)] + ([("negative control", r.negative_controls)] if controls else [])
    for label, items in groups:
        for i, s in enumerate(items, 1):
            ok = "ok" if s.ok else "UNEXPECTED"
            role = " (remark)" if s.role == "remark" else ""
            print(f"-- {label} {i}: {s.name}{role}")
            print(f"   {s.statement}")
            text = _expr_text(s.expr, latex)
            if text:
                print("\n".join("      " + line for line in text.splitlines()))
            print(f"   method: {s.method}; verdict: {s.verdict.value} "
                  f"(expected {s.expected.value}) [{ok}]; {s.seconds * 1000:.1f} ms")
            if s.solvers is not None:
                print(f"   solvers: z3 {s.solvers['z3']}, cvc5 {s.solvers['cvc5']}; "
                      f"hypotheses: z3 {s.vacuity['z3'] if s.vacuity else '-'}")
            if s.certificate and s.solvers is None:
                print(f"   certificate: {s.certificate}")
            if s.links:
                steps_used = sorted({ln["from"] for ln in s.links if ln["from"].startswith("step")})
                n_given = sum(1 for ln in s.links if ln["from"].startswith("given"))
                other = [ln["from"] for ln in s.links
                         if not ln["from"].startswith(("step", "given"))]
                parts = steps_used + ([f"{n_given} given"] if n_given else []) + other
                print(f"   chained from: {'; '.join(parts)}")
            if s.counterexample:
                cex = ", ".join(f"{k}={v}" for k, v in s.counterexample.items())
                print(f"   counterexample: {cex}")
            if s.note:
                print(f"   note: {s.note}")
    print()
