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



def test_shape_search_default_budget_and_thresholds(monkeypatch):
    """shape_search's defaults: thresholds k = 2, 3, 4, 5 for code without a ``k`` /
    ``threshold`` attribute (the anonymizer's own k otherwise), and a work budget of 4,000,000
    terms, seen in its stop note when the first shape already costs more (a stand-in shape
    family: one value held 2,500,000 times, (c + 1)·2 = 5,000,002 terms; nothing is screened)."""
    from fractions import Fraction as F

    from dps_verify.core.types import Claim
    from dps_verify.verdict import shapes

    seen: list[list[int]] = []

    def stand_in(values, ks, **kwargs):
        seen.append(list(ks))
        yield "one value, many times", {0: 2_500_000}, None

    monkeypatch.setattr(shapes, "leak_shapes", stand_in)

    def plain(sample: tuple) -> int:
        return len(sample)

    def with_k(sample: tuple) -> int:
        return len(sample)

    with_k.k = 3  # type: ignore[attr-defined]
    for anon, ks in ((plain, [2, 3, 4, 5]), (with_k, [3])):
        res = es.shape_search(anon, [0, 1], Claim(F(1, 2), 1, F(1, 10)), executor="serial")
        assert seen[-1] == ks
        assert res.datasets == 0 and res.witness is None
        assert res.notes == ["shape search stopped at its work budget (4,000,000 terms)"]
