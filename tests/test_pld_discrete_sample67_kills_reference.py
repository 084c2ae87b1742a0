"""inverse.pld_discrete against exact references where its grid window starts above the anchor's
T-fold loss (a positive vector offset), and enclose_deltas' releases budget checked before any
work.  The window offset case: a two-atom PLD whose heaviest atom has the smaller loss, so the
Chernoff window of its T-fold law starts at a positive grid index; the exact T-fold law (T + 1
atoms) gives δ_T(ε) exactly (milliseconds)."""

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution as PLD

# heaviest atom (mass 0.55) at the smaller ratio 11/14, the other at 3/2
_LOW_ANCHOR = PLD.from_pair({"a": F(55, 100), "b": F(45, 100)}, {"a": F(7, 10), "b": F(3, 10)})


@pytest.mark.parametrize("eps", [F(1), F(3)])
def test_discretised_enclosure_with_a_window_above_the_anchor_contains_the_exact_delta(eps: F) -> None:
    times = 100
    exact = _LOW_ANCHOR.self_compose(times).delta_certified(eps)
    # the exact law's enclosure of δ (e^ε is irrational; its ends differ by far less than the grid's)
    for h_exp in (-2, -4):
        c = D.discretised_delta(_LOW_ANCHOR, eps, times, h_exp)
        assert c.lower <= exact.upper and exact.lower <= c.upper, (h_exp, float(c.lower), float(exact.lower),
                                                                   float(c.upper))


def test_enclose_deltas_refuses_too_many_releases_before_any_work(monkeypatch) -> None:
    def no_work(*a, **kw):  # type: ignore[no-untyped-def]
        raise AssertionError("work started before the releases budget was checked")

    for name in ("exact_compose_cost", "discretised_delta"):
        monkeypatch.setattr(D, name, no_work)
    with pytest.raises(CertificationError, match="MAX_RELEASES"):
        D.enclose_deltas([_LOW_ANCHOR], F(1), D.MAX_RELEASES + 1)


# a law whose T-fold window (cut at a large tail mass per side) is shorter than its support: the
# mass above the window's last bin is charged from the Chernoff bound at that bin
_SKEWED = PLD.from_pair({"a": F(9, 10), "b": F(1, 10)}, {"a": F(19, 20), "b": F(1, 20)})


@pytest.mark.parametrize("times,tail_mass,h_exp", [(2, 0.5, 0), (2, 0.5, -1), (3, 0.99, 0)])
def test_discretised_enclosure_with_a_short_window_charges_all_the_mass_above_it(
        times: int, tail_mass: float, h_exp: int) -> None:
    exact = _SKEWED.self_compose(times).delta_certified(0)
    c = D.discretised_delta(_SKEWED, 0, times, h_exp, tail_mass=tail_mass)
    assert c.lower <= exact.upper and exact.lower <= c.upper, (float(c.lower), float(exact.lower), float(c.upper))


def test_chernoff_charge_at_a_huge_number_of_releases_is_at_least_the_chernoff_value(monkeypatch) -> None:
    # at n = 2^84 the 128-bit ball of M(λ)^n e^(−λht) is about 2^-46 wide (relative), wider than
    # the float round-up: the charge must come from the ball's upper end.  One λ (so the choice
    # is known); t puts the exponent near −5; the reference is the same value at 600 bits.
    import mpmath

    monkeypatch.setattr(D._Tails, "LAMBDAS", [1.0])
    probs, idx, h = [F(1, 2), F(1, 3), F(1, 6)], [0, 5, 9], 2.0**-4
    tails = D._Tails(idx, probs, h)
    n = 2**84
    with mpmath.workprec(600):
        m = sum((mpmath.mpf(p.numerator) / p.denominator * mpmath.exp(mpmath.mpf(h) * j)
                 for p, j in zip(probs, idx)), mpmath.mpf(0))
        exponent = n * mpmath.log(m)
        t = int(mpmath.ceil((exponent + 5) / mpmath.mpf(h)))
        chernoff = mpmath.exp(exponent - mpmath.mpf(h) * t)
        charge = tails.bound(n, None, t)
        assert 0 < charge < 1 and mpmath.mpf(charge) >= chernoff
