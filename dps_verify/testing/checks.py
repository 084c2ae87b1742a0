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

from dps_verify import exact
from dps_verify.core.numbers import Number, exp_compare, exp_interval, to_fraction
from dps_verify.core.params import beta_param, delta_param, epsilon_param

Dataset = tuple[Hashable, ...]


@dataclass(frozen=True)
class Witness:
    """A neighbouring pair and an event that together certify δ ≥ ``implied_delta``."""

    dataset: Dataset
    neighbour: Dataset
    event: tuple
    p_event: Fraction  # Pr[A^β(dataset) ∈ event]
    q_event: Fraction  # Pr[A^β(neighbour) ∈ event]
    epsilon: Fraction
    implied_delta: Fraction  # a certified lower bound on the δ the pair needs
    definition: str = "hockey-stick"
    extra: dict = field(default_factory=dict, compare=False)

    def size(self) -> tuple:
        """Sort key: smaller datasets (then shorter reprs) are smaller witnesses."""
        return (len(self.dataset) + len(self.neighbour), len(repr(self.dataset)), repr(self.dataset))

    def describe(self, claimed_delta: Fraction | None = None) -> str:
        ev = list(self.event)
        ev_s = repr(ev) if len(ev) <= 6 else repr(ev[:6])[:-1] + f", … ({len(ev)} outputs)]"
        lines = [
            f"  dataset   D  = {list(self.dataset)!r}",
            f"  neighbour D' = {list(self.neighbour)!r}",
            f"  event     O  = {ev_s}",
            f"  Pr[A(D) in O]  = {self.p_event} ≈ {float(self.p_event):.6g}",
            f"  Pr[A(D') in O] = {self.q_event} ≈ {float(self.q_event):.6g}",
        ]
        if self.definition == "hockey-stick":
            lines.append(
                f"  implied delta >= Pr[A(D) in O] - e^{float(self.epsilon):g} Pr[A(D') in O]"
                f" = {float(self.implied_delta):.6g}"
            )
        else:
            lines.append(
                f"  implied pointwise delta = mass of outputs with |privacy loss| > "
                f"{float(self.epsilon):g} = {float(self.implied_delta):.6g}"
            )
        if claimed_delta is not None:
            lines.append(f"  claimed delta = {float(claimed_delta):.6g}")
        return "\n".join(lines)


def _bad(P: dict, Q: dict, eps: Fraction) -> list:
    out = []
    for y, pv in P.items():
        qv = Q.get(y, Fraction(0))
        if pv > 0 and (qv == 0 or exp_compare(eps, pv / qv) < 0):
            out.append(y)
    return sorted(out, key=repr)


def witness_from_laws(
    P: dict, Q: dict, eps: Fraction, D: Dataset, D2: Dataset, definition: str = "hockey-stick"
) -> Witness:
    """The worst event for the laws P = law(A^β(D)), Q = law(A^β(D2)) at ε.

    Hockey-stick: the better of the two directions' bad sets {y: P(y) > e^ε Q(y)}; the implied
    δ is a certified lower bound (e^ε rounded up).  Pointwise: the union of both bad sets.
    """
    if definition == "hockey-stick":
        best = None
        for A, B, d1, d2 in ((P, Q, D, D2), (Q, P, D2, D)):
            ev = _bad(A, B, eps)
            a = sum((A[y] for y in ev), Fraction(0))
            b = sum((B.get(y, Fraction(0)) for y in ev), Fraction(0))
            lo = a - exp_interval(eps)[1] * b if b else a
            w = Witness(d1, d2, tuple(ev), a, b, eps, max(lo, Fraction(0)), definition)
            if best is None or w.implied_delta > best.implied_delta:
                best = w
        assert best is not None
        return best
    if definition == "pointwise":
        ev = sorted(set(_bad(P, Q, eps)) | set(_bad(Q, P, eps)), key=repr)
        a = sum((P.get(y, Fraction(0)) for y in ev), Fraction(0))
        b = sum((Q.get(y, Fraction(0)) for y in ev), Fraction(0))
        if b > a:
            return Witness(D2, D, tuple(ev), b, a, eps, b, definition)
        return Witness(D, D2, tuple(ev), a, b, eps, a, definition)
    raise ValueError(f"definition must be one of {exact.DEFINITIONS}, got {definition!r}")


class LawCache:
    """Exact laws of A^β(D), memoised per dataset (datasets are canonical sorted tuples)."""

    def __init__(self, anonymizer: Callable, beta: Number):
        self.anonymizer = anonymizer
        self.beta = beta_param(beta, allow_one=True)
        self._laws: dict[Dataset, dict] = {}

    def __call__(self, D: Sequence[Hashable]) -> dict:
        key = tuple(sorted(D, key=repr))
        if key not in self._laws:
            self._laws[key] = exact.distribution(self.anonymizer, key, self.beta).exact
        return self._laws[key]


def pair_witness(
    laws: LawCache, D: Dataset, D2: Dataset, epsilon: Number, definition: str = "hockey-stick"
) -> Witness:
    """The worst event for one neighbouring pair, computed exactly."""
    return witness_from_laws(laws(D), laws(D2), epsilon_param(epsilon), D, D2, definition)


def _violates(w: Witness, d: Fraction) -> bool:
    return w.implied_delta > d


def find_witness(
    anonymizer: Callable,
    pairs: Iterable[tuple[Dataset, Dataset]],
    *,
    beta: Number,
    epsilon: Number,
    delta: Number,
    definition: str = "hockey-stick",
    laws: LawCache | None = None,
) -> Witness | None:
    """The smallest violating witness among ``pairs`` (None if every pair needs ≤ δ)."""
    eps = epsilon_param(epsilon)
    d = delta_param(delta)
    laws = laws or LawCache(anonymizer, beta)
    best = None
    for D, D2 in pairs:
        w = pair_witness(laws, D, D2, eps, definition)
        if _violates(w, d) and (best is None or w.size() < best.size()):
            best = w
    return best


def assert_dp(
    anonymizer: Callable,
    *,
    beta: Number,
    epsilon: Number,
    delta: Number,
    domain: Sequence[Hashable],
    definition: str = "hockey-stick",
    max_size: int = 4,
    search_size: int = 12,
    max_examples: int | None = None,
    relation: str = "add-remove",
) -> None:
    """Assert that ``anonymizer`` preceded by β-sampling is (ε, δ)-DP on datasets over ``domain``
    (i.e. (β, ε, δ)-DPS, CP Def. 3), and raise ``AssertionError`` with the smallest witness
    found otherwise.

    Two phases, both exact:

    1. every add/remove pair with at most ``max_size`` records (all multisets over ``domain``);
    2. a Hypothesis search over the shaped datasets of
       :func:`dps_verify.testing.strategies.datasets` (duplicates, outliers, groups near the
       threshold) with up to ``search_size`` distinct-record draws and long duplicate runs,
       using ``max_examples`` examples (default: the active Hypothesis profile's); Hypothesis
       shrinks whatever it finds.

    The anonymizer follows :func:`dps_verify.exact.distribution`'s contract: deterministic
    ``sample -> hashable output``, or wrapped with :class:`dps_verify.exact.randomized`.  A pass is
    evidence over the datasets tried, not a proof for all datasets.
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    from dps_verify.testing import strategies as S

    eps = epsilon_param(epsilon)
    d = delta_param(delta)
    if definition not in exact.DEFINITIONS:
        raise ValueError(f"definition must be one of {exact.DEFINITIONS}, got {definition!r}")
    dom = sorted(set(domain), key=repr)
    if not dom:
        raise ValueError("domain must not be empty")
    laws = LawCache(anonymizer, beta)
    label = getattr(anonymizer, "__name__", None) or type(anonymizer).__name__

    def fail(w: Witness, how: str) -> None:
        raise AssertionError(
            f"{label} is not ({float(eps):g}, {float(d):g})-DP under sampling with beta = "
            f"{laws.beta} ({definition}); smallest witness ({how}):\n{w.describe(d)}"
        )

    if relation == "add-remove":
        exhaustive = S.all_pairs(dom, max_size)
    else:
        exhaustive = [
            (D, S.canonical(S._remove_one(D, r) + (r2,)))
            for D in S.all_datasets(dom, max_size)
            for r in sorted(set(D), key=repr)
            for r2 in dom
            if r2 != r
        ]
    w = find_witness(
        anonymizer, exhaustive, beta=beta, epsilon=eps, delta=d, definition=definition, laws=laws
    )
    if w is not None:
        fail(w, f"exhaustive search over datasets of at most {max_size} records")

    current = settings()
    n = max_examples if max_examples is not None else current.max_examples
    if n <= 0:
        return
    strat = S.neighbours(
        dom, data=S.datasets(dom, max_size=search_size, max_group=search_size), relation=relation
    )

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
        return
    fail(pair_witness(laws, pair[0], pair[1], eps, definition), "Hypothesis search, shrunk")


def max_delta(
    anonymizer: Callable,
    pairs: Iterable[tuple[Dataset, Dataset]],
    *,
    beta: Number,
    epsilon: Number,
    definition: str = "hockey-stick",
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
    "LawCache",
    "Witness",
    "as_fraction",
    "assert_dp",
    "find_witness",
    "max_delta",
    "pair_witness",
    "witness_from_laws",
]
