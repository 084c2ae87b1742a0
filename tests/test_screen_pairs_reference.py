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

import itertools
import math
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


# ------------------------------------------------------------------ the integer decision itself
def _int_laws(rng, total: int, outputs: int) -> list[int]:
    cuts = sorted(rng.randint(0, total) for _ in range(outputs - 1))
    return [b - a for a, b in zip([0, *cuts], [*cuts, total])]


@pytest.mark.parametrize("eps", [F(0), F(1, 2), F(1)])
@pytest.mark.parametrize("pointwise", [False, True])
def test_integer_decision_matches_the_exact_scaled_delta(eps, pointwise):
    """_decide_int on integer laws (P·q^n, Q·q^n over 3 outputs, q^n = 9) against the exact
    scaled δ: status 1 only above the claim T, 0 only at or below it, and the scaled δ̂ within
    float rounding of the exact one.  Includes a Q-mass of exactly 1 on the bad set
    (P = (4, 1, 4), Q = (1, 4, 4))."""
    import math
    import random

    from tests.test_exact_search_pairs_reference import _exp_bounds

    rng = random.Random(5)
    pairs = [([4, 1, 4], [1, 4, 4])] + [(_int_laws(rng, 9, 3), _int_laws(rng, 9, 3))
                                        for _ in range(40)]
    B = len(pairs)
    P = np.array([float(v) for p, _ in pairs for v in p])
    Q = np.array([float(v) for _, q in pairs for v in q])
    b_grp = np.repeat(np.arange(B), 3)
    e_f = math.exp(eps)
    e_lo = 1.0 if eps == 0 else math.nextafter(math.nextafter(e_f, 0), 0)
    e_hi = 1.0 if eps == 0 else math.nextafter(math.nextafter(e_f, math.inf), math.inf)
    lo_t, hi_t = _exp_bounds(eps)
    for T in (F(0), F(1), F(5, 4), F(2), F(3), F(9, 2)):
        ex = {"e_lo": e_lo, "e_hi": e_hi, "T": {2: float(T)}, "Tfloor": {2: float(math.floor(T))}}
        st, best = screen._decide_int(P, Q, b_grp, B, ex, 2, pointwise)
        for (p, q), s, v in zip(pairs, st.tolist(), best.tolist()):
            Pd = {i: F(a) for i, a in enumerate(p) if a}
            Qd = {i: F(b) for i, b in enumerate(q) if b}
            if pointwise:
                lo = hi = _delta(Pd, Qd, eps, "pointwise")[0]
            else:
                from tests.test_exact_search_pairs_reference import _hockey

                lo, hi = _hockey(Pd, Qd, hi_t), _hockey(Pd, Qd, lo_t)
            assert abs(v - float(lo)) <= 1e-12 * 9, (p, q, T)
            if s == 1:
                assert lo > T, (p, q, T)
            elif s == 0:
                assert hi <= T, (p, q, T)


# ------------------------------------------------------------- the documented margins, pinned
U = 2.0**-53


def _float_decide(P, Q, e, d, pointwise, terms=4, m=2):
    """_decide_float on one dataset: G = terms + m + 2 = 8, so r = 2Gu = 16u per probability."""
    return screen._decide_float(np.array(P), np.array(Q), np.zeros(len(P), dtype=np.int64), 1, e,
                                d, pointwise, np.array([terms]), np.array([len(P)]), m)


@pytest.mark.parametrize("swap", [False, True])
def test_hockey_stick_zero_screen_keeps_a_ratio_within_its_margin_below_e_possible(swap):
    """δ = 0 is declared only when every ratio is below e·(1 − 4u)·(1 − r)/(1 + r) ≈ e(1 − 36u):
    a ratio of e(1 − 32u) (below e, so δ = 0 truly) is still 'possibly bad' and the claim 0
    goes to exact arithmetic (status 2), not cleared by the screen.  ``swap``: the ratio Q/P
    (the other direction)."""
    def decide(P, Q):
        return _float_decide(Q, P, 2.0, 0.0, False) if swap else _float_decide(P, Q, 2.0, 0.0,
                                                                                  False)

    P = [0.5 - 2.0**-49, 0.5 + 2.0**-49]  # P0 / Q0 = 2 (1 - 32u)
    Q = [0.25, 0.75]
    st, dh, er = decide(P, Q)
    assert st[0] == 2 and dh[0] == 0.0 and er[0] > 0
    far = [0.5 - 2.0**-45, 0.5 + 2.0**-45]  # P0 / Q0 = 2 (1 - 512u): certainly not bad
    st, dh, er = decide(far, Q)
    assert st[0] == 0 and dh[0] == 0.0 and er[0] == 0.0


@pytest.mark.parametrize("swap", [False, True])
def test_pointwise_screen_certifies_an_output_only_past_its_margin_above_e(swap):
    """An output is certainly bad only when its ratio exceeds e·(1 + 2u)·(1 + r)/(1 − r) ≈
    e(1 + 34u): at e(1 + 32u) it is only possibly bad, so the lower end of the pointwise
    enclosure leaves it out (δ̂ halfway, status 2 for a claim between); at e(1 + 512u) it is
    certain (status 1).  ``swap``: the ratio Q/P."""
    def decide(P, Q):
        return _float_decide(Q, P, 2.0, 0.25, True) if swap else _float_decide(P, Q, 2.0, 0.25,
                                                                                 True)

    Q = [0.25, 0.75]
    near = [0.5 + 2.0**-49, 0.5 - 2.0**-49]  # P0 / Q0 = 2 (1 + 32u)
    st, dh, er = decide(near, Q)
    assert st[0] == 2 and abs(dh[0] - near[0] / 2) < 1e-12
    far = [0.5 + 2.0**-45, 0.5 - 2.0**-45]
    st, dh, er = decide(far, Q)
    assert st[0] == 1 and abs(dh[0] - far[0]) < 1e-12


@pytest.mark.parametrize("swap", [False, True])
def test_pointwise_screen_keeps_a_ratio_within_its_margin_below_e_possible(swap):
    """An output is certainly not bad only when its ratio is below e·(1 − 2u)·(1 − r)/(1 + r)
    ≈ e(1 − 34u): at e(1 − 32u) (not bad, truly) it stays in the upper end of the pointwise
    enclosure, so a claim between 0 and its mass goes to exact arithmetic (status 2)."""
    def decide(P, Q):
        return _float_decide(Q, P, 2.0, 0.1, True) if swap else _float_decide(P, Q, 2.0, 0.1,
                                                                                True)

    Q = [0.25, 0.75]
    near = [0.5 - 2.0**-49, 0.5 + 2.0**-49]  # P0 / Q0 = 2 (1 - 32u)
    st, dh, er = decide(near, Q)
    assert st[0] == 2 and abs(dh[0] - near[0] / 2) < 1e-12
    far = [0.5 - 2.0**-45, 0.5 + 2.0**-45]
    st, dh, er = decide(far, Q)
    assert st[0] == 0 and dh[0] < 1e-12


def test_integer_decision_sends_a_delta_at_the_upper_end_of_the_claims_margin_to_exact():
    """ε = 0 (no margin on e): scaled δ = 1 against a claim T = 1 − 4u, whose 4u margin ends
    at T(1 + 4u) = 1 in floats: not certainly above, so status 2 (exact arithmetic decides)."""
    P = np.array([2.0, 7.0])
    qQ = np.array([1.0, 8.0])
    T = 1 - 4 * U
    assert T * (1 + 4 * U) == 1.0
    ex = {"e_lo": 1.0, "e_hi": 1.0, "T": {2: T}, "Tfloor": {2: 0.0}}
    st, best = screen._decide_int(P, qQ, np.zeros(2, dtype=np.int64), 1, ex, 2, False)
    assert st.tolist() == [2] and best.tolist() == [1.0]
    ex = {"e_lo": 1.0, "e_hi": 1.0, "T": {2: 0.5}, "Tfloor": {2: 0.0}}
    st, _ = screen._decide_int(P, qQ, np.zeros(2, dtype=np.int64), 1, ex, 2, False)
    assert st.tolist() == [1]


def test_binomial_table_holds_each_binomial_probability_rounded_once():
    import math

    for p, q, n in ((1, 2, 3), (2, 5, 4), (1, 1, 2), (3, 7, 0)):
        t = screen.binomial_table(p, q, n)
        ti = screen.binomial_table(p, q, n, integer=True)
        assert t.shape == ti.shape == (n + 2, n + 2)
        for c in range(n + 2):
            for s in range(n + 2):
                v = math.comb(c, s) * p**s * (q - p) ** (c - s) if s <= c <= n else 0
                assert ti[c, s] == float(v)
                assert t[c, s] == float(F(v, q**c))


def _sub_samples(c) -> int:
    import math

    return math.prod(v + 1 for v in c)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_screens_count_their_terms_as_sub_samples_times_the_laws(n):
    """Terms (the progress bar's unit): per-dataset screen, every (sub-sample, output) entry
    times m + 1 laws (D and its m neighbours); parents screen, every sub-sample of every parent
    times m + 1.  The randomized anonymizer has two outputs per sample (one with 3 zeros)."""
    import itertools

    from tests.test_exact_search_pairs_reference import _sample_law

    for name in ("repeated", "squares"):
        chk = _checker(name, F(1, 2), F(1), F(0), "hockey-stick", n)
        counts = np.array(_vectors(n), dtype=np.int64)
        pmf, ex = chk._setup(n)
        *_, terms = screen.screen_chunk((chk.table.arrays(), pmf, counts, chk.e_f, chk.d_f,
                                         False, ex))
        entries = sum(sum(1 for p in _sample_law(name, tuple(
            v for v, k in zip(DOMAIN, sub) for _ in range(k))).values() if p)
            for c in _vectors(n) for sub in itertools.product(*(range(v + 1) for v in c)))
        assert terms == entries * (M + 1)
    chk = _checker("repeated", F(1, 2), F(1), F(0), "hockey-stick", n)
    E = np.array(_vectors(n - 1), dtype=np.int64)
    T = chk._rank_T(M, n)
    pmf, ex = chk._setup(n)
    tab = {"rank_T": T, "out_of_rank": chk._out_of_rank(T, M, n), "n_outputs": 8,
           "beta_f": 0.5, "one_minus_beta_f": 0.5}
    *_, terms = screen.screen_parents((tab, pmf, E, chk.e_f, chk.d_f, False, ex, n))
    assert terms == sum(_sub_samples(c) for c in _vectors(n - 1)) * (M + 1)


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_parent_screen_gives_the_same_bits_with_the_dense_block_or_the_sparse_groups(
        monkeypatch, relation, definition):
    """The dense block B × L (used while B·L <= DENSE_LIMIT, divided by m for replace-one) and
    the sparse index of the groups that occur give every pair the same δ̂, error and status, bit
    for bit (a group no sample reaches adds exact zeros and is not counted in L), on both sides
    of the switch: the limit is a memory limit only.  Float mode, checked against the brute
    force."""
    name, beta, eps, n = "repeated", BETA_FLOAT, F(1, 2), 3
    chk = _checker(name, beta, eps, F(1, 100), definition, n)
    assert chk._setup(n)[1] is None  # float mode
    B = len(_vectors(n - 1))
    outputs = {ANONYMIZERS[name](tuple(v for v, s in zip(DOMAIN, c) for _ in range(s)))
               for k in range(n + 1) for c in _vectors(k)}
    per = M if relation == "replace-one" else 1
    edge = B * len(outputs) * per  # the largest limit at which the sparse groups are used is edge - 1

    def run(limit: int) -> tuple:
        monkeypatch.setattr(screen, "DENSE_LIMIT", limit)
        pairs, *arrays = _screen_parents(chk, n, relation)
        return pairs, [a.tolist() for a in arrays]

    ref = run(10**9)
    for limit in (0, edge - 1, edge, edge + 1):
        assert run(limit) == ref, limit
    assert any(e > 0 for e in ref[1][1])  # not every pair settled as δ = 0
    _check(name, beta, eps, definition, ref[0], *(np.array(a) for a in ref[1]), F(1, 100))


class _BincountSpy:
    """numpy for verdict/screen.py, recording the length of every ``np.bincount`` result (the
    screen's law and group arrays)."""

    def __init__(self) -> None:
        self.lengths: list[int] = []

    def __getattr__(self, name: str):
        return getattr(np, name)

    def bincount(self, *args, **kwargs):
        out = np.bincount(*args, **kwargs)
        self.lengths.append(len(out))
        return out


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_parent_screen_builds_the_dense_block_exactly_up_to_its_limit(monkeypatch, relation):
    """Memory: a law array of the dense block B × L (B parents, L outputs that occur) is built
    while B·L <= DENSE_LIMIT (B·L·m <= DENSE_LIMIT for replace-one); one entry above the limit
    no array of the screen is that long (only the groups that occur, far fewer here: every
    sample of <= 5 records over 6 atoms is its own output).  The numbers are the same bits on
    both sides."""
    m, n = 6, 5
    T = screen.rank_table(m, n)
    outputs = math.comb(n + m, m)  # one output per sample of <= n records
    E = np.array([c for c in itertools.product(range(n), repeat=m) if sum(c) == n - 1],
                 dtype=np.int64)
    tab = {"rank_T": T, "out_of_rank": np.arange(outputs, dtype=np.int64),
           "n_outputs": outputs, "beta_f": 1 / 3, "one_minus_beta_f": 2 / 3}
    job = (tab, screen.binomial_table(1, 3, n), E, 1.5, 0.01, False, None, n, relation)
    block = len(E) * outputs  # every output occurs for some parent: L = all of them
    edge = block * (m if relation == "replace-one" else 1)

    def run(limit: int) -> tuple[int, list]:
        spy = _BincountSpy()
        monkeypatch.setattr(screen, "DENSE_LIMIT", limit)
        monkeypatch.setattr(screen, "np", spy)
        try:
            got = screen.screen_parents(job)
        finally:
            monkeypatch.setattr(screen, "np", np)
        return max(spy.lengths), [a.tolist() for a in got[:5]]

    dense, sparse = run(edge), run(edge - 1)
    assert dense[0] == block
    assert sparse[0] < block // 2
    assert dense[1] == sparse[1]


def test_integer_decision_keeps_a_ratio_within_its_4u_margin_below_e_ambiguous():
    """One output, A = 2^53 − 5 against B = 2^52 − 1 at e = 2: A/B = 2(1 − 3u(1 + …)) lies
    inside the 4u margin below e (though above a 3u one), so the output is possibly bad and the
    claim 0 goes to exact arithmetic (status 2); at A = 2^53 − 9 (ratio 2(1 − 5u)) it is
    certainly not bad and δ = 0 is settled (status 0)."""
    B = np.array([2.0**52 - 1])
    ex = {"e_lo": 2.0, "e_hi": 2.0, "T": {1: 0.0}, "Tfloor": {1: 0.0}}
    for A, status in ((2.0**53 - 5, 2), (2.0**53 - 9, 0)):
        st, _ = screen._decide_int(np.array([A]), B, np.zeros(1, dtype=np.int64), 1, ex, 1,
                                   False)
        assert st.tolist() == [status], A


# ------------------------------------------------------- the parents screen's float error model
def _parent_error_model(name: str, n: int, relation: str, e: float) -> dict:
    """The documented float error of every pair of the parents screen at level n (module
    docstring of verdict/screen.py, screen_parents' float mode), recomputed from the datasets:
    err = 2 (G + L + 8) u (1 + e) with G = terms + (m + 4) + 2, where a parent E has
    K = Π (E_i + 1) sub-samples, terms = 2K per law of E + x (the sums W and R_x of the mixture
    (1 − β) W + β R_x) and 3K for a replace-one pair, m + 4 operations per weight (the model's
    m factors plus the mixture's roundings) and L the outputs that occur for E: those of its
    sub-samples S and of every S + x."""
    import itertools
    import math

    def sample(c) -> tuple:
        return tuple(v for v, s in zip(DOMAIN, c) for _ in range(s))

    per_law = 3 if relation == "replace-one" else 2
    out = {}
    for E in _vectors(n - 1):
        K = math.prod(c + 1 for c in E)
        subs = list(itertools.product(*(range(c + 1) for c in E)))
        L = len({ANONYMIZERS[name](sample(s)) for s in subs}
                | {ANONYMIZERS[name](sample(tuple(v + (j == x) for j, v in enumerate(s))))
                   for s in subs for x in range(M)})
        G = per_law * K + (M + 4) + 2
        err = 2.0 * (G + L + 8) * U * (1.0 + e)
        for x, y in itertools.product(range(M), repeat=2):
            a = tuple(v + (j == x) for j, v in enumerate(E))
            if relation == "replace-one":
                if x < y:
                    out[(a, tuple(v + (j == y) for j, v in enumerate(E)))] = err
            elif y == 0:
                out[(a, E)] = err
    return out


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_parent_screen_float_error_is_the_documented_model(relation):
    """Float mode (β = (2^17 + 1)/2^18: q^3 >= 2^53), hockey-stick: every pair the screen does
    not clear as δ = 0 carries exactly the documented error bound, which counts both sums of
    the mixture (2K terms, 3K for replace-one) and the mixture's roundings (m + 4); a model that
    counted fewer operations would settle near-ties the bound does not cover."""
    name, eps, n = "largest", F(1, 2), 3
    chk = _checker(name, BETA_FLOAT, eps, F(1, 100), "hockey-stick", n)
    assert chk._setup(n)[1] is None  # float mode
    pairs, dh, er, st = _screen_parents(chk, n, relation)
    model = _parent_error_model(name, n, relation, chk.e_f)
    assert sorted(pairs) == sorted(model)
    positive = 0
    for pair, v, e in zip(pairs, dh.tolist(), er.tolist()):
        if e == 0.0:  # the zero screen: no output near the bad side, δ = 0 exactly
            exact = _delta(_law(name, pair[0], BETA_FLOAT), _law(name, pair[1], BETA_FLOAT),
                           eps, "hockey-stick")
            assert v == 0.0 and exact == (0, 0), pair
            continue
        positive += 1
        assert e == model[pair], (pair, e, model[pair])
    assert positive >= len(pairs) // 2


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_parent_screen_sends_a_claim_within_its_error_of_the_exact_delta_to_exact(relation):
    """A near-tie: for the pair of largest exact δ, a claim one u(1 + e) inside the documented
    error above δ (and below it) is not settled by the screen (status 2), one u(1 + e) outside
    it is (0 above, 1 below), with δ from exact arithmetic and δ̂ within u(1 + e)/4 of it.  An
    error model one operation short (2u(1 + e) less) would settle the claims inside."""
    name, eps, n = "largest", F(1, 2), 3
    probe = _checker(name, BETA_FLOAT, eps, F(0), "hockey-stick", n)
    pairs, dh, er, _ = _screen_parents(probe, n, relation)
    exact = [_delta(_law(name, a, BETA_FLOAT), _law(name, b, BETA_FLOAT), eps, "hockey-stick")
             for a, b in pairs]
    i = max(range(len(pairs)), key=lambda j: exact[j][0])
    lo, hi = exact[i]
    assert hi - lo < F(1, 10**30) and lo > 0
    delta, e, tick = float(lo), float(er[i]), U * (1.0 + probe.e_f)
    assert e == _parent_error_model(name, n, relation, probe.e_f)[pairs[i]]
    assert abs(F(float(dh[i])) - lo) <= F(tick) / 4
    for claim, status in ((delta + e - tick, 2), (delta + e + tick, 0),
                          (delta - e + tick, 2), (delta - e - 2 * tick, 1)):
        chk = _checker(name, BETA_FLOAT, eps, F(claim), "hockey-stick", n)
        got = _screen_parents(chk, n, relation)
        j = got[0].index(pairs[i])
        assert got[3][j] == status, (claim - delta, status)


# ------------------------------------- the documented float comparisons, at their exact boundary
# Each screen decision below is a float comparison stated in verdict/screen.py's docstrings; the
# tests restate it, find the first float where it holds (values near 2^-1 or 2^53, where one
# float step is about u relative, so a margin one u wider or narrower moves the boundary by a
# step) and check the screen's status on both sides of it.

R = 2 * (4 + 2 + 2) * U  # r = 2Gu of _float_decide: terms 4, m = 2, so G = 8


def _first_float_where(holds, start: float) -> float:
    """The least float above ``start`` (stepping one float at a time) where ``holds``."""
    assert not holds(start)
    t = start
    for _ in range(400):
        t = math.nextafter(t, math.inf)
        if holds(t):
            return t
    raise AssertionError("no boundary within 400 floats")


def _float_status(p0: float, d: float, pointwise: bool, swap: bool) -> int:
    """Status of one pair with P = (p0, 1 − p0), Q = (1/4, 3/4), e = 2: only output 0 has a
    ratio near e (output 1's are 2/3 and 3/2); ``swap`` puts p0 on the Q side."""
    P, Q = [p0, 1 - p0], [0.25, 0.75]
    if swap:
        P, Q = Q, P
    return int(_float_decide(P, Q, 2.0, d, pointwise)[0][0])


@pytest.mark.parametrize("swap", [False, True])
def test_hockey_stick_zero_screen_switches_exactly_at_its_documented_comparison(swap):
    """'Possibly bad' iff P(1 + r) >= e(1 − 4u)·Q·(1 − r) (in floats): at the first p0 where it
    holds the claim 0 goes to exact arithmetic (status 2); one float below, δ = 0 is settled
    (status 0).  Here the two sides are equal floats at the boundary, so '>=' is what decides."""
    def holds(p: float) -> bool:
        return p * (1 + R) >= 2.0 * (1 - 4 * U) * 0.25 * (1 - R)

    b = _first_float_where(holds, 0.5 - 2.0**-48)
    assert b * (1 + R) == 2.0 * (1 - 4 * U) * 0.25 * (1 - R)
    assert _float_status(b, 0.0, False, swap) == 2
    assert _float_status(math.nextafter(b, 0), 0.0, False, swap) == 0


@pytest.mark.parametrize("swap", [False, True])
def test_pointwise_screen_possible_set_switches_exactly_at_its_documented_comparison(swap):
    """Pointwise 'possibly bad' iff P(1 + r) > e(1 − 2u)·Q·(1 − r): at the first p0 where it
    holds, output 0 (mass about 1/2) is in the enclosure's upper end only, so a claim of 1/10
    is not settled (status 2); one float below it is cleared (status 0)."""
    def holds(p: float) -> bool:
        return p * (1 + R) > 2.0 * (1 - 2 * U) * 0.25 * (1 - R)

    b = _first_float_where(holds, 0.5 - 2.0**-48)
    assert _float_status(b, 0.1, True, swap) == 2
    assert _float_status(math.nextafter(b, 0), 0.1, True, swap) == 0


@pytest.mark.parametrize("swap", [False, True])
def test_pointwise_screen_certain_set_switches_exactly_at_its_documented_comparison(swap):
    """Pointwise 'certainly bad' iff P(1 − r) > e(1 + 2u)·Q·(1 + r): at the first p0 where it
    holds, output 0 is in both ends, so a claim of 1/4 is certainly violated (status 1); one
    float below it is only possibly bad (status 2)."""
    def holds(p: float) -> bool:
        return p * (1 - R) > 2.0 * (1 + 2 * U) * 0.25 * (1 + R)

    b = _first_float_where(holds, 0.5)
    assert _float_status(b, 0.25, True, swap) == 1
    assert _float_status(math.nextafter(b, 0), 0.25, True, swap) == 2


def _int_status(A: float, B: float, T: float, pointwise: bool = False, swap: bool = False) -> int:
    """_decide_int on one output with scaled masses A (of P) and B (of Q), e^ε = 2 exactly
    (so only the 4u margin separates 'certain' from 'possible'), scaled claim T."""
    P, qQ = (np.array([B]), np.array([A])) if swap else (np.array([A]), np.array([B]))
    ex = {"e_lo": 2.0, "e_hi": 2.0, "T": {1: T}, "Tfloor": {1: float(math.floor(T))}}
    st, _ = screen._decide_int(P, qQ, np.zeros(1, dtype=np.int64), 1, ex, 1, pointwise)
    return int(st[0])


@pytest.mark.parametrize("pointwise", [False, True])
@pytest.mark.parametrize("swap", [False, True])
def test_integer_screen_possible_and_certain_sets_switch_at_their_documented_margins(pointwise,
                                                                                   swap):
    """Integer mode (masses are integers near 2^53, one float step = 1): an output is possibly
    bad iff A > e_lo·B·(1 − 4u) and certainly bad iff A > e_hi·B·(1 + 4u).  Possible but not
    certain sends the pair to exact arithmetic (status 2) whatever the claim; below the
    possible set the claim 0 is settled (status 0); in the certain set a claim of 1000 (far
    above A − eB) is decided (0 for hockey-stick, where δ is about A − eB; 1 for pointwise, where
    the output's whole mass A counts)."""
    B = 2.0**52 - 1
    b = _first_float_where(lambda a: a > 2.0 * B * (1 - 4 * U), 2.0**53 - 40)
    assert _int_status(b, B, 0.0, pointwise, swap) == 2
    assert _int_status(b - 1, B, 0.0, pointwise, swap) == 0
    B = 2.0**52 - 3
    b = _first_float_where(lambda a: a > 2.0 * B * (1 + 4 * U), 2.0**53 - 40)
    assert _int_status(b, B, 1000.0, pointwise, swap) == (1 if pointwise else 0)
    assert _int_status(b - 1, B, 1000.0, pointwise, swap) == 2


def test_integer_screen_claim_margins_switch_at_their_documented_comparisons():
    """Hockey-stick, one certainly bad output with A = 2^53 − 20 against B = 1: δ·q^n is
    enclosed by lo = (A − e) − 4u(A + e) and hi = (A − e) + 4u(A + e); the pair is a certain
    violation iff lo > T(1 + 4u), and cleared iff hi <= T(1 − 4u), else exact arithmetic
    decides.  Claims T near 2^53 (one float step = 1 = about u·T) on both sides of each."""
    A = 2.0**53 - 20
    lo = (A - 2.0) - 4 * U * (A + 2.0)
    hi = (A - 2.0) + 4 * U * (A + 2.0)
    t = _first_float_where(lambda T: not lo > T * (1 + 4 * U), 2.0**53 - 60)
    assert _int_status(A, 1.0, math.nextafter(t, 0)) == 1
    assert _int_status(A, 1.0, t) == 2
    t = _first_float_where(lambda T: hi <= T * (1 - 4 * U), 2.0**53 - 60)
    assert _int_status(A, 1.0, math.nextafter(t, 0)) == 2
    assert _int_status(A, 1.0, t) == 0


def test_underflow_free_reads_the_rows_of_n_records_and_refuses_a_shorter_table():
    """Rows c = 0..n of the table are read: a table built for fewer records raises rather than
    answering for the rows it has (a partial table would vouch for factors it never saw)."""
    with pytest.raises(IndexError):
        screen.underflow_free(screen.binomial_table(1, 2, 1), 5, 1)
    assert screen.underflow_free(screen.binomial_table(1, 2, 5), 5, 1)


@pytest.mark.parametrize("swap", [False, True])
def test_pointwise_screen_encloses_delta_between_its_certain_and_possible_masses(swap):
    """Pointwise float mode: the lower end is the larger mass (P or Q) of the certainly bad
    outputs shrunk by (1 − 2Gu), minus Lu; the upper end that of the possibly bad ones grown by
    (1 + 2Gu), plus Lu; the screen reports their midpoint and half-width plus 4u, bit for bit.
    Checked where the two ends differ (output 0 possibly but not certainly bad, one float
    below the certain boundary) and where they agree up to rounding (output 0 certainly bad),
    and the status of claims just inside and outside the upper end."""
    def holds(p: float) -> bool:
        return p * (1 - R) > 2.0 * (1 + 2 * U) * 0.25 * (1 + R)

    b = _first_float_where(holds, 0.5)
    for p0, certain in ((math.nextafter(b, 0), False), (b, True)):
        P, Q = [p0, 1 - p0], [0.25, 0.75]
        if swap:
            P, Q = Q, P
        mass = max(P[0], Q[0])
        lo = (mass if certain else 0.0) * (1 - R) - 2 * U
        hi = mass * (1 + R) + 2 * U
        st, dh, er = _float_decide(P, Q, 2.0, 0.1, True)
        assert dh[0] == (lo + hi) / 2 and er[0] == (hi - lo) / 2 + 4 * U
        if not certain:  # the claim just below / at the reported upper end dh + err
            top = dh[0] + er[0]
            assert _float_decide(P, Q, 2.0, math.nextafter(top, 0), True)[0][0] == 2
            assert _float_decide(P, Q, 2.0, top, True)[0][0] == 0


def test_integer_screen_at_eps_zero_compares_with_one_exactly():
    """ε = 0: e^ε = 1 exactly, so the integer screen uses no margin on it: an output with equal
    masses (ratio exactly 1) is not bad, and a pair whose outputs all have ratio 1 has δ = 0,
    settled for the claim 0 (status 0); with any margin it would be ambiguous (status 2)."""
    A = np.array([2.0**52, 3.0])
    ex = {"e_lo": 1.0, "e_hi": 1.0, "T": {1: 0.0}, "Tfloor": {1: 0.0}}
    for pointwise in (False, True):
        st, best = screen._decide_int(A, A.copy(), np.zeros(2, dtype=np.int64), 1, ex, 1,
                                      pointwise)
        assert st.tolist() == [0] and best.tolist() == [0.0]


def test_hockey_stick_zero_screen_counts_an_output_only_one_law_gives_and_skips_a_massless_one():
    """An output with P = 0 < Q (or Q = 0 < P) is certainly on the bad side (δ >= its mass):
    the zero screen must not clear the claim 0 (here δ = 1/2, a certain violation, status 1).
    An output neither law gives (P = Q = 0, as at β = 1) is on no side: with every other ratio
    1, δ = 0 is settled (status 0, error 0)."""
    for P, Q in (([0.0, 1.0], [0.5, 0.5]), ([0.5, 0.5], [0.0, 1.0])):
        st, dh, er = _float_decide(P, Q, 3.0, 0.0, False)
        assert st[0] == 1 and dh[0] == 0.5 and 0 < er[0] < 1e-12
    st, dh, er = _float_decide([0.0, 0.5, 0.5], [0.0, 0.5, 0.5], 3.0, 0.0, False)
    assert st[0] == 0 and dh[0] == 0.0 and er[0] == 0.0


def test_integer_screen_decides_a_bad_set_without_q_mass_exactly():
    """A certainly bad output whose other law has no mass there (B = 0): δ·q^n is A exactly, so
    it is compared with ⌊T⌋ without a margin: A = T = 5 holds the claim (status 0), A = 6 > T
    violates it (status 1)."""
    ex = {"e_lo": 2.0, "e_hi": 2.0, "T": {1: 5.0}, "Tfloor": {1: 5.0}}
    for A, status in ((5.0, 0), (6.0, 1)):
        st, best = screen._decide_int(np.array([A]), np.array([0.0]), np.zeros(1, dtype=np.int64),
                                      1, ex, 1, False)
        assert st.tolist() == [status] and best.tolist() == [A]


@pytest.mark.parametrize("parents", [False, True])
def test_float_screens_never_clear_delta_zero_when_a_weight_may_underflow(parents):
    """β = 2^-300: a weight of three factors may pass below 2^-900, where relative errors no
    longer hold (a flushed probability would look like 'no mass on the bad side'), so neither
    float screen declares δ = 0 from its comparisons: at the claim 0 every pair goes to exact
    arithmetic or is a certain violation (never status 0), and every status agrees with the
    brute force."""
    beta = F(1, 2**300)
    name, eps, n = ("largest", F(1, 2), 2) if parents else ("squares", F(1, 2), 2)
    chk = _checker(name, beta, eps, F(0), "hockey-stick", n)
    pmf, ex = chk._setup(n)
    assert ex is None and not screen.underflow_free(pmf, n, M)
    pairs, dh, er, st = (_screen_parents(chk, n, "add-remove") if parents
                         else _screen_datasets(chk, n))
    assert 0 not in st.tolist()
    for (a, b), s in zip(pairs, st.tolist()):
        lo, _ = _delta(_law(name, a, beta), _law(name, b, beta), eps, "hockey-stick")
        assert s == 2 or lo > 0, (a, b)


def test_rank_table_holds_the_colex_binomials_up_to_n_plus_one():
    """T[j, p] = C(p + j, j + 1) for j < m, p <= n + 1 (shape (m, n + 2)); the ranks of every
    count vector of <= n records are the dense range 0 .. C(n + m, m) − 1."""
    import itertools

    for m, n in ((1, 0), (2, 3), (3, 2)):
        T = screen.rank_table(m, n)
        assert T.shape == (m, n + 2)
        assert all(T[j, p] == math.comb(p + j, j + 1) for j in range(m) for p in range(n + 2))
        C = np.array([c for c in itertools.product(range(n + 1), repeat=m) if sum(c) <= n],
                     dtype=np.int64)
        assert sorted(screen.count_ranks(C, T).tolist()) == list(range(math.comb(n + m, m)))


@pytest.mark.parametrize("parents", [False, True])
def test_integer_screen_flags_a_pair_left_to_exact_arithmetic_with_error_one(parents):
    """Integer mode reports no rounding error for a settled pair (err 0) and err 1 (no bound:
    δ̂ is only a midpoint) for a pair it leaves to exact arithmetic (status 2), in both
    screens; the claim is the largest exact δ, so its ties are left to exact arithmetic."""
    name, beta, eps = "repeated", F(1, 2), F(0)

    def run(chk):
        return _screen_parents(chk, 3, "add-remove") if parents else _screen_datasets(chk, 3)

    pairs, *_ = run(_checker(name, beta, eps, F(0), "hockey-stick", 3))
    claim = max(_delta(_law(name, a, beta), _law(name, b, beta), eps, "hockey-stick")[0]
                for a, b in pairs)
    chk = _checker(name, beta, eps, claim, "hockey-stick", 3)
    assert chk._setup(3)[1] is not None
    _, _, er, st = run(chk)
    assert 2 in st.tolist() and 0 in st.tolist()
    assert er.tolist() == [1.0 if s == 2 else 0.0 for s in st.tolist()]


@pytest.mark.parametrize("parents", [False, True])
def test_float_screens_settle_delta_zero_when_no_weight_can_underflow(monkeypatch, parents):
    """The other side of the underflow guard: with moderate β every weight stays far above
    2^-900, so a pair whose laws agree (exact δ = 0: a record the randomized code ignores, or
    code publishing a constant) is settled at the claim 0 by the float screen itself (status 0,
    error exactly 0), not sent to exact arithmetic."""
    if parents:
        monkeypatch.setitem(ANONYMIZERS, "constant", lambda sample: 0)
        name, beta, n = "constant", BETA_FLOAT, 3
    else:
        name, beta, n = "squares", F(1, 2), 2
    chk = _checker(name, beta, F(1, 5), F(0), "hockey-stick", n)
    pmf, ex = chk._setup(n)
    assert ex is None and screen.underflow_free(pmf, n, M + 1)
    pairs, dh, er, st = (_screen_parents(chk, n, "add-remove") if parents
                         else _screen_datasets(chk, n))
    zero = [i for i, (a, b) in enumerate(pairs)
            if _delta(_law(name, a, beta), _law(name, b, beta), F(1, 5), "hockey-stick")[1] == 0]
    assert zero
    assert all(st[i] == 0 and er[i] == 0.0 and dh[i] == 0.0 for i in zero)


@pytest.mark.parametrize("parents", [False, True])
def test_float_screens_leave_a_violation_hidden_by_underflow_to_exact_arithmetic(monkeypatch,
                                                                                 parents):
    """β = 2^-400, code publishing whether all three records were sampled: for a dataset of 3
    records the output 1 has probability β^3 = 2^-1200, which is 0 in floats, and its neighbour
    of 2 records never gives it, so the true δ is 2^-1200 > 0 while both float laws show no
    mass there.  The claim δ = 0 must not be cleared by the float screen (status 2: exact
    arithmetic finds the violation)."""
    monkeypatch.setitem(ANONYMIZERS, "all-three", lambda sample: int(len(sample) >= 3))
    name, beta, eps, n = "all-three", F(1, 2**400), F(1, 2), 3
    chk = _checker(name, beta, eps, F(0), "hockey-stick", n)
    assert chk._setup(n)[1] is None
    pairs, dh, er, st = (_screen_parents(chk, n, "add-remove") if parents
                         else _screen_datasets(chk, n))
    hidden = [i for i, (a, b) in enumerate(pairs)
              if _delta(_law(name, a, beta), _law(name, b, beta), eps, "hockey-stick")[0]
              == beta**3]
    assert hidden
    assert all(st[i] == 2 for i in hidden)


def test_parent_screen_counts_m_plus_one_factors_per_weight_in_its_underflow_guard(monkeypatch):
    """A parents-screen weight is m binomial factors times β (the mixture (1 − β) W + β R_x):
    m + 1 = 4 factors here.  With 2 records the smallest factor is β^2, so at β = 2^-120 four of
    them reach 2^-960 (below 2^-900: δ = 0 is not declared by the float screen, status 2 at the
    claim 0) while at β = 2^-100 they stay at 2^-800 (settled, status 0), for code publishing a
    constant (δ = 0 for every pair)."""
    monkeypatch.setitem(ANONYMIZERS, "constant", lambda sample: 0)
    for beta, status in ((F(1, 2**120), 2), (F(1, 2**100), 0)):
        chk = _checker("constant", beta, F(1, 2), F(0), "hockey-stick", 2)
        assert chk._setup(2)[1] is None
        st = _screen_parents(chk, 2, "add-remove")[3]
        assert st.tolist() == [status] * len(st), beta


# ------------------------------------------------- a dataset's numbers do not depend on its batch
def _float_screen_alone_and_in_batch(parents: bool, name: str, beta: F, n: int):
    """(δ̂, err, status) of every pair of a float-mode screen of all datasets at level n in one
    batch, and of the same pairs with each dataset screened in a batch of its own."""
    chk = _checker(name, beta, F(1, 10), F(1, 100), "hockey-stick", n)
    pmf, ex = chk._setup(n)
    assert ex is None  # float mode
    if parents:
        E = np.array(_vectors(n - 1), dtype=np.int64)
        T = chk._rank_T(M, n)
        tab = {"rank_T": T, "out_of_rank": chk._out_of_rank(T, M, n),
               "n_outputs": max(len(chk.table.outputs), 1),
               "beta_f": float(beta), "one_minus_beta_f": float(1 - beta)}

        def run(rows: np.ndarray) -> tuple:
            return screen.screen_parents((tab, pmf, rows, chk.e_f, chk.d_f, False, None, n))
    else:
        E = np.array(_vectors(n), dtype=np.int64)
        tab = chk.table.arrays()

        def run(rows: np.ndarray) -> tuple:
            return screen.screen_chunk((tab, pmf, rows, chk.e_f, chk.d_f, False, None))
    di, xi, *arrays, _ = run(E)
    batch = {(int(i), int(x)): tuple(a[j] for a in arrays)
             for j, (i, x) in enumerate(zip(di.tolist(), xi.tolist()))}
    alone = {}
    for i in range(len(E)):
        dj, xj, *one, _ = run(E[i:i + 1])
        assert set(dj.tolist()) == {0}
        for j, x in enumerate(xj.tolist()):
            alone[(i, int(x))] = tuple(a[j] for a in one)
    return batch, alone


@pytest.mark.parametrize("parents", [False, True])
def test_float_screen_gives_a_dataset_the_same_bits_in_any_batch(parents):
    """Chunks (and so the worker count) must not change a result: each dataset's sub-samples
    are enumerated from its own first one wherever it stands in the batch, so every float sum
    is formed in the same order and δ̂, err and status are bit for bit those of the dataset
    screened alone (an enumeration shifted by the dataset's offset in the batch sums the same
    terms in another order, which moves low bits).  β = 333333/10^6 at 7 records: float mode
    (q^3 >= 2^53), with enough terms per output for the order to show."""
    batch, alone = _float_screen_alone_and_in_batch(parents, "repeated", F(333333, 10**6), 7)
    assert batch.keys() == alone.keys() and len(batch) > 20
    for key, got in batch.items():
        assert [float(v) for v in got] == [float(v) for v in alone[key]], key


def test_parent_screen_takes_its_parents_as_a_list_of_count_lists():
    """screen_parents is public and runs in workers on plain data: parents given as a list of
    count lists (not an int64 array) give the same pairs and the same bits."""
    n = 3
    chk = _checker("repeated", F(1, 2), F(1, 2), F(1, 10), "hockey-stick", n)
    E = np.array(_vectors(n - 1), dtype=np.int64)
    T = chk._rank_T(M, n)
    tab = {"rank_T": T, "out_of_rank": chk._out_of_rank(T, M, n),
           "n_outputs": max(len(chk.table.outputs), 1), "beta_f": 0.5, "one_minus_beta_f": 0.5}
    pmf, ex = chk._setup(n)
    as_array = screen.screen_parents((tab, pmf, E, chk.e_f, chk.d_f, False, ex, n))
    as_lists = screen.screen_parents((tab, pmf, E.tolist(), chk.e_f, chk.d_f, False, ex, n))
    assert len(as_array[2]) == len(E) * M  # every pair (E + x, E)
    assert [np.asarray(a).tolist() for a in as_array] == [np.asarray(a).tolist() for a in as_lists]
