"""The exact walk of worstcase/sdgs.py on a grid of small parameters, against per-group-size
values written from the definitions, each call under a CPU-time limit.

One recoding group of n copies of t under sampled strongly-safe k-anonymization (TR Alg. 4;
CP App. A.2): each record is kept with probability β, the group's count j is published when
j ≥ k and suppressed ("⊥") otherwise; D has n copies, its neighbour D−t has n − 1.  The laws are
integers over q^n (β = p/q), the bad sets are decided exactly (e^ε = x rational through an exact
logarithm ε = ln x) or at 100 digits (rational ε: e^ε is irrational, no ties), and the worst case
is the maximum over every n up to a cap far past the maximiser.  The grid crosses CP Thm 5's
edge ε = −ln(1−β) on both sides and at the edge itself, covers ε = 0, k = 1 and exact ties
between group sizes (argmax_n must be the smallest maximiser whenever the value is exact).

The CPU limit turns a scan that no longer stops (a broken stopping rule or threshold walk) into
a quick failure instead of a hang.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from functools import cache
from math import comb
from pathlib import Path

import mpmath
import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import exact_log
from dps_verify.worstcase import sdgs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "properties"))
import reference as R  # noqa: E402

F = Fraction
SUPPRESSED = -1
DPS = 100
SHIFT = 256
#: CPU seconds one scan may use (each takes milliseconds on the unmutated code)
LIMIT = 3.0
#: the reference's largest group size: every maximiser of the grid is below 13
N_MAX = 32


@cache
def _laws(n: int, k: int, p: int, q: int) -> tuple[dict[int, int], dict[int, int]]:
    """(P, Q): the output laws under D (n copies) and D−t (n − 1 copies), integers over q^n."""
    r = q - p
    P: dict[int, int] = {SUPPRESSED: 0}
    Q: dict[int, int] = {SUPPRESSED: 0}
    for j in range(n + 1):
        out = j if j >= k else SUPPRESSED
        P[out] = P.get(out, 0) + comb(n, j) * p**j * r ** (n - j)
        if j <= n - 1:
            Q[out] = Q.get(out, 0) + q * comb(n - 1, j) * p**j * r ** (n - 1 - j)
    return P, Q


def e_eps(eps: Fraction | None, x: Fraction | None) -> tuple[int, int, int]:
    """e^ε as integers (lo, hi, den) with lo/den ≤ e^ε ≤ hi/den: exact (lo = hi) for e^ε = x,
    else from 100 digits of exp(ε), rounded outward to 256 bits (e^ε is then irrational)."""
    if x is not None:
        return x.numerator, x.numerator, x.denominator
    with mpmath.workdps(DPS):
        v = mpmath.floor(mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator) * 2**SHIFT)
    return int(v) - 1, int(v) + 2, 1 << SHIFT


def greater(a: int, e: tuple[int, int, int], b: int) -> bool:
    """a > e^ε·b for integers a, b ≥ 0, decided exactly (an irrational e^ε never ties)."""
    lo, hi, den = e
    if a * den > hi * b:
        return True
    assert lo == hi or a * den <= lo * b, "reference undecided"
    return False


def per_n(n: int, k: int, beta: Fraction, e: tuple[int, int, int], measure: str) -> tuple[Fraction, Fraction]:
    """The measure's value at group size n, enclosed (exact when e^ε is rational)."""
    p, q = beta.numerator, beta.denominator
    qn = q**n
    if measure == "paper-d":  # CP Thm 5: Pr[Bin(n, β) > γn], j > γn ⇔ (n − j)·e^ε < n(1 − β)
        r = q - p
        v = sum(comb(n, j) * p**j * r ** (n - j) for j in range(n + 1) if greater(n * r, e, (n - j) * q))
        return F(v, qn), F(v, qn)
    P, Q = _laws(n, k, p, q)
    outs = set(P) | set(Q)
    if measure == "hockey-stick":  # Σ max(0, A − e^ε·B), both directions (add or remove t)
        lo, hi, den = e
        ends = []
        for x in (hi, lo):  # the larger e^ε gives the smaller value
            ends.append(max(sum(max(P.get(o, 0) * den - x * Q.get(o, 0), 0) for o in outs),
                            sum(max(Q.get(o, 0) * den - x * P.get(o, 0), 0) for o in outs)))
        return F(ends[0], qn * den), F(ends[1], qn * den)
    bad = [o for o in outs if greater(P.get(o, 0), e, Q.get(o, 0)) or greater(Q.get(o, 0), e, P.get(o, 0))]
    v = max(sum(P.get(o, 0) for o in bad), sum(Q.get(o, 0) for o in bad))
    return F(v, qn), F(v, qn)


def n_m(k: int, beta: Fraction, e: tuple[int, int, int]) -> int:
    """Least n with γ(n + 1) ≥ k: (n + 1 − k)·e^ε ≥ (n + 1)(1 − β) (CP App. A.2)."""
    n = 0
    while n + 1 - k <= 0 or greater((n + 1) * (beta.denominator - beta.numerator), e,
                                    (n + 1 - k) * beta.denominator):
        n += 1
    return n


def reference(k: int, beta: Fraction, e: tuple[int, int, int], measure: str,
              n_max: int = N_MAX) -> tuple[Fraction, Fraction, list[int]]:
    """The maximum over the group sizes the measure ranges over (every n ≥ 1; n ≥ n_m for CP
    Thm 5's d), up to n_max, enclosed as (lo, hi), and the sizes whose lower end is largest."""
    first = n_m(k, beta, e) if measure == "paper-d" else 1
    values = {n: per_n(n, k, beta, e, measure) for n in range(max(first, 1), n_max + 1)}
    lo = max(v[0] for v in values.values())
    return lo, max(v[1] for v in values.values()), sorted(n for n, v in values.items() if v[0] == lo)


# (k, β, ε as a Fraction or None, e^ε as a Fraction or None)
GRID = [
    # CP Thm 5's regime, rational ε
    (1, F(1, 2), F(1), None),
    (2, F(1, 2), F(1), None),
    (3, F(1, 3), F(1, 2), None),
    (4, F(1, 4), F(3, 2), None),
    (2, F(1, 10), F(1, 5), None),
    # outside it (backward bad set), rational ε
    (2, F(1, 2), F(1, 2), None),
    (3, F(1, 2), F(1, 10), None),
    (3, F(1, 3), F(1, 5), None),
    # exact logarithms ε = ln x: e^ε = x rational, ties between group sizes decidable
    (3, F(1, 3), None, F(2)),
    (5, F(1, 3), None, F(2)),
    (3, F(1, 10), None, F(3, 2)),
    (5, F(1, 10), None, F(3, 2)),
    (4, F(1, 4), None, F(3)),
    (3, F(1, 2), None, F(3, 2)),
    (2, F(1, 3), None, F(6, 5)),
    (2, F(1, 2), None, F(2)),  # exactly at the edge: e^ε(1 − β) = 1
    (3, F(1, 3), None, F(3, 2)),  # exactly at the edge
    (1, F(1, 3), None, F(5, 4)),  # k = 1, outside the regime
    # outside it with a large β: published counts k ≤ j < γ'n are backward-bad at the maximiser
    (4, F(3, 4), F(1, 2), None),
    (5, F(4, 5), F(1, 2), None),
]


def _case_id(case) -> str:
    k, beta, eps, x = case
    return f"k{k}-b{beta}-" + (f"e{eps}" if x is None else f"ln{x}")


def _in_regime(beta: Fraction, e: tuple[int, int, int]) -> bool:
    return not greater(beta.denominator, e, beta.denominator - beta.numerator)  # e^ε(1−β) ≥ 1


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise", "paper-d"])
@pytest.mark.parametrize("case", GRID, ids=_case_id)
def test_scan_equals_the_maximum_over_group_sizes_from_the_definitions(case, measure):
    k, beta, eps, x = case
    e = e_eps(eps, x)
    eps_arg = eps if x is None else exact_log(x)
    if measure == "paper-d" and not _in_regime(beta, e):  # CP Thm 5's d exists in its regime only
        with pytest.raises(ParameterError, match="CP Thm 5"):
            sdgs.scan(k, beta, eps_arg, measure=measure)
        return
    got = R.call_limited(sdgs.scan, k, beta, eps_arg, measure=measure, seconds=LIMIT)
    lo, hi, argmax = reference(k, beta, e, measure)
    n = got.details["argmax_n"]
    assert 0 < n < N_MAX // 2  # the reference's range is far past the maximiser
    assert got.lower <= hi and lo <= got.upper  # the enclosures meet
    assert got.upper - got.lower <= lo * F(1, 10**15)
    if measure != "hockey-stick":
        assert got.lower == got.upper == lo  # exact integers over q^n
    if got.lower == got.upper and lo == hi:
        assert n == argmax[0]  # exact: the smallest maximiser
    else:
        v_lo, v_hi = per_n(n, k, beta, e, measure)  # the reported size attains the lower end
        assert v_hi >= got.lower


@pytest.mark.parametrize("k, beta", [(2, F(1, 2)), (3, F(1, 3)), (1, F(1, 4))])
def test_scan_at_epsilon_zero(k, beta):
    """ε = 0: the pointwise value is 1 (every output with unequal masses is bad; published j = n
    has mass 0 under D−t), attained at n = k; the hockey-stick value is the total variation,
    maximised over n (TV(Bin(n), Bin(n−1)) = β·max pmf, non-increasing)."""
    pw = R.call_limited(sdgs.scan, k, beta, F(0), measure="pointwise", seconds=LIMIT)
    assert pw.lower == pw.upper == 1 and pw.details["argmax_n"] == k
    hs = R.call_limited(sdgs.scan, k, beta, F(0), measure="hockey-stick", seconds=LIMIT)
    lo, hi, argmax = reference(k, beta, (1, 1, 1), "hockey-stick")
    assert hs.lower == hs.upper == lo == hi and hs.details["argmax_n"] == argmax[0]


def test_reference_tells_a_wrong_threshold():
    """Negative control: the reference distinguishes a suppression threshold one too low (it
    would accept a scan of the wrong mechanism)."""
    beta, x = F(1, 3), F(2)
    right, _, _ = reference(3, beta, e_eps(None, x), "hockey-stick")
    wrong, _, _ = reference(2, beta, e_eps(None, x), "hockey-stick")
    assert right != wrong
    got = R.call_limited(sdgs.scan, 3, beta, exact_log(x), measure="hockey-stick", seconds=LIMIT)
    assert got.lower == right != wrong


def test_cpu_limit_turns_a_scan_that_never_stops_into_a_failure(monkeypatch):
    """Negative control of the limit: with the stopping rules made unable to fire (no Chernoff
    certificate, an infinite budget), the scan is stopped by the CPU limit."""
    monkeypatch.setattr(sdgs, "_chernoff_below", lambda *a: False)
    monkeypatch.setattr(sdgs, "kl_lower", lambda beta, eps, prec=0: F(1, 10**30))
    with pytest.raises(R.Hang):
        R.call_limited(sdgs.scan, 2, F(1, 2), F(1), measure="hockey-stick", budget=float("inf"),
                       seconds=0.5)


# the grid and a few larger k (values of 40–50 bits, start sizes near k/γ)
ESTIMATE_CASES = GRID + [(20, F(1, 10), F(1), None), (10, F(1, 100), F(1, 2), None),
                         (30, F(1, 3), F(2), None), (50, F(1, 2), F(1, 5), None)]


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise", "paper-d"])
def test_work_estimate_predicts_the_start_the_stop_and_the_value_size(measure):
    """The float screen that every scan runs before any exact arithmetic (its budget refusals
    and the choice of the long-range path rest on it) predicts, on every case: the start group
    size within one (n_m = ⌈k/γ − 1⌉ in the regime, k outside it), the proven stopping point
    within a factor (0.8 to 4; a stop by the value 1, which it does not foresee, excepted), and
    the size of the worst-case value, −log2 δ, within 3 bits."""
    import math

    checked = 0
    for k, beta, eps, x in ESTIMATE_CASES:
        e = e_eps(eps, x)
        regime = _in_regime(beta, e)
        if measure == "paper-d" and not regime:
            continue
        eps_arg = eps if x is None else exact_log(x)
        est = sdgs._estimate(k, beta, eps_arg, measure, measure != "paper-d" and not regime)
        got = R.call_limited(sdgs.scan, k, beta, eps_arg, measure=measure, seconds=LIMIT)
        start = got.details["n_start"]
        stop = start + got.details["n_scanned"] - 1
        assert start - 1 <= est["n0"] <= start, (k, beta, eps, x)
        if got.lower < 1:
            assert 0.8 * stop <= est["n_stop"] <= 4 * stop, (k, beta, eps, x, est, stop)
            assert abs(est["value_bits"] + math.log2(got.lower)) <= 3, (k, beta, eps, x, est)
        checked += 1
    assert checked >= 10


def _n_m_reference(k: int, beta: Fraction, eps: Fraction) -> int:
    """n_m = least n with (n + 1 − k)·e^ε ≥ (n + 1)(1 − β), i.e. n + 1 ≥ k·e^ε/(e^ε − (1 − β)),
    at 60 digits (e^ε is irrational for rational ε ≠ 0: no tie to decide)."""
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        return int(mpmath.ceil(k * e / (e - (1 - mpmath.mpf(beta.numerator) / beta.denominator)))) - 1


@pytest.mark.parametrize("k, beta, eps", [(10**6, F(1, 2), F(1)), (10**6, F(1, 10), F(1, 3)),
                                          (3 * 10**5, F(1, 3), F(2))])
def test_start_group_size_at_a_large_k_is_found_from_a_close_float_guess(k, beta, eps):
    """n_m at k of 10^5 to 10^6, by both exact searches (exp_compare, and the scan's dyadic
    enclosure of e^ε), within a CPU-time limit: their float guess k/γ − 1 lands within a step
    or two, so a guess far off (a walk of ~k exact comparisons) fails here instead of only
    slowing the scan down."""
    want = _n_m_reference(k, beta, eps)
    assert R.call_limited(sdgs.n_min, k, beta, eps, seconds=1.0) == want
    assert R.call_limited(sdgs._n_min_E, k, beta, eps, sdgs._Exp(eps), seconds=1.0) == want


def _published_backward(n: int, k: int, beta: Fraction, e: tuple[int, int, int]) -> list[int]:
    """Published counts j ≥ k whose mass under D−t exceeds e^ε times their mass under D."""
    P, Q = _laws(n, k, beta.numerator, beta.denominator)
    return [o for o in sorted(P) if o >= k and greater(Q.get(o, 0), e, P.get(o, 0))]


def _pointwise_without_published_backward(n: int, k: int, beta: Fraction, e: tuple[int, int, int]) -> Fraction:
    """The pointwise value at n with the published backward-bad counts left out of the bad set:
    what a backward threshold stuck at k − 1 would compute (the negative control below)."""
    P, Q = _laws(n, k, beta.numerator, beta.denominator)
    dropped = set(_published_backward(n, k, beta, e))
    bad = [o for o in set(P) | set(Q) if o not in dropped
           and (greater(P.get(o, 0), e, Q.get(o, 0)) or greater(Q.get(o, 0), e, P.get(o, 0)))]
    return F(max(sum(P.get(o, 0) for o in bad), sum(Q.get(o, 0) for o in bad)), beta.denominator**n)


@pytest.mark.parametrize("k, beta, eps", [(4, F(3, 4), F(1, 2)), (5, F(4, 5), F(1, 2))])
def test_pointwise_scan_keeps_published_counts_in_the_backward_bad_set(k, beta, eps):
    """Outside CP Thm 5's regime (ε < −ln(1−β)) the backward bad set holds the published counts
    k ≤ j < γ'n, γ' = 1 − (1−β)e^ε, once γ'n passes k: the walk's backward threshold must rise
    with n.  Here the maximiser has such counts, and leaving them out (a threshold stuck at
    k − 1) gives a strictly smaller maximum, so the scan must meet the definitions exactly."""
    e = e_eps(eps, None)
    lo, hi, argmax = reference(k, beta, e, "pointwise")
    n = argmax[0]
    assert _published_backward(n, k, beta, e)  # the premise: backward-bad published counts
    without = max(_pointwise_without_published_backward(m, k, beta, e) for m in range(1, N_MAX + 1))
    assert without < lo  # negative control: the reference tells the smaller bad set apart
    got = R.call_limited(sdgs.scan, k, beta, eps, measure="pointwise", seconds=LIMIT)
    assert got.lower == got.upper == lo == hi
    assert got.details["argmax_n"] == n
