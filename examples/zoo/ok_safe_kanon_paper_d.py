"""CORRECT: strongly-safe k-anonymization (CP Def. 5) claiming CP Thm 5's δ = d(k, β, ε).

Recognised in closed form: the audit compares the claim with the exact worst case over all
datasets, so its PASS is a proof, not only a search result.
"""

from _common import decade, domain, paper_d

from dps_verify.mechanisms import StronglySafeKAnonymizer

K = 5
EXPECTED = "PASS"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")

anonymize = StronglySafeKAnonymizer(decade, K)
