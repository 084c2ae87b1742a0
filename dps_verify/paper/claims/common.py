"""Helpers shared by the claim modules: proof-backed verdicts and exact binomial sums."""

from __future__ import annotations

from collections.abc import Callable

from dps_verify.paper.claims import proofbridge
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, NMC, REFUTED, Result


def from_proof(theorem_id: str, fallback: Callable[[], Result], extra: Callable[[], Result] | None = None,
               *, corrected_if: Callable[[dict], str | None] | None = None) -> Result:
    """Verdict of a theorem backed by ``proofs.run(theorem_id)``.

    PROVED -> CONFIRMED, REFUTED -> REFUTED (the witness is the counterexample), OPEN or a
    bounded check -> NOT-MACHINE-CHECKABLE unless ``extra`` decides.  ``extra`` (our own exact
    check) runs in addition and must agree; ``corrected_if(res)`` may return a correction text,
    turning CONFIRMED into CONFIRMED-WITH-CORRECTION.  Without the proofs package the
    ``fallback`` exact computation decides alone.
    """
    res = proofbridge.get(theorem_id)
    if res is None:
        r = fallback()
        return Result(r.verdict, r.figure, "proofs package unavailable; " + r.detail, r.data)
    v = proofbridge.VERDICT_MAP.get(res["verdict"], NMC)
    detail = proofbridge.summary(res)
    figure = f"proof {res['verdict']}"
    data = {"proof": {"id": res["id"], "verdict": res["verdict"], "ok": res["ok"]}}
    if v == REFUTED:
        wit = next((s for s in res["steps"] if s["verdict"] == "REFUTED" and s["role"] == "claim"), None)
        if wit is not None:
            detail += f"; witness ({wit['name']}): {wit['counterexample'] or wit['note']}"
    if extra is not None:
        e = extra()
        detail += f"; exact check: {e.figure} — {e.detail}"
        figure += f"; {e.figure}"
        data.update(e.data)
        if v == NMC:
            v = e.verdict
        elif e.verdict != v and not (v == CONFIRMED and e.verdict == CORRECTED):
            return Result(e.verdict if e.verdict == REFUTED else NMC, figure,
                          detail + " (proof and exact check disagree)", data)
        elif e.verdict == CORRECTED:
            v = CORRECTED
    if corrected_if is not None and v == CONFIRMED:
        corr = corrected_if(res)
        if corr:
            v = CORRECTED
            detail = f"correction: {corr}; " + detail
    if not res["ok"]:
        detail += " [note: some proof step or control differs from its recorded verdict]"
    return Result(v, figure, detail, data)


def remark_verdict(theorem_id: str, step_name: str) -> tuple[str, dict | None]:
    """Verdict string of one named step of a proof ('' when unavailable)."""
    res = proofbridge.get(theorem_id)
    if res is None:
        return "", None
    s = proofbridge.step(res, step_name)
    return (s["verdict"] if s else ""), s
