"""Releases' bookkeeping rules at their boundaries, with the enclosures and bounds replaced by
fixed certified values so that each rule is seen alone (CP §2.7; module doc of
:mod:`dps_verify.inverse.releases`):

* the scan method stops once its enclosures of any kind (exact ones included) reach
  10·max_enclosures, or its coarse ones 8·max_enclosures, for every budget (max_enclosures = 2
  and 3 tell 10·m from 10/m, 9·m, 11·m);
* the scan method encloses an open size first at the coarse width max(0.2, rtol);
* the scan method does not refine a size whose bound is at most ``ATOL``, equal included;
* both methods take as tail start the first size whose untruncated bound is *at most* the
  largest enclosed upper end: a bound equal to it (a tie) is a tail start.

The stand-ins are valid certified statements of the shape the code relies on (an enclosure
[lower, upper] per size, a cheap bound per size, a non-increasing tail bound), so every rule
checked here is the rule the code applies to real numbers.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.numbers import Certified
from dps_verify.inverse import releases as R

K, BETA, EPS, TIMES = 2, F(1, 20), F(1, 10), 4
#: the enclosed value of every size (a point: an exact enclosure or a discretised one)
VALUE = F(1, 100)


def _size(p: dict) -> int:
    """The group size of the larger group's law: its largest released count."""
    return max(o for o in p if isinstance(o, int))


def _fixed_enclosures(monkeypatch: pytest.MonkeyPatch, made: list[int], value: F = VALUE,
                      all_discretised: bool = False) -> None:
    """Every enclosure is the point ``value``, reported exact for even sizes and discretised for
    odd ones (or discretised for all); ``made`` records the sizes enclosed, in order."""
    def enclosure(p: dict, q: dict, e: object, t: int, **kw: object) -> Certified:
        n = _size(p)
        made.append(n)
        mode = "discretised" if n % 2 or all_discretised else "exact"
        return Certified(value, value, "fixed", {"mode": mode})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)


def _enclosure_widths(monkeypatch: pytest.MonkeyPatch, made: list[tuple[int, float]]) -> None:
    """Like :func:`_fixed_enclosures` (odd sizes discretised), recording (size, rtol asked)."""
    def enclosure(p: dict, q: dict, e: object, t: int, **kw: object) -> Certified:
        n = _size(p)
        made.append((n, kw["rtol"]))  # type: ignore[arg-type]
        return Certified(VALUE, VALUE, "fixed", {"mode": "discretised" if n % 2 else "exact"})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)


def _tail_bound_from(monkeypatch: pytest.MonkeyPatch, start: int, value: F) -> list[int]:
    """The untruncated bound: 1 below ``start``, ``value`` from it on (non-increasing); returns
    the list of the sizes it is asked for, in order."""
    asked: list[int] = []

    def untruncated(n: int, b: object, e: object, t: object) -> F:
        asked.append(n)
        return F(1) if n < start else value

    monkeypatch.setattr(R, "_untruncated_bound", untruncated)
    return asked


@pytest.mark.parametrize("max_enclosures", [2, 3])
def test_scan_method_stops_at_ten_enclosures_per_budget_unit(monkeypatch: pytest.MonkeyPatch,
                                                             max_enclosures: int) -> None:
    # every cheap bound vacuous (1): each open size is the largest bound in turn, smallest first;
    # odd sizes are coarse (discretised: 5 or 8 of them stay below the coarse budget 8·m), even
    # ones exact (no budget): only the cap of 10·m enclosures of any kind stops the scan
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    _tail_bound_from(monkeypatch, K + 40, F(0))
    r = R.releases_delta(K, BETA, EPS, TIMES, method="scan", max_enclosures=max_enclosures)
    cap = 10 * max_enclosures
    assert r.tail_from == K + 40 > K + cap
    assert r.enclosed == tuple(range(K, K + cap)) and made == list(range(K, K + cap))
    assert r.details["coarse_enclosures"] == [n for n in range(K, K + cap) if n % 2]
    # the first size left open keeps its vacuous cheap bound, which sets the upper end
    assert r.bound_source == "cheap" and r.argmax_n == K + cap
    assert r.delta.lower == VALUE and r.delta.upper == 1
    assert r.mode == "discretised" == r.delta.details["mode"]  # exact and grid enclosures


@pytest.mark.parametrize("max_enclosures", [2, 3])
def test_scan_method_stops_at_eight_coarse_enclosures_per_budget_unit(
        monkeypatch: pytest.MonkeyPatch, max_enclosures: int) -> None:
    # every enclosure discretised: n = k is the one fine enclosure (below the fine budget m),
    # every later open size is enclosed coarse in turn until 8·m coarse ones are spent (17 or
    # 25 enclosures, below the cap 10·m of any kind)
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made, all_discretised=True)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    _tail_bound_from(monkeypatch, K + 40, F(0))
    r = R.releases_delta(K, BETA, EPS, TIMES, method="scan", max_enclosures=max_enclosures)
    coarse = R.COARSE_PER_FINE * max_enclosures
    assert r.details["fine_enclosures"] == [K]
    assert r.details["coarse_enclosures"] == list(range(K + 1, K + 1 + coarse))
    assert made == list(range(K, K + 1 + coarse)) and r.argmax_n == K + 1 + coarse
    assert r.bound_source == "cheap" and r.delta.upper == 1


@pytest.mark.parametrize(("rtol", "coarse"), [(0.01, 0.2), (0.5, 0.5)])
def test_scan_method_encloses_coarse_at_the_larger_of_rtol_and_one_fifth(
        monkeypatch: pytest.MonkeyPatch, rtol: float, coarse: float) -> None:
    # n = k is enclosed at rtol; each later open size first at max(0.2, rtol) (odd sizes are
    # discretised: their coarse enclosure stays coarse; even ones are exact: taken as fine)
    made: list[tuple[int, float]] = []
    _enclosure_widths(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    _tail_bound_from(monkeypatch, K + 4, F(0))
    r = R.releases_delta(K, BETA, EPS, TIMES, method="scan", rtol=rtol)
    assert made == [(K, rtol), (K + 1, coarse), (K + 2, coarse), (K + 3, coarse)]
    assert r.details["coarse_enclosures"] == [K + 1, K + 3]


def test_scan_method_leaves_a_size_bounded_at_exactly_the_absolute_tolerance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # n = k encloses to ATOL / 2; every other size's cheap bound is exactly ATOL (bounds at or
    # below ATOL are not refined) and the tail bound ATOL from n = 6: nothing else is enclosed,
    # and the upper end is ATOL, set by the cheap bound of the first size after k
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made, value=R.ATOL / 2)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: R.ATOL)
    _tail_bound_from(monkeypatch, 6, R.ATOL)
    r = R.releases_delta(K, BETA, EPS, TIMES, method="scan")
    assert made == [K] and r.enclosed == (K,) and r.tail_from == 6
    assert r.bound_source == "cheap" and r.argmax_n == K + 1
    assert r.delta.lower == R.ATOL / 2 and r.delta.upper == R.ATOL
    assert r.mode == "exact" == r.delta.details["mode"]  # the one enclosure is exact


@pytest.mark.parametrize("method", ["scan", "screen"])
def test_an_untruncated_bound_equal_to_the_top_enclosure_is_a_tail_start(
        monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    # every size encloses to VALUE; the untruncated bound is 1 below n = 6 and exactly VALUE from
    # n = 6: the tail starts at 6 (a strict comparison would find none up to n_limit)
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: VALUE)
    asked = _tail_bound_from(monkeypatch, 6, VALUE)
    r = R.releases_delta(K, BETA, EPS, TIMES, method=method, n_limit=64)
    assert r.tail_from == 6 and r.tail_bound == VALUE and r.scanned == (K, 5)
    # each tail start is bounded once (memoised) and the result counts them
    assert len(asked) == len(set(asked)) == r.details["untruncated_bounds"] and 6 in asked
    assert r.delta.lower == r.delta.upper == VALUE and r.target_missed is None
    # the tail bound and the other sizes' bounds only tie the enclosure at n = k: it sets the
    # upper end (a tail or a bound must exceed it to take over)
    assert r.bound_source == "enclosure" and r.argmax_n == K


def test_screened_accepts_a_cheap_bound_equal_to_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    # rtol = 0: the target is the enclosed VALUE itself, and every cheap bound equals it: each
    # size is settled by its cheap bound, no finer bound is asked for
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: VALUE)

    def no_finer_bound(*a: object, **kw: object) -> Certified:
        raise AssertionError("a cheap bound equal to the target was not accepted")

    monkeypatch.setattr(R, "upper_below", no_finer_bound)
    _tail_bound_from(monkeypatch, 6, VALUE)
    r = R.releases_delta(K, BETA, EPS, TIMES, rtol=0, n_limit=64)
    # the float screen encloses n = k and one more size; the other open sizes below the tail
    # start (6) are each settled by one cheap bound
    assert made == [K, 5]
    assert r.details["bounds_by_kind"] == {"cheap": 2}
    assert r.delta.lower == r.delta.upper == VALUE and r.target_missed is None


@pytest.mark.parametrize("method", ["scan", "screen"])
def test_an_untruncated_bound_just_above_the_top_enclosure_is_not_a_tail_start(
        monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """Negative control of the tie: the bound one part in 10^30 above VALUE from n = 6 on never
    qualifies, so no tail start is found up to n_limit and the tail bound at n_limit + 1 is used
    as it is (its excess, 10^-32, is within the width asked of VALUE, so no miss is reported)."""
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: VALUE)
    above = VALUE + F(1, 10**32)
    _tail_bound_from(monkeypatch, 6, above)
    r = R.releases_delta(K, BETA, EPS, TIMES, method=method, n_limit=24)
    assert r.tail_from == 25 and r.tail_bound == above
    assert r.delta.upper == above and r.target_missed is None  # within rtol of VALUE


@pytest.mark.parametrize("source", ["enclosure", "cheap", "tail"])
def test_scan_how_names_the_range_the_enclosures_the_tail_and_what_sets_the_upper_end(
        monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """The scan method's ``how``, word for word: n = k encloses to VALUE (exact); the other
    sizes' cheap bounds are VALUE (2·VALUE when no enclosure budget is left, max_enclosures =
    0); the tail starts at 6 (bound 0), or is never found up to n_limit = 8 (bound 1/2)."""
    made: list[int] = []
    _fixed_enclosures(monkeypatch, made)
    monkeypatch.setattr(R, "_thresholded_bound",
                        lambda *a, **kw: 2 * VALUE if source == "cheap" else VALUE)
    if source == "tail":
        monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1, 2))
    else:
        _tail_bound_from(monkeypatch, 6, F(0))
    r = R.releases_delta(K, BETA, EPS, TIMES, method="scan", n_limit=8,
                         max_enclosures=0 if source == "cheap" else 6)
    tail_from, tail = (9, "5.000e-01") if source == "tail" else (6, "0")
    why = {
        "enclosure": "the enclosure at n = 2",
        "cheap": "a Chernoff bound at n = 3 (enclosure budget max_enclosures = 0 reached)",
        "tail": "the monotone tail bound for n >= 9 (no tail start found up to n_limit = 8)",
    }[source]
    how = (f"worst case over ALL group sizes n: n < 2 gives 0; n in [2, {tail_from - 1}] enclosed "
           "(n = 2) or bounded by a Chernoff bound on the thresholded pair; n >= "
           f"{tail_from} by the untruncated pair at n = {tail_from} (non-increasing in n; bound "
           f"{tail}); upper end set by {why}; at n = 2: fixed")
    ratio = {"enclosure": None, "cheap": "2.000e+00", "tail": "5.000e+01"}[source]
    if ratio:
        how += f"; target width missed: upper/lower = {ratio} > 1 + rtol = 1 + 0.01, set by {why}"
    assert made == [K] and r.delta.how == how and r.bound_source == source
    assert r.details["cheap_bounds"] == tail_from - K - 1 and r.details["fine_enclosures"] == [K]
