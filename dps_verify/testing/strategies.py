"""Hypothesis strategies for neighbouring datasets, parameters and mechanisms (CP §2–§3).

Everything here is small on purpose: the exact engine (:mod:`dps_verify.exact`) enumerates
sub-samples by count vectors, so datasets made of a few distinct records with many duplicates
are cheap even when they are long.  All strategies shrink towards readable cases: the empty
dataset, one recoding group, the smallest k, the sampling rate 1/2, the smallest ε allowed by
CP Thm 5's precondition ε ≥ −ln(1−β).

Conventions
-----------
- A *record* is a tuple of small non-negative integers (one entry per attribute), so Mondrian
  and clustering-based recodings (CP §3.1, Alg. 1) can compute ranges on it.
- A *dataset* is a multiset, represented as a sorted tuple of records.
- A *neighbouring pair* ``(D, D2)`` differs by one record added or removed (CP §2.1), or, with
  ``relation="replace-one"``, by one record replaced.
- Probabilities are exact :class:`fractions.Fraction`; ε values are exact rationals.

Composable building blocks: :func:`domains`, :func:`datasets`, :func:`neighbours`,
:func:`recodings`, :func:`ks`, :func:`betas`, :func:`epsilons`, :func:`sdgs_params`,
:func:`strongly_safe_anonymizers`, :func:`epsilon_safe_anonymizers`,
:func:`stochastic_matrices`, :func:`finite_mechanisms`, :func:`kernels`, :func:`mixtures`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement

import mpmath
from hypothesis import strategies as st

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import BASE_PREC, iv_from_fraction, iv_precision, iv_upper
from dps_verify.core.params import in_paper_regime, neg_log1m_float
from dps_verify.core.types import NeighbouringLike
from dps_verify.engine.distribution import randomized
from dps_verify.mechanisms import EpsilonSafeKAnonymizer, StronglySafeKAnonymizer

Record = tuple[int, ...]
Dataset = tuple[Hashable, ...]

#: Dataset shapes that matter for CP Thm 5/6 and CP §3.1.
SHAPES = ("any", "empty", "tiny", "duplicates", "outlier", "near-threshold")
RELATIONS = ("add-remove", "replace-one")


def canonical(dataset: Sequence[Hashable]) -> Dataset:
    """The canonical form of a multiset: its records sorted by ``repr``."""
    return tuple(sorted(dataset, key=repr))


# --------------------------------------------------------------------------- records, datasets


@st.composite
def domains(
    draw: st.DrawFn, *, max_attributes: int = 2, max_value: int = 3, max_records: int = 4
) -> tuple[Record, ...]:
    """A small record domain: 1..``max_records`` distinct records with 1..``max_attributes``
    integer attributes in ``[0, max_value]``.  Shrinks to the one-record domain ``((0,),)``."""
    n_attr = draw(st.integers(1, max_attributes))
    rec = st.tuples(*[st.integers(0, max_value)] * n_attr)
    recs = draw(st.lists(rec, min_size=1, max_size=max_records, unique=True))
    return tuple(sorted(recs))


def n_near_threshold(k: int, beta: Fraction, eps: Fraction) -> int:
    """n_m = ⌈k/γ − 1⌉ (CP Thm 5, App. A.2), the smallest group size whose bad outcomes are
    governed by γn rather than by k; decided exactly."""
    from dps_verify.worstcase.sdgs import n_min

    return n_min(k, Fraction(beta), Fraction(eps))


@st.composite
def datasets(
    draw: st.DrawFn,
    domain: Sequence[Hashable],
    *,
    max_size: int = 6,
    shape: str | None = None,
    params: tuple[int, Fraction, Fraction] | None = None,
    max_group: int = 40,
) -> Dataset:
    """A multiset over ``domain`` (sorted tuple), in one of :data:`SHAPES` (drawn if ``None``).

    - ``"any"``: up to ``max_size`` records drawn from the domain;
    - ``"empty"`` and ``"tiny"`` (1–2 records);
    - ``"duplicates"``: one record repeated up to ``max_group`` times (plus a few others);
    - ``"outlier"``: many copies of the domain's first record and one copy of its last;
    - ``"near-threshold"``: with ``params = (k, β, ε)``, a group of n ≈ ⌈k/γ−1⌉ copies of one
      record (n_m − 1 … n_m + 2, CP App. A.2), plus up to two other records.
    """
    dom = list(domain)
    if not dom:
        raise ParameterError("domain must not be empty")
    shapes = [s for s in SHAPES if s != "near-threshold" or params is not None]
    shape = shape or draw(st.sampled_from(shapes))
    rec = st.sampled_from(dom)
    if shape == "any":
        out = draw(st.lists(rec, max_size=max_size))
    elif shape == "empty":
        out = []
    elif shape == "tiny":
        out = draw(st.lists(rec, min_size=1, max_size=2))
    elif shape == "duplicates":
        r = draw(rec)
        out = [r] * draw(st.integers(2, max_group)) + draw(st.lists(rec, max_size=2))
    elif shape == "outlier":
        out = [dom[0]] * draw(st.integers(1, max_group)) + [dom[-1]]
    elif shape == "near-threshold":
        if params is None:
            raise ParameterError('shape "near-threshold" needs params=(k, beta, epsilon)')
        n = n_near_threshold(*params) + draw(st.integers(-1, 2))
        r = draw(rec)
        out = [r] * max(n, 1) + draw(st.lists(rec, max_size=2))
    else:
        raise ParameterError(f"shape must be one of {SHAPES}, got {shape!r}")
    return canonical(out)


def _remove_one(ds: Dataset, r: Hashable) -> Dataset:
    i = ds.index(r)
    return ds[:i] + ds[i + 1 :]


@st.composite
def neighbours(
    draw: st.DrawFn,
    domain: Sequence[Hashable],
    *,
    data: st.SearchStrategy[Dataset] | None = None,
    relation: NeighbouringLike = "add-remove",
    max_size: int = 6,
) -> tuple[Dataset, Dataset]:
    """A neighbouring pair ``(D, D2)`` over ``domain``.

    ``relation="add-remove"`` (CP §2.1, the paper's relation): D2 is D with one record added or
    removed.  ``relation="replace-one"``: D2 is D with one record replaced by another domain
    record (D non-empty).  ``data`` defaults to :func:`datasets` over ``domain``.
    """
    dom = list(domain)
    base = draw(data if data is not None else datasets(dom, max_size=max_size))
    rec = st.sampled_from(dom)
    if relation == "add-remove":
        # mypy infers draw's result in the context of `base` (left of `and`); the draw is a bool
        if base and draw(st.booleans()):  # type: ignore[arg-type]
            return base, _remove_one(base, draw(st.sampled_from(sorted(set(base), key=repr))))
        return base, canonical(base + (draw(rec),))
    if relation == "replace-one":
        if not base:
            base = (draw(rec),)
        old = draw(st.sampled_from(sorted(set(base), key=repr)))
        return base, canonical(_remove_one(base, old) + (draw(rec),))
    raise ParameterError(f"relation must be one of {RELATIONS}, got {relation!r}")


def all_datasets(domain: Sequence[Hashable], max_size: int) -> list[Dataset]:
    """Every multiset over ``domain`` with at most ``max_size`` records (smallest first)."""
    dom = sorted(domain, key=repr)
    return [
        canonical(c) for n in range(max_size + 1) for c in combinations_with_replacement(dom, n)
    ]


def all_pairs(domain: Sequence[Hashable], max_size: int) -> list[tuple[Dataset, Dataset]]:
    """Every add/remove pair ``(D, D − r)`` with ``|D| ≤ max_size`` (smallest first)."""
    out = []
    for ds in all_datasets(domain, max_size):
        for r in sorted(set(ds), key=repr):
            out.append((ds, _remove_one(ds, r)))
    return out


# --------------------------------------------------------------------------- parameters


def ks(max_k: int = 5, min_k: int = 1) -> st.SearchStrategy[int]:
    """The suppression threshold k (CP §3.2), shrinking to ``min_k``."""
    return st.integers(min_k, max_k)


def betas(max_denominator: int = 10, *, allow_one: bool = False) -> st.SearchStrategy[Fraction]:
    """A sampling rate β ∈ (0, 1) (or (0, 1] with ``allow_one``) with a small denominator;
    shrinks to 1/2."""
    vals = sorted(
        {Fraction(a, b) for b in range(2, max_denominator + 1) for a in range(1, b)},
        key=lambda f: (f.denominator, f.numerator),
    )
    if allow_one:
        vals.append(Fraction(1))
    return st.sampled_from(vals)


def epsilons(max_epsilon: int = 3, step: int = 8) -> st.SearchStrategy[Fraction]:
    """ε ∈ [0, ``max_epsilon``] on a grid of 1/``step``; shrinks to 0."""
    return st.integers(0, max_epsilon * step).map(lambda i: Fraction(i, step))


def regime_floor(beta: Fraction, step: int = 8) -> Fraction:
    """The least multiple of 1/``step`` that is ≥ −ln(1−β) (the edge of CP Thm 5's regime),
    decided exactly."""
    i = max(0, math.floor(neg_log1m_float(beta) * step) - 1)  # float start; exact below
    while not in_paper_regime(beta, Fraction(i, step)):
        i += 1
    return Fraction(i, step)


@st.composite
def sdgs_params(
    draw: st.DrawFn, *, max_k: int = 5, max_denominator: int = 10, extra: int = 2, step: int = 8
) -> tuple[int, Fraction, Fraction]:
    """(k, β, ε) inside CP Thm 5's regime 0 < β < 1, ε ≥ −ln(1−β): ε is the regime edge
    (rounded up to the 1/``step`` grid) plus 0..``extra``; shrinks to the edge."""
    k = draw(ks(max_k))
    b = draw(betas(max_denominator))
    e = regime_floor(b, step) + Fraction(draw(st.integers(0, extra * step)), step)
    return k, b, e


# --------------------------------------------------------------------------- recodings, anonymizers


@dataclass(frozen=True)
class Recoding:
    """A data-independent recoding (CP Def. 5): a fixed map from records to generalized values.

    Records outside the map go to the generalized value ``"*"``.  ``repr`` lists the groups, so a
    shrunk counterexample reads like ``Recoding({'g0': [(0,), (1,)]})``.
    """

    mapping: tuple[tuple[Hashable, Hashable], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_table", dict(self.mapping))

    def __call__(self, record: Hashable) -> Hashable:
        # _table is set in __post_init__ (frozen dataclass, not a field)
        return self._table.get(record, "*")  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        groups: dict = {}
        for r, g in self.mapping:
            groups.setdefault(g, []).append(r)
        return f"Recoding({groups!r})"


def recodings(domain: Sequence[Hashable], *, max_values: int = 3) -> st.SearchStrategy[Recoding]:
    """A random map from ``domain`` onto at most ``max_values`` generalized values ``"g0"``, …;
    shrinks to the map sending every record to ``"g0"`` (one big group)."""
    dom = list(domain)
    return st.lists(st.integers(0, max_values - 1), min_size=len(dom), max_size=len(dom)).map(
        lambda ix: Recoding(tuple((r, f"g{i}") for r, i in zip(dom, ix)))
    )


def strongly_safe_anonymizers(
    domain: Sequence[Hashable], k: int, *, max_values: int = 3
) -> st.SearchStrategy[StronglySafeKAnonymizer]:
    """CP Def. 5: a random data-independent recoding followed by Apply with threshold k."""
    return recodings(domain, max_values=max_values).map(lambda g: StronglySafeKAnonymizer(g, k))


@dataclass(frozen=True)
class AdditiveScores:
    """Quality scores score_i(T) = Σ_{r ∈ T} u_i(r) with u_i(r) ∈ {0, …, ``sensitivity``}: adding
    or removing one record changes each score by at most ``sensitivity``."""

    weights: tuple[tuple[int, ...], ...]
    domain: tuple[Hashable, ...]

    def __call__(self, sample: tuple) -> list[int]:
        idx = {r: i for i, r in enumerate(self.domain)}
        return [sum(u[idx[r]] for r in sample if r in idx) for u in self.weights]


#: Weight bases w of the exponential mechanism (ε₁ = 2Δ ln w); shrinks to the first.
WEIGHT_BASES = (Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(3))


def epsilon1_upper(weight_base: Fraction, sensitivity: int = 1) -> Fraction:
    """A rational upper bound (within 2⁻⁶⁴) on ε₁ = 2Δ ln w, the privacy of the exponential
    mechanism of :class:`~dps_verify.mechanisms.EpsilonSafeKAnonymizer`."""
    with iv_precision(BASE_PREC):
        v = 2 * sensitivity * mpmath.iv.log(iv_from_fraction(Fraction(weight_base)))
        x = iv_upper(v)
    return Fraction(math.ceil(x * 2**64), 2**64)


@st.composite
def epsilon_safe_anonymizers(
    draw: st.DrawFn,
    domain: Sequence[Hashable],
    k: int,
    *,
    max_family: int = 3,
    max_values: int = 3,
    sensitivity: int = 1,
) -> EpsilonSafeKAnonymizer:
    """CP Def. 6: the exponential mechanism over a random family of recodings with random
    additive quality scores (sensitivity Δ), then Apply.  The result is ε₁-safe for
    ε₁ = 2Δ ln w; :func:`epsilon1_upper` gives a certified rational upper bound."""
    dom = tuple(domain)
    m = draw(st.integers(1, max_family))
    family = [draw(recodings(dom, max_values=max_values)) for _ in range(m)]
    u = st.lists(st.integers(0, sensitivity), min_size=len(dom), max_size=len(dom)).map(tuple)
    weights = tuple(draw(u) for _ in range(m))
    w = draw(st.sampled_from(WEIGHT_BASES))
    return EpsilonSafeKAnonymizer(
        family, AdditiveScores(weights, dom), k, weight_base=w, sensitivity=sensitivity
    )


# --------------------------------------------------------------------------- finite mechanisms


def _normalize(row: Sequence[int]) -> tuple[Fraction, ...]:
    t = sum(row)
    return tuple(Fraction(x, t) for x in row)


def stochastic_matrices(
    n_rows: int, n_cols: int, *, max_weight: int = 4, allow_zero: bool = True
) -> st.SearchStrategy[tuple[tuple[Fraction, ...], ...]]:
    """An ``n_rows × n_cols`` row-stochastic matrix with exact rational entries (integer weights
    0..``max_weight`` normalised; ``allow_zero=False`` makes every entry positive, i.e. a
    mechanism with finite ε and δ = 0).  Shrinks to the uniform matrix."""
    lo = 0 if allow_zero else 1
    row = st.lists(st.integers(lo, max_weight), min_size=n_cols, max_size=n_cols).map(
        lambda xs: xs if sum(xs) else [1] * n_cols
    )
    # Shrinks to all-zero weights, i.e. to uniform rows.
    return st.lists(row.map(_normalize), min_size=n_rows, max_size=n_rows).map(tuple)


class TableMechanism(randomized):
    """A finite randomized mechanism given by a table: multiset → law over outputs 0..m−1.

    Datasets not in the table (larger than the table covers) raise ``KeyError``.  This is the
    "random finite mechanism" of the property suites for CP Thm 1–3; its (β, ε, δ) is computed
    exactly over the datasets the table covers.
    """

    def __init__(self, table: Mapping[Dataset, Sequence[Fraction]], name: str = "table"):
        self.table = {canonical(d): tuple(r) for d, r in table.items()}
        self.name = name
        super().__init__(self._law)
        self.sufficient_statistic = None

    def _law(self, sample: tuple) -> dict:
        row = self.table[canonical(sample)]
        return {y: p for y, p in enumerate(row) if p}

    def __repr__(self) -> str:
        rows = ", ".join(
            f"{list(d)}: [{', '.join(str(p) for p in r)}]" for d, r in self.table.items()
        )
        return f"TableMechanism({{{rows}}})"


@st.composite
def finite_mechanisms(
    draw: st.DrawFn,
    domain: Sequence[Hashable],
    max_size: int,
    *,
    n_outputs: int = 3,
    max_weight: int = 4,
    allow_zero: bool = True,
) -> TableMechanism:
    """A random mechanism defined on every multiset over ``domain`` of size ≤ ``max_size``
    (a random stochastic matrix with one row per multiset)."""
    ds = all_datasets(domain, max_size)
    mat = draw(stochastic_matrices(len(ds), n_outputs, max_weight=max_weight, allow_zero=allow_zero))
    return TableMechanism(dict(zip(ds, mat)))


class Kernel:
    """A post-processing kernel (CP Thm 2's A₂): output y of A₁ ↦ a law over new outputs."""

    def __init__(self, rows: Mapping[Hashable, Sequence[Fraction]]):
        self.rows = {y: tuple(r) for y, r in rows.items()}

    def push(self, law: Mapping[Hashable, Fraction]) -> dict[Hashable, Fraction]:
        """The law of A₂(Y) for Y ~ ``law``."""
        out: dict = {}
        for y, p in law.items():
            for z, w in enumerate(self.rows[y]):
                if w:
                    out[z] = out.get(z, Fraction(0)) + p * w
        return out

    def __repr__(self) -> str:
        return f"Kernel({ {y: [str(w) for w in r] for y, r in self.rows.items()} })"


def kernels(n_in: int, n_out: int, *, max_weight: int = 4) -> st.SearchStrategy[Kernel]:
    """A random post-processing kernel from outputs 0..``n_in``−1 to 0..``n_out``−1."""
    return stochastic_matrices(n_in, n_out, max_weight=max_weight).map(
        lambda m: Kernel(dict(enumerate(m)))
    )


def mixture_weights(max_denominator: int = 6) -> st.SearchStrategy[Fraction]:
    """p ∈ [0, 1] for CP Thm 3's A_p (outputs A₁ with probability p)."""
    return st.sampled_from(
        sorted({Fraction(a, b) for b in range(1, max_denominator + 1) for a in range(b + 1)})
    )


def mix(p: Fraction, m1: randomized, m2: randomized) -> randomized:
    """CP Thm 3's A_p: run ``m1`` with probability p and ``m2`` otherwise (same output space)."""

    def law(sample: tuple) -> dict:
        out: dict = {}
        for w, m in ((p, m1), (1 - p, m2)):
            if w:
                for y, q in m.law(sample).items():
                    out[y] = out.get(y, Fraction(0)) + w * q
        return out

    r = randomized(law)
    r.sufficient_statistic = None
    r.__name__ = f"mixture(p={p})"
    return r


@st.composite
def mixtures(
    draw: st.DrawFn, domain: Sequence[Hashable], max_size: int, *, n_outputs: int = 3
) -> tuple[Fraction, TableMechanism, TableMechanism]:
    """(p, A₁, A₂): two random finite mechanisms and a mixing weight (CP Thm 3)."""
    p = draw(mixture_weights())
    a1 = draw(finite_mechanisms(domain, max_size, n_outputs=n_outputs))
    a2 = draw(finite_mechanisms(domain, max_size, n_outputs=n_outputs))
    return p, a1, a2


def leak_shapes(
    domain: Sequence[Hashable],
    *,
    ks: Sequence[int] = (2, 3, 4, 5),
    beta: Fraction = Fraction(1, 2),
    epsilon: Fraction = Fraction(1),
    max_records: int = 96,
) -> st.SearchStrategy[tuple[Dataset, Dataset]]:
    """Neighbouring pairs (D, D − t) of the shapes that leak beyond small sizes: a target beside one,
    two or three bulks, rank/median movers, geometric sizes up to ``max_records``, groups around
    n_m — the same list :func:`dps_verify.testing.assert_dp` and the audit search
    (:func:`dps_verify.verdict.shapes.leak_shapes`).  Built once, when the strategy is made;
    shrinks towards the first (smallest) shapes."""
    from dps_verify.verdict.shapes import leak_shapes as _shapes

    values = sorted(set(domain), key=repr)
    if not values:
        raise ParameterError("domain must not be empty")
    items = []
    for _shape, counts, t in _shapes(values, ks=ks, beta=Fraction(beta), eps=Fraction(epsilon),
                                     max_records=max_records):
        D = canonical([values[i] for i, c in counts.items() for _ in range(c)])
        items.append((D, _remove_one(D, values[t])))
    items.sort(key=lambda p: (len(p[0]), repr(p[0])))
    return st.sampled_from(items)


__all__ = [
    "RELATIONS",
    "SHAPES",
    "AdditiveScores",
    "Kernel",
    "Recoding",
    "TableMechanism",
    "WEIGHT_BASES",
    "all_datasets",
    "all_pairs",
    "betas",
    "canonical",
    "leak_shapes",
    "datasets",
    "domains",
    "epsilon1_upper",
    "epsilon_safe_anonymizers",
    "epsilons",
    "finite_mechanisms",
    "kernels",
    "ks",
    "mix",
    "mixture_weights",
    "mixtures",
    "n_near_threshold",
    "neighbours",
    "recodings",
    "regime_floor",
    "sdgs_params",
    "stochastic_matrices",
    "strongly_safe_anonymizers",
]

