"""Stable facade: exact distributions and exact privacy measures.

The code lives in :mod:`dps_verify.engine.distribution` (the law of "sample, then anonymize"),
:mod:`dps_verify.measures.divergence` (hockey-stick and pointwise δ, ε) and
:mod:`dps_verify.worstcase.sdgs` (exact worst case of sampled strongly-safe k-anonymization).
"""

from dps_verify.engine.distribution import ExactDistribution, distribution, pairs, randomized
from dps_verify.measures.divergence import (
    DEFINITIONS,
    delta,
    delta_certified,
    epsilon,
    least_exp_for_delta,
    measure,
    pointwise_delta,
    pointwise_delta_exact,
)
from dps_verify.worstcase.sdgs import sdgs_delta, sdgs_delta_certified

__all__ = [
    "DEFINITIONS",
    "ExactDistribution",
    "delta",
    "delta_certified",
    "distribution",
    "epsilon",
    "least_exp_for_delta",
    "measure",
    "pairs",
    "pointwise_delta",
    "pointwise_delta_exact",
    "randomized",
    "sdgs_delta",
    "sdgs_delta_certified",
]
