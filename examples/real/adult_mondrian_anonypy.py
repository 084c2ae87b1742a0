"""Mondrian k-anonymization by the third-party package ``anonypy`` on UCI Adult.

Mondrian (LeFevre et al. 2006, CP §3.1's cluster-based local recoding) cuts the table at medians
chosen on the data itself, so a single unusual person moves the cuts and shows up in the
published ranges or value sets: sampling first does not make it differentially private (CP §3.1).
The audit finds that on Adult's rare native countries and oldest people.

    dps-verify audit examples/real/adult_mondrian_anonypy.py:release \\
        --data ../shared/data/adult.data --columns examples/real/adult_recoding.json \\
        --qi age,native-country --beta 0.1 --epsilon 1 --delta 1e-6

Expected: FAIL, with a witness row (a one-of-a-kind country) and the event that gives it away.
"""

from __future__ import annotations

import pandas as pd

K = 10


def release(table: pd.DataFrame) -> list[dict]:
    """anonypy's Mondrian at k = K on the QI columns; one released row per class, with its
    generalized values (ranges for numbers, value sets for text) and its size.  A table with
    fewer than K rows publishes nothing."""
    import anonypy

    if len(table) < K:
        return []
    df = table.copy()
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].astype("category")
    df["_class"] = 0  # anonypy counts a sensitive column per class; a constant gives class sizes
    rows = anonypy.Preserver(df, list(table.columns), "_class").anonymize_k_anonymity(k=K)
    return [{k: v for k, v in r.items() if k != "_class"} for r in rows]
