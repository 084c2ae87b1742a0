"""What worstcase/sdgs.py's scan says besides its numbers, and the route it takes: the same
enclosure for a β written with GMP integers as with Python ints, the segment route taken when
the estimate passes a budget below EXACT_SDGS_WORK (same enclosure as the exact walk), the
how-text naming the skipped range of a hockey-stick scan in CP Thm 5's regime, and the k the
value-size refusal suggests (never below 1).  Each case runs in well under a second."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dps_verify.worstcase import sdgs

F = Fraction


@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise", "paper-d"])
def test_beta_with_gmp_terms_gives_the_same_enclosure_as_with_python_ints(measure):
    """β = 1/3 built from gmpy2 integers (as beta_edge's grid builds it): python-flint takes
    Python ints only, so the scan converts it first; the enclosure and maximiser are those of
    Fraction(1, 3)."""
    gmpy2 = pytest.importorskip("gmpy2")
    beta = F(gmpy2.mpz(1), gmpy2.mpz(3))
    assert type(beta.numerator) is not int  # the case under test
    got = sdgs.scan(3, beta, F(1), measure=measure)
    want = sdgs.scan(3, F(1, 3), F(1), measure=measure)
    assert (got.lower, got.upper, got.details["argmax_n"]) == (want.lower, want.upper, want.details["argmax_n"])


def test_beta_with_gmp_terms_reaches_the_segment_route():
    """The hockey-stick segment scan hands β's terms to python-flint balls, which refuse GMP
    integers: the scan's conversion lets a GMP-term β (here 1/2, the route forced by a budget of
    10^5 bit-steps) give the enclosure of Fraction(1, 2) instead of a TypeError."""
    gmpy2 = pytest.importorskip("gmpy2")
    beta = F(gmpy2.mpz(1), gmpy2.mpz(2))
    got = sdgs.scan(200, beta, F(1, 2), measure="hockey-stick", budget=1e5)
    want = sdgs.scan(200, F(1, 2), F(1, 2), measure="hockey-stick", budget=1e5)
    assert got.how.startswith("segments of constant bad set")
    assert (got.lower, got.upper) == (want.lower, want.upper)


def test_an_estimate_past_a_small_budget_takes_the_segment_route_with_the_same_enclosure():
    """The exact measures leave the exact walk for the segment scan once the estimated work
    passes the smaller of the budget and EXACT_SDGS_WORK: with a budget of 10^5 bit-steps
    (estimate about 6.4e5) the answer comes from segments (not a budget refusal) and encloses
    the exact walk's value."""
    k, beta, eps = 200, F(1, 2), F(1, 2)
    assert 1e5 < sdgs._estimate(k, beta, eps, "pointwise", True)["work"] < sdgs.EXACT_SDGS_WORK
    seg = sdgs.scan(k, beta, eps, measure="pointwise", budget=1e5)
    walk = sdgs.scan(k, beta, eps, measure="pointwise")
    assert seg.how.startswith("segments of constant bad set")
    assert walk.how.startswith("exact integer arithmetic")
    assert seg.lower <= walk.upper and walk.lower <= seg.upper
    assert walk.lower == walk.upper and seg.lower <= walk.lower <= seg.upper


def test_hockey_stick_how_text_names_the_skipped_range_below_the_start():
    """In the regime the hockey-stick walk starts at n_m (29 for k = 20, β = 1/10, ε = 1) and
    bounds k ≤ n < n_m without computing them all: the how-text says which sizes were bounded
    and which computed exactly (every certified number says how)."""
    c = sdgs.scan(20, F(1, 10), F(1), measure="hockey-stick")
    assert c.details["n_start"] == 29
    assert "for 20 ≤ n < 27 the value is ≤ β·f(k−1; n−1)" in c.how
    assert "27 ≤ n < 29 computed exactly" in c.how


def test_value_size_refusal_suggests_a_k_of_at_least_one():
    """A value needing more than k·MAX_VALUE_BITS bits would suggest k < 1: the message says
    'about 1 or less', never 0."""
    e = sdgs._value_size_error(1, F(1, 2), F(1), {"value_bits": 2.0 * sdgs.MAX_VALUE_BITS})
    assert "about 1 or less" in str(e)
    e = sdgs._value_size_error(8, F(1, 2), F(1), {"value_bits": 2.0 * sdgs.MAX_VALUE_BITS})
    assert "about 4 or less" in str(e)


def _routes(monkeypatch, n0_estimate: float) -> list[str]:
    """Which route scan takes (pointwise below CP Thm 5's edge, k = 3, β = 1/2, ε = 1/10) when
    its float estimate says the walk would start at ``n0_estimate`` with a tiny amount of work:
    the exact walk and the segment scan are replaced by spies that record their call."""
    from dps_verify.core.numbers import Certified
    from dps_verify.worstcase import long_range

    calls: list[str] = []
    real = sdgs._estimate
    done = Certified(lower=F(0), upper=F(0), how="spy", details={})

    def estimate(*args):
        return {**real(*args), "n0": n0_estimate, "work": 1.0}

    def walk(*args):
        calls.append("exact walk")
        return done

    def segments(*args, **kwargs):
        calls.append("segments")
        return done

    monkeypatch.setattr(sdgs, "_estimate", estimate)
    monkeypatch.setattr(sdgs, "_scan_from", walk)
    monkeypatch.setattr(long_range, "sdgs_by_segments", segments)
    return calls


@pytest.mark.parametrize("long_range_paths", [True, False])
def test_a_start_estimate_of_exactly_a_billion_still_takes_the_exact_walk(monkeypatch, long_range_paths):
    """The exact walk is left for group sizes past 10^9 (segment route, or a budget refusal
    without the long-range paths): an estimated start of exactly 1e9 is not past it, the next
    double above is."""
    import math

    from dps_verify.core.errors import CertificationError

    k, beta, eps = 3, F(1, 2), F(1, 10)
    calls = _routes(monkeypatch, 1e9)
    sdgs.scan(k, beta, eps, measure="pointwise", long_range=long_range_paths)
    assert calls == ["exact walk"]
    calls = _routes(monkeypatch, math.nextafter(1e9, math.inf))
    if long_range_paths:
        sdgs.scan(k, beta, eps, measure="pointwise")
        assert calls == ["segments"]
    else:
        with pytest.raises(CertificationError):
            sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
        assert calls == []
