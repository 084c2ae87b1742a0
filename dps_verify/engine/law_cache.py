"""The one law cache: exact laws of A^β(D) (CP Def. 3) for one anonymizer and β, each
distinct sample anonymized once across every dataset, neighbour, size and search phase.

:class:`LawCache` is what the pytest API (:mod:`dps_verify.testing.checks`), the audit's
candidate pairs (:mod:`dps_verify.audit.core`) and the searches of :mod:`dps_verify.verdict`
(through the :class:`~dps_verify.engine.count_vectors.SampleMemo` it owns) use:

- an anonymizer of this project that declares the group protocol
  (:mod:`dps_verify.engine.protocol`) takes the factorised path (the product law of
  :mod:`dps_verify.engine.product_law`, expanded), law by law;
- any other anonymizer (a user's function, or a :class:`~dps_verify.engine.distribution.randomized`
  law) takes the count-vector backend (:mod:`dps_verify.engine.count_vectors`): datasets are count
  vectors over the atoms (the records seen so far, canonical order), each distinct sample's law
  is kept in the shared :class:`SampleMemo`, each dataset's law in a bounded memo.

Both memos are bounded by the number of output probabilities they hold; :meth:`LawCache.stats`
shows their sizes.  Every call into user code goes through :mod:`dps_verify.engine.calls`: a
fault is an :class:`~dps_verify.core.errors.AuditedCodeError` naming the dataset.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import AuditedCodeError, ParameterError
from dps_verify.core.numbers import Number
from dps_verify.core.params import beta_param
from dps_verify.engine.calls import attach_dataset
from dps_verify.engine.count_vectors import (
    DEFAULT_MAX_ENTRIES,
    Atoms,
    ExactLaws,
    SampleMemo,
    SampleTable,
    canonical_records,
)
from dps_verify.engine.factorised import DEFAULT_MAX_TERMS, check_budget, count_vector_terms
from dps_verify.engine.product_law import product_distribution
from dps_verify.engine.protocol import is_group_factorised

#: Laws of a factorised anonymizer kept by a :class:`LawCache` (one per dataset).
MAX_FACTORISED_LAWS = 256


class LawCache:
    """Exact laws ``{output: Fraction}`` of A^β(D), memoised (see the module docstring).

    ``domain`` (optional) lists the records datasets are drawn from; a record outside it is
    added when first seen (the atoms are rebuilt, the samples already anonymized are kept).
    ``memo`` shares a :class:`SampleMemo` of the same anonymizer (one is made otherwise);
    ``max_entries`` bounds the dataset laws kept; ``max_terms`` bounds the enumeration of one
    dataset (Π(c_i + 1) sub-samples), as in :func:`~dps_verify.engine.distribution.distribution`;
    ``factorised=False`` keeps a factorised mechanism on the count-vector backend (so that
    :meth:`weights` is available).
    """

    def __init__(
        self,
        anonymizer: Any,
        beta: Number,
        domain: Iterable[Hashable] | None = None,
        *,
        memo: SampleMemo | None = None,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_terms: int = DEFAULT_MAX_TERMS,
        factorised: bool | None = None,
    ):
        self.anonymizer = anonymizer
        self.beta = beta_param(beta, allow_one=True)
        self.max_entries = max_entries
        self.max_terms = max_terms
        self.factorised = is_group_factorised(anonymizer) if factorised is None else factorised
        self.memo = memo if memo is not None else SampleMemo(anonymizer)
        if self.memo.anonymizer is not anonymizer:
            raise ValueError("a SampleMemo serves the anonymizer it was made for only")
        self._records: list = []
        self._factorised_laws: dict[tuple, dict] = {}
        self.atoms: Atoms | None = None
        self.table: SampleTable | None = None
        self.laws: ExactLaws | None = None
        self._radix = 2
        if domain is not None and not self.factorised:
            recs = _hashable_records(domain)
            if recs:
                self._grow(recs, 1)

    # -- the count-vector backend -------------------------------------------------------

    def _grow(self, records: Sequence[Hashable], largest: int) -> None:
        """(Re)build the atoms over the records seen plus ``records`` and a table whose radix
        holds counts up to ``largest``; the sample memo carries every law already computed."""
        known = set(self._records)
        new = [r for r in records if r not in known]
        radix = self._radix
        while radix <= largest:
            radix *= 2
        if not new and self.table is not None and radix == self._radix:
            return
        self._records = canonical_records(list(self._records) + new)
        self._radix = radix
        self.atoms = Atoms(self.anonymizer, self._records)
        # output ids stay valid across rebuilds (weights computed before a rebuild still index
        # the same outputs)
        self.table = SampleTable(self.anonymizer, self.atoms, radix=radix, memo=self.memo,
                                 outputs_of=self.table)
        self.laws = ExactLaws(self.table, self.beta, max_entries=self.max_entries)
        stat = self.atoms.statistic
        if stat is None:
            self._index = {r: i for i, r in enumerate(self.atoms.values)}
        else:
            assert self.atoms.keys is not None
            by_key = {k: i for i, k in enumerate(self.atoms.keys)}
            self._index = {r: by_key[stat(r)] for r in self._records}

    def counts(self, dataset: Sequence[Hashable]) -> tuple[int, ...]:
        """The count vector of ``dataset`` over the atoms (atoms grown if needed)."""
        recs = _hashable_records(dataset)
        index = getattr(self, "_index", {})
        if self.atoms is None or any(r not in index for r in recs):
            self._grow(recs, 1)
        counts = [0] * self.atoms.m  # type: ignore[union-attr]
        for r in recs:
            counts[self._index[r]] += 1
        if max(counts, default=0) >= self._radix:
            self._grow([], max(counts))
        return tuple(counts)

    def weights(self, dataset: Sequence[Hashable]) -> tuple[dict[int, int], int]:
        """``(acc, q^|D|)`` of :meth:`ExactLaws.weights` (output ids of :attr:`table`)."""
        if self.factorised:
            raise ValueError("weights are kept for count-vector laws only (not factorised)")
        c = self.counts(dataset)
        check_budget(count_vector_terms(c), self.max_terms,
                     f"the generic count-vector enumeration over {sum(1 for v in c if v)} distinct keys")
        assert self.laws is not None
        try:
            return self.laws.weights(c)
        except AuditedCodeError as err:  # a fault of the audited code names the dataset
            attach_dataset(err, tuple(dataset))
            raise

    def __call__(self, dataset: Sequence[Hashable]) -> dict:
        """The exact law of A^β(``dataset``): ``{output: Fraction}``."""
        if self.factorised:
            return self._factorised(dataset)
        if self.table is None and not list(dataset):
            return self._empty()
        acc, den = self.weights(dataset)
        assert self.table is not None
        outs = self.table.outputs
        return {outs[o]: Fraction(v, den) for o, v in acc.items()}  # v / den in lowest terms

    law = __call__

    def _empty(self) -> dict:
        """The law of A^β(∅) before any record is known: A on the empty sample (no atoms)."""
        from dps_verify.engine.calls import call_anonymizer, call_law
        from dps_verify.engine.randomized import randomized

        if isinstance(self.anonymizer, randomized):
            return dict(call_law(self.anonymizer, (), recheck=True))
        return {call_anonymizer(self.anonymizer, (), recheck=True): Fraction(1)}

    def _factorised(self, dataset: Sequence[Hashable]) -> dict:
        key = tuple(sorted(dataset, key=repr))
        law = self._factorised_laws.pop(key, None)
        if law is None:
            law = dict(product_distribution(self.anonymizer, key, self.beta,
                                            max_terms=self.max_terms).exact)
            if len(self._factorised_laws) >= MAX_FACTORISED_LAWS:
                del self._factorised_laws[next(iter(self._factorised_laws))]
        self._factorised_laws[key] = law
        return law

    def stats(self) -> dict[str, Any]:
        """Sizes of the cache: dataset laws held (with their bound), distinct samples kept."""
        out: dict[str, Any] = {"samples": self.memo.stats()}
        if self.factorised:
            out["laws"] = {"laws": len(self._factorised_laws), "max_laws": MAX_FACTORISED_LAWS}
        elif self.laws is not None:
            out["laws"] = self.laws.stats()
        return out

    def __len__(self) -> int:
        if self.factorised:
            return len(self._factorised_laws)
        return len(self.laws) if self.laws is not None else 0


def _hashable_records(records: Iterable[Hashable]) -> list:
    recs = list(records)
    try:
        for r in recs:
            hash(r)
    except TypeError as exc:
        raise ParameterError(f"dataset records must be hashable: {exc}") from None
    return recs


__all__ = ["MAX_FACTORISED_LAWS", "LawCache"]
