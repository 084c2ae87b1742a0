"""The result of an audit: verdict, witness, largest δ found, and what was covered.

The witness is the project's one :class:`~dps_verify.verdict.witness.Witness` (re-exported
here as ``dps_verify.audit.Witness``); this report renders it (:meth:`AuditReport.summary`,
:meth:`AuditReport.to_dict`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dps_verify.core.errors import VERDICT_EXIT_CODES, ParameterError
from dps_verify.core.types import AuditVerdict
from dps_verify.verdict.witness import Witness
from dps_verify.verdict.witness import json_number as _num

#: the audit verdicts (:class:`dps_verify.core.types.AuditVerdict`), as plain strings
VERDICTS = tuple(v.value for v in AuditVerdict)
#: CLI exit codes per verdict: the one table of :mod:`dps_verify.core.errors`.
EXIT_CODES = VERDICT_EXIT_CODES


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
    #: what the audited code printed while audited, per stream (``{"stdout": {"text", "chars",
    #: "lines", "truncated"}}``; :func:`dps_verify.engine.calls.audited_code`)
    output: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ParameterError(f"verdict must be one of {VERDICTS}")

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
            "output": self.output,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON report file (tagged as written by dps-verify, so a later run may replace it)."""
        from dps_verify.core.fsio import generator_json

        return json.dumps(generator_json(self.to_dict()), indent=indent, default=str)

    def verdict_line(self) -> str:
        """The one line that states the verdict (the last line of :meth:`summary`)."""
        return f"verdict: {self.verdict}   (method: {self.method}, {self.seconds:.2f} s)"

    def summary(self) -> str:
        """The report as text; its last line is :meth:`verdict_line` (a reader of a long log, or
        of output the audited code printed, finds the verdict at the end)."""
        lines = [
            "claim: " + ", ".join(f"{k} = {v}" for k, v in self.claim.items()),
        ]
        if self.witness is not None:
            w = self.witness
            lines.append("witness: " + w.summary())
            lines.append(f"  D  = {_short(w.with_target)}")
            lines.append(f"  D' = {_short(w.without_target)}")
            lines.append(f"  event E ({w.event_size} outputs), e.g. {', '.join(w.event_sample[:3])}")
            if w.note:
                lines.append("  " + w.note)
        if self.worst_delta is not None:
            wd = self.worst_delta
            lines.append(f"largest delta found: {_up(wd['upper'])} at {wd.get('where', '?')}")
            if wd.get("note"):
                lines.append(f"  ({wd['note']})")
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
        lines.append(self.verdict_line())
        return "\n".join(lines)


def _up(x: object) -> str:
    """A δ for display, rounded up (a positive δ never prints as 0)."""
    from dps_verify.core.numbers import format_up

    if isinstance(x, Fraction | int):
        return format_up(Fraction(x), 6)
    if isinstance(x, float) and x == x and abs(x) != float("inf"):
        return format_up(Fraction(x), 6)
    return str(x)


def _short(recs: Sequence, limit: int = 6) -> str:
    from collections import Counter

    c = Counter(recs)
    parts = [f"{r!r} x{n}" if n > 1 else repr(r) for r, n in list(c.items())[:limit]]
    more = "" if len(c) <= limit else f", ... ({len(c) - limit} more values)"
    return "{" + ", ".join(parts) + more + "}"
