"""Peak memory (resident set size) of the full test run and of each teaching notebook (every
notebook and every test must run in < 500 MB).

Each measurement runs in a fresh wrapper process that starts the command as its only child and
reads ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` after it exits: the largest RSS reached by
any single process of that command's tree that was waited for (pytest itself, a notebook kernel,
a worker of the claim runner).  It is a peak per process, not a sum over processes.  Notebooks
are run from their jupytext sources (``notebooks/NN_*.py``) with IPython, the way a student runs
them cell after cell (in ``notebooks/``), with matplotlib's Agg backend; ``rc`` is the exit code
(non-zero: the notebook failed, and its peak covers only the cells that ran).

Usage (from the repository root)::

    python -m benchmarks memory              # tests and notebooks
    python benchmarks/bench_memory.py --notebooks-only
    python benchmarks/bench_memory.py --tests-only [-- extra pytest arguments]
    python benchmarks/bench_memory.py --rank mem.jsonl   # a memory_profile log, ranked

POSIX only (``resource``).  The full test run takes minutes: run it rarely.  Set
``BENCH_MEMORY_LOG=FILE`` to append the commands' own output to FILE (progress, failures).

To see *where* a run's memory goes, load the per-test profiler ``benchmarks/memory_profile.py``
(``DPS_MEMPROFILE=mem.jsonl python -m pytest -p benchmarks.memory_profile``: RSS and peak after
every test; optional tracemalloc tops, malloc_trim and the project's cache sizes per module).
``tests/conftest.py`` releases memory between test modules (``DPS_TEST_KEEP_MEMORY=1``: off).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_MB = 500

_WRAPPER = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
import os
log = os.environ.get("BENCH_MEMORY_LOG")
sink = open(log, "a") if log else subprocess.DEVNULL
rc = subprocess.call(sys.argv[1:], stdout=sink, stderr=subprocess.STDOUT if log else subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
print(json.dumps({"rc": rc, "peak_mb": round(ru * scale / 2**20, 1),
                  "seconds": round(time.perf_counter() - t, 1)}))
"""


def peak_rss(cmd: list[str], *, cwd: Path = ROOT, timeout: float = 3600) -> dict:
    """Run ``cmd`` in ``cwd`` and return its exit code, peak RSS (MB) and wall time (s)."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=timeout, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def notebooks() -> dict[str, dict]:
    """Peak RSS of each notebook, run from its jupytext source with IPython."""
    res = {}
    for src in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        r = peak_rss([sys.executable, "-m", "IPython", "--no-banner", "--quick", "--colors=NoColor",
                      src.name], cwd=src.parent, timeout=1800)
        r["under_limit"] = r["peak_mb"] < LIMIT_MB
        res[src.stem] = r
    return res


def full_test_run(extra: list[str] | None = None) -> dict:
    """Peak RSS of the default test run (``pytest``: tests/ and properties/)."""
    r = peak_rss([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(extra or [])])
    r["under_limit"] = r["peak_mb"] < LIMIT_MB
    return r


def baseline() -> dict:
    """Peak RSS of the interpreter with dps_verify's heavy dependencies imported (the floor any
    test or notebook starts from)."""
    return peak_rss([sys.executable, "-c", "import dps_verify.cli, dps_verify.exact, numpy, scipy.stats, "
                     "sympy, z3, matplotlib.pyplot"])


def run(tests: bool = True, nbs: bool = True, extra: list[str] | None = None) -> dict:
    base = baseline()
    out: dict = {"limit_mb": LIMIT_MB, "baseline_imports": base}
    if nbs:
        out["notebooks"] = notebooks()
    if tests:
        out["full_test_run"] = full_test_run(extra)
    for r in [*out.get("notebooks", {}).values(), out.get("full_test_run")]:
        if r:
            r["ratio_to_baseline"] = round(r["peak_mb"] / base["peak_mb"], 2)
    return out


def rank(path: str, top: int = 15) -> list[dict]:
    """Test modules of a ``benchmarks/memory_profile.py`` log ranked by the peak they add
    (``peak_added_mb``: how far the run's peak rose during the module) and the memory they leave
    behind (``rss_added_mb``)."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    rows = [r for r in rows if "rss_mb" in r]
    out: dict[str, dict] = {}
    for prev, r in zip(rows, rows[1:]):
        mod = r["nodeid"].split("::", 1)[0]
        m = out.setdefault(mod, {"module": mod, "rss_added_mb": 0.0, "peak_added_mb": 0.0})
        m["rss_added_mb"] = round(m["rss_added_mb"] + r["rss_mb"] - prev["rss_mb"], 1)
        m["peak_added_mb"] = round(m["peak_added_mb"] + r["hwm_mb"] - prev["hwm_mb"], 1)
        m["peak_after_mb"] = r["hwm_mb"]
    return sorted(out.values(), key=lambda m: (-m["peak_added_mb"], -m["rss_added_mb"]))[:top]


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--rank"]:
        print(json.dumps(rank(args[1]), indent=2))
        sys.exit(0)
    extra = args[args.index("--") + 1:] if "--" in args else []
    print(json.dumps(run(tests="--notebooks-only" not in args, nbs="--tests-only" not in args,
                         extra=extra), indent=2))
