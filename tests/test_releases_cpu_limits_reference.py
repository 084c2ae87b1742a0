"""Releases' worst case and cheap bounds finish within a CPU-time limit, and hold the brute force.

Each call below normally costs well under 0.3 s of CPU; it runs under
:func:`properties.reference.call_limited` with a limit of ``LIMIT`` seconds of *process CPU time*
(not wall time, so a loaded machine does not fail it).  A change that makes the tail-start
search run to ``n_limit``, makes a cheap bound so loose that no tail start is found, or makes the
scan loop re-enclose the same size forever then fails here in seconds instead of hanging.  The
values are checked against the exact T-fold delta of every size by the multinomial sum of
``tests.test_pld_releases`` (CP §2.7, CP Def. 2 hockey-stick, independent of the PLD code), so
every test here can also fail on a wrong number.  This file runs first in the module's mutation
selection (``benchmarks/mutation/targets.py``).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import releases as R
from dps_verify.inverse.releases import releases_delta
from properties import reference as REF
from tests.test_pld_releases import INTERIOR, _check_sup, _reference

#: CPU seconds per call; every call here costs < 0.3 s (checked at 2 cores under load)
LIMIT = 3.0
CASES = [INTERIOR[0], (2, F(1, 4), F(1, 10), 4)]


@pytest.mark.parametrize("k,beta,eps,times", CASES)
@pytest.mark.parametrize("method", ["screen", "scan"])
def test_worst_case_over_all_sizes_finishes_within_the_cpu_limit_and_holds_every_size(
        k, beta, eps, times, method):
    """Both methods finish within LIMIT CPU seconds, find a tail start, and their enclosure
    holds every exact δ_T(n) up to past the tail start, one of which reaches its lower end."""
    r = REF.call_limited(releases_delta, k, beta, eps, times, method=method, seconds=LIMIT)
    assert r.covers_all_n and r.tail_from is not None and r.tail_from <= k + 9
    assert _check_sup(r, k, beta, eps, times)[1]


@pytest.mark.parametrize("max_enclosures", [1, 6])
def test_scan_with_discretised_enclosures_finishes_within_the_cpu_limit(max_enclosures,
                                                                        monkeypatch):
    """With every enclosure discretised (coarse first, then fine), the scan method still stops
    within LIMIT CPU seconds and its enclosure holds every exact size up to past its tail start."""
    monkeypatch.setattr(D, "exact_compose_cost", lambda pld, t: 10**30)
    k, beta, eps, times = INTERIOR[0]
    r = REF.call_limited(releases_delta, k, beta, eps, times, method="scan",
                         max_enclosures=max_enclosures, seconds=LIMIT)
    assert r.covers_all_n and r.mode == "discretised"
    assert _check_sup(r, k, beta, eps, times)[1]


@pytest.mark.parametrize("n", [9, 12])
def test_cheap_bounds_finish_within_the_cpu_limit_and_bound_the_exact_delta(n):
    """The untruncated and thresholded cheap bounds at n = 9 and 12 (β = 1/4, ε = 1/2, T = 3)
    finish within LIMIT CPU seconds and are at least the exact thresholded δ_T(n)."""
    k, beta, eps, times = INTERIOR[0]
    exact_lo = _reference(n, k, beta, eps, times)[0]
    untr = REF.call_limited(R.untruncated_bound, n, beta, eps, times, seconds=LIMIT)
    thr = REF.call_limited(R.thresholded_bound, n, k, beta, eps, times, seconds=LIMIT)
    assert exact_lo <= thr <= untr < 1


def test_cpu_limit_turns_a_search_that_never_finds_a_tail_start_into_a_failure(monkeypatch):
    """Negative control of the limit: with a tail bound that never reaches the target and a huge
    ``n_limit``, the screened method would screen a million sizes; the limit stops it."""
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1))
    k, beta, eps, times = INTERIOR[0]
    with pytest.raises(REF.Hang):
        REF.call_limited(releases_delta, k, beta, eps, times, n_limit=10**6, seconds=0.5)
