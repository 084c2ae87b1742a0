"""PASS times of ``assert_dp`` with default settings on anonymizers whose PASS used to be slow.

The pipelines (examples/pass_speed/pipelines.py), each claiming δ = the exact worst case of
sampled strongly-safe k-anonymization (k = 5, β = 1/5, ε = 1) over the ages domain:

- ``rr_on_published_decades`` — the strongly-safe table, then randomized response on "is this
  decade published?" (64 outputs per sample); measured at 86 s before the shared law cache
  and the time budget;
- ``noisy_counts_on_table`` — each published count plus uniform noise on {−1, 0, 1};
  110–190 s before;
- ``sample_then_table`` — a pipeline that samples by itself (β = 1/5 inside), audited at β = 1;
  441–916 s before (every sub-sample of every 96-record shape was anonymized, and each call
  enumerates the pipeline's own sampling);
- ``deterministic_table`` — the strongly-safe table written by hand (a deterministic control).

The previous algorithm is not kept callable, so the figures are absolute: wall-clock and CPU
seconds of this process, with the load average at the start (the machine is shared).  The
target is a PASS in under 30 s with defaults.  ``BENCH_PASS_FULL=1`` also runs
``time_budget=None`` (every size asked: exhaustive up to 6 records, shapes up to 96, on the new
shared cache) in the same process, for the ratio the budget buys.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

TARGET_SECONDS = 30.0


def _pipelines():  # type: ignore[no-untyped-def]
    here = Path(__file__).resolve().parents[1] / "examples" / "pass_speed"
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    import pipelines

    return pipelines


def _time(fn):  # type: ignore[no-untyped-def]
    t0, c0 = time.perf_counter(), time.process_time()
    rep = fn()
    return rep, round(time.perf_counter() - t0, 2), round(time.process_time() - c0, 2)


def run() -> dict:
    from dps_verify.testing import assert_dp
    from dps_verify.testing.plugin import load_default_profile

    load_default_profile()  # the project's Hypothesis profile (dps-ci: 40 examples)
    P = _pipelines()
    d = P.claimed_delta()
    cases = [*P.PIPELINES, ("deterministic_table", P.safe_table, P.BETA)]
    out: dict = {"load_average_at_start": [round(x, 2) for x in os.getloadavg()],
                 "target_seconds": TARGET_SECONDS}
    full = os.environ.get("BENCH_PASS_FULL") == "1"
    for name, anon, beta in cases:
        def check(budget: object = "default", anon=anon, beta=beta):  # type: ignore[no-untyped-def]
            kw = {} if budget == "default" else {"time_budget": budget}
            return assert_dp(anon, beta=beta, epsilon=P.EPSILON, delta=d, domain=P.AGES, **kw)

        rep, wall, cpu = _time(check)
        row = {"wall_s": wall, "cpu_s": cpu, "pass_under_target_cpu": cpu < TARGET_SECONDS,
               "exhaustive_size": rep.exhaustive.max_size,
               "shape_records": rep.shapes.max_size if rep.shapes is not None else None,
               "notes": rep.notes}
        if full:
            rep_full, wall_f, cpu_f = _time(lambda: check(None))
            row.update({"full_wall_s": wall_f, "full_cpu_s": cpu_f,
                        "full_shape_records": rep_full.shapes.max_size,
                        "cpu_ratio_full_over_default": round(cpu_f / max(cpu, 1e-9), 2)})
        out[name] = row
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2, default=str))
