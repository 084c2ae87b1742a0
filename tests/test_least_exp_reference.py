"""The least e^eps >= 1 of a hockey-stick delta (measures.divergence.least_exp_for_delta)
against the definition, delta(x) = inf_mass + sum over segments of max(0, a - x*b), with
segments of every ratio, including ratios at or below 1 (which add nothing for x >= 1)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

from dps_verify.measures.divergence import least_exp_for_delta


def _delta(segments, inf_mass: F, x: F) -> F:
    return inf_mass + sum((max(F(0), a - x * b) for _r, a, b in segments), F(0))


def _check(segments, inf_mass: F, d: F) -> None:
    got = least_exp_for_delta(segments, inf_mass, d)
    if inf_mass > d:
        assert got is None
        return
    assert got is not None and got >= 1
    assert _delta(segments, inf_mass, got) <= d
    if got > 1:  # delta is continuous and strictly decreasing just below a positive answer
        assert _delta(segments, inf_mass, got) == d
        assert _delta(segments, inf_mass, got - F(1, 10**9)) > d


def test_a_segment_with_ratio_below_one_never_moves_the_answer_below_one() -> None:
    segments = [(F(3), F(3, 4), F(1, 4)), (F(1, 2), F(1, 8), F(1, 4))]
    assert least_exp_for_delta(segments, F(0), F(3, 5)) == 1  # delta(1) = 1/2 <= 3/5
    assert least_exp_for_delta(segments, F(0), F(1, 4)) == 2  # 3/4 - 2/4 = 1/4
    _check(segments, F(0), F(3, 5))


def test_least_exp_matches_the_definition_on_every_small_case() -> None:
    masses = [F(1, 8), F(1, 4), F(3, 8)]
    pairs = [(a, b) for a in masses for b in masses]
    for chosen in itertools.combinations(pairs, 2):
        segments = [(a / b, a, b) for a, b in chosen]
        for inf_mass in (F(0), F(1, 16)):
            for d in (F(0), F(1, 32), F(1, 8), F(1, 4), F(1, 2)):
                _check(segments, inf_mass, d)
