"""Output laws that factorise over independent groups, and the neighbouring-pair fast path.

For an anonymizer declaring :class:`~dps_verify.engine.protocol.GroupFactorisedAnonymizer`
(strongly-safe k-anonymization, CP Def. 5 with CP §3.2's Apply step), sampling is independent
per record (CP Def. 3), so the output law is the product of per-group laws.  :class:`ProductLaw`
keeps that product *unexpanded*: one law per distinct group size, shared by every group of
that size.  Expanding it (:meth:`ProductLaw.to_distribution`) costs the size of the joint output
space Π|law_g|, which grows exponentially with the number of groups; privacy measures of a
neighbouring pair never need it:

**Cancellation theorem.**  Let D, D' differ in one record r (CP §2.1) and let g be r's group.
Every other group holds the same records in D and D', hence has the same law.  Write an output
as y = assemble(a, b) with a the part of group g and b the parts of the others; assemble is
injective, so P(y) = L(a)·R(b) and Q(y) = L'(a)·R(b) with L, L' the laws of group g under D,
D' and R the common law of the rest (outputs not of this form have P = Q = 0).  Then

- hockey-stick (CP Def. 2): Σ_y max(0, P(y) − e^ε Q(y)) = Σ_b R(b) Σ_a max(0, L(a) − e^ε L'(a))
  = Σ_a max(0, L(a) − e^ε L'(a)), since Σ_b R(b) = 1; the same holds for the other direction;
- pointwise (TR Def. 2): for R(b) > 0, |ln P(y)/Q(y)| = |ln L(a)/L'(a)|, so the set of outputs
  whose loss exceeds ε is {(a, b) : a ∈ B_g, R(b) > 0} with B_g the group's bad set, and its
  P-mass is L(B_g)·1 (its Q-mass L'(B_g)); outputs with R(b) = 0 carry no mass;
- more generally the privacy loss of y is ln L(a)/L'(a), so the privacy-loss distribution (and
  hence every composition of fresh-sample releases, CP §2.7) equals that of the group pair.

So δ(D, D') of either definition equals δ(L, L'), computed in time independent of the other
groups.  :func:`neighbour_group_laws` returns (L, L'); when several groups differ it refuses
(the datasets are not neighbours), and :func:`differing_group_laws` lists every differing pair
(the divergence of a product of independent pairs is the composition of their PLDs).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm, prod

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Number
from dps_verify.core.params import beta_param
from dps_verify.engine.protocol import GroupFactorisedAnonymizer, declares_group_protocol

#: Default budget on expanded terms (joint outputs or count vectors) for one distribution.
DEFAULT_MAX_TERMS = 2_000_000


@dataclass(frozen=True)
class ProductLaw:
    """The output law of a group-factorised anonymizer as an unexpanded product.

    ``sizes`` maps each group key (in order of first appearance) to its number of records;
    ``laws_by_size`` maps each distinct size to that group's exact part law.
    """

    anonymizer: GroupFactorisedAnonymizer
    beta: Fraction
    sizes: dict[Hashable, int]
    laws_by_size: dict[int, dict[Hashable, Fraction]]

    def law_of(self, key: Hashable) -> dict[Hashable, Fraction]:
        """Part law of the group ``key`` (a group absent from the dataset has size 0)."""
        size = self.sizes.get(key, 0)
        if size not in self.laws_by_size:
            self.laws_by_size[size] = checked_group_law(self.anonymizer, size, self.beta)
        return self.laws_by_size[size]

    def joint_size(self) -> int:
        """Number of joint outputs Π|law_g| (the cost of :meth:`to_distribution`)."""
        return prod(len(self.law_of(key)) for key in self.sizes)

    def to_distribution(self, max_terms: int = DEFAULT_MAX_TERMS) -> dict[Hashable, Fraction]:
        """The expanded exact law ``{output: probability}``.

        Raises :class:`CertificationError` if it has more than ``max_terms`` joint outputs;
        for privacy measures of neighbouring datasets use :func:`neighbour_group_laws`.
        """
        n = self.joint_size()
        if n > max_terms:
            raise CertificationError(
                f"the expanded output law has {n} joint outputs (product of {len(self.sizes)} "
                f"group laws), over max_terms = {max_terms}; raise max_terms, or measure a "
                "neighbouring pair with engine.factorised.neighbour_group_laws, which needs "
                "only the differing group (the other groups cancel, CP App. A.2)"
            )
        keys = list(self.sizes)
        return expand_product([self.law_of(key) for key in keys],
                              lambda parts: self.anonymizer.assemble(dict(zip(keys, parts))))


def group_sizes(anonymizer: GroupFactorisedAnonymizer, dataset: Sequence[Hashable]) -> dict:
    """Records per group key, in order of first appearance (one ``group_key`` call per record)."""
    sizes: dict[Hashable, int] = {}
    try:
        for rec in dataset:
            key = anonymizer.group_key(rec)
            sizes[key] = sizes.get(key, 0) + 1
    except TypeError as exc:
        raise ParameterError(f"dataset records and their group keys must be hashable: {exc}") from None
    return sizes


def expand_product(laws: Sequence[Mapping[Hashable, Fraction]],
                   assemble: Callable[[tuple], Hashable]) -> dict[Hashable, Fraction]:
    """The product of independent part laws, each combination of parts mapped to an output by
    ``assemble`` (outputs that coincide add up).  Exact: integer weights over one common
    denominator per group, one Fraction per output.  The caller estimates the work first."""
    items, den = [], 1
    for law in laws:
        d = lcm(*(v.denominator for v in law.values()))
        den *= d
        items.append([(part, v.numerator * (d // v.denominator)) for part, v in law.items()])
    acc: dict[Hashable, int] = {}
    for combo in itertools.product(*items):
        w = 1
        for _part, wg in combo:
            w *= wg
        y = assemble(tuple(part for part, _ in combo))
        acc[y] = acc.get(y, 0) + w
    return {y: Fraction(w, den) for y, w in acc.items()}


def checked_group_law(anonymizer: GroupFactorisedAnonymizer, size: int, beta: Fraction) -> dict:
    """The exact law of one group of ``size`` records (``group_law``), validated: entries ≥ 0,
    total 1 (the one check of a group law, for the factorised engine and the product law)."""
    law = {part: Fraction(pr) for part, pr in anonymizer.group_law(size, beta).items() if pr}
    if any(v < 0 for v in law.values()) or sum(law.values()) != 1:
        raise ValueError(
            f"group_law({size}, {beta}) of {anonymizer!r} is not a probability law "
            "(negative entries or total != 1)"
        )
    return law


def product_law(
    anonymizer: GroupFactorisedAnonymizer, dataset: Sequence[Hashable], beta: Number
) -> ProductLaw:
    """The unexpanded product law of a group-factorised anonymizer on ``dataset`` (CP Def. 3).

    Costs one ``group_key`` call per record and one ``group_law`` per distinct group size.
    """
    if not declares_group_protocol(anonymizer):
        raise ParameterError(
            f"{anonymizer!r} does not declare group_key/group_law/assemble "
            "(engine.protocol.GroupFactorisedAnonymizer)"
        )
    b = beta_param(beta, allow_one=True)
    sizes = group_sizes(anonymizer, dataset)
    laws = {size: checked_group_law(anonymizer, size, b) for size in sorted(set(sizes.values()))}
    return ProductLaw(anonymizer, b, sizes, laws)


def differing_group_laws(
    P: ProductLaw, Q: ProductLaw
) -> list[tuple[Hashable, dict[Hashable, Fraction], dict[Hashable, Fraction]]]:
    """Every group whose part law differs between ``P`` and ``Q``: (key, law under P, law
    under Q).  Groups missing on one side have size 0 there."""
    if P.anonymizer is not Q.anonymizer or P.beta != Q.beta:
        raise ParameterError("both product laws must come from one anonymizer and one beta")
    out = []
    for key in dict.fromkeys([*P.sizes, *Q.sizes]):
        lp, lq = P.law_of(key), Q.law_of(key)
        if lp != lq:
            out.append((key, lp, lq))
    return out


def neighbour_group_laws(
    anonymizer: GroupFactorisedAnonymizer,
    dataset: Sequence[Hashable],
    neighbour: Sequence[Hashable],
    beta: Number,
) -> tuple[dict[Hashable, Fraction], dict[Hashable, Fraction]]:
    """Part laws (L, L') of the one group in which ``dataset`` and ``neighbour`` differ.

    By the cancellation theorem (module docstring) every hockey-stick δ, pointwise δ, ε and
    privacy-loss distribution of (L, L') equals that of the full output laws of ``dataset`` and
    ``neighbour``.  If no group law differs, returns two equal point masses (δ = 0).  Raises
    :class:`ParameterError` if the two datasets are not add/remove neighbours (CP §2.1).
    """
    a, b = list(dataset), list(neighbour)
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    if len(big) != len(small) + 1 or not _is_sub_multiset(small, big):
        raise ParameterError(
            "dataset and neighbour must differ by adding or removing one record (CP §2.1)"
        )
    P, Q = product_law(anonymizer, a, beta), product_law(anonymizer, b, beta)
    diff = differing_group_laws(P, Q)
    if not diff:
        return {None: Fraction(1)}, {None: Fraction(1)}
    assert len(diff) == 1, "neighbouring datasets differ in one group"
    _key, lp, lq = diff[0]
    return lp, lq


def _is_sub_multiset(small: list, big: list) -> bool:
    from collections import Counter

    cs, cb = Counter(small), Counter(big)
    return all(cb[x] >= c for x, c in cs.items())


def count_vector_terms(multiplicities: Sequence[int]) -> int:
    """Work of the generic count-vector enumeration: Π(c_i + 1)."""
    return prod(c + 1 for c in multiplicities)


def check_budget(terms: int, max_terms: int, what: str) -> None:
    """Raise :class:`CertificationError` if ``terms`` exceeds ``max_terms``."""
    if terms > max_terms:
        raise CertificationError(
            f"{what} needs {terms} terms, over max_terms = {max_terms} (the work budget of "
            "engine.distribution); raise max_terms, or declare the anonymizer's group "
            "structure (engine.protocol.GroupFactorisedAnonymizer) to use the factorised path"
        )


__all__ = [
    "DEFAULT_MAX_TERMS",
    "ProductLaw",
    "check_budget",
    "count_vector_terms",
    "differing_group_laws",
    "neighbour_group_laws",
    "product_law",
]
