"""The long-range worst-case scans (worstcase/long_range.py) against brute force from the definitions.

One recoding group of n copies of a record t under sampled strongly-safe k-anonymization (CP
Def. 3: each record kept with probability β; the group's count j is published when j ≥ k, else
the group is suppressed, "⊥"), D (n copies) versus D_{−t} (n − 1 copies): its δ per group size n
is computed here with exact Fractions (the laws) and mpmath at 60 digits (e^ε), for the
hockey-stick and the pointwise definition.  The scans' pieces must enclose it:

* the per-n value of the segment scan with its bad set (T_n, m_n, z_n), for every n of a range,
  inside and outside CP Thm 5's regime — in particular where the suppressed outcome is *not* bad
  at n = k (ε ≥ −ln(1−β^k)) while the published backward set is non-empty (m_n ≥ k), the
  branch-and-bound case;
* each segment's bound (≥ the brute maximum over the segment) and its candidates (attaining it
  when they are said to be the maximisers);
* the whole scan: its value is the brute maximum over a long range of n (and its argmax a
  maximiser);
* the runs of equal threshold (CP Thm 5's d): N_J = ⌈J/γ⌉ − 1 up to J = 10^30, the number of
  runs the documented Chernoff stopping rule allows, and the refusals (κ ≤ 0, run budget).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb

import mpmath
import pytest

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.params import in_paper_regime
from dps_verify.worstcase import long_range, sdgs
from dps_verify.worstcase.ball_binomial import arb_to_fractions
from dps_verify.worstcase.long_range import Thresholds, _SegmentScan, d_by_runs

F = Fraction
SUPPRESSED = "⊥"
DPS = 60


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _bin_numerators(size: int, beta: Fraction) -> list[int]:
    """C(size, j)·p^j·(q−p)^(size−j) for j = 0..size, β = p/q: Pr[Bin(size, β) = j]·q^size."""
    p, q = beta.numerator, beta.denominator
    return [comb(size, j) * p**j * (q - p) ** (size - j) for j in range(size + 1)]


@functools.cache
def _law(size: int, k: int, beta: Fraction) -> dict:
    """The output law of the group of ``size`` copies: count j ≥ k published, else ⊥ (exact)."""
    num, den = _bin_numerators(size, beta), beta.denominator**size
    law: dict = {}
    if k > 0:
        law[SUPPRESSED] = F(sum(num[:k]), den)
    for j in range(k, size + 1):
        law[j] = F(num[j], den)
    return law


@functools.cache
def brute_delta(n: int, k: int, beta: Fraction, eps: Fraction, measure: str) -> mpmath.mpf:
    """δ of the pair (n copies, n − 1 copies) from the definitions: hockey-stick (CP Def 2, both
    directions) or pointwise (the P- or Q-mass of the outputs whose ratio exceeds e^ε either
    way, strictly)."""
    P, Q = _law(n, k, beta), _law(n - 1, k, beta)
    outs = set(P) | set(Q)
    with mpmath.workdps(DPS):
        x = mpmath.exp(_mp(eps))
        p = {o: _mp(P.get(o, F(0))) for o in outs}
        q = {o: _mp(Q.get(o, F(0))) for o in outs}
        if measure == "hockey-stick":
            fwd = mpmath.fsum(max(mpmath.mpf(0), p[o] - x * q[o]) for o in outs)
            bwd = mpmath.fsum(max(mpmath.mpf(0), q[o] - x * p[o]) for o in outs)
            return max(fwd, bwd)
        bad = [o for o in outs if p[o] > x * q[o] or q[o] > x * p[o]]
        return max(mpmath.fsum(p[o] for o in bad), mpmath.fsum(q[o] for o in bad))


def _encloses(ball, x: mpmath.mpf) -> bool:
    lo, hi = arb_to_fractions(ball)
    with mpmath.workdps(DPS):
        slack = mpmath.mpf(10) ** -40
        return _mp(lo) - slack <= x <= _mp(hi) + slack


def _scan(k: int, beta: Fraction, eps: Fraction, measure: str) -> _SegmentScan:
    return _SegmentScan(k, beta, eps, measure, sdgs._Exp(eps), not in_paper_regime(beta, eps), 96)


# (k, β, ε): outside the regime with the suppressed outcome not bad at n = k and bad later (the
# first three), outside with ⊥ bad from n = k, and inside the regime
CASES = [
    (3, F(1, 2), F(2, 5)),
    (4, F(1, 2), F(1, 2)),
    (5, F(3, 10), F(1, 4)),
    (2, F(1, 2), F(1, 5)),
    (3, F(1, 10), F(1, 20)),
    (4, F(1, 3), F(3, 2)),
]
MEASURES = ["hockey-stick", "pointwise"]


def test_the_cases_reach_both_states_of_the_suppressed_outcome():
    for k, beta, eps in CASES[:3]:
        sc = _scan(k, beta, eps, "hockey-stick")
        assert not in_paper_regime(beta, eps) and not sc.z(k)
        assert sc.z(k + 40)
    assert _scan(*CASES[3], "hockey-stick").z(CASES[3][0])
    assert not _scan(*CASES[4], "hockey-stick").z(CASES[4][0])
    assert in_paper_regime(CASES[5][1], CASES[5][2])


@pytest.mark.parametrize("k, beta, eps", [CASES[0], CASES[2], (2, F(9, 10), F(1, 2)), (6, F(1, 5), F(1, 10))])
def test_a_published_backward_count_forces_the_suppressed_outcome_bad(k, beta, eps):
    """The segment notes' lemma m_n ≥ k ⇒ z_n (which leaves every segment a closed-form
    maximiser), checked from the definitions with Fractions and mpmath over n = k .. k + 60."""
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        for n in range(k, k + 61):
            law_n, law_m = _law(n, k, beta), _law(n - 1, k, beta)
            published_bad = any(_mp(law_m.get(j, F(0))) > e * _mp(law_n[j]) for j in range(k, n + 1))
            if published_bad:
                assert _mp(law_m[SUPPRESSED]) > e * _mp(law_n[SUPPRESSED]), n


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k, beta, eps", CASES)
def test_per_group_size_value_with_its_bad_set_encloses_the_brute_force(k, beta, eps, measure):
    """For n = k .. k + 45: the exact thresholds T_n (least j ≥ k with j > γn), m_n (largest
    j < γ'n, at least k − 1) and z_n against mpmath, and the value with that bad set enclosing
    the brute-force δ."""
    sc = _scan(k, beta, eps, measure)
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        gamma = 1 - (1 - _mp(beta)) / e
        gamma_b = 1 - (1 - _mp(beta)) * e
    for n in range(k, k + 46):
        T, m, z = sc.fwd_T(n), sc.bwd_m(n), sc.z(n)
        with mpmath.workdps(DPS):
            assert T == max(k, int(mpmath.floor(gamma * n)) + 1), n
            if sc.backward:
                M = int(mpmath.ceil(gamma_b * n)) - 1 if gamma_b > 0 else -1
                assert m == max(M, k - 1), n
                F_prev = _mp(sum((v for o, v in _law(n - 1, k, beta).items() if o == SUPPRESSED), F(0)))
                F_now = _mp(sum((v for o, v in _law(n, k, beta).items() if o == SUPPRESSED), F(0)))
                assert z == (F_prev > e * F_now), n
            else:
                assert (m, z) == (k - 1, False)
        v, exact = sc.value(n, T, m, z), brute_delta(n, k, beta, eps, measure)
        assert _encloses(v, exact), n
        if exact == 1:  # every output bad: the value is exactly 1
            assert arb_to_fractions(v) == (1, 1), n


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k, beta, eps", CASES)
def test_segment_candidates_attain_the_brute_maximum_of_every_sub_segment(k, beta, eps, measure):
    """Every interval [a, b] on which T, m and z are constant: the best candidate's brute value
    is the brute maximum over [a, b]."""
    sc = _scan(k, beta, eps, measure)
    n_hi = k + 40
    key = {n: (sc.fwd_T(n), sc.bwd_m(n), sc.z(n)) for n in range(k, n_hi + 1)}
    brute = {n: brute_delta(n, k, beta, eps, measure) for n in key}
    tested = 0
    for a in range(k, n_hi):
        for b in range(a, n_hi + 1):
            if key[b] != key[a]:
                break
            cands = sc.candidates(a, b, *key[a])
            assert all(a <= c <= b for c in cands)
            top = max(brute[n] for n in range(a, b + 1))
            assert abs(max(brute[c] for c in cands) - top) <= mpmath.mpf(10) ** -40, (a, b)
            tested += b > a
    assert tested > 0


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k, beta, eps", CASES)
def test_segment_scan_equals_the_brute_maximum_over_group_sizes(k, beta, eps, measure):
    """The whole scan's enclosure contains max_n δ(n) (brute force over n ≤ 2·argmax + 30, the
    rest being below it by the scan's own stopping rule) and its argmax attains it; it is tight
    and agrees with the exact integer walk of sdgs.scan."""
    c = sdgs.scan_segments_for_test(k, beta, eps, measure)
    n_star = c.details["argmax_n"]
    top = max(brute_delta(n, k, beta, eps, measure) for n in range(k, 2 * n_star + 31))
    with mpmath.workdps(DPS):
        assert _mp(c.lower) - mpmath.mpf(10) ** -40 <= top <= _mp(c.upper) + mpmath.mpf(10) ** -40
        assert abs(brute_delta(n_star, k, beta, eps, measure) - top) <= mpmath.mpf(10) ** -40
    assert c.relative_width() < 2.0**-60
    assert "(python-flint arb, 96-bit working precision)" in c.how
    walk = sdgs.scan(k, beta, eps, measure=measure, budget=10**9, long_range=False)
    assert c.lower <= walk.upper and walk.lower <= c.upper


@functools.cache
def _tv(N: int, beta: Fraction) -> Fraction:
    """TV(Bin(N, β), Bin(N−1, β)) = ½ Σ_j |f(j; N) − f(j; N−1)|, exact (both laws over q^N)."""
    f = _bin_numerators(N, beta)
    g = [beta.denominator * x for x in _bin_numerators(N - 1, beta)] + [0]
    return F(sum(abs(x - y) for x, y in zip(f, g)), 2 * beta.denominator**N)


def _ref_stop_threshold(sc: _SegmentScan, N: int, kl: Fraction) -> mpmath.mpf:
    """The least best value at which one of the documented stopping rules fires at N."""
    k, beta = sc.k, sc.beta
    with mpmath.workdps(DPS):
        th = [mpmath.mpf(1)]
        if sc.measure == "hockey-stick":
            th.append(_mp(_tv(N, beta)))
        two = 2 if sc.backward else 1
        if not sc.backward:
            th.append(mpmath.exp(-N * _mp(kl)))
        else:
            gp = 1 - (1 - _mp(beta)) * mpmath.exp(_mp(sc.eps))
            c = max(mpmath.mpf(k), gp * N) / (N - 1)
            if c < _mp(beta):
                c_q = max(F(k), sdgs_gp_hi(sc) * N) / (N - 1)
                th.append(two * max(mpmath.exp(-N * _mp(kl)), mpmath.exp(-(N - 1) * _mp(sdgs.kl_lower_below(c_q, beta)))))
        return min(th)


def sdgs_gp_hi(sc: _SegmentScan) -> Fraction:
    return 1 - (1 - sc.beta) * Fraction(int(sc.E.lo), 1 << sc.E.s)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k, beta, eps", CASES + [(2, F(9, 10), F(1, 2)), (3, F(1, 2), F(3))])
def test_stopping_rules_fire_exactly_at_their_documented_thresholds(k, beta, eps, measure):
    """For N = k + 1 .. k + 60 the scan's stop decision at a best value 10^−9 above (below) the
    least threshold of its rules (value 1; hockey-stick TV(Bin(N), Bin(N−1)) from the definition;
    Chernoff exp(−Nκ), or outside the regime 2·max(exp(−Nκ), exp(−(N−1)·KL(c_N‖β)))) fires (does
    not fire)."""
    sc = _scan(k, beta, eps, measure)
    kl = sdgs.kl_lower(beta, eps)
    notes = set()
    for N in range(k + 1, k + 61):
        t = _ref_stop_threshold(sc, N, kl)
        with mpmath.workdps(DPS):
            above = F(mpmath.nstr(t * (1 + mpmath.mpf(10) ** -9), 40))
            below = F(mpmath.nstr(t * (1 - mpmath.mpf(10) ** -9), 40))
        if above <= 1:
            note = sc.stop_note(N, above, kl, sdgs.kl_lower_below)
            assert note, N
            notes.update(w for w in ("value 1", "TV(", "both tails", "Chernoff–Hoeffding bound") if w in note)
        assert sc.stop_note(N, below, kl, sdgs.kl_lower_below) == "", N
        assert "value 1" in sc.stop_note(N, F(1), kl, sdgs.kl_lower_below)
        assert "value 1" not in sc.stop_note(N, 1 - F(1, 10**30), kl, sdgs.kl_lower_below)
    RULES_SEEN.update(notes)


RULES_SEEN: set = set()


def test_every_stopping_rule_was_met_at_its_threshold():
    """(runs after the test above) the TV, forward Chernoff and two-tail rules each fired in
    some case below the value 1."""
    if len(RULES_SEEN) == 0:
        pytest.skip("run with the stopping-rule test")
    assert len(RULES_SEEN) == 3, RULES_SEEN


def test_segment_scan_refuses_past_its_segment_budget():
    k, beta, eps = CASES[0]
    c = sdgs.scan_segments_for_test(k, beta, eps, "pointwise")
    used = c.details["segments"]
    args = (k, beta, eps, "pointwise", sdgs._Exp(eps), sdgs.kl_lower(beta, eps), sdgs.kl_lower_below)
    assert long_range.sdgs_by_segments(*args, budget=used).lower == c.lower
    with pytest.raises(CertificationError, match="SEGMENT_BUDGET"):
        long_range.sdgs_by_segments(*args, budget=used - 1)


# --- runs of equal threshold (CP Thm 5's d) ------------------------------------------------


def _ref_last_below(J: int, beta: Fraction, eps: Fraction) -> int:
    """⌈J/γ⌉ − 1 with γ = 1 − (1−β)e^−ε at 120 digits."""
    with mpmath.workdps(120):
        g = 1 - (1 - _mp(beta)) * mpmath.exp(-_mp(eps))
        return int(mpmath.ceil(J / g)) - 1


@pytest.mark.parametrize("beta, eps", [(F(1, 3), F(1, 2)), (F(1, 10), F(3, 2)), (F(1, 10**6), F(1, 10**5)),
                                       (F(1, 2), F(40))])
def test_run_ends_are_the_last_group_size_below_each_threshold(beta, eps):
    th = Thresholds(beta, eps, sdgs._Exp(eps))
    for J in [1, 2, 3, 17, 1000, 10**6 + 3, 10**15 + 7, 10**30 + 11]:
        assert th.last_below(J) == _ref_last_below(J, beta, eps), J


def _ref_runs(k: int, beta: Fraction, eps: Fraction, kl: Fraction) -> tuple[Fraction, int]:
    """(d, number of runs) by the documented rule: U(J) = Pr[Bin(N_J, β) ≥ J] for J = k, k+1, …
    (exact integers), stopping after the first J with (N_J + 1)·κ ≥ −ln(max U so far)."""
    p, q = beta.numerator, beta.denominator
    best, J = F(0), k
    while True:
        N = _ref_last_below(J, beta, eps)
        U = F(sum(comb(N, j) * p**j * (q - p) ** (N - j) for j in range(J, N + 1)), q**N)
        best = max(best, U)
        with mpmath.workdps(DPS):
            if (N + 1) * _mp(kl) >= -mpmath.log(_mp(best)):
                return best, J - k + 1
        J += 1


@pytest.mark.parametrize("k, beta, extra", [(1, F(1, 3), F(1, 10)), (5, F(1, 10), F(1, 4)), (12, F(1, 2), F(1, 2)),
                                            (30, F(1, 5), F(2))])
def test_runs_give_d_and_stop_at_the_first_run_the_chernoff_rule_allows(k, beta, extra):
    eps = sdgs.neg_log_upper(1 - beta) + extra
    kl = sdgs.kl_lower(beta, eps)
    d, runs = _ref_runs(k, beta, eps, kl)
    c = d_by_runs(k, beta, eps, sdgs._Exp(eps), kl)
    assert c.lower <= d <= c.upper and c.relative_width() < 2.0**-60
    assert c.details["runs"] == runs
    assert c.details["n_start"] == _ref_last_below(k, beta, eps)
    assert "(python-flint arb, ≥ 96 bits," in c.how  # the precision it certifies with


def test_runs_refuse_a_chernoff_exponent_that_is_not_positive():
    beta, eps = F(1, 3), F(1)
    for kl in (F(0), F(-1, 10)):
        with pytest.raises(ParameterError):
            d_by_runs(3, beta, eps, sdgs._Exp(eps), kl)


def test_run_budget_holds_when_the_float_estimate_is_wrong(monkeypatch):
    """The float work estimate only refuses early; a lying estimate (1 run) must not let the scan
    go past the run budget."""
    k, beta, eps = 12, F(1, 2), sdgs.neg_log_upper(F(1, 2)) + F(1, 2)
    kl = sdgs.kl_lower(beta, eps)
    runs = _ref_runs(k, beta, eps, kl)[1]
    assert runs > 3
    monkeypatch.setattr(long_range, "_estimate_runs", lambda *a: 1.0)
    assert d_by_runs(k, beta, eps, sdgs._Exp(eps), kl, budget=runs).details["runs"] == runs
    # the refusal names the run it would have had to start: one past the budget
    with pytest.raises(CertificationError, match=rf"RUN_BUDGET = {runs - 1} threshold runs, estimated {runs:.3g}\)"):
        d_by_runs(k, beta, eps, sdgs._Exp(eps), kl, budget=runs - 1)


def test_run_estimate_counts_the_first_run_and_the_runs_to_the_chernoff_point():
    """The float screen's run count: 1 (the first run) plus γ·(n_stop − N_k) with n_stop =
    −ln U(k)/κ, γ = 1 − (1−β)e^−ε (mpmath), and just 1 when the first run already stops."""
    beta, eps, kl = F(1, 3), F(1), F(1, 10)
    with mpmath.workdps(DPS):
        g = float(1 - _mp(1 - beta) * mpmath.exp(-_mp(eps)))
    assert long_range._estimate_runs(5, beta, eps, kl, 50.0, 100) == pytest.approx(1 + g * (500 - 100), rel=1e-12)
    assert long_range._estimate_runs(5, beta, eps, kl, 0.0, 100) == 1.0


def test_run_budget_error_far_from_the_edge_names_k():
    beta = F(1, 10)
    eps = F(3)  # edge -ln(0.9) ≈ 0.105: far
    with pytest.raises(CertificationError, match=r"k = 100000 makes the best value tiny"):
        d_by_runs(10**5, beta, eps, sdgs._Exp(eps), sdgs.kl_lower(beta, eps), budget=1)


# --- the documented limits, at their values ------------------------------------------------


def test_searches_reach_group_sizes_up_to_2_to_the_400_and_refuse_beyond():
    """Run ends are searched up to n = 2^400 (_SEARCH_LIMIT): N_J just below it is found, a
    run ending past it is refused with the search limit named."""
    beta, eps = F(1, 2), F(1)
    th = Thresholds(beta, eps, sdgs._Exp(eps))
    J = (1 << 399) + (1 << 390)  # N_J ≈ 0.79·2^399·2 ≈ 0.96·2^400 < 2^400
    assert th.last_below(J) == _ref_last_below(J, beta, eps) < 1 << 400
    with pytest.raises(CertificationError, match=f"> limit {1 << 400}$"):
        th.last_below(1 << 400)


def test_default_run_budget_is_40000_runs_an_estimate_of_exactly_that_is_accepted(monkeypatch):
    k, beta, eps = 5, F(1, 10), sdgs.neg_log_upper(F(9, 10)) + F(1, 4)
    kl = sdgs.kl_lower(beta, eps)
    monkeypatch.setattr(long_range, "_estimate_runs", lambda *a: 40_000.0)
    assert d_by_runs(k, beta, eps, sdgs._Exp(eps), kl).details["runs"] == _ref_runs(k, beta, eps, kl)[1]
    monkeypatch.setattr(long_range, "_estimate_runs", lambda *a: 40_000.5)
    with pytest.raises(CertificationError, match=r"RUN_BUDGET = 40000 threshold runs, estimated 4(\.0+)?e\+04\)"):
        d_by_runs(k, beta, eps, sdgs._Exp(eps), kl)


def test_default_segment_budget_is_20000_segments_then_a_probe_of_300(monkeypatch):
    """An estimate past SEGMENT_BUDGET = 20000 names it; the scan then probes 300 segments: a scan
    that ends within them still answers, the 301st segment is refused with the estimate."""
    k, beta, eps = CASES[0]
    args = (k, beta, eps, "pointwise", sdgs._Exp(eps), sdgs.kl_lower(beta, eps), sdgs.kl_lower_below)
    c = long_range.sdgs_by_segments(*args, est_n_stop=10.0**9)  # over the budget, ends early
    assert c.details["segments"] < 300
    visits = []
    real = long_range._SegmentScan.candidates
    monkeypatch.setattr(long_range._SegmentScan, "stop_note", lambda *a: "")  # never stops
    monkeypatch.setattr(long_range._SegmentScan, "candidates",
                        lambda self, *a: visits.append(a) or real(self, *a))
    with pytest.raises(CertificationError, match=r"SEGMENT_BUDGET = 20000 segments, estimated 9\.\d+e\+08"):
        long_range.sdgs_by_segments(*args, est_n_stop=10.0**9)
    assert len(visits) == 300


def test_exact_tie_check_is_limited_to_k_2000():
    k, beta, eps = 2001, F(1, 2), F(1, 2)
    sc = long_range._SegmentScan(k, beta, eps, "pointwise", sdgs._Exp(eps), True, 96)
    with pytest.raises(CertificationError, match="exact check is limited to k ≤ 2000 "):
        sc.z_exact(k + 1)


def test_run_budget_error_blames_the_edge_within_half_its_distance():
    """ε with |ε − edge| < edge/2 (edge = −ln(1−β)) is named as close to the edge; at exactly
    edge/2 away (ε = edge/2, exact in floats: the message's own arithmetic, not a regime claim)
    and beyond, k is named."""
    from dps_verify.core.params import neg_log1m_float

    beta = F(1, 10)
    edge = neg_log1m_float(beta)
    for eps, blamed in ((F(0.5 * edge), "k = 1000"), (F(1.4 * edge), "close to the edge"),
                        (F(3), "k = 1000")):
        with pytest.raises(CertificationError, match=blamed):
            d_by_runs(1000, beta, eps, sdgs._Exp(eps), sdgs.kl_lower(beta, eps), budget=1)


def _ref_cdf(m: int, n: int, beta: Fraction) -> Fraction:
    """Pr[Bin(n, β) ≤ m] = Σ_{j ≤ m} C(n, j) p^j (q−p)^{n−j} / q^n, exact; the terms by the
    binomial recurrence t_{j+1} = t_j·(n−j)·p / ((j+1)·(q−p)) (exact integer division)."""
    p, q = beta.numerator, beta.denominator
    r = q - p
    term, total = r**n, 0
    for j in range(min(m, n) + 1):
        total += term
        if j < n:
            term = term * (n - j) * p // ((j + 1) * r)
    return F(total, q**n)


def test_suppressed_outcome_for_k_past_the_exact_limit_is_decided_by_balls():
    """k = 2001 (past the exact tie check's limit): z_n on both sides of its switch n = 4461
    (β = 1/2, ε = 1/10) is decided in ball arithmetic, matching the definition
    F(k−1; n−1) > e^ε F(k−1; n) (exact integers, e^ε at 60 digits)."""
    k, beta, eps = 2001, F(1, 2), F(1, 10)
    sc = _scan(k, beta, eps, "hockey-stick")
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        for n in (4460, 4461):
            want = _mp(_ref_cdf(k - 1, n - 1, beta)) > e * _mp(_ref_cdf(k - 1, n, beta))
            assert sc.z(n) == want == (n == 4461)


def test_chernoff_rule_fires_when_n_kappa_equals_the_bound_exactly():
    """Forward rule: it fires when N·κ ≥ the upper end of −ln(best) (at the scan's precision),
    equality included, and not for κ one unit of 2^−200 less."""
    import flint

    k, beta, eps = CASES[5]
    sc = _scan(k, beta, eps, "pointwise")
    best, N = F(1, 10**6), 32  # N·κ exact in balls: κ = need/32 is dyadic
    with flint.ctx.workprec(96):
        need = arb_to_fractions((-long_range.arb_fraction(best).log()).upper())[1]
    assert sc.stop_note(N, best, need / N, sdgs.kl_lower_below)
    assert sc.stop_note(N, best, need / N - F(1, 1 << 200), sdgs.kl_lower_below) == ""


def _keys(sc: _SegmentScan, n: int, beta: Fraction, eps: Fraction) -> tuple:
    k = sc.k
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        gamma = 1 - (1 - _mp(beta)) / e
        T = max(k, int(mpmath.floor(gamma * n)) + 1)
        if not sc.backward:
            return T, k - 1, False
        gamma_b = 1 - (1 - _mp(beta)) * e
        M = int(mpmath.ceil(gamma_b * n)) - 1 if gamma_b > 0 else -1
        z = _mp(_ref_cdf(k - 1, n - 1, beta)) > e * _mp(_ref_cdf(k - 1, n, beta))
        return T, max(M, k - 1), z


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k, beta, eps", CASES)
def test_segments_are_the_maximal_runs_of_a_constant_bad_set(k, beta, eps, measure):
    """The scan visits one segment per maximal run of constant (T_n, m_n, z_n) from n = k up to
    the group size where it stopped (thresholds and z from the definitions)."""
    c = sdgs.scan_segments_for_test(k, beta, eps, measure)
    stop = int(c.how.split("stopped at n = ")[1].split(":")[0])
    sc = _scan(k, beta, eps, measure)
    keys = [_keys(sc, n, beta, eps) for n in range(k, stop)]
    assert c.details["segments"] == 1 + sum(a != b for a, b in zip(keys, keys[1:]))


@pytest.mark.parametrize("k, beta, eps", [(2, F(7, 10), F(1, 20)), (1, F(9, 10), F(1, 10)), (2, F(1, 10), F(1, 100))])
def test_per_group_size_value_where_the_backward_direction_dominates(k, beta, eps):
    """Outside the regime with a small ε the backward hockey-stick sum (the suppressed outcome
    and the low counts, z true) exceeds the forward one at some n: the value with its bad set
    still encloses the brute-force δ there."""
    sc = _scan(k, beta, eps, "hockey-stick")
    dominated = 0
    for n in range(k, k + 20):
        T, m, z = sc.fwd_T(n), sc.bwd_m(n), sc.z(n)
        assert _encloses(sc.value(n, T, m, z), brute_delta(n, k, beta, eps, "hockey-stick")), n
        dominated += z and arb_to_fractions(sc.bm(m, n))[0] > arb_to_fractions(sc.fwd(T, n))[1]
    assert dominated


@pytest.mark.parametrize("k, beta, eps", [c for c in CASES if c[1] != F(1, 2)] + [(3, F(1, 3), F(1, 10)), (2, F(1, 5), F(2))])
def test_tv_rule_alone_fires_at_the_total_variation_of_consecutive_binomials(k, beta, eps):
    """The hockey-stick's TV rule by itself: its note appears for a best value 10^−9 above
    TV(Bin(N, β), Bin(N−1, β)) (from the definition) and not 10^−9 below, N = k + 1 .. k + 40."""
    sc = _scan(k, beta, eps, "hockey-stick")
    kl = sdgs.kl_lower(beta, eps)
    for N in range(k + 1, k + 41):
        tv = _tv(N, beta)
        assert "TV(" in sc.stop_note(N, tv * (1 + F(1, 10**9)), kl, sdgs.kl_lower_below), N
        assert "TV(" not in sc.stop_note(N, tv * (1 - F(1, 10**9)), kl, sdgs.kl_lower_below), N


def test_two_tail_rule_alone_fires_at_its_backward_bound():
    """Outside the regime, where the backward Chernoff term exp(−(N−1)·KL(c_N‖β)) is the larger
    one (c_N = max(k, γ'N)/(N−1) from the exact γ'), the two-tail note appears 10^−9 above
    2·exp(−(N−1)·KL(c_N‖β)) and not 10^−9 below."""
    checked = 0
    for k, beta, eps in [CASES[0], CASES[2], (2, F(1, 3), F(1, 10)), (3, F(1, 10), F(1, 20)), (1, F(1, 2), F(1, 10))]:
        sc = _scan(k, beta, eps, "pointwise")
        kl = sdgs.kl_lower(beta, eps)
        with mpmath.workdps(DPS):
            gp = 1 - (1 - _mp(beta)) * mpmath.exp(_mp(eps))
        for N in range(k + 2, k + 120):
            with mpmath.workdps(DPS):
                c = max(mpmath.mpf(k), gp * N) / (N - 1)
                if c >= _mp(beta):
                    continue
                c_q = F(mpmath.nstr(c, 50))
                kl_c = sdgs.kl_lower_below(c_q, beta)
                back = 2 * mpmath.exp(-(N - 1) * _mp(kl_c))
                if back <= 2 * mpmath.exp(-N * _mp(kl)) * (1 + mpmath.mpf(10) ** -6) or back >= 1:
                    continue
                above = F(mpmath.nstr(back * (1 + mpmath.mpf(10) ** -9), 40))
                below = F(mpmath.nstr(back * (1 - mpmath.mpf(10) ** -9), 40))
            assert "both tails" in sc.stop_note(N, above, kl, sdgs.kl_lower_below), (k, N)
            assert sc.stop_note(N, below, kl, sdgs.kl_lower_below) == "", (k, N)
            checked += 1
    assert checked


def test_tv_rule_compares_the_upper_end_of_its_ball():
    """A best value between the ends of the TV ball does not fire the rule (only a value at or
    above the upper end does: the bound must hold for the true TV)."""
    import flint

    k, beta, eps = 3, F(1, 3), F(1, 10)
    sc = _scan(k, beta, eps, "hockey-stick")
    kl = sdgs.kl_lower(beta, eps)
    for N in (8, 9, 20):
        mode = N * beta.numerator // beta.denominator
        with flint.ctx.workprec(96):
            lo, hi = arb_to_fractions(sc.b * sc.B.pmf(mode, N - 1))
        assert lo < hi
        assert "TV(" in sc.stop_note(N, hi, kl, sdgs.kl_lower_below)
        assert "TV(" not in sc.stop_note(N, (lo + hi) / 2, kl, sdgs.kl_lower_below)


def test_two_tail_rule_asks_for_the_rate_at_a_point_covering_the_backward_bad_set():
    """For n ≥ N the backward bad counts are below γ'n, so the rule's rate point c_N (passed to
    ``kl_below``) must be at least max(k, γ'N)/(N − 1) with the exact γ' = 1 − (1−β)e^ε."""
    k, beta, eps = 1, F(1, 2), F(1, 10)
    sc = _scan(k, beta, eps, "pointwise")
    kl = sdgs.kl_lower(beta, eps)
    asked: list = []

    def spy(c, b):
        asked.append(c)
        return sdgs.kl_lower_below(c, b)

    with mpmath.workdps(DPS):
        gp = 1 - (1 - _mp(beta)) * mpmath.exp(_mp(eps))
        for N in (200, 400, 1000):  # N·κ ≥ −ln(best) + ln 2: the rule gets that far
            asked.clear()
            sc.stop_note(N, F(999, 1000), kl, spy)
            assert asked and gp * N > k
            assert _mp(asked[0]) >= max(mpmath.mpf(k), gp * N) / (N - 1) > _mp(F(k, N - 1))


# --- edges of the segment scan's decisions and reports, against the definitions ------------


def test_suppressed_outcome_with_epsilon_between_2_to_19_and_2_to_20_uses_the_true_e_to_epsilon():
    """β = 1 − 2^−L, L = 800000, puts the regime edge −ln(1−β) = L·ln 2 ≈ 554518 between 2^19
    and 2^20 (the largest ε the exact comparisons accept).  At k = 2 the suppressed outcome is
    bad backward iff F(1; n−1) > e^ε F(1; n), with F(1; n) = (1 + n·(2^L − 1))/2^{Ln} exactly
    (Pr[X_n ≤ 1], 1 − β = 2^−L): at n = 2 false for ε = edge − 1/3, true for ε = edge − 1
    (the switch is near edge − ln 2); logs of the exact integers at 50 digits."""
    L = 800_000
    beta, p = 1 - F(1, 1 << L), (1 << L) - 1
    with mpmath.workdps(50):
        edge = L * mpmath.log(2)
        for off in (F(1, 3), F(1)):
            eps = F(mpmath.nstr(edge - _mp(off), 40))
            assert (1 << 19) < eps < (1 << 20)
            sc = _scan(2, beta, eps, "hockey-stick")
            assert sc.backward  # outside CP Thm 5's regime
            for n in (2, 3):
                log_ratio = mpmath.log(1 + (n - 1) * p) - mpmath.log(1 + n * p) + edge  # ln F(1;n−1)/F(1;n)
                assert sc.z(n) == (log_ratio > _mp(eps)), (off, n)
            assert sc.z(2) == (off == 1)
        # within 10^−3 of the switch at n = 2, a 4-bit scan's first ball cannot decide: the
        # refinement must use the true e^ε as well
        switch = mpmath.log(1 + p) - mpmath.log(1 + 2 * p) + edge
        for off, want in ((F(-1, 10**3), True), (F(1, 10**3), False)):
            eps = F(mpmath.nstr(switch + _mp(off), 40))
            sc = long_range._SegmentScan(2, beta, eps, "hockey-stick", sdgs._Exp(eps), True, 4)
            assert sc.z(2) is want
            first = sc.cache[("z", 2)]
            assert not first > 0 and not first <= 0  # decided by the refinement, not the exact test
            assert ("z exact", 2) not in sc.cache
    # past 2^20 (L = 1600000, edge ≈ 1.1·10^6) scans refuse at their first exact comparison, but
    # z itself still uses the true e^ε: not bad at ε = edge − 1/3
    L2 = 1_600_000
    beta2 = 1 - F(1, 1 << L2)
    with mpmath.workdps(50):
        eps = F(mpmath.nstr(L2 * mpmath.log(2) - mpmath.mpf(1) / 3, 40))
    assert eps > (1 << 20)
    assert long_range._SegmentScan(2, beta2, eps, "hockey-stick", sdgs._Exp(eps), True, 96).z(2) is False


def test_suppressed_outcome_refines_its_ball_before_the_exact_check(monkeypatch):
    """A scan at 1 bit leaves the ball of F(k−1; n−1) − e^ε F(k−1; n) undecided for many n
    (k = 3, β = 1/2, ε = 2/5); with the exact check refused for this k, z must still decide
    every n = 3 .. 24 as the definition does, by refining in ball arithmetic (up to 16 times
    the precision) before it would ask for the exact check."""
    k, beta, eps = CASES[0]
    monkeypatch.setattr(long_range, "EXACT_TIE_MAX_K", k - 1)
    sc = long_range._SegmentScan(k, beta, eps, "hockey-stick", sdgs._Exp(eps), True, 1)
    undecided = 0
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        for n in range(k, k + 22):
            want = _mp(_ref_cdf(k - 1, n - 1, beta)) > e * _mp(_ref_cdf(k - 1, n, beta))
            assert sc.z(n) == want, n
            first = sc.cache[("z", n)]
            undecided += not first > 0 and not first <= 0
    assert undecided >= 5


def test_suppressed_outcome_refines_up_to_sixteen_times_the_precision(monkeypatch):
    """ε = ln(F(k−1; n−1)/F(k−1; n)) ∓ 2^−48 (k = 3, β = 1/2, n = 10; a near tie, exact
    Fractions and mpmath): a 4-bit scan's balls decide it only at the last refinement, 16·4 =
    64 bits; z must get there (with the exact check refused) and answer as the definition."""
    k, beta, n = 3, F(1, 2), 10
    monkeypatch.setattr(long_range, "EXACT_TIE_MAX_K", k - 1)
    ratio = _ref_cdf(k - 1, n - 1, beta) / _ref_cdf(k - 1, n, beta)
    with mpmath.workdps(DPS):
        for sign, want in ((-1, True), (1, False)):
            eps = F(mpmath.nstr(mpmath.log(_mp(ratio)) + sign * mpmath.mpf(2) ** -48, 55))
            sc = long_range._SegmentScan(k, beta, eps, "hockey-stick", sdgs._Exp(eps), True, 4)
            assert sc.z(n) is want


def test_suppressed_outcome_ball_touching_zero_is_not_a_decision():
    """z_n is strict (a tie is not bad): an exactly zero ball decides "not bad", and a ball whose
    lower end is exactly 0 (it may be a tie) is not taken as "bad" — the decision is recomputed
    (here: not bad, as the definition F(k−1; n−1) ≤ e^ε F(k−1; n) says at n = k = 3)."""
    import flint

    k, beta, eps = CASES[0]
    with mpmath.workdps(DPS):
        assert _mp(_ref_cdf(k - 1, k - 1, beta)) <= mpmath.exp(_mp(eps)) * _mp(_ref_cdf(k - 1, k, beta))
    sc = _scan(k, beta, eps, "hockey-stick")
    sc.cache[("z", k)] = flint.arb(0)
    assert sc.z(k) is False
    sc = _scan(k, beta, eps, "hockey-stick")
    sc.cache[("z", k)] = flint.arb(2.0**-10, 2.0**-10)  # the ball [0, 2^−9]
    assert sc.z(k) is False


def test_suppressed_outcome_ball_at_most_zero_is_decided_without_refinement(monkeypatch):
    """A ball of F(k−1; n−1) − e^ε F(k−1; n) whose upper end is at most 0 (the exact zero ball:
    Arb rounds a radius up, so it is the one ball ending exactly at 0) is a decision, "not bad"
    (a tie is not bad): z answers at once, without refining in ball arithmetic, so it answers
    also where the exact check is refused (k past EXACT_TIE_MAX_K).  Refinement is watched by
    replacing the refining ball binomial."""
    import flint

    k, beta, eps = CASES[0]
    with mpmath.workdps(DPS):  # the definition at n = k: not bad
        assert _mp(_ref_cdf(k - 1, k - 1, beta)) <= mpmath.exp(_mp(eps)) * _mp(_ref_cdf(k - 1, k, beta))
    monkeypatch.setattr(long_range, "EXACT_TIE_MAX_K", k - 1)

    def refined(*args, **kwargs):
        raise AssertionError("z refined a ball that already decides")

    for ball in (flint.arb(0), flint.arb(-(2.0**-9), 2.0**-10)):
        sc = _scan(k, beta, eps, "hockey-stick")
        sc.cache[("z", k)] = ball
        with monkeypatch.context() as m:
            m.setattr(long_range, "BallBinomial", refined)
            assert sc.z(k) is False
    # negative control: a ball straddling 0 is refined (the watch can fail)
    sc = _scan(k, beta, eps, "hockey-stick")
    sc.cache[("z", k)] = flint.arb(0, 2.0**-10)
    with monkeypatch.context() as m:
        m.setattr(long_range, "BallBinomial", refined)
        with pytest.raises(AssertionError, match="refined"):
            sc.z(k)


def test_backward_value_at_a_billion_records_is_rounded_at_that_group_size_precision():
    """k = 1: b_0(n) = F(0; n−1) − e^ε F(0; n) = (1−β)^{n−1}(1 − e^ε(1−β)) in closed form.  At
    n = 10^9 the segment scan's ball contains it and is tight to 2^−110 relative: its
    combination is rounded at n's working precision (96 + 60 bits), not at a small one."""
    k, beta, eps = 1, F(1, 3), F(1, 100)
    sc = _scan(k, beta, eps, "hockey-stick")
    n = 10**9
    v = sc.bm(0, n)
    (mm, me), (rm, re) = v.mid().man_exp(), v.rad().man_exp()  # dyadic ends, read without rounding
    with mpmath.workdps(80):
        mid, rad = mpmath.mpf((int(mm), int(me))), mpmath.mpf((int(rm), int(re)))
        exact = mpmath.power(_mp(1 - beta), n - 1) * (1 - mpmath.exp(_mp(eps)) * _mp(1 - beta))
        assert mid - rad <= exact <= mid + rad
        assert 2 * rad <= abs(exact) * mpmath.mpf(2) ** -110


def test_segment_scan_reports_an_upper_end_of_at_most_one():
    """β = 1 − 2^−100, ε = 100 (inside the regime), k = 1, pointwise: δ(n) = β^n from the
    definitions, so sup_n δ = β = 1 − 2^−100, closer to 1 than the balls' width; the ball of
    the first value reaches above 1, and the reported upper end is still at most 1 (a
    divergence of probability laws) and encloses the brute maximum."""
    k, beta, eps = 1, 1 - F(1, 1 << 100), F(100)
    c = sdgs.scan_segments_for_test(k, beta, eps, "pointwise")
    top = max(brute_delta(n, k, beta, eps, "pointwise") for n in range(1, 41))
    with mpmath.workdps(DPS):
        assert abs(top - _mp(beta)) < mpmath.mpf(10) ** -50
        assert _mp(c.lower) - mpmath.mpf(10) ** -45 <= top <= _mp(c.upper)
    sc = _scan(k, beta, eps, "pointwise")
    assert arb_to_fractions(sc.value(1, sc.fwd_T(1), 0, False))[1] > 1  # the cap is reached
    assert c.upper <= 1


def _gammas(beta: Fraction, eps: Fraction) -> tuple[float, float]:
    with mpmath.workdps(DPS):
        e = mpmath.exp(_mp(eps))
        return float(1 - (1 - _mp(beta)) / e), float(max(1 - (1 - _mp(beta)) * e, 0))


def test_segment_estimate_counts_the_first_segment():
    """The work estimate is (γ + γ')·(n_stop − k) + 1 segments (γ' = 1 − (1−β)e^ε outside the
    regime): with the budget one short of what the scan needs, an n_stop whose estimate is
    budget + 1/2 is refused by the estimate, one whose estimate is budget − 1/2 by the count."""
    k, beta, eps = CASES[0]
    args = (k, beta, eps, "pointwise", sdgs._Exp(eps), sdgs.kl_lower(beta, eps), sdgs.kl_lower_below)
    budget = long_range.sdgs_by_segments(*args).details["segments"] - 1
    assert 1 < budget < long_range.PROBE
    g, gp = _gammas(beta, eps)
    over = k + (budget - F(1, 2)) / F(g + gp)
    under = k + (budget - F(3, 2)) / F(g + gp)
    with pytest.raises(CertificationError, match=r"segments, estimated \d"):
        long_range.sdgs_by_segments(*args, budget=budget, est_n_stop=float(over))
    with pytest.raises(CertificationError, match=r"segments\) near group size"):
        long_range.sdgs_by_segments(*args, budget=budget, est_n_stop=float(under))
    # an estimate exactly equal to the budget is not over it: at est_n_stop = k the estimate is
    # the first segment alone, exactly 1.0, so with a budget of 1 the count refuses, not the estimate
    with pytest.raises(CertificationError, match=r"segments\) near group size"):
        long_range.sdgs_by_segments(*args, budget=1, est_n_stop=float(k))
    with pytest.raises(CertificationError, match=r"segments, estimated \d"):  # the control: just over
        long_range.sdgs_by_segments(*args, budget=1, est_n_stop=float(k) + 1e-6)


BACKWARD_DOMINATED = [(2, F(7, 10), F(1, 20)), (1, F(9, 10), F(1, 10)), (2, F(1, 10), F(1, 100))]


@pytest.mark.parametrize("k, beta, eps", BACKWARD_DOMINATED)
def test_segment_candidates_attain_the_maximum_where_the_backward_sum_dominates(k, beta, eps):
    """Hockey-stick, outside the regime with a small ε (the backward sum exceeds the forward one
    at some n): the candidates attain every sub-segment's brute-force maximum (constant T, m,
    z) over n = k .. k + 30."""
    sc = _scan(k, beta, eps, "hockey-stick")
    n_hi = k + 30
    key = {n: (sc.fwd_T(n), sc.bwd_m(n), sc.z(n)) for n in range(k, n_hi + 1)}
    brute = {n: brute_delta(n, k, beta, eps, "hockey-stick") for n in key}
    for a in range(k, n_hi):
        for b in range(a, n_hi + 1):
            if key[b] != key[a]:
                break
            cands = sc.candidates(a, b, *key[a])
            top = max(brute[n] for n in range(a, b + 1))
            assert abs(max(brute[c] for c in cands) - top) <= mpmath.mpf(10) ** -40, (a, b)


def test_backward_candidate_is_the_segment_maximiser_at_k_60():
    """k = 60, β = 19/20, ε = 1/30 (outside the regime), hockey-stick: on the segment
    n = 60 .. 63 (constant T, m = k − 1 and z, from the definitions) the brute-force δ is largest
    at n = 63, the backward maximiser (the least n with γ'n > k − 1), above the forward one
    (n = 62): the candidates must include it."""
    k, beta, eps = 60, F(19, 20), F(1, 30)
    sc = _scan(k, beta, eps, "hockey-stick")
    keys = {n: _keys(sc, n, beta, eps) for n in range(k, 65)}
    assert keys[60] == keys[63] != keys[64] and keys[60][1] == k - 1 and keys[60][2]
    brute = {n: brute_delta(n, k, beta, eps, "hockey-stick") for n in range(k, 64)}
    top = max(brute.values())
    assert brute[63] == top > brute[62] + mpmath.mpf(10) ** -5
    cands = sc.candidates(60, 63, *keys[60])
    assert 63 in cands
    assert abs(max(brute[c] for c in cands) - top) <= mpmath.mpf(10) ** -40


def test_segment_scan_holds_beta_and_e_to_epsilon_with_64_guard_bits():
    """β and e^ε − 1 are enclosed once at prec + 64 bits (96 + 64): their balls' relative
    half-widths are within a bit or so of 2^−160 (β = 1/3 rounded once; expm1 of the ball of
    2/5), so every per-n combination (rounded at 96 + 2·log2 n bits) is dominated by its own
    rounding, not by these inputs."""
    sc = _scan(3, F(1, 3), F(2, 5), "hockey-stick")
    for v, bits in ((sc.b, 159), (sc.em1, 158)):
        lo, hi = arb_to_fractions(v)
        assert 0 < (hi - lo) / (hi + lo) <= F(1, 1 << bits)


# --- the backward bad set is the scan's own decision --------------------------------------
# (k, β, ε, measure): the exact regime edge ε = −ln(1−β) = ln(4/3) for β = 1/4 (inside: the
# backward set is empty there), e^ε 1/1000 below and above it, and three inputs outside the
# regime where a forward-only scan misses the maximum (pointwise k = 4, β = 3/4, ε = 1/2: the
# definitions give 0.68853759765625, a forward-only scan 0.44494...).
_EDGE = [
    (3, F(1, 4), "ln(4/3)", "hockey-stick"),
    (3, F(1, 4), "ln(4/3)", "pointwise"),
    (3, F(1, 4), "ln(1333/1000)", "hockey-stick"),
    (3, F(1, 4), "ln(1333/1000)", "pointwise"),
    (3, F(1, 4), "ln(1334/1000)", "hockey-stick"),
    (3, F(1, 4), "ln(1334/1000)", "pointwise"),
    (4, F(3, 4), F(1, 2), "pointwise"),
    (5, F(4, 5), F(1, 2), "hockey-stick"),
    (2, F(1, 2), F(1, 4), "pointwise"),
]


@pytest.mark.parametrize("k,beta,eps,measure", _EDGE)
def test_segment_scan_chooses_the_backward_bad_set_on_either_side_of_the_regime_edge(k, beta, eps, measure):
    """sdgs_by_segments decides by itself whether the backward bad set is added (exactly when
    ε < −ln(1−β)); its enclosure holds the exact walk's value over n on both sides of the edge
    and at the edge itself (ε = ln x: rational e^ε), and, for rational ε, the brute-force value
    at the exact walk's maximiser."""
    from dps_verify.core.params import epsilon_param

    e = epsilon_param(eps) if isinstance(eps, str) else eps
    c = long_range.sdgs_by_segments(k, beta, e, measure, sdgs._Exp(e), sdgs.kl_lower(beta, e), sdgs.kl_lower_below)
    ref = sdgs.scan(k, beta, e, measure=measure, long_range=False)
    assert c.lower <= ref.upper and ref.lower <= c.upper, (c, ref)
    assert c.upper - c.lower <= F(1, 10**20)
    if not isinstance(eps, str):
        x = brute_delta(ref.details["argmax_n"], k, beta, e, measure)
        with mpmath.workdps(DPS):
            assert _mp(c.lower) - mpmath.mpf(10) ** -40 <= x <= _mp(c.upper) + mpmath.mpf(10) ** -40
    if (k, beta, eps) == (4, F(3, 4), F(1, 2)):
        assert c.lower <= F(68853759765625, 10**14) <= c.upper


def test_segment_scan_refuses_a_measure_it_does_not_compute():
    """CP Thm 5's d has its own route (d_by_runs); the segment scan computes the hockey-stick
    and pointwise values only and says so in one line for anything else."""
    k, beta, eps = CASES[0]
    with pytest.raises(ParameterError, match="segment scan: measure must be hockey-stick or pointwise, got 'paper-d'"):
        long_range.sdgs_by_segments(k, beta, eps, "paper-d", sdgs._Exp(eps), sdgs.kl_lower(beta, eps),
                                    sdgs.kl_lower_below)


def test_one_record_is_the_worst_case_for_k_1_and_the_scan_visits_no_other_size():
    """k = 1, β = 2^−100, ε = 2^−101 (outside the regime), hockey-stick: from the definitions
    δ = β exactly.  At n = 1 (one record against none) the published count 1 has mass β against
    0, and the suppressed output loses mass, so δ(1) = β; for every n, δ(n) ≤ TV ≤ β (couple
    n − 1 records with n: the outputs differ only when the extra record is sampled).  On the
    first segment (threshold 1, backward threshold m = 0, suppressed outcome bad) the backward
    maximiser is n = 1 itself, so the scan evaluates only n = 1 there and returns the exact point
    [β, β]; evaluating n = 2 as well would widen the upper end (its ball lies within 2^−96 of β)."""
    beta = F(1, 1 << 100)
    eps = beta / 2
    c = sdgs.scan_segments_for_test(1, beta, eps, "hockey-stick")
    assert brute_delta(1, 1, beta, eps, "hockey-stick") == _mp(beta)
    assert c.lower == c.upper == beta
    assert c.details["argmax_n"] == 1
