"""The exact search decides the hard pairs: ε = 0 near-ties, subnormal and underflowing
probabilities, hockey-stick enclosures that straddle the claim, huge ε, exact-log ε, and false
sufficient statistics.  Each case was once a PASS-when-violated, an INCONCLUSIVE on a decidable
pair, or a crash found by brute force.  Every test checks the verdict against the exact δ.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.audit.core import _shape_search
from dps_verify.audit.domain import Domain
from dps_verify.core.numbers import exp_interval
from dps_verify.engine.distribution import distribution, randomized
from dps_verify.measures.divergence import delta_certified, delta_exceeds
from dps_verify.testing import assert_dp
from dps_verify.verdict.exact_search import exhaustive_search, shape_search
from dps_verify.verdict.screen import binomial_table, underflow_free


def _straddling_delta() -> F:
    """A claim just below the exact δ = (9 − 2e)/256 of (8 a's, 7 a's) for A = '≥ 7 a's' at
    β = 1/2, ε = 1: closer than the default interval enclosure of e can separate."""
    _, hi = exp_interval(F(1), 2048)
    d = (9 - 2 * hi) / 256 - F(1, 2**150)
    return F(int(d * 2**160), 2**160)


def test_eps0_integer_mode_near_tie_is_not_cleared():
    # exact δ of (aaa, aa) at ε = 0 is 24/125; a claim 1e-40 below it must FAIL
    A = lambda s: len(s) >= 2  # noqa: E731
    d = F(24, 125) - F(1, 10**40)
    r = exhaustive_search(A, ["a"], beta=F(2, 5), epsilon=0, delta=d, max_size=4,
                          executor="serial", progress=False)
    assert r.witness is not None and r.witness.implied_delta == F(24, 125)
    # control: the claim equal to the exact δ holds
    r = exhaustive_search(A, ["a"], beta=F(2, 5), epsilon=0, delta=F(24, 125), max_size=4,
                          executor="serial", progress=False)
    assert r.witness is None


def test_subnormal_probabilities_do_not_clear_a_zero_delta_claim():
    U0 = F(1, 2**1074)

    def law(s):
        rho = 104 * U0 if len(s) == 0 else F(115351, 250) * U0
        return {"rare": rho, "common": 1 - rho}

    A = randomized(law)
    P = distribution(A, ["a"], F(1, 2)).exact
    Q = distribution(A, [], F(1, 2)).exact
    assert delta_certified(P, Q, 1).lower > 0
    r = exhaustive_search(A, ["a"], beta=F(1, 2), epsilon=1, delta=0, max_size=1,
                          executor="serial", progress=False)
    assert r.witness is not None


def test_underflow_free_detects_flushed_factors():
    assert underflow_free(binomial_table(1, 2, 10), 10, 3)
    assert not underflow_free(binomial_table(1, 2**60, 40), 40, 3)  # β^40 below 2^-900·…
    assert underflow_free(binomial_table(1, 1, 10), 10, 3)  # β = 1: exact zeros and ones
    assert not underflow_free(binomial_table(1, 2, 10), 10, 3, min_p_log2=-1000.0)


def test_straddling_enclosure_is_decided_exactly():
    d = _straddling_delta()
    A = lambda s: s.count("a") >= 7  # noqa: E731
    P = distribution(A, ["a"] * 8, F(1, 2)).exact
    Q = distribution(A, ["a"] * 7, F(1, 2)).exact
    cert = delta_certified(P, Q, 1)
    assert cert.lower <= d < cert.upper  # the enclosure alone cannot decide
    assert delta_exceeds(P, Q, 1, d)
    assert not delta_exceeds(P, Q, 1, cert.upper)  # control: above the exact value
    r = shape_search(A, ["a", "b"], beta=F(1, 2), epsilon=1, delta=d, max_records=40)
    assert r.witness is not None and not r.undecided
    with pytest.raises(AssertionError):
        assert_dp(A, domain=["a", "b"], beta=F(1, 2), epsilon=1, delta=d, max_size=8,
                  max_examples=5)


def test_audit_shape_search_reports_undecided_pairs():
    # a claim the shapes can refute: the audit's shape search returns the witness and 0 undecided
    d = _straddling_delta()
    A = lambda s: s.count("a") >= 7  # noqa: E731
    cov = {"shapes": {}, "pairs_exact": 0, "max_size_used": 0}
    w, undecided = _shape_search(A, Domain.of(["a", "b"], 40), F(1, 2), F(1), d,
                                 "hockey-stick", cov)
    assert w is not None and undecided == 0
    assert "decided exactly" in w.note


@pytest.mark.parametrize("eps", [700, 800, 10**6])
def test_huge_epsilon_does_not_overflow(eps):
    A = lambda s: len(s) >= 1  # noqa: E731
    # δ of ({a}, {}) is β = 1/2 for every ε (no mass of the neighbour on "published")
    r = exhaustive_search(A, ["a"], beta=F(1, 2), epsilon=eps, delta=F(1, 10), max_size=2,
                          executor="serial", progress=False)
    assert r.witness is not None and r.witness.implied_delta == F(1, 2)
    r = exhaustive_search(A, ["a"], beta=F(1, 2), epsilon=eps, delta=F(1, 2), max_size=2,
                          executor="serial", progress=False)
    assert r.witness is None


def test_blackbox_and_montecarlo_accept_exact_log_epsilon():
    from dps_verify.core.params import epsilon_param
    from dps_verify.testing.blackbox import estimate_delta_lower
    from dps_verify.verdict.montecarlo import exp_upper_float

    assert exp_upper_float(epsilon_param("ln(11)")) >= 11.0
    # publishing the sample size: δ of ({a}, {}) is β = 1/2 at every ε
    rep = estimate_delta_lower(lambda s, rng: len(s), beta="1/2", epsilon="ln(11)",
                               pairs=[(["a"], [])], n_select=200, n_confirm=400, seed=0)
    assert 0 < rep.delta_lower <= 0.5


class _LyingStatistic:
    """Declares that only a record's class matters, but publishes whether 'b' was sampled."""

    sufficient_statistic = staticmethod(lambda r: 0)

    def __call__(self, s):
        return "b" in s


def test_false_sufficient_statistic_is_an_audited_code_error():
    from dps_verify.audit import audit
    from dps_verify.core.errors import AuditedCodeError

    with pytest.raises(AuditedCodeError, match="not sufficient"):
        assert_dp(_LyingStatistic(), domain=["a", "b"], beta=F(1, 2), epsilon=1,
                  delta=F(1, 10), max_examples=5)
    with pytest.raises(AuditedCodeError, match="not sufficient"):
        audit(_LyingStatistic(), domain=["a", "b"], beta=F(1, 2), epsilon=1, delta=F(1, 10))


def test_true_sufficient_statistic_passes_the_spot_check():
    import dps_verify.mechanisms as M

    A = M.StronglySafeKAnonymizer(lambda r: r // 2, 2)
    rep = assert_dp(A, domain=[0, 1, 2, 3], beta=F(1, 2), epsilon=1, delta=1, max_size=4,
                    max_examples=0)
    assert rep is not None
