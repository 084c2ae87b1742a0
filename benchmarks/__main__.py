"""Run every benchmark module (``benchmarks/bench_*.py``) and print its figures as JSON.

Usage: ``python -m benchmarks [NAME ...]`` from the repository root.  Figures are wall-clock
seconds on this machine; where a baseline exists it is run in the same process and the ratio is
reported, so the figures compare across machines.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import time

import benchmarks


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    results = {}
    for name in names:
        t0 = time.perf_counter()
        mod = importlib.import_module(f"benchmarks.{name}")
        results[name] = mod.run()
        results[name]["_wall_seconds"] = round(time.perf_counter() - t0, 3)
        print(f"{name}: {json.dumps(results[name], indent=2, default=str)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
