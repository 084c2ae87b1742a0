"""Export every SMT obligation of a proof run as standard SMT-LIB 2 files, so that other solvers can re-check them.

Layout: ``DIR/<proof-id>/chain.txt`` is the chain graph as text (the statement and its
fingerprint, every step with its verdict, method, conclusion, the files of its obligations and,
for each assumption, where it comes from -- a given fact with its kind or an earlier step -- and
the computed trust base); ``DIR/<proof-id>/certificates.txt`` holds every solver-free step's
certificate (sympy rewrite, induction rule, exact computation) with the formula it decided.
``DIR/<proof-id>/<nn>-<step>.smt2`` holds the hypotheses and the negated claim
(expected ``unsat``; an existence step holds hypotheses and claim, expected ``sat``; the first
line says which) and ``DIR/<proof-id>/<nn>-<step>.vacuity.smt2`` the hypotheses alone (expected
``sat``).  Steps with several obligations get ``-q1``, ``-q2``, ... ; negative controls are
numbered after the steps with a ``control`` prefix.  The directory is written through
:func:`dps_verify.core.fsio.write_report_dir`: staged, moved into place atomically, and nothing
dps-verify did not write is ever replaced or deleted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from dps_verify.paper.kernel.core import ProofResult, Step, Verdict, _printed
from dps_verify.paper.kernel.smt import Query, verdict_of

#: second comment line of a finite-instance (CHECKED-BOUNDED) obligation.
BOUNDED_MARK = "finite instance"


def slug(text: str) -> str:
    """File-name form of a step name: lower case, ``[a-z0-9-]`` only, at most 48 characters."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:48].rstrip("-") or "step"


def files_for(result: ProofResult) -> dict[str, str]:
    """``{relative path: text}`` for one theorem: its SMT obligations, the chain graph and the
    certificates."""
    out: dict[str, str] = {}
    items: list[tuple[str, Step]] = [("", s) for s in result.steps]
    items += [("control-", c) for c in result.negative_controls]
    smt_files: dict[int, list[str]] = {}
    for nn, (prefix, step) in enumerate(items, 1):
        name = slug(step.name)
        if name.startswith("control"):
            prefix = ""
        for qi, q in enumerate(step.queries, 1):
            tail = f"-q{qi}" if len(step.queries) > 1 else ""
            base = f"{result.theorem_id}/{nn:02d}-{prefix}{name}{tail}"
            main, vac = expected_answers(step, q)
            head = f"; dps-verify {result.theorem_id}, {step.name!r}: expected "
            bounded = (f"; {BOUNDED_MARK} ({step.bound}): z3 alone must answer, cvc5 may say "
                       "unknown\n") if step.bound else ""
            out[f"{base}.smt2"] = f"{head}{main}\n{bounded}" + q.smtlib()
            out[f"{base}.vacuity.smt2"] = f"{head}{vac}\n" + q.vacuity_smtlib()
            smt_files.setdefault(nn, []).append(base.split("/", 1)[1] + ".smt2")
    out[f"{result.theorem_id}/chain.txt"] = chain_text(result, smt_files)
    out[f"{result.theorem_id}/certificates.txt"] = certificates_text(result)
    return out


def chain_text(result: ProofResult, smt_files: dict[int, list[str]] | None = None) -> str:
    """The chain graph of one theorem as text: which step or given fact each assumption of
    each claim step comes from, the statement and the computed trust base."""
    smt_files = smt_files or {}
    lines = [f"# dps-verify {result.theorem_id}: {result.reference}",
             f"verdict: {result.verdict.value}"]
    st, dec = result.statement, result.decision
    if st is not None:
        lines += ["", "## statement", *st.text().splitlines(), f"fingerprint: {st.fingerprint}"]
    if dec is not None:
        if dec.final:
            pos = {id(s): i for i, s in enumerate(result.steps, 1)}
            lines.append("concluded by: " + "; ".join(
                f"step {pos.get(id(s), '?')} ({s.name})" for s in dec.final))
        if getattr(dec, "consistency", None) is not None:
            lines.append(f"givens model-checked: {dec.consistency.line}")
        lines += [f"problem: {p}" for p in dec.problems]
    lines += ["", "## steps"]
    for i, s in enumerate(result.steps, 1):
        lines.append(f"step {i}: {s.name} [{s.role}] {s.verdict.value} by {s.method or '-'}")
        if s.concludes is not None:
            lines.append(f"  concludes: {_printed(s.concludes)}")
        for f in smt_files.get(i, []):
            lines.append(f"  obligation: {f}")
        for link in s.links or []:
            lines.append(f"  assumes: {link['formula']}")
            lines.append(f"    from: {link['from']}")
        for u in s.uses_steps:
            j = next((k for k, t in enumerate(result.steps, 1) if t is u), None)
            lines.append(f"  uses: step {j} ({u.name})")
    if dec is not None and dec.final:
        tb = dec.trust()
        lines += ["", "## trust base (given facts the final conclusion depends on)"]
        for kind, facts in tb["facts"].items():
            for f in facts:
                extra = "".join(f"; {k}: {f[k]}" for k in ("label", "source", "spot check")
                                if k in f)
                lines.append(f"[{kind}] {f['formula']}{extra}")
    return "\n".join(lines) + "\n"


def certificates_text(result: ProofResult) -> str:
    """Every solver-free certificate of the theorem's steps and controls, as text."""
    lines = [f"# dps-verify {result.theorem_id}: certificates of the steps checked without a "
             "solver (sympy rewrites under the declared symbol assumptions, the induction rule, "
             "exact computations)"]
    for label, items in (("step", result.steps), ("control", result.negative_controls)):
        for i, s in enumerate(items, 1):
            if s.solvers is not None or not (s.certificate or s.method == "sympy"):
                continue
            lines += ["", f"{label} {i}: {s.name} ({s.method}): {s.verdict.value}"]
            if s.expr is not None:
                lines.append(f"  decided: {_printed(s.expr)}")
            if s.concludes is not None:
                lines.append(f"  concludes: {_printed(s.concludes)}")
            lines.append(f"  certificate: {s.certificate or '(none: ' + (s.note or '-') + ')'}")
    return "\n".join(lines) + "\n"


def expected_answers(step: Step, q: Query) -> tuple[str, str]:
    """What a solver should answer on the main and the vacuity file, from the verdict the step
    is recorded to have (a negative control is a wrong claim: its negation is satisfiable).

    An ERROR control is a vacuous step: its hypotheses are unsatisfiable, so both files are
    ``unsat``.  A refuted step with several obligations is refuted by the one(s) with a
    re-checked model; its other obligations may well hold, so their files carry the answer z3
    gave during the run."""
    if step.expected is Verdict.ERROR:
        return "unsat", "unsat"
    holds = step.expected in (Verdict.PROVED, Verdict.BOUNDED, Verdict.OPEN)
    if not holds and len(step.queries) > 1 and verdict_of(q) != "refuted":
        return q.answers.get("z3", "unknown"), "sat"
    if q.kind == "exists":
        return ("sat" if holds else "unsat"), "sat"
    return ("unsat" if holds else "sat"), "sat"


def export_smt2(results: Iterable[ProofResult], outdir: str | os.PathLike) -> list[str]:
    """Write the SMT-LIB files of ``results`` under ``outdir``; returns the relative paths."""
    from dps_verify.core.fsio import write_report_dir

    files: dict[str, str] = {}
    for r in results:
        files.update(files_for(r))

    def build(stage: Path) -> None:
        for rel, text in files.items():
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    write_report_dir(outdir, build, what="SMT-LIB export")
    return sorted(files)
