"""The proof session of the default test run: every registered theorem proved once in this
process, as the session fixture ``proof_results`` of ``tests/conftest.py`` does.

CPU seconds (``time.process_time``; z3 and cvc5 run in this process), per run and the part spent
inside the two solvers' checks (``smt.z3_check``, ``smt.cvc5_check``: the solving itself, which
no change of the kernel's Python side can shorten).  Baseline in the same process: the kernel
with its per-process memories switched off (printed SMT-LIB terms, pure-real checks, z3 and cvc5
answers, sympy-to-z3 translations: every write dropped), runs alternated; every memory is
emptied before each run, as a session starts cold.  Target: 10 s of CPU per run (not met while
the solvers alone take about that much; the figures say how far).
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import time
from collections.abc import Iterator
from typing import Any

TARGET_S = 10.0


class _Forget(dict):  # type: ignore[type-arg]
    """A memory that keeps nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


_MEMORIES = (("smt", "_PRINTED"), ("smt", "_PURE"), ("smt", "_ANSWERS"),
             ("smt", "_CVC5_ANSWERS"), ("core", "_Z3_OF"))


@contextlib.contextmanager
def _kernel(memories: bool) -> Iterator[dict[str, float]]:
    from dps_verify.paper.kernel import core, smt, statement, theorems

    modules = {"smt": smt, "core": core}
    saved = {(m, n): getattr(modules[m], n) for m, n in _MEMORIES}
    for m, n in _MEMORIES:
        setattr(modules[m], n, {} if memories else _Forget())
    for obj in vars(core).values():  # the chaining check's caches: emptied for both
        if hasattr(obj, "cache_clear"):
            obj.cache_clear()
    statement._SPOT_CACHE.clear()
    for mod in theorems().values():
        st = getattr(mod, "STATEMENT", None)
        if st is not None:
            st.__dict__.pop("_unfolded", None)
            st.__dict__.pop("fingerprint", None)
    solver = {"seconds": 0.0}
    z3_check, cvc5_check = smt.z3_check, smt.cvc5_check

    def timed(fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            t = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                solver["seconds"] += time.process_time() - t
        return call

    smt.z3_check, smt.cvc5_check = timed(z3_check), timed(cvc5_check)
    try:
        yield solver
    finally:
        smt.z3_check, smt.cvc5_check = z3_check, cvc5_check
        for (m, n), value in saved.items():
            setattr(modules[m], n, value)


def _session(memories: bool) -> tuple[float, float, dict[str, str]]:
    from dps_verify.paper import kernel

    gc.collect()
    with _kernel(memories) as solver:
        t = time.process_time()
        verdicts = {tid: kernel.run(tid).verdict.value for tid in kernel.theorems()}
        total = time.process_time() - t
    return total, solver["seconds"], verdicts


def run(rounds: int = 2) -> dict:
    runs: dict[str, list[tuple[float, float]]] = {"memories off": [], "memories on": []}
    verdicts: dict[str, dict[str, str]] = {}
    for _ in range(rounds):
        for label, memories in (("memories off", False), ("memories on", True)):
            total, solver, verdicts[label] = _session(memories)
            runs[label].append((total, solver))
    med = {label: statistics.median(t for t, _ in r) for label, r in runs.items()}
    on = med["memories on"]
    return {
        "cpu_seconds_per_run": {label: [round(t, 2) for t, _ in r] for label, r in runs.items()},
        "solver_cpu_seconds_per_run": {label: [round(s, 2) for _, s in r]
                                       for label, r in runs.items()},
        "median_cpu_seconds": {label: round(v, 2) for label, v in med.items()},
        "ratio_on_over_off": round(on / med["memories off"], 3),
        "same_verdicts": verdicts["memories off"] == verdicts["memories on"],
        "target_cpu_seconds": TARGET_S,
        "target_met": on <= TARGET_S,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
