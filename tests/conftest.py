"""Hypothesis profiles ``ci`` (default, derandomized) and ``deep`` come from the dps_verify pytest
plugin (``dps_verify.testing.plugin``); ``HYPOTHESIS_PROFILE`` or ``--dps-profile`` pick one.

Memory (a test run stays well under 500 MB).  The default run is one process; what
it accumulates is not in dps_verify's caches (all bounded, < 6 MB together, measured with
``benchmarks/memory_profile.py``) but in memory the C allocator keeps after Python, numpy,
SymPy, z3 and cvc5 have freed it.  So, for the whole session (tests/ and properties/):

* glibc's ``malloc`` is told to serve blocks of 1 MiB and more straight from the system
  (``mallopt(M_MMAP_THRESHOLD)``; by default the threshold climbs to 32 MiB after the first large
  free, after which freed numpy/FFT buffers stay in the heap), and
* after each test module SymPy's expression cache is cleared, the garbage is collected (once:
  by the repository-root conftest, which then freezes the survivors) and the freed heap pages
  are handed back (``malloc_trim(0)``).

Neither changes a result.  ``DPS_TEST_KEEP_MEMORY=1`` switches both off (to measure them);
on a C library other than glibc they are skipped.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import gc
import os
import sys
import types
from typing import Any

import pytest

#: sympy's expression cache holds 20,000 entries in the test session instead of its default
#: 1,000 (``SYMPY_CACHE_SIZE`` is read when sympy is first imported; nothing has imported it
#: when the conftests load).  The session's proof run builds the same formulas many times (CP
#: Thm 5's sums and definitions) and with 1,000 entries rebuilt them: every proof run 19.3 ->
#: 17.3 s of CPU (3 alternated pairs, ratio 0.90); ``dps-verify prove all`` prints the same text
#: and writes the same --smt2 files either way.  The cache is emptied after each test module
#: (below).  An explicit ``SYMPY_CACHE_SIZE`` in the environment wins.
os.environ.setdefault("SYMPY_CACHE_SIZE", "20000")

from dps_verify.testing.plugin import load_default_profile  # noqa: E402

load_default_profile()

_M_MMAP_THRESHOLD = -3  # glibc <malloc.h>

#: The repository-root conftest's plugin that collects the garbage after each test module and
#: freezes what survives.
GC_FREEZE_PLUGIN = "dps-gc-freeze"


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
    hooks only see the items below it).

    A wrapper around the module's last teardown: SymPy's cache is cleared first, the heap pages
    are handed back last, after every other teardown hook -- among them the repository-root
    conftest's, which collects the garbage once and freezes the survivors.  This one collects
    only where that one is switched off (``DPS_TEST_NO_GC_FREEZE=1``): each full collection
    walks every object made since the last freeze, and a second one right after the first
    walked the same survivors again (in a whole default run, timed inside the hooks: 2.8 s of
    CPU for the first collections, 2.3 s for the second ones, over 148 test modules)."""

    def __init__(self, libc: Any):
        self.libc = libc
        libc.mallopt(_M_MMAP_THRESHOLD, 1 << 20)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Any:
        last_of_module = nextitem is None or nextitem.path != item.path
        if last_of_module:
            cache = sys.modules.get("sympy.core.cache")
            if cache is not None:
                cache.clear_cache()
        try:
            return (yield)
        finally:
            if last_of_module:
                if not item.config.pluginmanager.has_plugin(GC_FREEZE_PLUGIN):
                    gc.collect()
                self.libc.malloc_trim(0)


def _proof_sources_fingerprint() -> str:
    """SHA-256 of the proof sources a theorem's result depends on: every theorem module
    (``proofs/``, imported as ``dps_verify_proofs``), the kernel and CP Thm 6's witness."""
    import hashlib
    from pathlib import Path

    import dps_verify_proofs

    from dps_verify.paper import cp6_witness, kernel

    files = sorted(Path(dps_verify_proofs.__file__).parent.glob("*.py"))
    files += sorted(Path(kernel.__file__).parent.glob("*.py")) + [Path(cp6_witness.__file__)]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


@pytest.fixture(scope="session")
def proof_results() -> Any:
    """Every registered theorem's proof, run once per test session in this process (about 20 s
    of CPU for all of them, half of it inside z3 and cvc5: ``python -m benchmarks proof_session``;
    read by several test files), with mpmath's global state and the bits of d(20, 0.1, 1)
    recorded before and after the runs.  The results also fill the cache of
    ``dps-verify explore --steps`` (:data:`dps_verify.paper.walkthroughs.PROOF_CACHE`).

    ``run(theorem_id)`` hands out the session's result while the proof sources are the ones it
    was computed from (their fingerprint, :func:`_proof_sources_fingerprint`, is compared at
    each call: the working tree may change under a long session), and runs the proof afresh
    otherwise."""
    import mpmath

    from dps_verify import bounds
    from dps_verify.paper import kernel, walkthroughs
    from dps_verify.paper.kernel import THEOREMS

    def state() -> tuple:
        return mpmath.mp.prec, mpmath.iv.prec, bounds.d(20, "0.1", 1)._mpf_

    real_run = kernel.run
    fingerprint = _proof_sources_fingerprint()
    before = state()
    # the cyclic garbage collector paused for the run and the garbage collected once after it:
    # the young-generation collections during the run (over 200) walk the sympy and z3 objects
    # it keeps making; gc callbacks in a run of all 13 proofs: 0.27 s of collections -> 0.12 s
    # (peak memory 191 -> 193 MB); no result depends on when garbage is collected
    collecting = gc.isenabled()
    gc.disable()
    try:
        results = {tid: real_run(tid) for tid in THEOREMS}
    finally:
        if collecting:
            gc.enable()
            gc.collect()
    after = state()
    for tid, r in results.items():
        walkthroughs.PROOF_CACHE.setdefault(tid, r)

    def run(theorem_id: str) -> Any:
        if theorem_id in results and _proof_sources_fingerprint() == fingerprint:
            return results[theorem_id]
        return real_run(theorem_id)

    dicts: dict[str, Any] = {}

    def as_dict(theorem_id: str) -> Any:
        """One result's ``to_dict()`` (printing every formula in text and LaTeX: ~0.1-0.4 s
        of CPU per theorem), made once per session; callers get a deep copy."""
        if theorem_id not in dicts:
            dicts[theorem_id] = results[theorem_id].to_dict()
        return copy.deepcopy(dicts[theorem_id])

    def as_dicts() -> dict[str, Any]:
        """Every result's ``to_dict()`` (:func:`as_dict`)."""
        return {tid: as_dict(tid) for tid in results}

    return types.SimpleNamespace(results=results, mpmath_state_before=before,
                                 mpmath_state_after=after, fingerprint=fingerprint, run=run,
                                 as_dict=as_dict, as_dicts=as_dicts)


@pytest.fixture()
def prove_reads_session_proofs(proof_results: Any, monkeypatch: Any) -> Any:
    """``dps-verify prove`` (and anything else calling :func:`dps_verify.paper.kernel.run`)
    reads the session's proof results instead of running the proofs again -- for the tests of
    what the command prints and exports, not of the proofs themselves (those read
    ``proof_results``)."""
    from dps_verify.paper import kernel

    monkeypatch.setattr(kernel, "run", proof_results.run)
    return proof_results


#: Test modules that run the claims registry in-process (its theorem claims read the proofs).
_CLAIM_MODULES = frozenset({"test_claims", "test_claims_policy", "test_cmd_paper"})


class _SessionProofDicts(dict):  # type: ignore[type-arg]
    """The proof bridge's cache, holding besides its own entries every session proof result
    as its ``to_dict()``, made when the bridge first reads it (the claims of the default run
    read 6 of the 13 theorems: ~0.8 s of CPU of printing saved): to the bridge (``in``,
    ``[]``) every session theorem is there from the start, so it never starts a worker."""

    def __init__(self, own: dict[str, Any], session: Any):
        super().__init__(own)
        self.session = session

    def _session_only(self, key: object) -> bool:
        return not dict.__contains__(self, key) and key in self.session.results

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.session.results

    def __getitem__(self, key: str) -> Any:
        if self._session_only(key):
            dict.__setitem__(self, key, self.session.as_dict(key))
        return dict.__getitem__(self, key)


def pytest_collectstart(collector: Any) -> None:
    """The modules of :data:`_CLAIM_MODULES` use :func:`_claims_read_the_session_proofs` (marked
    as they are collected, before their tests are: every test of the module then has it).  Not
    an autouse fixture: pytest looks an autouse fixture up for every test of the folder (~3,000,
    a module-scoped one too): 2,000 trivial tests made 4.78 M Python calls with it, 4.54 M
    without (~0.1 ms of CPU per test)."""
    if isinstance(collector, pytest.Module) and collector.path.stem in _CLAIM_MODULES:
        collector.add_marker(pytest.mark.usefixtures("_claims_read_the_session_proofs"))


@pytest.fixture(scope="module")
def _claims_read_the_session_proofs(request: Any) -> Any:
    """In the modules that run the claims registry (:data:`_CLAIM_MODULES`, marked by
    :func:`pytest_collectstart`), the registry's proof bridge
    (:mod:`dps_verify.paper.claims.proofbridge`, which runs every proof again in worker
    processes) is given the session's proof results, as their ``to_dict()`` — what the bridge's
    workers return (each made once per session, when first read:
    ``proof_results.as_dict(id)``); its own cache is back after the module, with the entries
    the module added that are not the session's."""
    from dps_verify.paper.claims import proofbridge

    session = request.getfixturevalue("proof_results")
    own = proofbridge._cache
    proofbridge._cache = _SessionProofDicts(own, session)
    yield
    lent = proofbridge._cache
    proofbridge._cache = own
    for tid, value in dict.items(lent):
        if tid not in session.results:
            own[tid] = value


def pytest_configure(config: Any) -> None:
    libc = _glibc()
    if libc is not None and not config.pluginmanager.has_plugin("dps-release-memory"):
        config.pluginmanager.register(_ReleaseMemoryBetweenModules(libc), "dps-release-memory")
