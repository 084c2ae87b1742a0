"""Throughput of the exact property checks of ``properties/``.

For each suite, Hypothesis generates ``N`` cases (derandomized, no shrinking needed since they
pass) and the exact check runs on each; the figure is examples per second of wall-clock time,
generation included.  Suites: CP Thm 5 (strongly-safe k-anonymization vs d), CP Thm 6
(ε₁-safe, recoding chosen on the sample), CP Thm 1 (amplification on random finite mechanisms
over all datasets of ≤ 3 records), and ``assert_dp``'s exhaustive phase (pairs per second).
"""

from __future__ import annotations

import importlib.util
import time
from fractions import Fraction
from pathlib import Path

from hypothesis import HealthCheck, given, settings

PROPS = Path(__file__).resolve().parents[1] / "properties"
N = 200


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", PROPS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _rate(strategy, check, n: int = N) -> dict:
    count = [0]

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(case):
        count[0] += 1
        assert check(case) is None

    t0 = time.perf_counter()
    run()
    dt = time.perf_counter() - t0
    return {"examples": count[0], "seconds": round(dt, 3),
            "examples_per_second": round(count[0] / dt, 1)}


def run() -> dict:
    t5 = _load("test_cp_theorem_5")
    t6 = _load("test_cp_theorem_6")
    t1 = _load("test_cp_theorem_1")
    out = {
        "cp_theorem_5": _rate(t5.theorem5_cases(), t5.theorem5_violation),
        "cp_theorem_6": _rate(t6.theorem6_cases(), lambda c: t6.theorem6_violation(c, "sample")),
        "cp_theorem_1": _rate(t1.theorem1_cases(), t1.theorem1_violation, n=N // 4),
    }
    from dps_verify.mechanisms import StronglySafeKAnonymizer
    from dps_verify.testing import strategies as S
    from dps_verify.testing.checks import find_witness

    dom = [(a,) for a in range(4)]
    pairs = S.all_pairs(dom, 6)
    t0 = time.perf_counter()
    find_witness(StronglySafeKAnonymizer(lambda r: r[0] // 2, 3), pairs, beta=Fraction(1, 4),
                 epsilon=1, delta=1)
    dt = time.perf_counter() - t0
    out["assert_dp_exhaustive"] = {"pairs": len(pairs), "seconds": round(dt, 3),
                                   "pairs_per_second": round(len(pairs) / dt, 1)}
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
