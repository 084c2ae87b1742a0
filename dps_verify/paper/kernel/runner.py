"""Running one theorem module: the chain check, the aggregate verdict, then the statement gate
and the consistency check of the givens (:mod:`.consistency`).

:func:`run_module` is the one place a theorem's verdict is decided: the steps' chain is checked
(:func:`~dps_verify.paper.kernel.core.check_chain`), the verdicts aggregated, and a PROVED
aggregate kept only when the theorem's formal statement is what the chain concludes, from its
hypotheses, with a reviewed fingerprint (:func:`~dps_verify.paper.kernel.statement.decide`).
It lives beside the kernel rather than in it so the kernel does not depend on the statement
machinery that is built on it.
"""

from __future__ import annotations

import time
from typing import Any

from dps_verify.paper.kernel import consistency, reviewed, statement
from dps_verify.paper.kernel.core import ProofResult, Verdict, aggregate, check_chain


def run_module(theorem_id: str, module: Any) -> ProofResult:
    """Run one theorem module (``CLAIM``, ``REFERENCE``, ``EXPECTED``, ``steps()``,
    ``negative_controls()``) and aggregate."""
    t0 = time.perf_counter()
    facts = list(getattr(module, "GIVEN", ()))
    steps = list(module.steps())
    check_chain(steps, facts)
    controls = list(module.negative_controls())
    verdict = aggregate(steps)
    stmt = getattr(module, "STATEMENT", None)
    dec = statement.decide(stmt, steps, reviewed.FINGERPRINTS.get(theorem_id),
                           prove=verdict is Verdict.PROVED)
    # the givens must have a model: contradictory definitions would prove anything
    dec.consistency = consistency.check(facts, getattr(module, "MODELS", ()))
    dec.problems += dec.consistency.problems
    if verdict is Verdict.REFUTED and stmt is not None:  # REFUTED only by a checked witness
        witness = getattr(module, "WITNESS", None)
        if witness is None:
            dec.problems.append("a REFUTED verdict needs a WITNESS of the statement, checked "
                                "by the kernel against its hypotheses")
        else:
            dec.refutation = statement.refute(stmt, witness)
            dec.problems += dec.refutation.problems
    if dec.problems:  # PROVED only for the statement itself, reviewed (see .statement)
        verdict = Verdict.ERROR
    return ProofResult(
        theorem_id=theorem_id,
        claim=module.CLAIM,
        reference=module.REFERENCE,
        expected=module.EXPECTED,
        verdict=verdict,
        steps=steps,
        negative_controls=controls,
        seconds=time.perf_counter() - t0,
        summary=getattr(module, "SUMMARY", ""),
        given=facts,
        statement=stmt,
        decision=dec,
    )
