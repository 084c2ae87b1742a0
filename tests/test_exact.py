"""The exact engine against plain subset enumeration and brute-force event maxima."""

import itertools
from fractions import Fraction

import mpmath
import pytest

from dps_verify import exact
from dps_verify import mechanisms as M


def subset_distribution(anonymizer, dataset, beta):
    """Reference: enumerate all 2^N index subsets."""
    beta = Fraction(beta)
    out = {}
    n = len(dataset)
    for mask in itertools.product([0, 1], repeat=n):
        pr = Fraction(1)
        for m in mask:
            pr *= beta if m else 1 - beta
        sample = tuple(r for r, m in zip(dataset, mask) if m)
        y = anonymizer(tuple(sorted(sample, key=repr)))
        out[y] = out.get(y, 0) + pr
    return out


def brute_delta(P, Q, eps):
    """max over all events O of P(O) - e^eps Q(O), both directions (float, small supports)."""
    ys = sorted(set(P) | set(Q), key=repr)
    best = 0.0
    e = float(mpmath.exp(eps))
    for r in range(len(ys) + 1):
        for O in itertools.combinations(ys, r):
            a = sum(float(P.get(y, 0)) for y in O)
            b = sum(float(Q.get(y, 0)) for y in O)
            best = max(best, a - e * b, b - e * a)
    return best


def canon(anon):
    return lambda s: anon(tuple(sorted(s, key=repr)))


@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 3), Fraction(1, 10)])
def test_count_vector_enumeration_equals_subset_enumeration(beta):
    A = M.StronglySafeKAnonymizer(lambda r: r // 10, 2)
    D = [1, 2, 2, 11, 12, 13, 25]
    got = exact.distribution(A, D, beta)
    ref = subset_distribution(A, D, beta)
    assert got.exact == ref
    assert sum(got.exact.values()) == 1


def test_generic_records_without_sufficient_statistic():
    anon = M.Mondrian(2)
    D = [(1,), (2,), (2,), (9,)]
    got = exact.distribution(anon, D, Fraction(1, 2))
    assert got.exact == subset_distribution(canon(anon), D, Fraction(1, 2))


@pytest.mark.parametrize("eps", [0, Fraction(1, 4), 1, 2])
def test_delta_equals_brute_force_event_maximum(eps):
    A = M.StronglySafeKAnonymizer(lambda r: r // 10, 2)
    D = [1, 2, 3, 11, 12]
    P = exact.distribution(A, D, Fraction(1, 2))
    Q = exact.distribution(A, D[:-1], Fraction(1, 2))
    assert abs(float(exact.delta(P, Q, eps)) - brute_delta(P.exact, Q.exact, eps)) < 1e-12


def test_delta_negative_control_detects_leak():
    # A mechanism that publishes the sample size: the neighbour is distinguishable.
    P = exact.distribution(len, [1, 2, 3], Fraction(1, 2))
    Q = exact.distribution(len, [1, 2], Fraction(1, 2))
    assert exact.delta(P, Q, 0) > 0
    assert exact.delta(P, Q, 1) >= mpmath.mpf(1) / 8  # Pr[all 3 kept] = 1/8 has no counterpart


def test_pointwise_dominates_hockey_stick():
    A = M.StronglySafeKAnonymizer(lambda r: 0, 2)
    P = exact.distribution(A, [1] * 6, Fraction(1, 3))
    Q = exact.distribution(A, [1] * 5, Fraction(1, 3))
    for eps in [0, Fraction(1, 2), 1, 3]:
        assert exact.pointwise_delta(P, Q, eps) >= exact.delta(P, Q, eps)


def test_epsilon_is_smallest_epsilon_meeting_delta():
    P = {"a": Fraction(1, 2), "b": Fraction(3, 8), "c": Fraction(1, 8)}
    Q = {"a": Fraction(1, 4), "b": Fraction(1, 2), "c": Fraction(1, 4)}
    assert abs(exact.epsilon(P, Q) - mpmath.log(2)) < 1e-15
    for d in [Fraction(1, 100), Fraction(1, 10)]:
        e = exact.epsilon(P, Q, d)
        assert exact.delta(P, Q, e) <= float(d) + 1e-15
        assert exact.delta(P, Q, e - mpmath.mpf("1e-9")) > float(d)
    assert exact.epsilon({"a": 1}, {"b": 1}, Fraction(1, 2)) == mpmath.inf


def test_randomized_anonymizer_and_validation():
    rr = M.RandomizedResponse(Fraction(3, 4))
    P = exact.distribution(rr, [1, 0], 1)
    assert P.exact == {0: Fraction(3, 16), 1: Fraction(10, 16), 2: Fraction(3, 16)}
    bad = exact.randomized(lambda s: {0: 0.5, 1: 0.4})
    from dps_verify.errors import AuditedCodeError  # a broken law is a fault of the audited code

    with pytest.raises(AuditedCodeError, match="sum to"):
        exact.distribution(bad, [1], Fraction(1, 2))


def test_not_a_function_of_its_sample_is_rejected():
    import random

    from dps_verify.errors import AuditedCodeError

    with pytest.raises(AuditedCodeError, match="not a function of its sample"):
        exact.distribution(lambda s: random.random(), [1, 2], Fraction(1, 2))


@pytest.mark.parametrize("beta", [0, -0.1, 1.5, "x"])
def test_bad_beta(beta):
    with pytest.raises(ValueError):
        exact.distribution(len, [1], beta)


def test_xor_pair_composition_breaks():
    a1, a2, both = M.xor_pair("t")
    D, Dm = ("a", "b", "t"), ("a", "b")
    beta = Fraction(1, 2)
    for alone in (a1, a2):
        assert exact.delta(exact.distribution(alone, D, beta), exact.distribution(alone, Dm, beta), 0) <= 0.5
    # Together: (parity, parity XOR present) reveals whether t was sampled: delta = beta.
    assert exact.delta(exact.distribution(both, D, beta), exact.distribution(both, Dm, beta), 5) == 0.5


def test_gender_pair_section_2_6_breaks_with_dp_companion():
    """CP §2.6 on a small dataset: A1 alone leaks little, A2 is DP, together they leak more."""
    a1, a2, both = M.gender_pair(("M", "t"), min_size=2, alpha=Fraction(1, 20))
    base = (("M", "a"), ("M", "b"), ("F", "c"), ("F", "d"))
    D, Dt = base, base + (("M", "t"),)
    beta = Fraction(1, 2)
    d1 = exact.delta(exact.distribution(a1, Dt, beta), exact.distribution(a1, D, beta), 1)
    d2 = exact.delta(exact.distribution(a2, Dt, beta), exact.distribution(a2, D, beta), mpmath.log(20))
    d12 = exact.delta(exact.distribution(both, Dt, beta), exact.distribution(both, D, beta), 1)
    assert d2 == 0  # A2 is ln(1/alpha)-DP: no delta needed at that epsilon
    assert d12 > d1
