"""The exact search against a brute force written from the definitions.

Reference (independent of the engine): the law of A^β(D) is summed over every sub-sample of D
(each record kept independently with probability β, CP Def. 3); the hockey-stick δ of a pair is
max over both directions of Σ_y max(0, P(y) − e^ε Q(y)) (CP Def. 2) and the pointwise δ is the
larger of P(B), Q(B) over B = {y : |ln P(y)/Q(y)| > ε} (TR Def. 2).  e^ε is enclosed by its Taylor
series with the remainder bound (0 ≤ ε ≤ 1), so each reference verdict is certain, and the claims
are chosen away from the enclosure.

Every small search is compared with the reference on everything it reports: the verdict, the
size of the minimal witness and that the witness really violates, the sizes covered, the pairs,
datasets and samples counted, the screened worst pair and its δ, the error bound and the worker
count; and the exact pair decision (integer enclosure, exact decision) on every pair up to three
records.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Mapping
from fractions import Fraction as F
from types import MappingProxyType

import pytest

from dps_verify.core.types import Claim
from dps_verify.engine.count_vectors import Atoms, ExactLaws, SampleTable
from dps_verify.engine.randomized import randomized
from dps_verify.verdict.exact_search import (
    _float_clamped,
    _integer_enclosure,
    decide_pair,
    exhaustive_search,
)

DOMAIN = (0, 1, 2)


@functools.cache
def _exp_bounds(eps: F) -> tuple[F, F]:
    """[lo, hi] ∋ e^ε for 0 ≤ ε ≤ 1: 40 Taylor terms, remainder ≤ 2 ε^40 / 40!.  Computed once
    per ε for the whole session (a pure function of ε: shared by every test that needs it)."""
    lo = sum((eps**k / math.factorial(k) for k in range(40)), F(0))
    return lo, lo + 2 * eps**40 / math.factorial(40)


# ----------------------------------------------------------------------------- the anonymizers
def _repeated(sample: tuple) -> tuple:
    """Publishes the values held at least twice (a suppression threshold of 2)."""
    return tuple(sorted(v for v in set(sample) if sample.count(v) >= 2))


def _largest(sample: tuple) -> int:
    return max(sample, default=-1)


def _squares_law(sample: tuple) -> dict:
    """Randomized: reports 'hit' with probability (1 + z²) / 10, z the number of zeros (≤ 3)."""
    hit = F(1 + sample.count(0) ** 2, 10)
    return {"hit": hit, "miss": 1 - hit}


ANONYMIZERS = {"repeated": _repeated, "largest": _largest, "squares": randomized(_squares_law)}


def _sample_law(name: str, sample: tuple) -> dict:
    if name == "squares":
        return _squares_law(sample)
    return {ANONYMIZERS[name](sample): F(1)}


def _law(name: str, counts: tuple[int, ...], beta: F) -> Mapping:
    """Pr[A^β(D) = y] by summing over every sub-sample of D (brute force), read-only."""
    return _law_of(name, ANONYMIZERS[name], counts, beta)


@functools.cache
def _law_of(name: str, anon: object, counts: tuple[int, ...], beta: F) -> Mapping:
    """:func:`_law`, computed once per (anonymizer, dataset, β) for the whole session: a pure
    reference shared by every test (the anonymizers are plain functions of a sample; keyed by
    the function registered under ``name``, so a test that registers another one gets its own)."""
    n = sum(counts)
    out: dict = {}
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        k = sum(sub)
        w = math.prod(math.comb(c, s) for c, s in zip(counts, sub)) * beta**k * (1 - beta)**(n - k)
        sample = tuple(v for v, s in zip(DOMAIN, sub) for _ in range(s))
        for y, p in _sample_law(name, sample).items():
            out[y] = out.get(y, F(0)) + w * p
    return MappingProxyType({y: p for y, p in out.items() if p})


def _hockey(P: Mapping, Q: Mapping, e: F) -> F:
    def one(A: Mapping, B: Mapping) -> F:
        return sum((max(F(0), a - e * B.get(y, F(0))) for y, a in A.items()), F(0))
    return max(one(P, Q), one(Q, P))


def _delta(P: Mapping, Q: Mapping, eps: F, definition: str) -> tuple[F, F]:
    """[lower, upper] ∋ the exact δ of (P, Q) (a point for pointwise and for ε = 0)."""
    lo_e, hi_e = _exp_bounds(eps)
    if definition == "hockey-stick":
        return _hockey(P, Q, hi_e), _hockey(P, Q, lo_e)
    bad = set()
    for y in set(P) | set(Q):
        p, q = P.get(y, F(0)), Q.get(y, F(0))
        if p == 0 or q == 0:
            bad.add(y)
            continue
        r = max(p / q, q / p)
        assert not lo_e <= r <= hi_e or eps == 0 and r == 1, "ratio too close to e^eps"
        if r > hi_e:
            bad.add(y)
    v = max(sum((P.get(y, F(0)) for y in bad), F(0)), sum((Q.get(y, F(0)) for y in bad), F(0)))
    return v, v


def _vectors(n: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(n + 1), repeat=len(DOMAIN)) if sum(c) == n]


def _pairs(n: int, relation: str) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every neighbouring pair whose larger dataset has n records (replace-one: both n)."""
    out = []
    if relation == "add-remove":
        for c in _vectors(n):
            for x in range(len(DOMAIN)):
                if c[x]:
                    out.append((c, tuple(v - (i == x) for i, v in enumerate(c))))
    else:
        for e in _vectors(n - 1):
            for x, y in itertools.combinations(range(len(DOMAIN)), 2):
                out.append((tuple(v + (i == x) for i, v in enumerate(e)),
                            tuple(v + (i == y) for i, v in enumerate(e))))
    return out


def _counts_of(records) -> tuple[int, ...]:
    return tuple(list(records).count(v) for v in DOMAIN)


# ------------------------------------------------------------------------ the search as a whole
CASES = [
    # anonymizer, beta, eps, definition, relation, claim: a number, "below" (just below the
    # largest δ up to 3 records) or "levels12" (the largest δ up to 2 records: a FAIL, if any,
    # at 3 records)
    ("repeated", F(1, 2), F(1), "hockey-stick", "add-remove", "levels12"),
    ("repeated", F(1, 2), F(1), "hockey-stick", "add-remove", F(1, 10)),
    ("repeated", F(2, 5), F(0), "hockey-stick", "add-remove", "below"),
    ("repeated", F(1), F(1, 2), "hockey-stick", "add-remove", F(1, 2)),
    ("repeated", F(1, 2), F(1, 2), "pointwise", "add-remove", "levels12"),
    ("largest", F(1, 2), F(1, 2), "pointwise", "add-remove", "below"),
    ("largest", F(1, 3), F(1), "hockey-stick", "replace-one", "levels12"),
    ("largest", F(1, 2), F(1), "pointwise", "replace-one", F(1, 10)),
    ("squares", F(1, 2), F(1, 5), "hockey-stick", "add-remove", "levels12"),
    ("squares", F(1, 2), F(0), "pointwise", "add-remove", F(1, 10)),
    ("squares", F(1, 2), F(1, 10), "hockey-stick", "replace-one", "levels12"),
    ("repeated", F(1, 2), F(1), "hockey-stick", "add-remove", F(1)),  # a PASS at every size
]


@pytest.mark.parametrize("name, beta, eps, definition, relation, claim", CASES)
def test_exhaustive_search_reports_what_the_brute_force_finds(name, beta, eps, definition,
                                                              relation, claim):
    max_size = 3
    levels = {n: [(a, b, _delta(_law(name, a, beta), _law(name, b, beta), eps, definition))
                  for a, b in _pairs(n, relation)] for n in range(1, max_size + 1)}
    if claim == "below":  # just below the largest δ of the sizes searched: a FAIL at some size
        claim = max(enc[0] for lv in levels.values() for *_, enc in lv) - F(1, 10**30)
    elif claim == "levels12":
        claim = max(enc[1] for n in (1, 2) for *_, enc in levels[n])
    for lv in levels.values():
        for *_, (lo, hi) in lv:
            assert hi <= claim or lo > claim  # every reference verdict is certain
    stop = next((n for n in levels if any(enc[0] > claim for *_, enc in levels[n])), None)
    last = stop or max_size

    t0 = time.perf_counter()
    res = exhaustive_search(ANONYMIZERS[name], list(DOMAIN), Claim(beta, eps, claim, definition),
                            max_size=max_size, executor="serial", relation=relation,
                            progress=False)
    assert 0 <= res.seconds <= time.perf_counter() - t0

    assert (res.witness is None) == (stop is None)
    assert res.sizes == list(range(1, last + 1)) and res.max_size == last
    assert res.requested_size == max_size and res.atoms == len(DOMAIN) and res.reduction is None
    assert res.pairs == sum(len(levels[n]) for n in range(1, last + 1))
    assert res.datasets == sum(len(_vectors(n)) for n in range(1, last + 1))
    # every sample of <= last records (a probe of the anonymizer may add one more)
    assert math.comb(last + 3, 3) <= res.samples <= max(math.comb(last + 3, 3) + 1, 5)
    assert res.workers == 1 and res.undecided == [] and res.notes == []
    assert 0 <= res.error_bound < 1e-12
    if name != "squares" and beta.denominator ** last < 2**53:  # integer screen: no error
        assert res.error_bound == 0.0
    elif res.worst is not None and res.worst["delta_screened"] > 0:  # float screen
        assert res.error_bound > 0
    if stop is not None:
        w = res.witness
        assert w.minimal and max(len(w.dataset), len(w.neighbour)) == stop
        a, b = _counts_of(w.dataset), _counts_of(w.neighbour)
        lo, hi = _delta(_law(name, a, beta), _law(name, b, beta), eps, definition)
        assert lo > claim and claim < w.implied_delta <= hi
        assert res.exact_checks >= 1
    # every screened search reports its worst pair: not randomized code under replace-one
    # (no screen: every pair is decided exactly)
    assert (res.worst is None) == (name == "squares" and relation == "replace-one")
    if res.worst is not None:  # the screened worst pair of the levels searched, and its δ
        screened = [(a, b, enc) for n in range(1, last + 1) for a, b, enc in levels[n]]
        top = max(enc[1] for *_, enc in screened)
        assert abs(res.worst["delta_screened"] - float(top)) <= 1e-12
        assert res.worst["size"] <= last
        d_counts = _counts_of(res.worst["dataset"])
        assert sum(d_counts) == res.worst["size"]
        x = DOMAIN.index(res.worst["target"])
        if relation == "add-remove":
            other = tuple(v - (i == x) for i, v in enumerate(d_counts))
        else:
            y = DOMAIN.index(res.worst["replacement"])
            other = tuple(v - (i == x) + (i == y) for i, v in enumerate(d_counts))
        enc = _delta(_law(name, d_counts, beta), _law(name, other, beta), eps, definition)
        assert abs(float(enc[1]) - res.worst["delta_screened"]) <= 1e-12


def test_search_of_a_deterministic_anonymizer_screens_its_worst_pair():
    """The level-by-parents screen reports the worst pair (a control that the comparison above
    sees a worst pair at all for deterministic code)."""
    res = exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), max_size=3,
                            executor="serial", progress=False)
    assert res.worst is not None and res.worst["delta_screened"] > 0


# ---------------------------------------------------------------------- every pair decided exactly
def _table(name: str, size: int, beta: F) -> ExactLaws:
    anon = ANONYMIZERS[name]
    atoms = Atoms(anon, list(DOMAIN))
    assert list(atoms.values) == list(DOMAIN)
    table = SampleTable(anon, atoms, radix=size + 1)
    table.ensure([list(c) for n in range(size + 1) for c in _vectors(n)])
    return ExactLaws(table, beta)


@pytest.mark.parametrize("name", ["repeated", "squares"])
@pytest.mark.parametrize("eps", [F(0), F(1, 2)])
def test_integer_enclosure_holds_the_exact_delta_and_is_exact_at_eps_zero(name, eps):
    beta = F(1, 2)
    laws = _table(name, 3, beta)
    seen = 0
    for n in (1, 2, 3):
        for a, b in _pairs(n, "add-remove"):
            lo, hi = _delta(_law(name, a, beta), _law(name, b, beta), eps, "hockey-stick")
            enc = _integer_enclosure(laws, list(a), list(b), eps)
            if enc is None:
                continue
            seen += 1
            assert enc[0] <= lo and hi <= enc[1] and enc[1] - enc[0] < F(1, 10**15)
            if eps == 0:
                assert enc[0] == enc[1] == lo
    assert seen >= 10


@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
@pytest.mark.parametrize("eps", [F(0), F(1)])
def test_decide_pair_agrees_with_the_brute_force_on_every_small_pair(definition, eps):
    beta = F(1, 2)
    name = "repeated"
    laws = _table(name, 3, beta)
    for n in (1, 2, 3):
        for a, b in _pairs(n, "add-remove"):
            lo, hi = _delta(_law(name, a, beta), _law(name, b, beta), eps, definition)
            x = next(i for i in range(len(DOMAIN)) if a[i] != b[i])
            for claim in {F(0), lo - F(1, 10**30), hi, F(1, 7)}:
                if claim < 0 or lo <= claim < hi:
                    continue
                status, w = decide_pair(laws, a, x, eps, claim, definition)
                assert status == ("violation" if lo > claim else "ok"), (a, b, claim)
                # a violation always carries its witness; a hockey-stick "ok" at ε = 0 is
                # settled by the integer enclosure (exact there) without building one
                if status == "violation" or definition == "pointwise":
                    assert w is not None
                elif eps == 0:
                    assert w is None, (a, b, claim)
                if status == "violation":
                    assert claim < w.implied_delta <= hi


def test_float_clamped_rounds_to_the_largest_float_and_steps_up_when_asked():
    import sys

    big = F(sys.float_info.max)
    assert _float_clamped(big * 2) == sys.float_info.max
    assert _float_clamped(big) == sys.float_info.max
    assert _float_clamped(big, up=True) == sys.float_info.max
    assert _float_clamped(F(1, 3)) == 1 / 3
    assert _float_clamped(F(1, 3), up=True) == math.nextafter(1 / 3, math.inf)
    assert _float_clamped(F(1), up=True) > 1.0


# ------------------------------------------------------------------------- budgets of the searches
def _shape_costs(values, ks, beta, eps, max_records):
    """The shapes a shape search tries, in order, with the enumeration cost it budgets for
    each: Π (c_i + 1) sub-samples times (number of values + 1) laws."""
    from dps_verify.verdict.shapes import leak_shapes

    return [math.prod(c + 1 for c in counts.values()) * (len(counts) + 1)
            for _shape, counts, _t in leak_shapes(values, ks=ks, beta=beta, eps=eps,
                                                  max_records=max_records)]


def test_shape_search_takes_every_shape_whose_cost_fits_its_budget_exactly():
    """A budget equal to the cost of the first j shapes screens exactly those j datasets; one
    term less screens j − 1.  The note on the budget appears exactly when a shape was left."""
    from dps_verify.verdict.exact_search import shape_search

    costs = _shape_costs(list(DOMAIN), [2], F(1, 2), F(1), 6)
    for j in (len(costs) // 2, len(costs)):
        budget = sum(costs[:j])
        for work_budget, screened in ((budget, j), (budget - 1, j - 1)):
            t0 = time.perf_counter()
            res = shape_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), ks=[2],
                               max_records=6, work_budget=work_budget, executor="serial")
            assert 0 <= res.seconds <= time.perf_counter() - t0
            assert res.witness is None and res.datasets == screened, (j, work_budget)
            assert bool(res.notes) == (screened < len(costs))
            assert res.workers == 1


def test_shape_search_takes_its_thresholds_from_the_anonymizer_or_tries_two_to_five():
    """ks: the anonymizer's ``k`` / ``threshold`` attribute when it has one, else 2..5 — counted
    by the datasets screened (one per shape of the family for those thresholds)."""
    from dps_verify.verdict.exact_search import shape_search

    def plain(sample: tuple) -> tuple:
        return _repeated(sample)

    def with_k(sample: tuple) -> tuple:
        return _repeated(sample)

    with_k.k = 3  # type: ignore[attr-defined]
    claim = Claim(F(1, 2), 1, 1)
    for anon, ks in ((plain, [2, 3, 4, 5]), (with_k, [3])):
        res = shape_search(anon, list(DOMAIN), claim, max_records=8, executor="serial")
        assert res.witness is None
        assert res.datasets == len(_shape_costs(list(DOMAIN), ks, F(1, 2), F(1), 8)), ks


def test_replace_one_search_over_two_values_is_cut_by_its_budget():
    """m = 2: a replace-one pair set has max(1, (m − 1) // 2) = 1 times the add-remove work, so
    the budget cuts it like an add-remove search (never a free search)."""
    import warnings

    from dps_verify.verdict.exact_search import estimate_work

    budget = estimate_work(2, 3, parents=True)
    for work_budget, sizes in ((budget, [1, 2, 3]), (budget - 1, [1, 2])):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            res = exhaustive_search(_repeated, [0, 1], Claim(F(1, 2), 1, 1), max_size=4,
                                    work_budget=work_budget, executor="serial",
                                    relation="replace-one")
        assert res.sizes == sizes


# ------------------------------------------------------------------ near-ties and undecided pairs
@pytest.mark.parametrize("above", [True, False])
def test_exhaustive_search_decides_a_likelihood_ratio_inside_the_enclosure_of_e(above):
    """One record against none, β = 1, ε = 1: Pr[y] = r/4 against 1/4 with r within 10^-45 of e
    (inside the default 128-bit enclosure of e, so integer arithmetic cannot decide the side of
    y).  Reference: δ = (r − e)/4 when r > e (a FAIL of δ = 0), δ = 0 when r < e (a PASS)."""
    from dps_verify.core.numbers import exp_interval

    lo_t, hi_t = _exp_bounds(F(1))
    r = hi_t + F(1, 10**45) if above else lo_t - F(1, 10**45)
    lo_e, hi_e = exp_interval(F(1))
    assert lo_e < r < hi_e  # the premise: the engine's enclosure cannot place r
    a, b = r / 4, F(1, 4)

    def law(sample: tuple) -> dict:
        p = a if sample else b
        return {"y": p, "z": 1 - p}

    res = exhaustive_search(randomized(law), ["r"], Claim(1, 1, 0), max_size=1,
                            executor="serial", progress=False)
    ref_lo, ref_hi = _hockey({"y": a, "z": 1 - a}, {"y": b, "z": 1 - b}, hi_t), \
        _hockey({"y": a, "z": 1 - a}, {"y": b, "z": 1 - b}, lo_t)
    assert (ref_lo > 0) == above and (ref_hi == 0) == (not above)
    assert (res.witness is not None) == above
    if above:  # decided exactly; the implied δ shown is a certified lower bound
        assert 0 <= res.witness.implied_delta <= ref_hi and "exactly" in res.witness.note


def test_undecided_pairs_are_collected_never_dropped(monkeypatch):
    """A pair the exact decision leaves undecided is kept in ``undecided`` (both relations),
    counted as an exact check, and the search goes on to the next candidate."""
    import dps_verify.verdict.exact_search as es

    marks = []

    def undecided(*args, **kwargs):
        marks.append(object())
        return "undecided", marks[-1]

    monkeypatch.setattr(es, "decide_counts", undecided)
    monkeypatch.setattr(es, "decide_pair", undecided)
    res = exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 0), max_size=2,
                            executor="serial", progress=False)
    assert res.witness is None and res.undecided == marks and len(marks) == res.exact_checks > 0
    marks.clear()
    res = exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 0), max_size=2,
                            executor="serial", progress=False, relation="replace-one")
    assert res.witness is None and res.undecided == marks and len(marks) == res.exact_checks > 0


def test_replace_one_budget_over_four_values_is_the_add_remove_work_once():
    """m = 4: (m − 1) // 2 = 1 replacement factor (not m // 2 = 2): a budget of exactly the
    add-remove estimate for 2 records searches sizes 1..2, one term less only size 1."""
    import warnings

    from dps_verify.verdict.exact_search import estimate_work

    budget = estimate_work(4, 2, parents=True)
    for work_budget, sizes in ((budget, [1, 2]), (budget - 1, [1])):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            res = exhaustive_search(_repeated, [0, 1, 2, 3], Claim(F(1, 2), 1, 1), max_size=3,
                                    work_budget=work_budget, executor="serial",
                                    relation="replace-one")
        assert res.sizes == sizes


class _MapOnly:
    """A caller's executor with nothing but ``map`` (the protocol's minimum): no ``workers``
    attribute and no ``close`` (a search must not close an executor it did not make)."""

    def map(self, fn, items):
        return [fn(item) for item in items]


class _ThreeWorkers(_MapOnly):
    workers = 3


def test_searches_report_one_worker_for_an_executor_without_a_count_and_never_close_it():
    claim = Claim(F(1, 2), 1, 1)
    for ex, workers in ((_MapOnly(), 1), (_ThreeWorkers(), 3)):
        res = exhaustive_search(_repeated, list(DOMAIN), claim, max_size=3, executor=ex)
        assert res.witness is None and res.workers == workers and res.pairs == 30
        from dps_verify.verdict.exact_search import shape_search

        res = shape_search(_repeated, list(DOMAIN), claim, ks=[2], max_records=6, executor=ex)
        assert res.witness is None and res.workers == workers and res.pairs > 0


def test_default_work_budget_is_one_hundred_and_twenty_million_terms(monkeypatch):
    """The default budget (120,000,000 enumeration terms) cuts a search whose estimate for the
    asked size is one term above it, and not one exactly at it (estimate replaced by a stub)."""
    import warnings

    import dps_verify.verdict.exact_search as es

    for at_two, sizes in ((120_000_000, [1, 2]), (120_000_001, [1])):
        monkeypatch.setattr(es, "estimate_work",
                            lambda m, n, parents=False, w=at_two: w if n == 2 else 10)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            res = es.exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), max_size=2,
                                       executor="serial", progress=False)
        assert res.sizes == sizes


def test_progress_bar_appears_from_eight_million_terms_on_a_terminal(monkeypatch):
    import io
    import sys

    from rich.console import Console

    import dps_verify.verdict.exact_search as es

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", Tty())
    monkeypatch.setattr(es, "_console", lambda: Console(file=io.StringIO(), force_terminal=True))
    assert es._progress(7_999_999, None) is None
    bar = es._progress(8_000_000, None)
    assert bar is not None
    bar.stop()
    assert es._progress(10**9, False) is None


# ----------------------------------------------------------------- arguments, progress, radix cap
@pytest.mark.parametrize("kwargs", [{"max_size": 0}, {"max_size": True}, {"max_size": 2.0},
                                    {"relation": "swap-two"}])
def test_exhaustive_search_refuses_a_bad_size_or_relation(kwargs):
    from dps_verify.core.errors import ParameterError

    args = {"max_size": 2, **kwargs}
    with pytest.raises(ParameterError, match="max_size|relation"):
        exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), executor="serial",
                          **args)


def test_screen_of_no_datasets_screens_nothing():
    import numpy as np

    from dps_verify.verdict.exact_search import PairChecker
    from dps_verify.verdict.executor import SerialExecutor

    chk = PairChecker(SampleTable(_repeated, Atoms(_repeated, list(DOMAIN)), radix=4), F(1, 2),
                      F(1), F(0), "hockey-stick", SerialExecutor())
    assert chk.screen(np.zeros((0, 3), dtype=np.int64)) == [] and chk.pairs == 0


def test_progress_bar_advances_through_the_per_dataset_screen_and_writes_to_stderr(monkeypatch):
    """A randomized anonymizer is screened dataset by dataset: the bar advances by the terms
    screened (as many as the parents screen would report for the same levels: > 0 per level);
    the bar's console is stderr (stdout may carry a report)."""
    import dps_verify.verdict.exact_search as es

    advanced: list[int] = []

    class Bar:
        def __init__(self, total: int):
            self.total = total

        def advance(self, n: int) -> None:
            advanced.append(n)

        def stop(self) -> None:
            pass

    monkeypatch.setattr(es, "_Bar", Bar)
    res = exhaustive_search(ANONYMIZERS["squares"], list(DOMAIN), Claim(F(1, 2), 1, 1),
                            max_size=2, executor="serial", progress=True)
    assert res.witness is None and len(advanced) >= 2 and all(n > 0 for n in advanced)
    assert es._console().stderr


def test_shape_search_caps_its_radix_for_many_values():
    """Sample keys are Σ s_i · radix^i below 2^62: over 16 values a radix of 16 (15 records) is
    halved to 8, so no shape has more than 7 records; over 3 values the radix stays 16 (shapes
    up to 14 records fit the same budget)."""
    from dps_verify.verdict.exact_search import shape_search

    claim = Claim(F(1, 2), 1, 1)
    wide = shape_search(_repeated, list(range(16)), claim, ks=[2], max_records=15,
                        work_budget=20_000, executor="serial")
    narrow = shape_search(_repeated, [0, 1, 2], claim, ks=[2], max_records=15,
                          work_budget=20_000, executor="serial")
    assert max(wide.sizes) == 7 and max(narrow.sizes) >= 14


def test_integer_screen_below_two_to_the_53_and_float_screen_from_it():
    """Deterministic code is screened in integers while q^n < 2^53 (β = p/q, n records): every
    pair it settles carries no error (error bound 0); from q^n = 2^53 on, the float screen with
    its rounding error bound (> 0)."""
    claim = Claim(F(1, 2**52), 1, 1)
    at_52 = exhaustive_search(_largest, list(DOMAIN), claim, max_size=1, executor="serial")
    claim = Claim(F(1, 2**53), 1, 1)
    at_53 = exhaustive_search(_largest, list(DOMAIN), claim, max_size=1, executor="serial")
    assert at_52.witness is None and at_53.witness is None
    assert at_52.error_bound == 0.0 < at_53.error_bound < 1e-12


def test_integer_screen_at_eps_zero_compares_with_e_equal_to_one_exactly():
    """ε = 0: e^ε = 1 exactly, so the integer screen has no margin on e and an output with
    P = Q is certainly not bad: a claim of 1 is cleared for every pair without an exact
    decision (with any margin, P = Q would be ambiguous and go to exact arithmetic)."""
    for anon in (_repeated, _largest):
        res = exhaustive_search(anon, list(DOMAIN), Claim(F(2, 5), 0, 1), max_size=3,
                                executor="serial", progress=False)
        assert res.witness is None and res.sizes == [1, 2, 3] and res.exact_checks == 0


@pytest.mark.parametrize("eps", [F(1, 3), F(1), F(5)])
def test_integer_screen_encloses_e_to_eps_by_floats_outside_its_rational_enclosure(eps):
    """The integer screen's e_lo / e_hi are floats at or below / at or above the rational
    enclosure of e^ε (and so of e^ε itself, checked against the Taylor bounds for ε <= 1);
    ε = 0 gives 1 exactly at both ends."""
    from dps_verify.core.numbers import exp_interval
    from dps_verify.verdict.exact_search import PairChecker
    from dps_verify.verdict.executor import SerialExecutor

    table = SampleTable(_repeated, Atoms(_repeated, list(DOMAIN)), radix=4)
    lo, hi = exp_interval(eps)
    ex = PairChecker(table, F(1, 2), eps, F(0), "hockey-stick", SerialExecutor())._setup(3)[1]
    assert ex is not None and F(ex["e_lo"]) <= lo <= hi <= F(ex["e_hi"])
    assert ex["e_lo"] < ex["e_hi"]
    if eps <= 1:
        t_lo, t_hi = _exp_bounds(eps)
        assert F(ex["e_lo"]) <= t_lo and t_hi <= F(ex["e_hi"])
    ex0 = PairChecker(table, F(1, 2), F(0), F(0), "hockey-stick", SerialExecutor())._setup(3)[1]
    assert ex0 is not None and ex0["e_lo"] == ex0["e_hi"] == 1.0


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_pairs_left_to_exact_arithmetic_add_nothing_to_the_error_bound(relation):
    """ε = 0, integer screen, claim = the largest exact δ up to 3 records: the ties go to exact
    arithmetic (status 2, their screen 'error' is a flag, not a rounding error) and the PASS
    reports the error bound of the pairs the screen settled: 0."""
    beta = F(2, 5)
    worst = max(_delta(_law("largest", a, beta), _law("largest", b, beta), F(0),
                       "hockey-stick")[0] for n in (1, 2, 3) for a, b in _pairs(n, relation))
    res = exhaustive_search(_largest, list(DOMAIN), Claim(beta, 0, worst), max_size=3,
                            executor="serial", progress=False, relation=relation)
    assert res.witness is None and res.exact_checks > 0 and res.error_bound == 0.0


def test_search_at_beta_one_decides_a_claim_inside_an_integer_enclosure_exactly():
    """β = 1, randomized code: the integer enclosure [lower, upper] of a pair's δ is a point
    only when the bad set has no Q-mass; up to 2 records (at most 2 zeros: every output has
    mass under both laws) the largest lower end belongs to a pair with Q-mass, whose true δ (it
    involves e^ε) lies strictly inside its enclosure.  With that lower end as the claim, only
    the upper end may clear a pair: the search must decide the pair exactly and FAIL with it
    (clearing on the lower end would PASS a violated claim)."""
    eps = F(1, 2)
    laws = _table("squares", 2, F(1))
    encs = [(enc, a, b) for n in (1, 2) for a, b in _pairs(n, "add-remove")
            for enc in [_integer_enclosure(laws, list(a), list(b), eps)]]
    assert all(enc is not None for enc, *_ in encs)
    (lo, hi), a, b = max(encs, key=lambda t: t[0][0])
    assert lo < hi
    exact_lo, exact_hi = _delta(_law("squares", a, F(1)), _law("squares", b, F(1)), eps,
                                "hockey-stick")
    assert lo < exact_lo <= exact_hi <= hi
    import numpy as np

    from dps_verify.verdict.exact_search import PairChecker
    from dps_verify.verdict.executor import SerialExecutor

    # the screen of datasets not yet sampled (as the shape search calls it): at β = 1 only D
    # and D − x are needed, and each pair is enclosed in integer arithmetic
    chk = PairChecker(laws.table, F(1), eps, lo, "hockey-stick", SerialExecutor())
    counts = np.array(_vectors(2), dtype=np.int64)
    cand = chk.screen(counts)
    x = next(i for i in range(len(a)) if a[i] != b[i])
    assert (_vectors(2).index(a), x) in [(c[2], c[3]) for c in cand]
    w = chk.first_violation(counts, cand)
    assert w is not None and (_counts_of(w.dataset), _counts_of(w.neighbour)) == (a, b)
    assert w.implied_delta >= lo and chk.exact_checks >= 1
