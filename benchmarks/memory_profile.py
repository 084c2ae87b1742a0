"""A pytest plugin that logs the test process's memory after every test (to find
what a long test run accumulates).  Off unless loaded explicitly::

    DPS_MEMPROFILE=mem.jsonl python -m pytest -q -p no:cacheprovider -p benchmarks.memory_profile

One JSON line per test: ``nodeid``, ``rss_mb`` (current resident set size, ``/proc/self/statm``)
and ``hwm_mb`` (the peak so far, ``ru_maxrss``).  With ``DPS_MEMPROFILE_TRACE=1`` it also starts
:mod:`tracemalloc` and, at the end of each test module, writes the ten source lines holding the
most live memory (``top``: [[file:line, MB], ...]), and per test the traced memory now and at
its peak — slow (2–3×), for runs over a few files only.  ``DPS_MEMPROFILE_TRIM=1`` calls glibc's
``malloc_trim(0)`` after each test and logs the RSS after it (how much is free-but-held heap).
``DPS_MEMPROFILE_CACHES=1`` writes, at the end of each test module, the functools caches and
module-level dicts/lists of the project's modules that hold more than 0.5 MB (``caches``:
[[name, entries, MB], ...], sizes from a traversal of what they reference).
``python benchmarks/bench_memory.py --rank mem.jsonl`` ranks the modules by what they leave
behind.  Linux only (``/proc``).
"""

from __future__ import annotations

import json
import os
import resource
from typing import Any

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_state: dict[str, Any] = {"module": None}


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 2**20


def _hwm_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _write(rec: dict) -> None:
    path = os.environ.get("DPS_MEMPROFILE")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def _top() -> list:
    import gc
    import tracemalloc

    gc.collect()
    snap = tracemalloc.take_snapshot()
    return [[f"{s.traceback[0].filename}:{s.traceback[0].lineno}", round(s.size / 2**20, 2)]
            for s in snap.statistics("lineno")[:10]]


def _deep_size(root: Any, limit: int = 2_000_000) -> int:
    """Bytes reachable from ``root`` through containers, Fractions and plain instances (not
    through modules, classes or functions): what a cache entry keeps alive, roughly."""
    import gc
    import sys
    import types
    from fractions import Fraction

    skip = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    seen: set[int] = set()
    todo = [root]
    total = 0
    while todo and len(seen) < limit:
        x = todo.pop()
        if id(x) in seen or isinstance(x, skip):
            continue
        seen.add(id(x))
        total += sys.getsizeof(x)
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo.extend(x)
        elif isinstance(x, Fraction):
            todo.extend((x.numerator, x.denominator))
        elif not isinstance(x, (int, float, str, bytes)):
            todo.extend(gc.get_referents(x))  # instances, cache links, ...
    return total


def _caches() -> list:
    """[[qualified name, entries, MB]] of functools caches and module-level dicts/lists of the
    project's modules holding more than 0.5 MB."""
    import gc
    import sys

    out = []
    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] not in ("dps_verify", "tests", "properties", "benchmarks") and \
                not name.startswith(("test_", "conftest")):
            continue
        for attr, obj in list(vars(mod).items()):
            if hasattr(obj, "cache_info") and getattr(obj, "__module__", None) == name:
                size, n = _deep_size(gc.get_referents(obj)), obj.cache_info().currsize
            elif isinstance(obj, (dict, list)) and not attr.startswith("__"):
                size, n = _deep_size(obj), len(obj)
            else:
                continue
            if size > 2**19:
                out.append([f"{name}.{attr}", n, round(size / 2**20, 1)])
    return sorted(out, key=lambda r: -r[2])


def pytest_configure(config: Any) -> None:
    if os.environ.get("DPS_MEMPROFILE_TRACE"):
        import tracemalloc

        tracemalloc.start()
    _write({"nodeid": "<start>", "rss_mb": round(_rss_mb(), 1), "hwm_mb": round(_hwm_mb(), 1)})


def _trim() -> float | None:
    """glibc's ``malloc_trim(0)`` (returns freed heap pages to the system); RSS after, or None."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return None
    return round(_rss_mb(), 1)


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    module = nodeid.split("::", 1)[0]
    tracing = bool(os.environ.get("DPS_MEMPROFILE_TRACE"))
    if tracing and _state["module"] not in (None, module):
        _write({"nodeid": f"<end of {_state['module']}>", "top": _top()})
    if os.environ.get("DPS_MEMPROFILE_CACHES") and _state["module"] not in (None, module):
        _write({"nodeid": f"<end of {_state['module']}>", "caches": _caches()})
    _state["module"] = module
    rec = {"nodeid": nodeid, "rss_mb": round(_rss_mb(), 1), "hwm_mb": round(_hwm_mb(), 1)}
    if tracing:
        import tracemalloc

        cur, peak = tracemalloc.get_traced_memory()
        rec.update(traced_mb=round(cur / 2**20, 1), traced_peak_mb=round(peak / 2**20, 1))
        tracemalloc.reset_peak()
    if os.environ.get("DPS_MEMPROFILE_TRIM"):
        rec["rss_after_trim_mb"] = _trim()
    _write(rec)


def pytest_unconfigure(config: Any) -> None:
    if os.environ.get("DPS_MEMPROFILE_TRACE") and _state["module"] is not None:
        _write({"nodeid": f"<end of {_state['module']}>", "top": _top()})
    if os.environ.get("DPS_MEMPROFILE_CACHES") and _state["module"] is not None:
        _write({"nodeid": f"<end of {_state['module']}>", "caches": _caches()})
