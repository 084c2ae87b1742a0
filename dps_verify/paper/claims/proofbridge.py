"""Bridge to the symbolic ``proofs`` package, run in worker processes.

``proofs.run(id)`` can take many seconds (z3), so :func:`prefetch` starts the needed ids in a
small process pool before the exact computations run in the main process; :func:`get` then
waits for the result.  Results cross the process boundary as ``ProofResult.to_dict()``.
If the package, or one theorem module, is missing, :func:`get` returns ``None`` and the claim
falls back to its own exact computation.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

_futures: dict[str, Future] = {}
_cache: dict[str, dict[str, Any] | None] = {}
_pool: ProcessPoolExecutor | None = None

#: ProofResult verdict -> registry verdict (a bounded check or an open proof is not a proof).
VERDICT_MAP = {"PROVED": "CONFIRMED", "REFUTED": "REFUTED"}


#: Set ``DPS_VERIFY_CLAIMS_NO_PROOFS=1`` to skip the symbolic proofs: every claim then rests on
#: its own exact computation (used by the claim mutation test, which exercises exactly that).
NO_PROOFS_ENV = "DPS_VERIFY_CLAIMS_NO_PROOFS"


def _disabled() -> bool:
    import os

    return os.environ.get(NO_PROOFS_ENV, "") not in ("", "0")


def _run_one(theorem_id: str) -> dict[str, Any] | None:
    if _disabled():
        return None
    try:
        from dps_verify.paper import kernel as proofs
    except ImportError:
        return None
    try:
        return proofs.run(theorem_id).to_dict()
    except KeyError:
        return None


def available(theorem_id: str) -> bool:
    """True if ``proofs`` is importable and registers ``theorem_id``."""
    if _disabled():
        return False
    try:
        from dps_verify.paper import kernel as proofs
    except ImportError:
        return False
    return theorem_id in proofs.THEOREMS


def prefetch(ids: list[str], workers: int = 2) -> None:
    """Start the given proofs in a process pool (slowest-first order is the caller's job)."""
    global _pool
    todo = [i for i in dict.fromkeys(ids) if i not in _cache and i not in _futures and available(i)]
    if not todo:
        return
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=workers,
                                    mp_context=multiprocessing.get_context("spawn"))
    for i in todo:
        _futures[i] = _pool.submit(_run_one, i)


def get(theorem_id: str) -> dict[str, Any] | None:
    """The ``to_dict()`` of ``proofs.run(theorem_id)``, or None if unavailable."""
    if theorem_id in _cache:
        return _cache[theorem_id]
    fut = _futures.pop(theorem_id, None)
    res = fut.result() if fut is not None else _run_one(theorem_id)
    _cache[theorem_id] = res
    return res


def shutdown() -> None:
    """Stop the worker pool (idempotent)."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
        _pool = None
    _futures.clear()


def step(res: dict[str, Any], name_part: str) -> dict[str, Any] | None:
    """The first step (or negative control) whose name contains ``name_part``."""
    for s in [*res.get("steps", []), *res.get("negative_controls", [])]:
        if name_part.lower() in s["name"].lower():
            return s
    return None


def summary(res: dict[str, Any]) -> str:
    """One line: theorem verdict, step counts, time."""
    steps = res.get("steps", [])
    proved = sum(s["verdict"] == "PROVED" for s in steps)
    ctrl = res.get("negative_controls", [])
    rej = sum(c["ok"] for c in ctrl)
    return (f"proofs.{res['id']}: {res['verdict']} ({proved}/{len(steps)} steps PROVED, "
            f"{rej}/{len(ctrl)} negative controls rejected as recorded, {res['seconds']:.1f} s)")
