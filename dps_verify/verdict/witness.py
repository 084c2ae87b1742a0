"""One witness of an (ε, δ) violation, and the worst event of a pair of exact laws.

A *witness* is a neighbouring pair (D, D'), an event O and the exact probabilities
Pr[A^β(D) ∈ O] and Pr[A^β(D') ∈ O], where A^β is "keep each record with probability β, then
run A" (CP Def. 3).  Under the hockey-stick definition (CP Def. 2) it certifies
δ ≥ Pr[A^β(D) ∈ O] − e^ε Pr[A^β(D') ∈ O] (e^ε rounded up, so the bound is safe); under the
pointwise definition (TR Def. 2) O is the set of outputs whose privacy loss exceeds ε and the
certified δ is its larger mass.

The bad set {y : P(y) > e^ε Q(y)} is decided exactly by
:func:`dps_verify.measures.divergence.bad_set` (the one bad-set function of the project).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import exp_interval
from dps_verify.core.types import DefinitionLike
from dps_verify.measures.divergence import DEFINITIONS
from dps_verify.measures.divergence import _bad_set_forward as bad_set

Dataset = tuple[Hashable, ...]


def short(x: Fraction | float, digits: int = 4) -> str:
    """A probability as a short decimal (``digits`` significant digits)."""
    return f"{float(x):.{digits}g}"


def json_number(x: Fraction | float | None) -> Any:
    """A probability for JSON: the float, and the exact fraction when there is one."""
    if x is None:
        return None
    if isinstance(x, Fraction):
        return {"float": float(x), "exact": str(x)}
    return {"float": float(x)}


#: Note on a witness whose violation was decided by
#: :func:`dps_verify.measures.divergence.delta_exceeds`: the enclosure of its implied δ
#: straddles the claim, so that certified lower bound alone does not exceed it.
EXACT_DECISION_NOTE = (
    "delta > claimed delta decided exactly (e^eps compared with (A - delta)/B for the exact bad "
    "set); the implied delta shown is a certified lower bound"
)


@dataclass(frozen=True)
class Witness:
    """A neighbouring pair and an event that together certify δ ≥ ``implied_delta``.

    The one witness class of the project: :mod:`dps_verify.testing` and :mod:`dps_verify.audit`
    both return it, and the audit report renders it.

    ``dataset`` is the first dataset of the comparison (the one whose probability of ``event``
    is too large) and ``neighbour`` the second; they differ by one record (``target``).
    :attr:`direction` says whether the first one holds that record (``"D vs D'"``, D being the
    dataset with the target) or not (``"D' vs D"``).  ``minimal`` is True when the search proved
    that no smaller pair violates the claim (every pair with fewer records was checked), so no
    record can be dropped from D and D' while keeping a violation.  ``shape`` names how the pair
    was found (``"exhaustive"``, ``"two-bulk"``, ``"crowd"``, …) and ``method`` is ``"exact"``
    or ``"statistical"``.  Exact witnesses carry fractions and ``confidence`` 1; statistical
    ones (:mod:`dps_verify.verdict.montecarlo`) carry the confirming runs' frequencies as
    ``p_event``/``q_event``, the Clopper–Pearson lower bound as ``implied_delta`` and
    ``confidence`` 1 − α.  ``note`` says how the implied δ was obtained.
    """

    dataset: Dataset
    neighbour: Dataset
    event: tuple
    p_event: Fraction | float  # Pr[A^β(dataset) ∈ event] (an estimate if statistical)
    q_event: Fraction | float  # Pr[A^β(neighbour) ∈ event] (an estimate if statistical)
    epsilon: Fraction
    implied_delta: Fraction | float  # a certified (or 1 − α confident) lower bound on δ
    definition: DefinitionLike = "hockey-stick"
    extra: dict = field(default_factory=dict, compare=False)
    target: Any = None
    shape: str = ""
    minimal: bool = False
    method: str = "exact"
    confidence: float = 1.0
    note: str = field(default="", compare=False)

    # ---- the audit's names for the same facts (its report and JSON read these)
    @property
    def prob_first(self) -> Fraction | float:
        """Pr[A^β(first dataset) ∈ event], i.e. ``p_event``."""
        return self.p_event

    @property
    def prob_second(self) -> Fraction | float:
        """Pr[A^β(second dataset) ∈ event], i.e. ``q_event``."""
        return self.q_event

    @property
    def direction(self) -> str:
        """``"D vs D'"`` when the first dataset is the one holding the target, else ``"D' vs D"``."""
        return "D vs D'" if len(self.dataset) > len(self.neighbour) else "D' vs D"

    @property
    def with_target(self) -> Dataset:
        """D: the dataset of the pair that holds the extra record."""
        return self.dataset if len(self.dataset) > len(self.neighbour) else self.neighbour

    @property
    def without_target(self) -> Dataset:
        """D': D minus one copy of the target."""
        return self.neighbour if len(self.dataset) > len(self.neighbour) else self.dataset

    @property
    def event_size(self) -> int:
        return len(self.event)

    @property
    def event_sample(self) -> list[str]:
        """Up to five outputs of the event, as short reprs."""
        out = []
        for y in self.event[:5]:
            r = repr(y)
            out.append(r if len(r) <= 160 else r[:157] + "...")
        return out

    def summary(self) -> str:
        """One line: shape, |D|, target, both probabilities, direction and the implied δ."""
        return (
            f"{self.shape}: |D| = {len(self.with_target)}, target {self.target!r}; "
            f"Pr[A(first) in E] = {float(self.p_event):.6g}, "
            f"Pr[A(second) in E] = {float(self.q_event):.6g} ({self.direction}); "
            f"implied delta >= {float(self.implied_delta):.6g}"
        )

    def to_dict(self) -> dict:
        """JSON-ready: datasets and outputs as reprs, probabilities as ``{"float", "exact"}``."""
        return {
            "dataset": [repr(r) for r in self.dataset],
            "neighbour": [repr(r) for r in self.neighbour],
            "target": repr(self.target),
            "shape": self.shape,
            "direction": self.direction,
            "event_size": self.event_size,
            "event_sample": self.event_sample,
            "prob_first": json_number(self.p_event),
            "prob_second": json_number(self.q_event),
            "implied_delta": json_number(self.implied_delta),
            "epsilon": str(self.epsilon),
            "definition": self.definition,
            "method": self.method,
            "confidence": self.confidence,
            "minimal": self.minimal,
            "note": self.note,
        }

    def size(self) -> tuple:
        """Sort key: smaller datasets (then shorter reprs) are smaller witnesses."""
        return (len(self.dataset) + len(self.neighbour), len(repr(self.dataset)), repr(self.dataset))

    def describe(self, claimed_delta: Fraction | None = None, exact: bool = False) -> str:
        """Human-readable lines; probabilities as short decimals (``exact=True`` adds the
        exact fractions)."""

        def num(x: Fraction | float) -> str:
            return f"{short(x)}  (= {x})" if exact and isinstance(x, Fraction) else short(x)

        ev = list(self.event)
        ev_s = repr(ev) if len(ev) <= 6 else repr(ev[:6])[:-1] + f", … ({len(ev)} outputs)]"
        lines = [
            f"  dataset   D  = {_compact(self.dataset)}",
            f"  neighbour D' = {_compact(self.neighbour)}",
            f"  event     O  = {ev_s}",
            f"  Pr[A(D) in O]  = {num(self.p_event)}",
            f"  Pr[A(D') in O] = {num(self.q_event)}",
        ]
        if self.definition == "hockey-stick":
            lines.append(
                f"  implied delta >= Pr[A(D) in O] - e^{float(self.epsilon):g} Pr[A(D') in O]"
                f" = {num(self.implied_delta)}"
            )
        else:
            lines.append(
                f"  implied pointwise delta = mass of outputs with |privacy loss| > "
                f"{float(self.epsilon):g} = {num(self.implied_delta)}"
            )
        if claimed_delta is not None:
            lines.append(f"  claimed delta = {short(claimed_delta, 6)}")
        if self.method == "statistical":
            lines.append(f"  statistical witness, confidence {self.confidence:.4g}")
        if self.note:
            lines.append(f"  {self.note}")
        if self.minimal:
            lines.append(
                f"  minimal: every pair with fewer than {len(self.dataset) + len(self.neighbour)}"
                " records in total was checked and needs no more than the claimed delta, so no"
                " record can be dropped from D and D' while keeping a violation"
            )
        return "\n".join(lines)


def _compact(ds: Dataset, limit: int = 12) -> str:
    if len(ds) <= limit:
        return repr(list(ds))
    from collections import Counter

    c = Counter(ds)
    return "{" + ", ".join(f"{r!r} x{n}" if n > 1 else repr(r) for r, n in c.items()) + \
        f"}}  ({len(ds)} records)"


def witness_from_laws(
    P: dict,
    Q: dict,
    eps: Fraction,
    D: Dataset,
    D2: Dataset,
    definition: DefinitionLike = "hockey-stick",
    **info: Any,
) -> Witness:
    """The worst event for the exact laws P = law(A^β(D)), Q = law(A^β(D2)) at ε.

    Hockey-stick: the better of the two directions' bad sets; the implied δ is a certified lower
    bound (e^ε rounded up).  Pointwise: the union of both bad sets and its larger mass.
    ``info`` (target, shape, minimal, method, extra) is copied into the witness.
    """
    if definition == "hockey-stick":
        best: tuple | None = None
        hi_e = exp_interval(eps)[1]
        for A, B, d1, d2 in ((P, Q, D, D2), (Q, P, D2, D)):
            ev = bad_set(A, B, eps)
            a = sum((A[y] for y in ev), Fraction(0))
            b = sum((B.get(y, Fraction(0)) for y in ev), Fraction(0))
            lo = max(a - hi_e * b if b else a, Fraction(0))
            if best is None or lo > best[0]:
                best = (lo, ev, a, b, d1, d2)
        assert best is not None
        lo, ev, a, b, d1, d2 = best
        return Witness(d1, d2, tuple(sorted(ev, key=repr)), a, b, eps, lo, definition, **info)
    if definition == "pointwise":
        ev = sorted(set(bad_set(P, Q, eps)) | set(bad_set(Q, P, eps)), key=repr)
        a = sum((P.get(y, Fraction(0)) for y in ev), Fraction(0))
        b = sum((Q.get(y, Fraction(0)) for y in ev), Fraction(0))
        if b > a:
            return Witness(D2, D, tuple(ev), b, a, eps, b, definition, **info)
        return Witness(D, D2, tuple(ev), a, b, eps, a, definition, **info)
    raise ParameterError(f"definition must be one of {DEFINITIONS}, got {definition!r}")


__all__ = ["EXACT_DECISION_NOTE", "Dataset", "Witness", "bad_set", "json_number", "short", "witness_from_laws"]
