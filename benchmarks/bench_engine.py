"""Group factorisation vs the generic count-vector path.

Strongly-safe k-anonymization (k = 5, β = 1/2) with the recoding r ↦ r mod G on N records.
For each (G, N): the factorised product law and the δ at ε = 1 of the neighbouring pair
D ∪ {N} vs D through the differing group (cancellation theorem, engine/factorised.py); the
expanded law through the factorised path when within the budget; the generic path (the
baseline, same process) where it is feasible (Π(c_i + 1) ≤ 4·10⁵ terms), else its term count.
"""

from __future__ import annotations

import time
from fractions import Fraction

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.engine.factorised import (
    DEFAULT_MAX_TERMS,
    count_vector_terms,
    neighbour_group_laws,
    product_law,
)

CASES = [(4, 60), (4, 200), (4, 1000), (16, 20), (16, 60), (16, 1000)]
GENERIC_FEASIBLE = 400_000


def run() -> dict:
    out: dict = {}
    beta = Fraction(1, 2)
    for groups, n in CASES:
        A = M.StronglySafeKAnonymizer(lambda r, g=groups: r % g, 5)
        D = list(range(n))
        row: dict = {}
        t0 = time.perf_counter()
        L, L2 = neighbour_group_laws(A, [*D, n], D, beta)
        d = exact.delta(L, L2, 1)
        row["neighbour_delta_factorised_s"] = round(time.perf_counter() - t0, 4)
        row["delta_eps1"] = float(d)
        P = product_law(A, D, beta)
        row["joint_outputs"] = P.joint_size()
        if P.joint_size() <= DEFAULT_MAX_TERMS:
            t0 = time.perf_counter()
            fast = exact.distribution(A, D, beta)
            row["full_law_factorised_s"] = round(time.perf_counter() - t0, 4)
        terms = count_vector_terms(list(P.sizes.values()))
        row["generic_terms"] = terms
        if terms <= GENERIC_FEASIBLE:
            t0 = time.perf_counter()
            slow = exact.distribution(A, D, beta, factorised=False)
            row["full_law_generic_s"] = round(time.perf_counter() - t0, 4)
            if "full_law_factorised_s" in row:
                row["identical"] = slow.exact == fast.exact
                row["speedup_full_law"] = round(
                    row["full_law_generic_s"] / max(row["full_law_factorised_s"], 1e-6), 1)
            row["speedup_neighbour_delta_vs_generic_law"] = round(
                row["full_law_generic_s"] / max(row["neighbour_delta_factorised_s"], 1e-6), 1)
        else:
            row["full_law_generic_s"] = f"infeasible ({terms:.3g} count vectors)"
        out[f"{groups} groups, N = {n}"] = row
    out["spot_check_overhead"] = spot_check_overhead()
    return out


def spot_check_overhead(reps: int = 3) -> dict:
    """Cost of the multiset spot check (engine.calls.SpotChecks: a few samples of each size are
    anonymized again and reordered): the exhaustive search of a plain function (strongly-safe
    3-anonymization over 8 values, up to 8 records, serial) and the generic law of a plain
    function on 12 distinct records (4096 samples), each with the check and with it switched off
    (the baseline, same process, alternating; best of ``reps``)."""
    from benchmarks.bench_search import BETA, DOM, EPS, safe_plain
    from dps_verify.engine import calls
    from dps_verify.verdict import exhaustive_search

    def search() -> None:
        exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=1, max_size=8, executor="serial")

    def law() -> None:
        exact.distribution(safe_plain, list(range(12)), Fraction(1, 2))

    due = calls.SpotChecks.due
    res: dict = {}
    for name, job in (("exhaustive_search_size8_s", search), ("distribution_12_records_s", law)):
        on, off = [], []
        for _ in range(reps):
            for timings, switch in ((off, lambda self, sample: False), (on, due)):
                calls.SpotChecks.due = switch  # type: ignore[method-assign]
                try:
                    t0 = time.perf_counter()
                    job()
                    timings.append(time.perf_counter() - t0)
                finally:
                    calls.SpotChecks.due = due  # type: ignore[method-assign]
        res[name] = {"checked": round(min(on), 4), "unchecked": round(min(off), 4),
                     "ratio": round(min(on) / min(off), 3)}
    return res


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
