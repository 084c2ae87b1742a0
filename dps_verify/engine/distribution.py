"""Exact output distributions of "sample, then anonymize" (CP Def. 3).

Sampling scheme: every record of the dataset is kept independently with probability β (CP
Def. 3); the anonymizer is then applied to the kept records.  Datasets are multisets; the
neighbouring relation is add/remove one record (CP §2.1, TR §2), see :func:`pairs`.

Probabilities are exact :class:`fractions.Fraction` values; measures live in
:mod:`dps_verify.measures`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import cast

from dps_verify.core.numbers import Number, fraction_to_mpf
from dps_verify.core.params import beta_param
from dps_verify.core.types import AnonymizerLike
from dps_verify.engine.calls import reports_dataset
from dps_verify.engine.factorised import DEFAULT_MAX_TERMS
from dps_verify.engine.product_law import ProductDistribution, product_distribution
from dps_verify.engine.protocol import GroupFactorisedAnonymizer, is_group_factorised
from dps_verify.engine.randomized import randomized


class ExactDistribution(dict):
    """A distribution ``output -> mpf`` that also keeps the exact ``Fraction`` values.

    ``.exact`` maps each output to its exact probability; the ``mpf`` values are those rounded
    to nearest at the working precision, for display.  The privacy measures in this module use
    ``.exact`` when present.
    """

    def __init__(self, exact: Mapping[Hashable, Fraction]):
        super().__init__((y, fraction_to_mpf(v)) for y, v in exact.items())
        self.exact: dict[Hashable, Fraction] = dict(exact)


@reports_dataset  # a fault of the audited code names the dataset too (engine/calls.py)
def distribution(
    anonymizer: AnonymizerLike,
    dataset: Sequence[Hashable],
    beta: Number,
    *,
    max_terms: int = DEFAULT_MAX_TERMS,
    factorised: bool | None = None,
) -> ExactDistribution | ProductDistribution:
    """Exact law of "keep each record with probability β, then apply ``anonymizer``".

    ``anonymizer(sample)`` receives a tuple of the kept records (in canonical order: distinct
    records sorted by repr, each repeated) and returns a hashable output; wrap a randomized one
    with :class:`randomized`.  Sub-multisets are enumerated by count vectors: Π(c_i + 1) terms
    for multiplicities c_i, never the 2^N subsets, each distinct sample anonymized once.  If the
    anonymizer has a ``sufficient_statistic`` attribute (a record -> key map such that the
    output depends only on the multiset of keys, as for a data-independent recoding), records
    are grouped by that key instead (one representative record per key is anonymized; the
    declaration is spot-checked on one- and two-record samples).

    Two paths (see docs/accounting.md):

    - *factorised* — when the anonymizer declares the group protocol of
      :mod:`dps_verify.engine.protocol` and is one of the project's own mechanisms
      (strongly-safe k-anonymization is; a user's class is used this way only with
      ``factorised=True``, since its declaration cannot be checked), the law is the
      product of per-group laws, one per distinct group size, returned *unexpanded* as a
      :class:`~dps_verify.engine.product_law.ProductDistribution`: ``delta``, ``pointwise_delta``,
      ``epsilon`` and the PLD functions of two of them compare only the groups that differ
      (the cancellation theorem), so two laws over tens of thousands of records cost one
      group's law; reading it as a mapping (or ``.exact``) expands it, which costs the number
      of joint outputs Π|law_g| (a group that never reaches the threshold is a point mass);
    - *generic* — any other anonymizer: the count-vector backend of the engine
      (:mod:`dps_verify.engine.count_vectors`, through :class:`~dps_verify.engine.law_cache.LawCache`),
      Π(c_i + 1) terms; use a ``LawCache`` directly to keep the samples' laws across datasets.

    Both compute the same exact law (property-tested equal).  The work is estimated before
    starting; past ``max_terms`` (default :data:`DEFAULT_MAX_TERMS` = 2·10⁶, about a minute on
    the generic path) a :class:`~dps_verify.core.errors.CertificationError` names the budget
    (for a product law, when it is expanded).  ``factorised=False`` forces the
    generic path (for comparisons), ``True`` requires the factorised one.

    Raises ``ValueError`` if β ∉ (0, 1] or a record is unhashable, and
    :class:`~dps_verify.core.errors.AuditedCodeError` if the anonymizer raises, returns an
    unhashable output, or is not a function of its multiset sample (spot-checked by
    :class:`~dps_verify.engine.calls.SpotChecks`: a few samples of each size are anonymized
    again, also with their records reversed and rotated, and must agree).
    """
    b = beta_param(beta, allow_one=True)
    if factorised is None:
        factorised = is_group_factorised(anonymizer)
    if factorised:  # lazy: measures of two product laws cancel the groups they share
        return product_distribution(
            cast(GroupFactorisedAnonymizer, anonymizer), dataset, b, max_terms=max_terms)
    # the generic path is the engine's count-vector backend (engine/count_vectors.py through
    # the law cache; imported here, since those modules import this one)
    from dps_verify.engine.law_cache import LawCache

    cache = LawCache(anonymizer, b, dataset, factorised=False, max_terms=max_terms,
                     max_entries=0)
    return ExactDistribution(cache(dataset))


def pairs(dataset: Sequence[Hashable], domain: Iterable[Hashable]) -> list[tuple[tuple, tuple]]:
    """All add/remove neighbours (D, D') of ``dataset`` over ``domain``: D' = D ± one record."""
    ds = tuple(dataset)
    out = []
    for r in set(ds):
        i = ds.index(r)
        out.append((ds, ds[:i] + ds[i + 1 :]))
    for r in domain:
        out.append((ds + (r,), ds))
    return out


__all__ = ["ExactDistribution", "distribution", "pairs", "randomized"]
