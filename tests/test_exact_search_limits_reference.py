"""The exact search's documented size limit of the dense sample index of the level-by-parents
screen (at most 20,000,000 samples), at its boundary."""

from __future__ import annotations

import math

from dps_verify.verdict import exact_search as es


def test_work_estimate_uses_the_parents_screen_up_to_twenty_million_samples():
    """One record over m values has C(1 + m, m) = m + 1 samples: the parents estimate
    (m + 1)·C(2m, 2m) = m + 1 applies while m + 1 <= 20,000,000, beyond it the per-dataset
    estimate 2·C(1 + 2m, 2m) = 2(2m + 1)."""
    m = 19_999_999
    assert math.comb(1 + m, m) == 20_000_000
    assert es.estimate_work(m, 1, parents=True) == m + 1
    assert es.estimate_work(m + 1, 1, parents=True) == 2 * (2 * (m + 1) + 1)
    assert es.estimate_work(m, 1) == 2 * (2 * m + 1)

