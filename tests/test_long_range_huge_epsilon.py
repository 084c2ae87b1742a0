"""The segment scan at ε so large that Arb's e^ε − 1 is the non-finite ball [±inf].

Reference from the definitions (CP Thm 5's regime, hockey-stick CP Def 2 and pointwise TR
Def 2): when e^ε exceeds every finite likelihood ratio of the published count (at most
n/(1−β) for a group of n records), the only bad output of the forward pair is count = n, which
the smaller dataset cannot produce, so δ(n) = β^n and the supremum over n ≥ k is β^k, for both
definitions.  β^k is compared exactly (Fractions) where it is small enough, else with a 200-digit
mpmath value whose error is far below the enclosure's width.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dps_verify import exact
from dps_verify.worstcase import sdgs

HUGE_EPSILONS = [Fraction(2**320), Fraction(10**100), Fraction(2**1000)]
DEFINITIONS = ["hockey-stick", "pointwise"]


@pytest.mark.parametrize("eps", HUGE_EPSILONS, ids=["2^320", "10^100", "2^1000"])
@pytest.mark.parametrize("definition", DEFINITIONS)
@pytest.mark.parametrize("k, beta", [(2, Fraction(1, 2)), (3, Fraction(2, 3)), (2, 1 - Fraction(1, 10**12))])
def test_segment_scan_at_a_huge_epsilon_encloses_beta_to_the_k(k: int, beta: Fraction, eps: Fraction, definition: str) -> None:
    got = sdgs.scan_segments_for_test(k, beta, eps, definition)
    assert got.lower <= beta**k <= got.upper
    assert got.upper - got.lower <= beta**k / 2**80  # a tight enclosure, not a refusal in disguise


@pytest.mark.parametrize("eps", HUGE_EPSILONS, ids=["2^320", "10^100", "2^1000"])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_public_sdgs_delta_at_a_huge_epsilon_on_the_segment_route_is_beta_to_the_k(eps: Fraction, definition: str) -> None:
    beta = 1 - Fraction(1, 10**12)
    got = exact.sdgs_delta_certified(2, beta, eps, definition)
    assert "segments of constant bad set" in got.how  # the route that met e^ε − 1 = [±inf]
    assert got.lower <= beta**2 <= got.upper
    assert got.upper - got.lower <= beta**2 / 2**80


@pytest.mark.parametrize("eps", HUGE_EPSILONS, ids=["2^320", "10^100", "2^1000"])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_public_sdgs_delta_for_two_billion_records_at_a_huge_epsilon_is_beta_to_the_k(eps: Fraction, definition: str) -> None:
    k, beta = 2 * 10**9, 1 - Fraction(1, 10**12)
    got = exact.sdgs_delta_certified(k, beta, eps, definition)
    with mpmath.workdps(200):
        ref = mpmath.power(mpmath.mpf(beta.numerator) / beta.denominator, k)  # error ~ 10^-190 relative
        lo, hi = mpmath.mpf(got.lower.numerator) / got.lower.denominator, mpmath.mpf(got.upper.numerator) / got.upper.denominator
        slack = ref * mpmath.mpf(10) ** -150
        assert lo - slack <= ref <= hi + slack
        assert hi - lo <= ref * mpmath.mpf(2) ** -50
        assert mpmath.nstr(ref, 12) == "0.998001998667"


def test_exact_zero_tail_times_an_infinite_e_to_epsilon_is_exactly_zero() -> None:
    """The guard itself: an exact-zero ball stays 0 against [±inf]; a non-zero one does not."""
    import flint

    from dps_verify.worstcase.long_range import _SegmentScan
    from dps_verify.worstcase.sdgs import _Exp

    scan = _SegmentScan(2, Fraction(1, 2), Fraction(2**1000), "hockey-stick", _Exp(Fraction(2**1000)), False, 96)
    assert not scan.em1.is_finite()
    zero = scan._em1_times(scan.em1, scan.S(3, 2))  # Pr[Bin(2, β) ≥ 3] = 0 exactly
    assert zero.is_zero() and zero.is_exact()
    assert not scan._em1_times(scan.em1, scan.S(2, 2)).is_finite()  # Pr[X_2 ≥ 2] = 1/4 > 0
    fwd = scan.fwd(5, 5)  # Fwd(5) = β·f(4; 4) − (e^ε − 1)·0 = β^5
    assert fwd.contains(flint.arb(flint.fmpq(1, 32))) and fwd.rel_accuracy_bits() >= 80
