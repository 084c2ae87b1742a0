"""Differential fuzzing of the exact measures against the independent reference.

Surface: ``exact.delta`` / ``delta_certified`` / ``pointwise_delta`` / ``epsilon``, the PLD's
``pair_delta`` / ``pair_epsilon`` (self-composition) and ``exact.distribution``.  Every call
runs under a time limit (:func:`reference.call_limited`); it must return a value the reference
confirms (a safe value ≥ the reference, an enclosure containing it, and tight to ≥ 12 digits)
or raise a documented dps_verify error (``ValueError`` subclasses, ``CertificationError``).
The ``ci`` profile runs a small derandomized slice; ``benchmarks/bench_fuzz_deep.py`` runs the
same properties under the ``deep`` profile.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import reference as R
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.errors import CertificationError
from dps_verify.measures import pld

DOCUMENTED = (ValueError, CertificationError)
REL = mpmath.mpf(10) ** -12  # tightness demanded of a safe (rounded-up) value
ABS = mpmath.mpf(10) ** -60  # slack for the reference's own rounding


def examples(ci: int) -> int:
    """``ci`` examples under the ci profile; $DPS_FUZZ_EXAMPLES or the deep profile's budget
    otherwise (see benchmarks/bench_fuzz_deep.py)."""
    return R.example_budget(ci, settings.default.max_examples)


# --- strategies ----------------------------------------------------------------------------

def log_fraction(lo: int = -40, hi: int = 0) -> st.SearchStrategy[Fraction]:
    """m·10^e with e in [lo, hi] (a log scale), m in 1..9."""
    return st.builds(lambda m, e: Fraction(m) * Fraction(10) ** e, st.integers(1, 9),
                     st.integers(lo, hi))


EPSILONS = st.one_of(
    st.just(Fraction(0)),
    log_fraction(-40, 1),
    st.sampled_from([Fraction(1, 3), Fraction(1), Fraction(89), Fraction(745), Fraction(10**30),
                     Fraction(7, 10**12)]),
)


SUPPORT_SIZES = st.sampled_from([1, 2, 3, 4])
#: One mass of a law: 0 or m·10^e, e in [−30, 0].  Built once (built inside ``laws`` it was
#: built anew for every mass drawn, about 2/3 of the strategy's time; the draws are the same).
MASS = st.one_of(st.just(Fraction(0)), log_fraction(-30, 0))


@st.composite
def laws(draw, support=SUPPORT_SIZES):
    """A pair of exact sub-probability laws on a small common support (masses on a log scale,
    zeros included so infinite losses occur)."""
    n = draw(support)

    def one():
        w = [draw(MASS) for _ in range(n)]
        total = sum(w)
        assume(total > 0)
        full = draw(st.booleans())
        scale = 1 / total if full or total > 1 else Fraction(1)
        return {i: v * scale for i, v in enumerate(w) if v}

    return one(), one()


def _check_delta(value, ref):
    with mpmath.workdps(R.DPS):
        v = R.as_mpf(value)
        assert v >= ref - ABS, f"unsafe: {v} < reference {ref}"
        assert v <= ref * (1 + REL) + ABS, f"loose: {v} > reference {ref}"


# --- properties ---------------------------------------------------------------------------

@settings(max_examples=examples(60))
@given(pq=laws(), eps=EPSILONS)
def test_delta_matches_reference(pq, eps):
    P, Q = pq
    ref = R.hockey_stick(P, Q, eps)
    try:
        cert = R.call_limited(exact.delta_certified, P, Q, eps)
        safe = R.call_limited(exact.delta, P, Q, eps)
    except DOCUMENTED:
        return
    with mpmath.workdps(R.DPS):
        assert R.as_mpf(cert.lower) <= ref + ABS and ref <= R.as_mpf(cert.upper) + ABS
    _check_delta(safe, ref)


@settings(max_examples=examples(60))
@given(pq=laws(), eps=EPSILONS)
def test_pointwise_delta_matches_reference(pq, eps):
    P, Q = pq
    try:
        ref = R.pointwise(P, Q, eps)
    except R.ReferenceGaveUp:
        return
    try:
        got = R.call_limited(exact.pointwise_delta_exact, P, Q, eps)
        safe = R.call_limited(exact.pointwise_delta, P, Q, eps)
    except DOCUMENTED:
        return
    assert got == ref
    _check_delta(safe, R.as_mpf(ref))


@settings(max_examples=examples(40))
@given(pq=laws(), delta=st.one_of(st.just(Fraction(0)), log_fraction(-30, 0)))
def test_epsilon_matches_reference(pq, delta):
    P, Q = pq
    ref = R.epsilon(P, Q, delta)
    try:
        got = R.call_limited(exact.epsilon, P, Q, delta)
    except DOCUMENTED:
        return
    if ref == mpmath.inf:
        assert got == mpmath.inf
        return
    with mpmath.workdps(R.DPS):
        v = R.as_mpf(got)
        assert v != mpmath.inf
        # safe: not below the least ε; tight to 12 digits (the bisection is exact to ~1e-100)
        assert v >= ref - mpmath.mpf(10) ** -50
        assert v <= ref * (1 + REL) + ABS


@settings(max_examples=examples(30))
@given(pq=laws(st.sampled_from([1, 2, 3])), eps=EPSILONS, times=st.integers(1, 3))
def test_pld_composition_matches_product_laws(pq, eps, times):
    P, Q = pq
    ref = R.composed_delta(P, Q, eps, times)
    try:
        got = R.call_limited(pld.pair_delta, P, Q, eps, times)
    except DOCUMENTED:
        return
    _check_delta(got, ref)


@settings(max_examples=examples(20))
@given(pq=laws(st.sampled_from([1, 2, 3])), delta=st.one_of(st.just(Fraction(0)), log_fraction(-20, 0)),
       times=st.integers(1, 3))
def test_pld_epsilon_matches_product_laws(pq, delta, times):
    P, Q = pq
    ref = R.composed_epsilon(P, Q, delta, times)
    try:
        got = R.call_limited(pld.pair_epsilon, P, Q, delta, times)
    except DOCUMENTED:
        return
    if ref == mpmath.inf:
        assert got == mpmath.inf
        return
    with mpmath.workdps(R.DPS):
        v = R.as_mpf(got)
        assert ref - mpmath.mpf(10) ** -50 <= v <= ref * (1 + REL) + ABS


ANONYMIZERS = {
    "count>=2": lambda s: len(s) if len(s) >= 2 else None,
    "sorted": lambda s: tuple(sorted(s)),
    "max": lambda s: max(s, default=None),
    "parity-sum": lambda s: sum(s) % 2,
    "k2-groups": lambda s: tuple(sorted((v, s.count(v)) for v in set(s) if s.count(v) >= 2)),
}


@settings(max_examples=examples(30))
@given(name=st.sampled_from(sorted(ANONYMIZERS)), data=st.lists(st.integers(0, 3), max_size=7),
       beta=st.one_of(log_fraction(-40, 0).filter(lambda b: b <= 1),
                      st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(999, 1000)])))
def test_distribution_matches_subset_enumeration(name, data, beta):
    anon = ANONYMIZERS[name]
    got = R.call_limited(exact.distribution, anon, data, beta)
    assert got.exact == {y: v for y, v in R.distribution(anon, data, beta).items() if v}
    assert sum(got.exact.values()) == 1


@pytest.mark.parametrize("eps", [Fraction(10**30), Fraction(89), Fraction(0)])
def test_explicit_edges(eps):
    """ε = 0, a large ε and ε = 1e30 against the reference, on a law with an infinite loss."""
    P = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    Q = {0: Fraction(1, 4), 2: Fraction(3, 4)}
    _check_delta(R.call_limited(exact.delta, P, Q, eps), R.hockey_stick(P, Q, eps))
    assert R.call_limited(exact.pointwise_delta_exact, P, Q, eps) == R.pointwise(P, Q, eps)


def test_reference_negative_control():
    """The comparison can fail: a δ computed at the wrong ε is rejected."""
    P, Q = {0: Fraction(3, 4), 1: Fraction(1, 4)}, {0: Fraction(1, 4), 1: Fraction(3, 4)}
    with pytest.raises(AssertionError):
        _check_delta(exact.delta(P, Q, Fraction(1, 2)), R.hockey_stick(P, Q, Fraction(1)))
    with pytest.raises(AssertionError):
        _check_delta(exact.delta(P, Q, Fraction(2)), R.hockey_stick(P, Q, Fraction(1)))


def test_time_limit_catches_a_hang():
    """Both limits of call_limited can fail: a busy loop past its CPU limit, and a call that
    blocks (no CPU) past its wall-clock limit; a quick call returns its value."""
    import time

    def spin() -> None:
        while True:
            pass

    with pytest.raises(R.Hang, match="of CPU"):
        R.call_limited(spin, seconds=0.05)
    with pytest.raises(R.Hang, match="of wall time"):
        R.call_limited(time.sleep, 2, seconds=0.2, wall_seconds=0.2)
    assert R.call_limited(sum, (1, 2), seconds=0.2) == 3
