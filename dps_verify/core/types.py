"""Shared vocabularies and the anonymizer protocol.

Every enum here is a :class:`enum.StrEnum`: its members *are* strings, so code and user input
that compare against the literal spellings (``definition == "pointwise"``, a JSON report's
``"CONFIRMED"``) keep working, while new code can name the member (``Definition.POINTWISE``).

- :class:`Definition` — which (ε, δ)-DP definition a δ refers to: the hockey-stick form of CP
  Def. 2 (the default everywhere) or the pointwise form of TR Def. 2.
- :class:`Neighbouring` — the neighbouring relation (CP §2.1: add or remove one record of a
  multiset); ``REPLACE_ONE`` is offered by the testing API as an extension, not by the paper.
- :class:`Bound` — which δ bound a question is asked about: CP Thm 5's closed form ``d`` or the
  exact worst case under one of the two definitions.
- :class:`ClaimVerdict`, :class:`ProofVerdict`, :class:`AuditVerdict` — the three verdict
  vocabularies (``dps-verify paper``, ``dps-verify prove``, ``dps-verify audit``).
- :class:`Anonymizer` / :class:`RandomizedAnonymizer` — what
  :func:`dps_verify.engine.distribution` accepts (CP Def. 3's "sample, then anonymize").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from enum import StrEnum
from fractions import Fraction
from typing import Protocol, TypeAlias, runtime_checkable

__all__ = [
    "Anonymizer",
    "AnonymizerLike",
    "AuditVerdict",
    "Bound",
    "ClaimVerdict",
    "CountsAnonymizer",
    "Definition",
    "GroupedAnonymizer",
    "Neighbouring",
    "ProofVerdict",
    "RandomizedAnonymizer",
    "Sample",
]


class Definition(StrEnum):
    """The (ε, δ)-DP definition a δ is measured under."""

    #: CP Def. 2: Pr[A(D) ∈ S] ≤ e^ε Pr[A(D') ∈ S] + δ for every set S (the hockey-stick
    #: divergence of the two output laws).  The default everywhere.
    HOCKEY_STICK = "hockey-stick"
    #: TR Def. 2: the outputs whose likelihood ratio exceeds e^ε have total mass ≤ δ.
    POINTWISE = "pointwise"


class Neighbouring(StrEnum):
    """Neighbouring relation between datasets."""

    #: CP §2.1: D' is D with one record added or removed (datasets are multisets).
    ADD_REMOVE = "add-remove"
    #: One record replaced by another (an extension offered by :mod:`dps_verify.testing`).
    REPLACE_ONE = "replace-one"


class Bound(StrEnum):
    """Which δ an inverse question (``min_k``, ``min_epsilon``, ``max_beta``) is about."""

    #: CP Thm 5's closed form d(k, β, ε).
    PAPER = "paper"
    #: Exact worst case of sampled strongly-safe k-anonymization under CP Def. 2.
    HOCKEY_STICK = "hockey-stick"
    #: Exact worst case under TR Def. 2.
    POINTWISE = "pointwise"


class ClaimVerdict(StrEnum):
    """Verdict of one claim of the paper (``dps-verify paper``)."""

    CONFIRMED = "CONFIRMED"
    REFUTED = "REFUTED"
    CORRECTED = "CONFIRMED-WITH-CORRECTION"
    NOT_MACHINE_CHECKABLE = "NOT-MACHINE-CHECKABLE"


class ProofVerdict(StrEnum):
    """Verdict of one proof step or a whole theorem (``dps-verify prove``)."""

    PROVED = "PROVED"
    #: every instance in a stated finite range was checked exactly -- not a proof.
    BOUNDED = "CHECKED-BOUNDED"
    REFUTED = "REFUTED"
    OPEN = "OPEN"
    #: the proof machinery failed: vacuous hypotheses or two solvers contradicting each other.
    ERROR = "ERROR"


class AuditVerdict(StrEnum):
    """Verdict of an audit of a claimed (β, ε, δ) (``dps-verify audit``)."""

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"


#: The kept records handed to an anonymizer (grouped in order of first appearance).
Sample: TypeAlias = tuple[Hashable, ...]


@runtime_checkable
class Anonymizer(Protocol):
    """A deterministic anonymizer: the sample of kept records → a hashable output.

    Two optional attributes let :func:`dps_verify.engine.distribution` work faster; a plain
    function has neither and is still an ``Anonymizer``:

    - ``sufficient_statistic``: a record → key map such that the output depends only on the
      multiset of keys (e.g. a data-independent recoding, CP Def. 5), or ``None``;
    - ``from_counts``: ``{key: count} → output``, the output computed from the key counts
      alone (see :class:`CountsAnonymizer`).
    """

    def __call__(self, sample: Sample, /) -> Hashable: ...


@runtime_checkable
class GroupedAnonymizer(Anonymizer, Protocol):
    """An :class:`Anonymizer` whose output depends only on the multiset of keys of its records."""

    sufficient_statistic: Callable[[Hashable], Hashable] | None


@runtime_checkable
class CountsAnonymizer(GroupedAnonymizer, Protocol):
    """A :class:`GroupedAnonymizer` that can compute its output from the per-key counts."""

    def from_counts(self, counts: dict[Hashable, int], /) -> Hashable: ...


@runtime_checkable
class RandomizedAnonymizer(Protocol):
    """A randomized anonymizer (built with :class:`dps_verify.engine.distribution.randomized`):
    ``law(sample)`` is its exact output law ``{output: probability}``."""

    def law(self, sample: Sample, /) -> Mapping[Hashable, Fraction]: ...


#: Everything :func:`dps_verify.engine.distribution` accepts.
AnonymizerLike: TypeAlias = Anonymizer | RandomizedAnonymizer
