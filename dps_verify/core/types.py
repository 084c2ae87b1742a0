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
- :class:`AuditMethod` — how ``audit`` decides: closed form / exact search / Monte Carlo.
- :class:`Claim` — one claimed (β, ε, δ)-DPS guarantee (CP Def. 3) under one definition, validated
  when built; ``audit``, ``assert_dp`` and the searches take it instead of four loose arguments.
- :class:`Anonymizer` / :class:`RandomizedAnonymizer` — what
  :func:`dps_verify.engine.distribution` accepts (CP Def. 3's "sample, then anonymize").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Literal, Protocol, TypeAlias, cast, runtime_checkable

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number
from dps_verify.core.params import beta_param, delta_param, epsilon_param

__all__ = [
    "Anonymizer",
    "AnonymizerLike",
    "AuditMethod",
    "AuditVerdict",
    "Bound",
    "BoundLike",
    "Claim",
    "ClaimVerdict",
    "CountsAnonymizer",
    "Definition",
    "DefinitionLike",
    "GroupedAnonymizer",
    "Neighbouring",
    "NeighbouringLike",
    "ProofVerdict",
    "RandomizedAnonymizer",
    "Sample",
    "WorstCaseMeasure",
    "WorstCaseMeasureLike",
]


class Definition(StrEnum):
    """The (ε, δ)-DP definition a δ is measured under."""

    #: CP Def. 2: Pr[A(D) ∈ S] ≤ e^ε Pr[A(D') ∈ S] + δ for every set S (the hockey-stick
    #: divergence of the two output laws).  The default everywhere.
    HOCKEY_STICK = "hockey-stick"
    #: TR Def. 2: the outputs whose likelihood ratio exceeds e^ε have total mass ≤ δ.
    POINTWISE = "pointwise"


#: A :class:`Definition` or its spelling (what a public function's ``definition=`` accepts).
DefinitionLike: TypeAlias = Definition | Literal["hockey-stick", "pointwise"]


class Neighbouring(StrEnum):
    """Neighbouring relation between datasets."""

    #: CP §2.1: D' is D with one record added or removed (datasets are multisets).
    ADD_REMOVE = "add-remove"
    #: One record replaced by another (an extension offered by :mod:`dps_verify.testing`).
    REPLACE_ONE = "replace-one"


#: A :class:`Neighbouring` relation or its spelling.
NeighbouringLike: TypeAlias = Neighbouring | Literal["add-remove", "replace-one"]


class Bound(StrEnum):
    """Which δ an inverse question (``min_k``, ``min_epsilon``, ``max_beta``) is about."""

    #: CP Thm 5's closed form d(k, β, ε).
    PAPER = "paper"
    #: Exact worst case of sampled strongly-safe k-anonymization under CP Def. 2.
    HOCKEY_STICK = "hockey-stick"
    #: Exact worst case under TR Def. 2.
    POINTWISE = "pointwise"


#: A :class:`Bound` or its spelling (what an inverse question's ``bound=`` accepts).
BoundLike: TypeAlias = Bound | Literal["paper", "hockey-stick", "pointwise"]


class WorstCaseMeasure(StrEnum):
    """Which δ the worst-case scan of sampled strongly-safe k-anonymization computes
    (:mod:`dps_verify.worstcase.sdgs`)."""

    #: CP Thm 5's closed form d(k, β, ε) (its sum over group sizes).
    PAPER_D = "paper-d"
    #: the exact worst case under CP Def. 2.
    HOCKEY_STICK = "hockey-stick"
    #: the exact worst case under TR Def. 2.
    POINTWISE = "pointwise"


#: A :class:`WorstCaseMeasure` or its spelling (a :class:`Definition` is one too).
WorstCaseMeasureLike: TypeAlias = (
    WorstCaseMeasure | Definition | Literal["paper-d", "hockey-stick", "pointwise"])


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


class AuditMethod(StrEnum):
    """How ``audit`` decides a claim."""

    #: the closed form when the mechanism is recognised, else exact, else statistical
    AUTO = "auto"
    #: exact count-vector enumeration of every candidate dataset within the budget
    EXACT = "exact"
    #: Monte Carlo select-then-confirm with Clopper–Pearson bounds (can refute, not confirm)
    STATISTICAL = "statistical"


def _choice(enum: type[StrEnum], value: object, name: str) -> StrEnum:
    """``value`` as a member of ``enum`` (members are strings, so the spelling is accepted)."""
    if isinstance(value, str):
        try:
            return enum(value)
        except ValueError:
            pass
    raise ParameterError(f"{name} must be one of {tuple(m.value for m in enum)}, got {value!r}")


def definition_param(definition: object) -> Definition:
    """``definition`` as a :class:`Definition` (``"hockey-stick"`` = CP Def. 2, ``"pointwise"`` =
    TR Def. 2); anything else raises :class:`ParameterError`."""
    return Definition(_choice(Definition, definition, "definition"))


def bound_param(bound: object) -> Bound:
    """``bound`` as a :class:`Bound` (``"paper"`` = CP Thm 5's d, ``"hockey-stick"`` /
    ``"pointwise"`` = the exact worst case); anything else raises :class:`ParameterError`."""
    return Bound(_choice(Bound, bound, "bound"))


def method_param(method: object) -> AuditMethod:
    """``method`` as an :class:`AuditMethod`; anything else raises :class:`ParameterError`."""
    return AuditMethod(_choice(AuditMethod, method, "method"))


@dataclass(frozen=True)
class Claim:
    """A claimed guarantee: "sampling at rate β, then the anonymizer, is (ε, δ)-DP" (CP Def. 3)
    under ``definition`` (CP Def. 2's hockey-stick form by default, or TR Def. 2's pointwise
    form).

    Validated and read exactly when built: 0 < β ≤ 1 (β = 1 is a pipeline that samples by
    itself), ε ≥ 0 (a decimal, ``p/q`` or ``"ln(x)"``, see
    :func:`~dps_verify.core.params.epsilon_param`), 0 ≤ δ ≤ 1; floats are read by their shortest
    decimal repr, so ``0.1`` means 1/10.  A bad value raises :class:`ParameterError` naming it.
    The fields hold the exact values (``Claim(0.1, 1, 1e-6).beta == Fraction(1, 10)``).
    """

    beta: Fraction
    epsilon: Fraction
    delta: Fraction
    definition: Definition = Definition.HOCKEY_STICK

    def __post_init__(self) -> None:
        try:
            values = (beta_param(self.beta, allow_one=True), epsilon_param(self.epsilon),
                      delta_param(self.delta))
        except ParameterError:
            raise
        except (ValueError, TypeError) as exc:
            raise ParameterError(str(exc)) from None
        for name, value in zip(("beta", "epsilon", "delta"), values, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "definition", definition_param(self.definition))

    @classmethod
    def of(cls, claim: Claim | None = None, *, beta: Number | None = None,
           epsilon: Number | None = None, delta: Number | None = None,
           definition: Definition | str | None = None) -> Claim:
        """The claim of a call that takes either a :class:`Claim` or the loose keyword arguments
        ``beta``, ``epsilon``, ``delta`` (and ``definition``, default hockey-stick); both at
        once, or a missing value, is a :class:`ParameterError`."""
        loose = {"beta": beta, "epsilon": epsilon, "delta": delta, "definition": definition}
        given = [name for name, v in loose.items() if v is not None]
        if claim is not None:
            if not isinstance(claim, Claim):
                raise ParameterError(f"claim must be a Claim(beta, epsilon, delta, definition), "
                                     f"got {type(claim).__name__}")
            if given:
                raise ParameterError(f"pass either claim= or {', '.join(given)}=, not both")
            return claim
        missing = [name for name in ("beta", "epsilon", "delta") if loose[name] is None]
        if missing:
            raise ParameterError(f"missing {', '.join(missing)}: pass claim=Claim(beta, epsilon, "
                                 "delta) or all three keyword arguments")
        assert beta is not None and epsilon is not None and delta is not None
        return cls(cast(Fraction, beta), cast(Fraction, epsilon), cast(Fraction, delta),
                   Definition.HOCKEY_STICK if definition is None else definition_param(definition))

    def describe(self) -> str:
        """One line: ``beta = 1/10, epsilon = 1, delta = 1e-06, definition = hockey-stick``."""
        return (f"beta = {self.beta}, epsilon = {self.epsilon}, delta = {float(self.delta):.6g}, "
                f"definition = {self.definition}")


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
