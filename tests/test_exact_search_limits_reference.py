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



def test_the_parents_screen_is_used_up_to_its_limit_of_distinct_outputs(monkeypatch):
    """The level-by-parents screen's per-output arrays grow with the distinct outputs, so it is
    used while the anonymizer has produced at most PARENT_MAX_OUTPUTS = 2048 of them, and the
    per-dataset screen beyond.  The boundary with the limit set to 4 and to 3: "largest" over 3
    values has exactly 4 outputs (-1 for the empty sample, 0, 1, 2) from level 1 on, so a limit
    of 4 screens every level by parents, a limit of 3 every level per dataset; both routes check
    every pair and give the same witness (level 1: δ({x}, ∅) = 1/2 > 1/4 at β = 1/2, ε = 0)."""
    from fractions import Fraction as F

    from dps_verify.core.types import Claim
    from tests.test_exact_search_pairs_reference import ANONYMIZERS, DOMAIN

    assert es.PARENT_MAX_OUTPUTS == 2048
    routes: list[tuple[str, int]] = []
    by_parents, per_dataset = es.PairChecker.screen_level, es.PairChecker.screen

    def spy_parents(self, n, *args, **kwargs):
        routes.append(("parents", n))
        return by_parents(self, n, *args, **kwargs)

    def spy_dataset(self, counts, *args, **kwargs):
        routes.append(("per dataset", int(counts[0].sum())))
        return per_dataset(self, counts, *args, **kwargs)

    monkeypatch.setattr(es.PairChecker, "screen_level", spy_parents)
    monkeypatch.setattr(es.PairChecker, "screen", spy_dataset)
    found = []
    for limit, route in ((4, "parents"), (3, "per dataset")):
        monkeypatch.setattr(es, "PARENT_MAX_OUTPUTS", limit)
        routes.clear()
        res = es.exhaustive_search(ANONYMIZERS["largest"], list(DOMAIN),
                                   Claim(F(1, 2), 0, F(1, 4)), max_size=3, executor="serial",
                                   progress=False)
        assert len(res.table.outputs) == 4
        assert routes == [(route, 1)], limit  # level 1 already violates: 1/2 > 1/4
        w = res.witness
        assert w is not None and res.pairs == 3
        found.append((w.dataset, w.neighbour))
    assert found[0] == found[1]


def test_the_dense_sample_index_is_used_up_to_twenty_million_samples():
    """dense_ok: deterministic code gets the level-by-parents screen while every sample of <=
    size records, C(size + m, m), fits the dense index of DENSE_SAMPLES = 20,000,000; one
    sample more, or randomized code, does not.  One record over m values has m + 1 samples (the
    checker's table is a stand-in holding only what dense_ok reads)."""
    from types import SimpleNamespace

    assert es.DENSE_SAMPLES == 20_000_000

    def checker(m: int, randomized: bool = False):
        return SimpleNamespace(table=SimpleNamespace(atoms=SimpleNamespace(m=m),
                                                     is_randomized=randomized))

    assert es.PairChecker.dense_ok(checker(19_999_999), 1)
    assert not es.PairChecker.dense_ok(checker(20_000_000), 1)
    assert not es.PairChecker.dense_ok(checker(3, randomized=True), 1)


def test_a_search_result_built_by_hand_has_the_documented_defaults():
    """SearchResult is public: fields after the counts default to no worst pair, no undecided
    pair, no note, 0 s, one worker and no sample table."""
    r = es.SearchResult(None, 2, 3, [1, 2], 10, 9, 8, 0, 0.0, 3, None)
    assert (r.worst, r.undecided, r.notes, r.seconds, r.workers, r.table) == \
        (None, [], [], 0.0, 1, None)
    # the sample table is a memo, not part of the result: not shown, not compared
    memo = es.SearchResult(None, 2, 3, [1, 2], 10, 9, 8, 0, 0.0, 3, None, table=object())
    assert memo == r and "table" not in repr(memo)


def test_e_to_the_eps_at_the_largest_float_rounded_up_stays_finite():
    """_float_clamped clamps at the largest finite float: x equal to it (e^ε for ε = ln of that
    float, an exact log) rounded up is still that float, not inf (inf·0 is nan in the screen);
    one below it rounds up to it."""
    import sys
    from fractions import Fraction as F

    top = sys.float_info.max
    assert es._float_clamped(F(top), up=True) == top
    assert es._float_clamped(F(top) * 2, up=True) == top
    below = math.nextafter(top, 0.0)
    assert es._float_clamped(F(below), up=True) == top
    assert es._float_clamped(F(below)) == below


def test_shape_search_halves_its_radix_to_fit_int64_keys_but_not_below_13(monkeypatch):
    """The shape search's sample keys are base-(max_records + 1) numbers over m values: the radix
    is halved while radix^m >= 2^62 and radix > 13, and the shapes go up to radix - 1 records.
    17 values: 26 -> 13 (13^17 >= 2^62, but 13 is the floor): shapes of <= 12 records; 28 -> 14
    -> 7 (14 > 13): <= 6 records; 3 values: 26^3 < 2^62, the radix stays (<= 25 records)."""
    from fractions import Fraction as F

    from dps_verify.core.types import Claim
    from dps_verify.verdict import shapes

    assert 13**17 >= 2**62 and 14**17 >= 2**62 and 26**3 < 2**62
    seen: list[int] = []

    def stand_in(values, ks, **kwargs):
        seen.append(kwargs["max_records"])
        return iter(())

    monkeypatch.setattr(shapes, "leak_shapes", stand_in)
    for m, max_records, shown in ((17, 25, 12), (17, 27, 6), (3, 25, 25)):
        res = es.shape_search(len, list(range(m)), Claim(F(1, 2), 1, F(1, 10)),
                              max_records=max_records, executor="serial")
        assert seen[-1] == shown, (m, max_records)
        assert res.witness is None and res.requested_size == max_records
        assert res.sizes == [] and res.max_size == 0  # no shape offered: nothing searched
