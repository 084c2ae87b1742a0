"""The group-factorisation protocol of the engine.

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
  *injective* on part vectors that differ in a non-suppressed part, and a group whose part is
  :data:`SUPPRESSED` must be indistinguishable from an absent group (``assemble`` gives the same
  output with or without it; in particular ``group_law(0, β)`` is the point mass on
  ``SUPPRESSED``).  The cancellation theorem of :mod:`dps_verify.engine.factorised` relies on
  both, and so does the agreement of the declared law with what ``__call__`` publishes.

Nothing here can check those conditions for arbitrary code, so the declaration is **trusted
only for the project's own mechanisms** (classes defined in :mod:`dps_verify`, e.g.
:class:`~dps_verify.mechanisms.StronglySafeKAnonymizer`).  A user's class that declares the
three methods takes the generic path (which calls the anonymizer on every sample) unless the
caller opts in with ``distribution(..., factorised=True)`` — code under audit is never taken at
its word.

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


def declares_group_protocol(anonymizer: object) -> bool:
    """True if ``anonymizer`` has the three methods of the protocol (and does not opt out with
    ``group_factorised = False``); says nothing about whether the declaration is true."""
    if getattr(anonymizer, "group_factorised", True) is False:
        return False
    return isinstance(anonymizer, GroupFactorisedAnonymizer)


def is_group_factorised(anonymizer: object) -> bool:
    """True if the engine may take the factorised path *by default*: the anonymizer declares
    the protocol and is one of the project's own mechanisms (its class is defined inside the
    ``dps_verify`` package, so the declaration is covered by this project's tests).  A user's
    class, including a subclass of a built-in that might override ``__call__``, is not trusted
    (see the module docstring)."""
    module = type(anonymizer).__module__ or ""
    return (module == "dps_verify" or module.startswith("dps_verify.")) and declares_group_protocol(
        anonymizer
    )


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
    "declares_group_protocol",
    "is_group_factorised",
    "sampled_count_law",
    "thresholded_count_law",
]
