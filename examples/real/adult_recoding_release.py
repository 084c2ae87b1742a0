"""Strongly-safe k-anonymization of UCI Adult: a fixed recoding, then suppression (CP Def. 5).

The recoding is the "medium" one of ``adult_recoding.json`` (Adult's usual age bands and
hierarchies, written down before looking at any table), so it does not depend on the data; every
generalized value seen fewer than K times in the sample is suppressed (CP §3.2's Apply step).
With β = 0.1 and ε = 1, K = 9 is the smallest k for δ = 1e-6 under CP Thm 5's bound d.

    dps-verify audit examples/real/adult_recoding_release.py:release \\
        --data ../shared/data/adult.data --columns examples/real/adult_recoding.json \\
        --qi age,education,marital-status,race,sex --beta 0.1 --epsilon 1 --delta 1e-6

Expected: PASS — this table exactly (every row's removal and every addition, through the product
law), every table by the exact worst case of CP Thm 5's mechanism.
"""

from __future__ import annotations

from pathlib import Path

from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.plan.recoding import load_spec

K = 9
QI = ("age", "education", "marital-status", "race", "sex")
_SPEC = load_spec(Path(__file__).with_name("adult_recoding.json"))
_MEDIUM = _SPEC.get("medium")


def recode(record: tuple) -> tuple:
    """g(t): the record's QI values (in ``QI`` order) generalized by the fixed recoding."""
    return _MEDIUM.key(dict(zip(QI, (str(v) for v in record))), QI)


release = StronglySafeKAnonymizer(recode, K)
