"""Evidence beside registry claims, from third-party implementations on real records.

The registry (:mod:`dps_verify.paper.claims`) checks CP §3.1's claim ``cp.sec3.1.clr-mondrian``
on the project's own CLR and Mondrian.  This module checks the same statement on Mondrian as
implemented by the PyPI package ``anonypy`` (the code a data team would use), on real UCI Adult
records (the shipped extract, :func:`dps_verify.data.load_adult_qi`): the exact output law of
"sample at β, then anonypy's Mondrian" (:func:`dps_verify.engine.distribution.distribution`,
every sample enumerated), with and without the oldest person.  The full-data run, a statistical
audit over all 32,561 rows, is the documented command :data:`FULL_DATA_COMMAND` (its timing in
``benchmarks/bench_real_audit.py``).

Run with ``python -m dps_verify.paper.evidence``; not part of ``dps-verify paper`` (it needs the
optional ``anonypy`` package and calls it a few hundred times).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: The claim this module supports, and the full-data command (README of examples/real).
CLAIM_ID = "cp.sec3.1.clr-mondrian"
FULL_DATA_COMMAND = (
    "dps-verify audit examples/real/adult_mondrian_anonypy.py:release --data "
    "../shared/data/adult.data --columns examples/real/adult_recoding.json --qi age,native-country "
    "--beta 0.1 --epsilon 1 --delta 1e-6"
)
K = 2
BETA = Fraction(1, 2)
EPSILON = 5


@dataclass(frozen=True)
class Evidence:
    """A check of a registry claim on third-party code: ``check()`` returns a dict with
    ``verdict`` (CONFIRMED when the claim's statement holds for that code), the figure and how
    it was obtained; ``control()`` is its negative control (expected REFUTED)."""

    claim_id: str
    title: str
    check: Callable[[], dict] = None  # type: ignore[assignment]
    control: Callable[[], dict] = None  # type: ignore[assignment]
    full_data: str = ""


def _adult_records(outlier_rank: int) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Four ordinary Adult records (age, education-num) and one more: the oldest person
    (``outlier_rank = 0``) or, for the control, a record inside the others' ranges."""
    from dps_verify.data import load_adult_qi

    rows = [(int(r["age"]), int(r["education-num"])) for r in load_adult_qi()]
    others = rows[:4]
    if outlier_rank == 0:
        return others, max(rows)
    lo = [min(r[i] for r in others) for i in (0, 1)]
    hi = [max(r[i] for r in others) for i in (0, 1)]
    inside = next(r for r in rows[4:]
                  if all(lo[i] < r[i] < hi[i] for i in (0, 1)) and r not in others)
    return others, inside


def _anonypy_release(sample: tuple) -> tuple:
    """anonypy's Mondrian (k = K) on the sample as a table; fewer than K rows publish nothing."""
    import anonypy  # type: ignore[import-untyped]
    import pandas as pd  # type: ignore[import-untyped]

    from dps_verify.audit.statistical import canonical_release

    if len(sample) < K:
        return ("table", None, ())
    df = pd.DataFrame(sorted(sample), columns=["age", "education-num"])
    df["_class"] = 0
    with warnings.catch_warnings():  # anonypy divides by a zero span on constant columns
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = anonypy.Preserver(df, ["age", "education-num"], "_class").anonymize_k_anonymity(k=K)
    return canonical_release([{k: v for k, v in r.items() if k != "_class"} for r in rows])


def _delta_with_and_without(outlier_rank: int) -> dict:
    from dps_verify.engine.law_cache import LawCache
    from dps_verify.measures.divergence import delta_certified

    others, outlier = _adult_records(outlier_rank)
    # the two exact laws of :func:`dps_verify.engine.distribution.distribution`, from one law
    # cache: every sample of ``others`` is also a sample of ``[*others, outlier]``, so anonypy
    # runs once per distinct sample (a few hundred milliseconds of pandas work each 10 calls)
    laws = LawCache(_anonypy_release, BETA, [*others, outlier], factorised=False, max_entries=0)
    p = laws([*others, outlier])
    q = laws(others)
    cert = delta_certified(p, q, EPSILON)
    # the outlier shows whenever it is sampled with at least one other record (K = 2)
    expect = BETA * (1 - (1 - BETA) ** len(others))
    holds = expect <= cert.lower and cert.upper <= BETA
    return {"verdict": "CONFIRMED" if holds else "REFUTED",
            "figure": f"anonypy Mondrian: delta(eps={EPSILON}) = {float(cert.lower):.6g} "
                      f"(beta = {BETA})",
            "how": (f"exact output laws of sampled anonypy Mondrian (k = {K}) over every sample of "
                    f"{len(others)} UCI Adult records (age, education-num) plus {outlier}; the outlier's class "
                    f"reaches its values, impossible without it: delta >= beta*Pr[another record "
                    f"sampled] = {expect} at every eps, and <= beta; in range: {holds}"),
            "records": [list(r) for r in others], "outlier": list(outlier)}


def anonypy_mondrian_outlier() -> dict:
    """CP §3.1 on anonypy's Mondrian and the oldest Adult record (expected CONFIRMED)."""
    return _delta_with_and_without(0)


def anonypy_mondrian_inside_record() -> dict:
    """Negative control: a record inside the others' ranges does not show (expected REFUTED)."""
    return _delta_with_and_without(1)


EVIDENCE: dict[str, tuple[Evidence, ...]] = {
    CLAIM_ID: (
        Evidence(CLAIM_ID, "anonypy's Mondrian (PyPI) on UCI Adult records",
                 anonypy_mondrian_outlier, anonypy_mondrian_inside_record, FULL_DATA_COMMAND),
    ),
}


def main() -> int:
    for cid, items in EVIDENCE.items():
        for ev in items:
            res: Any = ev.check()
            ctl: Any = ev.control()
            print(f"{cid}: {ev.title}: {res['verdict']} — {res['figure']}\n  {res['how']}\n"
                  f"  control: {ctl['verdict']} (expected REFUTED) — {ctl['figure']}\n"
                  f"  full data: {ev.full_data}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["CLAIM_ID", "EVIDENCE", "FULL_DATA_COMMAND", "Evidence", "anonypy_mondrian_inside_record",
           "anonypy_mondrian_outlier"]
