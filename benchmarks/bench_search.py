"""The exact search on the 8-value domain (records 0..7, recoding x // 2), β = 1/5,
ε = 1, δ = sdgs_delta(3, β, ε) (the exact worst case of strongly-safe 3-anonymization).

Targets: every FAIL whose smallest witness has ≤ 6 records in < 2 s at max_size = 12; a full
exhaustive PASS for strongly-safe 3-anonymization in < 30 s (also written as a plain function
over the 8 values, up to 12 records); baselines: the previous per-pair search (``find_witness``
over ``all_pairs``, every law recomputed) at a size it can finish, and the per-dataset screen
against the level-by-parents screen, each run in the same process.
"""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction

DOM = list(range(8))
BETA, EPS = Fraction(1, 5), Fraction(1)


def _groups(s, keep):
    c = Counter(x // 2 for x in s)
    return tuple(sorted((g, n) for g, n in c.items() if keep(n, len(s))))


def raw_values(s):
    return tuple(sorted(s))


def total_size_check(s):  # suppression decided on the sample size, not per group
    return _groups(s, lambda n, tot: tot >= 3)


def threshold_two(s):  # off by one: k = 3 but groups of 2 published
    return _groups(s, lambda n, tot: n >= 2)


def raw_when_five(s):  # raw values once the sample holds 5 records
    return tuple(sorted(s)) if len(s) >= 5 else ()


def safe_plain(s):  # strongly-safe 3-anonymization written as a plain function
    return _groups(s, lambda n, tot: n >= 3)


FAULTY = [raw_values, total_size_check, threshold_two, raw_when_five]


def run() -> dict:
    from dps_verify.core.numbers import to_fraction
    from dps_verify.exact import sdgs_delta
    from dps_verify.mechanisms import StronglySafeKAnonymizer
    from dps_verify.testing import find_witness
    from dps_verify.testing import strategies as S
    from dps_verify.verdict import exhaustive_search

    d = to_fraction(sdgs_delta(3, BETA, EPS))  # the mpf, read exactly (rounded up)
    out: dict = {"delta": float(d), "fail": {}}
    for f in FAULTY:
        t0 = time.perf_counter()
        r = exhaustive_search(f, DOM, beta=BETA, epsilon=EPS, delta=d, max_size=12)
        w = r.witness
        out["fail"][f.__name__] = {
            "seconds": round(time.perf_counter() - t0, 3),
            "witness_records": len(w.dataset) + len(w.neighbour) if w else None,
            "D": list(w.dataset) if w else None,
        }
    t0 = time.perf_counter()
    A = StronglySafeKAnonymizer(lambda x: x // 2, 3)
    r = exhaustive_search(A, DOM, beta=BETA, epsilon=EPS, delta=d, max_size=12)
    out["pass_strongly_safe"] = {"seconds": round(time.perf_counter() - t0, 3),
                                 "verdict": "PASS" if r.witness is None else "FAIL",
                                 "coverage": r.coverage()}
    t0 = time.perf_counter()
    c0 = time.process_time()
    r = exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=d, max_size=12)
    from dps_verify.verdict.recognise import recognise_table

    rec = recognise_table(r.table, r.max_size) if r.table is not None else None
    out["pass_plain_function_size12"] = {
        "seconds": round(time.perf_counter() - t0, 3),
        "parent_cpu_seconds": round(time.process_time() - c0, 3),
        "verdict": "PASS" if r.witness is None else "FAIL", "max_size": r.max_size,
        "coverage": r.coverage(), "notes": r.notes,
        "recognised": rec.describe() if rec is not None else None}
    # level-by-parents screen vs the per-dataset screen, same process, serial, CPU seconds
    from dps_verify.verdict import exact_search as es

    cpu = {}
    dense_ok = es.PairChecker.dense_ok
    try:
        for mode in ("per-dataset", "parents"):
            if mode == "per-dataset":
                es.PairChecker.dense_ok = lambda self, size: False  # type: ignore[method-assign]
            else:
                es.PairChecker.dense_ok = dense_ok  # type: ignore[method-assign]
            c0 = time.process_time()
            rr = exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=d, max_size=9,
                                   executor="serial")
            cpu[mode] = (round(time.process_time() - c0, 3), rr.pairs, rr.witness is None)
    finally:
        es.PairChecker.dense_ok = dense_ok  # type: ignore[method-assign]
    out["screen_size9_cpu"] = {"per_dataset": cpu["per-dataset"], "parents": cpu["parents"],
                               "ratio": round(cpu["per-dataset"][0] / cpu["parents"][0], 2)}
    # baseline vs new, same process, same question (every pair up to 5 records, plain function)
    t0 = time.perf_counter()
    old = find_witness(safe_plain, S.all_pairs(DOM, 5), beta=BETA, epsilon=EPS, delta=d)
    t_old = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=d, max_size=5)
    t_new = time.perf_counter() - t0
    assert (old is None) == (new.witness is None)
    out["baseline_pass_size5"] = {"old_seconds": round(t_old, 3), "new_seconds": round(t_new, 3),
                                  "speedup": round(t_old / t_new, 1)}
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2, default=str))
