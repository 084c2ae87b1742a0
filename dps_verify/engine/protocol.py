"""The group-factorisation protocol of the engine (issue #15 item 1).

Sampling keeps every record independently (CP Def. 3).  If an anonymizer first sorts records
into groups by a *data-independent* key (a fixed recoding, CP Def. 5) and then decides each
group's part of the output from that group's sampled records alone (CP §3.2's Apply step: a
generalized value is published with its count, or suppressed below the threshold), the
output law is the product of per-group laws.  A mechanism declares this by providing:

- ``group_key(record) -> key`` — the data-independent recoding that defines the groups;
- ``group_law(size, beta) -> {part: probability}`` — the exact law of one group's part of the
  output when the group holds ``size`` records and each is kept with probability β.  It must
  not depend on the key, so the engine computes it once per distinct size;
- ``assemble(parts) -> output`` — the output from ``{key: part}`` for every group.  It must be
  *injective* (different part vectors give different outputs); the cancellation theorem of
  :mod:`dps_verify.engine.factorised` relies on it.

A group that can never reach the threshold simply has a one-point ``group_law``.  This protocol
is deliberately minimal and structural: any object with these three methods qualifies; H8's
``Anonymizer`` protocols in :mod:`dps_verify.core.types` are unaffected.  An arbitrary
black-box function keeps the generic count-vector path of
:func:`dps_verify.engine.distribution.distribution`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Protocol, runtime_checkable

#: The part of a group that is published as nothing (suppressed, or never sampled).
SUPPRESSED = None


@runtime_checkable
class GroupFactorisedAnonymizer(Protocol):
    """An anonymizer whose output law is a product over independent groups (see module doc)."""

    def group_key(self, record: Hashable, /) -> Hashable: ...

    def group_law(self, size: int, beta: Fraction, /) -> Mapping[Hashable, Fraction]: ...

    def assemble(self, parts: Mapping[Hashable, Hashable], /) -> Hashable: ...


def is_group_factorised(anonymizer: object) -> bool:
    """True if ``anonymizer`` declares the group-factorisation protocol (and does not opt out
    with ``group_factorised = False``)."""
    if getattr(anonymizer, "group_factorised", True) is False:
        return False
    return isinstance(anonymizer, GroupFactorisedAnonymizer)


@lru_cache(maxsize=1024)
def sampled_count_law(size: int, beta: Fraction) -> tuple[Fraction, ...]:
    """Exact law of the number of kept records out of ``size`` (Binomial(size, β), CP Def. 3):
    entry s is C(size, s) β^s (1 − β)^(size − s)."""
    p, q = beta.numerator, beta.denominator
    den = q**size
    return tuple(
        Fraction(comb(size, s) * p**s * (q - p) ** (size - s), den) for s in range(size + 1)
    )


def thresholded_count_law(size: int, beta: Fraction, threshold: int) -> dict[Hashable, Fraction]:
    """Law of one group's part under CP §3.2's Apply step: the sampled count s if s ≥
    ``threshold``, else :data:`SUPPRESSED`.  A group with ``size < threshold`` is a point mass."""
    law: dict[Hashable, Fraction] = {}
    for s, pr in enumerate(sampled_count_law(size, beta)):
        if pr == 0:
            continue
        part = s if s >= threshold else SUPPRESSED
        law[part] = law.get(part, Fraction(0)) + pr
    return law


__all__ = [
    "SUPPRESSED",
    "GroupFactorisedAnonymizer",
    "is_group_factorised",
    "sampled_count_law",
    "thresholded_count_law",
]
