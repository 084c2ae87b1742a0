"""The one law cache (engine/law_cache.py) and its shared sample memo: the same exact laws as a
brute force over sub-multisets, each distinct sample anonymized once across tables (beside each
table's own spot checks), bounded memory with its size visible, and a memo never used for
another anonymizer."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from dps_verify.engine.count_vectors import Atoms, ExactLaws, SampleMemo, SampleTable
from dps_verify.engine.distribution import distribution, randomized
from dps_verify.engine.law_cache import LawCache

BETA = Fraction(1, 3)
DOM = [1, 2, 3, 4]
DATASETS = [(), (1,), (1, 1, 2), (4, 3, 3, 1), (2, 2, 2, 2, 2), (1, 2, 3, 4, 4, 4)]


def parity_of_big(s):
    return sum(1 for r in s if r >= 3) % 2


def _coin_law(s):
    k = sum(1 for r in s if r >= 3)
    return {k: Fraction(2, 3), "none": Fraction(1, 3)}


coin = randomized(_coin_law)


class Counted:
    """A deterministic anonymizer counting its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, s):
        self.calls += 1
        return tuple(sorted(Counter(s).items()))


def brute_force(anon, D, beta):
    """Law of A^β(D) by the definition (CP Def. 3): every subset of the records, each kept with
    probability β independently."""
    import itertools

    law: dict = {}
    for keep in itertools.product((0, 1), repeat=len(D)):
        w = Fraction(1)
        for k in keep:
            w *= beta if k else 1 - beta
        sample = tuple(sorted((r for r, k in zip(D, keep) if k), key=repr))
        out = anon.law(sample) if isinstance(anon, randomized) else {anon(sample): Fraction(1)}
        for y, p in out.items():
            law[y] = law.get(y, 0) + w * p
    return law


@pytest.mark.parametrize("anon", [parity_of_big, coin], ids=["deterministic", "randomized"])
def test_laws_equal_the_definition(anon):
    cache = LawCache(anon, BETA, DOM)
    for D in DATASETS:
        assert cache(D) == brute_force(anon, D, BETA)
        assert distribution(anon, D, BETA, factorised=False).exact == cache(D)


@pytest.mark.parametrize("anon", [parity_of_big, coin], ids=["deterministic", "randomized"])
def test_laws_equal_the_definition_at_beta_one(anon):
    """At β = 1 every sub-sample but the dataset itself has weight 0: the sum skips them, a
    whole block of sub-samples at a time when an earlier atom's weight is 0."""
    cache = LawCache(anon, Fraction(1), DOM)
    for D in DATASETS:
        assert cache(D) == {y: p for y, p in brute_force(anon, D, Fraction(1)).items() if p}


def test_a_wrong_sampling_weight_is_told_apart():
    """Negative control: the brute force at another β gives another law (the comparison above
    can fail)."""
    cache = LawCache(coin, BETA, DOM)
    assert cache((1, 3, 4)) != brute_force(coin, (1, 3, 4), Fraction(1, 2))


def test_records_outside_the_domain_and_large_counts_grow_the_atoms():
    cache = LawCache(parity_of_big, BETA, [1])
    for D in [(1,) * 9, (7, 1, 7), (3,) * 11 + (1,)]:
        assert cache(D) == brute_force(parity_of_big, D, BETA)


def test_sample_memo_shared_between_tables_calls_each_sample_once():
    anon = Counted()
    memo = SampleMemo(anon)
    atoms = Atoms(anon, DOM)
    first = ExactLaws(SampleTable(anon, atoms, radix=6, memo=memo), BETA)
    law1 = first.law([2, 1, 0, 2])
    t2 = SampleTable(anon, Atoms(anon, DOM), radix=9, memo=memo)
    second = ExactLaws(t2, BETA)
    assert second.law([2, 1, 0, 2]) == law1
    # only the samples the second table spot-checks itself are anonymized again
    assert t2.calls < len(t2.row_law) and memo.hits == len(t2.row_law) - t2.calls
    assert memo.stats()["samples"] == len(memo)


def test_dataset_laws_are_bounded_and_the_size_is_visible():
    cache = LawCache(coin, BETA, DOM, max_entries=3)
    for D in DATASETS:
        cache(D)
    st = cache.stats()
    assert st["laws"]["entries"] <= 3 and st["laws"]["max_entries"] == 3
    assert st["samples"]["samples"] > 0
    memo = SampleMemo(coin, max_entries=4)
    LawCache(coin, BETA, DOM, memo=memo)((1, 2, 3, 4))
    assert memo.entries <= 4 and memo.dropped > 0


def test_memo_refuses_another_anonymizer():
    """Negative control: laws of one anonymizer are never served for another."""
    memo = SampleMemo(parity_of_big)
    with pytest.raises(ValueError, match="anonymizer it was made for"):
        LawCache(coin, BETA, DOM, memo=memo)
    with pytest.raises(ValueError, match="anonymizer it was made for"):
        SampleTable(coin, Atoms(coin, DOM), radix=4, memo=memo)


def test_a_wrong_law_is_still_refused_on_the_fast_validation():
    """Negative control of randomized.law's integer total: a law summing to 1 + 1/6 fails."""
    from dps_verify.core.errors import AuditedCodeError

    bad = randomized(lambda s: {0: Fraction(1, 2), 1: Fraction(2, 3)})
    with pytest.raises(AuditedCodeError, match="sum to 7/6"):
        LawCache(bad, BETA, DOM)((1,))


def test_output_ids_survive_a_rebuild_of_the_atoms():
    """Weights computed before the table is rebuilt (a new record, a larger count) still index
    the same outputs afterwards."""
    cache = LawCache(coin, BETA, [1, 3])
    A, da = cache.weights((3,))
    cache.weights((3,) * 9 + (4,))  # larger radix and a new record: the table is rebuilt
    outs = cache.table.outputs
    assert {outs[o]: Fraction(v, da) for o, v in A.items()} == brute_force(coin, (3,), BETA)
