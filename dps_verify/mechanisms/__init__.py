"""The paper's mechanisms as anonymizers usable with :func:`dps_verify.engine.distribution`.

- :mod:`.k_anonymization` — strongly-safe (CP Def. 5) and ε₁-safe (CP Def. 6) k-anonymization,
  CP §3.2's Apply step, and the unsafe data-dependent recodings of CP §3.1 (CLR, Mondrian).
- :mod:`.examples` — the illustrative mechanisms of CP §2 and the TR (k-duplication, δ-sampling,
  randomized response, the §2.2 XOR pair and the §2.6 gender pair).
"""

from dps_verify.mechanisms.examples import (
    DeltaSampling,
    KDuplication,
    RandomizedResponse,
    gender_pair,
    two_sided_geometric_tail,
    xor_pair,
)
from dps_verify.mechanisms.k_anonymization import (
    ClusterLocalRecoding,
    EpsilonSafeKAnonymizer,
    Mondrian,
    Multiset,
    StronglySafeKAnonymizer,
    apply_step,
    as_multiset,
)

__all__ = [
    "ClusterLocalRecoding",
    "DeltaSampling",
    "EpsilonSafeKAnonymizer",
    "KDuplication",
    "Mondrian",
    "Multiset",
    "RandomizedResponse",
    "StronglySafeKAnonymizer",
    "apply_step",
    "as_multiset",
    "gender_pair",
    "two_sided_geometric_tail",
    "xor_pair",
]
