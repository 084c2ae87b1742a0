"""CORRECT: strongly-safe k-anonymization under the pointwise definition (TR Def. 2) with the
exact pointwise worst case as δ (k = 10, β = 0.1, ε = 0.5)."""

from _common import decade, domain, exact_delta

from dps_verify.mechanisms import StronglySafeKAnonymizer

K = 10
EXPECTED = "PASS"
CLAIM = dict(beta=0.1, epsilon=0.5, delta=exact_delta(K, 0.1, 0.5, "pointwise"),
             definition="pointwise")
DOMAIN = domain("ages.json")

anonymize = StronglySafeKAnonymizer(decade, K)
