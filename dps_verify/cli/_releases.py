"""``dps-verify delta … --releases T``: δ(ε) of T fresh-sample releases (CP §2.7).

The option lives in :mod:`dps_verify.cli.delta`; the computation in
:mod:`dps_verify.inverse.releases`.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

from dps_verify.core.numbers import format_down


def run_releases(k: int, beta: Fraction, eps: Fraction, times: int, as_json: bool, t0: float) -> int:
    from dps_verify.inverse.releases import format_bound, releases_delta

    r = releases_delta(k, beta, eps, times)
    c = r.delta
    out = {
        "k": k,
        "beta": str(beta),
        "epsilon": str(eps),
        "releases": times,
        "mode": r.mode,
        "value": format_bound(c.upper, 7),
        "upper": format_bound(c.upper, 17),
        "lower": format_down(c.lower, 17),
        "argmax_n": r.argmax_n,
        "lower_end_at_n": r.details.get("best_lower_at", r.argmax_n),
        "worst_case_over": ("all group sizes n >= 1" if r.covers_all_n
                            else f"group sizes n in [{r.scanned[0]}, {r.scanned[1]}] only"),
        "covers_all_n": r.covers_all_n,
        "scanned_group_sizes": list(r.scanned),
        "tail_from": r.tail_from,
        "tail_bound": format_bound(r.tail_bound, 7) if r.tail_bound is not None else None,
        "enclosed_group_sizes": list(r.enclosed),
        "upper_end_from": r.bound_source,
        "target_missed": r.target_missed,
        "certified": c.how,
        "seconds": round(time.perf_counter() - t0, 4),
    }
    if as_json:
        print(json.dumps(out, indent=2))
        return 0
    kind = "exact" if c.lower == c.upper else "enclosed"
    print(f"k = {k}, beta = {beta}, epsilon = {eps}, {times} fresh-sample releases (CP §2.7)")
    print(f"  hockey-stick delta ({kind})   {out['value']}   in [{out['lower']}, {out['upper']}]")
    if r.covers_all_n:
        print(f"  worst case over ALL group sizes n (neighbouring group n vs n-1; other groups cancel):"
              f" attained near n = {out['lower_end_at_n']}; n in [{r.scanned[0]}, {r.scanned[1]}] bounded one by one,"
              f" n >= {r.tail_from} by a monotone tail bound ({out['tail_bound']})")
        if r.bound_source == "tail":
            print("  note: the upper end comes from the tail bound, not an enclosure (no tail start"
                  " below the enclosed values up to n_limit); the enclosure may be wide")
        elif r.bound_source == "bound":
            print(f"  note: the upper end comes from a certified per-size upper bound at n = {r.argmax_n}"
                  " (every size is bounded below the target (1 + rtol)·lower or the work budget was reached)")
    else:
        print(f"  worst case over group sizes n in [{r.scanned[0]}, {r.scanned[1]}] ONLY"
              f" (attained at n = {r.argmax_n}; larger groups not covered)")
    if r.target_missed:
        print(f"  note: {r.target_missed} (the enclosure holds; it is only wider than asked)")
    print("  certified: " + c.how)
    return 0
