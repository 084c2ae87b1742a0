"""Export every SMT obligation of a proof run as standard SMT-LIB 2 files (issue #12 item 3).

Layout: ``DIR/<proof-id>/<nn>-<step>.smt2`` holds the hypotheses and the negated claim
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

from dps_verify.paper.kernel.core import ProofResult, Step, Verdict
from dps_verify.paper.kernel.smt import Query, verdict_of


def slug(text: str) -> str:
    """File-name form of a step name: lower case, ``[a-z0-9-]`` only, at most 48 characters."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:48].rstrip("-") or "step"


def files_for(result: ProofResult) -> dict[str, str]:
    """``{relative path: SMT-LIB text}`` for one theorem's SMT obligations."""
    out: dict[str, str] = {}
    items: list[tuple[str, Step]] = [("", s) for s in result.steps]
    items += [("control-", c) for c in result.negative_controls]
    for nn, (prefix, step) in enumerate(items, 1):
        name = slug(step.name)
        if name.startswith("control"):
            prefix = ""
        for qi, q in enumerate(step.queries, 1):
            tail = f"-q{qi}" if len(step.queries) > 1 else ""
            base = f"{result.theorem_id}/{nn:02d}-{prefix}{name}{tail}"
            main, vac = expected_answers(step, q)
            head = f"; dps-verify {result.theorem_id}, {step.name!r}: expected "
            out[f"{base}.smt2"] = f"{head}{main}\n" + q.smtlib()
            out[f"{base}.vacuity.smt2"] = f"{head}{vac}\n" + q.vacuity_smtlib()
    return out


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
