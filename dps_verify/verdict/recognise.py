"""Recognise code that is not ours as strongly-safe k-anonymization.

CP Def. 5 / §3.2: a strongly-safe k-anonymizer recodes every record with a fixed,
data-independent map g and then suppresses every generalized value seen fewer than k times.
For that mechanism CP Thm 5 bounds δ by d(k, β, ε) and CP App. A.2 reduces the exact worst case
over *all* datasets to one recoding group (:func:`dps_verify.exact.sdgs_delta`).

A user's function is a black box, so the proof cannot be applied to it directly.  What can be
checked is a finite statement: on every sample of at most N records over the domain, the
function's output and the output of the reference mechanism
:class:`~dps_verify.mechanisms.StronglySafeKAnonymizer` (with an inferred recoding and k)
determine each other (equal up to a one-to-one renaming of outputs, which changes no
probability, so every pair of datasets of ≤ N records has the same δ under both).

Inference (a proposal, then checked exhaustively):

- k is the smallest n such that some crowd {r × n} produces an output different from the empty
  sample's ("the smallest published group");
- two records r, r' are in the same recoding group iff the crowds {r × k} and {r' × k} give the
  same output (each publishes its own group with count k).

Then every sample of ≤ N records is compared; one disagreement (say on a rare combination of
records, or because the grouping depends on the data) means "not recognised".  Nothing is
claimed beyond N: a function that departs from the reference only on larger samples is
recognised up to N and the wording says exactly that.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dps_verify.core.types import DefinitionLike
from dps_verify.engine.count_vectors import Atoms, SampleTable

#: Largest number of samples the audit anonymizes for a recognition check of its own.
DEFAULT_SAMPLE_BUDGET = 100_000


@dataclass
class Recognition:
    """A function found to behave as strongly-safe k-anonymization on every sample of at most
    ``max_size`` records (``samples`` of them) over the atoms of the search.

    ``groups`` lists the recoding groups (records of the domain, one list per generalized value);
    ``by_statistic`` says the atoms were the classes of a declared ``sufficient_statistic`` (one
    representative record per class was anonymized; the statistic itself is taken on trust).
    """

    k: int
    groups: list[list]
    max_size: int
    samples: int
    by_statistic: bool = False
    notes: list[str] = field(default_factory=list)
    #: name of the declared table function when the anonymizer was recognised as a
    #: post-processing of it (:func:`recognise_post_processing`), else None
    post_processing_of: str | None = None

    def recoding_text(self, limit: int = 6) -> str:
        parts = []
        for g in self.groups[:limit]:
            shown = ", ".join(repr(r) for r in g[:4]) + (", ..." if len(g) > 4 else "")
            parts.append("{" + shown + "}")
        more = f", ... ({len(self.groups) - limit} more groups)" if len(self.groups) > limit else ""
        return f"{len(self.groups)} groups " + " ".join(parts) + more

    def describe(self) -> str:
        over = ("one representative record per class of the declared sufficient_statistic"
                if self.by_statistic else "the domain")
        head = ""
        if self.post_processing_of is not None:
            head = (f"is a declared post-processing of {self.post_processing_of}: on all "
                    f"{self.samples} samples of size <= {self.max_size} its output law is a "
                    f"function of {self.post_processing_of}'s output only (equal tables, equal "
                    f"laws; checked exhaustively), and {self.post_processing_of} ")
        return head + (f"behaves as strongly-safe k-anonymization (CP Def. 5) with the data-independent "
                f"recoding into {self.recoding_text()} and k = {self.k} on all {self.samples} "
                f"samples of size <= {self.max_size} over {over} (checked exhaustively: its "
                "output and StronglySafeKAnonymizer's determine each other on every one of them)")

    def closed_form(self, beta: Fraction, eps: Fraction, delta: Fraction,
                    definition: DefinitionLike = "hockey-stick") -> str:
        """The closed-form statement for the reference mechanism, compared with the claim."""
        from dps_verify.core.params import in_paper_regime
        from dps_verify.worstcase.sdgs import sdgs_delta_certified

        text = self.describe() + "; "
        if in_paper_regime(beta, eps) and definition == "hockey-stick":
            from dps_verify.worstcase.closed_forms import d_certified

            dc = d_certified(self.k, beta, eps)
            text += (f"CP Thm 5 then gives delta <= d(k, beta, eps) <= {float(dc.upper):.6g} for "
                     "such a mechanism; ")
        cert = sdgs_delta_certified(self.k, beta, eps, definition)
        n = cert.details.get("argmax_n")
        text += (f"its exact worst case over ALL datasets is delta = {float(cert.upper):.6g} "
                 f"(CP App. A.2, sdgs_delta, attained by a group of n = {n} records). ")
        if self.post_processing_of is not None:
            text += ("Post-processing a table cannot increase its delta (a DP guarantee is "
                     "closed under post-processing), so the same bound holds for the reference "
                     "mechanism followed by this post-processing. ")
        if cert.upper <= delta:
            text += ("The claimed delta covers it, so the proof applies to the reference mechanism; "
                     f"this function agreed with it on every sample of <= {self.max_size} records "
                     "checked, not beyond")
        elif cert.lower > delta:
            text += ("The claimed delta is BELOW it: the reference mechanism breaks the claim on a "
                     f"group of {n} records; this function was only compared up to "
                     f"{self.max_size} records")
        else:
            text += "Its certified enclosure straddles the claimed delta"
        return text


def recognise_table(table: SampleTable, max_size: int) -> Recognition | None:
    """Recognise from a sample table that holds every count vector of total ≤ ``max_size``
    (as left by :func:`dps_verify.verdict.exact_search.exhaustive_search`).  None when the
    anonymizer is randomized, the table is incomplete, or some sample disagrees."""
    atoms = table.atoms
    m = atoms.m
    if table.is_randomized or max_size < 1:
        return None
    if len(table.row_law) < math.comb(max_size + m, m):
        return None  # not every sample of size <= max_size was anonymized
    if any(len(r) != 1 for r in table.row_law):
        return None

    def out(counts: Sequence[int]) -> int | None:
        r = table.row_of_key.get(table.key(counts))
        return None if r is None else table.row_law[r][0][0]

    empty = out([0] * m)
    k = None
    for n in range(1, max_size + 1):
        for i in range(m):
            c = [0] * m
            c[i] = n
            if out(c) != empty:
                k = n
                break
        if k is not None:
            break
    if k is None or k + 1 > max_size:
        return None  # no threshold seen, or nothing checked beyond the smallest published crowd
    crowd: dict[int, list[int]] = {}
    for i in range(m):
        c = [0] * m
        c[i] = k
        o = out(c)
        assert o is not None
        crowd.setdefault(o, []).append(i)
    blocks = list(crowd.values())
    block_of = [0] * m
    for b, members in enumerate(blocks):
        for i in members:
            block_of[i] = b
    ref_of: dict[int, tuple] = {}
    user_of: dict[tuple, int] = {}
    for key, row in table.row_of_key.items():
        counts = _decode(key, table.radix, m)
        if sum(counts) > max_size:
            continue
        g = [0] * len(blocks)
        for i, ci in enumerate(counts):
            g[block_of[i]] += ci
        ref = tuple((b, gb) for b, gb in enumerate(g) if gb >= k)
        o = table.row_law[row][0][0]
        if ref_of.setdefault(o, ref) != ref or user_of.setdefault(ref, o) != o:
            return None
    groups = [[atoms.values[i] for i in members] for members in blocks]
    return Recognition(k, groups, max_size, math.comb(max_size + m, m),
                       by_statistic=atoms.statistic is not None)


def declared_table(anonymizer: Any) -> Callable | None:
    """The table function ``anonymizer`` declares it post-processes (its ``post_processes``
    attribute, or that of the function a :class:`~dps_verify.engine.distribution.randomized`
    wraps), if any.  A declaration is checked, never trusted
    (:func:`recognise_post_processing`)."""
    fn = getattr(anonymizer, "post_processes", None)
    if fn is None:
        fn = getattr(getattr(anonymizer, "fn", None), "post_processes", None)
    return fn if callable(fn) else None


def recognise_post_processing(table: SampleTable, max_size: int,
                              table_fn: Callable) -> Recognition | None:
    """Recognise the anonymizer of ``table`` (every sample of ≤ ``max_size`` records, as left
    by the exhaustive search; deterministic or randomized) as a post-processing of strongly-safe
    k-anonymization, given the table function it declares (``table_fn``, a user's function):

    1. ``table_fn`` is anonymized on every one of those samples (guarded calls) and recognised
       as strongly-safe k-anonymization by :func:`recognise_table`;
    2. on every one of those samples the anonymizer's exact law is a function of
       ``table_fn``'s output: two samples with equal tables have equal laws.

    Then on datasets of ≤ ``max_size`` records the anonymizer is the reference mechanism followed
    by a fixed post-processing, whose δ is at most the reference's.  None when either check
    fails, the table is incomplete, or either side declares a ``sufficient_statistic`` (the
    atoms would differ)."""
    atoms = table.atoms
    m = atoms.m
    if atoms.statistic is not None or callable(getattr(table_fn, "sufficient_statistic", None)):
        return None
    if max_size < 1 or len(table.row_law) < math.comb(max_size + m, m):
        return None
    inner = SampleTable(table_fn, Atoms(table_fn, atoms.values), radix=table.radix)
    if inner.atoms.values != atoms.values:
        return None
    keys = [k for k in table.row_of_key if sum(_decode(k, table.radix, m)) <= max_size]
    inner.ensure([_decode(k, table.radix, m) for k in keys])
    rec = recognise_table(inner, max_size)
    if rec is None:
        return None
    law_of: dict[int, frozenset] = {}
    for k in keys:
        t_out = inner.row_law[inner.row_of_key[k]][0][0]
        law = frozenset(table.row_law[table.row_of_key[k]])
        if law_of.setdefault(t_out, law) != law:
            return None  # two samples with one table, two laws: not a function of the table
    rec.post_processing_of = getattr(table_fn, "__name__", None) or type(table_fn).__name__
    return rec


def _decode(key: int, radix: int, m: int) -> list[int]:
    out = []
    for _ in range(m):
        key, r = divmod(key, radix)
        out.append(r)
    return out


#: Records passed to the anonymizer, in total over all samples, that recognition may spend.
DEFAULT_RECORD_BUDGET = 2_000_000


def largest_checkable_size(m: int, budget: int = DEFAULT_SAMPLE_BUDGET,
                           record_budget: int = DEFAULT_RECORD_BUDGET) -> int:
    """Largest N with C(N + m, m) ≤ ``budget`` samples and m·C(N + m, m + 1) ≤
    ``record_budget`` records in them (the samples of sizes 0..N over m records hold that many
    records in total; without it a one-record domain would mean ~``budget``² / 2 records)."""
    n = 0
    while math.comb(n + 1 + m, m) <= budget and m * math.comb(n + 1 + m, m + 1) <= record_budget:
        n += 1
    return n


def recognise(
    anonymizer: Callable | Any, domain: Sequence[Hashable], *, max_size: int | None = None,
    sample_budget: int = DEFAULT_SAMPLE_BUDGET,
) -> Recognition | None:
    """Anonymize every sample of at most ``max_size`` records over ``domain`` (default: the
    largest size within ``sample_budget`` samples) and recognise strongly-safe k-anonymization.
    Each call goes through :mod:`dps_verify.engine.calls` (a user fault is an
    :class:`~dps_verify.core.errors.AuditedCodeError`)."""
    atoms = Atoms(anonymizer, domain)
    m = atoms.m
    n = largest_checkable_size(m, sample_budget) if max_size is None else max_size
    if n < 1 or math.comb(n + m, m) > sample_budget:
        return None
    table = SampleTable(anonymizer, atoms, radix=n + 1)
    if table.is_randomized:
        return None
    import numpy as np

    for size in range(n + 1):
        level = list(_level(m, size))
        # numpy rows take the table's fast path for plain functions (after the first recheck)
        table.ensure(np.array(level, dtype=np.int64).reshape(-1, m) if size > 1 else level)
    return recognise_table(table, n)


def _level(m: int, n: int) -> Iterator[list[int]]:
    """Every count vector of ``n`` records over ``m`` atoms, in the order of
    ``combinations_with_replacement(range(m), n)`` (first count largest first): built count by
    count when that is cheaper: from about n = 3m + 4 records on (best-of-5 CPU time of a whole
    level, counts route / combinations route: 0.81-0.92 at n = 3m + 4 for m = 2..6, 0.3-0.5 at
    n = 37; 1.2-4.7 below the switch)."""
    if n >= 3 * m + 4:
        yield from _level_by_counts(m, n)
        return
    for combo in itertools.combinations_with_replacement(range(m), n):
        c = [0] * m
        for i in combo:
            c[i] += 1
        yield c


def _level_by_counts(m: int, n: int) -> Iterator[list[int]]:
    if m <= 1:
        if m == 1 or n == 0:
            yield [n] * m
        return
    for c0 in range(n, -1, -1):
        for rest in _level_by_counts(m - 1, n - c0):
            yield [c0, *rest]


__all__ = ["DEFAULT_SAMPLE_BUDGET", "Recognition", "declared_table", "largest_checkable_size",
           "recognise", "recognise_post_processing", "recognise_table"]
