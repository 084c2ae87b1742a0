"""The public lazy product law of a group-factorised anonymizer, and the cancellation theorem.

Setting (CP Def. 5 with CP §3.2's Apply step, the setting of CP Thm 5): a *fixed* recoding sorts
records into groups, each record is kept independently with probability β (CP Def. 3), and each
group's part of the release depends on that group's sampled records only (its count, or
suppressed below the threshold).  The output law is then the product of one law per group, and
that law depends on the group's size only.  :class:`ProductDistribution` keeps the product
*unexpanded*: it stores the group sizes and computes one part law per distinct size on demand.

**Cancellation theorem** (proved in the docstring of :mod:`dps_verify.engine.factorised`): for
two product laws of the same anonymizer and β, write each output as (parts of the groups whose
laws differ, parts of the others).  The second factor has the same law R on both sides and total
mass 1, and the anonymizer's ``assemble`` is injective, so the hockey-stick δ (CP Def. 2), the
pointwise δ (TR Def. 2), ε and the whole privacy-loss distribution of the pair equal those of
the pair restricted to the differing groups.  For add/remove neighbours (CP §2.1) exactly one
group differs, so a measure of two laws over all 32,561 Adult records costs one group's law.

:func:`cancel_common_groups` is the hook used by :mod:`dps_verify.measures.divergence` and
:mod:`dps_verify.measures.pld`: given two product laws it returns the two (small) laws of the
differing groups, jointly over those groups when several differ (their product, with a work
budget).  Expanding the joint law of all groups stays possible on request
(:meth:`ProductDistribution.expand`, or any mapping access), with the work estimated first and
refused past ``max_terms``.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from fractions import Fraction
from math import lcm, prod
from typing import Any

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Number, exp_compare, fraction_to_mpf
from dps_verify.core.params import beta_param
from dps_verify.engine.factorised import checked_group_law, expand_product, group_sizes
from dps_verify.engine.protocol import GroupFactorisedAnonymizer, declares_group_protocol

#: Default budget on expanded joint outputs (the same default as the generic engine's).
DEFAULT_MAX_TERMS = 2_000_000

#: Part laws per anonymizer, keyed by (β, size): two product laws of one anonymizer share them.
_PART_LAWS: weakref.WeakKeyDictionary[Any, dict[tuple[Fraction, int], dict]] = (
    weakref.WeakKeyDictionary()
)


def part_law(anonymizer: GroupFactorisedAnonymizer, size: int, beta: Fraction) -> dict:
    """The exact law of one group's part when it holds ``size`` records (validated: entries ≥ 0,
    total 1), cached per anonymizer."""
    try:
        cache = _PART_LAWS.setdefault(anonymizer, {})
    except TypeError:  # not weak-referenceable: no sharing
        cache = {}
    key = (beta, size)
    law = cache.get(key)
    if law is None:
        law = checked_group_law(anonymizer, size, beta)
        cache[key] = law
    return law


class ProductDistribution(Mapping):
    """The output law of "sample at β, then a group-factorised anonymizer" (CP Def. 3, Def. 5),
    kept as an unexpanded product of per-group laws.

    As a mapping ``output -> mpf`` (and through ``.exact``, ``output -> Fraction``) it behaves
    like :class:`~dps_verify.engine.distribution.ExactDistribution`, expanding the joint law on
    first access (refused past ``max_terms`` joint outputs, :class:`CertificationError`).  The
    privacy measures never expand it when both sides are product laws: they use
    :func:`cancel_common_groups`.
    """

    def __init__(
        self,
        anonymizer: GroupFactorisedAnonymizer,
        beta: Fraction,
        sizes: Mapping[Hashable, int],
        max_terms: int = DEFAULT_MAX_TERMS,
    ):
        self.anonymizer = anonymizer
        self.beta = beta
        self.sizes: dict[Hashable, int] = dict(sizes)
        self.max_terms = max_terms
        self._expanded: dict[Hashable, Fraction] | None = None
        self._display: dict[Hashable, Any] | None = None

    # ------------------------------------------------------------------ the factors
    def law_of(self, key: Hashable) -> dict:
        """Part law of the group ``key`` (a group absent from the dataset has size 0)."""
        return part_law(self.anonymizer, self.sizes.get(key, 0), self.beta)

    def joint_size(self) -> int:
        """Number of joint outputs Π|law_g| (the work of :meth:`expand`); a group whose law is a
        point mass costs nothing, so only distinct sizes' laws are computed."""
        counts = Counter(self.sizes.values())
        return prod(len(part_law(self.anonymizer, s, self.beta)) ** c for s, c in counts.items())

    def expand(self, max_terms: int | None = None) -> dict[Hashable, Fraction]:
        """The expanded exact law ``{output: Fraction}`` (cached).

        Raises :class:`CertificationError` when it has more than ``max_terms`` joint outputs
        (default: the budget given to :func:`product_distribution`)."""
        if self._expanded is None:
            budget = self.max_terms if max_terms is None else max_terms
            keys = list(self.sizes)
            self._expanded = joint_law(self.anonymizer, [self.law_of(k) for k in keys], keys,
                                       budget, "the expanded output law")
        return self._expanded

    @property
    def exact(self) -> dict[Hashable, Fraction]:
        """The expanded exact law (see :meth:`expand`)."""
        return self.expand()

    # ------------------------------------------------------------------ Mapping (expands)
    def _values(self) -> dict[Hashable, Any]:
        if self._display is None:
            self._display = {y: fraction_to_mpf(v) for y, v in self.expand().items()}
        return self._display

    def __getitem__(self, y: Hashable) -> Any:
        return self._values()[y]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())

    def __repr__(self) -> str:
        return (f"ProductDistribution({self.anonymizer!r}, beta={self.beta}, "
                f"{len(self.sizes)} groups, {sum(self.sizes.values())} records)")


def joint_law(
    anonymizer: GroupFactorisedAnonymizer,
    laws: Sequence[Mapping[Hashable, Fraction]],
    keys: Sequence[Hashable] | None,
    max_terms: int,
    what: str,
) -> dict[Hashable, Fraction]:
    """Product of independent part laws.  With ``keys`` each combination is assembled into the
    anonymizer's output; without, the output is the tuple of parts (used for the differing
    groups only, where the common factor has cancelled).  Work estimated first."""
    n = prod(len(law) for law in laws)
    if n > max_terms:
        raise CertificationError(
            f"{what} has {n} joint outputs (product of {len(laws)} group laws), over "
            f"max_terms = {max_terms}; raise max_terms, or measure the pair with the privacy "
            "measures, which cancel the groups both laws share"
        )
    if keys is None:
        return expand_product(laws, lambda parts: parts)
    return expand_product(laws, lambda parts: anonymizer.assemble(dict(zip(keys, parts))))


def product_distribution(
    anonymizer: GroupFactorisedAnonymizer,
    dataset: Sequence[Hashable],
    beta: Number,
    *,
    max_terms: int = DEFAULT_MAX_TERMS,
) -> ProductDistribution:
    """The lazy product law of ``anonymizer`` on ``dataset`` at sampling rate β (CP Def. 3).

    Costs one ``group_key`` call per record; part laws are computed per distinct size when a
    measure or an expansion needs them.  ``max_terms`` bounds a later expansion.
    """
    if not declares_group_protocol(anonymizer):
        raise ParameterError(
            f"{anonymizer!r} does not declare group_key/group_law/assemble "
            "(engine.protocol.GroupFactorisedAnonymizer)"
        )
    b = beta_param(beta, allow_one=True)
    return ProductDistribution(anonymizer, b, group_sizes(anonymizer, dataset), max_terms)


def differing_groups(P: ProductDistribution, Q: ProductDistribution) -> list[Hashable]:
    """Keys of the groups whose part laws differ between ``P`` and ``Q`` (equal sizes give equal
    laws without computing them; unequal sizes are compared law by law, e.g. two sizes below the
    suppression threshold are both the point mass on "suppressed")."""
    if P.anonymizer is not Q.anonymizer or P.beta != Q.beta:
        raise ParameterError(
            "both product laws must come from one anonymizer and one beta (the cancellation "
            "theorem compares the same mechanism on two datasets)"
        )
    out = []
    for key in dict.fromkeys([*P.sizes, *Q.sizes]):
        sp, sq = P.sizes.get(key, 0), Q.sizes.get(key, 0)
        if sp != sq and not _same_law(part_weights(P.anonymizer, sp, P.beta),
                                      part_weights(Q.anonymizer, sq, Q.beta)):
            out.append(key)
    return out


def _same_law(a: tuple[dict, int], b: tuple[dict, int]) -> bool:
    (wa, da), (wb, db) = a, b
    return wa.keys() == wb.keys() and all(v * db == wb[y] * da for y, v in wa.items())


def cancel_common_groups(p: Any, q: Any, max_terms: int = DEFAULT_MAX_TERMS) -> tuple[Any, Any]:
    """The pair a privacy measure should compare (the hook of the measures).

    - Two product laws: the laws of the groups that differ (one group for neighbours; the
      joint law over the differing groups when several differ, refused past ``max_terms``);
      two equal point masses when none differs.  By the cancellation theorem (module doc)
      every divergence, ε and privacy-loss distribution is unchanged.
    - One product law and a plain law: the product law expanded (its budget applies).
    - Otherwise ``(p, q)`` unchanged.
    """
    pp, qq = isinstance(p, ProductDistribution), isinstance(q, ProductDistribution)
    if pp and qq:
        keys = differing_groups(p, q)
        if not keys:
            return {None: Fraction(1)}, {None: Fraction(1)}
        if len(keys) == 1:
            return p.law_of(keys[0]), q.law_of(keys[0])
        what = f"the joint law of the {len(keys)} groups in which the two datasets differ"
        return (joint_law(p.anonymizer, [p.law_of(k) for k in keys], None, max_terms, what),
                joint_law(q.anonymizer, [q.law_of(k) for k in keys], None, max_terms, what))
    if pp:
        return p.exact, q
    if qq:
        return p, q.exact
    return p, q


# ---------------------------------------------------------------------- integer-weight measures
#: Part laws as integer weights over one denominator, per anonymizer, keyed by (β, size).
_WEIGHTS: weakref.WeakKeyDictionary[Any, dict[tuple[Fraction, int], tuple[dict, int]]] = (
    weakref.WeakKeyDictionary()
)


def thresholded_count_weights(size: int, beta: Fraction, threshold: int) -> tuple[dict, int]:
    """CP §3.2's Apply step on one group as integer weights over ``q^size`` (β = p/q): part s
    (the sampled count, published when s ≥ ``threshold``) has weight C(size, s) p^s (q−p)^(size−s),
    part :data:`~dps_verify.engine.protocol.SUPPRESSED` the sum of the weights below the
    threshold.  The same law as :func:`~dps_verify.engine.protocol.thresholded_count_law`
    (tested equal), in O(size) integer steps instead of one normalised Fraction per entry."""
    from dps_verify.engine.protocol import SUPPRESSED

    p, q = beta.numerator, beta.denominator
    den = q**size
    out: dict[Hashable, int] = {}
    w = (q - p) ** size  # s = 0
    for s in range(size + 1):
        if w:
            part = s if s >= threshold else SUPPRESSED
            out[part] = out.get(part, 0) + w
        if s < size:  # C(n, s+1) p^(s+1) (q-p)^(n-s-1), exactly divisible
            w = w * (size - s) * p // ((s + 1) * (q - p)) if q != p else (1 if s + 1 == size else 0)
    return out, den


def part_weights(anonymizer: Any, size: int, beta: Fraction) -> tuple[dict, int]:
    """One group's part law as ``({part: integer weight}, denominator)``: from the mechanism's
    ``group_weights(size, beta)`` when it declares one (the project's strongly-safe
    k-anonymizer does, :func:`thresholded_count_weights`), else from :func:`part_law`."""
    try:
        cache = _WEIGHTS.setdefault(anonymizer, {})
    except TypeError:
        cache = {}
    key = (beta, size)
    got = cache.get(key)
    if got is None:
        fast = getattr(anonymizer, "group_weights", None)
        if callable(fast):
            weights, den = fast(size, beta)
            got = ({y: int(v) for y, v in weights.items() if v}, int(den))
            if any(v < 0 for v in got[0].values()) or sum(got[0].values()) != got[1]:
                raise ValueError(f"group_weights({size}, {beta}) of {anonymizer!r} is not a "
                                 "probability law (negative weights or total != denominator)")
        else:
            law = part_law(anonymizer, size, beta)
            den = lcm(*(v.denominator for v in law.values()))
            got = ({y: v.numerator * (den // v.denominator) for y, v in law.items()}, den)
        cache[key] = got
    return got


def _loss_above(x: int, dx: int, y: int, dy: int, eps: Fraction, feps: float, ldx: float,
                ldy: float) -> bool:
    """Whether (x/dx) > e^ε (y/dy), i.e. the privacy loss of an output exceeds ε (x, y > 0).

    A float screen on ln x − ln dx − ln y + ln dy (``math.log`` of an integer is within a few
    ulps of the true value) decides when it is farther than a safe margin from ε; otherwise the
    exact comparison :func:`~dps_verify.core.numbers.exp_compare` decides."""
    lx, ly = math.log(x), math.log(y)
    loss = (lx - ldx) - (ly - ldy)
    margin = 1e-12 * (abs(lx) + abs(ldx) + abs(ly) + abs(ldy) + abs(feps) + 1.0)
    if loss > feps + margin:
        return True
    if loss < feps - margin:
        return False
    return exp_compare(eps, Fraction(x * dy, y * dx)) < 0


def _direction_masses(X: dict, dx: int, Y: dict, dy: int, eps: Fraction) -> tuple[list, int, int]:
    """Outputs whose loss ln(X/Y) exceeds ε (X against Y), with their integer masses."""
    feps, ldx, ldy = float(eps), math.log(dx), math.log(dy)
    bad, a, b = [], 0, 0
    for y, xv in X.items():
        yv = Y.get(y, 0)
        if yv == 0 or _loss_above(xv, dx, yv, dy, eps, feps, ldx, ldy):
            bad.append(y)
            a += xv
            b += yv
    return bad, a, b


def weighted_pair(p: ProductDistribution, q: ProductDistribution) -> tuple[tuple, tuple] | None:
    """The differing group's laws as integer weights, ``((X, dx), (Y, dy))``; None when several
    groups differ (then the Fraction path of :func:`cancel_common_groups` is used)."""
    keys = differing_groups(p, q)
    if not keys:
        return ({None: 1}, 1), ({None: 1}, 1)
    if len(keys) > 1:
        return None
    k = keys[0]
    return (part_weights(p.anonymizer, p.sizes.get(k, 0), p.beta),
            part_weights(q.anonymizer, q.sizes.get(k, 0), q.beta))


def pair_hockey_stick(X: tuple, Y: tuple, eps: Fraction) -> list[tuple[Fraction, Fraction]]:
    """For both directions, the masses (A, B) of the exact bad set, so that the hockey-stick δ
    (CP Def. 2) of that direction is A − e^ε·B (integer arithmetic, exact sets)."""
    (xw, dx), (yw, dy) = X, Y
    out = []
    for (aw, da), (bw, db) in (((xw, dx), (yw, dy)), ((yw, dy), (xw, dx))):
        _bad, a, b = _direction_masses(aw, da, bw, db, eps)
        out.append((Fraction(a, da), Fraction(b, db)))
    return out


def pair_pointwise(X: tuple, Y: tuple, eps: Fraction) -> Fraction:
    """Pointwise δ (TR Def. 2) of two integer-weight laws: the larger mass, under either law,
    of the outputs whose |privacy loss| exceeds ε."""
    (xw, dx), (yw, dy) = X, Y
    bad = set(_direction_masses(xw, dx, yw, dy, eps)[0]) | set(
        _direction_masses(yw, dy, xw, dx, eps)[0])
    return max(Fraction(sum(xw.get(y, 0) for y in bad), dx),
               Fraction(sum(yw.get(y, 0) for y in bad), dy))


def product_pair_masses(p: Any, q: Any, eps: Fraction) -> list[tuple[Fraction, Fraction]] | None:
    """For two product laws that differ in at most one group: per direction (p against q, then
    q against p) the masses (A, B) of the exact bad set of the differing group's laws, so the
    direction's hockey-stick δ is A − e^ε·B (CP Def. 2, by the cancellation theorem).  None
    otherwise (the caller uses :func:`cancel_common_groups`)."""
    if not (isinstance(p, ProductDistribution) and isinstance(q, ProductDistribution)):
        return None
    pair = weighted_pair(p, q)
    return None if pair is None else pair_hockey_stick(pair[0], pair[1], eps)


def product_pair_pointwise(p: Any, q: Any, eps: Fraction) -> Fraction | None:
    """Pointwise δ (TR Def. 2) of two product laws differing in at most one group (exact);
    None otherwise."""
    if not (isinstance(p, ProductDistribution) and isinstance(q, ProductDistribution)):
        return None
    pair = weighted_pair(p, q)
    return None if pair is None else pair_pointwise(pair[0], pair[1], eps)


def product_pair_segments(p: Any, q: Any) -> list[tuple[list, Fraction]] | None:
    """For two product laws differing in at most one group: per direction, the likelihood-ratio
    segments (r, a, b) with r = a/b > 1 and the mass at infinite loss of the differing group's
    laws (what :func:`dps_verify.measures.divergence.least_exp_for_delta` takes to find ε);
    None otherwise."""
    if not (isinstance(p, ProductDistribution) and isinstance(q, ProductDistribution)):
        return None
    pair = weighted_pair(p, q)
    if pair is None:
        return None
    out = []
    for (xw, dx), (yw, dy) in ((pair[0], pair[1]), (pair[1], pair[0])):
        inf = Fraction(sum(x for y, x in xw.items() if not yw.get(y, 0)), dx)
        segs = []
        for y, x in xw.items():
            v = yw.get(y, 0)
            if v and x * dy > v * dx:
                segs.append((Fraction(x * dy, v * dx), Fraction(x, dx), Fraction(v, dy)))
        out.append((segs, inf))
    return out


__all__ = [
    "DEFAULT_MAX_TERMS",
    "ProductDistribution",
    "cancel_common_groups",
    "differing_groups",
    "group_sizes",
    "joint_law",
    "pair_hockey_stick",
    "pair_pointwise",
    "part_law",
    "part_weights",
    "product_distribution",
    "product_pair_masses",
    "product_pair_pointwise",
    "product_pair_segments",
    "thresholded_count_weights",
    "weighted_pair",
]
