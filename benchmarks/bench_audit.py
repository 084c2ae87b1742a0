"""Timings of the audit zoo and the UCI Adult worked example."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run() -> dict:
    from dps_verify.audit.loader import load_callable
    from dps_verify.audit.zoo import run_entry, run_zoo, zoo_entries

    t0 = time.perf_counter()
    zoo = run_zoo(ROOT / "examples" / "zoo")
    zoo_s = time.perf_counter() - t0
    cpu = {}  # CPU seconds per entry (the machine is shared: wall time varies with its load)
    for path in zoo_entries(ROOT / "examples" / "zoo"):
        c0 = time.process_time()
        run_entry(path)
        cpu[path.stem] = round(time.process_time() - c0, 3)
    run_adult, _ = load_callable(f"{ROOT / 'examples' / 'adult' / 'run_adult.py'}:run")
    with tempfile.TemporaryDirectory() as tmp:
        t1 = time.perf_counter()
        adult = run_adult(tmp, verbose=False)
        adult_s = time.perf_counter() - t1
    return {
        "zoo_seconds": round(zoo_s, 3),
        "zoo_per_entry": {r["name"]: r["seconds"] for r in zoo["entries"]},
        "zoo_cpu_per_entry": cpu,
        "zoo_max_cpu": max(cpu.values()),
        "zoo_detection_rate": zoo["detection_rate"],
        "zoo_false_alarm_rate": zoo["false_alarm_rate"],
        "adult_seconds": round(adult_s, 3),
        "adult_k_paper": adult["k_paper"],
        "adult_k_exact": adult["k_exact"],
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
