"""Stable facade: the paper's closed-form bounds (code in :mod:`dps_verify.measures.bounds`,
:mod:`~dps_verify.measures.amplification` and :mod:`~dps_verify.measures.chernoff`)."""

from dps_verify.measures.amplification import amplify
from dps_verify.measures.bounds import (
    BOUNDS,
    d,
    d_certified,
    d_safe,
    max_beta,
    min_epsilon,
    min_k,
)
from dps_verify.measures.chernoff import chernoff_delta

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
