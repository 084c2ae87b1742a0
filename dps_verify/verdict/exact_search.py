"""The exact search: every neighbouring pair up to a size, smallest witness first.

Datasets are enumerated as count vectors over the atoms (:mod:`dps_verify.engine.count_vectors`), level by level:
all datasets of 1 record, then of 2, … up to ``max_size``, each level in canonical order.  The
neighbours of D are D − x for every record x of D (add/remove one record, CP §2.1), so a level
holds every pair whose larger dataset has that size.  The search stops at the first level
holding a violation, so the witness is *minimal*: every pair with fewer records was checked and
needs no more than the claimed δ.

Per level: (1) the anonymizer is called on the new samples only (each distinct sample once);
(2) every pair is screened in floats with a rigorous error bound (:mod:`.screen`, on the
executor of :mod:`.executor`); (3) every pair the screen cannot clear — possible violations,
and margins smaller than the error bound — is decided in exact rational arithmetic (laws as
Fractions, the bad set decided exactly, e^ε enclosed by interval arithmetic).  No verdict rests
on an unchecked float.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Number, exp_interval
from dps_verify.core.types import Claim, DefinitionLike, NeighbouringLike
from dps_verify.engine.count_vectors import Atoms, ExactLaws, SampleMemo, SampleTable
from dps_verify.engine.randomized import randomized
from dps_verify.measures.divergence import (
    delta_certified,
    delta_exceeds,
)
from dps_verify.verdict.executor import Executor, choose_executor
from dps_verify.verdict.screen import binomial_table, screen_chunk
from dps_verify.verdict.witness import EXACT_DECISION_NOTE, Witness, witness_from_laws

#: Default work budget of an exhaustive search, in enumeration terms (grid cells × neighbours).
DEFAULT_WORK_BUDGET = 120_000_000
#: Show a progress bar when the estimated work exceeds this many terms (a few seconds).
PROGRESS_THRESHOLD = 8_000_000
CHUNK_TERMS = 400_000
#: Neighbouring relations: add/remove one record (CP §2.1, the default) or replace one.
RELATIONS = ("add-remove", "replace-one")
#: Largest number of samples (of ≤ max_size records) indexed densely by rank.
DENSE_SAMPLES = 20_000_000
#: The level-by-parents screen is used while the anonymizer has produced at most this many
#: distinct outputs (its per-output arrays grow with them); beyond, the per-dataset screen.
PARENT_MAX_OUTPUTS = 2048


def estimate_work(m: int, n: int, parents: bool = False) -> int:
    """Enumeration terms of an exhaustive search over ``m`` atoms up to size ``n``.

    Per-dataset screen: Σ over datasets D of Π(c_i + 1) (the sub-samples) times the
    neighbours, bounded by (n + 1) · C(n + 2m, 2m) (pairs (sample, rest) with
    |sample| + |rest| ≤ n).  Level-by-parents screen (``parents``, deterministic code with a
    dense sample index, :meth:`PairChecker.screen_level`): each dataset E of ≤ n − 1 records
    enumerates its sub-samples once for all m neighbours E + x: (m + 1) · C(n − 1 + 2m, 2m).
    """
    if parents and n >= 1 and math.comb(n + m, m) <= DENSE_SAMPLES:
        return (m + 1) * math.comb(n - 1 + 2 * m, 2 * m)
    return (min(n, m) + 1) * math.comb(n + 2 * m, 2 * m)


def _parent_terms(m: int, n: int) -> int:
    """Average sub-samples of a dataset of n − 1 records, times the m + 1 lookups."""
    grid = math.comb(n + 2 * m - 2, 2 * m - 1)
    return max(1, (m + 1) * grid // max(math.comb(n + m - 2, m - 1), 1))


def count_datasets(m: int, n: int) -> int:
    """Number of multisets of size 1..n over m atoms."""
    return math.comb(n + m, m) - 1


def level_counts(m: int, n: int) -> np.ndarray:
    """All count vectors of total ``n`` over ``m`` atoms, in canonical order."""
    rows = []
    for combo in itertools.combinations_with_replacement(range(m), n):
        rows.append(np.bincount(combo, minlength=m))
    return np.array(rows, dtype=np.int64).reshape(-1, m)


@dataclass
class SearchResult:
    """What an exhaustive search did and found.

    ``witness`` is the minimal violating pair (None on PASS); ``max_size`` the largest |D| whose
    pairs were all checked; ``pairs`` the number of neighbouring pairs checked; ``samples`` the
    number of distinct samples anonymized; ``exact_checks`` the pairs decided exactly;
    ``worst`` the largest screened δ (float evidence) and where; ``undecided`` pairs whose
    certified enclosure straddles the claim (never silently passed).
    """

    witness: Witness | None
    max_size: int
    requested_size: int
    sizes: list[int]
    pairs: int
    datasets: int
    samples: int
    exact_checks: int
    error_bound: float
    atoms: int
    reduction: str | None
    worst: dict | None = None
    undecided: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 1
    #: the memo of every sample anonymized (for :mod:`.recognise`); not part of the verdict
    table: SampleTable | None = field(default=None, repr=False, compare=False)

    def coverage(self) -> str:
        red = f" ({self.reduction})" if self.reduction else ""
        return (f"{self.pairs} neighbouring pairs over {self.atoms} domain values{red}, every "
                f"dataset of 1..{self.max_size} records; {self.samples} distinct samples "
                f"anonymized; {self.exact_checks} pairs decided in exact arithmetic")


def _integer_enclosure(laws: ExactLaws, c: Sequence[int], c2: Sequence[int],
                       eps: Fraction) -> tuple[Fraction, Fraction] | None:
    """Enclosure [lower, upper] of the hockey-stick δ of (A^β(c), A^β(c2)) in integer
    arithmetic (both laws over one common denominator), when every output's side of the bad
    set is decided by the rational enclosure of e^ε; else None (the Fraction path decides)."""
    A, da = laws.weights(c)
    B, db = laws.weights(c2)
    den = math.lcm(da, db)
    fa, fb = den // da, den // db
    lo_e, hi_e = exp_interval(eps) if eps else (Fraction(1), Fraction(1))
    ln, ld, hn, hd = lo_e.numerator, lo_e.denominator, hi_e.numerator, hi_e.denominator
    lower = upper = Fraction(0)
    for X, Y, fx, fy in ((A, B, fa, fb), (B, A, fb, fa)):
        sx = sy = 0
        for o, xv in X.items():
            if not xv:
                continue
            yv = int(Y.get(o, 0)) * fy
            xv = int(xv) * fx
            if yv == 0 or xv * hd > hn * yv:
                sx += xv
                sy += yv
            elif not xv * ld <= ln * yv:
                return None  # e^ε not separated from this output's ratio
        lower = max(lower, Fraction(sx, 1) - hi_e * sy)
        upper = max(upper, Fraction(sx, 1) - lo_e * sy)
    return lower / den, upper / den


def _decide_integer(laws: ExactLaws, c: Sequence[int], c2: Sequence[int], eps: Fraction,
                    d: Fraction) -> str | None:
    """Hockey-stick shortcut in integer arithmetic: "ok" when the upper end of
    :func:`_integer_enclosure` is within the claim; else None (the Fraction path decides, and
    builds the witness of a violation)."""
    enc = _integer_enclosure(laws, c, c2, eps)
    return "ok" if enc is not None and enc[1] <= d else None


def decide_pair(
    laws: ExactLaws, counts: Sequence[int], x: int, eps: Fraction, d: Fraction, definition: DefinitionLike,
    **info: Any,
) -> tuple[str, Witness | None]:
    """Decide the pair (D, D − x) exactly: ("violation" | "ok" | "undecided", witness); the
    witness is None for a pair settled "ok" in integer arithmetic."""
    c = [int(v) for v in counts]
    c2 = list(c)
    c2[x] -= 1
    return decide_counts(laws, c, c2, laws.table.atoms.values[x], eps, d, definition, **info)


def decide_counts(
    laws: ExactLaws, c: list[int], c2: list[int], target: Any, eps: Fraction, d: Fraction,
    definition: DefinitionLike, **info: Any,
) -> tuple[str, Witness | None]:
    """Decide any pair of count vectors exactly (see :func:`decide_pair`)."""
    atoms = laws.table.atoms
    if definition == "hockey-stick":
        quick = _decide_integer(laws, c, c2, eps, d)
        if quick == "ok":
            return "ok", None
    P, Q = laws.law(c), laws.law(c2)
    D, D2 = atoms.records(c), atoms.records(c2)
    w = witness_from_laws(P, Q, eps, D, D2, definition, target=target, **info)
    if definition == "pointwise":
        # exact, so never undecided: the witness's mass is the pointwise δ itself (TR Def. 2:
        # the larger mass of the union of the two directions' bad sets, decided exactly by
        # divergence._bad_set_forward; the value divergence.pointwise_delta_exact gives)
        return ("violation" if w.implied_delta > d else "ok"), w
    # the witness's implied δ, P(E) − ⌈e^ε⌉·Q(E) for its exact bad set E, is a certified lower
    # bound of δ (CP Def. 2 takes the sup over events), so above d it is a violation
    if w.implied_delta > d:
        return "violation", w
    if delta_certified(P, Q, eps).upper <= d:
        return "ok", w
    # the enclosure reaches above d but the witness's certified mass does not: decide δ > d
    # exactly (one comparison of e^ε with a rational per direction,
    # measures.divergence.delta_exceeds)
    if not delta_exceeds(P, Q, eps, d):
        return "ok", w
    return "violation", replace(w, note=EXACT_DECISION_NOTE)


_DBL_MAX = sys.float_info.max


def _float_clamped(x: Fraction, up: bool = False) -> float:
    """``float(x)`` (one step up with ``up``), clamped to the largest finite float.

    Clamping e^ε (ε > ~709.78) is sound for the screen: in integer mode every mass is an
    integer below 2^53, so any e ≥ 2^53 puts the same outputs on the bad side (exactly those
    with no mass on the other side) and an e below e^ε only widens "possible"; in float mode the
    error bound grows with e, so no pair is cleared or convicted by the screen and each goes to
    exact arithmetic (status 2)."""
    if x >= _DBL_MAX:
        return _DBL_MAX
    f = float(x)
    return min(math.nextafter(f, math.inf), _DBL_MAX) if up else f


class PairChecker:
    """Screens batches of datasets and decides the doubtful pairs exactly (shared by the
    exhaustive search and the leak-shape search, so both use one sample table and one law
    cache)."""

    #: output id by dense rank and the table rows it covers (:meth:`_rank_T` makes them)
    _oor: np.ndarray
    _oor_rows: int

    def __init__(self, table: SampleTable, beta: Fraction, eps: Fraction, d: Fraction,
                 definition: DefinitionLike, executor: Executor):
        self.table, self.beta, self.eps, self.d = table, beta, eps, d
        self.definition = definition
        self.executor = executor
        self.laws = ExactLaws(table, beta)
        e_hi = exp_interval(eps)[1] if eps else Fraction(1)
        self.e_f = _float_clamped(e_hi)
        self.d_f = float(d)
        self._pmf: dict[tuple[int, bool], np.ndarray] = {}
        self.pairs = 0
        self.exact_checks = 0
        self.err_max = 0.0
        self.worst: dict | None = None
        self.undecided: list[Witness] = []
        self._T: np.ndarray | None = None  # with _oor and _oor_rows, set by _rank_T

    def _setup(self, n: int) -> tuple[np.ndarray, dict | None]:
        q = self.beta.denominator
        integer = not self.table.is_randomized and q**n < 2**53
        key = (n, integer)
        if key not in self._pmf:
            self._pmf[key] = binomial_table(self.beta.numerator, q, n, integer=integer)
        if not integer:
            return self._pmf[key], None
        lo_e, hi_e = exp_interval(self.eps)  # (1, 1) at ε = 0
        d = self.d
        ex = {
            "q": q,
            "p": self.beta.numerator,
            "e_lo": 1.0 if self.eps == 0 else math.nextafter(_float_clamped(lo_e), -math.inf),
            "e_hi": 1.0 if self.eps == 0 else _float_clamped(hi_e, up=True),
            "T": {n: float(d * q**n)},
            "Tfloor": {n: float(math.floor(d * q**n))},
        }
        return self._pmf[key], ex

    def screen(self, counts: np.ndarray, bar: Any = None,
               complete: bool = False) -> list[tuple[int, float, int, int]]:
        """Screen every pair (D, D − x) of ``counts`` (datasets of one size); returns the pairs
        the screen cannot clear as (status, −δ̂, dataset row, atom), certain violations first.
        ``complete``: the datasets and all their sub-samples are already in the table (the
        exhaustive search goes level by level); otherwise they are anonymized first."""
        if len(counts) == 0:
            return []
        if self.beta == 1 and not complete:
            return self._screen_without_sampling(counts)
        n = int(counts[0].sum())
        if not complete:
            self.table.ensure_subsamples(counts)
        tab = self.table.arrays()
        pmf, ex = self._setup(n)
        m = counts.shape[1]
        # terms per dataset, at least 1: the bound (min(n, m) + 1)·C(n + 2m, 2m) exceeds the
        # C(n + m, m) − 1 datasets of 1..n records (n, m >= 1)
        per = estimate_work(m, n) // count_datasets(m, n)
        step = max(1, CHUNK_TERMS // per)
        jobs = [(tab, pmf, counts[i:i + step], self.e_f, self.d_f,
                 self.definition == "pointwise", ex) for i in range(0, len(counts), step)]
        results = self.executor.map(screen_chunk, jobs)
        base = 0
        cand: list[tuple[int, float, int, int]] = []
        atoms = self.table.atoms
        for job, (di, xi, dh, er, st, terms) in zip(jobs, results):
            self.pairs += len(dh)
            if len(dh):
                self.err_max = max(self.err_max, float(er[st != 2].max(initial=0.0)))
                k = int(np.argmax(dh))
                if self.worst is None or dh[k] > self.worst["delta_screened"]:
                    self.worst = {"delta_screened": float(dh[k]), "size": n,
                                  "dataset": atoms.records(counts[base + di[k]]),
                                  "target": atoms.values[int(xi[k])]}
                sel = np.flatnonzero(st != 0)
                cand.extend((0 if st[s] == 1 else 1, -float(dh[s]), base + int(di[s]),
                             int(xi[s])) for s in sel)
            base += len(job[2])
            if bar is not None:
                bar.advance(terms)
        cand.sort()
        return cand

    def _screen_without_sampling(self, counts: np.ndarray) -> list[tuple[int, float, int, int]]:
        """:meth:`screen` at β = 1: A^β(D) = A(D), so a pair (D, D − x) needs the two samples
        D and D − x only (none of D's other sub-samples, which a pipeline that samples by
        itself pays for dearly; the laws anonymize each of them once, on demand).
        Hockey-stick pairs are enclosed in integer arithmetic (:func:`_integer_enclosure`):
        cleared when the upper end is within the claim, else left to the exact decision,
        largest upper end first; pointwise pairs, and pairs whose outputs the enclosure of e^ε
        cannot place, all go to the exact decision (last).  Same candidate format, every status
        1 ("decide exactly"): e^ε is enclosed to many bits, so a claim lies between the ends
        of an enclosure only on a near-tie, and the split of :meth:`screen` into certain and
        possible violations would hardly change the order of the exact decisions."""
        atoms = self.table.atoms
        cand: list[tuple[int, float, int, int]] = []
        for i, c in enumerate([int(v) for v in row] for row in counts.tolist()):
            for x in range(len(c)):
                if not c[x]:
                    continue
                c2 = list(c)
                c2[x] -= 1
                self.pairs += 1
                enc = (_integer_enclosure(self.laws, c, c2, self.eps)
                       if self.definition == "hockey-stick" else None)
                dh = 0.0
                if enc is not None:
                    dh = float(enc[1])
                    if self.worst is None or dh > self.worst["delta_screened"]:
                        self.worst = {"delta_screened": dh, "size": sum(c),
                                      "dataset": atoms.records(c), "target": atoms.values[x]}
                    if enc[1] <= self.d:
                        continue
                cand.append((1, -dh, i, x))
        cand.sort()
        return cand

    def dense_ok(self, size: int) -> bool:
        """Whether the level-by-parents screen applies: deterministic anonymizer and a dense
        rank index over every sample of ≤ ``size`` records of moderate size."""
        m = self.table.atoms.m
        return not self.table.is_randomized and math.comb(size + m, m) <= DENSE_SAMPLES

    def screen_level(self, n: int, counts: np.ndarray, parents: np.ndarray, size: int,
                     bar: Any = None, relation: NeighbouringLike = "add-remove",
                     ) -> list[tuple[int, float, int, int]]:
        """Screen every pair of level n (|D| = n) by its smaller dataset E = D − x
        (:func:`~dps_verify.verdict.screen.screen_parents`); ``counts`` are all datasets of
        size n (canonical order; candidates index into it), ``parents`` all of size n − 1;
        every dataset of ≤ n records is in the table already (the search adds each level
        before screening it).  Same candidates and statuses as :meth:`screen` (the laws are
        the same numbers).
        ``relation="replace-one"``: the pairs (E + x, E + y), x < y; candidates are then
        (status, −δ̂, parent row, x·m + y)."""
        from dps_verify.verdict.screen import count_ranks, screen_parents

        m = counts.shape[1]
        T = self._rank_T(m, size)
        oor = self._out_of_rank(T, m, size)
        pmf, ex = self._setup(n)
        tab = {"rank_T": T, "out_of_rank": oor, "n_outputs": max(len(self.table.outputs), 1),
               "beta_f": float(self.beta), "one_minus_beta_f": float(1 - self.beta)}
        replace = relation == "replace-one"
        step = max(1, CHUNK_TERMS // (_parent_terms(m, n) * (m if replace else 1)))
        jobs = [(tab, pmf, parents[i:i + step], self.e_f, self.d_f,
                 self.definition == "pointwise", ex, n, relation)
                for i in range(0, len(parents), step)]
        results = self.executor.map(screen_parents, jobs)
        rank_of_d = count_ranks(counts, T)
        order = np.argsort(rank_of_d)
        sorted_ranks = rank_of_d[order]
        atoms = self.table.atoms
        cand: list[tuple[int, float, int, int]] = []
        start = 0
        for job, (di, xi, dh, er, st, terms) in zip(jobs, results):
            E = job[2]
            self.pairs += len(dh)
            if replace:
                start = self._replace_candidates(E, start, n, di, xi, dh, er, st, cand)
            elif len(dh):
                self.err_max = max(self.err_max, float(er[st != 2].max(initial=0.0)))
                k = int(np.argmax(dh))
                Dk = E[di[k]].copy()
                Dk[xi[k]] += 1
                if self.worst is None or dh[k] > self.worst["delta_screened"]:
                    self.worst = {"delta_screened": float(dh[k]), "size": n,
                                  "dataset": atoms.records(Dk), "target": atoms.values[int(xi[k])]}
                sel = np.flatnonzero(st != 0)
                if len(sel):
                    Ds = E[di[sel]].copy()
                    Ds[np.arange(len(sel)), xi[sel]] += 1
                    rows = order[np.searchsorted(sorted_ranks, count_ranks(Ds, T))]
                    cand.extend((0 if st[s_] == 1 else 1, -float(dh[s_]), int(r), int(xi[s_]))
                                for s_, r in zip(sel, rows))
            if bar is not None:
                bar.advance(terms)
        cand.sort()
        return cand

    def _replace_candidates(self, E: np.ndarray, start: int, n: int, di: np.ndarray,
                            xi: np.ndarray, dh: np.ndarray, er: np.ndarray, st: np.ndarray,
                            cand: list) -> int:
        m = E.shape[1]
        atoms = self.table.atoms
        if len(dh):
            self.err_max = max(self.err_max, float(er[st != 2].max(initial=0.0)))
            k = int(np.argmax(dh))
            if self.worst is None or dh[k] > self.worst["delta_screened"]:
                x, y = divmod(int(xi[k]), m)
                Dk = E[di[k]].copy()
                Dk[x] += 1
                self.worst = {"delta_screened": float(dh[k]), "size": n,
                              "dataset": atoms.records(Dk), "target": atoms.values[x],
                              "replacement": atoms.values[y]}
            sel = np.flatnonzero(st != 0)
            cand.extend((0 if st[s_] == 1 else 1, -float(dh[s_]), start + int(di[s_]),
                         int(xi[s_])) for s_ in sel)
        return start + len(E)

    def first_violation_replace(self, parents: np.ndarray, cand: list,
                                **info: Any) -> Witness | None:
        """:meth:`first_violation` for replace-one candidates (parent row, x·m + y)."""
        m = parents.shape[1]
        for _st, _dh, i, code in cand:
            x, y = divmod(code, m)
            c = [int(v) for v in parents[i]]
            c2 = list(c)
            c[x] += 1
            c2[y] += 1
            self.exact_checks += 1
            status, w = decide_counts(self.laws, c, c2, self.table.atoms.values[x], self.eps,
                                      self.d, self.definition, **info)
            if status == "violation":
                return w
            if status == "undecided" and w is not None:
                self.undecided.append(w)
        return None

    def _rank_T(self, m: int, size: int) -> np.ndarray:
        from dps_verify.verdict.screen import rank_table

        if self._T is None or self._T.shape != (m, size + 2):
            self._T = rank_table(m, size)
            self._oor = np.full(math.comb(size + m, m), -1, dtype=np.int64)
            self._oor_rows = 0
        return self._T

    def _out_of_rank(self, T: np.ndarray, m: int, size: int) -> np.ndarray:
        """Output id of every sample in the table, indexed by dense rank (filled as the table
        grows; -1 for a sample not anonymized yet)."""
        from dps_verify.verdict.screen import count_ranks

        t = self.table
        new = len(t.row_law) - self._oor_rows
        if new:
            keys = np.array(t._keys[self._oor_rows:], dtype=np.int64)
            pw = np.array(t.pow, dtype=np.int64)
            C = (keys[:, None] // pw[None, :]) % t.radix
            ids = np.array([t.row_law[r][0][0] for r in range(self._oor_rows, len(t.row_law))],
                           dtype=np.int64)
            self._oor[count_ranks(C, T)] = ids
            self._oor_rows = len(t.row_law)
        return self._oor

    def first_violation(self, counts: np.ndarray, cand: list, **info: Any) -> Witness | None:
        """Decide the screened candidates exactly, certain violations first; the first
        confirmed violation (or None)."""
        for _st, _dh, i, x in cand:
            self.exact_checks += 1
            status, w = decide_pair(self.laws, counts[i], x, self.eps, self.d, self.definition,
                                    **info)
            if status == "violation":
                return w
            if status == "undecided" and w is not None:
                self.undecided.append(w)
        return None


def exhaustive_search(
    anonymizer: Callable,
    domain: Sequence[Hashable],
    claim: Claim | None = None,
    *,
    beta: Number | None = None,
    epsilon: Number | None = None,
    delta: Number | None = None,
    definition: DefinitionLike | None = None,
    max_size: int = 12,
    work_budget: int = DEFAULT_WORK_BUDGET,
    executor: Executor | str | None = None,
    progress: bool | None = None,
    relation: NeighbouringLike = "add-remove",
    memo: SampleMemo | None = None,
) -> SearchResult:
    """Check every neighbouring pair (D, D − x) with |D| ≤ ``max_size`` over ``domain``, smallest
    first, and return the minimal witness of a violation of (ε, δ) under β-sampling (CP Def. 3)
    or a PASS over the sizes covered.  The claim is a :class:`~dps_verify.core.types.Claim` or
    the keyword arguments ``beta``, ``epsilon``, ``delta``, ``definition`` (hockey-stick).

    ``relation="replace-one"`` checks the pairs (D, D − r + r') instead (every |D| ≤
    ``max_size``, r in D, r' ≠ r; the witness has the fewest records).

    If the estimated work (:func:`estimate_work`) exceeds ``work_budget``, the search is cut to
    the largest size that fits and a warning (and ``notes``) says so.  ``executor``: ``None``
    (serial for small work, all cores otherwise), ``"serial"``, ``"process"`` or an object with
    ``map``; the verdict and witness do not depend on it.  ``memo``: a
    :class:`~dps_verify.engine.count_vectors.SampleMemo` shared with other searches of the same
    anonymizer (each distinct sample's law computed once across them).
    """
    t0 = time.perf_counter()
    claimed = Claim.of(claim, beta=beta, epsilon=epsilon, delta=delta, definition=definition)
    b, eps, d = claimed.beta, claimed.epsilon, claimed.delta
    definition = claimed.definition
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ParameterError(f"max_size must be an integer >= 1, got {max_size!r}")
    if relation not in RELATIONS:
        raise ParameterError(f"relation must be one of {RELATIONS}, got {relation!r}")
    replace = relation == "replace-one"
    atoms = Atoms(anonymizer, domain)
    m = atoms.m
    notes: list[str] = []
    size = max_size
    par = not isinstance(anonymizer, randomized)

    def cost(n: int) -> int:
        w = estimate_work(m, n, par)
        return w * max(1, (m - 1) // 2) if replace else w

    while size > 1 and cost(size) > work_budget:
        size -= 1
    if size < max_size:
        msg = (f"exhaustive search up to {max_size} records over {m} values needs about "
               f"{cost(max_size):,} enumeration terms (budget {work_budget:,}); "
               f"searching every dataset up to {size} records instead (raise work_budget to "
               f"search further)")
        warnings.warn(msg, stacklevel=2)
        notes.append(msg)
    table = SampleTable(anonymizer, atoms, radix=size + 1, memo=memo)
    work = cost(size)
    ex = choose_executor(work, executor)
    own_executor = not (executor is not None and not isinstance(executor, str))
    chk = PairChecker(table, b, eps, d, definition, ex)
    datasets = 0
    witness: Witness | None = None
    sizes: list[int] = []
    bar = _progress(work, progress)
    try:
        table.ensure([[0] * m])
        dense = chk.dense_ok(size) and table.vector_keys
        prev = np.zeros((1, m), dtype=np.int64)
        for n in range(1, size + 1):
            counts = level_counts(m, n)
            table.ensure(counts)
            use_parents = dense and len(table.outputs) <= PARENT_MAX_OUTPUTS
            if replace:
                if use_parents:
                    cand = chk.screen_level(n, counts, prev, size, bar, relation=relation)
                else:  # randomized or very many outputs: every pair decided exactly
                    cand = [(1, 0.0, i, x * m + y) for i in range(len(prev))
                            for x in range(m) for y in range(x + 1, m)]
                    chk.pairs += len(cand)
                witness = chk.first_violation_replace(prev, cand, shape="exhaustive (replace-one)",
                                                      minimal=not chk.undecided)
            else:
                if use_parents:
                    cand = chk.screen_level(n, counts, prev, size, bar)
                else:
                    cand = chk.screen(counts, bar, complete=True)
                witness = chk.first_violation(counts, cand, shape="exhaustive",
                                              minimal=not chk.undecided)
            prev = counts
            datasets += len(counts)
            sizes.append(n)
            if witness is not None:
                break
    finally:
        if bar is not None:
            bar.stop()
        if own_executor:
            ex.close()
    return SearchResult(
        witness, sizes[-1], max_size, sizes, chk.pairs, datasets,  # size >= 1: never empty
        len(table.row_law), chk.exact_checks, chk.err_max, m,
        (f"records grouped by the anonymizer's sufficient_statistic into {m} classes"
         if atoms.statistic is not None else None),
        chk.worst, chk.undecided, notes, time.perf_counter() - t0, getattr(ex, "workers", 1),
        table,
    )


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


class _Bar:
    """A rich progress bar on stderr, advanced by enumeration terms; transient (it disappears
    when the search ends)."""

    def __init__(self, total: int):
        from rich.progress import Progress

        self.progress = Progress(console=_console(), transient=True)
        self.task = self.progress.add_task("exact search", total=total)
        self.progress.start()

    def advance(self, n: int) -> None:
        self.progress.advance(self.task, n)

    def stop(self) -> None:
        self.progress.stop()


def _progress(work: int, progress: bool | None) -> _Bar | None:
    """A bar when asked (``progress=True``), or by default when the estimated work is above
    :data:`PROGRESS_THRESHOLD` and stderr is an interactive terminal outside CI (the ``CI``
    environment variable set means no bar unless asked)."""
    if progress is False or (progress is None and work < PROGRESS_THRESHOLD):
        return None
    if progress is None:
        import os
        import sys

        if os.environ.get("CI") or not sys.stderr.isatty():
            return None
    return _Bar(work)


def raise_undecided(res: SearchResult) -> None:
    """Raise :class:`CertificationError` if some pair could not be decided either way."""
    if res.undecided and res.witness is None:
        w = res.undecided[0]
        raise CertificationError(
            f"{len(res.undecided)} pair(s) need a delta whose certified enclosure straddles the "
            f"claim (e.g. D = {list(w.dataset)!r}); the exact bad set was found but e^eps could "
            "not be separated within the interval precision limit")


__all__ = [
    "DEFAULT_WORK_BUDGET",
    "SearchResult",
    "decide_pair",
    "estimate_work",
    "exhaustive_search",
    "level_counts",
    "raise_undecided",
    "shape_search",
]


def shape_search(
    anonymizer: Callable,
    domain: Sequence[Hashable],
    claim: Claim | None = None,
    *,
    beta: Number | None = None,
    epsilon: Number | None = None,
    delta: Number | None = None,
    definition: DefinitionLike | None = None,
    ks: Sequence[int] | None = None,
    max_records: int = 96,
    work_budget: int = 4_000_000,
    executor: Executor | str | None = None,
    max_multi: int | None = None,
    memo: SampleMemo | None = None,
) -> SearchResult:
    """Check the pairs of :func:`dps_verify.verdict.shapes.leak_shapes` (datasets beyond the
    exhaustive sizes), smallest datasets first, with the same screen and exact confirmation;
    the witness is the smallest violating shape tried (not proven minimal).  ``max_multi``
    caps the multi-bulk shapes (crowds and a target beside one bulk go up to ``max_records``);
    ``memo`` and the claim as for :func:`exhaustive_search`."""
    from collections import defaultdict

    from dps_verify.verdict.shapes import leak_shapes

    t0 = time.perf_counter()
    claimed = Claim.of(claim, beta=beta, epsilon=epsilon, delta=delta, definition=definition)
    b, eps, d = claimed.beta, claimed.epsilon, claimed.delta
    definition = claimed.definition
    if ks is not None:
        ks = list(ks)
        if any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in ks):
            raise ParameterError(f"ks must be integers >= 1 (suppression thresholds), got {ks!r}")
    atoms = Atoms(anonymizer, domain)
    m = atoms.m
    if ks is None:
        ks = sorted({v for name in ("k", "threshold") for v in
                     [getattr(anonymizer, name, None)] if isinstance(v, int) and v >= 1} or
                    {2, 3, 4, 5})
    radix = max_records + 1
    while radix ** m >= 2**62 and radix > 13:
        radix //= 2
    by_size: dict[int, list] = defaultdict(list)
    spent = 0
    notes: list[str] = []
    for shape, counts, _t in leak_shapes(atoms.values, ks=ks, beta=b, eps=eps,
                                         max_records=min(max_records, radix - 1),
                                         max_multi=max_multi):
        cost = math.prod(c + 1 for c in counts.values()) * (len(counts) + 1)
        if spent + cost > work_budget:
            notes.append(f"shape search stopped at its work budget ({work_budget:,} terms)")
            break
        spent += cost
        row = [0] * m
        for i, c in counts.items():
            row[i] = c
        by_size[sum(row)].append((row, shape))
    table = SampleTable(anonymizer, atoms, radix=radix, memo=memo)
    ex = choose_executor(spent, executor)
    chk = PairChecker(table, b, eps, d, definition, ex)
    witness = None
    sizes: list[int] = []
    n_ds = 0
    try:
        for n in sorted(by_size):
            level = by_size[n]
            arr = np.array([r for r, _ in level], dtype=np.int64)
            found = chk.screen(arr)
            n_ds += len(level)
            sizes.append(n)
            for pick in found:
                w = chk.first_violation(arr, [pick], shape=level[pick[2]][1])
                if w is not None:
                    witness = w
                    break
            if witness is not None:
                break
    finally:
        if not (executor is not None and not isinstance(executor, str)):
            ex.close()
    return SearchResult(
        witness, max(sizes, default=0), max_records, sizes, chk.pairs, n_ds, len(table.row_law),
        chk.exact_checks, chk.err_max, m, None, chk.worst, chk.undecided, notes,
        time.perf_counter() - t0, getattr(ex, "workers", 1))
