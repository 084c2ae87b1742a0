"""pytest start-up with the dps_verify plugin against start-up without it.

pytest loads the ``pytest11`` entry point ``dps_verify.testing.plugin`` in every session of any
environment where dps_verify is installed.  Two measurements, each in fresh interpreters,
interleaved, in CPU time (user + system) as well as wall time:

1. ``plugin_load``: what the plugin adds to a session — in a fresh interpreter that has imported
   pytest, the time pytest's own loading step takes for this entry point
   (``importlib.metadata`` entry point ``.load()``), ``LOAD_REPEATS`` times.  The reference arm
   ``heavy_reference_load`` imports what the plugin used to pull in (``dps_verify.testing.checks``
   and ``strategies``: Hypothesis, numpy, mpmath, the exact engine).
2. ``session``: a whole one-test pytest session with the plugin (default) and without it
   (``-p no:dps_verify``), ``SESSION_REPEATS`` pairs; the median of the paired differences.

CPU time rather than wall time because the machines this runs on are shared (two cores, many
processes): wall time there varies by seconds between runs.  A whole session costs ~0.3 s of
CPU on an idle machine and several times that under load, with run-to-run noise of tens of
milliseconds, so the session difference is reported for completeness; the figure that decides
"free" (``within_tolerance``: at most ``TOLERANCE_MS``) is the plugin's own load time, the only
work the plugin adds to a session in which it is not used.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOAD_REPEATS = 30
SESSION_REPEATS = 8
TOLERANCE_MS = 20.0

_LOAD_PROBE = """
import json, sys, time
import pytest  # what every pytest session has imported before it loads plugins
from importlib.metadata import entry_points
ep = next(e for e in entry_points(group="pytest11") if e.name == "dps_verify")
heavy = {heavy!r}
c0, w0 = time.process_time(), time.perf_counter()
if heavy:
    import dps_verify.testing.checks, dps_verify.testing.strategies
else:
    ep.load()
c1, w1 = time.process_time(), time.perf_counter()
loaded = [m for m in ("hypothesis", "numpy", "mpmath", "sympy") if m in sys.modules]
print(json.dumps([1000 * (c1 - c0), 1000 * (w1 - w0), loaded]))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "HYPOTHESIS_PROFILE")}


def _load(heavy: bool) -> tuple[float, float, list[str]]:
    out = subprocess.run([sys.executable, "-c", _LOAD_PROBE.format(heavy=heavy)],
                         capture_output=True, text=True, check=True, env=_env())
    cpu, wall, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    return cpu, wall, loaded


def _session(directory: Path, extra: list[str]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one pytest session in a fresh interpreter."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
           str(directory), *extra, str(directory / "test_one.py")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=directory, env=_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"pytest {' '.join(extra)} failed:\n{res.stdout}{res.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 1000 * cpu, 1000 * wall


def _median(xs: list[float]) -> float:
    return round(statistics.median(xs), 2)


def run(load_repeats: int = LOAD_REPEATS, session_repeats: int = SESSION_REPEATS) -> dict:
    plugin, heavy = [], []
    loaded_by_plugin: set[str] = set()
    for _ in range(load_repeats):
        cpu, wall, loaded = _load(False)
        plugin.append((cpu, wall))
        loaded_by_plugin.update(loaded)
        cpu, wall, _ = _load(True)
        heavy.append((cpu, wall))
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
        _session(directory, [])  # warm the file system caches once
        pairs = []
        for _ in range(session_repeats):
            with_plugin = _session(directory, [])
            without = _session(directory, ["-p", "no:dps_verify"])
            pairs.append((with_plugin, without))
    load_cpu = _median([c for c, _ in plugin])
    paired_cpu = [w[0] - wo[0] for w, wo in pairs]
    return {
        "plugin_load_cpu_ms_median": load_cpu,
        "plugin_load_wall_ms_median": _median([w for _, w in plugin]),
        "plugin_load_imports_heavy_modules": sorted(loaded_by_plugin),
        "heavy_reference_load_cpu_ms_median": _median([c for c, _ in heavy]),
        "heavy_reference_load_wall_ms_median": _median([w for _, w in heavy]),
        "session_cpu_ms_median": {"with": _median([w[0] for w, _ in pairs]),
                                  "without": _median([wo[0] for _, wo in pairs])},
        "session_wall_ms_median": {"with": _median([w[1] for w, _ in pairs]),
                                   "without": _median([wo[1] for _, wo in pairs])},
        "session_cpu_ms_paired_difference_median": _median(paired_cpu),
        "session_cpu_ms_paired_difference_quartiles": [
            round(q, 1) for q in statistics.quantiles(paired_cpu, n=4)],
        "repeats": {"load": load_repeats, "session": session_repeats},
        "tolerance_ms": TOLERANCE_MS,
        "within_tolerance": load_cpu <= TOLERANCE_MS and not loaded_by_plugin,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
