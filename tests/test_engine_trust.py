"""The factorised engine path trusts a group-structure declaration only for the project's own
mechanisms (otherwise a user's class could declare a law its ``__call__`` does not have).

The soundness condition is in :mod:`dps_verify.engine.protocol`.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import dps_verify.mechanisms as M
from dps_verify.engine.distribution import distribution
from dps_verify.engine.protocol import (
    declares_group_protocol,
    is_group_factorised,
    thresholded_count_law,
)
from dps_verify.measures.divergence import delta_certified


class ListsEveryGroup:
    """Declares the protocol, but its assemble lists groups whose part is suppressed, while
    ``__call__`` (the code that would really run) lists only groups present in the sample."""

    def group_key(self, r):
        return r

    def group_law(self, size, beta):
        return thresholded_count_law(size, beta, 2)

    def assemble(self, parts):
        return tuple(sorted(parts.items(), key=repr))

    def __call__(self, s):
        c = Counter(s)
        return tuple(sorted(((g, n if n >= 2 else None) for g, n in c.items()), key=repr))


class CountsPublished:
    """Declares a non-injective assemble (only how many groups were published)."""

    def group_key(self, r):
        return r

    def group_law(self, size, beta):
        return thresholded_count_law(size, beta, 1)

    def assemble(self, parts):
        return sum(1 for p in parts.values() if p is not None)

    def __call__(self, s):
        return len(set(s))


def test_builtin_mechanism_is_trusted_by_default():
    A = M.StronglySafeKAnonymizer(lambda r: r, 2)
    assert declares_group_protocol(A) and is_group_factorised(A)


def test_user_declaration_is_not_trusted_by_default():
    for A in (ListsEveryGroup(), CountsPublished()):
        assert declares_group_protocol(A)
        assert not is_group_factorised(A)


def test_user_subclass_of_builtin_is_not_trusted():
    class Sub(M.StronglySafeKAnonymizer):
        pass

    A = Sub(lambda r: r, 2)
    assert declares_group_protocol(A) and not is_group_factorised(A)


def test_default_path_measures_what_the_code_does():
    # The generic path calls __call__: the true law of ['x'] at β = 1/2 is () w.p. 1/2 and
    # (('x', None),) w.p. 1/2 — δ(ε = 0) = 1/2.
    A = ListsEveryGroup()
    P = distribution(A, ["x"], F(1, 2)).exact
    Q = distribution(A, [], F(1, 2)).exact
    assert P == {(): F(1, 2), (("x", None),): F(1, 2)}
    assert delta_certified(P, Q, 0).upper == F(1, 2)
    # Negative control: taking the declaration at its word gives a different (wrong) law.
    Pd = distribution(A, ["x"], F(1, 2), factorised=True).exact
    assert Pd != P


def test_non_injective_declaration_does_not_change_default_answer():
    A = CountsPublished()
    D, D2 = ["x", "y"], ["x"]
    P = distribution(A, D, F(1, 2)).exact
    Q = distribution(A, D2, F(1, 2)).exact
    # Brute force over the 4 samples of D and 2 of D2, by hand.
    assert P == {0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}
    assert Q == {0: F(1, 2), 1: F(1, 2)}
