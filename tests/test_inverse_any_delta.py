"""Inverse questions (min k, max β) at targets δ far below the float range and at huge k:
the float screens work in log space, so the certified search starts next to the answer; the
answers are checked against independent certified evaluations on both sides.

No timing assertions: the number of full certified scans is the work measure (the search
without a start galloped from k = 1, about 40 scans at k ≈ 10^6)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dps_verify.inverse.questions as questions
import dps_verify.worstcase.sdgs as sdgs
from dps_verify.core.params import beta_edge
from dps_verify.inverse.questions import log_fraction, max_beta, min_k
from dps_verify.worstcase.closed_forms import d_certified
from dps_verify.worstcase.sdgs import scan_segments_for_test, sdgs_delta_certified

TINY = Fraction(1, 10**100000)  # δ = 1e-100000: 0.0 as a float


@pytest.fixture
def scans(monkeypatch):
    """Counts full certified scans (the costly step of every inverse question)."""
    count = {"n": 0}
    scan = sdgs.scan

    def counted(*args, **kwargs):
        count["n"] += 1
        return scan(*args, **kwargs)

    monkeypatch.setattr(sdgs, "scan", counted)
    monkeypatch.setattr(questions, "scan", counted)
    return count


def _delta(bound: str, k: int, beta: str, eps: int) -> Fraction:
    if bound == "paper":
        return d_certified(k, beta, eps).upper
    return sdgs_delta_certified(k, beta, eps, bound).upper


@pytest.mark.parametrize("bound", ["paper", "hockey-stick", "pointwise"])
def test_min_k_at_delta_below_the_float_range_starts_next_to_the_answer(scans, bound):
    k = min_k("0.1", 1, TINY, bound=bound)
    assert scans["n"] <= 8  # a start from k = 1 needs ~36
    # certified on both sides, by evaluations independent of the search
    assert _delta(bound, k, "0.1", 1) <= TINY
    below = d_certified(k - 1, "0.1", 1) if bound == "paper" else sdgs_delta_certified(k - 1, "0.1", 1, bound)
    assert below.lower > TINY


def test_log_fraction_at_any_size():
    assert log_fraction(Fraction(1, 2)) == pytest.approx(-0.6931471805599453)
    assert log_fraction(TINY) == pytest.approx(-100000 * 2.302585092994046, rel=1e-12)
    assert log_fraction(Fraction(3, 10**400)) == pytest.approx(1.0986122886681098 - 400 * 2.302585092994046, rel=1e-12)


def test_segment_path_takes_a_beta_built_from_gmp_integers():
    """beta_edge's grid gives a Fraction of GMP integers; the segment path (huge k, tiny δ in
    max_beta) passed it to python-flint, which takes Python ints only (TypeError)."""
    b = beta_edge(Fraction(1), grid_bits=48)
    r = scan_segments_for_test(20, b, Fraction(1), "hockey-stick")
    plain = Fraction(int(b.numerator), int(b.denominator))
    ref = sdgs.scan(20, plain, Fraction(1), measure="hockey-stick", long_range=False)
    assert r.lower <= ref.upper and ref.lower <= r.upper


def test_max_beta_hockey_stick_at_huge_k_and_tiny_delta():
    b = max_beta(10**5, 1, Fraction(1, 10**60000), bound="hockey-stick")
    assert 0.1 < float(b) < 0.11
    man, exp = b.man_exp
    assert sdgs_delta_certified(10**5, Fraction(int(man)) * Fraction(2) ** int(exp), 1, "hockey-stick").upper <= Fraction(
        1, 10**60000
    )
