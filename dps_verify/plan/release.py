"""A release that follows the plan: sample each record with probability β (seeded), recode with
the fixed recoding, publish the sampled records of every group with at least k of them
(strongly-safe k-anonymization, CP §3.2), and say what guarantee it has and why.

Only the recoded QI columns are published: any column in the release must be part of the
grouping, otherwise a value unique to one record (in a column that is not grouped) would show
whether that record is present, and CP Thm 5 would not apply.  Rows are written sorted by their
recoded values, so the file's order carries nothing from the input's order.

Sampling is exact for a rational β = p/q: a record is kept when a uniform integer in [0, q) is
below p.  With a seed the generator is Python's Mersenne Twister (reproducible, not secret: for a
real release omit the seed, and the operating system's CSPRNG is used).
"""

from __future__ import annotations

import csv
import io
import random
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import ParameterError
from dps_verify.plan.recoding import Recoding
from dps_verify.plan.table import Table


@dataclass(frozen=True)
class Release:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    sampled: int
    published_groups: int
    suppressed_records: int

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        w.writerows(self.rows)
        return buf.getvalue()


def sample_and_anonymize(table: Table, recoding: Recoding, beta: Fraction, k: int,
                         seed: int | None) -> Release:
    """Bernoulli(β) sample of ``table`` (exact), then strongly-safe k-anonymization under
    ``recoding`` over the QI columns."""
    if not 0 < beta < 1:
        raise ParameterError(f"beta must satisfy 0 < beta < 1 (CP Def 3), got {beta}")
    if k < 1:
        raise ParameterError("k must be >= 1 (CP §3.2)")
    rng: random.Random = (random.Random(f"dps-verify plan release {seed}") if seed is not None
                          else random.SystemRandom())  # a stream of its own, apart from the selection's
    p, q = beta.numerator, beta.denominator
    idx = [table.columns.index(c) for c in table.qi]
    rules = [recoding.rules.get(c) for c in table.qi]
    groups: dict[tuple[str, ...], int] = defaultdict(int)
    sampled = 0
    for r in table.rows:
        if rng.randrange(q) < p:  # exact Bernoulli(p/q)
            sampled += 1
            key = tuple(rule(r[i]) if rule is not None else r[i] for i, rule in zip(idx, rules))
            groups[key] += 1
    rows: list[tuple[str, ...]] = []
    kept_groups = 0
    for key in sorted(groups):
        if groups[key] >= k:
            kept_groups += 1
            rows.extend([key] * groups[key])
    return Release(columns=table.qi, rows=tuple(rows), sampled=sampled, published_groups=kept_groups,
                   suppressed_records=sampled - len(rows))


def sidecar(*, beta: Fraction, beta_label: str, k: int, recoding: str, spec_path: str, qi: tuple[str, ...],
            seed: int | None, guarantee: dict[str, Any], release: Release,
            recoding_rules: Any = None) -> dict[str, Any]:
    """The JSON sidecar: parameters (with the recoding's rules and the spec file's SHA-256, so the
    release says exactly which generalization it used), the certified guarantee and the theorem
    it rests on.  It holds nothing computed from the table beyond what the release itself shows
    (its row count)."""
    import hashlib
    from pathlib import Path

    try:
        spec_sha = hashlib.sha256(Path(spec_path).read_bytes()).hexdigest()
    except OSError:
        spec_sha = None
    return {
        "kind": "dps-verify plan release",
        "mechanism": "sample each record independently with probability beta (CP Def 3), recode with a "
                     "fixed recoding, publish the groups with at least k sampled records "
                     "(strongly-safe k-anonymization, CP §3.2)",
        "parameters": {"beta": str(beta), "beta_label": beta_label, "beta_float": float(beta), "k": k,
                       "recoding": recoding, "recoding_spec": spec_path, "recoding_spec_sha256": spec_sha,
                       "recoding_rules": recoding_rules, "qi": list(qi),
                       "seed": seed, "sampler": "Mersenne Twister (seeded, reproducible, not secret)"
                       if seed is not None else "operating-system CSPRNG (random.SystemRandom)"},
        "guarantee": guarantee,
        "neighbouring": "add/remove one record (multiset)",
        "released_rows": len(release.rows),
    }


__all__ = ["Release", "sample_and_anonymize", "sidecar"]
