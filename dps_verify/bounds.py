"""Stable facade: the paper's closed-form bounds (code in :mod:`dps_verify.measures.bounds`)."""

from dps_verify.measures.bounds import (
    BOUNDS,
    amplify,
    chernoff_delta,
    d,
    d_certified,
    d_safe,
    max_beta,
    min_epsilon,
    min_k,
)

__all__ = [
    "BOUNDS",
    "amplify",
    "chernoff_delta",
    "d",
    "d_certified",
    "d_safe",
    "max_beta",
    "min_epsilon",
    "min_k",
]
