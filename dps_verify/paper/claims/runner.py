"""Run a list of claims: start the symbolic proofs in worker processes, run every check in
the main process, time each one and compare its verdict with the expected one."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dps_verify.paper.claims import proofbridge
from dps_verify.paper.claims.base import NMC, Claim, Result


@dataclass(frozen=True)
class Outcome:
    claim: Claim
    result: Result
    seconds: float
    control: Result | None = None

    @property
    def control_ok(self) -> bool:
        """The negative control (if any) returned its recorded verdict."""
        return self.control is None or self.control.verdict == self.claim.control_expected

    @property
    def ok(self) -> bool:
        return self.result.verdict == self.claim.expected and self.control_ok


def _guarded(fn: Callable[[], Result]) -> Result:
    try:
        return fn()
    except Exception as exc:  # a crash is a finding, never a silent pass
        return Result(NMC, f"check crashed: {type(exc).__name__}",
                      f"{exc}\n{traceback.format_exc(limit=3)}")


def run_claims(claims: Sequence[Claim], progress: Callable[[Outcome], None] | None = None,
               parallel_proofs: bool = True) -> list[Outcome]:
    """Check every claim (and its negative control, if it has one); a check that raises is
    reported NOT-MACHINE-CHECKABLE (unexpected)."""
    ids = [p for c in claims for p in c.proofs]
    if parallel_proofs:
        proofbridge.prefetch(ids)
    out = []
    try:
        for c in claims:
            t0 = time.perf_counter()
            res = c.with_reading(_guarded(c.check))
            ctrl = _guarded(c.control) if c.control is not None else None
            if ctrl is not None and ctrl.verdict != c.control_expected:
                res = Result(res.verdict, res.figure,
                             f"{res.detail} [NEGATIVE CONTROL FAILED: a wrong variant got {ctrl.verdict}, "
                             f"expected {c.control_expected}: {ctrl.figure}]", res.data)
            o = Outcome(c, res, time.perf_counter() - t0, ctrl)
            out.append(o)
            if progress is not None:
                progress(o)
    finally:
        proofbridge.shutdown()
    return out


def findings(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per finding — every claim found false (REFUTED) or true only after a correction
    (CONFIRMED-WITH-CORRECTION) — for the summary of ``dps-verify paper``; a reading-dependent
    finding names its reading before the key figure and the other reading on a second line."""
    from dps_verify.paper.claims.base import CORRECTED, REFUTED

    out = []
    for o in outcomes:
        if o.result.verdict in (REFUTED, CORRECTED):
            out.append(f"{o.result.verdict:<26} {o.claim.id}: {o.result.figure}")
            if o.claim.other_reading:  # a reading-dependent verdict: the other reading below it
                out.append(f"{'':<26} other reading: {o.claim.other_reading}")
    return out
