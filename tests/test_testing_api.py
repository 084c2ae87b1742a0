"""dps_verify.testing: assert_dp, the strategies' contracts, and the black-box mode."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given

from dps_verify import bounds, exact
from dps_verify import mechanisms as M
from dps_verify.testing import (
    assert_dp,
    assert_dp_blackbox,
    clopper_pearson,
    estimate_delta_lower,
)
from dps_verify.testing import strategies as S

DOMAIN = [(0,), (1,), (5,)]


# --------------------------------------------------------------------------- assert_dp


def test_assert_dp_passes_for_strongly_safe_at_papers_delta():
    k, beta, eps = 3, Fraction(1, 4), 1
    anon = M.StronglySafeKAnonymizer(lambda r: r[0] // 2, k)
    for definition in ("hockey-stick", "pointwise"):
        assert_dp(anon, beta=beta, epsilon=eps, delta=bounds.d(k, beta, eps), domain=DOMAIN,
                  definition=definition, max_size=4, max_examples=30)


def test_assert_dp_reports_smallest_witness_for_threshold_k_minus_1():
    anon = M.StronglySafeKAnonymizer(lambda r: "all", 3, threshold=2)
    with pytest.raises(AssertionError) as info:
        assert_dp(anon, beta=Fraction(1, 4), epsilon=1, delta=Fraction(1, 20), domain=DOMAIN,
                  max_size=3, max_examples=0, exact_fractions=True)
    msg = str(info.value)
    for part in ("dataset   D  = [(0,), (0,)]", "neighbour D' = [(0,)]", "event     O",
                 "Pr[A(D) in O]  = 0.0625  (= 1/16)", "Pr[A(D') in O] = 0", "implied delta",
                 "exhaustive", "minimal"):
        assert part in msg, msg


def test_assert_dp_search_phase_finds_large_groups():
    """Groups beyond the exhaustive size are found by the shaped Hypothesis search (and, first,
    by the leak-shape search)."""
    anon = M.StronglySafeKAnonymizer(lambda r: "all", 5, threshold=4)
    with pytest.raises(AssertionError, match="Hypothesis search, shrunk"):
        assert_dp(anon, beta=Fraction(1, 10), epsilon=1, delta=Fraction(1, 10**4),
                  domain=DOMAIN, max_size=2, max_examples=50, shapes=False)
    with pytest.raises(AssertionError, match="leak shape"):
        assert_dp(anon, beta=Fraction(1, 10), epsilon=1, delta=Fraction(1, 10**4),
                  domain=DOMAIN, max_size=2, max_examples=0)


def test_assert_dp_catches_mondrian_outlier():
    """At the δ every strongly-safe 2-anonymization meets, Mondrian fails on the outlier."""
    beta, eps = Fraction(1, 2), 2
    claim = exact.sdgs_delta_certified(2, beta, eps).upper
    # Smallest witness: the extreme record (1,) stretches the published range to (0, 1).
    with pytest.raises(AssertionError, match=r"D  = \[\(0,\), \(0,\), \(1,\)\]"):
        assert_dp(M.Mondrian(2), beta=beta, epsilon=eps, delta=claim, domain=DOMAIN,
                  max_size=4, max_examples=0)


def test_assert_dp_replace_one_relation():
    # The sample size has the same law under replace-one neighbours (δ = 0), but not under
    # add/remove ones.
    assert_dp(len, beta=Fraction(1, 2), epsilon=0, delta=0, domain=DOMAIN, max_size=3,
              max_examples=10, relation="replace-one")
    with pytest.raises(AssertionError):
        assert_dp(len, beta=Fraction(1, 2), epsilon=0, delta=Fraction(1, 4), domain=DOMAIN,
                  max_size=3, max_examples=0)


def test_assert_dp_rejects_bad_input():
    with pytest.raises(ValueError):
        assert_dp(len, beta=0, epsilon=1, delta=0, domain=DOMAIN)
    with pytest.raises(ValueError):
        assert_dp(len, beta=0.5, epsilon=1, delta=0, domain=DOMAIN, definition="renyi")


# --------------------------------------------------------------------------- strategies


@given(S.domains())
def test_domains_are_small_and_distinct(dom):
    assert 1 <= len(dom) <= 4 and len(set(dom)) == len(dom)


@given(S.neighbours(DOMAIN))
def test_neighbours_differ_by_one_record(pair):
    D, D2 = pair
    assert abs(len(D) - len(D2)) == 1
    big, small = (D, D2) if len(D) > len(D2) else (D2, D)
    rest = list(big)
    for r in small:
        rest.remove(r)
    assert len(rest) == 1


@given(S.neighbours(DOMAIN, relation="replace-one"))
def test_replace_one_neighbours(pair):
    D, D2 = pair
    assert len(D) == len(D2) >= 1


@given(S.sdgs_params())
def test_sdgs_params_are_in_theorem_5_regime(params):
    k, beta, eps = params
    bounds.d(k, beta, eps)  # raises ValueError outside CP Thm 5's regime


@given(S.sdgs_params(), S.datasets(DOMAIN, shape="empty"))
def test_near_threshold_shape(params, empty):
    assert empty == ()
    n = S.n_near_threshold(*params)
    k, beta, eps = params
    assert n >= k - 1


@given(S.stochastic_matrices(3, 4))
def test_stochastic_matrices_are_stochastic(m):
    assert all(sum(row) == 1 and min(row) >= 0 for row in m)


@given(S.epsilon_safe_anonymizers(DOMAIN, 2))
def test_epsilon_safe_law_is_a_distribution(anon):
    law = exact.distribution(anon, [(0,), (0,), (1,)], Fraction(1, 2)).exact
    assert sum(law.values()) == 1
    # epsilon1 is a float (rounded to nearest); the certified bound is within 2^-64 above.
    assert S.epsilon1_upper(anon.w) >= Fraction(anon.epsilon1) - Fraction(1, 10**12)


def test_recoding_repr_is_readable():
    g = S.Recoding((((0,), "g0"), ((1,), "g0"), ((5,), "g1")))
    assert repr(g) == "Recoding({'g0': [(0,), (1,)], 'g1': [(5,)]})"
    assert g((1,)) == "g0" and g((7,)) == "*"


def test_all_datasets_counts_multisets():
    assert len(S.all_datasets(DOMAIN, 3)) == 20  # C(3+3, 3)


# --------------------------------------------------------------------------- black box


def test_clopper_pearson_edges():
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0
    assert clopper_pearson(10, 10, 0.05)[1] == 1.0
    lo, hi = clopper_pearson(50, 100, 0.025)
    assert 0.39 < lo < 0.5 < hi < 0.61


def size_publisher(sample, rng):
    return len(sample)


def safe_k_anon(k, threshold=None):
    """The strongly-safe k-anonymizer as a black box.  It is a function of its sample (it draws
    nothing from ``rng``), so its output is kept per distinct sample: the estimator receives the
    same output for every run, in the same order, as when the mechanism runs each time (the
    tests below make ~190,000 runs over fewer than ten distinct samples)."""
    anon = M.StronglySafeKAnonymizer(lambda r: "all", k, threshold)
    outputs: dict = {}

    def run(sample, rng):
        if sample not in outputs:
            outputs[sample] = anon(sample)
        return outputs[sample]

    return run


PAIRS = [((0,) * n, (0,) * (n - 1)) for n in (2, 3, 4)]


def test_blackbox_detects_size_publisher():
    # Publishing the sample size: δ at ε = 0.5 is large for these pairs.
    with pytest.raises(AssertionError, match="false-alarm probability"):
        assert_dp_blackbox(size_publisher, beta=0.5, epsilon=0.5, delta=0.05, pairs=PAIRS,
                           n_select=1500, n_confirm=3000, seed=1)


def test_blackbox_detects_threshold_k_minus_1():
    k, beta, eps = 3, Fraction(1, 3), 1
    claim = exact.sdgs_delta(k, beta, eps)  # the exact worst case of the correct mechanism
    truth = exact.sdgs_delta(k - 1, beta, eps)
    assert truth > 2.5 * claim
    with pytest.raises(AssertionError):
        assert_dp_blackbox(safe_k_anon(k, k - 1), beta=beta, epsilon=eps, delta=float(claim),
                           pairs=[((0,) * n, (0,) * (n - 1)) for n in range(2, 6)],
                           n_select=3000, n_confirm=6000, seed=2)


@pytest.mark.parametrize("seed", range(5))
def test_blackbox_no_false_alarm_on_correct_mechanism(seed):
    """The correct mechanism at its exact worst-case δ: the lower bound stays below the truth
    (this fails with probability ≤ α = 1e-3 per seed; seeds are fixed)."""
    k, beta, eps = 3, Fraction(1, 2), 1
    pairs = [((0,) * n, (0,) * (n - 1)) for n in range(2, 6)]
    rep = estimate_delta_lower(safe_k_anon(k), pairs, beta=beta, epsilon=eps,
                               n_select=1000, n_confirm=2000, seed=seed)
    assert rep.delta_lower <= float(exact.sdgs_delta(k, beta, eps))
    assert rep.events_tested == 2 * len(pairs) and rep.confidence == 1 - 1e-3


def test_blackbox_report_describes_witness():
    rep = estimate_delta_lower(size_publisher, PAIRS[:1], beta=0.5, epsilon=0.1,
                               n_select=500, n_confirm=1000, seed=3)
    text = rep.describe()
    assert "Clopper-Pearson" in text and "dataset" in text and rep.delta_lower > 0
    rng = random.Random(0)
    assert size_publisher((1, 2), rng) == 2


def test_plugin_profiles_are_namespaced_with_aliases():
    from hypothesis import settings

    from dps_verify.testing import plugin

    plugin.register_profiles()
    assert settings.get_profile("dps-ci").derandomize
    assert settings.get_profile("dps-deep").max_examples == plugin.DEEP_MAX_EXAMPLES
    assert plugin.profile_name("ci") == "dps-ci" and plugin.profile_name("deep") == "dps-deep"
    assert plugin.PROFILES == ("dps-ci", "dps-deep")


def test_assert_dp_blackbox_accepts_string_beta():
    from dps_verify.testing import assert_dp_blackbox

    with pytest.raises(AssertionError, match="beta = 1/5"):
        assert_dp_blackbox(lambda s, rng: len(s), beta="1/5", epsilon=1, delta=0.001,
                           pairs=[((0,), ())], n_select=300, n_confirm=600)


def test_assert_dp_pass_report_words_a_finite_search():
    rep = assert_dp(lambda s: "constant", beta=Fraction(1, 4), epsilon=1, delta=0,
                    domain=DOMAIN, max_size=3, max_examples=0)
    text = rep.summary()
    assert "every dataset of 1..3 records" in text and "not a proof" in text
