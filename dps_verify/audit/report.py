"""The result of an audit: verdict, witness, largest δ found, and what was covered."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from dps_verify.core.types import AuditVerdict

#: the audit verdicts (:class:`dps_verify.core.types.AuditVerdict`), as plain strings
VERDICTS = tuple(v.value for v in AuditVerdict)
#: CLI exit codes per verdict (2 is reserved for bad usage).
EXIT_CODES = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}


def _num(x: Fraction | float | None) -> Any:
    if x is None:
        return None
    if isinstance(x, Fraction):
        return {"float": float(x), "exact": str(x)}
    return {"float": float(x)}


@dataclass
class Witness:
    """Two neighbouring datasets and an event whose probabilities break the claim.

    ``direction`` is ``"D vs D'"`` when Pr[A(D) ∈ E] > e^ε Pr[A(D') ∈ E] + δ, ``"D' vs D"`` for the
    reverse.  ``implied_delta`` is the least δ the event forces at the claimed ε (CP Def. 2):
    Pr[first ∈ E] − e^ε Pr[second ∈ E], or, for the pointwise definition (TR Def. 2), the mass of
    the bad set.  ``confidence`` is 1 for exact witnesses and 1 − α for statistical ones.
    """

    dataset: list
    neighbour: list
    target: Any
    shape: str
    direction: str
    event_size: int
    event_sample: list[str]
    prob_first: Fraction | float
    prob_second: Fraction | float
    implied_delta: Fraction | float
    method: str = "exact"
    confidence: float = 1.0
    note: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["dataset"] = [repr(r) for r in self.dataset]
        d["neighbour"] = [repr(r) for r in self.neighbour]
        d["target"] = repr(self.target)
        for key in ("prob_first", "prob_second", "implied_delta"):
            d[key] = _num(getattr(self, key))
        return d

    def summary(self) -> str:
        return (
            f"{self.shape}: |D| = {len(self.dataset)}, target {self.target!r}; "
            f"Pr[A(first) in E] = {float(self.prob_first):.6g}, "
            f"Pr[A(second) in E] = {float(self.prob_second):.6g} ({self.direction}); "
            f"implied delta >= {float(self.implied_delta):.6g}"
        )


@dataclass
class AuditReport:
    """Verdict of :func:`dps_verify.audit.audit` with its evidence.

    - ``verdict``: ``"PASS"`` (no witness among the covered datasets, or a proof when
      ``coverage['closed_form']`` is set), ``"FAIL"`` (``witness`` breaks the claim), or
      ``"INCONCLUSIVE"``.
    - ``worst_delta``: the largest δ found at the claimed ε, with where it was found.
    - ``coverage``: domain, sizes and shapes covered, numbers of pairs, and whether the verdict
      holds for all datasets.
    """

    verdict: str
    claim: dict
    method: str
    witness: Witness | None = None
    worst_delta: dict | None = None
    coverage: dict = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}")

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict:
        wd = None
        if self.worst_delta is not None:
            wd = {k: (_num(v) if isinstance(v, Fraction | float) and k in ("lower", "upper") else v)
                  for k, v in self.worst_delta.items()}
        return {
            "verdict": self.verdict,
            "claim": self.claim,
            "method": self.method,
            "witness": self.witness.to_dict() if self.witness else None,
            "worst_delta": wd,
            "coverage": self.coverage,
            "reasons": self.reasons,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def summary(self) -> str:
        lines = [
            f"verdict: {self.verdict}   (method: {self.method}, {self.seconds:.2f} s)",
            "claim: " + ", ".join(f"{k} = {v}" for k, v in self.claim.items()),
        ]
        if self.witness is not None:
            w = self.witness
            lines.append("witness: " + w.summary())
            lines.append(f"  D  = {_short(w.dataset)}")
            lines.append(f"  D' = {_short(w.neighbour)}")
            lines.append(f"  event E ({w.event_size} outputs), e.g. {', '.join(w.event_sample[:3])}")
            if w.note:
                lines.append("  " + w.note)
        if self.worst_delta is not None:
            wd = self.worst_delta
            lines.append(
                f"largest delta found: {float(wd['upper']):.6g} at {wd.get('where', '?')}"
            )
        cov = self.coverage
        if cov.get("closed_form"):
            lines.append("coverage: ALL datasets - " + cov["closed_form"])
        else:
            lines.append(
                f"coverage: {cov.get('pairs_exact', 0)} exact + {cov.get('pairs_statistical', 0)} "
                f"statistical neighbour pairs over {cov.get('domain', {}).get('records', '?')} "
                f"domain records, |D| <= {cov.get('max_size_used', '?')}; shapes: "
                + ", ".join(f"{k} ({v})" for k, v in sorted(cov.get("shapes", {}).items()))
            )
            lines.append("  not a proof over all datasets: the anonymizer is not one whose worst "
                         "case is known in closed form")
        for r in self.reasons:
            lines.append("note: " + r)
        return "\n".join(lines)


def _short(recs: list, limit: int = 6) -> str:
    from collections import Counter

    c = Counter(recs)
    parts = [f"{r!r} x{n}" if n > 1 else repr(r) for r, n in list(c.items())[:limit]]
    more = "" if len(c) <= limit else f", ... ({len(c) - limit} more values)"
    return "{" + ", ".join(parts) + more + "}"
