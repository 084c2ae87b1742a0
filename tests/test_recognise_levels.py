"""Recognition enumerates each sample size's count vectors in one fixed order (the order of
itertools.combinations_with_replacement over the atoms), whichever way it builds them: the same
samples are anonymized in the same order, so the same spot checks and the same first fault."""

from __future__ import annotations

import itertools

import pytest

from dps_verify.verdict.recognise import _level, _level_by_counts


def _reference(m: int, n: int) -> list[list[int]]:
    out = []
    for combo in itertools.combinations_with_replacement(range(m), n):
        c = [0] * m
        for i in combo:
            c[i] += 1
        out.append(c)
    return out


@pytest.mark.parametrize("m", range(0, 7))
def test_each_level_is_every_count_vector_in_the_reference_order(m: int) -> None:
    for n in range(0, 13):
        ref = _reference(m, n)
        assert list(_level(m, n)) == ref, (m, n)
        assert list(_level_by_counts(m, n)) == ref, (m, n)  # both routes, whichever _level takes


def test_the_order_is_not_just_the_set() -> None:
    """Negative control: the reversed level holds the same vectors in another order."""
    ref = _reference(3, 4)
    assert sorted(ref) == sorted(reversed(ref)) and list(reversed(ref)) != list(_level(3, 4))
