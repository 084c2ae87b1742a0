"""Edges of the exact search's bookkeeping that no verdict test reaches: the executor it made is
closed and the progress bar stopped, once, also when the audited code raises; the seconds
reported; the shape search's work budget at an exact tie; the replace-one work estimate over two
values; the module's public names.  Each is checked against its definition (the documented behaviour),
not against the code's own arithmetic."""

from __future__ import annotations

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
