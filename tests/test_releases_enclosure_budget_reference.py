"""inverse.releases' parameter checks and enclosure budgets, each against the rule its docstring
states and the exact T-fold δ (CP Def. 2, every T-tuple enumerated in Fractions): k and rtol
are refused before any work on every route; the scan method's tail start is searched against the
largest enclosed upper end; the scan stops after 10·max_enclosures enclosures of any kind (exact
ones included); the screened algorithm encloses at most 1 + 2·max_enclosures sizes, with
max_enclosures = 6 by default.  Budgets only bound work: every result must still enclose the
exact worst case."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Certified
from dps_verify.core.params import epsilon_param
from dps_verify.inverse import releases as R
from tests.test_releases_exact_reference import exact_delta


def _no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_work(*a: object, **kw: object) -> None:
        raise AssertionError("work started before the parameters were checked")

    for name in ("pair_delta_enclosure", "_thresholded_bound", "_screen_delta", "_untruncated_bound",
                 "check_releases_budget"):
        monkeypatch.setattr(R, name, no_work)


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_releases_delta_refuses_a_threshold_that_is_not_a_positive_integer_before_any_work(
        monkeypatch: pytest.MonkeyPatch, k: object) -> None:
    _no_work(monkeypatch)
    for kw in ({"method": "screen"}, {"method": "scan"}, {"n_max": 5}):
        with pytest.raises(ParameterError, match="k must be") as e:
            R.releases_delta(k, F(1, 4), 1, 2, **kw)  # type: ignore[arg-type]
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("rtol", [-0.1, float("nan"), float("inf")])
def test_releases_delta_refuses_a_width_that_is_not_finite_and_non_negative_before_any_work(
        monkeypatch: pytest.MonkeyPatch, rtol: float) -> None:
    _no_work(monkeypatch)
    for kw in ({"method": "screen"}, {"method": "scan"}, {"n_max": 5}):
        with pytest.raises(ParameterError, match="rtol must be"):
            R.releases_delta(2, F(1, 4), 1, 2, rtol=rtol, **kw)  # type: ignore[arg-type]


def _enclosures(monkeypatch: pytest.MonkeyPatch) -> list[Certified]:
    """Every enclosure releases_delta makes, in order."""
    made: list[Certified] = []
    real = R.pair_delta_enclosure

    def spy(*args: object, **kw: object) -> Certified:
        c = real(*args, **kw)  # type: ignore[arg-type]
        made.append(c)
        return c

    monkeypatch.setattr(R, "pair_delta_enclosure", spy)
    return made


def test_scan_method_searches_the_tail_start_against_the_largest_enclosed_upper_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # k = 3, β = 1/2, ε = ln(3/2), T = 3: the scan encloses n = 3, 4, 5 (upper ends 0.22 to
    # 0.33); the tail start must be a size whose untruncated bound is within the LARGEST of them
    # while the size before it is not (against the smallest, the tail would start at 11, not 6)
    k, beta, eps, x, times = 3, F(1, 2), "ln(3/2)", F(3, 2), 3
    made = _enclosures(monkeypatch)
    r = R.releases_delta(k, beta, eps, times, method="scan")
    e = epsilon_param(eps)
    top = max(c.upper for c in made)
    assert min(c.upper for c in made) < top

    def untr(a: int) -> F:
        return R.untruncated_bound(a, beta, e, times)

    assert untr(r.tail_from) <= max(top, R.ATOL) < untr(r.tail_from - 1)
    worst = max(exact_delta(n, k, beta, x, times) for n in range(k, r.tail_from))
    assert r.delta.lower <= worst <= r.delta.upper


def test_scan_method_stops_after_ten_enclosures_per_budget_unit_exact_ones_included(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # every cheap bound vacuous (1, a valid bound), so each size below the tail start is
    # enclosed in turn, smallest first; the odd sizes' enclosures are reported as grid ones
    # (coarse, counted against the coarse budget; their numbers are the exact ones, so still
    # valid), the even sizes' as exact (counted against no budget).  The scan must stop once
    # fine + coarse enclosures reach 10·max_enclosures: sizes k .. k + 9 for max_enclosures = 1
    k, beta, eps, x, times, max_enclosures = 2, F(1, 20), "ln(11/10)", F(11, 10), 4, 1
    real = R.pair_delta_enclosure

    def enclosure(p: dict, q: dict, e: F, t: int, **kw: object) -> Certified:
        c = real(p, q, e, t, **kw)  # type: ignore[arg-type]
        n = max(o for o in p if o is not None)  # the larger group's largest released count
        mode = "discretised" if n % 2 else "exact"
        return Certified(c.lower, c.upper, c.how, {**c.details, "mode": mode})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    r = R.releases_delta(k, beta, eps, times, method="scan", max_enclosures=max_enclosures)
    cap = 10 * max_enclosures
    assert r.tail_from > k + cap  # more sizes were open than the budget allows
    assert r.enclosed == tuple(range(k, k + cap))
    coarse = r.details["coarse_enclosures"]
    assert coarse == [n for n in r.enclosed if n % 2] and len(coarse) < 8 * max_enclosures
    assert r.bound_source == "cheap" and r.delta.upper == 1 and r.argmax_n == k + cap
    worst = max(exact_delta(n, k, beta, x, times) for n in range(k, k + 8))
    assert r.delta.lower <= worst <= r.delta.upper


def test_screened_default_budget_encloses_at_most_thirteen_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    # every cheap and grid bound vacuous (1): each size below the tail start that step 1 did not
    # enclose is a missed worst size and is enclosed while fewer than 1 + 2·max_enclosures
    # sizes are; the default max_enclosures = 6 allows 13, and 17 sizes are open here
    k, beta, eps, x, times = 2, F(1, 20), "ln(11/10)", F(11, 10), 4
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    monkeypatch.setattr(R, "upper_below",
                        lambda *a, **kw: Certified(F(0), F(1), "vacuous", {"mode": "discretised"}))
    r = R.releases_delta(k, beta, eps, times)
    assert r.tail_from - k > 13
    assert len(r.enclosed) == 13
    assert r.bound_source == "bound" and r.delta.upper == 1
    worst = max(exact_delta(n, k, beta, x, times) for n in range(k, k + 8))
    assert r.delta.lower <= worst <= r.delta.upper


def _scan_model(k: int, beta: F, eps: str, times: int, rtol: float, max_enclosures: int,
                n_limit: int = 1024) -> dict:
    """The scan method as its docstring states it, step by step, on the module's certified
    primitives (enclosure, cheap bound of the thresholded pair, untruncated tail bound): the
    tail start is the least size above k whose untruncated bound is within the largest enclosed
    upper end (or ATOL); each size below it gets its cheap bound; the size with the largest
    bound (the smallest such n) is enclosed, coarse (rtol 0.2) first and fine when it stays on
    top, an exact enclosure once; stop when the top size is enclosed fine, its bound is at most
    ATOL, or a budget is spent (max_enclosures fine non-exact, 8 times as many coarse
    non-exact, 10 times as many enclosures in all)."""
    e = epsilon_param(eps)

    def enclose(n: int, tol: float) -> Certified:
        return R.pair_delta_enclosure(*R.group_pair(n, k, beta), e, times, rtol=tol)

    def untr(a: int) -> F:
        return R.untruncated_bound(a, beta, e, times)

    fine, coarse = {k: enclose(k, rtol)}, {}
    bound = {k: fine[k].upper}
    while True:
        crit = max(max(c.upper for c in fine.values()), max((c.upper for c in coarse.values()), default=F(0)))
        tail_from = next((a for a in range(k + 1, n_limit + 1) if untr(a) <= max(crit, R.ATOL)), n_limit + 1)
        for n in range(k + 1, tail_from):
            bound.setdefault(n, R.thresholded_bound(n, k, beta, eps, times))
        top = max(bound[n] for n in range(k, tail_from))
        n_top = min(n for n in range(k, tail_from) if bound[n] == top)
        spent_fine = sum(1 for c in fine.values() if c.details.get("mode") != "exact")
        spent_coarse = sum(1 for c in coarse.values() if c.details.get("mode") != "exact")
        if (n_top in fine or top <= R.ATOL or spent_fine >= max_enclosures
                or spent_coarse >= 8 * max_enclosures or len(fine) + len(coarse) >= 10 * max_enclosures):
            break
        tol = rtol if n_top in coarse else max(0.2, rtol)
        c = enclose(n_top, tol)
        bound[n_top] = min(bound[n_top], c.upper)
        if n_top in coarse or c.details.get("mode") == "exact":
            fine[n_top] = c
        else:
            coarse[n_top] = c
    encs = {**coarse, **fine}
    tail = untr(tail_from)
    upper = max(top, tail)
    source = "tail" if tail > top else "enclosure" if n_top in encs else "cheap"
    return {"lower": max(c.lower for c in encs.values()), "upper": upper, "source": source,
            "argmax": tail_from if source == "tail" else n_top, "tail_from": tail_from,
            "tail_bound": tail, "enclosed": tuple(sorted(encs)), "fine": sorted(fine),
            "coarse": sorted(coarse), "cheap_bounds": len(bound) - len(encs),
            "mode": "exact" if all(c.details.get("mode") == "exact" for c in encs.values()) else "discretised"}


@pytest.mark.parametrize(("k", "beta", "eps", "x", "times", "max_enclosures", "grid"), [
    (3, F(1, 2), "ln(3/2)", F(3, 2), 3, 6, False),  # every enclosure exact
    (2, F(1, 10), "ln(11/10)", F(11, 10), 4, 6, False),  # cheap bounds settle some sizes
    (2, F(1, 4), "0", F(1), 2, 6, True),  # grid enclosures: coarse first, the top refined
    (3, F(1, 2), "ln(3/2)", F(3, 2), 3, 1, True),  # the fine budget binds
    (3, F(1, 2), "ln(3/2)", F(3, 2), 3, 0, False),  # no budget: n = k alone
])
def test_scan_method_is_its_documented_rule(monkeypatch: pytest.MonkeyPatch, k: int, beta: F, eps: str,
                                            x: F, times: int, max_enclosures: int, grid: bool) -> None:
    # the scan's result, field by field, is the documented rule recomputed above (the
    # enclosures are shared through a memo: the same certified objects), and it encloses the
    # exact worst case
    real = R.pair_delta_enclosure
    memo: dict = {}

    def enclosure(p: dict, q: dict, e: F, t: int, **kw: object) -> Certified:
        key = (tuple(sorted(p.items(), key=str)), kw.get("rtol"))
        if key not in memo:
            memo[key] = real(p, q, e, t, **({"exact_budget": 0} if grid else {}),  # type: ignore[arg-type]
                             **{a: v for a, v in kw.items() if a != "fft"})
        return memo[key]

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    r = R.releases_delta(k, beta, eps, times, method="scan", max_enclosures=max_enclosures)
    m = _scan_model(k, beta, eps, times, 0.01, max_enclosures)
    assert (r.delta.lower, r.delta.upper) == (m["lower"], m["upper"])
    assert (r.bound_source, r.argmax_n, r.delta.details["argmax_n"]) == (m["source"], m["argmax"], m["argmax"])
    assert (r.tail_from, r.tail_bound, r.scanned) == (m["tail_from"], m["tail_bound"], (k, m["tail_from"] - 1))
    assert (r.enclosed, r.details["fine_enclosures"], r.details["coarse_enclosures"]) == (
        m["enclosed"], m["fine"], m["coarse"])
    assert r.details["cheap_bounds"] == m["cheap_bounds"] and r.mode == m["mode"] == r.delta.details["mode"]
    assert r.covers_all_n
    assert max(exact_delta(n, k, beta, x, times) for n in range(k, k + 5)) <= r.delta.upper
    assert r.delta.lower <= max(exact_delta(n, k, beta, x, times) for n in r.enclosed if n < k + 5)
