"""The count-vector backend of the engine: each distinct sample anonymized once, and the exact
law of A^β(D) (CP Def. 3) of any dataset D built from those samples.

Datasets and samples are multisets over a finite list of *atoms*: the domain's records, or, when
the anonymizer declares a ``sufficient_statistic`` (a record → key map such that the output
depends only on the multiset of keys, as for a data-independent recoding), the distinct keys of
the domain (each atom then stands for one representative record).  A sample is a count vector
``s`` over the atoms; the table calls the anonymizer once per distinct ``s`` and interns the
outputs as small integers, so the float screen can work on integer arrays.

Every call into user code goes through :mod:`dps_verify.engine.calls` (``call_anonymizer`` /
``call_law``); a fault of the user's code is raised as
:class:`~dps_verify.core.errors.AuditedCodeError` and is never turned into a verdict.  Samples
are handed over in one canonical order; the first non-empty sample and a few samples of each
size are anonymized again, also with their records reordered
(:class:`~dps_verify.engine.calls.SpotChecks`): the anonymizer must be a function of its
multiset sample (CP §2.1).

:class:`ExactLaws` turns the table into exact laws of "keep each record with probability β, then
anonymize": Pr[A^β(c) = y] = Σ_{s ≤ c} Π_i C(c_i, s_i) β^{s_i} (1 − β)^{c_i − s_i} · Pr[A(s) = y]
over the sub-count-vectors s of c (Π(c_i + 1) terms, never the 2^|D| subsets), in integers over
the common denominator q^|D| for β = p/q.  The generic path of
:func:`dps_verify.engine.distribution.distribution` is the same sum over one dataset;
:mod:`dps_verify.engine.law_cache` keeps one table and its laws for every search.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dps_verify.core.errors import AuditedCodeError, ParameterError
from dps_verify.engine.calls import SpotChecks, call_anonymizer, call_law
from dps_verify.engine.randomized import randomized

_ONE = Fraction(1)


def canonical_records(records: Sequence[Hashable]) -> list:
    """Distinct records in canonical (repr) order."""
    return sorted(dict.fromkeys(records), key=repr)


class Atoms:
    """The atoms of a search: ``values[i]`` is the record standing for atom i; ``keys[i]`` its
    sufficient-statistic key (None when records are their own atoms)."""

    def __init__(self, anonymizer: Any, domain: Sequence[Hashable]):
        recs = canonical_records(domain)
        if not recs:
            raise ParameterError("domain must not be empty")
        stat = getattr(anonymizer, "sufficient_statistic", None)
        self.statistic = stat if callable(stat) else None
        if self.statistic is None:
            self.values = recs
            self.keys: list | None = None
        else:
            by_key: dict = {}
            for r in recs:
                try:
                    by_key.setdefault(self.statistic(r), r)
                except Exception as exc:  # noqa: BLE001
                    raise AuditedCodeError(
                        f"sufficient_statistic raised {type(exc).__name__} on record {r!r}",
                        original=exc, sample=(r,),
                    ) from exc
            self.keys = list(by_key)
            self.values = list(by_key.values())
            _spot_check_statistic(anonymizer, self.statistic, recs, by_key)
        self.m = len(self.values)

    def records(self, counts: Sequence[int]) -> tuple:
        """The canonical dataset (tuple of records) of a count vector."""
        out: list = []
        for v, c in zip(self.values, counts):
            if c:
                out += [v] * int(c)
        return tuple(out)


def _spot_check_statistic(anonymizer: Any, stat: Any, recs: list, by_key: dict) -> None:
    """A declared ``sufficient_statistic`` is code under audit too, so it is not taken on
    trust: every record r standing behind another record's atom (same key, representative t) is
    swapped in on the samples (r) vs (t) and (t, r) vs (t, t); if the anonymizer (called on the
    real records) tells them apart, the declaration is false and the search over atoms would be
    unsound.  This is a spot check on one- and two-record samples, not a proof; the audit and
    assert_dp reports say that the statistic was used."""
    if not callable(anonymizer) and not isinstance(anonymizer, randomized):
        return

    def out(sample: tuple) -> Any:
        if isinstance(anonymizer, randomized):
            return call_law(anonymizer, sample)
        return call_anonymizer(anonymizer, sample)

    for r in recs:
        t = by_key[stat(r)]
        if r == t:
            continue
        for a, b in (((r,), (t,)), ((t, r), (t, t))):
            ya, yb = out(a), out(b)
            if ya != yb:
                raise AuditedCodeError(
                    f"sufficient_statistic maps {r!r} and {t!r} to the same key "
                    f"{stat(r)!r}, but the anonymizer tells them apart: sample {a!r} gives "
                    f"{ya!r}, sample {b!r} gives {yb!r} (the statistic is not sufficient)",
                    sample=a,
                )


#: Output probabilities a :class:`SampleMemo` keeps (about 100 bytes each).
DEFAULT_MAX_SAMPLE_ENTRIES = 2_000_000


class SampleMemo:
    """The anonymizer's (validated) law on each distinct sample, shared by every table built
    over the same atoms — the exhaustive search, the leak shapes, the Hypothesis phase and the
    audit's candidates — so that a randomized anonymizer's law on one sample is computed once
    across neighbours, sizes and phases.

    Keyed by the canonical sample (the tuple of atom records a table hands to the anonymizer,
    :meth:`Atoms.records`) of one anonymizer; a sample is stored only after its call (and any
    spot check of it) succeeded.  Bounded: at most ``max_entries`` output probabilities
    together; past that, new samples are still computed but not kept (``entries``,
    ``len()`` and ``dropped`` show the size).
    """

    def __init__(self, anonymizer: Any, *, max_entries: int = DEFAULT_MAX_SAMPLE_ENTRIES):
        self.anonymizer = anonymizer
        self.max_entries = max_entries
        self.laws: dict[tuple, list[tuple[Hashable, Fraction]]] = {}
        self.entries = 0
        self.hits = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self.laws)

    def get(self, sample: tuple) -> list[tuple[Hashable, Fraction]] | None:
        law = self.laws.get(sample)
        if law is not None:
            self.hits += 1
        return law

    def put(self, sample: tuple, law: list[tuple[Hashable, Fraction]]) -> None:
        if sample in self.laws:
            return
        if self.entries + len(law) > self.max_entries:
            self.dropped += 1
            return
        self.laws[sample] = law
        self.entries += len(law)

    def stats(self) -> dict[str, int]:
        return {"samples": len(self.laws), "entries": self.entries,
                "max_entries": self.max_entries, "hits": self.hits, "dropped": self.dropped}


class SampleTable:
    """Memo ``count vector → anonymizer output(s)`` with integer-coded outputs.

    ``radix`` bounds every count (the largest dataset size + 1); a sample's integer key is
    Σ s_i · radix^i.  ``memo`` (a :class:`SampleMemo` of the same anonymizer) is consulted
    before the anonymizer is called and receives every new sample's law; ``outputs_of`` (an
    earlier table of the same anonymizer) shares its output ids.  ``spot_checks=False`` makes
    one call per sample and no re-checks (for timing a call; the tables that search keep their
    own spot checks on the samples they anonymize).
    """

    def __init__(self, anonymizer: Any, atoms: Atoms, radix: int,
                 memo: SampleMemo | None = None, outputs_of: SampleTable | None = None,
                 spot_checks: bool = True):
        if memo is not None and memo.anonymizer is not anonymizer:
            raise ValueError("a SampleMemo serves the anonymizer it was made for only")
        self.memo = memo
        self.anonymizer = anonymizer
        self.atoms = atoms
        self.radix = radix
        self.pow = [radix**i for i in range(atoms.m)]
        self.vector_keys = radix ** atoms.m < 2**62
        self.is_randomized = isinstance(anonymizer, randomized)
        fc = getattr(anonymizer, "from_counts", None)
        self.from_counts = fc if callable(fc) and atoms.keys is not None else None
        # output ids: shared with ``outputs_of`` (an earlier table of the same anonymizer) so
        # that ids handed out by either mean the same output
        self.outputs: list = [] if outputs_of is None else outputs_of.outputs
        self._oid: dict = {} if outputs_of is None else outputs_of._oid
        self.row_of_key: dict[int, int] = {}
        self.row_law: list[list[tuple[int, Fraction]]] = []  # per row: (output id, exact prob)
        self._checked = not spot_checks
        # which samples are re-anonymized, also reordered (none without spot checks)
        self.spot = SpotChecks() if spot_checks else SpotChecks(per_size=0)
        self._arrays: dict | None = None
        # flat copies of the table, grown with it (the screen's arrays are built from these)
        self._keys: list[int] = []
        self._lens: list[int] = []
        self._flat_ids: list[int] = []
        self._flat_p: list[float] = []
        self._min_p_log2 = 0.0  # a lower bound on log2 of the smallest positive exact probability
        self.calls = 0
        self._int_rows: dict[int, tuple[int, list[tuple[int, int]]]] = {}
        if spot_checks:
            self._check_order_first()

    def _check_order_first(self) -> None:
        """Anonymize the sample of the first two atoms before anything else, so that its spot
        check (:class:`~dps_verify.engine.calls.SpotChecks`: again, and with the two records
        swapped) runs before a search can reach a verdict on smaller samples: code that depends
        on the order of the records is an error, not a PASS or FAIL."""
        if self.from_counts is None and self.atoms.m >= 2 and self.radix > 2:
            checked = self._checked
            try:
                self.row([1, 1] + [0] * (self.atoms.m - 2))
            except AuditedCodeError as err:
                if getattr(err, "multiset_violation", False):
                    raise
                # any other fault is left for the search, which meets it on its smallest sample
                self._checked, self.spot = checked, SpotChecks()

    def key(self, counts: Sequence[int]) -> int:
        return sum(int(c) * p for c, p in zip(counts, self.pow) if c)

    def _intern(self, y: Hashable) -> int:
        i = self._oid.get(y)
        if i is None:
            i = self._oid[y] = len(self.outputs)
            self.outputs.append(y)
        return i

    def _evaluate(self, counts: Sequence[int]) -> list[tuple[int, Fraction]]:
        """Anonymize one sample (its law, output ids interned).  The memo serves only samples
        this table would not spot-check: the samples re-checked are the same with or without a
        memo."""
        sample = self.atoms.records(counts)
        recheck = not self._checked and sum(counts) > 0
        self._checked = self._checked or recheck
        if self.from_counts is not None:
            check = recheck  # a dict of counts: no order to check, the first sample twice
        else:
            check = self.spot.due(sample)  # includes the first non-empty sample
        memo = self.memo
        hit = memo.get(sample) if memo is not None and not check else None
        if hit is None:
            hit = self._evaluate_law(counts, sample, check)
            if memo is not None:
                memo.put(sample, hit)
        return [(self._intern(y), p) for y, p in hit]

    def _evaluate_law(self, counts: Sequence[int], sample: tuple,
                      check: bool) -> list[tuple[Hashable, Fraction]]:
        if self.from_counts is not None:
            assert self.atoms.keys is not None
            arg = {k: int(c) for k, c in zip(self.atoms.keys, counts) if c}
            law = {call_anonymizer(self.from_counts, arg, recheck=check,
                                   what="anonymizer's from_counts"): _ONE}
        elif self.is_randomized:
            law = call_law(self.anonymizer, sample, recheck=check, reorder=check)
        else:
            law = {call_anonymizer(self.anonymizer, sample, recheck=check, reorder=check): _ONE}
        self.calls += 1
        return [(y, p if type(p) is Fraction else Fraction(p)) for y, p in law.items() if p]

    def row(self, counts: Sequence[int]) -> int:
        """Table row of a count vector, anonymizing it first if needed."""
        k = self.key(counts)
        r = self.row_of_key.get(k)
        if r is None:
            self.ensure([counts])
            r = self.row_of_key[k]
        return r

    def ensure(self, counts_rows: np.ndarray | Sequence[Sequence[int]],
               keys: Sequence[int] | None = None) -> int:
        """Anonymize every count vector not yet in the table; returns the number of new calls.
        ``keys``: the rows' keys (:meth:`key`), when the caller has them already."""
        if isinstance(counts_rows, np.ndarray) and self.vector_keys and not self.is_randomized \
                and self.from_counts is None and self._checked:
            return self._ensure_plain(counts_rows)
        new = 0
        row_of_key = self.row_of_key
        for at, c in enumerate(counts_rows):
            k = self.key(c) if keys is None else keys[at]
            if k in row_of_key:
                continue
            law = self._evaluate(c)
            self.row_of_key[k] = len(self.row_law)
            self.row_law.append(law)
            self._keys.append(k)
            self._lens.append(len(law))
            min_lb = self._min_p_log2
            for i, pr in law:  # 0 < pr <= 1; float(pr) is num / den, correctly rounded
                num, den = pr.numerator, pr.denominator
                self._flat_ids.append(i)
                if num == den:
                    self._flat_p.append(1.0)
                else:
                    self._flat_p.append(num / den)
                    lb = float(num.bit_length() - den.bit_length() - 1)
                    if lb < min_lb:
                        min_lb = lb
            self._min_p_log2 = min_lb
            new += 1
        if new:
            self._arrays = None
        return new

    def _ensure_plain(self, C: np.ndarray) -> int:
        """:meth:`ensure` for a deterministic ``sample -> output`` function on an integer array
        of count vectors (keys computed by numpy; the same samples, calls and rows)."""
        import itertools

        keys = (C.astype(np.int64) @ np.array(self.pow, dtype=np.int64)).tolist()
        vals = self.atoms.values
        rok, law, fn = self.row_of_key, self.row_law, self.anonymizer
        chain, repeat = itertools.chain.from_iterable, itertools.repeat
        spot, checked_sizes = self.spot, self.spot.done
        memo = self.memo
        new = calls = 0
        for k, c in zip(keys, C.tolist()):
            if k in rok:
                continue
            sample = tuple(chain(repeat(v, n) for v, n in zip(vals, c) if n))
            if len(sample) in checked_sizes or not spot.due(sample):
                # not spot-checked here: the memo may answer
                hit = memo.get(sample) if memo is not None else None
                if hit is not None:
                    y = hit[0][0]
                else:
                    y = call_anonymizer(fn, sample)
                    calls += 1
            else:
                hit = None
                y = call_anonymizer(fn, sample, recheck=True, reorder=True)
                calls += 1
            if hit is None and memo is not None:
                memo.put(sample, [(y, _ONE)])
            oid = self._intern(y)
            rok[k] = len(law)
            law.append([(oid, _ONE)])
            self._keys.append(k)
            self._lens.append(1)
            self._flat_ids.append(oid)
            self._flat_p.append(1.0)
            new += 1
        self.calls += calls
        if new:
            self._arrays = None
        return new

    def ensure_subsamples(self, counts_rows: np.ndarray | Sequence[Sequence[int]]) -> int:
        """Anonymize every sub-sample s ≤ c of every count vector c (what the law of A^β(c)
        needs), in canonical key order; returns the number of new calls."""
        C = np.asarray(counts_rows, dtype=np.int64).reshape(-1, self.atoms.m)
        if len(C) == 0:
            return 0
        if not self.vector_keys:
            return self.ensure([s for c in C.tolist() for s in _grid(c)])
        pw = np.array(self.pow, dtype=np.int64)
        radix = C + 1
        K = radix.prod(axis=1)
        new = 0
        # chunks of datasets whose grids hold at most ~2M sub-samples
        start = 0
        while start < len(C):
            stop, tot = start, 0
            while stop < len(C) and (stop == start or tot + K[stop] <= 2_000_000):
                tot += int(K[stop])
                stop += 1
            Cb, Kb = C[start:stop], K[start:stop]
            strides = np.cumprod(np.hstack([np.ones((len(Cb), 1), dtype=np.int64),
                                            radix[start:stop, :-1]]), axis=1)
            b_row = np.repeat(np.arange(len(Cb)), Kb)
            local = np.arange(int(Kb.sum())) - np.repeat(np.cumsum(Kb) - Kb, Kb)
            S = (local[:, None] // strides[b_row]) % (Cb[b_row] + 1)
            keys = np.unique(S @ pw)
            have = np.fromiter(self._keys, dtype=np.int64, count=len(self._keys))
            missing = keys[~np.isin(keys, have)]
            digits = (missing[:, None] // pw[None, :]) % self.radix
            new += self.ensure(digits.tolist(), keys=missing.tolist())
            start = stop
        return new

    def integer_row(self, row: int) -> tuple[int, list[tuple[int, int]]]:
        """Row ``row``'s law over one common denominator: ``(den, [(output id, numerator)])``
        with Pr = numerator / den exactly (computed once per row)."""
        got = self._int_rows.get(row)
        if got is None:
            law = self.row_law[row]
            den = math.lcm(*(p.denominator for _, p in law))
            got = (den, [(o, p.numerator * (den // p.denominator)) for o, p in law])
            self._int_rows[row] = got
        return got

    def law_of_row(self, row: int) -> list[tuple[Hashable, Fraction]]:
        return [(self.outputs[i], p) for i, p in self.row_law[row]]

    def arrays(self) -> dict:
        """Plain numpy arrays for the float screen (picklable, no user code)."""
        if self._arrays is None:
            keys = np.array(self._keys, dtype=np.int64) if self.vector_keys else None
            rows = np.arange(len(self._keys), dtype=np.int64)
            lens = np.array(self._lens, dtype=np.int64)
            starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
            flat_ids = np.array(self._flat_ids, dtype=np.int64)
            flat_p = np.array(self._flat_p, dtype=np.float64)
            arr: dict[str, Any] = {
                "pow": np.array(self.pow if self.vector_keys else [0] * self.atoms.m, dtype=np.int64),
                "lens": lens, "starts": starts, "flat_ids": flat_ids, "flat_p": flat_p,
                "deterministic": bool(np.all(lens == 1)),
                "min_p_log2": self._min_p_log2,
                "n_outputs": max(len(self.outputs), 1),
            }
            if keys is not None:
                order = np.argsort(keys)
                arr["keys_sorted"] = keys[order]
                arr["rows_sorted"] = rows[order]
            else:
                arr["row_of_key"] = dict(self.row_of_key)
                arr["pow_py"] = list(self.pow)
            self._arrays = arr
        return self._arrays


#: Output probabilities (summed over the laws held) an :class:`ExactLaws` keeps in memory; the
#: least recently used laws are dropped first.  About 100 bytes each.
DEFAULT_MAX_ENTRIES = 1_000_000


class ExactLaws:
    """Exact laws of A^β(D) built from the sample table (integer weights, one division).

    The laws computed are kept, least recently used dropped first, while they hold at most
    ``max_entries`` output probabilities together (``len()`` and :meth:`stats` show the size).
    """

    def __init__(self, table: SampleTable, beta: Fraction, *,
                 max_entries: int = DEFAULT_MAX_ENTRIES):
        self.table = table
        self.p, self.q = beta.numerator, beta.denominator
        self.max_entries = max_entries
        self._memo: dict[tuple[int, ...], tuple[dict[int, int], int]] = {}
        self.entries = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._memo)

    def stats(self) -> dict[str, int]:
        """What the cache holds: dataset laws and their output probabilities (with the bound),
        distinct samples anonymized, hits and misses."""
        return {"laws": len(self._memo), "entries": self.entries, "max_entries": self.max_entries,
                "samples": len(self.table.row_law), "hits": self.hits, "misses": self.misses}

    def weights(self, counts: Sequence[int]) -> tuple[dict[int, int], int]:
        """``(acc, den)`` with integers: Pr[A^β(counts) = output o] = acc[o] / den, where
        den = q^n for a deterministic anonymizer (β = p/q, n = |D|) and q^n · L for a randomized
        one (L the least common denominator of the sample laws involved).  Memoised; the
        returned dict must not be modified."""
        key = tuple(int(c) for c in counts)
        hit = self._memo.pop(key, None)
        if hit is not None:
            self.hits += 1
            self._memo[key] = hit  # most recently used last
            return hit
        self.misses += 1
        out = self._weights(list(key))
        size = len(out[0])
        if size <= self.max_entries:
            while self._memo and self.entries + size > self.max_entries:
                old = self._memo.pop(next(iter(self._memo)))
                self.entries -= len(old[0])
            self._memo[key] = out
            self.entries += size
        return out

    def law(self, counts: Sequence[int]) -> dict[Hashable, Fraction]:
        acc, den = self.weights(counts)
        return {self.table.outputs[o]: Fraction(v, den) for o, v in acc.items()}


    def _weights(self, counts: list[int]) -> tuple[dict[int, int], int]:
        sup = [i for i, c in enumerate(counts) if c]
        p, q = self.p, self.q
        per = [[math.comb(counts[i], s) * p**s * (q - p) ** (counts[i] - s)
                for s in range(counts[i] + 1)] for i in sup]
        acc: dict[int, int] = {}
        table = self.table
        rand = table.is_randomized
        by_den: dict[int, dict[int, int]] = {}  # randomized: sums per sample-law denominator
        pw = [table.pow[i] for i in sup]
        row_of_key = table.row_of_key
        # The sub-samples s <= counts in itertools.product order (the last atom fastest): the
        # weight and key of the atoms before the last are formed once per prefix, the last
        # atom's in the inner loop; the same products and sums, rows met in the same order.
        last = len(sup) - 1
        last_per, last_pw = (per[last], pw[last]) if sup else ([1], 0)
        for head in itertools.product(*(range(counts[i] + 1) for i in sup[:last])):
            w0, k0 = 1, 0
            for j, s in enumerate(head):
                w0 *= per[j][s]
                k0 += s * pw[j]
            if w0 == 0:
                continue  # every sub-sample with this prefix has weight 0
            for s_last, w_last in enumerate(last_per):
                w = w0 * w_last
                if w == 0:
                    continue
                key = k0 + s_last * last_pw
                row = row_of_key.get(key)
                if row is None:
                    s_full = [0] * table.atoms.m
                    for j, s in enumerate((*head, s_last) if sup else ()):
                        s_full[sup[j]] = s
                    row = table.row(s_full)
                if rand:
                    den, items = table.integer_row(row)
                    a = by_den.setdefault(den, {})
                    for oid, num in items:
                        a[oid] = a.get(oid, 0) + w * num
                else:
                    for oid, _pr in table.row_law[row]:
                        acc[oid] = acc.get(oid, 0) + w
        total = q ** sum(counts)
        if not rand:
            return acc, total
        lcd = math.lcm(*by_den) if by_den else 1
        for den, a in by_den.items():
            f = lcd // den
            for oid, v in a.items():
                acc[oid] = acc.get(oid, 0) + v * f
        return acc, total * lcd


def _grid(c: Sequence[int]) -> list[list[int]]:
    """Every count vector s ≤ c."""
    return [list(s) for s in itertools.product(*(range(int(v) + 1) for v in c))]


__all__ = ["DEFAULT_MAX_ENTRIES", "DEFAULT_MAX_SAMPLE_ENTRIES", "Atoms", "ExactLaws", "SampleMemo", "SampleTable", "canonical_records"]
