"""Exact witnesses of (ε, δ) violations under sampling, and :func:`assert_dp`.

A *witness* is a neighbouring pair (D, D2), an event O and the exact probabilities
Pr[A^β(D) ∈ O], Pr[A^β(D2) ∈ O]; under the hockey-stick definition (CP Def. 2) it implies
δ ≥ Pr[A^β(D) ∈ O] − e^ε Pr[A^β(D2) ∈ O]; under the pointwise definition (TR Def. 2, the form
CP App. A.2/A.3 bound) the event is the set of outputs whose privacy loss exceeds ε and the
implied δ is its larger mass.  A^β is "sample each record with probability β, then run A"
(CP Def. 3).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Number, to_fraction
from dps_verify.core.params import epsilon_param
from dps_verify.engine.count_vectors import SampleMemo
from dps_verify.engine.law_cache import LawCache
from dps_verify.verdict.budget import DEFAULT_TIME_BUDGET
from dps_verify.verdict.witness import Dataset, Witness, short, witness_from_laws

#: Leak shapes grow up to this many records by default (crowds and a target beside one bulk).
SHAPE_RECORDS = 96

if TYPE_CHECKING:
    from dps_verify.core.types import Claim, Definition, DefinitionLike, NeighbouringLike


def pair_witness(
    laws: LawCache, D: Dataset, D2: Dataset, epsilon: Number, definition: DefinitionLike = "hockey-stick"
) -> Witness:
    """The worst event for one neighbouring pair, computed exactly."""
    return witness_from_laws(laws(D), laws(D2), epsilon_param(epsilon), D, D2, definition)


def _violates(w: Witness, d: Fraction) -> bool:
    return w.implied_delta > d


def find_witness(
    anonymizer: Callable,
    pairs: Iterable[tuple[Dataset, Dataset]],
    claim: Claim | None = None,
    *,
    beta: Number | None = None,
    epsilon: Number | None = None,
    delta: Number | None = None,
    definition: Definition | str | None = None,
    laws: LawCache | None = None,
) -> Witness | None:
    """The smallest violating witness among ``pairs`` (None if every pair needs ≤ δ) against
    ``claim`` (a :class:`~dps_verify.core.types.Claim`, or the keyword arguments ``beta``,
    ``epsilon``, ``delta``, ``definition``)."""
    from dps_verify.core.types import Claim

    c = Claim.of(claim, beta=beta, epsilon=epsilon, delta=delta, definition=definition)
    eps, d, definition = c.epsilon, c.delta, c.definition
    laws = laws or LawCache(anonymizer, c.beta)
    best = None
    for D, D2 in pairs:
        w = pair_witness(laws, D, D2, eps, definition)
        if _violates(w, d) and (best is None or w.size() < best.size()):
            best = w
    return best


@dataclass
class DPCheckReport:
    """What a passing :func:`assert_dp` checked (its ``summary()`` says what PASS means)."""

    label: str
    claim: str
    exhaustive: object  # dps_verify.verdict.SearchResult
    shapes: object | None
    hypothesis_examples: int
    closed_form: str | None
    notes: list = field(default_factory=list)
    #: :class:`dps_verify.verdict.recognise.Recognition` when the function behaved as
    #: strongly-safe k-anonymization on every sample of the exhaustive sizes
    recognised: object | None = None
    recognised_text: str | None = None
    #: sizes of the shared sample memo (:class:`~dps_verify.engine.count_vectors.SampleMemo`)
    cache: dict | None = None

    def summary(self) -> str:
        ex = self.exhaustive
        lines = [f"PASS: {self.label} satisfies {self.claim} on every pair checked:",
                 f"  exhaustive: {ex.coverage()}"]  # type: ignore[attr-defined]
        if self.shapes is not None:
            sh = self.shapes
            lines.append(f"  leak shapes: {sh.pairs} pairs from {sh.datasets} structured datasets "  # type: ignore[attr-defined]
                         f"of up to {sh.max_size} records (multi-bulk, rank/median movers, "  # type: ignore[attr-defined]
                         "geometric sizes, groups around n_m)")
        if self.hypothesis_examples:
            lines.append(f"  Hypothesis search: {self.hypothesis_examples} examples")
        if self.closed_form:
            lines.append("  closed form: " + self.closed_form)
        else:
            if self.recognised_text:
                lines.append("  recognised: " + self.recognised_text)
            lines.append(f"  no violation up to size {ex.max_size} (every dataset) and on the shapes "  # type: ignore[attr-defined]
                         "above; this is a finite search, not a proof for all datasets")
        lines.extend("  note: " + n for n in self.notes)
        if self.cache:
            c = self.cache
            lines.append(f"  law cache: {c['samples']} distinct samples' laws kept "
                         f"({c['entries']} output probabilities, bound {c['max_entries']}), "
                         f"{c['hits']} reuses")
        return "\n".join(lines)


def assert_dp(
    anonymizer: Callable,
    claim: Claim | None = None,
    *,
    domain: Sequence[Hashable],
    beta: Number | None = None,
    epsilon: Number | None = None,
    delta: Number | None = None,
    definition: Definition | str | None = None,
    max_size: int = 6,
    search_size: int = 12,
    max_examples: int | None = None,
    relation: NeighbouringLike = "add-remove",
    shapes: bool = True,
    exact_fractions: bool = False,
    executor: Any = None,
    work_budget: int = 40_000_000,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    shape_records: int = SHAPE_RECORDS,
) -> DPCheckReport:
    """Assert that ``anonymizer`` preceded by β-sampling is (ε, δ)-DP on datasets over ``domain``
    (i.e. (β, ε, δ)-DPS, CP Def. 3), and raise ``AssertionError`` with the smallest witness
    found otherwise.  Returns a :class:`DPCheckReport` saying what was checked.  The claim is a
    :class:`~dps_verify.core.types.Claim` or the keyword arguments ``beta``, ``epsilon``,
    ``delta``, ``definition`` (hockey-stick by default).

    Three phases, all exact (floats only screen; every verdict is confirmed in exact
    arithmetic, see :mod:`dps_verify.verdict.exact_search`):

    1. every add/remove pair with at most ``max_size`` records, smallest first — a witness found
       here is *minimal* (no record can be dropped from D and D' while keeping a violation);
       work beyond ``work_budget`` terms cuts the size, with a warning;
    2. the leak shapes of :mod:`dps_verify.verdict.shapes` (``shapes=True``): a target beside
       one, two or three bulks, rank/median movers, geometric sizes up to 96 records, groups
       around n_m;
    3. a Hypothesis search over :func:`dps_verify.testing.strategies.datasets` using
       ``max_examples`` examples (default: the active Hypothesis profile's), shrunk.

    Phases 1 and 2 fit ``time_budget`` CPU seconds (default
    :data:`~dps_verify.verdict.budget.DEFAULT_TIME_BUDGET`): the cost of one call of the
    anonymizer (time, law size) is measured on a few samples first, and the largest exhaustive
    size (≤ ``max_size``) and shape size (≤ ``shape_records``) predicted to fit are searched
    (:mod:`dps_verify.verdict.budget`); the report says which sizes were covered, and a note
    says when the budget cut them.  ``time_budget=None`` searches every size asked.

    ``exact_fractions=True`` prints the exact probabilities next to the short decimals.
    A user fault in the anonymizer raises :class:`~dps_verify.core.errors.AuditedCodeError`,
    never a verdict.
    """
    __tracebackhide__ = True
    from dps_verify.core.types import Claim
    from dps_verify.verdict.exact_search import exhaustive_search, shape_search

    c = Claim.of(claim, beta=beta, epsilon=epsilon, delta=delta, definition=definition)
    eps, d, b, definition = c.epsilon, c.delta, c.beta, c.definition
    dom = sorted(set(domain), key=repr)
    if not dom:
        raise ParameterError("domain must not be empty")
    label = getattr(anonymizer, "__name__", None) or type(anonymizer).__name__
    claim_text = f"({short(eps, 6)}, {short(d, 6)})-DP under sampling with beta = {b} ({definition})"

    def fail(w: Witness, how: str) -> None:
        __tracebackhide__ = True
        raise AssertionError(
            f"{label} is not {claim_text}; smallest witness ({how}):\n{w.describe(d, exact_fractions)}"
        )

    if relation != "add-remove":
        return _assert_replace_one(anonymizer, b, eps, d, dom, definition, max_size, label, fail,
                                   relation, claim_text, executor, work_budget)
    # one memo of the anonymizer's law on each distinct sample, shared by the three phases
    memo = SampleMemo(anonymizer)
    size, records, budget_note = max_size, shape_records, None
    if time_budget is not None:
        from dps_verify.verdict.budget import plan_pass

        plan = plan_pass(anonymizer, dom, beta=b, eps=eps, max_size=max_size,
                         max_records=shape_records if shapes else max_size,
                         budget=time_budget, memo=memo)
        size = plan.exhaustive_size
        records = plan.shape_records if shapes else shape_records
        if size < max_size or (shapes and records < shape_records):
            budget_note = plan.describe(max_size, shape_records if shapes else max_size)
    ex = exhaustive_search(anonymizer, dom, beta=b, epsilon=eps, delta=d, definition=definition,
                           max_size=size, work_budget=work_budget, executor=executor,
                           memo=memo)
    if ex.witness is not None:
        fail(ex.witness, f"exhaustive search, every dataset of 1..{ex.max_size} records; minimal")
    _raise_undecided(ex)
    from dps_verify.audit.core import closed_form_kind
    from dps_verify.verdict.recognise import (
        declared_table,
        recognise_post_processing,
        recognise_table,
    )

    kind = closed_form_kind(anonymizer) if b < 1 else None
    rec = None
    if not kind and ex.table is not None:
        rec = recognise_table(ex.table, ex.max_size)
        table_fn = declared_table(anonymizer)
        if rec is None and table_fn is not None:
            rec = recognise_post_processing(ex.table, ex.max_size, table_fn)
    ex.table = None  # the sample memo is not kept in the report
    sh = None
    if shapes:
        ks = None
        if rec is not None:  # aim the n_m groups at the recognised k too
            ks = sorted({rec.k, 2, 3, 4, 5} | {v for name in ("k", "threshold") for v in
                        [getattr(anonymizer, name, None)] if isinstance(v, int) and v >= 1})
        sh = shape_search(anonymizer, dom, beta=b, epsilon=eps, delta=d, definition=definition,
                          executor=executor, ks=ks, memo=memo, max_records=records)
        if sh.witness is not None:
            fail(sh.witness, f"leak shape '{sh.witness.shape}', the smallest violating shape tried")
        _raise_undecided(sh)
    n = _hypothesis_phase(anonymizer, b, eps, d, dom, definition, search_size, max_examples, fail,
                          memo)
    cf = None
    if kind:
        cf = ("recognised as StronglySafeKAnonymizer with threshold = k (CP Def. 5): its worst case "
              "over ALL datasets is the exact sdgs_delta (CP App. A.2); compare the claim with "
              "dps_verify.exact.sdgs_delta for a proof")
    rec_text = None
    if rec is not None:
        rec_text = rec.closed_form(b, eps, d, definition) if b < 1 else rec.describe()
    notes = list(ex.notes) + ([budget_note] if budget_note else [])
    return DPCheckReport(label, claim_text, ex, sh, n, cf, notes, rec, rec_text, memo.stats())


def _raise_undecided(res: object) -> None:
    from dps_verify.verdict.exact_search import raise_undecided

    raise_undecided(res)  # type: ignore[arg-type]


def _assert_replace_one(anonymizer, b, eps, d, dom, definition, max_size, label, fail,  # type: ignore[no-untyped-def]
                        relation, claim, executor, work_budget):
    """Replace-one neighbours (D, D − r + r'), on the same exact search engine, smallest first."""
    __tracebackhide__ = True
    from dps_verify.verdict.exact_search import exhaustive_search

    ex = exhaustive_search(anonymizer, dom, beta=b, epsilon=eps, delta=d, definition=definition,
                           max_size=max_size, work_budget=work_budget, executor=executor,
                           relation=relation)
    if ex.witness is not None:
        fail(ex.witness, f"exhaustive search (replace-one), every dataset of 1..{ex.max_size} "
                         "records; minimal")
    _raise_undecided(ex)
    ex.table = None
    return DPCheckReport(label, claim + " (replace-one neighbours)", ex, None, 0, None,
                         list(ex.notes))


def _hypothesis_phase(anonymizer, b, eps, d, dom, definition, search_size, max_examples, fail,  # type: ignore[no-untyped-def]
                      memo=None):
    __tracebackhide__ = True
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    from dps_verify.testing import strategies as S

    current = settings()
    n = max_examples if max_examples is not None else current.max_examples
    if n <= 0:
        return 0
    laws = LawCache(anonymizer, b, dom, memo=memo)
    strat = S.neighbours(dom, data=S.datasets(dom, max_size=search_size, max_group=search_size))

    def violates(pair: tuple[Dataset, Dataset]) -> bool:
        return _violates(pair_witness(laws, pair[0], pair[1], eps, definition), d)

    try:
        pair = find(
            strat,
            violates,
            settings=settings(
                max_examples=n,
                derandomize=current.derandomize,
                database=None,
                deadline=None,
                phases=[Phase.generate, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            ),
        )
    except NoSuchExample:
        return n
    fail(pair_witness(laws, pair[0], pair[1], eps, definition), "Hypothesis search, shrunk")
    return n


def max_delta(
    anonymizer: Callable,
    pairs: Iterable[tuple[Dataset, Dataset]],
    *,
    beta: Number,
    epsilon: Number,
    definition: DefinitionLike = "hockey-stick",
    laws: LawCache | None = None,
) -> Witness | None:
    """The witness with the largest implied δ over ``pairs`` (None if ``pairs`` is empty)."""
    eps = epsilon_param(epsilon)
    laws = laws or LawCache(anonymizer, beta)
    best = None
    for D, D2 in pairs:
        w = pair_witness(laws, D, D2, eps, definition)
        if best is None or w.implied_delta > best.implied_delta:
            best = w
    return best


def as_fraction(x: Number) -> Fraction:
    """Exact value of a number (mpf read exactly, floats by their shortest repr)."""
    return to_fraction(x)


__all__ = [
    "DPCheckReport",
    "LawCache",
    "Witness",
    "as_fraction",
    "assert_dp",
    "find_witness",
    "max_delta",
    "pair_witness",
    "witness_from_laws",
]
