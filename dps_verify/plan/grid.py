"""The sampling probabilities β a plan is computed for.

The default grid is a few round values strictly inside CP Thm 5's regime (β < 1 − e^(−ε)) plus
the regime edge itself (``"edge"``: 1 − e^(−ε) rounded down, :func:`dps_verify.core.params.beta_edge`),
where CP Thm 5 (and ARX) put β.  Any β the user gives is added; a β above the edge is kept, but
there only the exact measures apply (CP Thm 5's d needs ε ≥ −ln(1−β)).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from dps_verify.core.errors import ParameterError
from dps_verify.core.params import beta_edge, in_paper_regime, resolve_beta

#: Most β values one plan computes (each costs three certified inverse searches): refused above.
MAX_BETAS = 64

#: Round values of β tried below the edge by default.
DEFAULT_BETAS: tuple[str, ...] = ("0.05", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9")


@dataclass(frozen=True)
class BetaPoint:
    """One β of the plan: its exact value, how it was written, and where it sits."""

    beta: Fraction
    label: str
    is_edge: bool
    in_regime: bool  # ε ≥ −ln(1−β): CP Thm 5 (and so the paper's d and ARX's rule) applies


def beta_grid(eps: Fraction, given: Iterable[str] = (), *, default_grid: bool = True) -> list[BetaPoint]:
    """β points in increasing order, without duplicates: the default grid below the edge (unless
    ``default_grid`` is false), the edge, and every β in ``given`` (decimals, ``p/q`` or
    ``"edge"``).  Raises ``ValueError`` for a β outside (0, 1)."""
    points: dict[Fraction, BetaPoint] = {}
    edge = beta_edge(eps) if eps > 0 else Fraction(0)

    def add(text: str, *, user: bool) -> None:
        b = resolve_beta(text, eps)
        is_edge = text.strip().lower() == "edge" or b == edge
        if not user and not is_edge and b >= edge:
            return
        label = "edge" if is_edge else text.strip()
        if b in points and not user:
            return
        points[b] = BetaPoint(beta=b, label=label, is_edge=is_edge, in_regime=in_paper_regime(b, eps))

    if default_grid:
        for text in DEFAULT_BETAS:
            add(text, user=False)
    if eps > 0:
        add("edge", user=False)
    for text in given:
        add(str(text), user=True)
    if not points:
        raise ParameterError("no beta to plan for: epsilon = 0 has no regime edge (CP Thm 5); give --beta")
    if len(points) > MAX_BETAS:
        raise ParameterError(f"{len(points)} beta values: the plan's budget is {MAX_BETAS} (each needs three "
                         "certified searches); give fewer --beta")
    return [points[b] for b in sorted(points)]


__all__ = ["DEFAULT_BETAS", "MAX_BETAS", "BetaPoint", "beta_grid"]
