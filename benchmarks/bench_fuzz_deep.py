"""Deep run of the differential fuzz suites: properties/test_reference.py and
properties/test_reference_bounds.py under the Hypothesis ``deep`` profile (random, not
derandomized), with ``DPS_FUZZ_EXAMPLES`` examples per property (default 200; the ``ci`` slice
uses 3–60).  Prints how many cases ran (Hypothesis' passing examples plus the explicit cases)
and the wall time.  Usage: ``python -m benchmarks fuzz_deep`` or
``DPS_FUZZ_EXAMPLES=1000 python benchmarks/bench_fuzz_deep.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

SUITES = ["properties/test_reference.py", "properties/test_reference_bounds.py"]


def run(examples: int | None = None) -> dict:
    n = examples or int(os.environ.get("DPS_FUZZ_EXAMPLES", "200"))
    env = dict(os.environ, HYPOTHESIS_PROFILE="deep", DPS_FUZZ_EXAMPLES=str(n))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--hypothesis-show-statistics", *SUITES],
        capture_output=True, text=True, env=env,
    )
    seconds = time.perf_counter() - t0
    out = proc.stdout
    generated = sum(int(m) for m in re.findall(r"(\d+) passing", out))
    summary = re.findall(r"(\d+) (passed|failed|xfailed|xpassed|error)", out.splitlines()[-1] if out else "")
    counts = {kind: int(num) for num, kind in summary}
    if os.environ.get("DPS_FUZZ_LOG"):
        with open(os.environ["DPS_FUZZ_LOG"], "w", encoding="utf-8") as fh:
            fh.write(out + proc.stderr)
    failures = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return {
        "examples_per_property": n,
        "hypothesis_cases": generated,
        "tests": counts,
        "failures": failures,
        "seconds": round(seconds, 1),
        "exit_code": proc.returncode,
    }


if __name__ == "__main__":
    res = run()
    print(res)
    sys.exit(0 if res["exit_code"] == 0 else 1)
