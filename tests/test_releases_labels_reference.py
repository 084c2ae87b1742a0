"""What releases' results say about themselves, each against its stated rule (module doc of
:mod:`dps_verify.inverse.releases`, CP §2.7):

* the screened result's ``mode`` names the weakest kind of certificate among *all* the sizes it
  rests on, enclosures and per-size bounds together (cheap Chernoff bounds aside): exact <
  direct < sparse < discretised;
* the width note prints upper/lower as "1 + excess" only below 2, the plain ratio from 2 on;
* a bound below 1 is printed with up to 40 significant digits, rounded up; within 10^-40 of 1
  the 40-digit rounding up is 1 (still an upper bound) and no more digits are taken.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.numbers import Certified, format_up
from dps_verify.inverse import releases as R
from dps_verify.inverse.pld_discrete import FFT_ASSUMPTION

K, BETA, EPS, TIMES = 2, F(1, 20), F(1, 10), 4
VALUE = F(1, 100)


@pytest.mark.parametrize(("enclosure_mode", "bound_mode", "mode"), [
    ("exact", "direct", "direct"),
    ("exact", "sparse", "sparse"),
    ("exact", "discretised", "discretised"),
    ("direct", "exact", "direct"),
    ("sparse", "direct", "sparse"),
    ("exact", "exact", "exact"),
])
def test_screened_mode_names_the_weakest_certificate_of_enclosures_and_bounds(
        monkeypatch: pytest.MonkeyPatch, enclosure_mode: str, bound_mode: str, mode: str) -> None:
    # every size encloses to the point VALUE (of enclosure_mode); no cheap bound reaches the
    # target, so every other size below the tail start (n = 8) is bounded by upper_below at
    # VALUE (of bound_mode): the result rests on both kinds
    monkeypatch.setattr(R, "pair_delta_enclosure", lambda *a, **kw: Certified(
        VALUE, VALUE, "fixed", {"mode": enclosure_mode}))
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    monkeypatch.setattr(R, "upper_below", lambda *a, **kw: Certified(
        F(0), VALUE, "fixed bound", {"mode": bound_mode}))
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1) if n < 8 else F(0))
    r = R.releases_delta(K, BETA, EPS, TIMES)
    assert r.tail_from == 8 and r.details["bounds_by_kind"].get(bound_mode, 0) >= 1
    assert r.mode == mode and r.delta.details["mode"] == mode
    # a result not all exact may rest on a grid bound composed by FFT: its how names the
    # assumption once, though the enclosure it quotes does not
    assert r.delta.how.count(FFT_ASSUMPTION) == (0 if mode == "exact" else 1)
    assert r.delta.lower == r.delta.upper == VALUE


@pytest.mark.parametrize(("lower", "upper", "ratio"), [
    (F(1, 4), F(1, 2), "upper/lower = 2.000e+00 >"),
    (F(1, 4), F(1, 2) - F(1, 4 * 10**6), "upper/lower = 1 + 9.99999e-01 >"),
    (F(1, 4), F(3, 4), "upper/lower = 3.000e+00 >"),
    (F(3), F(6), "upper/lower = 2.000e+00 >"),
])
def test_width_note_prints_the_excess_below_two_and_the_ratio_from_two(lower: F, upper: F,
                                                                      ratio: str) -> None:
    note = R._target_missed(lower, upper, 0.01, "the enclosure at n = 3")
    assert note is not None and ratio in note and "n = 3" in note


def test_format_bound_takes_at_most_forty_digits_within_ten_to_the_minus_forty_of_one() -> None:
    x = 1 - F(1, 10**45)
    s = R.format_bound(x)
    assert s == format_up(x, 40) and F(s) == 1 >= x
    assert len(s.split("e")[0].replace(".", "")) == 40


@pytest.mark.parametrize("method", ["screen", "scan"])
def test_default_search_limit_rtol_and_fft_reach_every_enclosure(monkeypatch: pytest.MonkeyPatch,
                                                                 method: str) -> None:
    """The documented defaults of releases_delta: with no tail start anywhere the search stops
    at n_limit = 1024 and the tail bound at 1025 is used as it is; every enclosure is asked for
    the default width rtol = 0.01 and may compose by FFT (fft = True)."""
    asked: list[tuple[object, object]] = []

    def enclosure(*a: object, **kw: object) -> Certified:
        asked.append((kw["rtol"], kw["fft"]))
        return Certified(VALUE, VALUE, "fixed", {"mode": "exact"})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: VALUE)
    monkeypatch.setattr(R, "_screen_delta", lambda *a, **kw: 0.0)
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1))
    r = R.releases_delta(K, BETA, EPS, TIMES, method=method)
    assert r.tail_from == 1025 and r.tail_bound == 1 and r.scanned == (K, 1024)
    assert r.bound_source == "tail" and r.delta.upper == 1
    assert asked and all(a == (0.01, True) for a in asked)


@pytest.mark.parametrize(("values", "argmax", "lower", "mode"), [
    # (lower, upper, mode) per size k, k + 1, ...: ties of the upper end name the smallest size
    ([(F(1, 10), F(1, 5), "exact"), (F(1, 6), F(1, 5), "exact"), (F(1, 8), F(1, 5), "exact")],
     K, F(1, 6), "exact"),
    ([(F(1, 10), F(1, 9), "exact"), (F(1, 6), F(1, 5), "discretised"),
      (F(1, 5), F(1, 5), "exact")], K + 1, F(1, 5), "discretised"),
])
def test_finite_range_takes_the_first_largest_upper_end_and_the_largest_lower_end(
        monkeypatch: pytest.MonkeyPatch, values: list[tuple[F, F, str]], argmax: int, lower: F,
        mode: str) -> None:
    """With n_max the result is the worst case over n in [k, n_max] only: the largest upper end
    (the smallest size among ties), the largest lower end, "exact" only when every size is."""
    def enclosure(p: dict, q: dict, *a: object, **kw: object) -> Certified:
        lo, up, m = values[max(o for o in p if isinstance(o, int)) - K]
        return Certified(lo, up, f"fixed {m}", {"mode": m})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    r = R.releases_delta(K, BETA, EPS, TIMES, n_max=K + len(values) - 1)
    assert r.argmax_n == argmax and r.delta.details["argmax_n"] == argmax
    assert r.delta.lower == lower and r.delta.upper == F(1, 5) and r.mode == mode
    assert r.scanned == (K, K + len(values) - 1) and not r.covers_all_n
    assert r.enclosed == tuple(range(K, K + len(values)))


def test_finite_range_below_the_threshold_is_the_threshold_size_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """n_max < k: the range is [k, k] (sizes below k give 0), enclosed once and named so."""
    sizes: list[int] = []

    def enclosure(p: dict, q: dict, *a: object, **kw: object) -> Certified:
        sizes.append(max(o for o in p if isinstance(o, int)))
        return Certified(VALUE, VALUE, "fixed", {"mode": "exact"})

    monkeypatch.setattr(R, "pair_delta_enclosure", enclosure)
    r = R.releases_delta(3, BETA, EPS, TIMES, n_max=1)
    assert sizes == [3] and r.scanned == (3, 3) and r.enclosed == (3,) and r.argmax_n == 3
    assert "n in [3, 3] only" in r.delta.how and r.mode == "exact"


def test_screened_step_two_hands_each_size_its_screen_and_the_previous_grids(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 2 asks upper_below for each open size (decreasing screen order) with that size's
    float screen as the estimate, and the grids that served the previous size as a hint (none
    for the first)."""
    monkeypatch.setattr(R, "pair_delta_enclosure", lambda *a, **kw: Certified(
        VALUE, VALUE, "fixed", {"mode": "exact"}))
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    monkeypatch.setattr(R, "_screen_delta", lambda n, *a, **kw: 1e-3 / n)  # below VALUE
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: F(1) if n < 7 else F(0))
    calls: list[tuple[object, object]] = []

    def upper_below(plds: object, eps: object, times: int, target: F, *, estimate: float,
                    h_exp: object, fft: bool) -> Certified:
        calls.append((estimate, h_exp))
        return Certified(F(0), VALUE, "fixed bound", {"mode": "discretised",
                                                       "h_exps": [-len(calls)]})

    monkeypatch.setattr(R, "upper_below", upper_below)
    r = R.releases_delta(K, BETA, EPS, TIMES)
    assert r.tail_from == 7 and r.enclosed == (K,)
    assert calls == [(1e-3 / n, None if n == K + 1 else [-(n - K - 1)]) for n in range(K + 1, 7)]


@pytest.mark.parametrize("source", ["enclosure", "bound", "tail"])
def test_screened_how_names_the_range_the_enclosures_the_tail_and_what_sets_the_upper_end(
        monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """The screened result's ``how``, word for word, with fixed certified stand-ins: n = k
    encloses to VALUE; sizes 3..6 are bounded by upper_below (at VALUE, or at the target
    (1 + rtol)·VALUE for n = 4); the tail starts at 7 (bound 0), or is never found up to
    n_limit = 8 (the tail bound 1/2 everywhere, used from n = 9)."""
    monkeypatch.setattr(R, "pair_delta_enclosure", lambda *a, **kw: Certified(
        VALUE, VALUE, "fixed enclosure", {"mode": "exact"}))
    monkeypatch.setattr(R, "_thresholded_bound", lambda *a, **kw: F(1))
    monkeypatch.setattr(R, "_screen_delta", lambda n, *a, **kw: 1e-3 / n)
    tail_from = 9 if source == "tail" else 7
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: (
        F(1, 2) if source == "tail" else F(1) if n < 7 else F(0)))
    seen: list[int] = []

    def upper_below(*a: object, **kw: object) -> Certified:
        seen.append(len(seen) + K + 1)  # decreasing screen order is increasing n here
        top = VALUE * F(101, 100) if source == "bound" and seen[-1] == 4 else VALUE
        return Certified(F(0), top, "fixed bound", {"mode": "sparse"})

    monkeypatch.setattr(R, "upper_below", upper_below)
    r = R.releases_delta(K, BETA, EPS, TIMES, n_limit=8)
    why, tail = {
        "enclosure": ("the enclosure at n = 2", "0"),
        "bound": ("a per-size certified upper bound at n = 4 (sparse)", "0"),
        "tail": ("the monotone tail bound for n >= 9", "5.000e-01"),
    }[source]
    how = (f"worst case over ALL group sizes n: n < 2 gives 0; n in [2, {tail_from - 1}] screened "
           "in floats, n = 2 enclosed, every other size bounded below the largest enclosed upper "
           "end (Chernoff, sparse or pessimistic grid); n >= "
           f"{tail_from} by the untruncated pair at n = {tail_from} (non-increasing in n; bound "
           f"{tail}); upper end set by {why}; at n = 2: fixed enclosure")
    if source == "tail":
        how += ("; target width missed: upper/lower = 5.000e+01 > 1 + rtol = 1 + 0.01, set by "
                + why)
    assert r.delta.how.split("; where a grid bound")[0] == how
    assert r.bound_source == source and r.argmax_n == {"enclosure": 2, "bound": 4, "tail": 9}[source]
