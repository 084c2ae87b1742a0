"""Stable facade for user code: the paper's closed-form bounds and the inverse questions (code in
:mod:`dps_verify.worstcase.closed_forms`, :mod:`dps_verify.inverse.questions`,
:mod:`dps_verify.worstcase.amplification` and :mod:`dps_verify.worstcase.chernoff`)."""

from dps_verify.inverse.questions import BOUNDS, max_beta, min_epsilon, min_k
from dps_verify.worstcase.amplification import amplify
from dps_verify.worstcase.chernoff import chernoff_delta
from dps_verify.worstcase.closed_forms import d, d_certified, d_safe

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
