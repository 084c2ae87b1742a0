"""Every pair the screens of verdict/screen.py settle, against a brute force from the definitions.

Reference: the laws summed over every sub-sample and the hockey-stick / pointwise δ with e^ε
enclosed by its Taylor series (``tests/test_exact_search_pairs_reference.py``, CP Def. 2–3, TR
Def. 2).  For each screen — the per-dataset screen (:func:`screen_chunk`) in integer mode
(q^n < 2^53) and in float mode (a randomized anonymizer, or q^n ≥ 2^53), with the sample table
keyed by vector or by dictionary, and the level-by-parents screen (:func:`screen_parents`) with
its dense and its sparse group index, add-remove and replace-one — and for claims below, at and
above the pairs' δ, every pair must satisfy: the exact δ lies within δ̂ ± err (err tiny for a
decided pair), status 1 only when δ > claim, status 0 only when δ ≤ claim.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from dps_verify.engine.count_vectors import Atoms, SampleTable
from dps_verify.verdict import screen
from dps_verify.verdict.exact_search import PairChecker
from dps_verify.verdict.executor import SerialExecutor
from tests.test_exact_search_pairs_reference import (
    ANONYMIZERS,
    DOMAIN,
    _delta,
    _law,
    _vectors,
)

M = len(DOMAIN)
#: a β near 1/2 with denominator 2^18: q^3 = 2^54 >= 2^53, so 3-record levels are screened in
#: floats even for deterministic code (integer mode below 3 records)
BETA_FLOAT = F(2**17 + 1, 2**18)


def _checker(name: str, beta: F, eps: F, d: F, definition: str, n: int,
             radix: int | None = None) -> PairChecker:
    anon = ANONYMIZERS[name]
    atoms = Atoms(anon, list(DOMAIN))
    table = SampleTable(anon, atoms, radix=radix or n + 1)
    table.ensure([list(c) for k in range(n + 1) for c in _vectors(k)])
    return PairChecker(table, beta, eps, d, definition, SerialExecutor())


def _screen_datasets(chk: PairChecker, n: int):
    """(pairs as (D, D'), δ̂, err, status) of the per-dataset screen over every D of n records."""
    counts = np.array(_vectors(n), dtype=np.int64)
    pmf, ex = chk._setup(n)
    di, xi, dh, er, st, terms = screen.screen_chunk(
        (chk.table.arrays(), pmf, counts, chk.e_f, chk.d_f, chk.definition == "pointwise", ex))
    assert terms > 0
    pairs = []
    for i, x in zip(di.tolist(), xi.tolist()):
        a = tuple(int(v) for v in counts[i])
        pairs.append((a, tuple(v - (j == x) for j, v in enumerate(a))))
    return pairs, dh, er, st


def _screen_parents(chk: PairChecker, n: int, relation: str):
    """The same for the level-by-parents screen (every parent E of n − 1 records)."""
    E = np.array(_vectors(n - 1), dtype=np.int64)
    T = chk._rank_T(M, n)
    oor = chk._out_of_rank(T, M, n)
    pmf, ex = chk._setup(n)
    tab = {"rank_T": T, "out_of_rank": oor, "n_outputs": max(len(chk.table.outputs), 1),
           "beta_f": float(chk.beta), "one_minus_beta_f": float(1 - chk.beta)}
    di, xi, dh, er, st, terms = screen.screen_parents(
        (tab, pmf, E, chk.e_f, chk.d_f, chk.definition == "pointwise", ex, n, relation))
    assert terms > 0
    pairs = []
    for i, code in zip(di.tolist(), xi.tolist()):
        e = tuple(int(v) for v in E[i])
        x, y = divmod(code, M) if relation == "replace-one" else (code, None)
        a = tuple(v + (j == x) for j, v in enumerate(e))
        b = e if y is None else tuple(v + (j == y) for j, v in enumerate(e))
        pairs.append((a, b))
    return pairs, dh, er, st


def _check(name, beta, eps, definition, pairs, dh, er, st, claim) -> tuple[int, int, int]:
    """Every screened pair against the brute force; returns how many got each status."""
    assert len(pairs) == len(dh) == len(er) == len(st) > 0
    for (a, b), v, e, s in zip(pairs, dh.tolist(), er.tolist(), st.tolist()):
        lo, hi = _delta(_law(name, a, beta), _law(name, b, beta), eps, definition)
        assert float(v) - e - 1e-12 <= float(lo) and float(hi) <= float(v) + e + 1e-12, (a, b)
        if s != 2 and definition == "hockey-stick":
            assert e < 1e-9, (a, b)  # a decided pair carries only rounding error
        if s == 1:
            assert lo > claim, (a, b, claim)
        elif s == 0:
            assert hi <= claim, (a, b, claim)
    return tuple(int(np.sum(st == k)) for k in (0, 1, 2))  # type: ignore[return-value]


def _claims(name, beta, eps, definition, pairs) -> list[F]:
    """0, every pair's exact δ (its lower end: ties for rational δ), and just above the largest."""
    ds = sorted({_delta(_law(name, a, beta), _law(name, b, beta), eps, definition)[0]
                 for a, b in pairs})
    return sorted({F(0), *ds[:: max(1, len(ds) // 4)], ds[-1] + F(1, 10**6)})


DATASET_CASES = [
    ("repeated", F(1, 2), F(1), "hockey-stick"),  # integer mode
    ("repeated", F(2, 5), F(0), "hockey-stick"),
    ("repeated", F(1, 2), F(1, 2), "pointwise"),
    ("repeated", BETA_FLOAT, F(1, 2), "hockey-stick"),  # float mode, deterministic
    ("repeated", BETA_FLOAT, F(1, 2), "pointwise"),
    ("squares", F(1, 2), F(1, 5), "hockey-stick"),  # float mode, randomized
    ("squares", F(1, 2), F(0), "pointwise"),
    ("squares", F(1, 3), F(1, 10), "pointwise"),
]


@pytest.mark.parametrize("name, beta, eps, definition", DATASET_CASES)
def test_dataset_screen_settles_pairs_only_as_the_brute_force_does(name, beta, eps, definition):
    seen = [0, 0, 0]
    for n in (1, 2, 3):
        probe = _checker(name, beta, eps, F(0), definition, n)
        pairs, *_ = _screen_datasets(probe, n)
        for claim in _claims(name, beta, eps, definition, pairs):
            chk = _checker(name, beta, eps, claim, definition, n)
            counts = _check(name, beta, eps, definition, *_screen_datasets(chk, n), claim)
            seen = [s + c for s, c in zip(seen, counts)]
    assert seen[0] > 0 and seen[1] > 0  # the screen settles pairs both ways


def test_dataset_screen_reads_a_dictionary_keyed_table_like_a_vector_keyed_one():
    """A radix whose powers pass 2^62 keys the sample table by dictionary: the screen's every
    number is the same as with vector keys, and both agree with the brute force."""
    name, beta, eps = "repeated", F(1, 2), F(1)
    for n in (2, 3):
        wide = _checker(name, beta, eps, F(1, 8), "hockey-stick", n, radix=2**21)
        assert not wide.table.vector_keys and "row_of_key" in wide.table.arrays()
        narrow = _checker(name, beta, eps, F(1, 8), "hockey-stick", n)
        got, ref = _screen_datasets(wide, n), _screen_datasets(narrow, n)
        assert got[0] == ref[0]
        for u, v in zip(got[1:], ref[1:]):
            assert np.array_equal(u, v)
        _check(name, beta, eps, "hockey-stick", *got, F(1, 8))


PARENT_CASES = [
    ("repeated", F(1, 2), F(1), "hockey-stick", "add-remove"),
    ("repeated", F(2, 5), F(0), "pointwise", "add-remove"),
    ("largest", BETA_FLOAT, F(1, 2), "hockey-stick", "add-remove"),
    ("repeated", BETA_FLOAT, F(1, 2), "pointwise", "add-remove"),
    ("largest", F(1, 3), F(1), "hockey-stick", "replace-one"),
    ("repeated", BETA_FLOAT, F(1, 2), "hockey-stick", "replace-one"),
    ("repeated", F(1, 2), F(1, 2), "pointwise", "replace-one"),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name, beta, eps, definition, relation", PARENT_CASES)
def test_parent_screen_settles_pairs_only_as_the_brute_force_does(monkeypatch, name, beta, eps,
                                                                  definition, relation, sparse):
    """``sparse``: the group index of the many-outputs branch (DENSE_LIMIT 0), which must give
    the same numbers as the dense block."""
    if sparse:
        monkeypatch.setattr(screen, "DENSE_LIMIT", 0)
    seen = [0, 0, 0]
    for n in (1, 2, 3):
        probe = _checker(name, beta, eps, F(0), definition, n)
        pairs, *_ = _screen_parents(probe, n, relation)
        for claim in _claims(name, beta, eps, definition, pairs):
            chk = _checker(name, beta, eps, claim, definition, n)
            counts = _check(name, beta, eps, definition, *_screen_parents(chk, n, relation),
                            claim)
            seen = [s + c for s, c in zip(seen, counts)]
    assert seen[0] > 0 and seen[1] > 0


# ----------------------------------------------------------------------------- underflow guard
def test_underflow_free_refuses_a_table_without_a_positive_factor_or_with_a_flushed_one():
    assert not screen.underflow_free(np.zeros((3, 3)), 2, 1)
    flushed = screen.binomial_table(1, 2, 2)
    flushed[2, 1] = 0.0  # a true positive factor read as 0
    assert not screen.underflow_free(flushed, 2, 1)
    assert screen.underflow_free(screen.binomial_table(1, 2, 2), 2, 1)
    assert screen.underflow_free(screen.binomial_table(1, 1, 4), 4, 3)  # β = 1: exact 0s and 1s


def test_underflow_free_stops_at_two_to_the_minus_nine_hundred():
    """factors · log2(smallest factor) + log2(smallest output probability) must stay above
    −900: β = 1/2, n = 1 (smallest factor 1/2) with 899 factors passes, 900 do not; an output
    probability of 2^-1 counts like one more factor."""
    pmf = screen.binomial_table(1, 2, 1)
    assert screen.underflow_free(pmf, 1, 899)
    assert not screen.underflow_free(pmf, 1, 900)
    assert screen.underflow_free(pmf, 1, 898, -1.0)
    assert not screen.underflow_free(pmf, 1, 899, -1.0)


# ------------------------------------------------------------------------------ batch edges
@pytest.mark.parametrize("name", ["repeated", "squares"])
def test_dataset_screen_of_an_empty_batch_is_empty_and_of_one_dataset_is_its_pairs(name):
    beta, eps = F(1, 2), F(1, 5)
    chk = _checker(name, beta, eps, F(0), "hockey-stick", 2)
    pmf, ex = chk._setup(2)
    args = (chk.table.arrays(), pmf)
    empty = screen.screen_chunk((*args, np.zeros((0, M), dtype=np.int64), chk.e_f, chk.d_f,
                                 False, ex))
    assert [len(a) for a in empty[:5]] == [0] * 5 and empty[5] == 0
    assert empty[4].dtype == np.int8
    one = np.array([[1, 1, 0]], dtype=np.int64)  # a batch of one dataset: its two pairs
    di, xi, dh, er, st, terms = screen.screen_chunk((*args, one, chk.e_f, chk.d_f, False, ex))
    assert di.tolist() == [0, 0] and xi.tolist() == [0, 1] and terms > 0
    pairs = [((1, 1, 0), (0, 1, 0)), ((1, 1, 0), (1, 0, 0))]
    _check(name, beta, eps, "hockey-stick", pairs, dh, er, st, F(0))
