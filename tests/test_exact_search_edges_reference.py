"""Edges of the exact search's bookkeeping that no verdict test reaches: the executor it made is
closed and the progress bar stopped, once, also when the audited code raises; the seconds
reported; the shape search's work budget at an exact tie; the replace-one work estimate over two
values; the module's public names.  Each is checked against its definition (the documented behaviour),
not against the code's own arithmetic."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from dps_verify.core.types import Claim
from dps_verify.verdict import exact_search as es


class _ClosingExecutor:
    """A serial executor that counts its ``close`` calls."""

    workers = 1

    def __init__(self) -> None:
        self.closed = 0

    def map(self, fn, items):
        return [fn(x) for x in items]

    def close(self) -> None:
        self.closed += 1


def _raises_on_pairs(sample: tuple) -> int:
    """Deterministic code that fails on every sample of two records (audited code may raise)."""
    if len(sample) == 2:
        raise ValueError("two records")
    return len(sample)


def _search(search: str, anonymizer, **kwargs):
    claim = Claim(F(1, 2), F(1), F(1))
    if search == "exhaustive":
        return es.exhaustive_search(anonymizer, [0, 1], claim, max_size=3, **kwargs)
    return es.shape_search(anonymizer, [0, 1], claim, ks=[2], max_records=4, **kwargs)


@pytest.mark.parametrize("search", ["exhaustive", "shapes"])
@pytest.mark.parametrize("anonymizer", [len, _raises_on_pairs])
def test_a_search_closes_the_executor_it_made_once_even_when_the_code_raises(
        monkeypatch, search, anonymizer):
    """An executor the search chose (a name or None) is the search's own: closed exactly once
    when the search ends, normally or by the audited code's exception; an executor object the
    caller passed is never closed (the caller owns it)."""
    from dps_verify.core.errors import AuditedCodeError

    made: list[_ClosingExecutor] = []

    def choose(work, executor):
        made.append(_ClosingExecutor())
        return made[-1]

    monkeypatch.setattr(es, "choose_executor", choose)
    for executor in ("serial", None):
        if anonymizer is len:
            res = _search(search, anonymizer, executor=executor)
            assert res.witness is None and res.sizes
        else:
            with pytest.raises(AuditedCodeError):
                _search(search, anonymizer, executor=executor)
        assert made[-1].closed == 1
    made.clear()
    own = _ClosingExecutor()
    monkeypatch.setattr(es, "choose_executor", lambda work, executor: executor)
    if anonymizer is len:
        _search(search, anonymizer, executor=own)
    else:
        with pytest.raises(AuditedCodeError):
            _search(search, anonymizer, executor=own)
    assert own.closed == 0


@pytest.mark.parametrize("anonymizer", [len, _raises_on_pairs])
def test_the_progress_bar_is_stopped_once_when_the_search_ends(monkeypatch, anonymizer):
    """A bar asked for (``progress=True``) is stopped exactly once, also when the audited code
    raises mid-search (a live bar left running would keep redrawing the terminal)."""
    from dps_verify.core.errors import AuditedCodeError

    bars: list = []

    class Bar:
        def __init__(self, total: int):
            self.stopped = 0
            bars.append(self)

        def advance(self, n: int) -> None:
            pass

        def stop(self) -> None:
            self.stopped += 1

    monkeypatch.setattr(es, "_Bar", Bar)
    if anonymizer is len:
        _search("exhaustive", anonymizer, executor="serial", progress=True)
    else:
        with pytest.raises(AuditedCodeError):
            _search("exhaustive", anonymizer, executor="serial", progress=True)
    assert [b.stopped for b in bars] == [1]


@pytest.mark.parametrize("search", ["exhaustive", "shapes"])
def test_the_seconds_reported_are_the_searchs_own(search):
    """``seconds`` is the search's own time: not negative and within the time measured around
    the call."""
    import time

    t0 = time.perf_counter()
    res = _search(search, len, executor="serial")
    assert 0 <= res.seconds <= time.perf_counter() - t0


@pytest.mark.parametrize("extra", [0, 1])
def test_shape_search_budget_admits_shapes_whose_cost_sums_to_the_budget_exactly(
        monkeypatch, extra):
    """A shape's cost is its sub-samples Π (c_i + 1) times its neighbours (values held + 1):
    {0: 3} costs 4·2 = 8, {0: 1, 1: 2} costs 2·3·3 = 18.  A budget of exactly 26 admits both (the
    budget is the most terms spent, inclusive); 25 stops before the second, saying so."""
    from dps_verify.verdict import shapes

    def stand_in(values, ks, **kwargs):
        yield "bulk of three", {0: 3}, None
        yield "one and two", {0: 1, 1: 2}, None

    monkeypatch.setattr(shapes, "leak_shapes", stand_in)
    budget = 8 + 18 - extra
    res = es.shape_search(len, [0, 1], Claim(F(1, 2), F(1), F(1)), work_budget=budget,
                          executor="serial")
    assert res.witness is None
    if extra == 0:
        assert res.datasets == 2 and res.sizes == [3] and res.notes == []
    else:
        assert res.datasets == 1 and res.sizes == [3]
        assert res.notes == [f"shape search stopped at its work budget ({budget:,} terms)"]


def test_replace_one_over_two_values_is_cut_to_the_work_budget():
    """Replace-one pairs over m = 2 values cost at least the add/remove screen's terms (the
    factor max(1, (m - 1) // 2) is 1 there, never 0): a budget of one term cuts the search to
    one record, with the warning and the note; the full budget searches every size asked."""
    claim = Claim(F(1, 2), F(1), F(1))
    with pytest.warns(UserWarning, match="searching every dataset up to 1 records"):
        cut = es.exhaustive_search(len, [0, 1], claim, max_size=3, work_budget=1,
                                   executor="serial", progress=False, relation="replace-one")
    assert cut.sizes == [1] and cut.max_size == 1 and len(cut.notes) == 1
    full = es.exhaustive_search(len, [0, 1], claim, max_size=3, executor="serial",
                                progress=False, relation="replace-one")
    assert full.sizes == [1, 2, 3] and full.notes == []


def test_the_module_exports_its_documented_public_names():
    """``from dps_verify.verdict.exact_search import *`` gives the search functions, the
    result class, the work estimate and the default budget, and no private helper."""
    namespace: dict = {}
    exec("from dps_verify.verdict.exact_search import *", namespace)
    public = {k for k in namespace if not k.startswith("__")}
    assert public == {"DEFAULT_WORK_BUDGET", "SearchResult", "decide_pair", "estimate_work",
                      "exhaustive_search", "level_counts", "raise_undecided", "shape_search"}


# ----------------------------------------------- the screened worst pair against a brute force
@pytest.mark.parametrize("name", ["repeated", "largest"])
@pytest.mark.parametrize("max_size", [1, 2, 3])
def test_replace_one_worst_pair_is_the_brute_force_worst_of_the_sizes_searched(name, max_size):
    """Replace-one through the parents screen: the reported worst pair (E + target,
    E + replacement) is a pair of the sizes searched, its screened δ is the largest hockey-stick
    δ of all of them (brute force over every sub-sample), and it is that pair's own δ — at every
    size, whatever the number of parents screened at once (1, 3 and 6 parents per level)."""
    from tests.test_exact_search_pairs_reference import (
        ANONYMIZERS,
        DOMAIN,
        _counts_of,
        _delta,
        _law,
        _pairs,
    )

    beta, eps = F(1, 2), F(1, 2)
    res = es.exhaustive_search(ANONYMIZERS[name], list(DOMAIN), Claim(beta, eps, F(1)),
                               max_size=max_size, executor="serial", progress=False,
                               relation="replace-one")
    assert res.witness is None and res.sizes == list(range(1, max_size + 1))
    upper = {(a, b): _delta(_law(name, a, beta), _law(name, b, beta), eps, "hockey-stick")[1]
             for n in res.sizes for a, b in _pairs(n, "replace-one")}
    worst = res.worst
    assert worst is not None
    assert abs(worst["delta_screened"] - float(max(upper.values()))) <= 1e-12
    d = _counts_of(worst["dataset"])
    x, y = DOMAIN.index(worst["target"]), DOMAIN.index(worst["replacement"])
    pair = (d, tuple(v - (i == x) + (i == y) for i, v in enumerate(d)))
    assert sum(d) == worst["size"] and pair in upper
    assert abs(float(upper[pair]) - worst["delta_screened"]) <= 1e-12


def _fives_law(sample: tuple) -> dict:
    """Randomized: 'hit' with probability 5^z / 125 (z the number of 0s, at most 3), so every
    pair's ratios are 5 or 1/5 on 'hit' and below 2 (or infinite) on 'miss'."""
    z = min(sample.count(0), 3)
    hit = F(5**z, 125)
    return {"hit": hit, "miss": 1 - hit}


def test_screen_without_sampling_reports_the_upper_end_of_the_worst_enclosure(monkeypatch):
    """At β = 1 each pair is enclosed in integer arithmetic with e^ε in [lo, hi]; the screened
    δ of the worst pair is the enclosure's upper end, the hockey-stick sum at e^ε = lo (the
    largest δ the enclosure allows).  With e^1 enclosed coarsely as [2, 3] (a true enclosure;
    no ratio of these laws lies in it) the upper end, at 2, and the lower end, at 3, differ."""
    import numpy as np

    from dps_verify.engine.count_vectors import Atoms, SampleTable
    from dps_verify.engine.randomized import randomized
    from dps_verify.verdict.executor import SerialExecutor
    from tests.test_exact_search_pairs_reference import DOMAIN, _hockey, _vectors

    monkeypatch.setattr(es, "exp_interval", lambda eps, *args, **kwargs: (F(2), F(3)))
    anon = randomized(_fives_law)

    def law(counts: tuple) -> dict:
        return _fives_law(tuple(v for v, c in zip(DOMAIN, counts) for _ in range(c)))

    for n in (1, 2):
        counts = _vectors(n)
        table = SampleTable(anon, Atoms(anon, list(DOMAIN)), radix=n + 1)
        chk = es.PairChecker(table, F(1), F(1), F(1), "hockey-stick", SerialExecutor())
        chk.screen(np.array(counts, dtype=np.int64))
        pairs = [(c, tuple(v - (i == x) for i, v in enumerate(c)))
                 for c in counts for x in range(len(DOMAIN)) if c[x]]
        top = max(_hockey(law(a), law(b), F(2)) for a, b in pairs)
        assert top > max(_hockey(law(a), law(b), F(3)) for a, b in pairs)
        assert chk.worst is not None and chk.worst["delta_screened"] == float(top)


# --------------------------------------------- the integer enclosure: an output of weight one
def _weight_one_law(sample: tuple) -> dict:
    """Randomized, over the outputs a, b, c: 7/10, 1/10, 1/5 for the sample (0,), else 1/10,
    1/20, 17/20.  Over the common denominator 20 the second law gives b the weight 1 while the
    first gives it 2: b's ratio 2 is below e (not in the bad set) beside a's ratio 7 (bad)."""
    if sample == (0,):
        return {"a": F(7, 10), "b": F(1, 10), "c": F(1, 5)}
    return {"a": F(1, 10), "b": F(1, 20), "c": F(17, 20)}


def test_integer_enclosure_leaves_an_output_of_weight_one_below_e_out_of_the_bad_set():
    """Hockey-stick δ at ε = 1 of ((0,), ()) at β = 1 by its definition: (14 − 2e)/20 ≈ 0.428
    from the output a alone (b's 2 − e·1 < 0 would lower it to ≈ 0.392).  The integer enclosure
    holds it, so the claim δ = 2/5 is violated: decided exactly and found by the search."""
    from dps_verify.engine.count_vectors import Atoms, ExactLaws, SampleTable
    from dps_verify.engine.randomized import randomized
    from tests.test_exact_search_pairs_reference import _exp_bounds, _hockey

    P, Q = _weight_one_law((0,)), _weight_one_law(())
    lo_e, hi_e = _exp_bounds(F(1))
    ref = (_hockey(P, Q, hi_e), _hockey(P, Q, lo_e))
    assert F(2, 5) < ref[0] <= ref[1] < F(43, 100)
    anon = randomized(_weight_one_law)
    laws = ExactLaws(SampleTable(anon, Atoms(anon, [0, 1]), radix=2), F(1))
    enc = es._integer_enclosure(laws, [1, 0], [0, 0], F(1))
    assert enc is not None and enc[0] <= ref[0] and ref[1] <= enc[1]
    assert es.decide_pair(laws, [1, 0], 0, F(1), F(2, 5), "hockey-stick")[0] == "violation"
    res = es.exhaustive_search(anon, [0, 1], Claim(F(1), F(1), F(2, 5)), max_size=1,
                               executor="serial", progress=False)
    assert res.witness is not None
    assert {res.witness.dataset, res.witness.neighbour} == {(0,), ()}


# ------------------------------------------------- replace-one: the order of the exact decisions
@pytest.mark.parametrize("claim", [F(1, 100), F(1, 4)])
def test_replace_one_decides_certain_violations_first_then_the_largest_delta(monkeypatch, claim):
    """The replace-one candidates each level hands to the exact decisions (recorded; none
    decided, so every level is screened), against the brute force at ε = 0, β = 1/2: the pairs
    (E + x, E + y), x < y, with δ above the claim (status 0, certain) by δ descending, then those
    with δ equal to it that the screen leaves to exact arithmetic (status 1), ties by parent row
    and code x·m + y; no pair below the claim."""
    from tests.test_exact_search_pairs_reference import ANONYMIZERS, DOMAIN, _delta, _law

    beta, eps, m = F(1, 2), F(0), len(DOMAIN)
    seen: list[list] = []

    def record(self, parents, cand, **info):
        seen.append(list(cand))
        return None

    monkeypatch.setattr(es.PairChecker, "first_violation_replace", record)
    res = es.exhaustive_search(ANONYMIZERS["largest"], list(DOMAIN), Claim(beta, eps, claim),
                               max_size=3, executor="serial", progress=False,
                               relation="replace-one")
    assert res.witness is None and len(seen) == 3
    kinds = set()
    for n, got in zip((1, 2, 3), seen):
        ref = []
        for i, row in enumerate(es.level_counts(m, n - 1)):
            E = tuple(int(v) for v in row)
            for x, y in itertools.combinations(range(m), 2):
                a = tuple(v + (j == x) for j, v in enumerate(E))
                b = tuple(v + (j == y) for j, v in enumerate(E))
                v = _delta(_law("largest", a, beta), _law("largest", b, beta), eps,
                           "hockey-stick")[0]
                if v >= claim:
                    ref.append((0 if v > claim else 1, -v, i, x * m + y))
                    kinds.add(ref[-1][0])
        keys = {(i, code) for _, _, i, code in got}
        certain = {(i, code) for st, _, i, code in ref if st == 0}
        # every certain violation is a candidate; a tie is not a violation, so the screen may
        # clear it or leave it to exact arithmetic, never a pair below the claim
        assert certain <= keys <= {(i, code) for _, _, i, code in ref}, n
        ref = sorted(r for r in ref if (r[2], r[3]) in keys)
        assert [(st, i, code) for st, _, i, code in got] == \
            [(st, i, code) for st, _, i, code in ref], n
        assert [dh for _, dh, _, _ in got] == [float(v) for _, v, _, _ in ref], n
    assert kinds == ({0} if claim == F(1, 100) else {0, 1})


def test_the_float_screen_takes_the_upper_end_of_the_enclosure_of_e_to_the_eps(monkeypatch):
    """The float screen's e (float mode: randomized code, or q^n >= 2^53) is the upper end of
    the rational enclosure of e^ε rounded to the nearest float (the screen's error model puts
    e within 2u of e^ε; the enclosure is 128 bits wide), and 1 at ε = 0 — seen with e^1
    enclosed coarsely as [2, 3]."""
    from dps_verify.engine.count_vectors import Atoms, SampleTable
    from dps_verify.verdict.executor import SerialExecutor

    monkeypatch.setattr(es, "exp_interval", lambda eps, *args, **kwargs: (F(2), F(3)))
    table = SampleTable(len, Atoms(len, [0, 1]), radix=3)
    for eps, e_f in ((F(1), 3.0), (F(0), 1.0)):
        chk = es.PairChecker(table, F(1, 2), eps, F(1, 10), "hockey-stick", SerialExecutor())
        assert chk.e_f == e_f and chk.d_f == 0.1


def test_shape_search_halves_a_radix_whose_keys_reach_exactly_two_to_the_62(monkeypatch):
    """The radix is halved while radix^m >= 2^62 (and radix > 13), the boundary included: two
    values with max_records = 2^31 - 1 give radix 2^31, radix^2 = 2^62 exactly, so the radix is
    halved once to 2^30 and the shapes go up to 2^30 - 1 records; one record fewer (radix
    2^31 - 1, below the boundary) keeps it."""
    from dps_verify.verdict import shapes

    seen: list[int] = []

    def stand_in(values, ks, **kwargs):
        seen.append(kwargs["max_records"])
        return iter(())

    monkeypatch.setattr(shapes, "leak_shapes", stand_in)
    assert (2**31) ** 2 == 2**62 and (2**31 - 1) ** 2 < 2**62
    for max_records, shown in ((2**31 - 1, 2**30 - 1), (2**31 - 2, 2**31 - 2)):
        res = es.shape_search(len, [0, 1], Claim(F(1, 2), 1, F(1, 10)),
                              max_records=max_records, executor="serial")
        assert seen[-1] == shown and res.requested_size == max_records and res.sizes == []
