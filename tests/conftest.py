"""Hypothesis profiles ``ci`` (default, derandomized) and ``deep`` come from the dps_verify pytest
plugin (``dps_verify.testing.plugin``); ``HYPOTHESIS_PROFILE`` or ``--dps-profile`` pick one.

Memory (issue #11: a test run stays well under 500 MB).  The default run is one process; what
it accumulates is not in dps_verify's caches (all bounded, < 6 MB together, measured with
``benchmarks/memory_profile.py``) but in memory the C allocator keeps after Python, numpy,
SymPy, z3 and cvc5 have freed it.  So, for the whole session (tests/ and properties/):

* glibc's ``malloc`` is told to serve blocks of 1 MiB and more straight from the system
  (``mallopt(M_MMAP_THRESHOLD)``; by default the threshold climbs to 32 MiB after the first large
  free, after which freed numpy/FFT buffers stay in the heap), and
* after each test module the garbage is collected, SymPy's expression cache is cleared and the
  freed heap pages are handed back (``malloc_trim(0)``).

Neither changes a result.  ``DPS_TEST_KEEP_MEMORY=1`` switches both off (to measure them);
on a C library other than glibc they are skipped.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys
from typing import Any

from dps_verify.testing.plugin import load_default_profile

load_default_profile()

_M_MMAP_THRESHOLD = -3  # glibc <malloc.h>


def _glibc() -> Any:
    if not sys.platform.startswith("linux") or os.environ.get("DPS_TEST_KEEP_MEMORY"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc only
    except (OSError, AttributeError):
        return None
    return libc


class _ReleaseMemoryBetweenModules:
    """Registered as a plugin, so that it covers properties/ too (a conftest's own runtest
    hooks only see the items below it)."""

    def __init__(self, libc: Any):
        self.libc = libc
        libc.mallopt(_M_MMAP_THRESHOLD, 1 << 20)

    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> None:
        if nextitem is not None and nextitem.path == item.path:
            return
        gc.collect()
        cache = sys.modules.get("sympy.core.cache")
        if cache is not None:
            cache.clear_cache()
        self.libc.malloc_trim(0)


def pytest_configure(config: Any) -> None:
    libc = _glibc()
    if libc is not None and not config.pluginmanager.has_plugin("dps-release-memory"):
        config.pluginmanager.register(_ReleaseMemoryBetweenModules(libc), "dps-release-memory")
