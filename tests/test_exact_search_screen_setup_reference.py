"""The exact search's integer screen setup and the order of its exact decisions, against
references written from the definitions.

The integer screen (deterministic code, q^n < 2^53 for β = p/q) compares integer masses with
e^ε, which it takes as a float enclosure [e_lo, e_hi]: the floats just outside the rational
enclosure of e^ε (exactly 1 at ε = 0, where the screen is exact), and the claim scaled by q^n.
Reference: e^ε from mpmath at 300 bits (ε rational, e^ε transcendental for ε ≠ 0, so a float
is never equal to it; each comparison is checked to be far outside that precision).

Order: the candidates a screen cannot clear are decided exactly, certain violations first,
then the largest screened δ first, so the witness a level yields is its largest violation
when every violation is certain; the brute force is the hockey-stick δ (CP Def. 2) of the
laws summed over every sub-sample (CP Def. 3).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.core.types import Claim
from dps_verify.engine.count_vectors import Atoms, SampleTable
from dps_verify.engine.randomized import randomized
from dps_verify.verdict import exact_search as es
from dps_verify.verdict.executor import SerialExecutor
from tests.test_exact_search_pairs_reference import (
    ANONYMIZERS,
    DOMAIN,
    _delta,
    _law,
    _pairs,
)


def _checker(name: str, beta: F, eps: F, d: F) -> es.PairChecker:
    anon = ANONYMIZERS[name]
    table = SampleTable(anon, Atoms(anon, list(DOMAIN)), radix=4)
    return es.PairChecker(table, beta, eps, d, "hockey-stick", SerialExecutor())


def _side(x: float, eps: F) -> int:
    """Sign of x − e^ε, certain at 300 bits (asserted far from a tie)."""
    with mpmath.workprec(300):
        diff = mpmath.mpf(x) - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        assert abs(diff) > mpmath.mpf(2) ** -200 * max(1, abs(mpmath.mpf(x)))
        return 1 if diff > 0 else -1


EPSILONS = [F(1, 3), F(1, 2), F(1), F(7, 5), F(2), F(5), F(1, 1000)]


@pytest.mark.parametrize("eps", EPSILONS)
def test_integer_screen_encloses_e_to_the_eps_between_adjacent_floats(eps):
    """e_lo < e^ε < e_hi, at most 3 ulps apart (one float step beyond each end of the rational
    enclosure), and the claim scaled by q^n: T = float(δ·q^n), ⌊δ·q^n⌋."""
    d = F(3, 7)
    pmf, ex = _checker("repeated", F(1, 2), eps, d)._setup(3)
    assert ex is not None and ex["q"] == 2 and ex["p"] == 1
    assert _side(ex["e_lo"], eps) < 0 < _side(ex["e_hi"], eps)
    ulp = math.ulp(ex["e_lo"])
    assert ex["e_lo"] < ex["e_hi"] <= ex["e_lo"] + 3 * ulp
    assert ex["T"] == {3: float(d * 8)} and ex["Tfloor"] == {3: 3.0}
    # the exact integers C(c, s) p^s (q − p)^(c − s) of every sub-sample size c <= n
    for c in range(4):
        for s in range(c + 1):
            assert pmf[c, s] == math.comb(c, s)


def test_the_epsilons_reach_a_float_nearest_e_to_the_eps_below_and_above_it():
    """Control for the enclosure test: rounding e^ε to the nearest float goes down for some of
    its ε and up for others, so neither end may be the nearest float itself."""
    sides = set()
    for eps in EPSILONS:
        with mpmath.workprec(300):
            nearest = float(mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator))
        sides.add(_side(nearest, eps))
    assert sides == {-1, 1}


def test_integer_screen_takes_e_to_the_zero_as_exactly_one():
    pmf, ex = _checker("repeated", F(2, 5), F(0), F(1, 10))._setup(2)
    assert ex is not None and ex["e_lo"] == 1.0 == ex["e_hi"]
    assert ex["T"] == {2: 2.5} and ex["Tfloor"] == {2: 2.0}
    assert pmf[2, 1] == 2 * 2 * 3  # C(2, 1) p (q − p), β = 2/5


def test_integer_screen_stops_where_q_to_the_n_reaches_two_to_the_53():
    """Integers below 2^53 are exact floats: q^n = 2^52 still screens in integers, 2^53 not;
    randomized code never does."""
    chk = _checker("repeated", F(1, 2), F(1), F(1, 2))
    assert chk._setup(52)[1] is not None
    assert chk._setup(53)[1] is None
    rnd = _checker("squares", F(1, 2), F(1), F(1, 2))
    pmf, ex = rnd._setup(3)
    assert ex is None and pmf[3, 1] == 3 / 8  # the float binomial law, C(3, 1) / 2^3


def test_search_at_eps_zero_with_a_clear_claim_decides_no_pair_exactly():
    """At ε = 0 the integer screen is exact (e^0 = 1, no margin): a claim clearly above every
    δ up to 3 records clears every pair in the screen; a claim equal to the largest δ (an exact
    tie, which the screen leaves to exact arithmetic) is the control that the count can move."""
    beta, eps = F(2, 5), F(0)
    top = max(_delta(_law("repeated", a, beta), _law("repeated", b, beta), eps,
                     "hockey-stick")[1] for n in (1, 2, 3) for a, b in _pairs(n, "add-remove"))
    kwargs = {"max_size": 3, "executor": "serial", "progress": False}
    clear = es.exhaustive_search(ANONYMIZERS["repeated"], list(DOMAIN),
                                 Claim(beta, eps, top + F(1, 10)), **kwargs)
    assert clear.witness is None and clear.exact_checks == 0 and clear.pairs > 0
    tie = es.exhaustive_search(ANONYMIZERS["repeated"], list(DOMAIN), Claim(beta, eps, top),
                               **kwargs)
    assert tie.witness is None and tie.exact_checks > 0


def test_raise_undecided_names_the_first_undecided_pair():
    from dataclasses import replace

    from dps_verify.verdict.witness import Witness

    res = es.shape_search(ANONYMIZERS["repeated"], list(DOMAIN), Claim(F(1, 2), 1, 1),
                          max_records=2, executor="serial")
    first, second = (Witness(dataset=ds, neighbour=ds[:1], event=(), p_event=F(1, 2),
                             q_event=F(1, 4), epsilon=F(1), implied_delta=F(0))
                     for ds in ((0, 1), (2, 2)))
    with pytest.raises(CertificationError, match=r"^2 pair\(s\).*D = \[0, 1\]\)"):
        es.raise_undecided(replace(res, undecided=[first, second]))


# ------------------------------------------------------------ the order of the exact decisions
def _twos_law(sample: tuple) -> dict:
    """Randomized: 'hit' with probability (1 + t²)/10, t the number of 2s (the last value, so the
    canonical order of datasets, which starts with the most 0s, meets the largest δ last)."""
    hit = F(1 + sample.count(2) ** 2, 10)
    return {"hit": hit, "miss": 1 - hit}


SEARCHED = {"largest": ANONYMIZERS["largest"], "squares": ANONYMIZERS["squares"],
            "twos": randomized(_twos_law)}


def _brute_law(name: str, counts: tuple[int, ...], beta: F) -> dict:
    if name != "twos":
        return _law(name, counts, beta)
    out: dict = {}
    n = sum(counts)
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        k = sum(sub)
        w = math.prod(math.comb(c, s) for c, s in zip(counts, sub)) * beta**k * (1 - beta)**(n - k)
        for y, p in _twos_law(tuple(v for v, s in zip(DOMAIN, sub) for _ in range(s))).items():
            out[y] = out.get(y, F(0)) + w * p
    return out


@pytest.mark.parametrize("name, claim", [("largest", F(1, 100)), ("largest", F(1, 4)),
                                         ("squares", F(1, 100)), ("squares", F(1, 10)),
                                         ("twos", F(1, 100)), ("twos", F(1, 10))])
def test_exhaustive_search_decides_certain_violations_first_then_the_largest_delta(
        monkeypatch, name, claim):
    """The candidates each level hands to the exact decisions (recorded; none is decided, so
    every level is screened): the pairs with δ above the claim (certain) by δ descending, then
    those with δ equal to it (a tie the screen leaves to exact arithmetic), ties by dataset row
    and atom; no pair below the claim.  The level-by-parents screen (deterministic code) and the
    per-dataset screen (randomized code, whose equal δ may be ordered by their float
    rounding), at ε = 0 and β = 1/2.  Each screen also marks each candidate: status 0 for a
    certain violation, 1 for a tie (no δ here lies within the float error of the claim
    otherwise), which is what puts a certain violation of smaller δ before a candidate of
    larger δ the screen could not place."""
    beta, eps = F(1, 2), F(0)
    seen: list[list] = []

    def record(self, counts, cand, **info):
        seen.append([(i, x) for _st, _dh, i, x in cand])
        statuses.append([st for st, *_ in cand])
        return None

    statuses: list[list[int]] = []
    monkeypatch.setattr(es.PairChecker, "first_violation", record)
    res = es.exhaustive_search(SEARCHED[name], list(DOMAIN), Claim(beta, eps, claim),
                               max_size=3, executor="serial", progress=False)
    assert res.witness is None and len(seen) == 3
    kinds = set()
    for n, got in zip((1, 2, 3), seen):
        rows = [tuple(int(v) for v in r) for r in es.level_counts(len(DOMAIN), n)]
        ref = []
        for i, a in enumerate(rows):
            for x in range(len(DOMAIN)):
                if a[x]:
                    b = tuple(v - (j == x) for j, v in enumerate(a))
                    v = _delta(_brute_law(name, a, beta), _brute_law(name, b, beta), eps,
                               "hockey-stick")[0]
                    if v >= claim:
                        ref.append((0 if v > claim else 1, -v, i, x))
                        kinds.add(ref[-1][0])
        if name != "largest":  # float screen: equal δ may differ in their last bits
            key = {(i, x): (k, v) for k, v, i, x in ref}
            assert sorted(got) == sorted(key) and [key[g] for g in got] == sorted(key.values())
            assert statuses[n - 1] == [key[g][0] for g in got], n
        else:  # integer screen: exact, ties by row and atom; status 0 = certain, 1 = a tie
            assert got == [(i, x) for *_, i, x in sorted(ref)], n
            assert statuses[n - 1] == [k for k, *_ in sorted(ref)], n
    # the claim 1/4 (1/10) is a tie with some pairs: both kinds of candidate occur
    assert kinds == ({0} if claim == F(1, 100) else {0, 1})
    assert len({v for got in seen for v in got}) > 1


def test_shape_search_at_beta_one_decides_the_largest_enclosure_first(monkeypatch):
    """At β = 1 the shape search encloses each pair in integers and decides the ones above the
    claim largest upper end first: shapes offered with δ growing give the last one as witness.
    Randomized code reports 'hit' with probability (1 + z²)/10 for z zeros, so (D, D − 0) has
    δ (2z − 1)/10 at ε = 0: 1/10, 3/10, 5/10 for z = 1, 2, 3 (three records each)."""
    from dps_verify.verdict import shapes

    offered = [{0: 1, 1: 2}, {0: 2, 1: 1}, {0: 3}]

    def stand_in(values, ks, **kwargs):
        for counts in offered:
            yield "stand-in", counts, None

    monkeypatch.setattr(shapes, "leak_shapes", stand_in)
    claim = F(1, 20)
    for counts in offered:
        a = tuple(counts.get(i, 0) for i in range(len(DOMAIN)))
        b = tuple(v - (i == 0) for i, v in enumerate(a))
        z = a[0]
        assert _delta(_law("squares", a, F(1)), _law("squares", b, F(1)), F(0),
                      "hockey-stick") == (F(2 * z - 1, 10),) * 2
    res = es.shape_search(ANONYMIZERS["squares"], list(DOMAIN), Claim(F(1), F(0), claim),
                          executor="serial")
    w = res.witness
    assert w is not None and w.dataset == (0, 0, 0) and w.neighbour == (0, 0)
    assert res.exact_checks == 1
    # a claim equal to the largest δ: its enclosure's upper end is within the claim, so every
    # pair is cleared in integers and none is decided exactly
    tie = es.shape_search(ANONYMIZERS["squares"], list(DOMAIN), Claim(F(1), F(0), F(1, 2)),
                          executor="serial")
    assert tie.witness is None and tie.exact_checks == 0 and tie.pairs == 5


@pytest.mark.parametrize("claim", [F(1, 100), F(1, 4)])
def test_replace_one_candidates_name_the_pairs_of_their_parents(monkeypatch, claim):
    """Replace-one (the level-by-parents screen, deterministic code): the candidates of level n
    are (status, −δ̂, parent row, x·m + y) for the pairs (E + x, E + y), x < y, of the parents E
    of n − 1 records; against the brute force: first every pair with δ above the claim (the
    certain violations), by δ descending, ties by parent row and code; then the pairs the
    screen leaves to exact arithmetic, all of them ties (δ equal to the claim 1/4; a tie whose
    bad set has no mass under the other law is cleared exactly in integers), by parent row and
    code; nothing else.  So a level's witness is a certain violation
    whenever it holds one."""
    beta, eps = F(1, 2), F(0)
    m = len(DOMAIN)
    seen: list[list] = []

    def record(self, parents, cand, **info):
        seen.append([(i, code) for _st, _dh, i, code in cand])
        return None

    left: list[int] = []  # the levels with ties left to exact arithmetic
    monkeypatch.setattr(es.PairChecker, "first_violation_replace", record)
    res = es.exhaustive_search(ANONYMIZERS["largest"], list(DOMAIN), Claim(beta, eps, claim),
                               max_size=3, executor="serial", progress=False,
                               relation="replace-one")
    assert res.witness is None and len(seen) == 3
    for n, got in zip((1, 2, 3), seen):
        parents = [tuple(int(v) for v in r) for r in es.level_counts(m, n - 1)]
        ref, ties = [], set()
        for i, e in enumerate(parents):
            for x, y in itertools.combinations(range(m), 2):
                a = tuple(v + (j == x) for j, v in enumerate(e))
                b = tuple(v + (j == y) for j, v in enumerate(e))
                v = _delta(_law("largest", a, beta), _law("largest", b, beta), eps,
                           "hockey-stick")[0]
                if v > claim:
                    ref.append((-v, i, x * m + y))
                elif v == claim:
                    ties.add((i, x * m + y))
        certain = [(i, code) for _, i, code in sorted(ref)]
        assert got[:len(certain)] == certain, n
        rest = got[len(certain):]
        assert set(rest) <= ties and rest == sorted(rest), n
        if rest:
            left.append(n)
    assert len(seen[1]) > 1 and any(i > 0 for i, _ in seen[2])
    # the claim 1/4 is a tie with pairs of levels 2 and 3, which also hold pairs of δ 1/2
    assert left == ([] if claim == F(1, 100) else [2, 3])


def test_per_dataset_screen_names_its_worst_pair():
    """Randomized code (the per-dataset screen): the screened worst pair is the pair of largest δ
    up to 3 records, here unique: (2, 2, 2) and (2, 2), by the brute force; its dataset is the
    last of its level in canonical order, so a wrong row offset names another dataset."""
    beta, eps = F(1, 2), F(0)
    best = max((_delta(_brute_law("twos", a, beta), _brute_law("twos", b, beta), eps,
                       "hockey-stick")[0], a, b)
               for n in (1, 2, 3) for a, b in _pairs(n, "add-remove"))
    assert best[1:] == ((0, 0, 3), (0, 0, 2))
    res = es.exhaustive_search(SEARCHED["twos"], list(DOMAIN), Claim(beta, eps, F(1)),
                               max_size=3, executor="serial", progress=False)
    w = res.worst
    assert w is not None and w["dataset"] == (2, 2, 2) and w["target"] == 2 and w["size"] == 3
    assert abs(w["delta_screened"] - float(best[0])) < 1e-12


def test_public_names_are_the_two_searches_and_their_helpers():
    """``__all__`` names the module's public API (a star import or the docs take it), the
    leak-shape search included, and every name it lists exists."""
    assert sorted(es.__all__) == ["DEFAULT_WORK_BUDGET", "SearchResult", "decide_pair",
                                  "estimate_work", "exhaustive_search", "level_counts",
                                  "raise_undecided", "shape_search"]
    assert all(hasattr(es, name) for name in es.__all__)


def test_a_budget_below_one_record_still_searches_every_dataset_of_one_record():
    """The search is cut to the largest size its budget covers, but never below 1: with a budget
    of one term the datasets of one record are still searched (and the note says so)."""
    with pytest.warns(UserWarning, match="raise work_budget") as caught:
        res = es.exhaustive_search(ANONYMIZERS["largest"], list(DOMAIN), Claim(F(1, 2), 0, F(1)),
                                   max_size=3, work_budget=1, executor="serial", progress=False)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert res.sizes == [1] and res.max_size == 1 and res.pairs == len(DOMAIN)
    assert any("up to 1 records instead" in note for note in res.notes)


def test_replace_one_float_screen_reports_its_error_bound():
    """β = 1/2^20 over 3 records: q^n = 2^60 >= 2^53, so the parents screen runs in floats and
    its error bound (positive, tiny) is reported for replace-one as for add-remove."""
    claim = Claim(F(1, 2**20), 0, F(1))
    for relation in ("add-remove", "replace-one"):
        res = es.exhaustive_search(ANONYMIZERS["largest"], list(DOMAIN), claim, max_size=3,
                                   executor="serial", progress=False, relation=relation)
        assert res.witness is None and 0 < res.error_bound < 1e-12, relation


@pytest.mark.parametrize("beta", [F(1, 2), F(1)])
def test_screening_an_empty_batch_finds_no_candidate(beta):
    """PairChecker.screen of a batch with no dataset (both routes: sampling, and β = 1 without
    sub-samples) returns no candidate and counts no pair, without reading a first row."""
    import numpy as np

    chk = _checker("largest", beta, F(0), F(1, 10))
    assert chk.screen(np.zeros((0, len(DOMAIN)), dtype=np.int64)) == []
    assert chk.pairs == 0 and chk.worst is None


def test_a_violation_its_witness_certifies_is_not_marked_decided_exactly():
    """decide_pair: ({0}, ∅) for "largest" at β = 1/2 has δ = 1/2 at any ε (output 0 has no mass
    under ∅), so the witness's own certified mass convicts it against the claim 1/100; the exact
    comparison of e^ε (and its note) is kept for pairs the witness cannot convict."""
    from dps_verify.engine.count_vectors import ExactLaws
    from dps_verify.verdict.witness import EXACT_DECISION_NOTE

    chk = _checker("largest", F(1, 2), F(1, 2), F(1, 100))
    chk.table.ensure([[1, 0, 0], [0, 0, 0]])
    status, w = es.decide_pair(ExactLaws(chk.table, F(1, 2)), [1, 0, 0], 0, F(1, 2), F(1, 100),
                               "hockey-stick")
    assert status == "violation" and w is not None and w.implied_delta == F(1, 2)
    assert w.note != EXACT_DECISION_NOTE


def test_replace_one_without_the_parents_screen_decides_every_pair_of_each_parent(monkeypatch):
    """Randomized code, replace-one: no screen, every pair (E + x, E + y), x < y, of every parent
    E goes to the exact decision, coded x·m + y (first_violation_replace decodes it with divmod)."""
    m = len(DOMAIN)
    seen: list[list] = []

    def record(self, parents, cand, **info):
        seen.append([(tuple(int(v) for v in parents[i]), divmod(code, m))
                     for _st, _dh, i, code in cand])
        return None

    monkeypatch.setattr(es.PairChecker, "first_violation_replace", record)
    es.exhaustive_search(ANONYMIZERS["squares"], list(DOMAIN), Claim(F(1, 2), 0, F(1)),
                         max_size=2, executor="serial", progress=False, relation="replace-one")
    for n, got in zip((1, 2), seen):
        parents = [tuple(int(v) for v in r) for r in es.level_counts(m, n - 1)]
        assert got == [(e, (x, y)) for e in parents
                       for x, y in itertools.combinations(range(m), 2)], n
