"""Audits on the full UCI Adult table (32,561 rows): the product law, the exact "this table"
answer, and statistical trials per second on 1 and 2 Dask workers.

- ``product_law``: ``dps_verify.delta`` of the lazy product laws of the whole table and of the
  table without one row (public API, cancellation theorem) against the baseline in the same
  process: the same group pair measured on its Fraction laws (engine.factorised).
- ``exact_this_table``: the strongly-safe example (examples/real/adult_recoding_release.py) —
  exact δ of every row's removal and every addition (target: < 5 s).
- ``trials_per_second``: confirmation trials of the anonypy Mondrian example (each trial one or
  two pipeline runs on a 10 % sample) on a Dask LocalCluster of 1 and of 2 worker processes,
  same seed, same tasks; the ratio is the speed-up (the same verdict inputs either way).
- ``mondrian_statistical_audit``: the documented Mondrian command's audit (this table) on 2
  workers, time to its verdict (target: FAIL in < 60 s).  Set BENCH_REAL_SKIP_FULL=1 to skip it.

Needs ../shared/data/adult.data (skipped otherwise) and the anonypy package.
"""

from __future__ import annotations

import os
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "data" / "adult.data"
SPEC = ROOT / "examples" / "real" / "adult_recoding.json"
MONDRIAN = str(ROOT / "examples" / "real" / "adult_mondrian_anonypy.py") + ":release"
TRIAL_TASKS = 4  # x 8 trials per task


def _table(qi: list[str]):
    from dps_verify.audit.data import columns_option, load_table

    return load_table(ADULT, qi, columns=columns_option(str(SPEC)))


def _product_law() -> dict:
    import dps_verify
    from dps_verify.audit.loader import load_callable
    from dps_verify.engine.factorised import neighbour_group_laws
    from dps_verify.measures.divergence import delta_certified

    rel, _ = load_callable(str(ROOT / "examples/real/adult_recoding_release.py") + ":release")
    rows = _table(["age", "education", "marital-status", "race", "sex"]).records
    t0 = time.perf_counter()
    P = dps_verify.distribution(rel, rows, Fraction(1, 10))
    Q = dps_verify.distribution(rel, rows[1:], Fraction(1, 10))
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    d = delta_certified(P, Q, 1)
    fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    L, L2 = neighbour_group_laws(rel, rows, rows[1:], Fraction(1, 10))
    base = delta_certified(L, L2, 1)
    slow = time.perf_counter() - t0
    assert base == d
    return {"rows": len(rows), "group_size": P.sizes[rel.group_key(rows[0])],
            "build_two_laws_s": round(build, 3), "delta_product_laws_s": round(fast, 4),
            "baseline_fraction_laws_s": round(slow, 4),
            "speedup": round(slow / max(fast, 1e-9), 1), "delta_upper": str(float(d.upper))}


def _exact_this_table() -> dict:
    from dps_verify.audit.data import audit_data
    from dps_verify.audit.loader import load_callable

    rel, _ = load_callable(str(ROOT / "examples/real/adult_recoding_release.py") + ":release")
    table = _table(["age", "education", "marital-status", "race", "sex"])
    t0 = time.perf_counter()
    rep = audit_data(rel, data=table, beta=0.1, epsilon=1, delta=1e-6, question="this")
    return {"verdict": rep.this_table["verdict"], "rows": len(table.records),
            "seconds": round(time.perf_counter() - t0, 3),
            "worst_delta": rep.this_table["worst_delta"]["upper"],
            "distinct_pairs": rep.this_table["distinct_pairs_measured"]}


def _trials_per_second() -> dict:
    from dps_verify.audit.data import _LOADED, confirmation_task
    from dps_verify.audit.loader import load_callable
    from dps_verify.distributed import DaskBackend, task_seeds

    table = _table(["age", "native-country"])
    _LOADED[MONDRIAN] = load_callable(MONDRIAN)[0]
    t = next(i for i, r in enumerate(table.records) if r[1] == "Holand-Netherlands")
    event = ["has", ["token", "native-country", "Holand-Netherlands"]]
    seeds = task_seeds(2012, TRIAL_TASKS)
    out: dict = {}
    results = {}
    for workers in (1, 2):
        be = DaskBackend(workers)
        try:
            data = be.scatter(table.records)
            items = [({"pipeline": ("file", MONDRIAN), "qi": table.qi, "fmt": "dataframe",
                       "beta": 0.1, "target": t, "event": event, "n": 8, "first_index": 8 * i,
                       "with_every": 4, "seed": seeds[i]}, data) for i in range(TRIAL_TASKS)]
            be.map(confirmation_task, items[:1])  # warm-up: workers import pandas/anonypy
            t0 = time.perf_counter()
            res = be.map(confirmation_task, items)
            secs = time.perf_counter() - t0
        finally:
            be.close()
        trials = sum(r["n_without"] for r in res)
        out[f"workers_{workers}"] = {"trials": trials, "seconds": round(secs, 2),
                                     "trials_per_s": round(trials / secs, 3)}
        results[workers] = res
    assert results[1] == results[2], "same seeds, same tasks: same counts on 1 and 2 workers"
    out["ratio_2_over_1"] = round(out["workers_2"]["trials_per_s"] / out["workers_1"]["trials_per_s"], 2)
    return out


def _mondrian_audit() -> dict:
    from dps_verify.audit.data import _LOADED, audit_data
    from dps_verify.audit.loader import load_callable

    table = _table(["age", "native-country"])
    rel = _LOADED.setdefault(MONDRIAN, load_callable(MONDRIAN)[0])
    t0 = time.perf_counter()
    rep = audit_data(rel, data=table, beta=0.1, epsilon=1, delta=1e-6, question="this",
                     workers=2, pipeline_ref=("file", MONDRIAN))
    q = rep.this_table
    return {"verdict": q["verdict"], "seconds": round(time.perf_counter() - t0, 1),
            "pipeline_runs": q.get("pipeline_runs"), "event": q.get("event"),
            "counts": q.get("counts"), "delta_lower_bound": q.get("delta_lower_bound")}


def run() -> dict:
    if not ADULT.exists():
        return {"skipped": f"{ADULT} not found"}
    out = {"product_law": _product_law(), "exact_this_table": _exact_this_table()}
    try:
        import anonypy  # noqa: F401
    except ImportError:
        out["skipped"] = "anonypy not installed"
        return out
    out["trials_per_second"] = _trials_per_second()
    if not os.environ.get("BENCH_REAL_SKIP_FULL"):
        out["mondrian_statistical_audit"] = _mondrian_audit()
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
