"""(β, ε, δ)-DPS does not compose: CP §2.2 (XOR of a parity bit with a sensitive predicate) and
CP §2.6 (a DPS mechanism together with an ε-DP one), in finite, exactly computed versions.

§2.2: A₁ publishes the parity of the (sampled) dataset size, A₂ publishes parity XOR "record t
is present".  Under β-sampling each alone is nearly private (A₁ needs δ = β|1−2β|^n at ε = 0
for n other records; A₂'s output law does not depend on t at all), yet together they reveal
whether t was sampled: δ = β at every ε.
§2.6: A₁ publishes r(T) XOR s(T) (r = "more males than females", s = "t ∈ T") when |T| ≥ N₀
and False otherwise; A₂ publishes the male count with two-sided geometric noise (ε₂ = ln 1/α,
clamped to [0, H]).  The naive composition bound (ε₁ + ε₂, δ₁ + 0) fails.
Negative controls: replacing A₂ by a data-independent output, the composition does not break.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.numbers import to_fraction
from dps_verify.engine.distribution import randomized
from dps_verify.mechanisms import xor_pair
from dps_verify.testing import strategies as S

# --------------------------------------------------------------------------- §2.2


def with_key(fn, key):
    fn.sufficient_statistic = key
    return fn


def xor_deltas(n: int, beta: Fraction, eps: Fraction, second=None) -> tuple:
    a1, a2, both = xor_pair("t")
    if second is not None:
        def both(s):  # noqa: F811 - the negative control's composition
            return a1(s), second(s)
    D2 = ("o",) * n
    D = D2 + ("t",)
    out = []
    for a, e in ((a1, 0), (a2, 0), (both, eps)):
        P = exact.distribution(with_key(a, lambda r: r), D, beta)
        Q = exact.distribution(with_key(a, lambda r: r), D2, beta)
        out.append(exact.delta_certified(P, Q, e))
    return tuple(out)


@given(st.integers(0, 12), S.betas(8), S.epsilons(4, 2))
def test_section_2_2_xor_composition_breaks(n, beta, eps):
    d1, d2, d12 = xor_deltas(n, beta, eps)
    assert d1.lower == d1.upper == beta * abs(1 - 2 * beta) ** n
    assert d2.upper == 0
    assert d12.lower == d12.upper == beta  # reveals whether t was sampled, at every ε


@given(st.integers(0, 12), S.betas(8), S.epsilons(4, 2))
def test_section_2_2_negative_control_data_independent_second_output(n, beta, eps):
    d1, _, d12 = xor_deltas(n, beta, eps, second=lambda s: "constant")
    assert d12.upper <= d1.upper  # nothing breaks beyond what A₁ alone leaks
    if d1.upper < beta:
        assert d12.upper < beta  # the detector "δ = β" does not fire


# --------------------------------------------------------------------------- §2.6


@functools.cache
def _geometric_clamped(c: int, alpha: Fraction, H: int) -> tuple[tuple[int, Fraction], ...]:
    return tuple(geometric_clamped_law(c, alpha, H).items())


def geometric_clamped(c: int, alpha: Fraction, H: int) -> dict[int, Fraction]:
    """:func:`geometric_clamped_law`, computed once per (c, α, H) (the engine asks for it once
    per sample, and many samples share their male count); a fresh dict each call."""
    return dict(_geometric_clamped(c, alpha, H))


def geometric_clamped_law(c: int, alpha: Fraction, H: int) -> dict[int, Fraction]:
    """Law of clamp(c + Z, 0, H) with Pr[Z = z] ∝ α^|z| (ε-DP for counts, ε = ln 1/α)."""
    norm = (1 - alpha) / (1 + alpha)
    out = {}
    for y in range(H + 1):
        if y == 0:
            out[y] = norm * alpha**c / (1 - alpha)
        elif y == H:
            out[y] = norm * alpha ** (H - c) / (1 - alpha)
        else:
            out[y] = norm * alpha ** abs(y - c)
    return out


def section_2_6(m: int, beta: Fraction, alpha: Fraction, n0: int, noisy=True):
    """Exact δ of A₁ alone at ε₁ = 1, and of (A₁, A₂) at ε₁ + ε₂⁺ (ε₂⁺ ≥ ln 1/α)."""
    key = lambda r: (r[0], r[1] == "t")  # noqa: E731 - outputs depend on gender counts and t

    def a1(s):
        if len(s) < n0:
            return False
        males = sum(r[0] == "M" for r in s)
        return (males > len(s) - males) ^ any(r[1] == "t" for r in s)

    def both(s):
        males = sum(r[0] == "M" for r in s)
        law = geometric_clamped(males, alpha, 2 * m) if noisy else {0: Fraction(1)}
        return {(a1(s), y): p for y, p in law.items()}

    a1.sufficient_statistic = key
    rb = randomized(both)
    rb.sufficient_statistic = key
    D2 = tuple([("M", f"m{i}") for i in range(m)] + [("F", f"f{i}") for i in range(m)])
    D = D2 + (("F", "t"),)
    e1 = Fraction(1)
    import mpmath

    e2 = to_fraction(mpmath.log(mpmath.mpf(alpha.denominator) / alpha.numerator) * (1 + mpmath.mpf(2) ** -60))
    d1 = exact.delta_certified(*(exact.distribution(a1, d, beta) for d in (D, D2)), e1)
    d12 = exact.delta_certified(*(exact.distribution(rb, d, beta) for d in (D, D2)), e1 + e2)
    return d1, d12


@given(st.integers(5, 8), st.sampled_from([Fraction(1, 2), Fraction(2, 5)]),
       st.sampled_from([Fraction(1, 4), Fraction(1, 5)]))
def test_section_2_6_dps_plus_dp_breaks(m, beta, alpha):
    d1, d12 = section_2_6(m, beta, alpha, n0=m)
    # A₂ is (ln 1/α)-DP with δ = 0, so naive composition would give δ ≤ d1 at ε₁ + ε₂.
    assert d12.lower > d1.upper


def test_section_2_6_negative_control_constant_second_output():
    for m in (5, 6):
        d1, d12 = section_2_6(m, Fraction(1, 2), Fraction(1, 4), n0=m, noisy=False)
        assert d12.upper <= d1.upper
