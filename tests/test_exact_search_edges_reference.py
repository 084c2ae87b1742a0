"""Edges of the exact search's bookkeeping that no verdict test reaches: the worker count of an
executor that does not say it (and the seconds reported), the shape search's work budget at an
exact tie, the replace-one work estimate over two values, and the module's public names.  Each is checked against its definition (the documented behaviour),
not against the code's own arithmetic."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.types import Claim
from dps_verify.verdict import exact_search as es


class _PlainExecutor:
    """A serial executor object with ``map`` and ``close`` only (no ``workers``)."""

    def map(self, fn, items):
        return [fn(x) for x in items]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("search", ["exhaustive", "shapes"])
def test_an_executor_that_does_not_say_its_workers_counts_as_one(search):
    """An executor object without a ``workers`` attribute is reported as one worker (it is the
    caller's, run as given); the seconds reported are the search's own, within the time
    measured around the call."""
    import time

    claim = Claim(F(1, 2), F(1), F(1))
    t0 = time.perf_counter()
    if search == "exhaustive":
        res = es.exhaustive_search(len, [0, 1], claim, max_size=2, executor=_PlainExecutor(),
                                   progress=False)
        assert res.sizes == [1, 2]
    else:
        res = es.shape_search(len, [0, 1], claim, ks=[2], max_records=4,
                              executor=_PlainExecutor())
        assert res.sizes
    assert res.witness is None and res.workers == 1
    # the search's own time: within the time around the call
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
