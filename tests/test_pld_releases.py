"""``dps-verify delta --releases T`` and measures.releases."""

import json
from fractions import Fraction

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.inverse.releases import group_pair, releases_delta
from dps_verify.measures.pld import pair_delta


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``dps-verify ARGV`` in this process (``dps_verify.cli.main``): exit code, stdout, stderr."""
    from dps_verify.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage error: the process would exit with this code
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def test_group_pair_is_the_full_neighbour_pair():
    A = M.StronglySafeKAnonymizer(lambda r: 0, 3)
    p, q = group_pair(6, 3, Fraction(1, 3))
    P = exact.distribution(A, range(6), Fraction(1, 3)).exact
    Q = exact.distribution(A, range(5), Fraction(1, 3)).exact
    assert exact.delta_certified(p, q, 1) == exact.delta_certified(P, Q, 1)


def test_one_release_equals_scan_of_exact_pairs():
    r = releases_delta(3, Fraction(1, 4), 1, 1, n_max=8)
    worst = max(exact.delta_certified(*group_pair(n, 3, Fraction(1, 4)), 1).upper for n in range(3, 9))
    assert r.mode == "exact" and r.delta.upper == worst


def test_two_releases_match_pair_delta():
    r = releases_delta(3, Fraction(1, 4), 1, 2, n_max=6)
    worst = max(pair_delta(*group_pair(n, 3, Fraction(1, 4)), 1, times=2) for n in range(3, 7))
    assert abs(float(r.delta.upper) - float(worst)) < 1e-15


def test_cli_releases_json(capsys):
    """In this process (the ``python -m dps_verify.cli`` entry point has its own tests): the
    whole of stdout is one JSON document."""
    code, stdout, err = run_cli(capsys, "delta", "--k", "5", "--beta", "1/10", "--epsilon", "2",
                                "--releases", "2", "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert data["releases"] == 2 and data["mode"] == "exact"
    assert float(data["value"]) > 0


def test_cli_releases_bad_value_is_usage_error(capsys):
    code, _, err = run_cli(capsys, "delta", "--k", "5", "--beta", "1/10", "--epsilon", "2",
                           "--releases", "0")
    assert code == 2 and "--releases" in err and "times" not in err


def test_cli_releases_past_the_work_budget_is_refused_in_one_line(capsys):
    code, stdout, err = run_cli(capsys, "delta", "--k", "3", "--beta", "1/4", "--epsilon", "1",
                                "--releases", str(10**30))
    assert code != 0 and stdout == ""
    assert "times = about 10^30 releases" in err and "MAX_RELEASES" in err
    assert len(err.strip().splitlines()) == 1


# ---- worst case over all n ---------------------------------------------------------------------

import pytest  # noqa: E402

from dps_verify.engine.protocol import sampled_count_law  # noqa: E402
from dps_verify.inverse import releases as R  # noqa: E402
from dps_verify.measures.pld import pair_delta_enclosure  # noqa: E402


def _untr(n, beta):
    return dict(enumerate(sampled_count_law(n, beta))), dict(enumerate(sampled_count_law(n - 1, beta)))


def _exact_thr(n, k, beta, eps, times):
    return pair_delta_enclosure(*group_pair(n, k, beta), eps, times, exact_budget=10**9)


@pytest.mark.parametrize("k,beta,eps", [(5, Fraction(1, 10), Fraction(1, 2)), (10, Fraction(1, 2), Fraction(4, 5)),
                                        (3, Fraction(1, 4), 1), (2, Fraction(1, 2), 1), (1, Fraction(1, 3), 1)])
def test_one_release_sup_over_all_n_matches_exact_sdgs(k, beta, eps):
    """T = 1: the sup over all n is CP Thm 5's exact δ (computed independently by sdgs)."""
    r = releases_delta(k, beta, eps, 1)
    s = exact.sdgs_delta_certified(k, beta, eps, "hockey-stick")
    assert r.covers_all_n and "ALL group sizes" in r.delta.how
    assert r.delta.lower <= s.upper and s.lower <= r.delta.upper
    assert r.delta.upper <= r.delta.lower * Fraction(101, 100)


def test_untruncated_delta_is_non_increasing_and_dominates_thresholded():
    """Steps 2-3 of the proof, checked exactly for T = 1, 2 on both sides of each n."""
    beta, k = Fraction(1, 4), 3
    for times in (1, 2):
        for eps in (Fraction(1, 2), 1):
            prev = None
            for n in range(2, 11):
                u = pair_delta_enclosure(*_untr(n, beta), eps, times, exact_budget=10**9)
                assert u.details["mode"] == "exact"
                if prev is not None:
                    assert u.lower <= prev.upper  # enclosures: equality is allowed
                prev = u
                if n >= k:
                    assert _exact_thr(n, k, beta, eps, times).lower <= u.upper


def test_cheap_bounds_are_upper_bounds():
    beta = Fraction(1, 5)
    for times in (1, 3):
        for n in range(2, 9):
            eps = Fraction(1, 2)
            u = pair_delta_enclosure(*_untr(n, beta), eps, times, exact_budget=10**9)
            assert u.upper <= R.untruncated_bound(n, beta, eps, times)
            if n >= 3:
                t = _exact_thr(n, 3, beta, eps, times)
                assert t.upper <= R.thresholded_bound(n, 3, beta, eps, times)
                # the closed-form bound agrees with the bound from the exact laws (up to ball radii)
                a = R.thresholded_bound(n, 3, beta, eps, times)
                b = min(R.tv_bound(n, beta, times, 3), R.chernoff_bound(*group_pair(n, 3, beta), eps, times))
                assert abs(a - b) <= Fraction(1, 10**20) * b


def test_sup_encloses_brute_force_scan_for_several_releases(deep_profile):
    """T = 2, 3: every n up to well past the tail start (8 sizes past it, 15 under the deep
    profile) is below the upper end, and the lower end is attained."""
    k, beta, eps = 3, Fraction(1, 4), Fraction(1, 2)
    for times in (2, 3):
        r = releases_delta(k, beta, eps, times)
        assert r.tail_from is not None
        past = 15 if deep_profile else 8
        vals = [_exact_thr(n, k, beta, eps, times) for n in range(k, r.tail_from + past)]
        assert max(v.upper for v in vals) <= r.delta.upper
        assert any(v.upper >= r.delta.lower for v in vals)


def test_negative_control_thresholded_tail_is_not_monotone():
    """The tail argument needs the untruncated pair: using the thresholded δ at a as a bound for
    all n >= a is wrong (δ(k) = 1 - (1 - β^k)^T is below later sizes), and the same brute-force
    check that accepts the untruncated bound rejects it."""
    k, beta, eps = 5, Fraction(1, 10), Fraction(1, 2)
    thr = {n: _exact_thr(n, k, beta, eps, 1) for n in range(k, 16)}
    wrong = thr[k].upper
    assert any(thr[n].lower > wrong for n in thr)
    right = R.untruncated_bound(k, beta, eps, 1)
    assert all(thr[n].upper <= right for n in thr)


def test_negative_control_dropping_infinite_mass_is_caught(monkeypatch):
    """A cheap bound that forgets the infinite-loss mass is below the exact δ at n = k."""
    real = R._direction_bound

    def no_inf(logp, ell, atoms, p_inf, eps, times):
        return real(logp, ell, atoms, Fraction(0), eps, times)

    monkeypatch.setattr(R, "_direction_bound", no_inf)
    k, beta = 3, Fraction(1, 4)
    exact_k = _exact_thr(k, k, beta, 1, 2)
    assert R.thresholded_bound(k, k, beta, 1, 2) < exact_k.lower


def test_finite_scan_says_so():
    r = releases_delta(3, Fraction(1, 4), 1, 2, n_max=5)
    assert not r.covers_all_n and "only" in r.delta.how and r.scanned == (3, 5)


def test_cli_releases_json_says_worst_case_over_all_n(capsys):
    code, stdout, err = run_cli(capsys, "delta", "--k", "3", "--beta", "1/4", "--epsilon", "1",
                                "--releases", "3", "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert data["covers_all_n"] is True and data["worst_case_over"] == "all group sizes n >= 1"
    assert data["tail_from"] > data["scanned_group_sizes"][0]


def test_cli_releases_text_names_the_range_covered(capsys):
    code, stdout, err = run_cli(capsys, "delta", "--k", "3", "--beta", "1/4", "--epsilon", "ln(3)",
                                "--releases", "2")
    assert code == 0, err
    assert "worst case over ALL group sizes n" in stdout and "tail bound" in stdout


from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=12)
@given(st.integers(1, 6), st.sampled_from([Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]),
       st.sampled_from([Fraction(1, 2), 1, 2]), st.integers(1, 3))
@example(1, Fraction(3, 4), 2, 3)
@example(6, Fraction(1, 10), Fraction(1, 2), 2)
def test_sup_over_all_n_property(k, beta, eps, times):
    """The enclosure of sup_n δ_T(n) holds every exactly computed size up to well past the tail
    start, and its lower end is attained by one of them (within the enclosures' width)."""
    r = releases_delta(k, beta, eps, times)
    assert r.covers_all_n and r.tail_from is not None
    vals = [_exact_thr(n, k, beta, eps, times) for n in range(max(k, 1), min(r.tail_from + 8, 45))]
    assert all(v.details["mode"] == "exact" for v in vals)
    assert max(v.lower for v in vals) <= r.delta.upper
    assert any(v.upper >= r.delta.lower for v in vals)


# ---- the screened algorithm on interior worst sizes -----------------------------------------

import functools  # noqa: E402

from dps_verify.inverse import pld_discrete as D  # noqa: E402
from dps_verify.measures.pld import PrivacyLossDistribution  # noqa: E402
from tests.test_pld_discrete_properties import multinomial_delta  # noqa: E402

INTERIOR = [(3, Fraction(1, 4), Fraction(1, 2), 3), (5, Fraction(1, 10), Fraction(1, 2), 4),
            (4, Fraction(1, 5), Fraction(1, 4), 4)]


@functools.cache
def _reference(n, k, beta, eps, times):
    """Exact δ_T(n) (both directions) by the multinomial sum, independent of the PLD code."""
    p, q = group_pair(n, k, beta)
    ends = [multinomial_delta(PrivacyLossDistribution.from_pair(a, b), Fraction(eps), times)
            for a, b in ((p, q), (q, p))]
    return max(e[0] for e in ends), max(e[1] for e in ends)


def _check_sup(r, k, beta, eps, times, span=16):
    """Every exact δ_T(n) for n in [k, min(tail_from + 3, k + span)) is at most the upper end and
    one reaches the lower end (the reference costs grow steeply with n)."""
    sizes = set(range(k, min(r.tail_from + 3, k + span))) | {r.details.get("best_lower_at", k)}
    refs = {n: _reference(n, k, beta, eps, times) for n in sizes}
    worst = max(refs, key=lambda n: refs[n][0])
    return worst, (max(v[0] for v in refs.values()) <= r.delta.upper
                   and any(v[1] >= r.delta.lower for v in refs.values()))


@pytest.mark.parametrize("forced", [False, True])
@pytest.mark.parametrize("k,beta,eps,times", INTERIOR)
def test_screened_sup_contains_exact_interior_worst(k, beta, eps, times, forced, monkeypatch,
                                                    deep_profile):
    """The worst size is strictly inside (k, ∞); ``forced`` makes every enclosure and per-size
    bound non-exact (sparse or discretised, upper-only chains included). By default the sizes
    checked end at k + 9 (past each case's worst size, at most k + 4); the deep profile checks up
    to k + 16."""
    if forced:
        monkeypatch.setattr(D, "exact_compose_cost", lambda pld, t: 10**30)
    r = releases_delta(k, beta, eps, times)
    worst, ok = _check_sup(r, k, beta, eps, times, span=16 if deep_profile else 9)
    assert worst > k and ok and r.covers_all_n
    assert r.delta.upper <= r.delta.lower * Fraction(102, 100)
    if forced:
        assert r.mode != "exact"


def test_scan_method_still_available_and_agrees():
    k, beta, eps, times = INTERIOR[0]
    a = releases_delta(k, beta, eps, times, method="scan")
    b = releases_delta(k, beta, eps, times)
    assert a.delta.lower <= b.delta.upper and b.delta.lower <= a.delta.upper


def test_negative_control_dropped_tail_is_rejected(monkeypatch):
    """A tail bound of 0 (every n > k dropped) leaves the upper end at δ_T(k), below the interior
    worst size, and the same brute-force check rejects it."""
    k, beta, eps, times = INTERIOR[1]
    monkeypatch.setattr(R, "_untruncated_bound", lambda n, b, e, t: Fraction(0))
    r = releases_delta(k, beta, eps, times)
    assert r.tail_from == k + 1
    assert not _check_sup(r, k, beta, eps, times)[1]


def test_tiny_delta_upper_end_comes_from_enclosed_sizes():
    """k = 20, β = 1/10, ε = 2, T = 10: the upper end is the enclosure at n = 22, not the tail
    bound (was [4.9e-18, 1.7e-11])."""
    r = releases_delta(20, Fraction(1, 10), 2, 10)
    assert r.bound_source == "enclosure" and r.argmax_n == 22
    assert r.delta.upper <= r.delta.lower * Fraction(101, 100)
    assert r.tail_bound is not None and r.tail_bound <= r.delta.upper


def test_cli_releases_json_interior_worst_size(capsys):
    """k = 20, β = 1/10, ε = 2, T = 10: the JSON reports the enclosure at the worst size, tight."""
    code, stdout, err = run_cli(capsys, "delta", "--k", "20", "--beta", "1/10", "--epsilon", "2",
                                "--releases", "10", "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert data["covers_all_n"] and data["upper_end_from"] == "enclosure"
    assert data["lower_end_at_n"] == 22 and float(data["upper"]) <= 1.01 * float(data["lower"])


def test_float_screen_tracks_the_exact_delta_and_is_folded_at_large_times():
    """The screen (an estimate, never a bound) is within 1 % of the exact T-fold δ of the
    thresholded pair, both when the T-fold range fits the FFT and when it is folded onto the
    Chernoff window (T = 300: range 300·(m − 1) bins > the coarse length); a screen that
    reads the folded window at the wrong place is off by far more."""
    from dps_verify.inverse import releases as R
    from dps_verify.measures.pld import pair_delta_enclosure

    for n, k, times, eps in ((8, 3, 4, 1), (12, 3, 300, 3)):
        c = pair_delta_enclosure(*group_pair(n, k, Fraction(1, 4)), eps, times, rtol=0.001)
        for bins in R.SCREEN_BINS:
            s = R.screen_delta(n, k, 0.25, float(eps), times, bins)
            assert float(c.lower) * 0.99 <= s <= float(c.upper) * 1.01, (n, times, bins, s)


EDGES = [
    (1, Fraction(1, 1000), 0, 1),  # k = 1, T = 1, ε = 0 (δ = total variation), β → 0
    (2, Fraction(1, 2), 0, 1),
    (3, Fraction(1, 4), 0, 2),  # ε = 0, several releases
    (3, Fraction(1, 4), "ln(4/3)", 2),  # ε exactly at the regime edge −ln(1 − β)
    (3, Fraction(1, 4), Fraction(2876, 10000), 2),  # just below the edge (ln 4/3 = 0.28768…)
    (3, Fraction(1, 4), Fraction(2877, 10000), 2),  # just above it
    (1, Fraction(1, 2), "ln(2)", 3),  # k = 1 at the edge
    (3, Fraction(99, 100), 1, 2),  # β → 1
]


@pytest.mark.parametrize("k,beta,eps,times", EDGES)
def test_sup_over_all_n_at_the_edges_against_brute_force(k, beta, eps, times):
    """Edges (T = 1, k = 1, ε = 0, ε on both sides of and at −ln(1 − β), β near 0 and 1): the
    all-sizes enclosure holds every exactly composed size up to past the tail start, one of them
    reaches its lower end, and it meets its width."""
    r = releases_delta(k, beta, eps, times)
    assert r.covers_all_n and r.tail_from is not None
    vals = [_exact_thr(n, k, beta, eps, times) for n in range(k, r.tail_from + 8)]
    assert max(v.lower for v in vals) <= r.delta.upper
    assert any(v.upper >= r.delta.lower for v in vals)
    assert r.delta.upper <= r.delta.lower * Fraction(101, 100)


def test_k_one_at_the_edge_is_the_closed_form():
    """k = 1, β = 1/2, one record against none: the size-1 group is published with probability
    1/2 and never under the neighbour, so δ_T = 1 − (1/2)^T at every ε, the worst size."""
    r = releases_delta(1, Fraction(1, 2), "ln(2)", 3)
    assert r.delta.lower == r.delta.upper == Fraction(7, 8) and r.argmax_n == 1


def test_beta_one_is_refused_with_the_condition():
    from dps_verify.core.errors import ParameterError

    with pytest.raises(ParameterError, match="0 < beta < 1"):
        releases_delta(3, 1, 1, 2)
