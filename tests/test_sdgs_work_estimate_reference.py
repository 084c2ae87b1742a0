"""The float work estimate of worstcase/sdgs.py (``_estimate``) against its documented formula at
40 digits, and against the work the exact walk actually does (group sizes counted by the scan).

The estimate never makes a certified number, but it decides which route a scan takes (the exact
walk over group sizes or the long-range segments) and when a scan refuses with a budget error, so
its numbers are behaviour: each is pinned here to the formula in its docstring (γ, KL(γ‖β), the
expected −ln δ from the binomial term at the start, the forward and backward Chernoff stops,
bits and bit-steps), evaluated independently in mpmath, on cases that reach every branch (CP Thm 5's
regime and below its edge, where the backward stop dominates or not, ε = 0, γ that rounds to 1).
The counted check ties the formula to the walk: where the backward Chernoff rule is the one that
stops the walk, the estimated stop is within a small factor of the counted one (the forward stop
alone falls far short of it).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dps_verify.worstcase import sdgs

F = Fraction
DPS = 40
#: relative agreement of the float estimate with the 40-digit formula (floats lose a few ulps
#: in lgamma's cancellation; a changed constant moves a number by far more)
REL = 1e-9


def _kl(a, b):
    """KL(a‖b) of Bernoulli laws from the definition (0·ln 0 = 0)."""
    out = mpmath.mpf(0)
    if a > 0:
        out += a * mpmath.log(a / b)
    if a < 1:
        out += (1 - a) * mpmath.log1p((b - a) / (1 - b))  # ln((1−a)/(1−b)), no cancellation
    return out


def reference(k: int, beta: Fraction, eps: Fraction, measure: str, backward: bool) -> dict:
    """The estimate's docstring formula at DPS digits (ε here is at most 800, β far from 0)."""
    with mpmath.workdps(DPS):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        g = b - (1 - b) * mpmath.expm1(-e)  # 1 − (1−β)e^−ε without cancellation at tiny β, ε
        if e == 0:
            kl = mpmath.mpf(0)
        elif 1 - g < mpmath.mpf(2) ** -60:  # 1.0 as a double
            kl = -mpmath.log(b)
        else:
            kl = _kl(g, b)
        n0 = max(k / g - 1, mpmath.mpf(1)) if e > 0 else mpmath.mpf(k)
        if measure != "paper-d" and (backward or e == 0):
            n0 = mpmath.mpf(k)
        ns = max(k / g, mpmath.mpf(k))
        if ns < mpmath.mpf(10) ** 300:
            log_f = (mpmath.loggamma(ns + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(ns - k + 1)
                     + k * mpmath.log(b) + (ns - k) * mpmath.log(1 - b))
        else:  # Chernoff's exponent in place of the binomial term
            log_f = -kl * ns
        L = max(-log_f, mpmath.mpf(0))
        if measure == "hockey-stick":
            L += -mpmath.log(b)
        n_stop = max(n0, (L + 1) / kl) if kl > 0 else mpmath.inf
        if backward and n_stop < mpmath.inf:
            # iterate nb <- (L + 1)/KL(k/(nb - 1)||beta) + 1 until it no longer rises
            nb = max(n_stop, 2 * k / b + 2)
            while True:
                need = (L + 1) / _kl(k / (nb - 1), b) + 1
                if need <= nb:
                    break
                nb = need
            n_stop = max(n_stop, nb)
        if e == 0:
            n_stop = 16 * (k / b + 2) if measure == "hockey-stick" else mpmath.mpf(k)
        bits = n_stop * mpmath.log(beta.denominator, 2)
        return {
            "n0": n0,
            "n_stop": n_stop,
            "kl": kl,
            "bits": bits,
            "work": (n_stop - n0 + 1 + 200) * bits,
            "value_bits": L / mpmath.log(2),
        }


def _in_regime(beta: Fraction, eps: Fraction) -> bool:
    return eps > 0 and sdgs.in_regime_fast(beta, eps)


CASES = [
    # CP Thm 5's regime: start near n_m = k/γ − 1, forward stop only
    (20, F(1, 10), F(1)),
    (3, F(1, 3), F(2)),
    (5, F(1, 2), F(1, 2)),  # just inside the edge −ln(1/2) ≈ 0.693
    # below the edge: the backward stop dominates (k/β large against the forward stop) ...
    (10, F(1, 10), F(1, 10)),
    (20, F(1, 10), F(1, 10)),
    (20, F(1, 2), F(1, 2)),
    # ... or the forward stop already satisfies the backward rule
    (3, F(2, 3), F(1, 5)),
    (10, F(9, 10), F(1, 2)),
    # ε = 0: the TV tail for the hockey-stick, the value 1 at n = k for pointwise
    (3, F(1, 2), F(0)),
    (4, F(1, 5), F(0)),
    # γ = 1 − (1−β)e^−ε is 1.0 as a double: KL(γ‖β) is taken as −ln β (also for a β that is
    # 0.0 as a double: from the exact β)
    (3, F(1, 2), F(800)),
    (3, F(1, 2**1100), F(40)),
    # k/γ past 10^300 (β and ε near 10^−300): the value size from Chernoff's exponent
    (3, F(1, 10**305), F(1, 10**301)),
]


@pytest.mark.parametrize("k, beta, eps", CASES)
@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise", "paper-d"])
def test_work_estimate_equals_its_documented_formula(k, beta, eps, measure):
    regime = _in_regime(beta, eps)
    if measure == "paper-d" and not regime:
        pytest.skip("CP Thm 5's d is defined in its regime only")
    backward = measure != "paper-d" and not regime and eps > 0
    got = sdgs._estimate(k, beta, eps, measure, backward)
    want = reference(k, beta, eps, measure, backward)
    assert set(got) == set(want)
    for key, w in want.items():
        assert float(w) == pytest.approx(got[key], rel=REL, abs=1e-300), (key, got, want)


#: below the edge, where the backward Chernoff rule stops the walk well after the forward one
BACKWARD_STOPS = [(10, F(1, 10), F(1, 10), "hockey-stick"), (10, F(1, 10), F(1, 10), "pointwise"),
                  (20, F(1, 10), F(1, 10), "pointwise"), (5, F(1, 10), F(1, 10), "pointwise")]


@pytest.mark.parametrize("k, beta, eps, measure", BACKWARD_STOPS)
def test_backward_stop_estimate_is_near_the_stop_the_walk_counts(k, beta, eps, measure):
    """The scan counts the group sizes it walks (n_start, n_scanned); its last one is where a
    certified stopping rule fired.  The estimate's stop is within [0.9, 1.6] of it, while the
    forward estimate alone (the same formula without the backward set) is below 0.9 of it: the
    backward part of the estimate is what predicts these walks."""
    assert not _in_regime(beta, eps)
    got = sdgs.scan(k, beta, eps, measure=measure, long_range=False)
    stop = got.details["n_start"] + got.details["n_scanned"] - 1
    est = sdgs._estimate(k, beta, eps, measure, True)
    forward_only = sdgs._estimate(k, beta, eps, measure, False)
    assert 0.9 * stop <= est["n_stop"] <= 1.6 * stop, (est, stop)
    assert forward_only["n_stop"] < 0.9 * stop, (forward_only, stop)
    # the work is counted in the same unit as the estimate: (group sizes + set-up) x bits
    counted = (got.details["n_scanned"] + 200) * stop * mpmath.log(beta.denominator, 2)
    assert 0.8 * counted <= est["work"] <= 3 * counted, (est, counted)


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise"])
def test_estimate_at_a_beta_below_the_doubles_and_epsilon_zero(measure):
    """β = 2^−1100 is 0.0 as a double and γ = β at ε = 0: no division by the zero γ, the start
    is k, the value size comes from the exact β (−log2 β^k = 1100k bits, plus −log2 β for the
    hockey-stick), and only the hockey-stick's 1/√n tail puts the stop out of reach."""
    k = 3
    est = sdgs._estimate(k, F(1, 2**1100), F(0), measure, True)
    assert est["n0"] == k and est["kl"] == 0
    bits = 1100 * (k + (measure == "hockey-stick"))
    assert est["value_bits"] == pytest.approx(bits, rel=REL)
    if measure == "hockey-stick":
        assert est["n_stop"] > 1e300 and est["work"] == float("inf")
    else:
        assert est["n_stop"] == k


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise"])
def test_estimate_is_infinite_when_beta_is_one_as_a_double(measure):
    """β = 1 − 2^−60 is 1.0 as a double, so the float γ − β is 0: the screen sees no forward
    Chernoff exponent and estimates an endless walk (the scan then takes the long-range path or
    refuses; never the exact walk on a float guess of the stop)."""
    est = sdgs._estimate(3, 1 - F(1, 2**60), F(1), measure, True)
    assert est["n0"] == 3 and est["kl"] == 0
    assert est["n_stop"] == float("inf") and est["work"] == float("inf")
    # CP Thm 5's d in its regime (ε ≥ −ln(1 − β) = 60 ln 2) at the same β: the same
    est = sdgs._estimate(3, 1 - F(1, 2**60), F(50), "paper-d", False)
    assert est["n0"] == 3 and est["kl"] == 0 and est["n_stop"] == float("inf")
