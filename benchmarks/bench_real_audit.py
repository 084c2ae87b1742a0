"""Audits on the full UCI Adult table (32,561 rows): the product law, the exact "this table"
answer, and statistical trials per second on 1 and 2 Dask workers.

- ``product_law``: ``dps_verify.delta`` of the lazy product laws of the whole table and of the
  table without one row (public API, cancellation theorem) against the baseline in the same
  process: the same group pair measured on its Fraction laws (engine.factorised).
- ``exact_this_table``: the strongly-safe example (examples/real/adult_recoding_release.py) —
  exact δ of every row's removal and every addition (target: < 5 s).
- ``trials``: confirmation runs of the anonypy Mondrian example (one pipeline run on a 10 %
  sample each): CPU per run in this process, then runs per second on a Dask LocalCluster of 1
  and of 2 worker processes, same seeds, same tasks (ratio = speed-up; the counts must agree);
  BENCH_REAL_SCATTER_BASELINE=1 adds the old shipping of the table (one future per row).
- ``mondrian``: the documented Mondrian command's audit (this table) on 2 workers, wall and CPU
  time to its verdict (target: FAIL in < 60 s wall).

BENCH_REAL_PARTS=trials,mondrian (a comma list of the parts above) runs only those; the default
is all four.  BENCH_REAL_SKIP_FULL=1 drops ``mondrian``.

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
TRIAL_TASKS = 6  # x 4 runs per task


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


def _item(table, t: int, seed, data, kind: str = "without", n: int = 4) -> tuple:
    return ({"pipeline": ("file", MONDRIAN), "qi": table.qi, "fmt": "dataframe", "beta": 0.1,
             "target": t, "event": ["has", ["token", "native-country", "Holand-Netherlands"]],
             "kind": kind, "n": n, "seed": seed}, data)


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (Dask worker processes, once closed)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _trials_per_second() -> dict:
    """Confirmation runs of the anonypy Mondrian example in this process (the per-run cost),
    then on a Dask LocalCluster of 1 and of 2 worker processes (same tasks, same seeds), and the
    old way of shipping the table (one future per row) as the baseline of the per-task
    overhead.  A trial here is one pipeline run on a 10 % sample."""
    from dps_verify.audit.data import _LOADED, confirmation_task
    from dps_verify.audit.loader import load_callable
    from dps_verify.distributed import DaskBackend, task_seeds

    table = _table(["age", "native-country"])
    _LOADED[MONDRIAN] = load_callable(MONDRIAN)[0]
    t = next(i for i, r in enumerate(table.records) if r[1] == "Holand-Netherlands")
    seeds = task_seeds(2012, TRIAL_TASKS + 1)
    out: dict = {}
    # in this process: the pipeline run itself plus sampling, conversion, features, event
    confirmation_task(_item(table, t, seeds[-1], table.records, n=1))  # warm-up (imports)
    c0, t0 = time.process_time(), time.perf_counter()
    confirmation_task(_item(table, t, seeds[-1], table.records, n=4))
    out["in_process"] = {"runs": 4, "cpu_s_per_run": round((time.process_time() - c0) / 4, 3),
                         "wall_s_per_run": round((time.perf_counter() - t0) / 4, 3)}
    results = {}
    for workers in (1, 2):
        be = DaskBackend(workers)
        cpu0 = _children_cpu()
        try:
            data = be.scatter(table.records)
            be.map(confirmation_task, [_item(table, t, seeds[-1], data, n=1)] * workers)  # warm-up
            items = [_item(table, t, seeds[i], data) for i in range(TRIAL_TASKS)]
            t0 = time.perf_counter()
            res = be.map(confirmation_task, items)
            secs = time.perf_counter() - t0
        finally:
            be.close()
        runs = sum(r["n"] for r in res)
        out[f"workers_{workers}"] = {"runs": runs, "seconds": round(secs, 2),
                                     "runs_per_s": round(runs / secs, 3),
                                     "workers_cpu_s_incl_startup": round(_children_cpu() - cpu0, 1)}
        results[workers] = res
    assert results[1] == results[2], "same seeds, same tasks: same counts on 1 and 2 workers"
    out["ratio_2_over_1"] = round(out["workers_2"]["runs_per_s"] / out["workers_1"]["runs_per_s"], 2)
    if os.environ.get("BENCH_REAL_SCATTER_BASELINE"):
        # baseline: the table scattered as a list (one future per row, as before)
        be = DaskBackend(1)
        try:
            per_row = be.client.scatter(table.records, broadcast=True)
            items = [_item(table, t, seeds[i], per_row, n=1) for i in range(2)]
            t0 = time.perf_counter()
            be.map(confirmation_task, items)
            out["baseline_one_future_per_row"] = {"runs": 2, "s_per_run": round((time.perf_counter() - t0) / 2, 2)}
        finally:
            be.close()
    return out


def _mondrian_audit() -> dict:
    """The documented command's audit (this table, 2 workers): wall and CPU time to the verdict."""
    from dps_verify.audit.data import _LOADED, audit_data
    from dps_verify.audit.loader import load_callable

    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    table = _table(["age", "native-country"])
    rel = _LOADED.setdefault(MONDRIAN, load_callable(MONDRIAN)[0])
    rep = audit_data(rel, data=table, beta=0.1, epsilon=1, delta=1e-6, question="this",
                     workers=2, pipeline_ref=("file", MONDRIAN))
    q = rep.this_table
    return {"verdict": q["verdict"], "wall_s": round(time.perf_counter() - t0, 1),
            "cpu_s_this_process": round(time.process_time() - c0, 1),
            "cpu_s_workers": round(_children_cpu() - k0, 1),
            "pipeline_runs": q.get("pipeline_runs"), "event": q.get("event"),
            "counts": q.get("counts"), "looks": q.get("looks"),
            "delta_lower_bound": q.get("delta_lower_bound")}


PARTS = {"product_law": _product_law, "exact_this_table": _exact_this_table,
         "trials": _trials_per_second, "mondrian": _mondrian_audit}


def run() -> dict:
    if not ADULT.exists():
        return {"skipped": f"{ADULT} not found"}
    wanted = [p.strip() for p in os.environ.get("BENCH_REAL_PARTS", ",".join(PARTS)).split(",") if p.strip()]
    if os.environ.get("BENCH_REAL_SKIP_FULL") and "mondrian" in wanted:
        wanted.remove("mondrian")
    out: dict = {}
    for name in wanted:
        if name in ("trials", "mondrian"):
            try:
                import anonypy  # noqa: F401
            except ImportError:
                out[name] = {"skipped": "anonypy not installed"}
                continue
        out[name] = PARTS[name]()
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
