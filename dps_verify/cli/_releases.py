"""``dps-verify delta … --releases T``: δ(ε) of T fresh-sample releases (CP §2.7, issue #15.4).

The option lives in :mod:`dps_verify.cli.delta`; the computation in
:mod:`dps_verify.measures.releases`.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

from dps_verify.core.numbers import format_down, format_up


def run_releases(k: int, beta: Fraction, eps: Fraction, times: int, as_json: bool, t0: float) -> int:
    from dps_verify.measures.releases import releases_delta

    r = releases_delta(k, beta, eps, times)
    c = r.delta
    out = {
        "k": k,
        "beta": str(beta),
        "epsilon": str(eps),
        "releases": times,
        "mode": r.mode,
        "value": format_up(c.upper, 7),
        "upper": format_up(c.upper, 17),
        "lower": format_down(c.lower, 17),
        "argmax_n": r.argmax_n,
        "scanned_group_sizes": list(r.scanned),
        "certified": c.how,
        "seconds": round(time.perf_counter() - t0, 4),
    }
    if as_json:
        print(json.dumps(out, indent=2))
        return 0
    kind = "exact" if r.mode == "exact" else "enclosed"
    print(f"k = {k}, beta = {beta}, epsilon = {eps}, {times} fresh-sample releases (CP §2.7)")
    print(f"  hockey-stick delta ({kind})   {out['value']}   in [{out['lower']}, {out['upper']}]")
    print(f"  worst group size n = {r.argmax_n} of scanned n in [{r.scanned[0]}, {r.scanned[1]}]"
          " (neighbouring group n vs n-1; other groups cancel)")
    print("  certified: " + c.how)
    return 0
